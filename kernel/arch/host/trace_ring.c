/*
 * Cairn OS host port: the event log is a RAM ring of CAIRN_TRACE_RING words.
 */
#include "cairn_host.h"

#include "cairn/trace.h"

static uint32_t ring[CAIRN_TRACE_RING];
static size_t head;  /* next write */
static size_t count; /* valid words */
static uint32_t lost;

void cairn_trace_host_put(uint32_t word)
{
    ring[head] = word;
    head = (head + 1) % CAIRN_TRACE_RING;
    if (count < CAIRN_TRACE_RING)
        count++;
    else
        lost++;
}

size_t cairn_trace_host_read(uint32_t *out, size_t max)
{
    size_t n = count < max ? count : max;
    size_t first = (head + CAIRN_TRACE_RING - count) % CAIRN_TRACE_RING;
    for (size_t i = 0; i < n; i++)
        out[i] = ring[(first + i) % CAIRN_TRACE_RING];
    return n;
}

size_t cairn_trace_host_count(void)
{
    return count;
}

uint32_t cairn_trace_host_lost(void)
{
    return lost;
}

void cairn_trace_host_reset(void)
{
    head = 0;
    count = 0;
    lost = 0;
}
