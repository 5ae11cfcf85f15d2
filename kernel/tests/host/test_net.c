/*
 * Messages across modules on the host port's simulated bus (kernel/arch/host/simbus.c):
 * the bus manager's policy (at once when idle, buffered by destination priority when
 * busy), received frames delivered by priority, RX overflow, a powered-off destination
 * and corrupted or malformed frames refused and counted, multicast sent once and
 * delivered on every module, one application description run on one module or spread
 * over three with the same output, and the C twins of the armv6m fast paths (RX, TX done,
 * send).
 * docs/distributed.md.
 */
#include <string.h>

#include "ktest.h"
#include "modules.h"

#include "../../core/net/net.h"
#include "cairn/arch_timer.h"

#define MODULES 3
#define ARENA (16 * 1024)

static uint8_t arena[MODULES][ARENA];

/* Module m with a fresh kernel, its bus manager up but not receiving yet. */
static void boot(unsigned m)
{
    ktest_module_boot(m, arena[m], ARENA);
    assert_int_equal(cairn_net_address(), m);
}

static void start(unsigned m)
{
    cairn_simbus_select(m);
    assert_int_equal(cairn_net_start(), CAIRN_OK);
}

static int setup(void **state)
{
    (void)state;
    cairn_simbus_reset(MODULES, 4);
    for (unsigned m = 0; m < MODULES; m++)
        boot(m);
    cairn_simbus_select(0);
    cairn_trace_host_reset();
    klog_reset();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        assert_int_equal(cairn_heap_check(), CAIRN_OK);
        assert_int_equal(cairn_host_irq_depth(), 0);
        assert_int_equal(cairn_current_task(), 0);
    }
    cairn_simbus_select(0);
    return 0;
}

#define NTEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static cairn_net_stats_t stats(unsigned m)
{
    unsigned back = cairn_simbus_selected();
    cairn_simbus_select(m);
    cairn_net_stats_t st;
    cairn_net_stats(&st);
    cairn_simbus_select(back);
    return st;
}

/* ---- tasks --------------------------------------------------------------------------- */

/* A receiver logs "<name>:<port>" (rec_handler) and what it got. */
static void got(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port >= CAIRN_PORT_APP_BASE)
        klog("[%.*s from %u%s]", (int)msg->len, msg->len ? (const char *)msg->payload : "",
             msg->src, (msg->flags & CAIRN_MSG_REMOTE) ? " remote" : "");
}

/* A sender sends its user string on every output port it has, logging each result. */
struct sender {
    struct rec r;
    uint8_t outs;
    bool heap;
};

static void send_all(struct rec *r, cairn_msg_t *msg)
{
    struct sender *s = (struct sender *)r;
    if (msg->port != CAIRN_PORT(0))
        return;
    for (uint8_t o = 0; o < s->outs; o++) {
        const char *text = r->user;
        size_t len = strlen(text) + 1;
        const void *p = text;
        if (s->heap) {
            char *b = cairn_malloc(len);
            assert_non_null(b);
            memcpy(b, text, len);
            p = b;
        }
        cairn_ret_t ret = cairn_send(o, p, len);
        klog("sent%u=%d tx%u", o, ret, cairn_simbus_tx_count(cairn_simbus_selected()));
    }
}

static struct sender S;
static struct rec R[8];

static void sender_on(unsigned m, cairn_task_id_t id, cairn_prio_t prio, uint8_t outs, bool heap,
                      const char *text)
{
    cairn_simbus_select(m);
    S = (struct sender){.r = {.name = "S", .hook = send_all, .user = (void *)(uintptr_t)text},
                        .outs = outs, .heap = heap};
    rec_task(id, &S.r, prio, outs);
}

static void receiver_on(unsigned m, unsigned i, const char *name, cairn_task_id_t id,
                        cairn_prio_t prio)
{
    cairn_simbus_select(m);
    R[i] = (struct rec){.name = name, .hook = got};
    rec_task(id, &R[i], prio, 0);
}

static void remote_on(unsigned m, cairn_task_id_t id, cairn_prio_t prio, uint8_t module)
{
    cairn_simbus_select(m);
    assert_int_equal(cairn_task_create_remote(id, prio, module), CAIRN_OK);
}

static void go(unsigned m, cairn_task_id_t id)
{
    cairn_simbus_select(m);
    assert_int_equal(cairn_post(id, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
}

static size_t count_word(uint32_t w)
{
    uint32_t buf[CAIRN_TRACE_RING];
    size_t n = cairn_trace_host_read(buf, CAIRN_TRACE_RING), k = 0;
    for (size_t i = 0; i < n; i++)
        k += buf[i] == w;
    return k;
}

/* ---- tests ---------------------------------------------------------------------------- */

static void test_remote_tcb_rules(void **state)
{
    (void)state;
    cairn_simbus_select(0);
    assert_int_equal(cairn_task_create_remote(3, 2, 1), CAIRN_OK);
    assert_int_equal(cairn_task_module(3), 1);
    assert_int_equal(cairn_task_module(4), -1);
    assert_int_equal(cairn_task_create_remote(3, 2, 2), CAIRN_EBUSY);
    assert_int_equal(cairn_task_create(3, rec_handler, &R[0], 1, NULL, 0, 0), CAIRN_EBUSY);
    assert_int_equal(cairn_task_create_remote(4, 2, 0), CAIRN_EINVAL); /* this module */
    assert_int_equal(cairn_task_create_remote(4, 2, CAIRN_NET_BROADCAST), CAIRN_EINVAL);
    assert_int_equal(cairn_task_create_remote(0, 2, 1), CAIRN_EINVAL);
    assert_int_equal(cairn_task_create_remote(CAIRN_TASK_NET, 2, 1), CAIRN_EBUSY);
    assert_int_equal(cairn_task_free_id(), 1);
    assert_int_equal(cairn_task_create_remote(1, 2, 1), CAIRN_OK);
    assert_int_equal(cairn_task_create_remote(2, 2, 1), CAIRN_OK);
    assert_int_equal(cairn_task_free_id(), 4); /* remote IDs are taken */
    /* Removing a remote task disconnects the routes to it. */
    rec_task(5, &R[0], 1, 1);
    assert_int_equal(cairn_route_set(5, 0, 3, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_task_remove_remote(3), CAIRN_OK);
    cairn_route_t rt;
    assert_int_equal(cairn_route_get(5, 0, &rt), CAIRN_OK);
    assert_int_equal(rt.task, CAIRN_TASK_NONE);
    assert_int_equal(cairn_task_remove_remote(3), CAIRN_EINVAL);
}

static void test_send_is_immediate_when_the_bus_is_idle(void **state)
{
    (void)state;
    receiver_on(1, 0, "T", 5, 3);
    start(1);
    sender_on(0, 2, 1, 1, false, "hi");
    remote_on(0, 5, 3, 1);
    assert_int_equal(cairn_route_set(2, 0, 5, CAIRN_PORT(1)), CAIRN_OK);
    start(0);
    klog_reset();
    cairn_trace_host_reset();
    go(0, 2);
    /* The frame is in the controller when the send returns: written by the caller. */
    assert_log("S:0 sent0=0 tx1");
    cairn_net_stats_t st = stats(0);
    assert_int_equal(st.tx_immediate, 1);
    assert_int_equal(st.tx_buffered, 0);
    assert_int_equal(st.tx_frames, 1);
    cairn_simbus_run();
    assert_log("S:0 sent0=0 tx1 T:1 [hi from 2 remote]");
    assert_int_equal(cairn_simbus_wire_count(), 1);
    const struct cairn_simbus_wire *w = cairn_simbus_wire(0);
    assert_int_equal(w->src, 0);
    assert_int_equal(w->dst, 1);
    assert_int_equal(w->len, CAIRN_NET_HEADER + 3);
    /* The header: kind, source module, destination task and port, priority, source
     * task, sequence, payload length. */
    const uint8_t want[CAIRN_NET_HEADER] = {CAIRN_NET_KIND_MSG, 0, 5, CAIRN_PORT(1), 3, 2, 0, 0, 3, 0};
    assert_memory_equal(w->head, want, sizeof want);
    assert_int_equal(stats(1).rx_frames, 1);
    /* Trace: the frame leaving module 0 and delivered on module 1, matched by
     * (source module, sequence). */
    assert_int_equal(count_word(CAIRN_TRACE_WORD(CAIRN_EV_NET_SEND, 1, 0)), 1);
    assert_int_equal(count_word(CAIRN_TRACE_WORD(CAIRN_EV_NET_SEND_TO, 5, CAIRN_PORT(1))), 1);
    assert_int_equal(count_word(CAIRN_TRACE_WORD(CAIRN_EV_NET_RECV, 0, 0)), 1);
    assert_int_equal(count_word(CAIRN_TRACE_WORD(CAIRN_EV_NET_RECV_TO, 5, CAIRN_PORT(1))), 1);
}

/* Module 1 has T1 (prio 1), T5 (5), T3 (3) and U5 (5), tasks 11 to 14. */
static void four_receivers(void)
{
    receiver_on(1, 0, "T1", 11, 1);
    receiver_on(1, 1, "T5", 12, 5);
    receiver_on(1, 2, "T3", 13, 3);
    receiver_on(1, 3, "U5", 14, 5);
    cairn_simbus_select(0);
    static const cairn_task_id_t id[] = {11, 12, 13, 14};
    static const cairn_prio_t prio[] = {1, 5, 3, 5};
    for (unsigned i = 0; i < 4; i++) {
        remote_on(0, id[i], prio[i], 1);
        assert_int_equal(cairn_route_set(2, (cairn_port_t)i, id[i], CAIRN_PORT(i)), CAIRN_OK);
    }
}

static void test_busy_bus_buffers_by_destination_priority(void **state)
{
    (void)state;
    sender_on(0, 2, 7, 4, true, "x");
    four_receivers();
    start(1);
    start(0);
    klog_reset();
    go(0, 2);
    /* The first goes at once; the others wait for the bus, by destination priority. */
    assert_log("S:0 sent0=0 tx1 sent1=0 tx1 sent2=0 tx1 sent3=0 tx1");
    cairn_net_stats_t st = stats(0);
    assert_int_equal(st.tx_immediate, 1);
    assert_int_equal(st.tx_buffered, 3);
    assert_int_equal(st.buffered, 3);
    assert_int_equal(st.buffered_peak, 3);
    cairn_simbus_run();
    assert_int_equal(cairn_simbus_wire_count(), 4);
    static const uint8_t order[] = {11, 12, 14, 13}; /* T1 first (idle), then 5, 5, 3 */
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(cairn_simbus_wire(i)->head[2], order[i]);
        assert_int_equal(cairn_simbus_wire(i)->head[6], i); /* sequence: the wire's order */
    }
    assert_int_equal(stats(0).buffered, 0);
    assert_int_equal(stats(1).rx_frames, 4);
}

static void test_received_frames_run_by_priority(void **state)
{
    (void)state;
    cairn_simbus_reset(MODULES, 8);
    for (unsigned m = 0; m < MODULES; m++)
        boot(m);
    sender_on(0, 2, 7, 4, false, "y");
    four_receivers();
    start(0);
    go(0, 2);
    /* Module 1 does not receive yet: the frames wait in its controller. */
    cairn_simbus_run();
    assert_int_equal(cairn_simbus_rx_count(1), 4);
    klog_reset();
    start(1);
    /* Drained at once, then run by priority (equal priorities in arrival order). */
    assert_log("T5:1 [y from 2 remote] U5:3 [y from 2 remote] T3:2 [y from 2 remote] "
               "T1:0 [y from 2 remote]");
    assert_int_equal(cairn_simbus_rx_count(1), 0);
}

static void test_rx_overflow_and_a_full_buffer_are_counted(void **state)
{
    (void)state;
    cairn_simbus_reset(MODULES, CAIRN_SIMBUS_FIFO);
    for (unsigned m = 0; m < MODULES; m++)
        boot(m);
    receiver_on(1, 0, "T", 5, 1);
    sender_on(0, 2, 7, 1, false, "z");
    remote_on(0, 5, 1, 1);
    assert_int_equal(cairn_route_set(2, 0, 5, CAIRN_PORT(0)), CAIRN_OK);
    start(0);
    /* One frame goes at once; the bus manager buffers the next ones while the pool has
     * more than its reserve free; then the send is refused. */
    cairn_simbus_select(0);
    unsigned ok = 0;
    cairn_ret_t r = CAIRN_OK;
    while (r == CAIRN_OK) {
        r = cairn_send_from(2, 0, "z", 2);
        ok += r == CAIRN_OK;
    }
    assert_int_equal(r, CAIRN_EFULL);
    assert_int_equal(ok, 1 + CAIRN_MSG_POOL - CAIRN_NET_POOL_RESERVE);
    assert_int_equal(stats(0).tx_full, 1);
    cairn_simbus_run();
    assert_int_equal(cairn_simbus_rx_count(1), ok);
    /* Module 1 takes them all at once (its bus manager's service message is queued): it
     * accepts frames while its pool has more than the reserve free, then drops them. */
    cairn_trace_host_reset();
    start(1);
    unsigned accepted = CAIRN_MSG_POOL - 1 - CAIRN_NET_POOL_RESERVE;
    cairn_net_stats_t st = stats(1);
    assert_int_equal(st.rx_frames, accepted);
    assert_int_equal(st.rx_overflow, ok - accepted);
    assert_int_equal((unsigned)R[0].count - 1, accepted); /* INIT, then the accepted ones */
    assert_int_equal(count_word(CAIRN_TRACE_WORD(CAIRN_EV_NET_ERR, CAIRN_NET_ERR_RX_OVERFLOW, 0 << 8 | 5)),
                     ok - accepted);
    /* Nothing left behind: the next frame is delivered normally. */
    cairn_simbus_select(0);
    assert_int_equal(cairn_send_from(2, 0, "z", 2), CAIRN_OK);
    cairn_simbus_run();
    assert_int_equal((unsigned)R[0].count - 1, accepted + 1);
}

/* A bus interrupt that finds the pool full loses its message (counted by the scheduler);
 * the bus manager takes its line up again when the kernel idles. */
static void test_a_bus_interrupt_lost_to_a_full_pool_comes_again_at_idle(void **state)
{
    (void)state;
    receiver_on(1, 0, "T", 5, 1);
    R[1] = (struct rec){.name = "Q"};
    rec_task_uninit(6, &R[1], 1, 0); /* its messages wait for INIT */
    start(1);
    cairn_ret_t r = CAIRN_OK;
    while (r == CAIRN_OK)
        r = cairn_post(6, CAIRN_PORT(0), NULL, 0);
    sender_on(0, 2, 7, 1, false, "l");
    remote_on(0, 5, 1, 1);
    assert_int_equal(cairn_route_set(2, 0, 5, CAIRN_PORT(0)), CAIRN_OK);
    start(0);
    go(0, 2);
    cairn_simbus_run();
    assert_int_equal(cairn_simbus_rx_count(1), 1);
    assert_true(cairn_host_irq_masked(24) == false); /* module 0's view */
    cairn_simbus_select(1);
    assert_true(cairn_host_irq_masked(24));
    cairn_sched_stats_t ss;
    cairn_sched_stats(&ss);
    assert_int_equal(ss.pool_full, 2); /* the post that ended the loop, and the interrupt */
    assert_int_equal(cairn_task_init(6, NULL, 0), CAIRN_OK); /* Q runs: the pool empties */
    cairn_idle();
    assert_false(cairn_host_irq_masked(24));
    cairn_simbus_run();
    assert_int_equal(R[0].count, 2);
    assert_int_equal(stats(1).rx_frames, 1);
}

static void test_powered_off_destination_is_refused_and_counted(void **state)
{
    (void)state;
    receiver_on(1, 0, "T", 5, 1);
    start(1);
    sender_on(0, 2, 7, 1, true, "p");
    remote_on(0, 5, 1, 1);
    assert_int_equal(cairn_route_set(2, 0, 5, CAIRN_PORT(0)), CAIRN_OK);
    start(0);
    assert_int_equal(cairn_net_power(1, false), CAIRN_OK);
    assert_false(cairn_simbus_powered(1));
    klog_reset();
    go(0, 2);
    assert_log("S:0 sent0=-6 tx0");
    assert_int_equal(stats(0).tx_down, 1);
    assert_int_equal(cairn_simbus_wire_count(), 0);
    assert_int_equal(cairn_net_power(1, true), CAIRN_OK);
    go(0, 2);
    cairn_simbus_run();
    assert_log("S:0 sent0=-6 tx0 S:0 sent0=0 tx1 T:0 [p from 2 remote]");
}

static void test_corrupt_and_malformed_frames_are_dropped_and_counted(void **state)
{
    (void)state;
    receiver_on(1, 0, "T", 5, 1);
    start(1);
    sender_on(0, 2, 7, 1, false, "c");
    remote_on(0, 5, 1, 1);
    assert_int_equal(cairn_route_set(2, 0, 5, CAIRN_PORT(0)), CAIRN_OK);
    start(0);
    klog_reset();
    cairn_simbus_corrupt_next();
    go(0, 2);
    cairn_simbus_run();
    assert_log("S:0 sent0=0 tx1");
    assert_int_equal(stats(1).rx_corrupt, 1);
    assert_int_equal(stats(1).rx_frames, 0);
    /* Malformed headers: a length that disagrees, a wrong source, an unknown kind, a
     * task that is not here, an input port out of range, a frame shorter than a header. */
    static const uint8_t bad[][CAIRN_NET_HEADER + 1] = {
        {CAIRN_NET_KIND_MSG, 0, 5, CAIRN_PORT(0), 1, 2, 9, 0, 2, 0, 'x'},
        {CAIRN_NET_KIND_MSG, 2, 5, CAIRN_PORT(0), 1, 2, 9, 0, 1, 0, 'x'},
        {0x13, 0, 5, CAIRN_PORT(0), 1, 2, 9, 0, 1, 0, 'x'},
        {CAIRN_NET_KIND_MSG, 0, 6, CAIRN_PORT(0), 1, 2, 9, 0, 1, 0, 'x'},
        {CAIRN_NET_KIND_MSG, 0, 5, 200, 1, 2, 9, 0, 1, 0, 'x'},
    };
    for (unsigned i = 0; i < CAIRN_COUNT(bad); i++)
        cairn_simbus_inject(1, 0, bad[i], sizeof bad[i]);
    cairn_simbus_inject(1, 0, bad[0], 4);
    cairn_simbus_run();
    cairn_net_stats_t st = stats(1);
    assert_int_equal(st.rx_bad, 5);
    assert_int_equal(st.rx_no_task, 1);
    assert_int_equal(st.rx_frames, 0);
    assert_int_equal(R[0].count, 1); /* INIT only */
    /* A good frame after them. */
    go(0, 2);
    cairn_simbus_run();
    assert_log("S:0 sent0=0 tx1 S:0 sent0=0 tx1 T:0 [c from 2 remote]");
}

/* Group 1 on every module: A (2) on module 0, the sender's; B (1) and C (4) on module 1;
 * D (3) on module 2. */
static void test_multicast_is_one_broadcast_delivered_by_priority_on_every_module(void **state)
{
    (void)state;
    receiver_on(0, 0, "A", 3, 2);
    receiver_on(1, 1, "B", 4, 1);
    receiver_on(1, 2, "C", 5, 4);
    receiver_on(2, 3, "D", 6, 3);
    static const unsigned where[] = {0, 1, 1, 2};
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        assert_int_equal(cairn_group_alloc(), 1);
        for (unsigned i = 0; i < 4; i++)
            if (where[i] == m)
                assert_int_equal(cairn_group_join(1, (cairn_task_id_t)(3 + i), CAIRN_PORT(7)), CAIRN_OK);
        start(m);
    }
    sender_on(0, 2, 1, 1, true, "all");
    assert_int_equal(cairn_route_set(2, 0, CAIRN_TASK_MCAST, 1), CAIRN_OK);
    /* Module 1 knows only its own members. */
    cairn_simbus_select(1);
    assert_int_equal(cairn_group_size(1), 2);
    klog_reset();
    cairn_trace_host_reset();
    go(0, 2);
    cairn_simbus_run();
    assert_log("S:0 A:7 [all from 2] sent0=0 tx1 C:7 [all from 2 remote] B:7 [all from 2 remote] "
               "D:7 [all from 2 remote]");
    assert_int_equal(cairn_simbus_wire_count(), 1);
    assert_int_equal(cairn_simbus_wire(0)->dst, CAIRN_NET_BROADCAST);
    assert_int_equal(cairn_simbus_wire(0)->head[0], CAIRN_NET_KIND_MCAST);
    assert_int_equal(cairn_simbus_wire(0)->head[2], 1);
    assert_int_equal(count_word(CAIRN_TRACE_WORD(CAIRN_EV_NET_SEND, CAIRN_NET_BROADCAST, 0)), 1);
    assert_int_equal(count_word(CAIRN_TRACE_WORD(CAIRN_EV_NET_RECV, 0, 0)), 2);
    assert_int_equal(count_word(CAIRN_TRACE_WORD(CAIRN_EV_NET_RECV_TO, CAIRN_TASK_MCAST, 1)), 2);
    /* While the bus is busy the broadcast waits; the local member still gets it, and the
     * shared heap payload lives until both are done (teardown checks the heaps). */
    go(0, 2);
    go(0, 2);
    cairn_simbus_run();
    assert_int_equal(cairn_simbus_wire_count(), 3);
    assert_int_equal(stats(0).tx_buffered, 1);
    assert_int_equal(R[0].count, 4);
    assert_int_equal(R[1].count, 4);
    assert_int_equal(R[3].count, 4);
}

/* ---- one application, one module or three ------------------------------------------------ */

struct stage {
    char name;
};

static cairn_ret_t stage(void *state, cairn_msg_t *msg)
{
    struct stage *s = state;
    if (msg->port == CAIRN_PORT_INIT) {
        s->name = msg->len ? *(const char *)msg->payload : '?';
        return CAIRN_OK;
    }
    char out[16];
    unsigned n = msg->len < sizeof out - 2 ? msg->len : sizeof out - 2;
    memcpy(out, msg->payload, n);
    out[n] = s->name;
    if (s->name == 'z') {
        klog("%.*s", (int)n + 1, out);
        return CAIRN_OK;
    }
    return cairn_send(0, out, n + 1); /* queued or sent: the bytes must stay */
}

static char buffers[4][16];

static cairn_ret_t stage_copy(void *state, cairn_msg_t *msg)
{
    struct stage *s = state;
    if (msg->port == CAIRN_PORT_INIT)
        return stage(state, msg);
    static unsigned k;
    char *b = buffers[k++ % 4];
    unsigned n = msg->len < 14 ? msg->len : 14;
    memcpy(b, msg->payload, n);
    b[n] = s->name;
    if (s->name == 'z') {
        klog("%.*s", (int)n + 1, b);
        return CAIRN_OK;
    }
    return cairn_send(0, b, n + 1);
}

static const cairn_program_t programs[] = {CAIRN_PROGRAM(stage_copy, struct stage)};
static const cairn_app_route_t to1[] = {CAIRN_TO(1, CAIRN_PORT(0))};
static const cairn_app_route_t to2[] = {CAIRN_TO(2, CAIRN_PORT(0))};

static cairn_app_desc_t pipeline(uint8_t m0, uint8_t m1, uint8_t m2, cairn_task_desc_t *t)
{
    t[0] = (cairn_task_desc_t){.prog = 0, .prio = 1, .module = m0, CAIRN_OUT(to1), CAIRN_INIT_STRING("a")};
    t[1] = (cairn_task_desc_t){.prog = 0, .prio = 2, .module = m1, CAIRN_OUT(to2), CAIRN_INIT_STRING("b")};
    t[2] = (cairn_task_desc_t){.prog = 0, .prio = 3, .module = m2, CAIRN_INIT_STRING("z")};
    return (cairn_app_desc_t){CAIRN_PROGRAMS(programs), .tasks = t, .num_tasks = 3};
}

static void run_pipeline(uint8_t m0, uint8_t m1, uint8_t m2)
{
    cairn_task_desc_t t[3];
    cairn_app_desc_t app = pipeline(m0, m1, m2, t);
    cairn_task_id_t ids[MODULES][3];
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        assert_int_equal(cairn_app_start(&app, ids[m]), CAIRN_OK);
        start(m);
    }
    for (unsigned m = 1; m < MODULES; m++)
        assert_memory_equal(ids[m], ids[0], sizeof ids[0]); /* the same patched IDs */
    klog_reset();
    for (unsigned k = 0; k < 3; k++) {
        cairn_simbus_select(m0);
        char in[2] = {(char)('0' + k), 0};
        assert_int_equal(cairn_post(ids[0][0], CAIRN_PORT(0), in, 1), CAIRN_OK);
        cairn_simbus_run();
    }
}

static void test_the_same_application_on_one_module_or_three(void **state)
{
    (void)state;
    (void)stage;
    run_pipeline(0, 0, 0);
    char one[256];
    strcpy(one, klog_str());
    assert_string_equal(one, "0abz 1abz 2abz");
    assert_int_equal(cairn_simbus_wire_count(), 0);
    setup(state);
    run_pipeline(0, 1, 2);
    assert_string_equal(klog_str(), one);
    assert_int_equal(cairn_simbus_wire_count(), 6);
    cairn_simbus_select(1);
    assert_int_equal(cairn_task_module(1), 0);
    assert_false(cairn_task_exists(1));
    assert_true(cairn_task_exists(2));
    assert_int_equal(cairn_task_module(3), 2);
    /* A description that places a task elsewhere needs a bus manager. */
    assert_int_equal(cairn_sched_init(), CAIRN_OK);
    cairn_task_desc_t t[3];
    cairn_app_desc_t app = pipeline(0, 1, 0, t);
    assert_int_equal(cairn_app_start(&app, NULL), CAIRN_EINVAL);
}


/* Small received payloads go to blocks the bus manager allocated beforehand (filled when the
 * kernel idles), ordinary kernel-owned heap blocks: the receiver keeps one with
 * cairn_take_msg, no copy; once the list is used up the heap is asked, as before. */
static void *kept[CAIRN_NET_RX_CACHE + 2];
static unsigned nkept;

static void keep(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port < CAIRN_PORT_APP_BASE)
        return;
    assert_true(msg->flags & CAIRN_MSG_HEAP);
    assert_int_equal(cairn_heap_owner(msg->payload), CAIRN_TASK_NONE);
    void *p = cairn_take_msg(msg);
    assert_ptr_equal(p, msg->payload); /* handed over, not copied */
    assert_int_equal(cairn_heap_owner(p), 5);
    klog("[%.*s]", (int)msg->len, (const char *)p);
    kept[nkept++] = p;
}

static size_t heap_free(void)
{
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    return st.free_bytes;
}

static void test_small_payloads_are_received_into_blocks_allocated_beforehand(void **state)
{
    (void)state;
    nkept = 0;
    cairn_simbus_select(1);
    R[0] = (struct rec){.name = "T", .hook = keep};
    rec_task(5, &R[0], 5, 0);
    sender_on(0, 2, 7, 1, false, "abc");
    remote_on(0, 5, 5, 1);
    assert_int_equal(cairn_route_set(2, 0, 5, CAIRN_PORT(0)), CAIRN_OK);
    start(0);
    start(1);
    /* Idle: module 1's bus manager allocates its receive blocks. */
    size_t before = heap_free();
    cairn_idle();
    size_t blocks = before - heap_free();
    assert_true(blocks >= CAIRN_NET_RX_CACHE * CAIRN_NET_RX_BLOCK);
    klog_reset();
    /* More frames than blocks, without idling between them: the blocks, then the heap. */
    for (unsigned i = 0; i < CAIRN_NET_RX_CACHE + 2; i++) {
        cairn_simbus_select(0);
        assert_int_equal(cairn_send_from(2, 0, "abc", 4), CAIRN_OK);
        cairn_simbus_run();
    }
    cairn_simbus_select(1);
    assert_int_equal(nkept, CAIRN_NET_RX_CACHE + 2);
    assert_int_equal(stats(1).rx_frames, CAIRN_NET_RX_CACHE + 2);
    for (unsigned i = 0; i < nkept; i++) {
        /* The blocks first (their full size), then blocks of the payload's size. */
        size_t size = cairn_alloc_size(kept[i]);
        if (i < CAIRN_NET_RX_CACHE)
            assert_true(size >= CAIRN_NET_RX_BLOCK);
        else
            assert_true(size >= 4 && size < CAIRN_NET_RX_BLOCK);
        cairn_free(kept[i]);
    }
    /* The next idle allocates the list again. */
    size_t after_free = heap_free();
    cairn_idle();
    assert_int_equal(after_free - heap_free(), blocks);
}

/* The RX interrupt's fast path (kernel/core/net/rx_fast.c, the C twin of the armv6m
 * assembly): a plain message to a ready task that outranks the interrupted level is taken
 * straight into a frame whose handler runs next; a frame it cannot take (here: to a task
 * that is not on the module) keeps its header for the bus manager, which drops and counts
 * it as before; a header already read is not read again. */
static void test_rx_fast_path_takes_the_common_frame_and_leaves_the_rest(void **state)
{
    (void)state;
    receiver_on(1, 0, "T", 5, 3);
    start(1);
    cairn_simbus_select(1);
    cairn_idle(); /* the receive blocks */
    sender_on(0, 2, 1, 2, false, "hi");
    remote_on(0, 5, 3, 1);
    remote_on(0, 6, 3, 1); /* not on module 1 */
    assert_int_equal(cairn_route_set(2, 0, 5, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_route_set(2, 1, 6, CAIRN_PORT(1)), CAIRN_OK);
    start(0);
    go(0, 2);
    assert_true(cairn_simbus_step()); /* the frame to T in module 1's FIFO, not served */
    cairn_simbus_select(1);
    klog_reset();
    cairn_trace_host_reset();
    uint32_t s = arch_irq_save();
    cairn_frame_t *f = cairn__net_rx_fast(arch_timer_now());
    arch_irq_restore(s);
    assert_non_null(f);
    assert_ptr_equal(cairn_k.top, f);
    assert_int_equal(f->msg.dst, 5);
    assert_int_equal(f->msg.port, CAIRN_PORT(1));
    assert_int_equal(f->msg.src, 2);
    assert_int_equal(f->msg.len, 3);
    assert_int_equal(f->msg.flags, CAIRN_MSG_HEAP | CAIRN_MSG_REMOTE);
    assert_string_equal((const char *)f->msg.payload, "hi");
    assert_int_equal(cairn_simbus_rx_count(1), 0);
    assert_int_equal(count_word(CAIRN_TRACE_WORD(CAIRN_EV_NET_RECV, 0, 0)), 1);
    assert_int_equal(count_word(CAIRN_TRACE_WORD(CAIRN_EV_NET_RECV_TO, 5, CAIRN_PORT(1))), 1);
    /* What the interrupt's return does: the handler, its end, the dispatch. */
    cairn__call(f->tcb, f);
    cairn_dispatch();
    assert_log("T:1 [hi from 2 remote]");
    assert_null(cairn_k.top);
    cairn_net_stats_t st = stats(1);
    assert_int_equal(st.rx_frames, 1);
    assert_int_equal(st.rx_fast, 1);
    /* The frame to task 6 (buffered until the first was delivered): read, refused, and left
     * with its header to the bus manager. */
    cairn_simbus_service();
    assert_true(cairn_simbus_step());
    cairn_simbus_select(1);
    s = arch_irq_save();
    assert_null(cairn__net_rx_fast(arch_timer_now()));
    assert_true(cairn_net.rx_peeked);
    assert_null(cairn__net_rx_fast(arch_timer_now())); /* the header is read: no second look */
    arch_irq_restore(s);
    cairn_simbus_run();
    cairn_simbus_select(1);
    assert_false(cairn_net.rx_peeked);
    st = stats(1);
    assert_int_equal(st.rx_no_task, 1);
    assert_int_equal(st.rx_fast, 1);
}

/* The TX-done interrupt's fast path (kernel/core/net/tx_done_fast.c, the C twin of the armv6m
 * vector): a delivered frame's TX done only clears the latch when nothing is buffered, so the
 * bus manager does not run for it; with a message buffered behind the frame, the interrupt
 * goes to the bus manager, which sends it. Two sends, the second buffered: one TX done of the
 * two reaches the bus manager (the general path counted by its IRQ_ENTER word). */
static size_t tx_done_interrupts(void)
{
    return count_word(CAIRN_TRACE_WORD(CAIRN_EV_IRQ_ENTER, 1, 25));
}

static void test_tx_done_reaches_the_bus_manager_only_for_a_buffered_message(void **state)
{
    (void)state;
    sender_on(0, 2, 7, 2, false, "x");
    receiver_on(1, 0, "T1", 11, 1);
    receiver_on(1, 1, "T5", 12, 5);
    for (uint8_t i = 0; i < 2; i++) {
        remote_on(0, (cairn_task_id_t)(11 + i), 1, 1);
        assert_int_equal(cairn_route_set(2, i, (cairn_task_id_t)(11 + i), CAIRN_PORT(0)), CAIRN_OK);
    }
    start(1);
    start(0);
    cairn_trace_host_reset();
    klog_reset();
    go(0, 2);
    assert_log("S:0 sent0=0 tx1 sent1=0 tx1");
    assert_int_equal(stats(0).buffered, 1);
    assert_true(cairn_simbus_step()); /* the first frame delivered: TX done latched */
    cairn_simbus_select(0);
    assert_false(cairn__net_tx_done_fast()); /* the buffered one needs the bus manager */
    cairn_simbus_run();
    assert_int_equal(cairn_simbus_wire_count(), 2);
    assert_int_equal(stats(0).buffered, 0);
    assert_int_equal(stats(1).rx_frames, 2);
    assert_int_equal(tx_done_interrupts(), 1);
    /* Nothing buffered: the last TX done was the fast path's, and so is a send's alone. */
    cairn_trace_host_reset();
    sender_on(0, 3, 7, 1, false, "y");
    assert_int_equal(cairn_route_set(3, 0, 11, CAIRN_PORT(0)), CAIRN_OK);
    go(0, 3);
    cairn_simbus_run();
    assert_int_equal(cairn_simbus_wire_count(), 3);
    assert_int_equal(stats(1).rx_frames, 3);
    assert_int_equal(tx_done_interrupts(), 0);
    cairn_simbus_select(0);
    assert_false(cairn_host_irq_masked(25));
}

/* The send's fast path in C (the armv6m assembly's twin), called as cairn_send's fast path
 * calls it: from a handler, on output ports routed to tasks without a local TCB, with a
 * payload that is not a heap block. */
static void send_fast_all(struct rec *r, cairn_msg_t *msg)
{
    struct sender *s = (struct sender *)r;
    if (msg->port != CAIRN_PORT(0))
        return;
    const char *text = r->user;
    for (uint8_t o = 0; o < s->outs; o++) {
        cairn_ret_t ret = cairn__net_send_fast(o, text, strlen(text) + 1);
        klog("fast%u=%d tx%u", o, ret, cairn_simbus_tx_count(cairn_simbus_selected()));
    }
}

static void test_send_fast_path_writes_to_an_idle_bus_and_leaves_the_rest(void **state)
{
    (void)state;
    receiver_on(1, 0, "T", 5, 3);
    start(1);
    cairn_simbus_select(0);
    S = (struct sender){.r = {.name = "S", .hook = send_fast_all, .user = (void *)"hi"}, .outs = 3};
    rec_task(2, &S.r, 1, 3);
    remote_on(0, 5, 3, 1);
    remote_on(0, 6, 4, 2);
    assert_int_equal(cairn_route_set(2, 0, 5, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_route_set(2, 1, 5, CAIRN_PORT(2)), CAIRN_OK);
    assert_int_equal(cairn_route_set(2, 2, 6, CAIRN_PORT(1)), CAIRN_OK);
    start(0);
    assert_int_equal(cairn_net_power(2, false), CAIRN_OK);
    klog_reset();
    cairn_trace_host_reset();
    go(0, 2);
    /* Idle: written at once; busy: buffered by the general path; module 2 off: refused. */
    assert_log("S:0 fast0=0 tx1 fast1=0 tx1 fast2=-6 tx1");
    cairn_net_stats_t st = stats(0);
    assert_int_equal(st.tx_fast, 1);
    assert_int_equal(st.tx_immediate, 1);
    assert_int_equal(st.tx_buffered, 1);
    assert_int_equal(st.tx_down, 1);
    const uint8_t want[CAIRN_NET_HEADER] = {CAIRN_NET_KIND_MSG, 0, 5, CAIRN_PORT(1), 3, 2, 0, 0, 3, 0};
    /* Its two trace words in a row, as the trace's reader pairs them. */
    uint32_t buf[CAIRN_TRACE_RING];
    size_t n = cairn_trace_host_read(buf, CAIRN_TRACE_RING), at = n;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == CAIRN_TRACE_WORD(CAIRN_EV_NET_SEND, 1, 0))
            at = i;
    assert_true(at + 1 < n);
    assert_int_equal(buf[at + 1], CAIRN_TRACE_WORD(CAIRN_EV_NET_SEND_TO, 5, CAIRN_PORT(1)));
    cairn_simbus_run();
    assert_log("S:0 fast0=0 tx1 fast1=0 tx1 fast2=-6 tx1 T:1 [hi from 2 remote] T:2 [hi from 2 remote]");
    assert_int_equal(cairn_simbus_wire_count(), 2);
    assert_memory_equal(cairn_simbus_wire(0)->head, want, sizeof want);
    assert_int_equal(cairn_net_power(2, true), CAIRN_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        NTEST(test_remote_tcb_rules),
        NTEST(test_send_is_immediate_when_the_bus_is_idle),
        NTEST(test_busy_bus_buffers_by_destination_priority),
        NTEST(test_received_frames_run_by_priority),
        NTEST(test_rx_overflow_and_a_full_buffer_are_counted),
        NTEST(test_a_bus_interrupt_lost_to_a_full_pool_comes_again_at_idle),
        NTEST(test_powered_off_destination_is_refused_and_counted),
        NTEST(test_corrupt_and_malformed_frames_are_dropped_and_counted),
        NTEST(test_multicast_is_one_broadcast_delivered_by_priority_on_every_module),
        NTEST(test_the_same_application_on_one_module_or_three),
        NTEST(test_small_payloads_are_received_into_blocks_allocated_beforehand),
        NTEST(test_rx_fast_path_takes_the_common_frame_and_leaves_the_rest),
        NTEST(test_tx_done_reaches_the_bus_manager_only_for_a_buffered_message),
        NTEST(test_send_fast_path_writes_to_an_idle_bus_and_leaves_the_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
