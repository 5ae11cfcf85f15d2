/*
 * Cairn OS state messages on real exception hardware (cairn-sim and QEMU): a reader task
 * reads a state message in place while interrupts bring a higher-priority writer task in
 * between, a chosen number of times; read_end must call the read whole exactly while fewer
 * than `depth` writes came, and a read it calls whole must hold one value. The reader
 * pends the interrupts itself, so the transcript does not depend on timing.
 */
#include <stdint.h>

#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/statemsg.h"
#include "cairn/task.h"
#include "cairn/timer.h"

#include "cairn_armv6m.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"

enum { READER = 1, WRITER = 2 };
#define DEPTH 3u

struct reading {
    uint32_t seq;
    uint8_t bytes[28];
};

static _Alignas(4) uint8_t slots[CAIRN_STATEMSG_BYTES(sizeof(struct reading), DEPTH)];
static cairn_statemsg_t sm;
static uint32_t next_seq = 1;

static struct reading value(uint32_t k)
{
    struct reading r;
    r.seq = k;
    for (unsigned i = 0; i < sizeof r.bytes; i++)
        r.bytes[i] = (uint8_t)k;
    return r;
}

static int whole(const struct reading *r, uint32_t seq)
{
    if (r->seq != seq)
        return 0;
    for (unsigned i = 0; i < sizeof r->bytes; i++)
        if (r->bytes[i] != (uint8_t)seq)
            return 0;
    return 1;
}

static cairn_ret_t writer(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0)) {
        struct reading v = value(next_seq++);
        cairn_statemsg_write(&sm, &v);
    }
    return CAIRN_OK;
}

void irq24_handler(void)
{
    cairn_isr_enter(24);
    (void)cairn_post(WRITER, CAIRN_PORT(0), 0, 0);
    cairn_isr_exit();
}

static cairn_ret_t reader(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT(0))
        return CAIRN_OK;
    for (uint32_t between = 0; between <= DEPTH + 1; between++) {
        uint32_t c, before = cairn_statemsg_writes(&sm);
        const struct reading *p = cairn_statemsg_read_begin(&sm, &c);
        uint32_t seq = p->seq;
        for (uint32_t k = 0; k < between; k++) { /* the writer preempts this handler */
            nvic_set_pending(24);
            cpu_sync();
        }
        int ok = cairn_statemsg_read_end(&sm, c);
        check_eq("writes during the read", cairn_statemsg_writes(&sm) - before, between);
        check_eq("read whole while fewer than depth writes came", (uint32_t)ok, between < DEPTH);
        if (ok)
            check_yes("a read called whole holds one value", whole(p, seq));
    }
    struct reading out;
    check_eq("a copy with nothing in between", (uint32_t)cairn_statemsg_read(&sm, &out), CAIRN_OK);
    check_yes("it is the latest value", whole(&out, next_seq - 1));
    cairn_statemsg_read_atomic(&sm, &out);
    check_yes("the slow reader's copy too", whole(&out, next_seq - 1));
    return CAIRN_OK;
}

static uint64_t heap[256];

int main(void)
{
    test_begin("armv6m-statemsg");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    struct reading v = value(0);
    check_eq("init", (uint32_t)cairn_statemsg_init(&sm, slots, sizeof v, DEPTH, &v), 0);
    check_eq("create READER", (uint32_t)cairn_task_create(READER, reader, 0, 1, 0, 0, 0), 0);
    check_eq("create WRITER", (uint32_t)cairn_task_create(WRITER, writer, 0, 5, 0, 0, 0), 0);
    check_eq("init READER", (uint32_t)cairn_task_init(READER, 0, 0), 0);
    check_eq("init WRITER", (uint32_t)cairn_task_init(WRITER, 0, 0), 0);
    nvic_set_priority(24, NVIC_PRIO_LOW);
    nvic_enable(24);
    (void)cairn_post(READER, CAIRN_PORT(0), 0, 0);
    cairn_dispatch();
    check_eq("writes", cairn_statemsg_writes(&sm), 0 + 1 + 2 + 3 + 4);
    check_eq_hex("PRIMASK at the end", cpu_get_primask(), 0);
    return test_end();
}
