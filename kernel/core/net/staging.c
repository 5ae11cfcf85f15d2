/*
 * The destination's staged copy of a task, its commit, and the source's side of the end
 * (docs/migration.md, steps 6 and 7).
 *
 * Staging allocates everything the commit needs (the state block, the queued messages'
 * payloads, room for the TCB), so that the commit point cannot fail for memory: a
 * de-serialisation either fails before DESERIALIZED(ok) or not at all. A staged copy does
 * not run: it has no TCB, and its blocks belong to the kernel until the commit.
 */
#include "migrator.h"
#include "serialize.h"

#include "cairn/mem.h"
#include "cairn/timer.h"

#define MIG (*cairn_net.mig)

#define TIMER_BYTES 14u

/* Whether n more bytes are there from b. */
static bool have(const uint8_t *b, const uint8_t *end, unsigned n)
{
    return (unsigned)(end - b) >= n;
}

/* The blob's fields up to the task's state block, read in one pass with a cursor (a call
 * per field cost more than the fields) from the first `avail` bytes: the offset where the
 * state starts (word-aligned), or 0 when they do not hold that much. */
static inline __attribute__((always_inline)) unsigned
parse_head(struct cairn_mig_parsed *p, const uint8_t *start, unsigned avail)
{
    const uint8_t *b = start, *end = start + avail;
    if (!b || !have(b, end, 5u))
        return 0;
    p->id = b[0];
    p->prio = b[1];
    p->flags = b[2];
    p->num_out = b[3];
    b += 4;
    if (!have(b, end, 2u * p->num_out + 1u))
        return 0;
    p->routes = b;
    b += 2u * p->num_out;
    p->members = *b++;
    if (!have(b, end, 2u * p->members + 1u))
        return 0;
    p->member = b;
    b += 2u * p->members;
    p->modules = *b++;
    if (!have(b, end, 2u * p->modules + 1u))
        return 0;
    p->seq = b;
    p->epoch = b + p->modules;
    b += 2u * p->modules;
    p->timers = *b++;
    if (!have(b, end, TIMER_BYTES * p->timers + 1u))
        return 0;
    p->timer = b;
    b += TIMER_BYTES * p->timers;
    p->messages = *b++;
    p->messages_at = (unsigned)(b - start);
    for (unsigned i = 0; i < p->messages; i++) {
        if (!have(b, end, 5u))
            return 0;
        unsigned len = b[3] | (unsigned)b[4] << 8;
        b += 5;
        if (!have(b, end, len))
            return 0;
        b += len;
    }
    if (!have(b, end, 2u))
        return 0;
    p->state_len = b[0] | (unsigned)b[1] << 8;
    b += 2;
    unsigned pad = (0u - (unsigned)(b - start)) & 3u;
    if (!have(b, end, pad))
        return 0;
    return (unsigned)(b + pad - start);
}

/* The checks of a blob whose fields before the state end at `at`; false for a blob that is
 * too short, too long or not this migration's task. A split blob (cairn__mig_split) holds the
 * fields before the state, whose bytes are in the stage's state block. */
static inline __attribute__((always_inline)) bool
parsed_ok(const cairn_mig_state_t *m, struct cairn_mig_parsed *p, unsigned at)
{
    p->state = m->stage.state_at ? m->stage.state : m->blob + at;
    return at + p->state_len == m->blob_len && p->id == m->task && p->id >= 1 &&
           p->id <= CAIRN_MAX_TASKS && p->prio <= CAIRN_PRIO_MAX &&
           p->timers <= CAIRN_TIMERS_PER_TASK;
}

/* The whole blob's fields, checked. */
static bool parse(const cairn_mig_state_t *m, struct cairn_mig_parsed *p)
{
    unsigned split = m->stage.state_at;
    unsigned at = parse_head(p, m->blob, split ? split : m->blob_len);
    return at && (!split || at == split) && parsed_ok(m, p, at);
}

/* The serialised timers of p set again here, each for what is left until its deadline;
 * one whose deadline has passed fires now, once. */
static void set_timers(const struct cairn_mig_parsed *p)
{
    if (!p->timers)
        return; /* the clock costs 64-bit arithmetic */
    uint64_t now;
    bool global_here = cairn__mig_clock(&now);
    for (unsigned i = 0; i < p->timers; i++) {
        struct cairn_mig_reader tr = {.buf = p->timer + TIMER_BYTES * i, .len = TIMER_BYTES};
        uint8_t n = (uint8_t)cairn__mig_get(&tr, 1);
        uint8_t fl = (uint8_t)cairn__mig_get(&tr, 1);
        uint32_t period = (uint32_t)cairn__mig_get(&tr, 4);
        uint64_t deadline = cairn__mig_get64(&tr);
        bool global = (fl & 2u) && global_here;
        uint64_t left = deadline > now ? deadline - now : 0;
        uint32_t ticks = cairn__mig_clock_to_ticks(left, global, MIG.cfg.hw_hz);
        if (ticks == 0) {
            /* Expired on the way: fires now, once; a periodic one goes on from here. */
            (void)cairn__signal(p->id, CAIRN_PORT_TIMEOUT(n));
            if (period)
                (void)cairn_timer_set(p->id, n, period, true);
        } else {
            (void)cairn__timer_set_first(p->id, n, ticks, period);
        }
    }
}

void cairn__mig_restore_timers(void)
{
    struct cairn_mig_parsed p;
    if (MIG.blob && parse(cairn_net.mig, &p))
        set_timers(&p);
}

void cairn__mig_unstage(void)
{
    struct cairn_mig_stage *s = &MIG.stage;
    if (s->payloads) {
        for (unsigned i = 0; i < s->messages; i++)
            cairn_free(s->payloads[i]);
        cairn_free(s->payloads);
    }
    cairn_free(s->state);
    if (s->reserve_spare && !MIG.spare)
        MIG.spare = s->tcb_reserve;
    else
        cairn_free(s->tcb_reserve);
    __builtin_memset(s, 0, sizeof *s);
    MIG.staged = false;
}

static void *kernel_block(size_t n)
{
    return cairn__malloc_for(n ? n : 1, CAIRN_TASK_NONE);
}

#define SPARE_BYTES (sizeof(cairn_tcb_t) + MIG_SPARE_ROUTES * sizeof(cairn_route_t))

void cairn__mig_spare(void)
{
    if (!MIG.spare)
        MIG.spare = kernel_block(SPARE_BYTES);
}

/* The TCB's room for a task of num_out output ports: the spare when it fits (no allocation
 * between the STATE and the DESERIALIZED), else a block of its own. */
static void *tcb_room(struct cairn_mig_stage *s, unsigned num_out)
{
    s->reserve_spare = num_out <= MIG_SPARE_ROUTES && MIG.spare;
    if (!s->reserve_spare)
        return kernel_block(sizeof(cairn_tcb_t) + num_out * sizeof(cairn_route_t));
    void *b = MIG.spare;
    MIG.spare = 0;
    return b;
}

/* After the first part of a state of several, which the STATE frame buffer holds: when the
 * fields before the task's state block are all in it, the block is allocated now and the
 * part's share of it copied there, and the later parts are read straight into it
 * (cairn__mig_rx_place): no blob is allocated, and the staging after the last part neither
 * allocates nor copies the block. Else (many queued messages) the part moves into a blob for
 * them all. False when there is no memory for either. */
bool cairn__mig_split(void)
{
    struct cairn_mig_stage *s = &MIG.stage;
    if (s->state_at)
        return true; /* cairn__mig_split_rx did it */
    unsigned len = MIG.blob_len;
    unsigned at = parse_head(&s->parsed, MIG.blob, len);
    unsigned state_len = s->parsed.state_len;
    if (at && state_len > len - at && at + state_len <= MIG.blob_cap) {
        s->state = kernel_block(state_len);
        if (!s->state)
            return false;
        __builtin_memcpy(s->state, MIG.blob + at, len - at);
        s->state_at = (uint16_t)at;
        return true;
    }
    uint8_t *blob = kernel_block(MIG.blob_cap);
    if (!blob)
        return false;
    __builtin_memcpy(blob, MIG.blob, len);
    MIG.blob = blob;
    return true;
}

/* The first part of a state of several, read here from the controller (its head read, its
 * `len` other bytes not), as far as the fields before the task's state block: when they are
 * all there, the block is allocated now and the part's share of it is read from the
 * controller straight into it, which cairn__mig_split then finds done (no copy of the share
 * out of the STATE frame buffer). Else the rest goes into the buffer, for cairn__mig_split.
 * The fields are read in growing steps (most tasks' fit in the first): a step's bytes past the
 * fields are copied into the block. */
void cairn__mig_split_rx(unsigned len)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    struct cairn_mig_stage *s = &m->stage;
    uint8_t *blob = m->blob;
    unsigned got = 0, at = 0;
    for (unsigned step = 32u; !at && got < len; step *= 3u) {
        unsigned k = step < len ? step : len;
        cairn_bus_rx_read(blob + got, k - got);
        got = k;
        at = parse_head(&s->parsed, blob, got);
    }
    unsigned state_len = s->parsed.state_len;
    if (at && state_len > len - at && at + state_len <= m->blob_cap &&
        (s->state = kernel_block(state_len)) != 0) {
        __builtin_memcpy(s->state, blob + at, got - at);
        cairn_bus_rx_read((uint8_t *)s->state + (got - at), len - got);
        s->state_at = (uint16_t)at;
        return;
    }
    cairn_bus_rx_read(blob + got, len - got);
}

/* Where the bytes of a later part go in a split state (len of them), or NULL. */
uint8_t *cairn__mig_split_place(cairn_mig_state_t *m, unsigned len)
{
    struct cairn_mig_stage *s = &m->stage;
    unsigned blob_len = m->blob_len, state_at = s->state_at, at = blob_len - state_at;
    uint8_t *state = s->state;
    if (!state || blob_len < state_at || at + len > s->parsed.state_len)
        return 0;
    return state + at;
}

/* The TCB of the staged task filled in the block reserved for it, as cairn_task_create
 * fills a block it allocates (the staging checked what create checks). Nothing reads the block
 * before the commit publishes it (cairn_k.tasks), which then only links it in: the commit
 * point is on the latency's path, the staging is a TDMA slot ahead of its answer. */
static void fill_tcb(cairn_tcb_t *t, const struct cairn_mig_parsed *p, const struct cairn_mig_stage *s)
{
    t->state = s->state;
    t->handler = s->handler;
    t->prio = p->prio;
    t->id = p->id;
    t->flags = TCB_INIT_SENT | TCB_READY; /* initialised where it came from */
    unsigned num_out = p->num_out;
    t->num_out = (uint8_t)num_out;
    const uint8_t *r = p->routes;
    for (unsigned i = 0; i < num_out; i++, r += 2)
        t->routes[i] = CAIRN_ROUTE(r[0], r[1]);
}

bool cairn__mig_stage(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    struct cairn_mig_stage *s = &m->stage;
    /* Field by field: the parse fills the rest; a split state's block is there already. */
    s->tcb_reserve = 0;
    s->payloads = 0;
    s->messages = 0;
    s->reserve_spare = false;
    /* Parsed once: the commit reads the same blob, which stays until the migration ends. */
    struct cairn_mig_parsed *pp = &s->parsed;
    cairn_handler_t handler = 0;
    /* A split state's fields were parsed from its first part, which the STATE frame buffer
     * still holds (cairn__mig_split): only the whole blob's checks are left. */
    unsigned split_at = s->state_at;
    bool ok = split_at ? parsed_ok(m, pp, split_at) : parse(m, pp);
    cairn_task_id_t id = pp->id;
    if (ok) {
        /* parse checked the ID's range: the tables are read directly. */
        for (unsigned i = 0; i < m->cfg.count; i++)
            if (m->cfg.tasks[i].id == id) {
                handler = m->cfg.tasks[i].handler;
                break;
            }
        ok = handler && !cairn_k.tasks[id];
    }
    if (!ok) {
        if (s->state)
            cairn__mig_unstage();
        return false;
    }
    s->handler = handler;
    /* Read once into locals: through pp every field read after a call was loaded again. */
    unsigned state_len = pp->state_len, messages = pp->messages;
    bool split = split_at != 0;
    /* A task that handed no state gets none (a NULL state, as a stateless program's). */
    if (!split)
        s->state = state_len ? kernel_block(state_len) : 0;
    s->tcb_reserve = tcb_room(s, pp->num_out);
    s->messages = (uint8_t)messages;
    ok = (s->state || !state_len) && s->tcb_reserve;
    if (messages) {
        s->payloads = kernel_block(messages * sizeof(void *));
        ok = ok && s->payloads;
        if (s->payloads)
            __builtin_memset(s->payloads, 0, messages * sizeof(void *));
        struct cairn_mig_reader r = {.buf = m->blob, .len = m->blob_len, .pos = pp->messages_at};
        for (unsigned i = 0; ok && i < messages; i++) {
            (void)cairn__mig_get(&r, 3);
            unsigned len = (unsigned)cairn__mig_get(&r, 2);
            const uint8_t *b = cairn__mig_get_bytes(&r, len);
            if (len) {
                s->payloads[i] = kernel_block(len);
                ok = s->payloads[i] != 0;
                if (ok)
                    __builtin_memcpy(s->payloads[i], b, len);
            }
        }
    }
    if (!ok) {
        cairn__mig_unstage();
        return false;
    }
    if (state_len && !split)
        __builtin_memcpy(s->state, pp->state, state_len);
    fill_tcb(s->tcb_reserve, pp, s);
    m->staged = true;
    return true;
}

/* Forgets remote TCB id without touching the routes that name it (they keep the ID). */
static void remote_drop(cairn_task_id_t id)
{
    cairn_rtcb_t *r = &cairn_net.remote[id - 1];
    if (r->id == id) {
        r->id = CAIRN_TASK_NONE;
        cairn_net.remote_count--;
    }
}

/* The messages that were queued for the task at its source, in their order, each with the
 * payload block the staging allocated for it: out of line, since a task usually has none, and
 * their reader kept the commit's common path on the stack. */
static __attribute__((noinline)) void deliver_moved(cairn_mig_state_t *m, const struct cairn_mig_parsed *p,
                                                    cairn_task_id_t id)
{
    struct cairn_mig_stage *s = &m->stage;
    struct cairn_mig_reader r = {.buf = m->blob, .len = m->blob_len, .pos = p->messages_at};
    for (unsigned i = 0; i < p->messages; i++) {
        cairn_port_t port = (cairn_port_t)cairn__mig_get(&r, 1);
        cairn_task_id_t src = (cairn_task_id_t)cairn__mig_get(&r, 1);
        (void)cairn__mig_get(&r, 1);
        unsigned len = (unsigned)cairn__mig_get(&r, 2);
        (void)cairn__mig_get_bytes(&r, len);
        void *b = s->payloads[i];
        s->payloads[i] = 0;
        cairn_frame_t f;
        cairn__msg_new(&f, src, b, len); /* b is the kernel's since the staging */
        f.msg.dst = id;
        f.msg.port = port;
        f.msg.flags |= CAIRN_MSG_REMOTE;
        if (cairn__deliver(&f) != CAIRN_OK)
            cairn__release(&f.msg); /* a full pool: counted by the scheduler */
    }
}

bool cairn__mig_commit(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    struct cairn_mig_stage *s = &m->stage;
    if (!m->staged || !m->blob)
        return false;
    const struct cairn_mig_parsed *p = &s->parsed;
    cairn_task_id_t id = p->id;
    if (cairn_k.tasks[id])
        return false; /* a task created here since the staging holds the ID */
    remote_drop(id);
    /* The TCB was filled at staging (fill_tcb): published here. */
    cairn_tcb_t *t = s->tcb_reserve;
    s->tcb_reserve = 0;
    if (p->flags & CAIRN_TASK_MOVABLE)
        cairn_k.movable |= 1u << id;
    else
        cairn_k.movable &= ~(1u << id);
    cairn_k.tasks[id] = t;
    cairn__irq_bindings_refresh(id, t);
    CAIRN_TRACE(CAIRN_EV_CREATE, id, t->prio);
    if (s->state)
        cairn__heap_give(s->state, id); /* the staging's own block: no check needed */
    for (unsigned i = 0; i < p->members; i++)
        (void)cairn_group_join(p->member[2 * i], id, p->member[2 * i + 1]);
    /* cairn__rel_table and cairn__rel_epochs, without their calls */
    uint8_t *seq = cairn_net.rel->rx_seq[id], *epoch = cairn_net.rel->rx_epoch[id];
    /* The blob's tables through locals: a byte stored to the tables may alias the parsed
     * fields, so read through p, each pointer was loaded again for every byte. */
    const uint8_t *from_seq = p->seq, *from_epoch = p->epoch;
    unsigned modules = p->modules;
    if (modules == CAIRN_NET_MODULES) {
        /* What every module of this build writes: unrolled, with no test per byte (the
         * blob's tables are not word-aligned, and memcpy copies them byte by byte, with
         * a call). */
#pragma GCC unroll 8
        for (unsigned i = 0; i < CAIRN_NET_MODULES; i++) {
            seq[i] = from_seq[i];
            epoch[i] = from_epoch[i];
        }
    } else {
        for (unsigned i = 0; i < CAIRN_NET_MODULES; i++) {
            seq[i] = i < modules ? from_seq[i] : 0;
            epoch[i] = i < modules ? from_epoch[i] : 0;
        }
    }
    /* DESERIALIZE first, then the moved messages in their order, then the timers that
     * expired on the way, then the messages this module's tasks sent meanwhile. */
    cairn_frame_t f;
    /* Built as cairn__msg_new builds a kernel's message without a payload, field by field
     * and in line (the state block stays the task's: no CAIRN_MSG_HEAP), then addressed. */
    cairn_msg_t *d = &f.msg;
    d->next = 0;
    d->payload = s->state;
    d->len = (uint16_t)p->state_len;
    d->port = CAIRN_PORT_DESERIALIZE;
    d->src = CAIRN_TASK_NONE;
    d->prio = 0;
    d->dst = id;
    d->flags = 0;
    d->reserved = 0;
    cairn__policy_msg_init(d);
    (void)cairn__deliver(&f);
    if (p->messages) /* usually none */
        deliver_moved(m, p, id);
    /* Calls only for what there is: a task without timers or queued messages, the usual
     * case, is live sooner. */
    if (p->timers)
        set_timers(p);
    if (s->payloads) {
        cairn_free(s->payloads);
        s->payloads = 0;
    }
    s->state = 0;
    m->staged = false;
    if (cairn_net.rel->pending[id]) /* this module's own messages to T, held meanwhile */
        cairn__rel_deliver_local(id);
    return true;
}

/* ---- the source ------------------------------------------------------------------------ */

/* T's TCB and everything of its here go, but not the routes that name it: from now on
 * they name the remote task on module `to`. The messages queued after the serialisation
 * leave as remote messages to it, in order. */
void cairn__mig_detach(cairn_task_id_t id, uint8_t to, unsigned serialised)
{
    cairn_tcb_t *t = cairn__tcb(id);
    if (!t)
        return;
    cairn_prio_t prio = t->prio;
    cairn_msg_t later[CAIRN_MSG_POOL];
    unsigned n = 0, seen = 0;
    uint32_t s = arch_irq_save();
    cairn_msg_t **link = &cairn_k.queue;
    while (*link) {
        cairn_msg_t *m = *link;
        if (m->dst != id) {
            link = &m->next;
            continue;
        }
        *link = m->next;
        m->next = cairn_k.free;
        cairn_k.free = m;
        cairn_k.stats.queued--;
        if (seen++ < serialised)
            cairn__release(m); /* it moved in the STATE frames */
        else
            later[n++] = *m;
    }
    arch_irq_restore(s);
    cairn__groups_forget(id);
    cairn_timer_cancel_all(id);
    cairn_k.tasks[id] = 0;
    cairn__irq_bindings_refresh(id, 0);
    cairn_heap_free_all(id);
    cairn_free(t);
    (void)cairn__remote_create(id, prio, to);
    for (unsigned i = 0; i < n; i++) {
        cairn_frame_t f;
        f.msg = later[i];
        f.msg.next = 0;
        if (cairn__deliver(&f) != CAIRN_OK)
            cairn__release(&f.msg);
    }
}

/* Where a frozen task was, the routes now name module `to` (or this module). */
void cairn__mig_route(cairn_task_id_t id, uint8_t to)
{
    cairn_rtcb_t *r = &cairn_net.remote[id - 1];
    if (r->id == id && to != cairn_net.address)
        r->module = to;
}
