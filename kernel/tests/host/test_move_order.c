/*
 * A moving task's outgoing messages keep their order across the move (docs/migration.md,
 * "Protocol", the drain rule): T on module 0 sends "3" and "4" to the logger L on module 2;
 * the wire loses the first DATA frame, so both wait in module 0's reliable layer when T is
 * asked to move to module 1. T then sends "5" and "6" from wherever it runs. L numbers what
 * it accepts per sending module, so without the rule it would take 5 and 6 (module 1's
 * first numbers) before 3 and 4 come again from module 0. A second case keeps the wire cut
 * for good: the migration cannot drain, gives up and T resumes at the source.
 */
#include <stdio.h>
#include <string.h>

#include "hwtimer.h"
#include "ktest.h"
#include "modules.h"

#define MODULES 3
#define ARENA (16 * 1024)
#define L 1 /* the logger, on module 2 */
#define T 2 /* the movable task, on module 0; its route 0 names L */

static uint8_t arena[MODULES][ARENA];

struct tstate {
    uint32_t sent;
};

/* T forwards every text it is given to L. */
static cairn_ret_t t_handler(void *state, cairn_msg_t *msg)
{
    struct tstate *s = state;
    switch (msg->port) {
    case CAIRN_PORT_INIT:
    case CAIRN_PORT_DESERIALIZE:
        break;
    case CAIRN_PORT_SERIALIZE: {
        struct tstate *b = cairn_malloc(sizeof *b);
        assert_non_null(b);
        *b = *s;
        assert_int_equal(cairn_migrate_state(b, sizeof *b), CAIRN_OK);
        break;
    }
    default:
        s->sent++;
        assert_int_equal(cairn_send(0, msg->payload, msg->len), CAIRN_OK);
    }
    return CAIRN_OK;
}

static cairn_ret_t logger(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0))
        klog("L:%.*s", (int)msg->len, (const char *)msg->payload);
    return CAIRN_OK;
}

static const cairn_migrate_task_t movable[] = {{T, t_handler}};
static uint8_t done_outcome;

static void done(cairn_task_id_t task, uint8_t module, uint8_t outcome)
{
    assert_int_equal(task, T);
    (void)module;
    done_outcome = outcome;
}

static void boot(unsigned m)
{
    ktest_module_boot(m, arena[m], ARENA);
    cairn_migrate_config_t cfg = {.tasks = movable, .count = 1, .retransmit_ticks = 1000,
                                  .tries = 3, .hw_hz = 1000000, .done = done};
    assert_int_equal(cairn_migrate_start(&cfg), CAIRN_OK);
}

static void apps(unsigned m)
{
    cairn_simbus_select(m);
    if (m == 0) {
        static struct tstate st;
        st = (struct tstate){0};
        assert_int_equal(cairn_task_create(T, t_handler, &st, 2, 0, 1, CAIRN_TASK_MOVABLE), CAIRN_OK);
    } else {
        assert_int_equal(cairn_task_create_remote(T, 2, 0), CAIRN_OK);
    }
    if (m == 2)
        assert_int_equal(cairn_task_create(L, logger, 0, 1, 0, 0, 0), CAIRN_OK);
    else
        assert_int_equal(cairn_task_create_remote(L, 1, 2), CAIRN_OK);
    if (m == 0) {
        assert_int_equal(cairn_route_set(T, 0, L, CAIRN_PORT(0)), CAIRN_OK);
        assert_int_equal(cairn_task_init(T, 0, 0), CAIRN_OK);
    }
    if (m == 2)
        assert_int_equal(cairn_task_init(L, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_net_start(), CAIRN_OK);
}

/* The module T runs on (or is frozen on). */
static unsigned home(void)
{
    for (unsigned m = 0; m < MODULES; m++)
        if (ktest_live_on(m, T))
            return m;
    fail_msg("T is nowhere");
    return 0;
}

/* DATA frames from module 0 to module 2 the wire loses: the first `cut_first`, or all. */
static unsigned cut_first, data_0_to_2;
static bool cut_all;

static enum cairn_simbus_fate cut_0_to_2(const struct cairn_simbus_wire *w)
{
    if (w->head[0] != CAIRN_NET_KIND_DATA || w->src != 0 || w->dst != 2)
        return CAIRN_SIMBUS_PASS;
    return cut_all || data_0_to_2++ < cut_first ? CAIRN_SIMBUS_DROP : CAIRN_SIMBUS_PASS;
}

static int setup(void **state)
{
    (void)state;
    cairn_simbus_reset(MODULES, 4);
    cairn_simbus_filter(0);
    cut_first = data_0_to_2 = 0;
    cut_all = false;
    done_outcome = 0;
    cairn_trace_host_reset();
    for (unsigned m = 0; m < MODULES; m++)
        boot(m);
    for (unsigned m = 0; m < MODULES; m++)
        apps(m);
    cairn_simbus_run();
    klog_reset();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ktest_modules_check(MODULES);
    return 0;
}

/* T sends 3 and 4 from module 0 (the first DATA lost: both wait), is asked to move, and
 * sends 5 and 6 from where it is once the bus has carried what it can without a timer. */
static void send_around_a_move(void)
{
    cairn_simbus_filter(cut_0_to_2);
    ktest_post_on(0, T, CAIRN_PORT(0), "3", 1);
    ktest_post_on(0, T, CAIRN_PORT(0), "4", 1);
    cairn_simbus_run();
    assert_log("");
    cairn_simbus_select(0);
    assert_int_equal(cairn_migrate(T, 1), CAIRN_OK);
    cairn_simbus_run();
    unsigned at = home();
    ktest_post_on(at, T, CAIRN_PORT(0), "5", 1);
    ktest_post_on(at, T, CAIRN_PORT(0), "6", 1);
    ktest_modules_settle(MODULES);
}

static void test_messages_sent_before_and_after_a_move_arrive_in_order(void **state)
{
    (void)state;
    cut_first = 1;
    send_around_a_move();
    assert_log("L:3 L:4 L:5 L:6");
    assert_int_equal(done_outcome, CAIRN_MIG_MOVED);
    assert_true(ktest_live_on(1, T));
    assert_false(ktest_live_on(0, T));
}

/* The source's messages never drain: the migration gives up within its tries, T resumes at
 * the source, and its messages go on in order once the wire carries them again. */
static void test_a_move_whose_messages_cannot_drain_resumes_at_the_source(void **state)
{
    (void)state;
    cut_all = true;
    cairn_simbus_filter(cut_0_to_2);
    ktest_post_on(0, T, CAIRN_PORT(0), "3", 1);
    cairn_simbus_run();
    cairn_simbus_select(0);
    assert_int_equal(cairn_migrate(T, 1), CAIRN_OK);
    cairn_simbus_run();
    for (unsigned round = 0; round < 8; round++) {
        for (unsigned m = 0; m < MODULES; m++)
            ktest_module_tick(m);
        cairn_simbus_run();
    }
    assert_int_equal(done_outcome, CAIRN_MIG_RESUMED);
    assert_true(ktest_live_on(0, T));
    assert_false(ktest_live_on(1, T));
    ktest_post_on(0, T, CAIRN_PORT(0), "4", 1);
    cut_all = false;
    ktest_modules_settle(MODULES);
    assert_log("L:3 L:4");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_messages_sent_before_and_after_a_move_arrive_in_order,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_move_whose_messages_cannot_drain_resumes_at_the_source,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
