/*
 * Cairn OS state messages (cairn/statemsg.h; docs/statemsg.md).
 *
 * Invariant: slot count % depth holds the latest whole value; the writer only ever writes
 * slot (count + 1) % depth, and counts the write after the last byte is in. A read of slot
 * c % depth (c = count when it began) is whole unless the writer came round to that slot
 * again, which takes `depth` completed writes: on one processor a write cannot be half done
 * when the reader looks at the count at the end of its copy (a writer that preempts the
 * reader runs to its end first; one that the reader preempted was writing another slot).
 */
#include "cairn/statemsg.h"

#include "cairn/arch.h"

static uint16_t stride(const cairn_statemsg_t *sm)
{
    return (uint16_t)((sm->size + 3u) & ~3u);
}

static uint8_t *slot(const cairn_statemsg_t *sm, uint32_t count)
{
    return sm->slots + (size_t)stride(sm) * (count % sm->depth);
}

uint8_t cairn_statemsg_depth(uint32_t writer_period, uint32_t writer_deadline, uint32_t read_max)
{
    if (!writer_period || writer_deadline > writer_period)
        return 0;
    /* The first write as late as its deadline lets it be, the rest one period apart. */
    uint32_t slack = writer_period - writer_deadline;
    uint64_t x_max = 1;
    if (read_max > slack)
        x_max += ((uint64_t)read_max - slack + writer_period - 1u) / writer_period;
    return x_max + 1u > 255u ? 0 : (uint8_t)(x_max + 1u);
}

cairn_ret_t cairn_statemsg_init(cairn_statemsg_t *sm, void *buf, uint16_t size, uint8_t depth,
                                const void *initial)
{
    if (!sm || !buf || !size || !depth || (depth == 1 && size > 4u) || ((uintptr_t)buf & 3u))
        return CAIRN_EINVAL;
    sm->slots = buf;
    sm->size = size;
    sm->depth = depth;
    sm->count = 0;
    if (initial)
        __builtin_memcpy(sm->slots, initial, size);
    else
        __builtin_memset(sm->slots, 0, size);
    return CAIRN_OK;
}

void cairn_statemsg_write(cairn_statemsg_t *sm, const void *value)
{
    uint32_t next = sm->count + 1u;
    if (sm->depth == 1) {
        /* One aligned store writes the whole value: no reader can see half of it. */
        uint32_t w = 0;
        __builtin_memcpy(&w, value, sm->size);
        __atomic_store_n((uint32_t *)(void *)sm->slots, w, __ATOMIC_RELAXED);
    } else {
        __builtin_memcpy(slot(sm, next), value, sm->size);
    }
    /* The bytes before the count: a reader that sees the new count sees the whole value. */
    __atomic_signal_fence(__ATOMIC_RELEASE);
    sm->count = next;
}

const void *cairn_statemsg_read_begin(const cairn_statemsg_t *sm, uint32_t *count)
{
    uint32_t c = sm->count;
    __atomic_signal_fence(__ATOMIC_ACQUIRE);
    *count = c;
    return slot(sm, c);
}

bool cairn_statemsg_read_end(const cairn_statemsg_t *sm, uint32_t count)
{
    __atomic_signal_fence(__ATOMIC_ACQUIRE);
    return sm->depth == 1 || sm->count - count < sm->depth;
}

cairn_ret_t cairn_statemsg_read(const cairn_statemsg_t *sm, void *out)
{
    uint32_t c;
    const void *p = cairn_statemsg_read_begin(sm, &c);
    if (sm->depth == 1) {
        uint32_t w = __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
        __builtin_memcpy(out, &w, sm->size);
        return CAIRN_OK;
    }
    __builtin_memcpy(out, p, sm->size);
    return cairn_statemsg_read_end(sm, c) ? CAIRN_OK : CAIRN_EAGAIN;
}

void cairn_statemsg_read_atomic(const cairn_statemsg_t *sm, void *out)
{
    uint32_t s = arch_irq_save();
    __builtin_memcpy(out, slot(sm, sm->count), sm->size);
    arch_irq_restore(s);
}

uint32_t cairn_statemsg_writes(const cairn_statemsg_t *sm)
{
    return sm->count;
}
