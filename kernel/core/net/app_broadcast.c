/*
 * Cairn OS application manager, the loading module's side (cairn/appmgr.h): a LOAD is
 * patched and instantiated here, then each step (DESC, then INIT) goes to every other
 * module's manager, sent again every retry period to the modules that have not
 * acknowledged, until they all have or the tries are spent; every refusal or silence is
 * reported to the loader, never ignored.
 *
 * Managers address each other as task CAIRN_TASK_APPMGR of a module: an ordinary message
 * frame to that module, which every module delivers to its own manager (no remote TCB).
 */
#include "app_manager.h"

#include "cairn/mem.h"
#include "cairn/timer.h"

cairn_ret_t cairn__appmgr_to(uint8_t module, cairn_port_t port, const void *p, uint16_t len)
{
    if (!cairn_k.net)
        return CAIRN_ENOROUTE;
    /* Field by field, flags 0: the bytes stay the manager's (a heap block it keeps, or its
     * state) whether the frame goes at once or waits for the bus. */
    cairn_msg_t m;
    __builtin_memset(&m, 0, sizeof m);
    cairn__policy_msg_init(&m);
    m.payload = p;
    m.len = len;
    m.port = port;
    m.src = CAIRN_TASK_APPMGR;
    m.prio = CAIRN_APPMGR_PRIO;
    m.dst = CAIRN_TASK_APPMGR;
    bool sent;
    return cairn__net_submit(&m, module, &sent);
}

bool cairn__appmgr_queued(const void *p)
{
    if (!p)
        return false;
    for (const cairn_msg_t *m = cairn_net.txq; m; m = m->next)
        if (m->payload == p)
            return true;
    return false;
}

static void report(cairn_task_id_t to, cairn_port_t port, const cairn_appmgr_t *s, cairn_ret_t r,
                   uint8_t step)
{
    if (!to)
        return;
    cairn_appmgr_report_t *rep = cairn_malloc(sizeof *rep);
    if (!rep)
        return;
    __builtin_memset(rep, 0, sizeof *rep);
    rep->status = (int8_t)r;
    rep->step = step;
    if (s && s->peer) {
        rep->acked = s->acked;
        rep->failed = s->failed;
        rep->num_tasks = s->w.num_tasks;
        for (unsigned i = 0; i < s->w.num_tasks; i++)
            rep->ids[i] = cairn_app_wire_task_id(&s->w, i);
    }
    (void)cairn_post(to, port, rep, sizeof *rep);
}

static uint32_t bit(uint8_t module)
{
    return 1u << module;
}

static void fail(cairn_appmgr_t *s, uint8_t module, cairn_ret_t r)
{
    s->pending &= ~bit(module);
    s->acked &= ~bit(module);
    s->failed |= bit(module);
    if (s->first_error == CAIRN_OK)
        s->first_error = (int8_t)r;
}

/* The current step's message to every module that has not answered it. */
static void send_pending(cairn_appmgr_t *s)
{
    const void *p = s->step == CAIRN_APPMGR_DESC ? (const void *)s->peer : s->init_msg;
    uint16_t len = s->step == CAIRN_APPMGR_DESC ? s->peer_len : CAIRN_APPMGR_PEER_HEAD;
    for (uint8_t m = 0; m < s->modules; m++) {
        if (!(s->pending & bit(m)))
            continue;
        cairn_ret_t r = cairn__appmgr_to(m, CAIRN_APPMGR_PORT_PEER, p, len);
        if (r != CAIRN_OK && r != CAIRN_EFULL) /* EFULL: the bus is busy, the next try */
            fail(s, m, r);
    }
}

static void step_done(cairn_appmgr_t *s);

/* Step kind to every other module. */
static void begin(cairn_appmgr_t *s, uint8_t kind)
{
    s->step = kind;
    s->left = s->tries;
    s->pending = (s->modules >= 32u ? ~0u : bit(s->modules) - 1u) & ~bit(s->self);
    s->init_msg[0] = kind;
    s->init_msg[1] = s->number;
    s->init_msg[2] = s->self;
    s->init_msg[3] = s->epoch;
    send_pending(s);
    if (!s->pending) {
        step_done(s);
        return;
    }
    (void)cairn_timer_start(CAIRN_APPMGR_TIMER, s->retry_ticks, true);
}

static void step_done(cairn_appmgr_t *s)
{
    (void)cairn_timer_stop(CAIRN_APPMGR_TIMER);
    if (s->step == CAIRN_APPMGR_DESC && !s->failed) {
        /* Every module holds every task: initialise here, and everywhere else. */
        cairn_ret_t r = cairn__appmgr_initialise(s);
        s->acked = bit(s->self);
        if (r != CAIRN_OK)
            fail(s, s->self, r);
        begin(s, CAIRN_APPMGR_INIT);
        return;
    }
    uint8_t step = s->step;
    if (step == CAIRN_APPMGR_DESC) {
        /* Not every module took it: nothing is initialised, it is dropped everywhere. */
        cairn__appmgr_remove(s);
        s->init_msg[0] = CAIRN_APPMGR_DROP;
        for (uint8_t m = 0; m < s->modules; m++) /* a refusing module frees its copy too */
            if (m != s->self)
                (void)cairn__appmgr_to(m, CAIRN_APPMGR_PORT_PEER, s->init_msg,
                                       CAIRN_APPMGR_PEER_HEAD);
    }
    s->step = 0;
    report(s->reply_to, s->reply_port, s, s->first_error,
           s->first_error == CAIRN_OK ? 0u : step == CAIRN_APPMGR_DESC ? 3u : 4u);
    /* A failed load leaves nothing to keep (once no frame reads it). */
    if (step == CAIRN_APPMGR_DESC && !cairn__appmgr_queued(s->peer)) {
        cairn_free(s->peer);
        s->peer = 0;
    }
}

void cairn__appmgr_ack(cairn_appmgr_t *s, const cairn_msg_t *msg)
{
    const uint8_t *a = msg->payload;
    if (!s->step || !a || msg->len != CAIRN_APPMGR_ACK_LEN || a[0] != s->step ||
        a[1] != s->number || a[4] != s->epoch || a[2] >= s->modules || !(s->pending & bit(a[2])))
        return;
    cairn_ret_t r = (int8_t)a[3];
    if (r == CAIRN_OK) {
        s->pending &= ~bit(a[2]);
        s->acked |= bit(a[2]);
    } else {
        fail(s, a[2], r);
    }
    if (!s->pending)
        step_done(s);
}

void cairn__appmgr_timer(cairn_appmgr_t *s)
{
    if (!s->step) {
        (void)cairn_timer_stop(CAIRN_APPMGR_TIMER);
        return;
    }
    if (--s->left == 0) { /* the last try went unanswered */
        for (uint8_t m = 0; m < s->modules; m++)
            if (s->pending & bit(m))
                fail(s, m, CAIRN_EDOWN);
        step_done(s);
        return;
    }
    send_pending(s);
    if (!s->pending)
        step_done(s);
}

/* The lowest task IDs free here, the lowest group IDs unused: into the description. */
static cairn_ret_t patch(cairn_appmgr_t *s)
{
    cairn_task_id_t ids[CAIRN_MAX_TASKS];
    uint8_t gids[CAIRN_MAX_GROUPS];
    unsigned n = 0, g = 0;
    for (unsigned id = 1; id <= CAIRN_MAX_TASKS && n < s->w.num_tasks; id++)
        if (!cairn__id_taken((cairn_task_id_t)id))
            ids[n++] = (cairn_task_id_t)id;
    for (unsigned id = 1; id <= CAIRN_MAX_GROUPS && g < s->w.num_groups; id++)
        if (!((cairn_k.groups_used >> (id - 1u)) & 1u))
            gids[g++] = (uint8_t)id;
    if (n < s->w.num_tasks || g < s->w.num_groups)
        return CAIRN_EFULL;
    cairn_app_wire_patch(s->peer + CAIRN_APPMGR_PEER_HEAD, &s->w, ids, gids);
    return CAIRN_OK;
}

cairn_ret_t cairn__appmgr_load(cairn_appmgr_t *s, cairn_msg_t *msg)
{
    const uint8_t *p = msg->payload;
    /* The description goes to each module in one frame. */
    if (!p || msg->len < 1u + CAIRN_APP_WIRE_HEADER ||
        msg->len - 1u > CAIRN_APPMGR_MAX_DESC) {
        report(msg->src, p && msg->len ? p[0] : 0, 0, CAIRN_EINVAL, 1);
        return CAIRN_EINVAL;
    }
    if (s->step || cairn__appmgr_queued(s->peer)) { /* one load at a time */
        report(msg->src, p[0], 0, CAIRN_EBUSY, 1);
        return CAIRN_EBUSY;
    }
    cairn__appmgr_forget(s); /* an application running stays; only its bookkeeping goes */
    uint16_t len = (uint16_t)(CAIRN_APPMGR_PEER_HEAD + msg->len - 1u);
    uint8_t *out = cairn_malloc(len);
    if (!out) {
        report(msg->src, p[0], 0, CAIRN_ENOMEM, 1);
        return CAIRN_ENOMEM;
    }
    out[0] = CAIRN_APPMGR_DESC;
    out[1] = ++s->next_number;
    out[2] = s->self;
    out[3] = s->epoch;
    __builtin_memcpy(out + CAIRN_APPMGR_PEER_HEAD, p + 1, msg->len - 1u);
    s->peer = out;
    s->peer_len = len;
    s->origin = s->self;
    s->origin_epoch = s->epoch;
    s->number = out[1];
    s->reply_to = msg->src;
    s->reply_port = p[0];
    s->first_error = CAIRN_OK;
    s->failed = 0;
    s->acked = bit(s->self);
    cairn_ret_t r = cairn_app_wire_parse(out + CAIRN_APPMGR_PEER_HEAD, len - CAIRN_APPMGR_PEER_HEAD,
                                         s->num_images, &s->w);
    uint8_t step = 1;
    if (r == CAIRN_OK && s->w.patched)
        r = CAIRN_EINVAL;
    if (r == CAIRN_OK)
        r = patch(s);
    if (r == CAIRN_OK) {
        step = 2;
        r = cairn__appmgr_instantiate(s);
    }
    if (r != CAIRN_OK) {
        cairn_free(s->peer);
        s->peer = 0;
        report(s->reply_to, s->reply_port, 0, r, step);
        return r;
    }
    begin(s, CAIRN_APPMGR_DESC);
    return CAIRN_OK;
}
