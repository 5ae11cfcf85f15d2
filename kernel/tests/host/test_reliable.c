/*
 * Reliable remote messages (cairn/reliable.h) on the host port's simulated bus: numbered
 * DATA, cumulative DACK, a window of one per destination task, retransmission when the
 * bus manager's timer fires, duplicate suppression and in-order acceptance, NOTASK; under
 * frames dropped, duplicated and delayed behind later ones. The retransmission timer is
 * fired by the test (a TIMEOUT message to the bus manager): the host's virtual timers
 * belong to one process, not to each simulated module.
 */
#include <stdio.h>
#include <string.h>

#include "ktest.h"
#include "modules.h"
#include "cairn/bus.h"

#define MODULES 3
#define ARENA (16 * 1024)
#define SENDER 1
#define RECEIVER 2
#define GHOST 3

static uint8_t arena[MODULES][ARENA];
static size_t free_after_boot[MODULES];

static size_t heap_free(void)
{
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    return st.free_bytes;
}

/* Module m's kernel from nothing (a boot): heap, scheduler, bus manager, reliable layer. */
static void boot(unsigned m)
{
    ktest_module_boot(m, arena[m], ARENA);
    assert_int_equal(cairn_net_reliable_start(1000), CAIRN_OK);
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
    ktest_modules_check(MODULES);
    return 0;
}

#define RTEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static cairn_reliable_stats_t rstats(unsigned m)
{
    unsigned back = cairn_simbus_selected();
    cairn_simbus_select(m);
    cairn_reliable_stats_t st;
    cairn_net_reliable_stats(&st);
    cairn_simbus_select(back);
    return st;
}

/* The receiver logs each payload. */
static void got(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port >= CAIRN_PORT_APP_BASE)
        klog("%.*s", (int)msg->len, (const char *)msg->payload);
}

static struct rec S, R;

/* Sender task on module 0, output 0 to RECEIVER on module 1; everything started. */
static void pipeline(void)
{
    cairn_simbus_select(1);
    R = (struct rec){.name = "R", .hook = got};
    rec_task(RECEIVER, &R, 3, 0);
    cairn_simbus_select(0);
    S = (struct rec){.name = "S"};
    rec_task(SENDER, &S, 2, 1);
    assert_int_equal(cairn_task_create_remote(RECEIVER, 3, 1), CAIRN_OK);
    assert_int_equal(cairn_route_set(SENDER, 0, RECEIVER, CAIRN_PORT(0)), CAIRN_OK);
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        assert_int_equal(cairn_net_start(), CAIRN_OK);
        cairn_idle(); /* the receive blocks allocated beforehand */
        free_after_boot[m] = heap_free();
    }
    cairn_simbus_run();
    klog_reset();
    cairn_simbus_select(0);
}

static void send_texts(unsigned n)
{
    cairn_simbus_select(0);
    for (unsigned i = 0; i < n; i++) {
        /* A heap payload, given away by the send (the layer keeps a copy). */
        char *text = cairn_malloc(4);
        assert_non_null(text);
        memcpy(text, (char[4]){'m', (char)('0' + i / 10), (char)('0' + i % 10), 0}, 4);
        assert_int_equal(cairn_send_from(SENDER, 0, text, 3), CAIRN_OK);
    }
}

/* The bus manager's retransmission timer fires on module m. */
static void fire(unsigned m)
{
    unsigned back = cairn_simbus_selected();
    cairn_simbus_select(m);
    assert_int_equal(cairn_post(CAIRN_TASK_NET, CAIRN_PORT_TIMEOUT(CAIRN_RELIABLE_TIMER), 0, 0),
                     CAIRN_OK);
    cairn_simbus_select(back);
}

/* Runs the bus, firing the sender's timer while messages are kept; the firings it took. */
static unsigned settle(void)
{
    unsigned firings = 0;
    cairn_simbus_run();
    while (rstats(0).pending) {
        assert_true(firings < 200);
        fire(0);
        cairn_simbus_run();
        firings++;
    }
    return firings;
}

static const char *expected(unsigned n)
{
    static char buf[256];
    buf[0] = 0;
    for (unsigned i = 0; i < n; i++) {
        char one[16];
        snprintf(one, sizeof one, "%sR:0 m%02u", i ? " " : "", i);
        strcat(buf, one);
    }
    return buf;
}

static void no_leak(void)
{
    for (unsigned m = 0; m < 2; m++) {
        cairn_simbus_select(m);
        cairn_idle(); /* acknowledged messages are freed when the kernel idles */
        assert_int_equal(heap_free(), free_after_boot[m]);
    }
    cairn_simbus_select(0);
}

static bool is_data(const struct cairn_simbus_wire *w)
{
    return w->head[0] == CAIRN_NET_KIND_DATA;
}

static void test_messages_arrive_once_in_order_one_at_a_time(void **state)
{
    (void)state;
    pipeline();
    send_texts(6);
    assert_int_equal(rstats(0).pending, 6);
    /* A window of one: one DATA frame on its way, the rest kept at the sender. */
    unsigned frames = cairn_simbus_wire_count();
    assert_true(cairn_simbus_step());
    assert_false(cairn_simbus_step());
    assert_int_equal(cairn_simbus_wire_count(), frames + 1);
    assert_int_equal(settle(), 0);
    assert_log(expected(6));
    cairn_reliable_stats_t tx = rstats(0), rx = rstats(1);
    assert_int_equal(tx.numbered, 6);
    assert_int_equal(tx.acked, 6);
    assert_int_equal(tx.resent, 0);
    assert_int_equal(tx.pending_peak, 6);
    assert_int_equal(rx.accepted, 6);
    assert_int_equal(rx.duplicates + rx.gaps, 0);
    /* Six DATA frames and six DACKs, nothing else. */
    assert_int_equal(cairn_simbus_wire_count(), frames + 12);
    no_leak();
}

static unsigned nth;

static enum cairn_simbus_fate drop_every_other_data(const struct cairn_simbus_wire *w)
{
    return is_data(w) && nth++ % 2 == 0 ? CAIRN_SIMBUS_DROP : CAIRN_SIMBUS_PASS;
}

static void test_dropped_frames_are_sent_again_when_the_timer_fires(void **state)
{
    (void)state;
    pipeline();
    nth = 0;
    cairn_simbus_filter(drop_every_other_data);
    send_texts(5);
    unsigned firings = settle();
    assert_int_equal(firings, 5);
    assert_log(expected(5));
    assert_int_equal(rstats(0).resent, 5);
    assert_int_equal(rstats(1).accepted, 5);
    no_leak();
}

static enum cairn_simbus_fate drop_dacks(const struct cairn_simbus_wire *w)
{
    return w->head[0] == CAIRN_NET_KIND_DACK && nth++ < 3 ? CAIRN_SIMBUS_DROP : CAIRN_SIMBUS_PASS;
}

static void test_a_lost_dack_makes_a_duplicate_that_is_dropped_and_acknowledged(void **state)
{
    (void)state;
    pipeline();
    nth = 0;
    cairn_simbus_filter(drop_dacks);
    send_texts(3);
    settle();
    assert_log(expected(3));
    assert_int_equal(rstats(1).accepted, 3);
    assert_int_equal(rstats(1).duplicates, 3);
    assert_int_equal(rstats(0).acked, 3);
    no_leak();
}

static enum cairn_simbus_fate duplicate_all(const struct cairn_simbus_wire *w)
{
    (void)w;
    return CAIRN_SIMBUS_DUPLICATE;
}

static void test_duplicated_frames_change_nothing(void **state)
{
    (void)state;
    pipeline();
    cairn_simbus_filter(duplicate_all);
    send_texts(4);
    settle();
    assert_log(expected(4));
    assert_int_equal(rstats(1).accepted, 4);
    assert_int_equal(rstats(1).duplicates, 4);
    assert_int_equal(rstats(0).acked, 4);
    no_leak();
}

static enum cairn_simbus_fate delay_some(const struct cairn_simbus_wire *w)
{
    (void)w;
    return nth++ % 3 == 1 ? CAIRN_SIMBUS_DELAY : CAIRN_SIMBUS_PASS;
}

/* Delayed frames arrive behind later ones: an old DATA after its retransmission, a DACK
 * after the next DATA. */
static void test_frames_delayed_behind_later_ones_keep_the_order(void **state)
{
    (void)state;
    pipeline();
    nth = 0;
    cairn_simbus_filter(delay_some);
    send_texts(8);
    for (unsigned i = 0; i < 8; i++) { /* timers that fire early, while answers are on their way */
        fire(0);
        cairn_simbus_step();
        cairn_simbus_service();
    }
    settle();
    assert_log(expected(8));
    assert_int_equal(rstats(1).accepted, 8);
    assert_true(rstats(1).duplicates > 0);
    no_leak();
}

static uint8_t epoch_of(unsigned m)
{
    unsigned back = cairn_simbus_selected();
    cairn_simbus_select(m);
    uint8_t e = cairn_bus_boot_epoch();
    cairn_simbus_select(back);
    return e;
}

/* A DATA frame for RECEIVER (module 1) as module 2 would send it: number seq, payload c, the
 * epochs given. */
static void inject_data(uint8_t seq, char c, uint8_t to_epoch, uint8_t from_epoch)
{
    uint8_t f[CAIRN_NET_HEADER + 1 + CAIRN_REL_TRAILER] = {
        CAIRN_NET_KIND_DATA, 2, RECEIVER, CAIRN_PORT(0), seq, 9, 0, 0, 1 + CAIRN_REL_TRAILER, 0,
        (uint8_t)c, to_epoch, from_epoch};
    cairn_simbus_inject(1, 2, f, sizeof f);
}

static void test_a_data_frame_beyond_a_gap_is_dropped_unacknowledged(void **state)
{
    (void)state;
    pipeline();
    uint8_t to = epoch_of(1), from = epoch_of(2);
    inject_data(1, 'a', to, from); /* the first from module 2: any number starts its entry */
    cairn_simbus_run();
    assert_log("R:0 a");
    /* Number 3 while 2 is missing: dropped, answered with the last number accepted. */
    unsigned frames = cairn_simbus_wire_count();
    inject_data(3, 'c', to, from);
    cairn_simbus_run();
    assert_log("R:0 a");
    assert_int_equal(rstats(1).gaps, 1);
    assert_int_equal(cairn_simbus_wire_count(), frames + 1);
    const struct cairn_simbus_wire *w = cairn_simbus_wire(frames);
    assert_int_equal(w->head[0], CAIRN_NET_KIND_DACK);
    assert_int_equal(w->head[4], 1);
    assert_int_equal(w->dst, 2);
    /* Number 2, then 3 when it comes again. */
    inject_data(2, 'b', to, from);
    inject_data(3, 'c', to, from);
    cairn_simbus_run();
    assert_log("R:0 a R:0 b R:0 c");
    assert_int_equal(rstats(1).accepted, 3);
}

/* Module m boots again: its kernel, bus manager and reliable layer start from nothing (a
 * reset), with RECEIVER again on module 1. */
static void restart(unsigned m)
{
    boot(m);
    if (m == 1)
        rec_task(RECEIVER, &R, 3, 0);
    assert_int_equal(cairn_net_start(), CAIRN_OK);
    cairn_simbus_run();
    cairn_simbus_select(0);
}

static enum cairn_simbus_fate drop_all_dacks(const struct cairn_simbus_wire *w)
{
    return w->head[0] == CAIRN_NET_KIND_DACK ? CAIRN_SIMBUS_DROP : CAIRN_SIMBUS_PASS;
}

/* The receiver restarts after taking a message whose DACK was lost: its new life takes that
 * message again (the earlier life's effects died with it) and what follows, in order, once;
 * a late copy addressed to the earlier life is refused. */
static void test_a_restarted_receiver_takes_each_message_once_per_life(void **state)
{
    (void)state;
    pipeline();
    send_texts(2);
    settle();
    assert_log("R:0 m00 R:0 m01");
    uint8_t old = epoch_of(1);
    cairn_simbus_filter(drop_all_dacks);
    send_texts(3); /* m00 again: number 3 */
    cairn_simbus_run();
    assert_log("R:0 m00 R:0 m01 R:0 m00");
    cairn_simbus_filter(0);
    klog_reset();
    restart(1);
    assert_int_not_equal(epoch_of(1), old);
    /* Module 1's hello told module 0 its new epoch: number 3 goes again, then 4 and 5. */
    settle();
    assert_log("R:INIT R:0 m00 R:0 m01 R:0 m02");
    assert_int_equal(rstats(1).accepted, 3);
    /* A copy of number 3 addressed to the earlier life: refused, not taken. */
    inject_data(3, 'x', old, epoch_of(2));
    cairn_simbus_run();
    assert_log("R:INIT R:0 m00 R:0 m01 R:0 m02");
    assert_true(rstats(1).stale >= 1);
    assert_int_equal(rstats(0).pending, 0);
}

/* The sender restarts: its numbers start at 1 again under a newer epoch, which the receiver
 * takes as a new life; a late frame of the sender's earlier life is refused unanswered. */
static void test_a_restarted_senders_numbers_start_again(void **state)
{
    (void)state;
    pipeline();
    send_texts(3);
    settle();
    klog_reset();
    uint8_t old = epoch_of(0);
    restart(0);
    S = (struct rec){.name = "S"};
    rec_task(SENDER, &S, 2, 1);
    assert_int_equal(cairn_task_create_remote(RECEIVER, 3, 1), CAIRN_OK);
    assert_int_equal(cairn_route_set(SENDER, 0, RECEIVER, CAIRN_PORT(0)), CAIRN_OK);
    cairn_simbus_run();
    klog_reset();
    send_texts(2);
    settle();
    assert_log("R:0 m00 R:0 m01");
    assert_int_equal(rstats(1).accepted, 5);
    /* Number 3 of the earlier life (from module 0, epoch old): refused, no answer. */
    unsigned frames = cairn_simbus_wire_count();
    uint8_t f[CAIRN_NET_HEADER + 1 + CAIRN_REL_TRAILER] = {
        CAIRN_NET_KIND_DATA, 0, RECEIVER, CAIRN_PORT(0), 3, SENDER, 0, 0, 1 + CAIRN_REL_TRAILER, 0,
        'x', epoch_of(1), old};
    cairn_simbus_inject(1, 0, f, sizeof f);
    cairn_simbus_run();
    assert_log("R:0 m00 R:0 m01");
    assert_int_equal(cairn_simbus_wire_count(), frames);
}

static void test_notask_from_the_tasks_module_drops_the_message(void **state)
{
    (void)state;
    pipeline();
    cairn_simbus_select(0);
    /* Module 0 believes GHOST lives on module 2, which has no such task. */
    assert_int_equal(cairn_task_create_remote(GHOST, 1, 2), CAIRN_OK);
    assert_int_equal(cairn_route_set(SENDER, 0, GHOST, CAIRN_PORT(0)), CAIRN_OK);
    send_texts(2);
    assert_int_equal(settle(), 0);
    assert_log("");
    assert_int_equal(rstats(2).notask_tx, 2);
    assert_int_equal(rstats(0).notask_rx, 2);
    assert_int_equal(rstats(0).pending, 0);
    /* A NOTASK from a module the route does not name (a stale one) changes nothing. */
    send_texts(1);
    uint8_t f[CAIRN_NET_HEADER + 1] = {CAIRN_NET_KIND_NOTASK, 1, GHOST, 0, 3, 0, 0, 0, 1, 0, epoch_of(1)};
    cairn_simbus_inject(0, 1, f, sizeof f);
    cairn_simbus_service();
    assert_int_equal(rstats(0).notask_rx, 2);
    settle();
    assert_int_equal(rstats(0).notask_rx, 3);
    no_leak();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        RTEST(test_messages_arrive_once_in_order_one_at_a_time),
        RTEST(test_dropped_frames_are_sent_again_when_the_timer_fires),
        RTEST(test_a_lost_dack_makes_a_duplicate_that_is_dropped_and_acknowledged),
        RTEST(test_duplicated_frames_change_nothing),
        RTEST(test_frames_delayed_behind_later_ones_keep_the_order),
        RTEST(test_a_data_frame_beyond_a_gap_is_dropped_unacknowledged),
        RTEST(test_notask_from_the_tasks_module_drops_the_message),
        RTEST(test_a_restarted_receiver_takes_each_message_once_per_life),
        RTEST(test_a_restarted_senders_numbers_start_again),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
