/*
 * Time synchronisation on the host port's simulated bus (kernel/arch/host/simbus.c): the
 * receivers keep the master's clock (offset and rate) across crystals hundreds of ppm
 * apart, the period changes by a message to the TIMESYNC task, and bad or late frames are
 * refused and counted without disturbing the clock. docs/distributed.md, "Time
 * synchronisation".
 *
 * The host timer (1 MHz here) is the true time of every module; each module's RTC counts
 * from it at its own rate. Reading an RTC moves the host timer on by one tick, so a module
 * that waits for an RTC edge spends simulated time; the simulated bus starts every module's
 * interrupt of one pass at the same time, but the test reads the clocks one module after
 * the other: the tolerance below (TOL_US) covers that, far less than what a wrong offset
 * or rate would give (280 us a second here).
 */
#include <string.h>

#include "cairn/arch_timer.h"
#include "cairn/timer.h"
#include "cairn/timesync.h"
#include "hwtimer.h"
#include "ktest.h"
#include "modules.h"

#include "../../core/net/net.h"

#define MODULES 3
#define ARENA (16 * 1024)
#define HZ 1000000u
#define SECOND HZ
#define TOL_US 40

static uint8_t arena[MODULES][ARENA];

static cairn_timesync_config_t config(uint32_t period_ms)
{
    return (cairn_timesync_config_t){
        .master = 0,
        .period_ms = period_ms,
        .hw_hz = HZ,
        .bus_bytes_per_s = 64000000u,
        .bus_latency_ns = 500u,
        .bus_header_bytes = 4u,
        .max_wait_ns = 2000000u,
    };
}

static void boot(unsigned m)
{
    ktest_module_boot(m, arena[m], ARENA);
}

static int setup(void **state)
{
    (void)state;
    host_timer_reset(0);
    cairn_simbus_reset(MODULES, 4);
    /* The master at +20 ppm; the others at -20 ppm and +300 ppm, started 150 ms and 2 ms
     * off: without synchronisation they would be that far apart at once. */
    cairn_simbus_rtc(0, 20000, HZ, 0);
    cairn_simbus_rtc(1, -20000, HZ, 5000);
    cairn_simbus_rtc(2, 300000, HZ, 77);
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
    }
    cairn_simbus_select(0);
    return 0;
}

#define TTEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static void start_all(uint32_t period_ms)
{
    cairn_timesync_config_t cfg = config(period_ms);
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        assert_int_equal(cairn_timesync_init(&cfg), CAIRN_OK);
        assert_int_equal(cairn_net_start(), CAIRN_OK);
    }
    cairn_simbus_select(0);
}

static cairn_timesync_stats_t ts_stats(unsigned m)
{
    cairn_simbus_select(m);
    cairn_timesync_stats_t st;
    cairn_timesync_stats(&st);
    return st;
}

/* What the master's period timer does: one SYNC, then the bus runs (SYNC, TX done,
 * FOLLOW_UP). */
static void sync_once(void)
{
    cairn_simbus_select(0);
    assert_int_equal(cairn_post(CAIRN_TASK_NET, CAIRN_PORT_TIMEOUT0, NULL, 0), CAIRN_OK);
    cairn_simbus_run();
}

static int64_t us(cairn_time_t t)
{
    return (int64_t)((t >> 31) * 1000000u + (((t & (CAIRN_TIME_SECOND - 1u)) * 1000000u) >> 31));
}

/* Module m's global clock against the master's local clock read just before and after. */
static void assert_tracks_master(unsigned m, int64_t tol_us)
{
    cairn_simbus_select(0);
    int64_t before = us(cairn_local_time());
    cairn_simbus_select(m);
    cairn_time_t g;
    assert_int_equal(cairn_global_time(&g), CAIRN_OK);
    cairn_simbus_select(0);
    int64_t after = us(cairn_local_time());
    int64_t mine = us(g);
    if (mine < before - tol_us || mine > after + tol_us)
        fail_msg("module %u: global %lld us, master %lld..%lld us", m, (long long)mine,
                 (long long)before, (long long)after);
}

static void test_receivers_keep_the_masters_offset_and_rate(void **state)
{
    (void)state;
    start_all(0);
    cairn_time_t g;
    cairn_simbus_select(1);
    assert_int_equal(cairn_global_time(&g), CAIRN_EBUSY); /* no sample yet */
    assert_int_equal(cairn_global_time_us(), 0);
    cairn_simbus_select(0);
    assert_int_equal(cairn_global_time(&g), CAIRN_OK); /* the master's is its own */

    sync_once();
    cairn_simbus_select(1);
    assert_int_equal(cairn_global_time(&g), CAIRN_EBUSY); /* an offset, no rate yet */
    for (unsigned k = 0; k < 4; k++) {
        host_timer_advance(SECOND);
        sync_once();
    }
    for (unsigned m = 1; m < MODULES; m++) {
        cairn_timesync_stats_t st = ts_stats(m);
        assert_true(st.synced);
        assert_int_equal(st.samples, 5);
        assert_int_equal(st.bad + st.late, 0);
    }
    /* The rates: (1 + 20 ppm) / (1 - 20 ppm) - 1 = 40.0 ppm against module 1,
     * (1 + 20 ppm) / (1 + 300 ppm) - 1 = -279.9 ppm against module 2. */
    int32_t r1 = ts_stats(1).rate_ppb, r2 = ts_stats(2).rate_ppb;
    assert_true(r1 > 40001 - 1500 && r1 < 40001 + 1500);
    assert_true(r2 > -279916 - 1500 && r2 < -279916 + 1500);
    assert_int_equal(ts_stats(0).syncs_sent, 5);

    /* Right after a sync and almost a period later: the rate keeps them together (with
     * the offset alone, module 2 would be 280 us off by then). */
    assert_tracks_master(1, TOL_US);
    assert_tracks_master(2, TOL_US);
    host_timer_advance(SECOND - 2000);
    assert_tracks_master(1, TOL_US);
    assert_tracks_master(2, TOL_US);

    /* Each sample left its trace word; the frames are broadcasts of the TIMESYNC kind. */
    unsigned syncs = 0;
    for (unsigned i = 0; i < cairn_simbus_wire_count(); i++) {
        const struct cairn_simbus_wire *w = cairn_simbus_wire(i);
        assert_int_equal(w->dst, CAIRN_NET_BROADCAST);
        assert_int_equal(w->head[0], CAIRN_NET_KIND_TIMESYNC);
        assert_int_equal(w->len, CAIRN_NET_HEADER + CAIRN_TIMESYNC_PAYLOAD);
        syncs++;
    }
    assert_int_equal(syncs, 10); /* 5 SYNC + 5 FOLLOW_UP */
}

static cairn_ret_t post_period(uint32_t ms)
{
    return cairn_post(CAIRN_TASK_TIMESYNC, CAIRN_TIMESYNC_PORT_PERIOD, &ms, sizeof ms);
}

static void test_the_period_changes_by_a_message(void **state)
{
    (void)state;
    cairn_simbus_select(0);
    assert_int_equal(cairn_timer_init(), CAIRN_OK); /* the host's timers: module 0's only */
    start_all(1000);
    uint32_t deadline;
    assert_true(host_timer_armed(&deadline));
    assert_int_equal(deadline - arch_timer_now(), 1000u * (HZ / 1000u));
    assert_int_equal(ts_stats(0).period_ms, 1000);

    cairn_simbus_select(0);
    assert_int_equal(post_period(250), CAIRN_OK);
    assert_int_equal(ts_stats(0).period_ms, 250);
    assert_true(host_timer_armed(&deadline));
    assert_int_equal(deadline - arch_timer_now(), 250u * (HZ / 1000u));

    /* The timer sends SYNC: the master's TIMEOUT0. */
    cairn_simbus_select(0);
    host_timer_advance(250u * (HZ / 1000u));
    assert_int_equal(cairn_simbus_tx_count(0), 1);
    assert_int_equal(ts_stats(0).syncs_sent, 1);
    cairn_simbus_run();

    /* Refused, counted, and the period kept: a bad length, beyond the longest period. */
    cairn_simbus_select(0);
    uint16_t shorty = 5;
    assert_int_equal(cairn_post(CAIRN_TASK_TIMESYNC, CAIRN_TIMESYNC_PORT_PERIOD, &shorty,
                                sizeof shorty),
                     CAIRN_OK); /* the send is fine; the bus manager refuses it */
    assert_int_equal(post_period(70000), CAIRN_OK);
    cairn_timesync_stats_t st = ts_stats(0);
    assert_int_equal(st.bad, 2);
    assert_int_equal(st.period_ms, 250);

    /* 0 stops the SYNC frames. */
    cairn_simbus_select(0);
    assert_int_equal(post_period(0), CAIRN_OK);
    assert_false(host_timer_armed(NULL));
    host_timer_advance(5 * SECOND);
    assert_int_equal(ts_stats(0).syncs_sent, 1);

    /* Elsewhere the period is only recorded. */
    cairn_simbus_select(1);
    assert_int_equal(post_period(500), CAIRN_OK);
    assert_int_equal(ts_stats(1).period_ms, 500);
    cairn_simbus_select(0);
}

/* A raw TIMESYNC frame from src into module dst's RX FIFO, then dst's service. */
static void inject(unsigned dst, unsigned src, uint8_t type, uint8_t n, uint64_t v, unsigned plen)
{
    uint8_t f[CAIRN_NET_HEADER + CAIRN_TIMESYNC_PAYLOAD] = {
        CAIRN_NET_KIND_TIMESYNC, (uint8_t)src, CAIRN_TASK_TIMESYNC, 0, CAIRN_NET_PRIO, 0, 0, 0,
        (uint8_t)plen, 0, type, n, 0, 0};
    for (unsigned i = 0; i < 8; i++)
        f[CAIRN_NET_HEADER + 4 + i] = (uint8_t)(v >> (8 * i));
    cairn_simbus_inject(dst, src, f, CAIRN_NET_HEADER + plen);
}

static void serve(unsigned m)
{
    cairn_simbus_select(m);
    cairn_simbus_service();
}

static void test_bad_and_late_frames_are_refused_and_counted(void **state)
{
    (void)state;
    start_all(0);
    for (unsigned k = 0; k < 3; k++) {
        if (k)
            host_timer_advance(SECOND);
        sync_once();
    }
    assert_true(ts_stats(1).synced);
    uint32_t samples = ts_stats(1).samples;
    cairn_net_stats_t ns;

    /* Not from the master; an unknown type. */
    inject(1, 2, CAIRN_TIMESYNC_SYNC, 9, 0, CAIRN_TIMESYNC_PAYLOAD);
    inject(1, 0, 7, 9, 0, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    assert_int_equal(ts_stats(1).bad, 2);
    /* A payload of the wrong length: the header check drops it (rx_bad). */
    inject(1, 0, CAIRN_TIMESYNC_SYNC, 9, 0, CAIRN_TIMESYNC_PAYLOAD - 1);
    serve(1);
    cairn_simbus_select(1);
    cairn_net_stats(&ns);
    assert_int_equal(ns.rx_bad, 1);

    /* A FOLLOW_UP without its SYNC, or for another one. */
    inject(1, 0, CAIRN_TIMESYNC_FOLLOW_UP, 9, 0, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    cairn_simbus_select(0);
    cairn_time_t now = cairn_local_time();
    inject(1, 0, CAIRN_TIMESYNC_SYNC, 10, now, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    inject(1, 0, CAIRN_TIMESYNC_FOLLOW_UP, 11, 0, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    assert_int_equal(ts_stats(1).late, 2);
    /* A SYNC behind another frame in the FIFO was not stamped at its arrival: late. */
    inject(1, 0, CAIRN_TIMESYNC_SYNC, 12, now, CAIRN_TIMESYNC_PAYLOAD - 1);
    inject(1, 0, CAIRN_TIMESYNC_SYNC, 12, now, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    inject(1, 0, CAIRN_TIMESYNC_FOLLOW_UP, 12, 0, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    assert_int_equal(ts_stats(1).late, 4);
    /* A wait beyond the longest, or negative. */
    inject(1, 0, CAIRN_TIMESYNC_SYNC, 13, now, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    inject(1, 0, CAIRN_TIMESYNC_FOLLOW_UP, 13, CAIRN_TIME_SECOND / 100u, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    inject(1, 0, CAIRN_TIMESYNC_SYNC, 14, now, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    inject(1, 0, CAIRN_TIMESYNC_FOLLOW_UP, 14, (uint64_t)-1000, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    assert_int_equal(ts_stats(1).bad, 4);
    assert_int_equal(ts_stats(1).samples, samples);
    /* A wild stamp (a second off) is refused once and the clock is kept. */
    inject(1, 0, CAIRN_TIMESYNC_SYNC, 15, now + CAIRN_TIME_SECOND, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    inject(1, 0, CAIRN_TIMESYNC_FOLLOW_UP, 15, 0, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    assert_int_equal(ts_stats(1).bad, 5);
    assert_int_equal(ts_stats(1).samples, samples);
    assert_true(ts_stats(1).synced);
    assert_tracks_master(1, TOL_US);
    /* Everything refused on the way left the real synchronisation working. */
    host_timer_advance(SECOND);
    sync_once();
    assert_int_equal(ts_stats(1).samples, samples + 1);
    assert_tracks_master(1, TOL_US);
    /* Two wild samples in a row: the master's clock really jumped; start again. */
    for (uint8_t n = 20; n < 22; n++) {
        cairn_simbus_select(0);
        now = cairn_local_time();
        inject(1, 0, CAIRN_TIMESYNC_SYNC, n, now + CAIRN_TIME_SECOND, CAIRN_TIMESYNC_PAYLOAD);
        serve(1);
        inject(1, 0, CAIRN_TIMESYNC_FOLLOW_UP, n, 0, CAIRN_TIMESYNC_PAYLOAD);
        serve(1);
    }
    assert_false(ts_stats(1).synced);
    /* Nothing else was corrupted: module 2 never saw these. */
    assert_int_equal(ts_stats(2).bad + ts_stats(2).late, 0);
    assert_tracks_master(2, TOL_US);
}

/* One sample on module 1 from injected frames: the master's clock read its local clock plus
 * err when the SYNC arrived. */
static void sample_with_error(uint8_t n, int64_t err)
{
    cairn_simbus_select(1);
    cairn_time_t l = cairn_local_time();
    inject(1, 0, CAIRN_TIMESYNC_SYNC, n, l + (uint64_t)err - cairn_net.ts.transfer,
           CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
    inject(1, 0, CAIRN_TIMESYNC_FOLLOW_UP, n, 0, CAIRN_TIMESYNC_PAYLOAD);
    serve(1);
}

/* A stamp's error weighs on the rate over the span from an older sample, not over one
 * period: a short period's rate used over a longer one (the demo's first syncs) multiplied
 * it. The span grows to 4 s, then starts again from the sample before the newest. */
static void test_the_rate_is_measured_over_several_periods(void **state)
{
    (void)state;
    start_all(0);
    const int64_t err = (int64_t)(CAIRN_TIME_SECOND / 10000u); /* 100 us */
    sample_with_error(1, 0);
    host_timer_advance(SECOND);
    sample_with_error(2, err);
    /* Over one period: 100 us in 1 s. */
    assert_true(ts_stats(1).rate_ppb > 99000 && ts_stats(1).rate_ppb < 101000);
    host_timer_advance(SECOND);
    sample_with_error(3, 0);
    /* From the first sample, 2 s on: no rate at all (one period back, -100 ppm). */
    int32_t r = ts_stats(1).rate_ppb;
    assert_true(r > -1000 && r < 1000);
    for (uint8_t n = 4; n <= 5; n++) {
        host_timer_advance(SECOND);
        sample_with_error(n, 0); /* 4 s from the first: the next rate from the sample at 3 s */
    }
    host_timer_advance(SECOND);
    sample_with_error(6, err);
    /* 100 us over the 2 s since the sample at 3 s (from the first, 5 s: 20 ppm). */
    r = ts_stats(1).rate_ppb;
    assert_true(r > 49000 && r < 51000);
    assert_int_equal(ts_stats(1).samples, 6);
    assert_int_equal(ts_stats(1).bad + ts_stats(1).late, 0);
}

/* The master's driver watches the controller from right after the SYNC's commit: the arrival
 * it sees is the FOLLOW_UP's at once. A SYNC already delivered at the first look has no
 * known arrival: no FOLLOW_UP, the period counted skipped, and the receivers keep their
 * clocks until the next. */
static void test_the_master_watches_for_the_arrival(void **state)
{
    (void)state;
    start_all(0);
    for (unsigned k = 0; k < 2; k++) {
        if (k)
            host_timer_advance(SECOND);
        cairn_simbus_watch_next(25); /* 25 us on the wire and in the slot wait */
        cairn_simbus_select(0);
        assert_int_equal(cairn_post(CAIRN_TASK_NET, CAIRN_PORT_TIMEOUT0, NULL, 0), CAIRN_OK);
        /* SYNC delivered and FOLLOW_UP queued by the timer's own call */
        assert_int_equal(cairn_simbus_wire_count(), 2u * k + 1u);
        assert_int_equal(cairn_simbus_tx_count(0), 1);
        cairn_simbus_run();
    }
    assert_int_equal(ts_stats(1).samples, 2);
    assert_tracks_master(1, TOL_US);
    assert_tracks_master(2, TOL_US);

    host_timer_advance(SECOND);
    cairn_simbus_watch_next(0);
    cairn_simbus_select(0);
    assert_int_equal(cairn_post(CAIRN_TASK_NET, CAIRN_PORT_TIMEOUT0, NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_simbus_tx_count(0), 0); /* no FOLLOW_UP */
    cairn_simbus_run();
    assert_int_equal(ts_stats(0).skipped, 1);
    assert_int_equal(ts_stats(1).samples, 2);
    /* The next sync, the TX done interrupt's way, is a sample again. */
    host_timer_advance(SECOND);
    sync_once();
    for (unsigned m = 1; m < MODULES; m++) {
        assert_int_equal(ts_stats(m).samples, 3);
        assert_int_equal(ts_stats(m).bad + ts_stats(m).late, 0);
        assert_tracks_master(m, TOL_US);
    }
    assert_int_equal(ts_stats(0).syncs_sent, 4);
}

/* The RX fast path (rx_fast.c; the armv6m vector calls it with the counter read at its head)
 * stamps a TIMESYNC frame with the counter it is given, not the counter once its own checks
 * and the header read are done, and the bus manager keeps that stamp when it takes the frame:
 * code on the way cannot move the stamp. */
static void test_the_rx_stamp_is_the_vectors_entry(void **state)
{
    (void)state;
    start_all(0);
    inject(1, 0, CAIRN_TIMESYNC_SYNC, 5, 0, CAIRN_TIMESYNC_PAYLOAD);
    cairn_simbus_select(1);
    uint32_t entry = arch_timer_now();
    host_timer_advance(37); /* the vector's checks and the header read */
    uint32_t s = arch_irq_save();
    assert_null(cairn__net_rx_fast(entry)); /* not a message: the bus manager's */
    arch_irq_restore(s);
    assert_true(cairn_net.rx_peeked);
    assert_int_equal(cairn_net.ts.service_hw, entry);
    serve(1);
    cairn_simbus_select(1);
    assert_false(cairn_net.rx_peeked);
    assert_int_equal(cairn_net.ts.service_hw, entry);
    assert_true(cairn_net.ts.have_sync);
    assert_int_equal(ts_stats(1).late + ts_stats(1).bad, 0);
}

static void test_configuration_is_checked(void **state)
{
    (void)state;
    cairn_simbus_select(0);
    cairn_timesync_config_t cfg = config(0);
    assert_int_equal(cairn_timesync_init(NULL), CAIRN_EINVAL);
    cfg.hw_hz = 0;
    assert_int_equal(cairn_timesync_init(&cfg), CAIRN_EINVAL);
    cfg = config(60001);
    assert_int_equal(cairn_timesync_init(&cfg), CAIRN_EINVAL);
    cfg = config(0);
    cfg.master = CAIRN_NET_BROADCAST;
    assert_int_equal(cairn_timesync_init(&cfg), CAIRN_EINVAL);
    /* No bus manager, no time synchronisation. */
    assert_int_equal(cairn_sched_init(), CAIRN_OK);
    cfg = config(0);
    assert_int_equal(cairn_timesync_init(&cfg), CAIRN_ENOROUTE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TTEST(test_receivers_keep_the_masters_offset_and_rate),
        TTEST(test_the_period_changes_by_a_message),
        TTEST(test_bad_and_late_frames_are_refused_and_counted),
        TTEST(test_the_rate_is_measured_over_several_periods),
        TTEST(test_the_master_watches_for_the_arrival),
        TTEST(test_the_rx_stamp_is_the_vectors_entry),
        TTEST(test_configuration_is_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
