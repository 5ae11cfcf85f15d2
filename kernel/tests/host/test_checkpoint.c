/*
 * Checkpoint migration on the host port's simulated bus (docs/checkpoint.md): the
 * break-even policy's decisions, a computation moved from a slow module to a fast one at a
 * migration point with the same result as without migration, one that stays when the
 * destination is not fast enough to pay the cost, a lost checkpoint chunk (the source
 * times out, resumes and migrates again), malformed messages dropped and counted.
 */
#include <stdio.h>
#include <string.h>

#include "ktest.h"
#include "modules.h"

#include "cairn/checkpoint.h"

#define MODULES 2
#define ARENA (32 * 1024)
#define UNITS 100u
#define CYCLES_PER_UNIT 1000u
#define STATE_PAD 600u

static uint8_t arena[MODULES][ARENA];
static cairn_ckpt_node_t nodes[MODULES];
static uint32_t clocks[MODULES];
static uint64_t fake_ns;
static uint8_t done_on;
static unsigned done_calls;

struct work {
    uint32_t i, acc;
    uint8_t pad[STATE_PAD];
};
static struct work works[MODULES];
static cairn_ckpt_ctx_t ctxs[MODULES];

static uint64_t now_ns(void)
{
    return fake_ns;
}

static uint32_t step(uint32_t acc, uint32_t i, const struct work *w)
{
    return acc * 31u + i + w->pad[i % STATE_PAD];
}

/* The computation: one unit costs CYCLES_PER_UNIT cycles of the module it runs on. */
static cairn_ret_t compute(cairn_ckpt_ctx_t *ctx, void *state, bool restarted)
{
    struct work *w = state;
    if (!restarted) {
        w->i = 0;
        w->acc = 1;
        for (unsigned k = 0; k < STATE_PAD; k++)
            w->pad[k] = (uint8_t)(k * 7u + 3u);
    }
    while (w->i < UNITS) {
        w->acc = step(w->acc, w->i, w);
        w->i++;
        fake_ns += (uint64_t)CYCLES_PER_UNIT * 1000000000u / clocks[cairn_net_address()];
        if (cairn_ckpt_point(ctx, w->i))
            return CAIRN_CKPT_STOP;
    }
    klog("[done on %u acc %u]", cairn_net_address(), w->acc);
    return CAIRN_OK;
}

static uint32_t expected(void)
{
    struct work w = {.acc = 1};
    for (unsigned k = 0; k < STATE_PAD; k++)
        w.pad[k] = (uint8_t)(k * 7u + 3u);
    for (w.i = 0; w.i < UNITS; w.i++)
        w.acc = step(w.acc, w.i, &w);
    return w.acc;
}

static void on_done(cairn_ckpt_node_t *n, uint8_t id, uint8_t module)
{
    (void)n;
    (void)id;
    done_on = module;
    done_calls++;
}

static cairn_ckpt_config_t config(unsigned m, uint32_t cost_base_ns)
{
    return (cairn_ckpt_config_t){.modules = MODULES, .master_module = 0, .master_id = 10,
                                 .slave_base = 11, .runner_id = 14, .daemon_prio = 100,
                                 .runner_prio = 1, .clock_hz = clocks[m], .now_ns = now_ns,
                                 .report_units = 10, .cost_base_ns = cost_base_ns,
                                 .cost_per_byte_ps = 1000, .on_done = on_done};
}

/* Two modules, m0 at 4 MHz with the master, m1 at dst_hz; every daemon up. */
static void boot(uint32_t dst_hz, uint32_t cost_base_ns)
{
    cairn_simbus_reset(MODULES, 8);
    clocks[0] = 4000000u;
    clocks[1] = dst_hz;
    fake_ns = 0;
    done_calls = 0;
    done_on = 0xFF;
    for (unsigned m = 0; m < MODULES; m++) {
        ktest_module_boot(m, arena[m], ARENA);
        ctxs[m] = (cairn_ckpt_ctx_t){.run = compute, .state = &works[m], .size = sizeof works[m],
                                     .total = UNITS};
        memset(&works[m], 0, sizeof works[m]);
        cairn_ckpt_ctx_t *list[] = {&ctxs[m]};
        cairn_ckpt_config_t cfg = config(m, cost_base_ns);
        assert_int_equal(cairn_ckpt_start(&nodes[m], &cfg, list, 1), CAIRN_OK);
    }
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        assert_int_equal(cairn_net_start(), CAIRN_OK);
    }
    cairn_simbus_run();
    cairn_simbus_select(0);
    /* The master knows both clocks from the slaves' hellos. */
    assert_int_equal(nodes[0].clock_hz[0], clocks[0]);
    assert_int_equal(nodes[0].clock_hz[1], clocks[1]);
    cairn_trace_host_reset();
    klog_reset();
}

static int teardown(void **state)
{
    (void)state;
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        assert_int_equal(cairn_heap_check(), CAIRN_OK);
        assert_int_equal(cairn_current_task(), 0);
    }
    cairn_simbus_select(0);
    return 0;
}

/* The checkpoint trace words of module m, in order, as "code:a:b" (other words skipped). */
static void ckpt_words(char *out, size_t max)
{
    uint32_t w[1024];
    size_t n = cairn_trace_host_read(w, 1024);
    out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned code = CAIRN_TRACE_EVENT(w[i]);
        if (code < CAIRN_EV_CKPT_REQUEST || code > CAIRN_EV_CKPT_ERR)
            continue;
        size_t len = strlen(out);
        snprintf(out + len, max - len, "%s%02x:%u:%u", len ? " " : "", code, CAIRN_TRACE_A(w[i]),
                 CAIRN_TRACE_B(w[i]));
    }
}

/* ---- the policy ------------------------------------------------------------------------- */

static void test_policy_migrates_when_the_gain_beats_the_cost(void **state)
{
    (void)state;
    /* 1e6 units x 100 cycles: 25 s at 4 MHz, 3.125 s at 32 MHz; cost 1 ms + 1024 B x 1 ns. */
    cairn_ckpt_case_t c = {.remaining_units = 1000000, .cycles_per_unit = 100, .src_hz = 4000000,
                           .dst_hz = 32000000, .size = 1024, .cost_base_ns = 1000000,
                           .cost_per_byte_ps = 1000};
    cairn_ckpt_verdict_t v;
    cairn_ckpt_decide(&c, &v);
    assert_true(v.migrate);
    assert_int_equal(v.cost_ns, 1001024u);
    assert_int_equal(v.stay_ns, 25000000000ull);
    assert_int_equal(v.go_ns, 3125000000ull + 1001024u);
    /* Break-even after the migration point: cost x 32 / (32 - 4). */
    assert_int_equal(v.freeze_ns, 1001024ull * 32000000u / 28000000u);
}

static void test_policy_stays_when_too_little_is_left(void **state)
{
    (void)state;
    /* 10 units x 100 cycles: 250 us here, 31.25 us there + 1 ms: stay. */
    cairn_ckpt_case_t c = {.remaining_units = 10, .cycles_per_unit = 100, .src_hz = 4000000,
                           .dst_hz = 32000000, .size = 0, .cost_base_ns = 1000000};
    cairn_ckpt_verdict_t v;
    cairn_ckpt_decide(&c, &v);
    assert_false(v.migrate);
    assert_true(v.stay_ns < v.freeze_ns);
    /* Around the break-even: 25 us a unit here, 3.125 us there; 1 ms pays 45.7 units. */
    c.remaining_units = 45;
    cairn_ckpt_decide(&c, &v);
    assert_int_equal(v.stay_ns, 1125000u);
    assert_int_equal(v.go_ns, 1140625u);
    assert_false(v.migrate);
    c.remaining_units = 46;
    cairn_ckpt_decide(&c, &v);
    assert_int_equal(v.stay_ns, 1150000u);
    assert_int_equal(v.go_ns, 1143750u);
    assert_true(v.migrate);
    assert_true(v.stay_ns > v.freeze_ns);
}

static void test_policy_stays_when_the_destination_is_not_faster(void **state)
{
    (void)state;
    cairn_ckpt_case_t c = {.remaining_units = 1000000, .cycles_per_unit = 100, .src_hz = 32000000,
                           .dst_hz = 32000000};
    cairn_ckpt_verdict_t v;
    cairn_ckpt_decide(&c, &v);
    assert_false(v.migrate);
    assert_true(v.freeze_ns == UINT64_MAX);
    c.dst_hz = 4000000;
    cairn_ckpt_decide(&c, &v);
    assert_false(v.migrate);
    /* A slightly faster module does not pay a large checkpoint. */
    c.src_hz = 4000000;
    c.dst_hz = 4004000;
    c.remaining_units = 10000; /* 250 ms: the gain is 0.25 ms */
    c.size = 4096;
    c.cost_per_byte_ps = 1000000; /* 1 us per byte: 4.1 ms */
    cairn_ckpt_decide(&c, &v);
    assert_false(v.migrate);
}

/* ---- the protocol ------------------------------------------------------------------------ */

static void test_a_computation_moves_to_the_fast_module_with_the_same_result(void **state)
{
    (void)state;
    boot(32000000u, 1000);
    assert_int_equal(cairn_ckpt_launch(&nodes[0], 0, 0), CAIRN_OK);
    /* The first load report (10 units) ran the master's decision on this module: the
     * computation stopped at that very point and its chunks are on their way. */
    assert_int_equal(ctxs[0].phase, CAIRN_CKPT_HELD);
    assert_int_equal(ctxs[0].done, 10);
    assert_int_equal(nodes[0].table[0].state, CAIRN_CKPT_E_MIGRATING);
    assert_int_equal(nodes[0].stats.chunks_sent, 3); /* 608 bytes in chunks of 234 */
    char words[512];
    cairn_simbus_run();
    cairn_simbus_select(1);
    /* Request, suspend, sent (module 0); received, restarted (module 1); confirmed (0).
     * On the fast module no faster one is left: no more decisions are traced. */
    ckpt_words(words, sizeof words);
    assert_string_equal(words, "30:0:1 31:0:1 32:0:608 33:0:608 34:0:0 35:0:1");
    assert_int_equal(ctxs[1].phase, CAIRN_CKPT_DONE);
    assert_int_equal(nodes[1].stats.chunks_received, 3);
    assert_int_equal(works[1].acc, expected());
    char line[64];
    snprintf(line, sizeof line, "[done on 1 acc %u]", expected());
    assert_log(line);
    /* The master confirmed the restart, so the source freed its copy. */
    cairn_simbus_select(0);
    assert_int_equal(ctxs[0].phase, CAIRN_CKPT_IDLE);
    const cairn_ckpt_entry_t *e = &nodes[0].table[0];
    assert_int_equal(e->state, CAIRN_CKPT_E_DONE);
    assert_int_equal(e->module, 1);
    assert_int_equal(e->migrations, 1);
    assert_int_equal(done_calls, 1);
    assert_int_equal(done_on, 1);
    /* The measured cost is what the destination saw from the suspension to its restart
     * (the fake clock moves only with the computation's units: none ran in between). */
    assert_int_equal(ctxs[1].cost_ns, 0);
    assert_int_equal(e->cost_ns, ctxs[1].cost_ns);
    /* It ran 10 units at 4 MHz and 90 at 32 MHz. */
    assert_int_equal(fake_ns, 10u * 250000u + 90u * 31250u);
}

static void test_a_computation_stays_when_the_destination_does_not_pay(void **state)
{
    (void)state;
    /* 4.1 MHz: 90 units would save 0.55 ms; the checkpoint costs 5 ms. */
    boot(4100000u, 5000000u);
    assert_int_equal(cairn_ckpt_launch(&nodes[0], 0, 0), CAIRN_OK);
    cairn_simbus_run();
    char words[512];
    ckpt_words(words, sizeof words);
    /* One decision per load report (units 10..100), each to stay. */
    assert_string_equal(words, "37:0:1 37:0:1 37:0:1 37:0:1 37:0:1 37:0:1 37:0:1 37:0:1 37:0:1 37:0:1");
    const cairn_ckpt_entry_t *e = &nodes[0].table[0];
    assert_int_equal(e->stays, 10);
    assert_int_equal(e->migrations, 0);
    assert_true(e->predicted_go_ns > e->predicted_stay_ns);
    assert_int_equal(done_on, 0);
    assert_int_equal(works[0].acc, expected());
    assert_int_equal(nodes[0].stats.chunks_sent, 0);
}

static void test_a_lost_chunk_makes_the_source_resume_and_migrate_again(void **state)
{
    (void)state;
    boot(32000000u, 1000);
    /* The first chunk on the wire fails the controller's check at the receiver. */
    cairn_simbus_corrupt_next();
    assert_int_equal(cairn_ckpt_launch(&nodes[0], 0, 0), CAIRN_OK);
    cairn_simbus_run();
    cairn_simbus_select(1);
    /* Two of three chunks: nothing restarts. */
    assert_int_equal(ctxs[1].phase, CAIRN_CKPT_RECEIVING);
    assert_int_equal(ctxs[1].rx_count, 2);
    cairn_simbus_select(0);
    assert_int_equal(ctxs[0].phase, CAIRN_CKPT_HELD);
    assert_int_equal(nodes[0].table[0].state, CAIRN_CKPT_E_MIGRATING);
    cairn_trace_host_reset();
    /* The resume timeout (resume_ticks is 0 here: the test fires it). The source runs the
     * computation again from its own copy; its next report migrates it again. */
    assert_int_equal(cairn_post(14, CAIRN_PORT_TIMEOUT0, NULL, 0), CAIRN_OK);
    char words[512];
    ckpt_words(words, sizeof words);
    assert_string_equal(words, "36:0:1 30:0:1 31:0:1 32:0:608");
    assert_int_equal(nodes[0].stats.resumed, 1);
    assert_int_equal(nodes[0].table[0].resumes, 1);
    cairn_simbus_run();
    cairn_simbus_select(1);
    assert_int_equal(ctxs[1].phase, CAIRN_CKPT_DONE);
    assert_int_equal(works[1].acc, expected());
    cairn_simbus_select(0);
    assert_int_equal(nodes[0].table[0].migrations, 1);
    assert_int_equal(done_on, 1);
    assert_int_equal(done_calls, 1);
    /* The stale transfer's chunks were replaced, not mixed in. */
    assert_int_equal(nodes[1].stats.duplicates, 0);
}

static void test_bad_messages_are_dropped_and_counted(void **state)
{
    (void)state;
    boot(32000000u, 1000);
    cairn_simbus_select(1);
    /* A chunk for an unknown computation, one of a wrong size, and a short message. */
    static uint8_t bad1[CAIRN_CKPT_CHUNK_HEADER] = {5, 3, 0, 0, 1, 0, 0, 0};
    static uint8_t bad2[CAIRN_CKPT_CHUNK_HEADER + 4] = {5, 0, 0, 0, 3, 0, 0x60, 0x02};
    static uint8_t bad3[3] = {2, 0, 0};
    assert_int_equal(cairn_post(12, CAIRN_CKPT_PORT, bad1, sizeof bad1), CAIRN_OK);
    assert_int_equal(cairn_post(12, CAIRN_CKPT_PORT, bad2, sizeof bad2), CAIRN_OK);
    assert_int_equal(cairn_post(12, CAIRN_CKPT_PORT, bad3, sizeof bad3), CAIRN_OK);
    assert_int_equal(nodes[1].stats.bad, 3);
    assert_int_equal(ctxs[1].phase, CAIRN_CKPT_IDLE);
    char words[512];
    ckpt_words(words, sizeof words);
    assert_string_equal(words, "38:1:3 38:1:0 38:1:0");
    cairn_simbus_select(0);
    /* A launch on a module that does not exist, or twice. */
    assert_int_equal(cairn_ckpt_launch(&nodes[0], 0, 5), CAIRN_EINVAL);
    assert_int_equal(cairn_ckpt_launch(&nodes[0], 1, 0), CAIRN_EINVAL);
}

static void test_bad_configuration_is_refused(void **state)
{
    (void)state;
    boot(32000000u, 1000);
    cairn_ckpt_node_t n;
    cairn_ckpt_config_t cfg = config(0, 0);
    cfg.runner_prio = cfg.daemon_prio;
    cairn_ckpt_ctx_t c = {.run = compute, .state = NULL, .size = 4};
    cairn_ckpt_ctx_t *list[] = {&c};
    assert_int_equal(cairn_ckpt_start(&n, &cfg, list, 1), CAIRN_EINVAL);
    cfg = config(0, 0);
    assert_int_equal(cairn_ckpt_start(&n, &cfg, list, 1), CAIRN_EINVAL); /* no state block */
    c.state = &works[0];
    assert_int_equal(cairn_ckpt_start(&n, &cfg, list, 1), CAIRN_EBUSY); /* IDs taken */
}

#define T(fn) cmocka_unit_test_teardown(fn, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_migrates_when_the_gain_beats_the_cost),
        cmocka_unit_test(test_policy_stays_when_too_little_is_left),
        cmocka_unit_test(test_policy_stays_when_the_destination_is_not_faster),
        T(test_a_computation_moves_to_the_fast_module_with_the_same_result),
        T(test_a_computation_stays_when_the_destination_does_not_pay),
        T(test_a_lost_chunk_makes_the_source_resume_and_migrate_again),
        T(test_bad_messages_are_dropped_and_counted),
        T(test_bad_configuration_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
