/*
 * The commit on staging (docs/migration.md, step 7): on a device of two modules the last STATE
 * part carries the commit, the destination makes the task live as soon as it has staged it and
 * answers ACTIVATED, with no DESERIALIZED → RESULT(MOVED) round trip. Module 0 holds the
 * movable task T and moves it to module 1.
 *
 * The move itself (no DESERIALIZED, no commit frame), with the STATE first and with FREEZE
 * first (D's epoch not known: its FREEZE_ACK says it); its ACTIVATED lost (the source sends the
 * part again, the destination answers again and stages nothing twice); the destination reset
 * before the part came (its record, kept across the reset, proves it did not commit:
 * RESUMED), the same with its record lost (nothing proves it: KILLED) and after it committed
 * (KILLED, never resumed); the destination's staging failing (RESUMED, and the migration is never staged
 * there again, even from a copy of the part that comes late); a destination in another
 * migration (it refuses, and S may resume). The test fires the bus managers' timers itself.
 */
#include <string.h>

#include "ktest.h"
#include "modules.h"

#include "../../core/net/migrator_state.h" /* the frame kinds, MIG_PART_COMMIT */
#include "../../core/net/net.h"

#define MODULES 2
#define ARENA (16 * 1024)
#define T 2      /* movable, on module 0 */
#define PUSHER 3 /* on module 0: queues messages for T, then asks for the move */

static uint8_t arena[MODULES][ARENA];
static size_t free_before[MODULES];
static bool handler_known[MODULES];

struct tstate {
    uint32_t handled;
};

static cairn_ret_t t_handler(void *state, cairn_msg_t *msg)
{
    struct tstate *s = state;
    unsigned here = cairn_net_address();
    switch (msg->port) {
    case CAIRN_PORT_INIT:
    case CAIRN_PORT_FINAL:
        break;
    case CAIRN_PORT_SERIALIZE: {
        struct tstate *b = cairn_malloc(sizeof *b);
        assert_non_null(b);
        *b = *s;
        assert_int_equal(cairn_migrate_state(b, sizeof *b), CAIRN_OK);
        klog("T@%u:ser", here);
        break;
    }
    case CAIRN_PORT_DESERIALIZE:
        klog("T@%u:deser(%u)", here, (unsigned)s->handled);
        break;
    default:
        s->handled++;
        klog("T@%u:%.*s", here, (int)msg->len, (const char *)msg->payload);
    }
    return CAIRN_OK;
}

static const cairn_migrate_task_t movable[] = {{T, t_handler}};

static cairn_ret_t pusher(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT(0))
        return CAIRN_OK;
    static const char *const q[2] = {"q0", "q1"}; /* queued: T is below the pusher */
    for (unsigned i = 0; i < 2; i++)
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

static void boot(unsigned m)
{
    ktest_module_boot(m, arena[m], ARENA);
    cairn_migrate_config_t cfg = {.tasks = movable, .count = handler_known[m] ? 1 : 0,
                                  .retransmit_ticks = 1000, .tries = 3, .hw_hz = 1000000,
                                  .done = done};
    assert_int_equal(cairn_migrate_start(&cfg), CAIRN_OK);
}

static void apps(unsigned m)
{
    cairn_simbus_select(m);
    if (m == 0) {
        static struct tstate st;
        st = (struct tstate){0};
        assert_int_equal(cairn_task_create(T, t_handler, &st, 2, 0, 0, CAIRN_TASK_MOVABLE), CAIRN_OK);
        assert_int_equal(cairn_task_init(T, 0, 0), CAIRN_OK);
        cairn_route_t r = CAIRN_ROUTE(T, CAIRN_PORT(0));
        assert_int_equal(cairn_task_create(PUSHER, pusher, 0, 5, &r, 1, 0), CAIRN_OK);
        assert_int_equal(cairn_task_init(PUSHER, 0, 0), CAIRN_OK);
    } else {
        assert_int_equal(cairn_task_create_remote(T, 2, 0), CAIRN_OK);
    }
    assert_int_equal(cairn_net_start(), CAIRN_OK);
}

/* A module's new life: it boots knowing nothing of the migration (its epoch is one more). */
static void reset(unsigned m)
{
    boot(m);
    apps(m);
    cairn_simbus_run();
    cairn_simbus_select(m);
    free_before[m] = ktest_heap_free();
    cairn_simbus_select(0);
}

static void start_all(void)
{
    for (unsigned m = 0; m < MODULES; m++)
        boot(m);
    for (unsigned m = 0; m < MODULES; m++)
        apps(m);
    cairn_simbus_run();
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        free_before[m] = ktest_heap_free();
    }
    cairn_simbus_select(0);
    klog_reset();
}

/* Migration frames of each kind that went over the wire, by direction (0: 0 → 1, 1: 1 → 0),
 * and which the filter drops: the first `drop_n` of kind `drop_kind` from module `drop_from`. */
static unsigned seen[2][16];
static uint8_t drop_kind, drop_from;
static unsigned drop_n;
static bool hellos_of_1_lost; /* module 1's DACKs (its hello among them) dropped */

static enum cairn_simbus_fate watch(const struct cairn_simbus_wire *w)
{
    if (hellos_of_1_lost && w->head[0] == CAIRN_NET_KIND_DACK && w->src == 1)
        return CAIRN_SIMBUS_DROP;
    if (w->head[0] != CAIRN_NET_KIND_MIG || w->first >= 16 || w->src >= MODULES)
        return CAIRN_SIMBUS_PASS;
    seen[w->src][w->first]++;
    if (w->first == drop_kind && w->src == drop_from && drop_n) {
        drop_n--;
        return CAIRN_SIMBUS_DROP;
    }
    return CAIRN_SIMBUS_PASS;
}

static void drop(uint8_t from, uint8_t kind, unsigned n)
{
    drop_from = from;
    drop_kind = kind;
    drop_n = n;
}

static int setup(void **state)
{
    (void)state;
    cairn_simbus_reset(MODULES, 4);
    memset(seen, 0, sizeof seen);
    drop(0, 0, 0);
    hellos_of_1_lost = false;
    cairn_simbus_filter(watch);
    for (unsigned m = 0; m < MODULES; m++)
        handler_known[m] = true;
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

static void heap_as_before(unsigned m)
{
    cairn_simbus_select(m);
    assert_int_equal(ktest_heap_free(), free_before[m]);
    cairn_simbus_select(0);
}

static void move(void)
{
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0); /* q0, q1 queued for T, then REQUEST */
    cairn_simbus_run();
}

/* The source's timer fires, and the bus runs. */
static void source_tick(void)
{
    ktest_module_tick(0);
    cairn_simbus_run();
}

static void test_the_last_part_commits_on_staging(void **state)
{
    (void)state;
    start_all();
    move();
    ktest_modules_settle(MODULES);
    assert_int_equal(done_outcome, CAIRN_MIG_MOVED);
    assert_true(ktest_live_on(1, T));
    assert_false(ktest_live_on(0, T));
    assert_log("T@0:ser T@1:deser(0) T@1:q0 T@1:q1");
    /* STATE, then ACTIVATED: neither DESERIALIZED nor the commit crossed the bus. The one
     * RESULT is the source's MOVED to the others after ACTIVATED, which D, which hears the
     * broadcast too, answers with ACTIVATED again (as after a commit). */
    assert_int_equal(seen[0][F_STATE], 1);
    assert_int_equal(seen[1][F_ACTIVATED], 2);
    assert_int_equal(seen[1][F_DESERIALIZED], 0);
    assert_int_equal(seen[0][F_RESULT], 1);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_STAGED), 1);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_COMMITTED), 1);
    assert_int_equal(ktest_migrate_stats(0).moved, 1);
    assert_int_equal(ktest_migrate_stats(0).retransmits, 0);
}

static void test_a_lost_activated_is_answered_again_without_a_second_staging(void **state)
{
    (void)state;
    start_all();
    drop(1, F_ACTIVATED, 5); /* the first and the answers to four parts sent again */
    move();
    assert_true(ktest_live_on(1, T)); /* committed at D */
    /* S waits, as after the commit: its timer sends the part again, and it never resumes T,
     * however many tries (3) pass. */
    for (unsigned i = 0; i < 4; i++) {
        source_tick();
        assert_true(ktest_migrate_stats(0).busy);
        assert_int_equal(ktest_migrate_stats(0).resumed, 0);
    }
    ktest_modules_settle(MODULES);
    assert_int_equal(done_outcome, CAIRN_MIG_MOVED);
    assert_true(seen[0][F_STATE] >= 6);
    assert_int_equal(seen[1][F_ACTIVATED], seen[0][F_STATE] + 1); /* + the broadcast's */
    assert_int_equal(seen[1][F_DESERIALIZED], 0);
    assert_int_equal(ktest_migrate_stats(1).staged, 1);
    assert_int_equal(ktest_migrate_stats(1).committed, 1);
    assert_int_equal(ktest_migrate_stats(0).resumed, 0);
    assert_int_equal(ktest_migrate_stats(0).moved, 1);
    assert_log("T@0:ser T@1:deser(0) T@1:q0 T@1:q1");
    assert_true(ktest_live_on(1, T));
    assert_false(ktest_live_on(0, T));
}

/* S does not know D's epoch (D's hello lost): FREEZE goes first, D's FREEZE_ACK says its
 * epoch, and the STATE, sent when D (the only other module) is frozen, carries the commit. */
static void test_the_state_carries_the_commit_when_freeze_went_first(void **state)
{
    (void)state;
    hellos_of_1_lost = true;
    start_all();
    move();
    ktest_modules_settle(MODULES);
    assert_int_equal(done_outcome, CAIRN_MIG_MOVED);
    assert_int_equal(seen[0][F_FREEZE], 1);
    assert_int_equal(seen[1][F_FREEZE_ACK], 1);
    assert_int_equal(seen[0][F_STATE], 1);
    assert_int_equal(seen[1][F_DESERIALIZED], 0);
    assert_int_equal(seen[0][F_RESULT], 1); /* MOVED to the others, after ACTIVATED */
    assert_int_equal(ktest_migrate_stats(1).committed, 1);
    assert_log("T@0:ser T@1:deser(0) T@1:q0 T@1:q1");
    assert_true(ktest_live_on(1, T));
    assert_false(ktest_live_on(0, T));
}

/* D reset; the source's timer fires until it has D's answer. */
static void reset_d_and_settle(void)
{
    reset(1);
    for (unsigned i = 0; i < 4; i++)
        source_tick();
    ktest_modules_settle(MODULES);
}

/* The move, its part with the commit lost on the way to D; then D reset (its retained RAM lost
 * first, as by a power loss, when record_lost). */
static void move_losing_the_part_and_reset_d(bool record_lost)
{
    start_all();
    drop(0, F_STATE, 1);
    move();
    assert_true(ktest_migrate_stats(0).busy);
    if (record_lost)
        cairn_simbus_lose_retained(1, 0xA5);
    reset_d_and_settle();
}

/* The part with the commit went to D's earlier life, lost on the way: D's record, kept across
 * the reset, proves that life never committed it, so D answers "failed" and S resumes T. */
static void test_a_destination_reset_before_the_last_part_resumes(void **state)
{
    (void)state;
    move_losing_the_part_and_reset_d(false);
    assert_int_equal(done_outcome, CAIRN_MIG_RESUMED);
    assert_int_equal(ktest_migrate_stats(0).killed, 0);
    assert_int_equal(ktest_migrate_stats(1).staged, 0);
    assert_int_equal(ktest_migrate_stats(1).frozen, 0);
    assert_true(ktest_live_on(0, T));
    assert_false(ktest_live_on(1, T));
    assert_log("T@0:ser T@0:q0 T@0:q1");
    heap_as_before(1);
}

/* The same reset with D's retained RAM lost (a power loss): nothing proves D's earlier life
 * did not commit, so S kills T rather than resume a copy that may be older than what ran. */
static void test_a_destination_that_lost_its_record_kills(void **state)
{
    (void)state;
    move_losing_the_part_and_reset_d(true);
    assert_int_equal(done_outcome, CAIRN_MIG_KILLED);
    assert_int_equal(ktest_migrate_stats(0).killed, 1);
    assert_int_equal(ktest_migrate_stats(0).resumed, 0);
    assert_int_equal(ktest_migrate_stats(1).staged, 0);
    assert_false(ktest_live_on(0, T));
    assert_false(ktest_live_on(1, T));
    assert_log("T@0:ser");
    heap_as_before(1);
}

static void test_a_destination_reset_after_it_committed_kills(void **state)
{
    (void)state;
    start_all();
    drop(1, F_ACTIVATED, 1);
    move();
    assert_true(ktest_live_on(1, T));
    reset_d_and_settle(); /* T, live there, is lost with it */
    assert_int_equal(done_outcome, CAIRN_MIG_KILLED);
    assert_int_equal(ktest_migrate_stats(0).resumed, 0);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_COMMITTED), 1);
    assert_false(ktest_live_on(0, T));
    assert_false(ktest_live_on(1, T));
    assert_log("T@0:ser T@1:deser(0) T@1:q0 T@1:q1");
}

/* Part 0 of one part, with the commit, of migration ctr of module 0, as module 0's migrator
 * sends it (head then one byte: no staging could take it). */
static void inject_part_of(uint8_t ctr, uint8_t epoch, cairn_task_id_t task)
{
    const uint8_t f[CAIRN_NET_HEADER + 9] = {
        CAIRN_NET_KIND_MIG, 0, CAIRN_TASK_NET, 0, 0, 0, 0, 0, 9, 0,
        F_STATE, 0, ctr, 0, 1, epoch, task, MIG_PART_COMMIT, 0};
    cairn_simbus_inject(1, 0, f, sizeof f);
}

static void inject_part(uint8_t ctr, uint8_t epoch)
{
    inject_part_of(ctr, epoch, T);
}

static uint8_t epoch_of(unsigned m)
{
    cairn_simbus_select(m);
    uint8_t e = cairn_net.rel->epoch;
    cairn_simbus_select(0);
    return e;
}

static uint8_t counter_of(unsigned m)
{
    cairn_simbus_select(m);
    uint8_t c = cairn_net.mig->counter;
    cairn_simbus_select(0);
    return c;
}

static void test_a_failed_staging_resumes_and_is_never_staged_again(void **state)
{
    (void)state;
    handler_known[1] = false; /* module 1 cannot make T's TCB: the staging fails */
    start_all();
    move();
    ktest_modules_settle(MODULES);
    assert_int_equal(done_outcome, CAIRN_MIG_RESUMED);
    assert_int_equal(seen[1][F_DESERIALIZED], 1);
    assert_int_equal(ktest_migrate_stats(1).stage_failed, 1);
    assert_true(ktest_live_on(0, T));
    assert_false(ktest_live_on(1, T));
    assert_log("T@0:ser T@0:q0 T@0:q1");
    heap_as_before(0);
    heap_as_before(1);
    /* A copy of the part that comes late: refused without joining, answered failed. */
    unsigned frozen = ktest_migrate_stats(1).frozen;
    inject_part(counter_of(0), epoch_of(1));
    cairn_simbus_run();
    assert_int_equal(ktest_migrate_stats(1).frozen, frozen);
    assert_int_equal(seen[1][F_DESERIALIZED], 2);
    assert_true(ktest_modules_quiet(MODULES));
    assert_true(ktest_live_on(0, T));
}

/* A part with the commit that names the migration D committed but another task (its source
 * was reset since and numbers its migrations from 1 again): not taken for a repeat of the
 * commit, whose ACTIVATED(yes) would make the source give up a task D never received. */
static void test_a_part_of_another_task_under_a_committed_number_is_refused(void **state)
{
    (void)state;
    start_all();
    move();
    ktest_modules_settle(MODULES);
    assert_true(ktest_live_on(1, T));
    unsigned activated = seen[1][F_ACTIVATED], refused = seen[1][F_DESERIALIZED];
    inject_part_of(counter_of(0), epoch_of(1), T + 5);
    cairn_simbus_run();
    assert_int_equal(seen[1][F_ACTIVATED], activated);
    assert_int_equal(seen[1][F_DESERIALIZED], refused + 1);
    assert_true(ktest_live_on(1, T));
}

/* D powered off before the part with the commit could be written: the part never left S (the
 * controller refuses a powered-off destination), so D cannot have committed and S gives T up
 * after its tries as before the commit on staging: RESUMED, not frozen for good. */
static void test_a_part_with_the_commit_never_written_lets_the_source_resume(void **state)
{
    (void)state;
    start_all();
    cairn_simbus_select(0);
    assert_int_equal(cairn_net_power(1, false), CAIRN_OK);
    move();
    for (unsigned i = 0; i < 6; i++)
        source_tick();
    ktest_modules_settle(MODULES);
    assert_int_equal(done_outcome, CAIRN_MIG_RESUMED);
    assert_int_equal(ktest_migrate_stats(0).killed, 0);
    assert_true(ktest_live_on(0, T));
    assert_log("T@0:ser T@0:q0 T@0:q1");
    cairn_simbus_select(0);
    assert_int_equal(cairn_net_power(1, true), CAIRN_OK);
}

/* Module 1 is the destination of another migration (a FREEZE of module 0's counter 200 that
 * module 0 has no record of): it refuses the part and never joins that migration later, so
 * S may resume T. */
static void test_a_destination_in_another_migration_refuses_and_the_source_resumes(void **state)
{
    (void)state;
    start_all();
    const uint8_t fz[CAIRN_NET_HEADER + 5] = {
        CAIRN_NET_KIND_MIG, 0, CAIRN_TASK_NET, 0, 0, 0, 0, 0, 5, 0, F_FREEZE, 0, 200, T, 1};
    cairn_simbus_inject(1, 0, fz, sizeof fz);
    cairn_simbus_run();
    assert_true(ktest_migrate_stats(1).busy);
    move();
    assert_int_equal(ktest_migrate_stats(0).resumed, 1);
    assert_true(ktest_live_on(0, T));
    assert_int_equal(ktest_migrate_stats(1).staged, 0);
    ktest_modules_settle(MODULES); /* module 1 asks module 0 and leaves the other one */
    assert_int_equal(done_outcome, CAIRN_MIG_RESUMED);
    assert_false(ktest_migrate_stats(1).busy);
    unsigned frozen = ktest_migrate_stats(1).frozen;
    inject_part(counter_of(0), epoch_of(1)); /* the part again, now that module 1 is free */
    cairn_simbus_run();
    assert_int_equal(ktest_migrate_stats(1).frozen, frozen);
    assert_true(ktest_live_on(0, T));
    assert_false(ktest_live_on(1, T));
    assert_log("T@0:ser T@0:q0 T@0:q1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        MTEST(test_the_last_part_commits_on_staging),
        MTEST(test_the_state_carries_the_commit_when_freeze_went_first),
        MTEST(test_a_lost_activated_is_answered_again_without_a_second_staging),
        MTEST(test_a_destination_reset_before_the_last_part_resumes),
        MTEST(test_a_destination_that_lost_its_record_kills),
        MTEST(test_a_destination_reset_after_it_committed_kills),
        MTEST(test_a_failed_staging_resumes_and_is_never_staged_again),
        MTEST(test_a_part_of_another_task_under_a_committed_number_is_refused),
        MTEST(test_a_part_with_the_commit_never_written_lets_the_source_resume),
        MTEST(test_a_destination_in_another_migration_refuses_and_the_source_resumes),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
