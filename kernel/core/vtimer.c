/*
 * Cairn OS virtual timers over one hardware counter (tickless delta list).
 *
 * Running timers sit in a delta list: each entry stores its expiry in ticks after
 * its predecessor's, the head's counts from `last`, the counter value at which
 * the list was last brought up to date. Only the timer interrupt moves `last`;
 * a set from anywhere else inserts at (now - last) + ticks, so no entry's delta
 * changes except the successor of the new one.
 *
 * The interrupt moves every entry whose deadline has passed to the `due` queue
 * (deadline order, each with how long ago its deadline was) and fires them one
 * by one outside the lock. A periodic entry is re-inserted before its message is
 * posted, at previous deadline + period: into the delta list, or back into `due`
 * when that deadline has passed too (a late interrupt fires every missed period).
 * Handlers called from cairn_timer_fired may set and cancel timers freely; the
 * hardware is re-armed once, when `due` is empty and nothing more is overdue.
 * See docs/kernel-memory-timers.md.
 */
#include "cairn/timer.h"

#include "cairn/arch_timer.h"
#include "cairn/mem.h"

#include "cairn/trace.h"

struct vtimer {
    struct vtimer *next;
    uint32_t delta;  /* delta list: ticks after the predecessor (head: after vt.last);
                        due queue: ticks the deadline lies before vt.last */
    uint32_t period; /* 0: one-shot */
    uint16_t key;    /* KEY(task, n): the task in the low byte, n in the high byte */
};
#define KEY(task, n) ((uint16_t)((task) | (unsigned)(n) << 8))

_Static_assert(sizeof(struct vtimer) == 2 * sizeof(void *) + 8, "16-byte entry on 32-bit targets");

/* The entries live in one heap block (kernel-owned) carved at cairn_timer_init. */
static cairn_slab_t vt_pool;

static struct {
    struct vtimer *head; /* delta list */
    struct vtimer *due;  /* expired, not fired yet */
    uint32_t last;       /* counter value the head's delta counts from */
    bool dispatching;    /* inside cairn_timer_isr: it re-arms the hardware at the end */
} vt;

cairn_ret_t cairn_timer_init(void)
{
    void *storage = cairn_malloc(CAIRN_MAX_TIMERS * CAIRN_SLAB_STRIDE(sizeof(struct vtimer)));
    if (storage)
        cairn_heap_set_owner(storage, CAIRN_TASK_NONE);
    cairn_slab_init(&vt_pool, storage, sizeof(struct vtimer), CAIRN_MAX_TIMERS);
    vt.head = NULL;
    vt.due = NULL;
    vt.dispatching = false;
    arch_timer_disarm();
    return storage ? CAIRN_OK : CAIRN_ENOMEM;
}

static uint32_t elapsed(void)
{
    return (arch_timer_now() - vt.last) & CAIRN_HWTIMER_MASK;
}

/* Inserts t to expire off ticks after vt.last, after entries with the same expiry. */
static void insert_delta(struct vtimer *t, uint32_t off)
{
    struct vtimer **pp = &vt.head;
    while (*pp && (*pp)->delta <= off) {
        off -= (*pp)->delta;
        pp = &(*pp)->next;
    }
    t->delta = off;
    t->next = *pp;
    if (t->next)
        t->next->delta -= off;
    *pp = t;
}

/* Inserts t into the due queue, overdue ticks before vt.last, after earlier deadlines. */
static void insert_due(struct vtimer *t, uint32_t overdue)
{
    struct vtimer **pp = &vt.due;
    while (*pp && (*pp)->delta >= overdue)
        pp = &(*pp)->next;
    t->delta = overdue;
    t->next = *pp;
    *pp = t;
}

/* The link to the entry with key in the list *pp, or NULL. */
static struct vtimer **find(struct vtimer **pp, uint16_t key)
{
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->key == key)
            return pp;
    return NULL;
}

/* Removes and returns the timer with key from whichever list holds it. */
static struct vtimer *unlink_timer(uint16_t key)
{
    struct vtimer **pp = find(&vt.head, key), *t;
    if (pp) {
        t = *pp;
        if (t->next)
            t->next->delta += t->delta;
    } else if (!(pp = find(&vt.due, key))) {
        return NULL;
    }
    t = *pp;
    *pp = t->next;
    return t;
}

/* Programs the hardware for the head's expiry, at most half the counter range
 * ahead (an intermediate deadline just brings the list up to date). */
static void rearm(void)
{
    if (vt.dispatching)
        return;
    if (!vt.head) {
        arch_timer_disarm();
        return;
    }
    uint32_t d = vt.head->delta < CAIRN_HWTIMER_HALF ? vt.head->delta : CAIRN_HWTIMER_HALF;
    arch_timer_arm((vt.last + d) & CAIRN_HWTIMER_MASK);
}

cairn_ret_t cairn_timer_set(cairn_task_id_t task, uint8_t n, uint32_t ticks, bool periodic)
{
    if (task == 0 || n >= CAIRN_TIMERS_PER_TASK || ticks - 1u >= CAIRN_TIMER_MAX_TICKS)
        return CAIRN_EINVAL;
    uint32_t s = arch_timer_lock();
    struct vtimer *t = unlink_timer(KEY(task, n));
    if (!t)
        t = cairn_slab_alloc(&vt_pool);
    if (t) {
        t->key = KEY(task, n);
        t->period = periodic ? ticks : 0;
        if (!vt.head && !vt.dispatching)
            vt.last = arch_timer_now();
        uint32_t e = elapsed();
        insert_delta(t, e > UINT32_MAX - ticks ? UINT32_MAX : e + ticks);
        rearm();
    }
    arch_timer_unlock(s);
    return t ? CAIRN_OK : CAIRN_ENOMEM;
}

cairn_ret_t cairn_timer_cancel(cairn_task_id_t task, uint8_t n)
{
    if (task == 0 || n >= CAIRN_TIMERS_PER_TASK)
        return CAIRN_EINVAL;
    uint32_t s = arch_timer_lock();
    struct vtimer *t = unlink_timer(KEY(task, n));
    if (t) {
        cairn_slab_free(&vt_pool, t);
        rearm();
    }
    arch_timer_unlock(s);
    return t ? CAIRN_OK : CAIRN_EINVAL;
}

void cairn_timer_cancel_all(cairn_task_id_t task)
{
    for (uint8_t n = 0; n < CAIRN_TIMERS_PER_TASK; n++)
        (void)cairn_timer_cancel(task, n);
}

cairn_ret_t cairn_timer_start(uint8_t n, uint32_t ticks, bool periodic)
{
    return cairn_timer_set(cairn_current_task(), n, ticks, periodic);
}

cairn_ret_t cairn_timer_stop(uint8_t n)
{
    return cairn_timer_cancel(cairn_current_task(), n);
}

/* Brings the delta list up to the counter: moves vt.last to now and every entry
 * whose deadline has passed to the (empty) due queue, in deadline order. */
static void sync(void)
{
    uint32_t e = elapsed();
    vt.last = (vt.last + e) & CAIRN_HWTIMER_MASK;
    struct vtimer **tail = &vt.due;
    struct vtimer *t;
    while ((t = vt.head) && t->delta <= e) {
        e -= t->delta;
        vt.head = t->next;
        t->delta = e;
        t->next = NULL;
        *tail = t;
        tail = &t->next;
    }
    if (t)
        t->delta -= e;
}

void cairn_timer_isr(void)
{
    uint32_t s = arch_timer_lock();
    if (vt.dispatching) { /* called from a handler the loop below runs */
        arch_timer_unlock(s);
        return;
    }
    vt.dispatching = true;
    for (;;) {
        if (!vt.due) {
            sync();
            if (!vt.due)
                break;
        }
        struct vtimer *t = vt.due;
        vt.due = t->next;
        uint16_t key = t->key;
        if (!t->period)
            cairn_slab_free(&vt_pool, t);
        else if (t->delta >= t->period)
            insert_due(t, t->delta - t->period);
        else
            insert_delta(t, t->period - t->delta);
        CAIRN_TRACE(CAIRN_EV_TIMER, key & 0xFFu, key >> 8);
        arch_timer_unlock(s);
        cairn_timer_fired((cairn_task_id_t)key, (uint8_t)(key >> 8));
        s = arch_timer_lock();
    }
    vt.dispatching = false;
    rearm();
    arch_timer_unlock(s);
}

void cairn_timer_wake_early(uint32_t ticks)
{
    uint32_t s = arch_timer_lock();
    /* Only when the hardware waits for the head's own expiry (not an intermediate
     * deadline, not inside the interrupt, nothing overdue). */
    struct vtimer *h = vt.head;
    if (h && !vt.due && !vt.dispatching && h->delta <= CAIRN_HWTIMER_HALF)
        arch_timer_arm((vt.last + (h->delta > ticks ? h->delta - ticks : 0)) & CAIRN_HWTIMER_MASK);
    arch_timer_unlock(s);
}

uint32_t cairn_timer_next_expiry(void)
{
    uint32_t s = arch_timer_lock();
    uint32_t r = UINT32_MAX;
    if (vt.due) {
        r = 0;
    } else if (vt.head) {
        uint32_t e = elapsed();
        r = vt.head->delta <= e ? 0 : vt.head->delta - e;
    }
    arch_timer_unlock(s);
    return r;
}

uint64_t cairn__timer_stamp(void)
{
    if (!vt.head && !vt.due)
        return UINT64_MAX;
    uint32_t at = vt.head ? (vt.last + vt.head->delta) & CAIRN_HWTIMER_MASK : 0;
    return (uint64_t)(vt.due != NULL) << 32 | at;
}

unsigned cairn_timer_active(void)
{
    return vt_pool.used;
}

uint32_t cairn_timer_pool_failures(void)
{
    return vt_pool.alloc_failures;
}

cairn_ret_t cairn__timer_query(cairn_task_id_t task, uint8_t n, uint32_t *remaining, uint32_t *period)
{
    uint16_t key = KEY(task, n);
    uint32_t s = arch_timer_lock();
    uint32_t off = 0;
    const struct vtimer *t = vt.head;
    for (; t && t->key != key; t = t->next)
        off += t->delta;
    cairn_ret_t r = CAIRN_OK;
    if (t) {
        off += t->delta;
        uint32_t e = elapsed();
        *remaining = off > e ? off - e : 0;
        *period = t->period;
    } else {
        struct vtimer *const *pp = find(&vt.due, key);
        if (pp) { /* expired, not fired yet: due now */
            *remaining = 0;
            *period = (*pp)->period;
        } else {
            r = CAIRN_EINVAL;
        }
    }
    arch_timer_unlock(s);
    return r;
}

/* Every timer of task in one walk of each list, where a query per timer walked them once
 * per timer slot (the migrator's serialisation). Bit n of the result: timer n runs, with
 * remaining[n] ticks left and period[n]; as cairn__timer_query would say for each n. */
uint8_t cairn__timer_query_task(cairn_task_id_t task, uint32_t *remaining, uint32_t *period)
{
    uint8_t found = 0;
    uint32_t s = arch_timer_lock();
    uint32_t off = 0, e = 0;
    for (const struct vtimer *t = vt.head; t; t = t->next) {
        off += t->delta;
        unsigned n = t->key >> 8;
        if ((t->key & 0xFFu) != task || n >= CAIRN_TIMERS_PER_TASK)
            continue;
        if (!found)
            e = elapsed();
        remaining[n] = off > e ? off - e : 0;
        period[n] = t->period;
        found |= (uint8_t)(1u << n);
    }
    for (const struct vtimer *t = vt.due; t; t = t->next) {
        unsigned n = t->key >> 8;
        if ((t->key & 0xFFu) != task || n >= CAIRN_TIMERS_PER_TASK || (found >> n & 1u))
            continue;
        remaining[n] = 0; /* expired, not fired yet: due now */
        period[n] = t->period;
        found |= (uint8_t)(1u << n);
    }
    arch_timer_unlock(s);
    return found;
}

cairn_ret_t cairn__timer_set_first(cairn_task_id_t task, uint8_t n, uint32_t first, uint32_t period)
{
    if (task == 0 || n >= CAIRN_TIMERS_PER_TASK || first - 1u >= CAIRN_TIMER_MAX_TICKS ||
        period > CAIRN_TIMER_MAX_TICKS)
        return CAIRN_EINVAL;
    uint32_t s = arch_timer_lock();
    struct vtimer *t = unlink_timer(KEY(task, n));
    if (!t)
        t = cairn_slab_alloc(&vt_pool);
    if (t) {
        t->key = KEY(task, n);
        t->period = period;
        if (!vt.head && !vt.dispatching)
            vt.last = arch_timer_now();
        uint32_t e = elapsed();
        insert_delta(t, e > UINT32_MAX - first ? UINT32_MAX : e + first);
        rearm();
    }
    arch_timer_unlock(s);
    return t ? CAIRN_OK : CAIRN_ENOMEM;
}
