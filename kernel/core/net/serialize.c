/*
 * The serialised form of a task (docs/migration.md, "Frames"): what the STATE frames
 * carry, built on the source when the task is frozen and read on the destination.
 *
 *   id, priority, flags, number of output ports; the routes (task, port) each;
 *   memberships: count, then (group, port) each;
 *   the sequence table: count, then the last number accepted from each module, then
 *   each module's epoch then (the reliable layer's rx_seq and rx_epoch);
 *   timers: count, then (n, flags: 1 periodic, 2 global clock; period u32; deadline u64);
 *   queued messages: count, then (port, source task, sequence, length u16, payload);
 *   the block the task's SERIALIZE handler gave: length u16, zero bytes up to a multiple
 *   of 4 from the start, bytes (word-aligned in the blob: copied by words at both ends).
 *
 * Numbers are little-endian. A deadline is in the global clock's units when time
 * synchronisation runs here, else in this module's hardware counter ticks (flag 2 clear).
 */
#include "serialize.h"
#include "migrator.h"

#include "cairn/arch_timer.h"
#include "cairn/mem.h"
#include "cairn/timer.h"
#include "cairn/timesync.h"

/* The writers are inlined into cairn__mig_write and write through a local cursor, which
 * the compiler keeps in registers: a call per field, each reloading the writer after its
 * byte stores (which may alias it), cost more than the bytes of a small task. */
#define WRITER static inline __attribute__((always_inline))

/* Where the bytes go: the writer's buffer, its capacity and the length written. */
struct cursor {
    uint8_t *buf;
    unsigned cap, len;
};

/* 32 bits at most: a 64-bit shift is a library call per byte on the M0+. A write that
 * does not fit only counts: the caller discards a blob whose length passed its capacity. */
WRITER void put(struct cursor *w, uint32_t v, unsigned bytes)
{
    unsigned at = w->len;
    w->len = at + bytes;
    if (w->len > w->cap)
        return;
    for (uint8_t *b = w->buf + at; bytes; bytes--, v >>= 8)
        *b++ = (uint8_t)v;
}

/* One copy, not a put() per byte: the task's block is most of a large serialised task. */
WRITER void put_bytes(struct cursor *w, const void *p, unsigned n)
{
    if (w->len < w->cap) {
        unsigned room = w->cap - w->len;
        __builtin_memcpy(w->buf + w->len, p, n < room ? n : room);
    }
    w->len += n;
}

/* In 32 bits, like put: the 64-bit shifts of a wider read cost a library call a byte. */
uint32_t cairn__mig_get(struct cairn_mig_reader *r, unsigned bytes)
{
    if (r->pos > r->len || r->len - r->pos < bytes) {
        r->bad = true;
        return 0;
    }
    const uint8_t *p = r->buf + r->pos;
    r->pos += bytes;
    uint32_t v = 0;
    while (bytes--)
        v = v << 8 | p[bytes];
    return v;
}

uint64_t cairn__mig_get64(struct cairn_mig_reader *r)
{
    uint32_t lo = cairn__mig_get(r, 4);
    return (uint64_t)cairn__mig_get(r, 4) << 32 | lo;
}

const uint8_t *cairn__mig_get_bytes(struct cairn_mig_reader *r, unsigned n)
{
    if (r->len - r->pos < n || r->pos > r->len) {
        r->bad = true;
        return 0;
    }
    const uint8_t *p = r->buf + r->pos;
    r->pos += n;
    return p;
}

/* Now, in the clock deadlines are stamped with: the global one when it runs. */
bool cairn__mig_clock(uint64_t *now)
{
    cairn_time_t g;
    if (cairn_global_time(&g) == CAIRN_OK) {
        *now = g;
        return true;
    }
    *now = arch_timer_now();
    return false;
}

uint64_t cairn__mig_ticks_to_clock(uint32_t ticks, bool global, uint32_t hw_hz)
{
    if (!global || !hw_hz)
        return ticks;
    return ((uint64_t)ticks * CAIRN_TIME_SECOND) / hw_hz;
}

uint32_t cairn__mig_clock_to_ticks(uint64_t units, bool global, uint32_t hw_hz)
{
    uint64_t t = global && hw_hz ? units * hw_hz / CAIRN_TIME_SECOND : units;
    return t > CAIRN_TIMER_MAX_TICKS ? CAIRN_TIMER_MAX_TICKS : (uint32_t)t;
}

_Static_assert(CAIRN_MCAST_ENTRIES <= 32, "a membership mask of 32 bits");
_Static_assert(CAIRN_MCAST_ENTRIES % 8 == 0, "the memberships scanned eight at a time");

/* What cairn__mig_write writes besides the copies, read once: the memberships, the timers
 * and the clock their deadlines are stamped from. */
void cairn__mig_gather(struct cairn_mig_writer *w, const cairn_tcb_t *t)
{
    cairn_task_id_t id = t->id;
    uint32_t members = 0;
    unsigned count = 0;
    /* Unrolled, eight entries from one base register (a load's offset reaches 31 bytes): a
     * load and a test per entry, where the loop's count and branch back cost twice that for
     * every entry of a task that has none. */
    for (unsigned h = 0; h < CAIRN_MCAST_ENTRIES; h += 8) {
        const struct cairn_member *e = &cairn_k.members[h];
        __asm__("" : "+l"(e)); /* kept as the base, not folded into the array's address */
#pragma GCC unroll 8
        for (unsigned j = 0; j < 8; j++)
            if (__builtin_expect(e[j].task == id, 0) && e[j].group) {
                members |= 1u << (h + j);
                count++;
            }
    }
    w->members = members;
    w->member_count = (uint8_t)count;
    unsigned running = cairn__timer_query_task(id, w->rem, w->per);
    w->running = (uint8_t)running;
    w->timer_count = 0;
    w->global = false;
    if (running) { /* the clock only for deadlines: reading it costs 64-bit arithmetic */
        unsigned n = 0;
        for (unsigned k = running; k; k >>= 1)
            n += k & 1u;
        w->timer_count = (uint8_t)n;
        w->global = cairn__mig_clock(&w->now);
    }
}

typedef uint32_t __attribute__((may_alias, aligned(4))) word_t;
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "a word stored as the blob's bytes");

/* Little-endian stores with no capacity check, unrolled: the head's room is checked once
 * (raw_head), where a put() per field tested the capacity and looped over its bytes. */
WRITER uint8_t *raw(uint8_t *b, uint32_t v, unsigned bytes)
{
#pragma GCC unroll 4
    for (unsigned i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> 8 * i);
    return b + bytes;
}

WRITER uint8_t *raw_table(uint8_t *b, const uint8_t *t)
{
#pragma GCC unroll 8
    for (unsigned i = 0; i < CAIRN_NET_MODULES; i++)
        b[i] = t[i];
    return b + CAIRN_NET_MODULES;
}

/* The memberships and the timers, out of line: most tasks have neither, and the deadlines'
 * 64-bit arithmetic inlined into the head's writer made it keep its values on the stack. */
static __attribute__((noinline)) uint8_t *raw_members(uint8_t *b, uint32_t m)
{
    for (const struct cairn_member *e = cairn_k.members; m; m >>= 1, e++)
        if (m & 1u)
            b = raw(b, e->group | (uint32_t)e->port << 8, 2);
    return b;
}

static __attribute__((noinline)) uint8_t *raw_timers(uint8_t *b, const struct cairn_mig_writer *w,
                                                     uint32_t hw_hz)
{
    for (unsigned k = 0; w->running >> k; k++) {
        if (!(w->running & 1u << k))
            continue;
        b = raw(b, k | (w->per[k] ? 1u : 0u) << 8 | (w->global ? 2u : 0u) << 8, 2);
        b = raw(b, w->per[k], 4);
        uint64_t deadline = w->now + cairn__mig_ticks_to_clock(w->rem[k], w->global, hw_hz);
        b = raw(b, (uint32_t)deadline, 4);
        b = raw(b, (uint32_t)(deadline >> 32), 4);
    }
    return b;
}

/* The head, everything before the queued messages, whose length cairn__mig_write counted from
 * the same fields of w (the task is frozen and interrupts change neither its routes nor its
 * memberships): written at b, which has room for it. */
static void raw_head(uint8_t *b, const struct cairn_mig_writer *w, const cairn_tcb_t *t,
                     const uint8_t *seq, uint32_t hw_hz)
{
    cairn_task_id_t id = t->id;
    unsigned num_out = t->num_out;
    /* id, priority, flags (only a movable task is serialised), ports: one word, the blob's
     * first (a blob starts word-aligned: its state block is copied by words at both ends) */
    *(word_t *)b = id | (uint32_t)t->prio << 8 | (uint32_t)CAIRN_TASK_MOVABLE << 16 | (uint32_t)num_out << 24;
    b += 4;
    for (unsigned i = 0; i < num_out; i++)
        b = raw(b, t->routes[i].task | (uint32_t)t->routes[i].port << 8, 2);
    *b++ = w->member_count;
    if (w->members)
        b = raw_members(b, w->members);
    *b++ = CAIRN_NET_MODULES;
    b = raw_table(b, seq);
    b = raw_table(b, cairn_net.rel->rx_epoch[id]); /* cairn__rel_epochs, without its call */
    *b++ = w->timer_count;
    if (w->running)
        (void)raw_timers(b, w, hw_hz);
}

unsigned cairn__mig_write(struct cairn_mig_writer *w, const cairn_tcb_t *t, const uint8_t *seq,
                          unsigned state_len, uint32_t hw_hz)
{
    struct cursor cur = {w->buf, w->cap, 0}, *c = &cur;
    cairn_task_id_t id = t->id;
    unsigned head = 4u + 2u * t->num_out + 1u + 2u * w->member_count + 1u + 2u * CAIRN_NET_MODULES +
                    1u + 14u * w->timer_count;
    if (c->cap >= head)
        raw_head(c->buf, w, t, seq, hw_hz);
    c->len = head; /* beyond cap: it did not fit, the caller discards it */
    /* The queued messages, in queue order (interrupts masked: the queue cannot move). */
    uint32_t s = arch_irq_save();
    unsigned count_at = c->len, msgs = 0;
    put(c, 0, 1);
    for (const cairn_msg_t *m = cairn_k.queue; m; m = m->next) {
        if (m->dst != id)
            continue;
        put(c, m->port, 1);
        put(c, m->src, 1);
        put(c, 0, 1); /* queued here: no number */
        put(c, m->len, 2);
        put_bytes(c, m->payload, m->len);
        msgs++;
    }
    if (count_at < c->cap)
        c->buf[count_at] = (uint8_t)msgs;
    arch_irq_restore(s);
    /* The state's length and the zeros before its bytes, together: where they do not fit,
     * neither does the state, and the caller discards the blob (or, written up to a part,
     * sends its first part only when the state starts within it). */
    unsigned len = c->len, at = len + 2u, pad = (0u - at) & 3u;
    if (at + pad <= c->cap) {
        uint8_t *b = c->buf + len;
        b[0] = (uint8_t)state_len;
        b[1] = (uint8_t)(state_len >> 8);
        for (unsigned i = 0; i < pad; i++)
            b[2 + i] = 0;
    }
    /* The state's bytes are counted, not copied: the caller knows where they go (after the
     * fields in a blob of one part or of its own; nowhere in the first part of a split
     * state, whose bytes go to the controller straight from the task's block). */
    w->len = at + pad + state_len;
    return msgs;
}
