/*
 * Cairn OS state messages (cairn/statemsg.h; docs/statemsg.md).
 *
 * Invariant: the slot pos names holds the latest whole value; the writer only ever writes
 * the slot after it, and publishes the write (count and slot in one store of pos) after the
 * last byte is in. A read of the slot named at its start is whole unless the writer came
 * round to that slot again, which takes `depth` completed writes: on one processor a write
 * cannot be half done when the reader looks at pos at the end of its copy (a writer that
 * preempts the reader runs to its end first; one that the reader preempted was writing
 * another slot).
 */
#include "cairn/statemsg.h"

#include "cairn/arch.h"

#define WRITES(pos) ((pos) >> 8)
#define SLOT(pos) ((pos) & 0xFFu)

/* Inlined into the read, whose cost is the point of a state message (a call each would
 * cost more than the copy of a small value). */
#define INLINE static inline __attribute__((always_inline))

INLINE uint8_t *slot(const cairn_statemsg_t *sm, uint32_t index)
{
    return sm->slots + ((sm->size + 3u) & ~3u) * index;
}

/* Words when both ends are aligned and the size is whole words (the common case for a
 * struct of readings), bytes otherwise. */
INLINE void copy(void *dst, const void *src, unsigned n)
{
    if ((((uintptr_t)dst | (uintptr_t)src | n) & 3u) == 0) {
        uint32_t *d = dst;
        const uint32_t *s = src;
        for (unsigned i = 0; i < n / 4u; i++)
            d[i] = s[i];
    } else {
        __builtin_memcpy(dst, src, n);
    }
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
    sm->pos = 0;
    if (initial)
        __builtin_memcpy(sm->slots, initial, size);
    else
        __builtin_memset(sm->slots, 0, size);
    return CAIRN_OK;
}

void cairn_statemsg_write(cairn_statemsg_t *sm, const void *value)
{
    uint32_t pos = sm->pos;
    uint32_t next = SLOT(pos) + 1u == sm->depth ? 0 : SLOT(pos) + 1u;
    if (sm->depth == 1) {
        /* One aligned store writes the whole value: no reader can see half of it. */
        uint32_t w = 0;
        __builtin_memcpy(&w, value, sm->size);
        __atomic_store_n((uint32_t *)(void *)sm->slots, w, __ATOMIC_RELAXED);
    } else {
        copy(slot(sm, next), value, sm->size);
    }
    /* The bytes before pos: a reader that sees the new pos sees the whole value. */
    __atomic_signal_fence(__ATOMIC_RELEASE);
    sm->pos = (WRITES(pos) + 1u) << 8 | next;
}

INLINE const void *begin(const cairn_statemsg_t *sm, uint32_t *token)
{
    uint32_t pos = sm->pos;
    __atomic_signal_fence(__ATOMIC_ACQUIRE);
    *token = pos;
    return slot(sm, SLOT(pos));
}

INLINE bool end(const cairn_statemsg_t *sm, uint32_t token)
{
    __atomic_signal_fence(__ATOMIC_ACQUIRE);
    return sm->depth == 1 || ((WRITES(sm->pos) - WRITES(token)) & 0xFFFFFFu) < sm->depth;
}

const void *cairn_statemsg_read_begin(const cairn_statemsg_t *sm, uint32_t *token)
{
    return begin(sm, token);
}

bool cairn_statemsg_read_end(const cairn_statemsg_t *sm, uint32_t token)
{
    return end(sm, token);
}

cairn_ret_t cairn_statemsg_read(const cairn_statemsg_t *sm, void *out)
{
    uint32_t token;
    const void *p = begin(sm, &token);
    if (sm->depth == 1) {
        uint32_t w = __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
        __builtin_memcpy(out, &w, sm->size);
        return CAIRN_OK;
    }
    copy(out, p, sm->size);
    return end(sm, token) ? CAIRN_OK : CAIRN_EAGAIN;
}

void cairn_statemsg_read_atomic(const cairn_statemsg_t *sm, void *out)
{
    uint32_t s = arch_irq_save();
    copy(out, slot(sm, SLOT(sm->pos)), sm->size);
    arch_irq_restore(s);
}

uint32_t cairn_statemsg_writes(const cairn_statemsg_t *sm)
{
    return WRITES(sm->pos);
}
