/*
 * Cairn OS state messages (the EMERALDS paper, Zuberi, Pillai and Shin, SOSP 1999, section
 * on state messages; docs/statemsg.md): one writer, any number of readers, a value that a
 * new write replaces. Reads do not consume it and neither side ever blocks, so a reader
 * always gets the latest complete value without a message, a queue or a context switch.
 *
 * The value lives in a circular buffer of `depth` slots. The writer fills the slot after
 * the latest one, then publishes it by counting the write; a reader copies the latest
 * slot. The copy is whole as long as fewer than `depth` writes complete while it runs,
 * which cairn_statemsg_depth() guarantees from the writer's period and deadline and the
 * longest time a read can take (preemptions included). A reader too slow for that depth
 * (a "slow reader") uses cairn_statemsg_read_atomic(), which copies with interrupts
 * masked, instead of making the buffer deeper for everyone.
 *
 * One processor: the writer and the readers are handlers or interrupt code of one
 * module; a state message is not shared across the bus.
 */
#ifndef CAIRN_STATEMSG_H
#define CAIRN_STATEMSG_H

#include "cairn/types.h"

typedef struct cairn_statemsg {
    uint8_t *slots; /* depth slots of size bytes, each starting word-aligned */
    uint16_t size;
    uint8_t depth;
    /* writes completed (mod 2^24) << 8 | the slot of the latest value: one word, so that a
     * reader gets both with one load (and no division: the M0+ has none) */
    volatile uint32_t pos;
} cairn_statemsg_t;

/* Slots of a value of size bytes (words: a slot starts word-aligned) for depth slots. */
#define CAIRN_STATEMSG_BYTES(size, depth) ((((size) + 3u) & ~3u) * (depth))

/* The depth that keeps every read whole: x_max + 1, where x_max is the most writes that can
 * complete while one read runs, for a writer of period `writer_period` and relative
 * deadline `writer_deadline` and reads that take at most `read_max` from start to end
 * (including the time the reader may be preempted: at most its deadline minus its
 * execution time); all in the same unit (ticks or cycles). 0 when the arguments are
 * inconsistent (a zero period, a deadline beyond the period) or the depth would exceed 255. */
uint8_t cairn_statemsg_depth(uint32_t writer_period, uint32_t writer_deadline, uint32_t read_max);

/* Sets sm up on buf (CAIRN_STATEMSG_BYTES(size, depth) bytes, word-aligned), holding
 * `initial` (size bytes; zeros when NULL). CAIRN_EINVAL: size 0, depth < 1, or depth 1 for
 * a value that one aligned store cannot write (more than 4 bytes). */
cairn_ret_t cairn_statemsg_init(cairn_statemsg_t *sm, void *buf, uint16_t size, uint8_t depth,
                                const void *initial);

/* The writer: the new value (size bytes) replaces the old one. Never blocks. */
void cairn_statemsg_write(cairn_statemsg_t *sm, const void *value);

/* A reader: copies the latest value to out. CAIRN_OK: the copy is whole. CAIRN_EAGAIN:
 * depth writes or more completed during the copy, which may then mix two values: the
 * depth is too small for this reader (read again, or use cairn_statemsg_read_atomic). */
cairn_ret_t cairn_statemsg_read(const cairn_statemsg_t *sm, void *out);

/* The same in place: the latest slot, and a token to hand to read_end. */
const void *cairn_statemsg_read_begin(const cairn_statemsg_t *sm, uint32_t *token);
/* Whether the slot read_begin gave is still whole (see cairn_statemsg_read). */
bool cairn_statemsg_read_end(const cairn_statemsg_t *sm, uint32_t token);

/* A slow reader: the copy made with interrupts masked, so no write can come in between;
 * always whole, at the cost of the masked time. */
void cairn_statemsg_read_atomic(const cairn_statemsg_t *sm, void *out);

/* Writes completed so far (modulo 2^24). */
uint32_t cairn_statemsg_writes(const cairn_statemsg_t *sm);

#endif /* CAIRN_STATEMSG_H */
