/*
 * Atomic task migration (cairn/migrate.h, docs/migration.md) on the host port's simulated
 * bus: three modules; the movable task T lives on module 0 and moves to module 1; module 2
 * sends to it throughout. A successful move with messages queued at the source and sent
 * during the migration (each handled once, in order, at the destination); a failed
 * de-serialisation (RESUMED: every module as before, no heap leaked); lost FREEZE_ACK and
 * STATE frames sent again; a state of many STATE parts whose window loses, repeats and
 * delays one part each (moved intact); a destination whose source falls silent after the first
 * part arms its query timer when it goes idle and asks; a destination reset before the commit
 * (RESUMED); a source reset after its commit was lost (NOMIG, a QUERY answered: RESUMED
 * everywhere); a timer that
 * expires during the migration fires once, on arrival; a REQUEST between routes that name each
 * other is refused after as many modules as there are; migration frames alone, behind each
 * other or malformed get the answers the bus manager's service gave them. The test fires the bus managers'
 * timers itself (a TIMEOUT message): the host's virtual timers belong to one process.
 */
#include <stdio.h>
#include <string.h>

#include "hwtimer.h"
#include "ktest.h"
#include "modules.h"

#include "../../core/net/migrator.h"
#include "../../core/net/migrator_state.h" /* the destination's query_unarmed */
#include "../../core/net/net.h"

#define MODULES 3
#define ARENA (16 * 1024)
#define SENDER 1 /* on module 2 */
#define T 2      /* the movable task */
#define PUSHER 3 /* on module 0: queues messages for T, then asks for the move */

static uint8_t arena[MODULES][ARENA];
static size_t free_before[MODULES];
static size_t held_before[MODULES];
static bool handler_known[MODULES];

/* ---- the movable task: its state is a count, and it logs where it handles what ---- */

struct tstate {
    uint32_t handled;
    uint32_t timer_ticks; /* timer 0 at INIT (0: none) */
};
static struct tstate t_initial;
/* Bytes of a pattern after the count in T's serialised block: a state of several STATE parts. */
static unsigned t_extra;
static unsigned t_extra_bad;

static uint8_t extra_byte(unsigned i)
{
    return (uint8_t)(i * 7u + 1u);
}

static cairn_ret_t t_handler(void *state, cairn_msg_t *msg)
{
    struct tstate *s = state;
    unsigned here = cairn_net_address();
    switch (msg->port) {
    case CAIRN_PORT_INIT:
        if (s->timer_ticks)
            assert_int_equal(cairn_timer_start(0, s->timer_ticks, false), CAIRN_OK);
        break;
    case CAIRN_PORT_SERIALIZE: {
        uint8_t *b = cairn_malloc(sizeof *s + t_extra);
        assert_non_null(b);
        __builtin_memcpy(b, s, sizeof *s);
        for (unsigned i = 0; i < t_extra; i++)
            b[sizeof *s + i] = extra_byte(i);
        assert_int_equal(cairn_migrate_state(b, sizeof *s + t_extra), CAIRN_OK);
        klog("T@%u:ser", here);
        break;
    }
    case CAIRN_PORT_DESERIALIZE:
        assert_ptr_equal(msg->payload, state);
        assert_int_equal(msg->len, sizeof *s + t_extra);
        for (unsigned i = 0; i < t_extra; i++)
            t_extra_bad += ((const uint8_t *)state)[sizeof *s + i] != extra_byte(i);
        klog("T@%u:deser(%u)", here, (unsigned)s->handled);
        break;
    case CAIRN_PORT_TIMEOUT0:
        klog("T@%u:T0", here);
        break;
    default:
        s->handled++;
        klog("T@%u:%.*s", here, (int)msg->len, (const char *)msg->payload);
    }
    return CAIRN_OK;
}

static const cairn_migrate_task_t movable[] = {{T, t_handler}};

/* ---- the pusher: three messages for T (queued: T is below it), then REQUEST ---- */

static cairn_ret_t pusher(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT(0))
        return CAIRN_OK;
    static const char *const q[3] = {"q0", "q1", "q2"}; /* queued: not the stack */
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(cairn_send(0, q[i], 2), CAIRN_OK);
    assert_int_equal(cairn_migrate(T, 1), CAIRN_OK);
    return CAIRN_OK;
}

static uint8_t done_outcome;
static void done(cairn_task_id_t task, uint8_t module, uint8_t outcome)
{
    assert_int_equal(task, T);
    (void)module;
    done_outcome = outcome;
}

/* Bytes in used blocks: what a module holds, whatever the free space's fragments. */
static size_t heap_held(void)
{
    cairn_idle();
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    return st.used_bytes;
}

static void boot(unsigned m, uint32_t period)
{
    ktest_module_boot(m, arena[m], ARENA);
    cairn_migrate_config_t cfg = {
        .tasks = movable, .count = handler_known[m] ? 1 : 0, .retransmit_ticks = period,
        .tries = 3, .hw_hz = 1000000, .done = done};
    assert_int_equal(cairn_migrate_start(&cfg), CAIRN_OK);
}

/* The application on module m (module 0 holds T and the pusher, 2 the sender). */
static void apps(unsigned m)
{
    cairn_simbus_select(m);
    if (m == 0) {
        static struct tstate st;
        st = t_initial;
        assert_int_equal(cairn_task_create(T, t_handler, &st, 2, 0, 0, CAIRN_TASK_MOVABLE), CAIRN_OK);
        assert_int_equal(cairn_task_init(T, 0, 0), CAIRN_OK);
        cairn_route_t r = CAIRN_ROUTE(T, CAIRN_PORT(0));
        assert_int_equal(cairn_task_create(PUSHER, pusher, 0, 5, &r, 1, 0), CAIRN_OK);
        assert_int_equal(cairn_task_init(PUSHER, 0, 0), CAIRN_OK);
        assert_int_equal(cairn_task_create_remote(SENDER, 1, 2), CAIRN_OK);
    } else {
        assert_int_equal(cairn_task_create_remote(T, 2, 0), CAIRN_OK);
    }
    if (m == 2) {
        static struct rec s;
        s = (struct rec){.name = "S"};
        rec_task_uninit(SENDER, &s, 1, 1);
        assert_int_equal(cairn_route_set(SENDER, 0, T, CAIRN_PORT(0)), CAIRN_OK);
        assert_int_equal(cairn_task_init(SENDER, 0, 0), CAIRN_OK);
    }
    assert_int_equal(cairn_net_start(), CAIRN_OK);
}

static void start_all(uint32_t period)
{
    for (unsigned m = 0; m < MODULES; m++)
        boot(m, period);
    for (unsigned m = 0; m < MODULES; m++)
        apps(m);
    cairn_simbus_run();
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        free_before[m] = ktest_heap_free();
        held_before[m] = heap_held();
    }
    cairn_simbus_select(0);
    klog_reset();
}

static int setup(void **state)
{
    (void)state;
    cairn_simbus_reset(MODULES, 4);
    cairn_simbus_filter(0);
    for (unsigned m = 0; m < MODULES; m++)
        handler_known[m] = true;
    t_initial = (struct tstate){0};
    t_extra = t_extra_bad = 0;
    done_outcome = 0;
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

#define MTEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static void send_from_2(const char *text)
{
    cairn_simbus_select(2);
    assert_int_equal(cairn_send_from(SENDER, 0, text, strlen(text)), CAIRN_OK);
}

static void routes_name(int m0, int m1, int m2)
{
    int want[MODULES] = {m0, m1, m2};
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        assert_int_equal(cairn_task_module(T), want[m]);
    }
    cairn_simbus_select(0);
}

static void heaps_as_before(void)
{
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        assert_int_equal(ktest_heap_free(), free_before[m]);
    }
    cairn_simbus_select(0);
}

static void test_a_move_delivers_every_message_once_in_order_at_the_destination(void **state)
{
    (void)state;
    start_all(1000);
    send_from_2("a0");
    send_from_2("a1");
    cairn_simbus_run();
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0); /* q0..q2 queued for T, then REQUEST */
    send_from_2("b0");                     /* on their way during the migration */
    send_from_2("b1");
    send_from_2("b2");
    ktest_modules_settle(MODULES);
    assert_log("T@0:a0 T@0:a1 T@0:ser T@1:deser(2) T@1:q0 T@1:q1 T@1:q2 T@1:b0 T@1:b1 T@1:b2");
    assert_true(ktest_live_on(1, T));
    assert_false(ktest_live_on(0, T));
    routes_name(1, -1, 1);
    assert_int_equal(done_outcome, CAIRN_MIG_MOVED);
    assert_int_equal(ktest_migrate_stats(0).moved, 1);
    assert_int_equal(ktest_migrate_stats(1).committed, 1);
    /* One word per phase change: REQUEST, SERIALIZED, STAGED, COMMITTED, FREED once;
     * FROZEN and UNFROZEN on each module. */
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_REQUEST), 1);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_SERIALIZED), 1);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_STAGED), 1);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_COMMITTED), 1);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_FREED), 1);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_FROZEN), 3);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_UNFROZEN), 3);
    /* After the move, messages go to module 1 directly. */
    klog_reset();
    send_from_2("c0");
    ktest_modules_settle(MODULES);
    assert_log("T@1:c0");
    /* And back again: the tables moved with T keep the numbers in order. */
    klog_reset();
    cairn_simbus_select(2); /* a policy on module 2: its REQUEST goes to T's module */
    assert_int_equal(cairn_migrate(T, 0), CAIRN_OK);
    send_from_2("d0");
    ktest_modules_settle(MODULES);
    assert_log("T@1:ser T@0:deser(9) T@0:d0");
    routes_name(-1, 0, 0);
    /* Modules 1 and 2 hold what they held before: nothing of T's is left on module 1.
     * (Module 0's T has a heap block for its state now, where it had a static one.) The
     * free bytes may differ: module 1's migrator allocated its spare TCB room again after
     * the commit, elsewhere than the one T's TCB took. */
    for (unsigned m = 1; m < MODULES; m++) {
        cairn_simbus_select(m);
        assert_int_equal(heap_held(), held_before[m]);
    }
}

static void test_a_failed_deserialisation_resumes_with_every_module_as_before(void **state)
{
    (void)state;
    handler_known[1] = false; /* module 1 cannot run T: its de-serialisation fails */
    start_all(1000);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    send_from_2("b0");
    ktest_modules_settle(MODULES);
    assert_log("T@0:ser T@0:q0 T@0:q1 T@0:q2 T@0:b0");
    assert_true(ktest_live_on(0, T));
    assert_false(ktest_live_on(1, T));
    routes_name(-1, 0, 0);
    assert_int_equal(done_outcome, CAIRN_MIG_RESUMED);
    assert_int_equal(ktest_migrate_stats(1).stage_failed, 1);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_RESUMED), 1);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_COMMITTED), 0);
    heaps_as_before();
}

static unsigned freeze_to[MODULES + 1], state_to_1;

static enum cairn_simbus_fate count_freezes(const struct cairn_simbus_wire *w)
{
    if (w->head[0] == CAIRN_NET_KIND_MIG && w->first == 2) /* FREEZE */
        freeze_to[w->dst < MODULES ? w->dst : MODULES]++;
    if (w->head[0] == CAIRN_NET_KIND_MIG && w->first == 4 && w->dst == 1) /* STATE */
        state_to_1++;
    return CAIRN_SIMBUS_PASS;
}

/* Every module said its epoch when it started: the STATE goes first and freezes the
 * destination, and FREEZE goes to the other module alone, after the destination staged. */
static void test_the_state_goes_first_when_the_destination_epoch_is_known(void **state)
{
    (void)state;
    start_all(1000);
    __builtin_memset(freeze_to, 0, sizeof freeze_to);
    state_to_1 = 0;
    cairn_simbus_filter(count_freezes);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    (void)ktest_modules_settle(MODULES);
    assert_int_equal(freeze_to[1], 0);
    assert_int_equal(freeze_to[MODULES], 0); /* no broadcast */
    assert_int_equal(freeze_to[2], 1);
    assert_int_equal(state_to_1, 1);
    assert_int_equal(ktest_migrate_stats(1).frozen, 1);
    assert_int_equal(ktest_migrate_stats(2).frozen, 1);
    assert_log("T@0:ser T@1:deser(0) T@1:q0 T@1:q1 T@1:q2");
    assert_true(ktest_live_on(1, T));
    routes_name(1, -1, 1);
    assert_int_equal(done_outcome, CAIRN_MIG_MOVED);
}

static enum cairn_simbus_fate drop_hellos_of_1(const struct cairn_simbus_wire *w)
{
    if (w->head[0] == CAIRN_NET_KIND_DACK && w->src == 1)
        return CAIRN_SIMBUS_DROP;
    return count_freezes(w);
}

/* Module 1 restarts and its hello is lost: the source's STATE names its earlier epoch and is
 * refused (the migration resumes); the next one sends FREEZE first and moves T. */
static void test_a_state_refused_for_an_old_epoch_makes_freeze_go_first(void **state)
{
    (void)state;
    start_all(1000);
    cairn_simbus_filter(drop_hellos_of_1);
    boot(1, 1000);
    apps(1);
    cairn_simbus_run();
    __builtin_memset(freeze_to, 0, sizeof freeze_to);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    (void)ktest_modules_settle(MODULES);
    assert_int_equal(done_outcome, CAIRN_MIG_RESUMED);
    assert_int_equal(ktest_migrate_stats(1).staged, 0);
    assert_int_equal(freeze_to[MODULES], 0);
    assert_true(ktest_live_on(0, T));
    done_outcome = 0;
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    (void)ktest_modules_settle(MODULES);
    assert_int_equal(freeze_to[MODULES], 1); /* the broadcast: FREEZE went first */
    assert_int_equal(done_outcome, CAIRN_MIG_MOVED);
    assert_true(ktest_live_on(1, T));
    routes_name(1, -1, 1);
}

static unsigned dropped_ack, dropped_state;

static enum cairn_simbus_fate drop_first_freeze_ack_and_state(const struct cairn_simbus_wire *w)
{
    if (w->head[0] != CAIRN_NET_KIND_MIG)
        return CAIRN_SIMBUS_PASS;
    if (w->first == 3 && !dropped_ack++) /* FREEZE_ACK */
        return CAIRN_SIMBUS_DROP;
    if (w->first == 4 && !dropped_state++) /* STATE */
        return CAIRN_SIMBUS_DROP;
    return CAIRN_SIMBUS_PASS;
}

static void test_a_lost_freeze_ack_and_state_frame_are_sent_again(void **state)
{
    (void)state;
    start_all(1000);
    dropped_ack = dropped_state = 0;
    cairn_simbus_filter(drop_first_freeze_ack_and_state);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    unsigned rounds = ktest_modules_settle(MODULES);
    assert_true(dropped_ack >= 2); /* dropped one, saw it again */
    assert_true(dropped_state >= 2);
    assert_true(rounds >= 2);
    assert_log("T@0:ser T@1:deser(0) T@1:q0 T@1:q1 T@1:q2");
    assert_true(ktest_live_on(1, T));
    routes_name(1, -1, 1);
    assert_int_equal(done_outcome, CAIRN_MIG_MOVED);
}

static unsigned state_frames, state_dropped, state_duplicated, state_delayed;

/* Of T's STATE parts (in flight together): the 2nd dropped, the 4th duplicated, the 6th
 * delayed behind the next frame, each once. */
static enum cairn_simbus_fate upset_the_window(const struct cairn_simbus_wire *w)
{
    if (w->head[0] != CAIRN_NET_KIND_MIG || w->first != 4)
        return CAIRN_SIMBUS_PASS;
    switch (++state_frames) {
    case 2:
        state_dropped++;
        return CAIRN_SIMBUS_DROP;
    case 4:
        state_duplicated++;
        return CAIRN_SIMBUS_DUPLICATE;
    case 6:
        state_delayed++;
        return CAIRN_SIMBUS_DELAY;
    default:
        return CAIRN_SIMBUS_PASS;
    }
}

static void test_a_state_of_many_parts_survives_a_lost_a_repeated_and_a_late_part(void **state)
{
    (void)state;
    t_extra = 2000; /* 9 parts of 236 bytes, more than the window */
    start_all(1000);
    state_frames = state_dropped = state_duplicated = state_delayed = 0;
    cairn_simbus_filter(upset_the_window);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    (void)ktest_modules_settle(MODULES);
    assert_int_equal(state_dropped, 1);
    assert_int_equal(state_duplicated, 1);
    assert_int_equal(state_delayed, 1);
    assert_true(state_frames > 9); /* the lost part and those after it sent again */
    assert_log("T@0:ser T@1:deser(0) T@1:q0 T@1:q1 T@1:q2");
    assert_int_equal(t_extra_bad, 0);
    assert_true(ktest_live_on(1, T));
    routes_name(1, -1, 1);
    assert_int_equal(done_outcome, CAIRN_MIG_MOVED);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_STAGED), 1);
}

static unsigned parts_passed, queries_from_1;

/* The source falls silent after the first STATE part (as if reset: nothing more from it). */
static enum cairn_simbus_fate silent_after_the_first_part(const struct cairn_simbus_wire *w)
{
    if (w->src == 1 && w->head[0] == CAIRN_NET_KIND_MIG && w->first == 10) /* QUERY */
        queries_from_1++;
    if (w->src != 0)
        return CAIRN_SIMBUS_PASS;
    if (w->head[0] == CAIRN_NET_KIND_MIG && w->first == 4 && !parts_passed) {
        parts_passed++;
        return CAIRN_SIMBUS_PASS;
    }
    return CAIRN_SIMBUS_DROP;
}

/* Whether module 1's query timer is still to be armed (the host tests' virtual timers do
 * not run: the test fires the migrator's timer itself). */
static bool query_unarmed_on_1(void)
{
    cairn_simbus_select(1);
    return cairn_net.mig->query_unarmed;
}

/* The destination arms its query timer lazily on the parts before the last (they come while it
 * still handles the one before): when it would go idle. A source that falls silent after one
 * part still gets asked. */
static void test_a_destination_left_after_one_part_arms_its_query_timer_when_idle(void **state)
{
    (void)state;
    t_extra = 2000; /* 9 parts */
    start_all(1000);
    parts_passed = queries_from_1 = 0;
    cairn_simbus_filter(silent_after_the_first_part);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    cairn_simbus_run();
    assert_int_equal(parts_passed, 1);
    assert_true(ktest_migrate_stats(1).busy); /* frozen by the part */
    assert_true(query_unarmed_on_1()); /* not armed on a part before the last */
    cairn_idle();                      /* module 1 goes idle */
    assert_false(query_unarmed_on_1()); /* armed there */
    ktest_post_on(1, CAIRN_TASK_NET, CAIRN_PORT_TIMEOUT(CAIRN_MIG_TIMER), 0, 0);
    cairn_simbus_run();
    assert_int_equal(queries_from_1, 1); /* it asks the source (the destination is itself) */
    /* The source answers again: the move goes on and ends. */
    cairn_simbus_filter(0);
    ktest_modules_settle(MODULES);
    assert_true(ktest_live_on(1, T));
    assert_int_equal(t_extra_bad, 0);
    assert_int_equal(done_outcome, CAIRN_MIG_MOVED);
}

static bool staged_answer_seen;

static enum cairn_simbus_fate drop_deserialized(const struct cairn_simbus_wire *w)
{
    if (w->head[0] == CAIRN_NET_KIND_MIG && w->first == 6) { /* DESERIALIZED */
        staged_answer_seen = true;
        return CAIRN_SIMBUS_DROP;
    }
    return CAIRN_SIMBUS_PASS;
}

static void test_a_destination_reset_before_the_commit_resumes(void **state)
{
    (void)state;
    start_all(1000);
    staged_answer_seen = false;
    cairn_simbus_filter(drop_deserialized);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    cairn_simbus_run();
    assert_true(staged_answer_seen);
    assert_int_equal(ktest_migrate_stats(1).staged, 1);
    /* Module 1 is reset: it boots knowing nothing of the migration. */
    cairn_simbus_filter(0);
    boot(1, 1000);
    apps(1);
    ktest_modules_settle(MODULES);
    /* The STATE sent again names module 1's earlier epoch: refused, not staged again. */
    assert_int_equal(ktest_migrate_stats(1).staged, 0);
    assert_int_equal(ktest_migrate_stats(1).frozen, 0);
    assert_log("T@0:ser T@0:q0 T@0:q1 T@0:q2");
    assert_true(ktest_live_on(0, T));
    assert_false(ktest_live_on(1, T));
    routes_name(-1, 0, 0);
    assert_int_equal(done_outcome, CAIRN_MIG_RESUMED);
}

static unsigned commits_dropped;

static enum cairn_simbus_fate drop_commits(const struct cairn_simbus_wire *w)
{
    if (w->head[0] == CAIRN_NET_KIND_MIG && w->first == 7 && w->dst == 1) { /* RESULT */
        commits_dropped++;
        return CAIRN_SIMBUS_DROP;
    }
    return CAIRN_SIMBUS_PASS;
}

/* The source reset after it sent the commit, which was lost: the destination's QUERY finds the
 * source with no record of the migration (NOMIG), so the commit will never come again: it
 * records RESUMED, frees the staged copy and unfreezes; the frozen bystander, whose QUERY the
 * source cannot answer either, gets that outcome from the destination (a QUERY answered). T
 * runs again at its home, from its first state. */
static void test_a_source_reset_after_a_lost_commit_resumes_everywhere(void **state)
{
    (void)state;
    start_all(1000);
    commits_dropped = 0;
    cairn_simbus_filter(drop_commits);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    cairn_simbus_run();
    assert_int_equal(commits_dropped, 1);
    assert_int_equal(ktest_migrate_stats(1).staged, 1);
    assert_true(ktest_migrate_stats(1).busy);
    assert_true(ktest_migrate_stats(2).busy); /* frozen before the commit went */
    /* Module 0 is reset: it boots knowing nothing of the migration. */
    cairn_simbus_filter(0);
    boot(0, 1000);
    apps(0);
    ktest_modules_settle(MODULES);
    assert_false(ktest_migrate_stats(1).busy);
    assert_false(ktest_migrate_stats(2).busy);
    assert_int_equal(ktest_migrate_stats(1).committed, 0);
    assert_true(ktest_live_on(0, T));
    assert_false(ktest_live_on(1, T));
    routes_name(-1, 0, 0);
    cairn_simbus_select(1);
    assert_int_equal(ktest_heap_free(), free_before[1]);
    cairn_simbus_select(0);
}

static void test_a_timer_that_expires_during_the_migration_fires_once_on_arrival(void **state)
{
    (void)state;
    t_initial.timer_ticks = 500;
    host_timer_reset(0);
    setup(0);
    t_initial.timer_ticks = 500;
    /* The pool of virtual timers is the process's: module 0's heap holds it. Retransmission
     * periods far beyond the test's time, so only T's timer fires. */
    cairn_simbus_select(0);
    cairn_heap_init(arena[0], ARENA);
    for (unsigned m = 0; m < MODULES; m++)
        boot(m, 1000000);
    cairn_simbus_select(0);
    assert_int_equal(cairn_timer_init(), CAIRN_OK);
    for (unsigned m = 0; m < MODULES; m++)
        apps(m);
    cairn_simbus_run();
    klog_reset();
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0); /* T frozen and serialised: its timer stopped here */
    cairn_simbus_select(0);
    host_timer_advance(600); /* the deadline passes during the migration */
    cairn_simbus_select(1);
    ktest_modules_settle(MODULES);
    assert_log("T@0:ser T@1:deser(0) T@1:q0 T@1:q1 T@1:q2 T@1:T0");
    cairn_simbus_select(1);
    host_timer_advance(2000);
    assert_log("T@0:ser T@1:deser(0) T@1:q0 T@1:q1 T@1:q2 T@1:T0");
    assert_int_equal(done_outcome, CAIRN_MIG_MOVED);
}

static unsigned requests_on_wire;

/* Counts REQUEST frames; past a bound it drops them, so that a loop ends the test. */
static enum cairn_simbus_fate count_requests(const struct cairn_simbus_wire *w)
{
    if (w->head[0] != CAIRN_NET_KIND_MIG || w->first != 1)
        return CAIRN_SIMBUS_PASS;
    return ++requests_on_wire > 20 ? CAIRN_SIMBUS_DROP : CAIRN_SIMBUS_PASS;
}

static void name_module(unsigned m, uint8_t module)
{
    cairn_simbus_select(m);
    assert_int_equal(cairn_task_remove_remote(T), CAIRN_OK);
    assert_int_equal(cairn_task_create_remote(T, 2, module), CAIRN_OK);
}

/* Modules 1 and 2 each name the other as T's (as after a restart with the first routes):
 * the REQUEST goes on no further than there are modules, and is refused, T untouched. */
static void test_a_request_between_routes_that_name_each_other_is_refused(void **state)
{
    (void)state;
    start_all(1000);
    name_module(1, 2);
    name_module(2, 1);
    requests_on_wire = 0;
    cairn_simbus_filter(count_requests);
    cairn_simbus_select(1);
    assert_int_equal(cairn_migrate(T, 0), CAIRN_OK);
    ktest_modules_settle(MODULES);
    assert_int_equal(requests_on_wire, 2); /* 1 -> 2, forwarded 2 -> 1 */
    assert_int_equal(ktest_migrate_stats(1).refused, 1);
    assert_int_equal(ktest_migrate_stats(2).refused, 0);
    assert_int_equal(ktest_migrate_stats(0).requests, 0);
    assert_true(ktest_live_on(0, T));
    assert_log("");
}

/* The migrator's frames reach it without the bus manager's service when they come alone
 * (bus_manager.c, "a migrator frame without the service"), through the service when other
 * frames wait behind them, and a malformed one is the service's to drop: the answers are the
 * same. A QUERY about a migration module 1 numbered and has no record of gets NOMIG. */
static unsigned nomig_on_wire;

static enum cairn_simbus_fate count_nomig(const struct cairn_simbus_wire *w)
{
    nomig_on_wire += w->src == 1 && w->head[0] == CAIRN_NET_KIND_MIG && w->first == F_NOMIG;
    return CAIRN_SIMBUS_PASS;
}

static unsigned nomig_from_1(void)
{
    return nomig_on_wire;
}

static void inject_query(uint8_t len_field)
{
    const uint8_t f[CAIRN_NET_HEADER + 3] = {
        CAIRN_NET_KIND_MIG, 0, CAIRN_TASK_NET, 0, 0, 0, 0, 0, len_field, 0, F_QUERY, 1, 200};
    cairn_simbus_inject(1, 0, f, sizeof f);
}

static void test_migration_frames_alone_or_behind_each_other_get_the_same_answers(void **state)
{
    (void)state;
    start_all(1000);
    nomig_on_wire = 0;
    cairn_simbus_filter(count_nomig);
    inject_query(3);
    cairn_simbus_run();
    assert_int_equal(nomig_from_1(), 1);
    inject_query(3);
    inject_query(3);
    cairn_simbus_run();
    assert_int_equal(nomig_from_1(), 3);
    assert_int_equal(ktest_migrate_stats(1).frames_rx, 3);
    cairn_net_stats_t st;
    cairn_simbus_select(1);
    cairn_net_stats(&st);
    uint32_t bad = st.rx_bad;
    inject_query(4); /* its length field disagrees with the frame's */
    cairn_simbus_run();
    cairn_simbus_select(1);
    cairn_net_stats(&st);
    assert_int_equal(st.rx_bad, bad + 1);
    assert_int_equal(nomig_from_1(), 3);
    inject_query(3); /* the line served again, nothing left half read */
    cairn_simbus_run();
    assert_int_equal(nomig_from_1(), 4);
    assert_int_equal(ktest_migrate_stats(1).frames_rx, 4);
    assert_true(ktest_live_on(0, T));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        MTEST(test_a_move_delivers_every_message_once_in_order_at_the_destination),
        MTEST(test_a_failed_deserialisation_resumes_with_every_module_as_before),
        MTEST(test_the_state_goes_first_when_the_destination_epoch_is_known),
        MTEST(test_a_state_refused_for_an_old_epoch_makes_freeze_go_first),
        MTEST(test_a_lost_freeze_ack_and_state_frame_are_sent_again),
        MTEST(test_a_state_of_many_parts_survives_a_lost_a_repeated_and_a_late_part),
        MTEST(test_a_destination_reset_before_the_commit_resumes),
        MTEST(test_a_source_reset_after_a_lost_commit_resumes_everywhere),
        MTEST(test_a_destination_left_after_one_part_arms_its_query_timer_when_idle),
        MTEST(test_a_timer_that_expires_during_the_migration_fires_once_on_arrival),
        MTEST(test_a_request_between_routes_that_name_each_other_is_refused),
        MTEST(test_migration_frames_alone_or_behind_each_other_get_the_same_answers),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
