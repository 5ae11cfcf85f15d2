/* The serialised form of a task (serialize.c): a writer, a reader, the clock of deadlines. */
#ifndef CAIRN_CORE_NET_SERIALIZE_H
#define CAIRN_CORE_NET_SERIALIZE_H

#include "net.h"

#include "cairn/timer.h"

struct cairn_mig_writer {
    uint8_t *buf;
    unsigned cap, len; /* len beyond cap: it did not fit */
    /* The task's timers as cairn__mig_gather read them, the clock then, its memberships. */
    uint32_t rem[CAIRN_TIMERS_PER_TASK], per[CAIRN_TIMERS_PER_TASK];
    uint64_t now;
    uint8_t running, timer_count; /* bit k: timer k runs */
    uint32_t members;             /* bit i: cairn_k.members[i] is the task's */
    uint8_t member_count;
    bool global;
};

struct cairn_mig_reader {
    const uint8_t *buf;
    unsigned len, pos;
    bool bad; /* read past the end */
};

/* Writes task t (its sequence table seq, the length of its SERIALIZE block) to w from its
 * start, the memberships and timers as cairn__mig_gather read them into w, up to the block's
 * bytes, which it does not copy: they go at w->len - state_len; returns how many queued
 * messages it holds. w->len is the whole length, the block's bytes included, also when it is
 * beyond w->cap (then only what fits was written: the head whole or not at all, the rest up
 * to cap). */
unsigned cairn__mig_write(struct cairn_mig_writer *w, const cairn_tcb_t *t, const uint8_t *seq,
                          unsigned state_len, uint32_t hw_hz);
/* Reads t's memberships, timers and the clock into w, for cairn__mig_write. */
void cairn__mig_gather(struct cairn_mig_writer *w, const cairn_tcb_t *t);
/* A little-endian number of 1 to 4 bytes, or of 8. */
uint32_t cairn__mig_get(struct cairn_mig_reader *r, unsigned bytes);
uint64_t cairn__mig_get64(struct cairn_mig_reader *r);
const uint8_t *cairn__mig_get_bytes(struct cairn_mig_reader *r, unsigned n);

/* Now in the deadlines' clock: the global clock (true) or the hardware counter (false). */
bool cairn__mig_clock(uint64_t *now);
uint64_t cairn__mig_ticks_to_clock(uint32_t ticks, bool global, uint32_t hw_hz);
uint32_t cairn__mig_clock_to_ticks(uint64_t units, bool global, uint32_t hw_hz);

#endif
