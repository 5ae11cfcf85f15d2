/*
 * The task migrator's outcomes other than MOVED and its plain RESUMED (docs/migration.md,
 * "State machines" and "Under each failure"), on the host port's simulated bus: three
 * modules; the movable task T lives on module 0 and moves to module 1, module 2 sends to it;
 * a second movable task U lives on module 2 and starts a migration of its own.
 *
 * KILLED: the destination reset after the commit was sent answers ACTIVATED(no); T is on no
 * module, the routes unchanged. A busy FREEZE_ACK: a bystander in another migration makes
 * the source resume, every message to T still handled once, in order; the other migration
 * and a retry then move. The refusals: at the source (no such task, not movable, to itself,
 * to no module, being killed; one REQUEST waits while the source is migrating, a second is
 * refused) and at the destination (no room for the
 * state, already in another migration; the retry, FREEZE first, then meets busy
 * FREEZE_ACKs), each leaving every module as before. A task killed at the source while it
 * is moved is not committed: KILLED. The test
 * fires the bus managers' timers itself (a TIMEOUT message).
 */
#include <string.h>

#include "ktest.h"
#include "modules.h"

#define MODULES 3
#define ARENA (16 * 1024)
#define SENDER 1 /* on module 2 */
#define T 2      /* movable, on module 0 */
#define PUSHER 3 /* on module 0: queues messages for T, then asks for the move */
#define U 4      /* movable, on module 2 */
#define NOBODY 9 /* a task on no module */
#define PORT_KILL_AND_MOVE CAIRN_PORT(1)
#define PORT_MOVE_SELF CAIRN_PORT(2)

static uint8_t arena[MODULES][ARENA];
static size_t free_before[MODULES];

/* ---- the movable tasks: a count of what they handled, logged with where ---- */

struct tstate {
    uint32_t handled;
};
/* Bytes after the count in the serialised block: a state of several STATE parts. */
static unsigned t_extra;
/* A movable task asks for its own move to module 1 from its INIT handler. */
static bool move_at_init;

static const char *name_of(cairn_task_id_t id)
{
    return id == T ? "T" : "U";
}

static cairn_ret_t movable_handler(void *state, cairn_msg_t *msg)
{
    struct tstate *s = state;
    const char *me = name_of(cairn_current_task());
    unsigned here = cairn_net_address();
    switch (msg->port) {
    case CAIRN_PORT_INIT:
        if (move_at_init)
            assert_int_equal(cairn_migrate(cairn_current_task(), 1), CAIRN_OK);
        break;
    case CAIRN_PORT_SERIALIZE: {
        uint8_t *b = cairn_malloc(sizeof *s + t_extra);
        assert_non_null(b);
        __builtin_memcpy(b, s, sizeof *s);
        __builtin_memset(b + sizeof *s, 0x5A, t_extra);
        assert_int_equal(cairn_migrate_state(b, sizeof *s + t_extra), CAIRN_OK);
        klog("%s@%u:ser", me, here);
        break;
    }
    case CAIRN_PORT_FINAL:
        klog("%s@%u:final", me, here);
        break;
    case CAIRN_PORT_DESERIALIZE:
        klog("%s@%u:deser(%u)", me, here, (unsigned)s->handled);
        break;
    case PORT_KILL_AND_MOVE:
        /* Killed while it runs (finished when this handler returns), then asked to move. */
        assert_int_equal(cairn_task_kill(cairn_current_task()), CAIRN_OK);
        assert_int_equal(cairn_migrate(cairn_current_task(), 1), CAIRN_OK);
        klog("%s@%u:killed", me, here);
        break;
    case PORT_MOVE_SELF:
        /* Asks for its own move while it runs: the REQUEST finds it on the stack. */
        assert_int_equal(cairn_migrate(cairn_current_task(), 1), CAIRN_OK);
        klog("%s@%u:move", me, here);
        break;
    default:
        s->handled++;
        klog("%s@%u:%.*s", me, here, (int)msg->len, (const char *)msg->payload);
    }
    return CAIRN_OK;
}

static const cairn_migrate_task_t movable[] = {{T, movable_handler}, {U, movable_handler}};

static cairn_ret_t pusher(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT(0))
        return CAIRN_OK;
    static const char *const q[3] = {"q0", "q1", "q2"}; /* queued: T is below the pusher */
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(cairn_send(0, q[i], 2), CAIRN_OK);
    assert_int_equal(cairn_migrate(T, 1), CAIRN_OK);
    return CAIRN_OK;
}

/* The outcome each task's source reported last (0: none yet). */
static uint8_t done_of[CAIRN_MAX_TASKS + 1];
static void done(cairn_task_id_t task, uint8_t module, uint8_t outcome)
{
    (void)module;
    done_of[task] = outcome;
}

static void boot(unsigned m)
{
    ktest_module_boot(m, arena[m], ARENA);
    cairn_migrate_config_t cfg = {.tasks = movable, .count = 2, .retransmit_ticks = 1000,
                                  .tries = 3, .hw_hz = 1000000, .done = done};
    assert_int_equal(cairn_migrate_start(&cfg), CAIRN_OK);
}

static void apps(unsigned m)
{
    cairn_simbus_select(m);
    if (m == 0) {
        static struct tstate st;
        st = (struct tstate){0};
        assert_int_equal(cairn_task_create(T, movable_handler, &st, 2, 0, 0, CAIRN_TASK_MOVABLE),
                         CAIRN_OK);
        assert_int_equal(cairn_task_init(T, 0, 0), CAIRN_OK);
        cairn_route_t r = CAIRN_ROUTE(T, CAIRN_PORT(0));
        assert_int_equal(cairn_task_create(PUSHER, pusher, 0, 5, &r, 1, 0), CAIRN_OK);
        assert_int_equal(cairn_task_init(PUSHER, 0, 0), CAIRN_OK);
    } else {
        assert_int_equal(cairn_task_create_remote(T, 2, 0), CAIRN_OK);
    }
    if (m == 2) {
        static struct tstate su;
        su = (struct tstate){0};
        assert_int_equal(cairn_task_create(U, movable_handler, &su, 2, 0, 0, CAIRN_TASK_MOVABLE),
                         CAIRN_OK);
        assert_int_equal(cairn_task_init(U, 0, 0), CAIRN_OK);
        static struct rec s;
        s = (struct rec){.name = "S"};
        rec_task_uninit(SENDER, &s, 1, 1);
        assert_int_equal(cairn_route_set(SENDER, 0, T, CAIRN_PORT(0)), CAIRN_OK);
        assert_int_equal(cairn_task_init(SENDER, 0, 0), CAIRN_OK);
    } else {
        assert_int_equal(cairn_task_create_remote(U, 2, 2), CAIRN_OK);
        if (m == 0)
            assert_int_equal(cairn_task_create_remote(SENDER, 1, 2), CAIRN_OK);
    }
    assert_int_equal(cairn_net_start(), CAIRN_OK);
}

static void measure_heaps(void)
{
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        free_before[m] = ktest_heap_free();
    }
    cairn_simbus_select(0);
}

static void start_all(void)
{
    for (unsigned m = 0; m < MODULES; m++)
        boot(m);
    for (unsigned m = 0; m < MODULES; m++)
        apps(m);
    cairn_simbus_run();
    measure_heaps();
    klog_reset();
}

static int setup(void **state)
{
    (void)state;
    cairn_simbus_reset(MODULES, 4);
    cairn_simbus_filter(0);
    t_extra = 0;
    move_at_init = false;
    memset(done_of, 0, sizeof done_of);
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

static void migrate_on(unsigned m, cairn_task_id_t task, uint8_t to)
{
    cairn_simbus_select(m);
    assert_int_equal(cairn_migrate(task, to), CAIRN_OK);
}

/* Where each module's routes send task's messages (-1: it lives there, or nowhere). */
static void routes_name(cairn_task_id_t task, int m0, int m1, int m2)
{
    int want[MODULES] = {m0, m1, m2};
    for (unsigned m = 0; m < MODULES; m++) {
        cairn_simbus_select(m);
        assert_int_equal(cairn_task_module(task), want[m]);
    }
    cairn_simbus_select(0);
}

static void heap_as_before(unsigned m)
{
    cairn_simbus_select(m);
    assert_int_equal(ktest_heap_free(), free_before[m]);
    cairn_simbus_select(0);
}

/* T lives on exactly the module `at`, and no module is in a migration. */
static void t_only_on(unsigned at)
{
    for (unsigned m = 0; m < MODULES; m++)
        assert_int_equal(ktest_live_on(m, T), m == at);
    assert_true(ktest_modules_quiet(MODULES));
}

static void count_owned(void *payload, size_t usable, cairn_task_id_t owner, bool used, void *ctx)
{
    (void)payload;
    (void)usable;
    struct { cairn_task_id_t id; unsigned n; } *c = ctx;
    c->n += used && owner == c->id;
}

/* Live heap blocks of the selected module that task owns. */
static unsigned blocks_owned_by(cairn_task_id_t task)
{
    struct { cairn_task_id_t id; unsigned n; } c = {task, 0};
    cairn_heap_walk(count_owned, &c);
    return c.n;
}

static bool mig_frame(const struct cairn_simbus_wire *w, uint8_t kind)
{
    return w->head[0] == CAIRN_NET_KIND_MIG && w->first == kind;
}

/* Frame kinds (docs/migration.md, "Frames"). */
enum { F_FREEZE = 2, F_FREEZE_ACK, F_STATE, F_STATE_ACK, F_DESERIALIZED, F_RESULT, F_ACTIVATED };

/* S's RESULT goes unanswered by a module in another migration (it is in none of S's) until
 * S gives it up after its tries. */
static void until_0_gives_up(void)
{
    for (unsigned i = 0; i < 5 && ktest_migrate_stats(0).busy; i++) {
        ktest_module_tick(0);
        cairn_simbus_run();
    }
    assert_false(ktest_migrate_stats(0).busy);
}

/* ---- KILLED ---------------------------------------------------------------------------------- */

static unsigned commits_dropped;

static enum cairn_simbus_fate drop_the_commit(const struct cairn_simbus_wire *w)
{
    if (mig_frame(w, F_RESULT) && w->src == 0 && w->dst == 1) {
        commits_dropped++;
        return CAIRN_SIMBUS_DROP;
    }
    return CAIRN_SIMBUS_PASS;
}

/* D staged T, S sent the commit, D was reset before it answered: the commit sent again
 * finds no record at D, which answers ACTIVATED(no). T may have run on D, so S does not
 * resume its copy: T is on no module, every route as before, every message to it dropped. */
static void test_a_destination_reset_after_the_commit_kills_the_task(void **state)
{
    (void)state;
    start_all();
    commits_dropped = 0;
    cairn_simbus_filter(drop_the_commit);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    send_from_2("b0"); /* held at module 2 while T is frozen */
    cairn_simbus_run();
    assert_int_equal(commits_dropped, 1);
    assert_int_equal(ktest_migrate_stats(1).staged, 1);
    assert_int_equal(ktest_migrate_stats(1).committed, 0);
    cairn_simbus_filter(0);
    boot(1);
    apps(1);
    cairn_simbus_run();
    cairn_simbus_select(1);
    free_before[1] = ktest_heap_free();
    ktest_modules_settle(MODULES);
    assert_int_equal(done_of[T], CAIRN_MIG_KILLED);
    assert_int_equal(ktest_migrate_stats(0).killed, 1);
    assert_int_equal(ktest_migrate_stats(0).moved, 0);
    assert_int_equal(ktest_migrate_stats(0).resumed, 0);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_KILLED), 1);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_COMMITTED), 0);
    assert_log("T@0:ser"); /* neither q0..q2 nor b0 ran anywhere */
    for (unsigned m = 0; m < MODULES; m++)
        assert_false(ktest_live_on(m, T));
    cairn_simbus_select(0);
    assert_false(cairn_task_exists(T));
    routes_name(T, -1, 0, 0); /* unchanged: a message to T finds no task */
    assert_true(ktest_modules_quiet(MODULES));
    heap_as_before(1);
    heap_as_before(2);
    /* S holds nothing of T's (the blocks T owned before the move are freed with it). */
    cairn_simbus_select(0);
    assert_true(ktest_heap_free() >= free_before[0]);
    assert_int_equal(blocks_owned_by(T), 0);
    /* Module 2 is unfrozen: its sender's later message goes, and finds no task. */
    send_from_2("c0");
    ktest_modules_settle(MODULES);
    assert_log("T@0:ser");
}

static enum cairn_simbus_fate hold_the_answer_of_1(const struct cairn_simbus_wire *w)
{
    return w->src == 1 && mig_frame(w, F_DESERIALIZED) ? CAIRN_SIMBUS_DROP : CAIRN_SIMBUS_PASS;
}

/* T is killed at S while it is being moved (D staged it, the commit not yet sent): the kill
 * wins. S does not commit: it tells every module KILLED, D frees its staged copy, T is on no
 * module, every route as before, nothing of T's left in any heap. */
static void killed_while_moved(void)
{
    start_all();
    cairn_simbus_filter(hold_the_answer_of_1);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    send_from_2("b0");
    cairn_simbus_run();
    assert_int_equal(ktest_migrate_stats(1).staged, 1);
    cairn_simbus_select(0);
    assert_int_equal(cairn_task_kill(T), CAIRN_OK);
    cairn_simbus_filter(0);
    ktest_modules_settle(MODULES);
    assert_int_equal(done_of[T], CAIRN_MIG_KILLED);
    assert_int_equal(ktest_migrate_stats(0).killed, 1);
    assert_int_equal(ktest_migrate_stats(0).moved, 0);
    assert_int_equal(ktest_migrate_stats(1).committed, 0);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_KILLED), 1);
    assert_log("T@0:ser"); /* frozen, it is removed at once, without FINAL */
    for (unsigned m = 0; m < MODULES; m++)
        assert_false(ktest_live_on(m, T));
    routes_name(T, -1, 0, 0);
    assert_true(ktest_modules_quiet(MODULES));
    heap_as_before(1);
    heap_as_before(2);
    cairn_simbus_select(0);
    assert_true(ktest_heap_free() >= free_before[0]);
    assert_int_equal(blocks_owned_by(T), 0);
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    assert_int_equal(st.bad_frees, 0); /* no block freed twice, by the kill and the source */
}

static void test_a_task_killed_at_the_source_while_it_is_moved_is_not_committed(void **state)
{
    (void)state;
    killed_while_moved();
}

/* The same with a state of several parts, whose later parts the source sends from the block
 * T handed: the kill frees T's blocks, the source frees that one once, when it ends. */
static void test_a_task_of_many_parts_killed_at_the_source_leaves_no_block(void **state)
{
    (void)state;
    t_extra = 2000; /* 9 STATE parts */
    killed_while_moved();
}

/* ---- a busy FREEZE_ACK ------------------------------------------------------------------------- */

/* Module 2's own migration (of U) stays in progress: its FREEZE and STATE frames are lost. */
static enum cairn_simbus_fate hold_the_migration_of_2(const struct cairn_simbus_wire *w)
{
    if (w->src == 2 && (mig_frame(w, F_FREEZE) || mig_frame(w, F_STATE)))
        return CAIRN_SIMBUS_DROP;
    return CAIRN_SIMBUS_PASS;
}

static unsigned busy_acks;

static enum cairn_simbus_fate count_busy_acks(const struct cairn_simbus_wire *w)
{
    busy_acks += w->src == 2 && mig_frame(w, F_FREEZE_ACK);
    return hold_the_migration_of_2(w);
}

/* T's STATE goes first and D stages it; module 2, the source of U's migration, answers the
 * FREEZE busy: S resumes T, D frees its staged copy, every route as before, and the messages
 * module 2 sent T meanwhile are handled once, in order, at S. Then U's migration and a
 * retry of T's both move. */
static void test_a_busy_freeze_ack_resumes_and_a_retry_moves(void **state)
{
    (void)state;
    start_all();
    busy_acks = 0;
    cairn_simbus_filter(count_busy_acks);
    migrate_on(2, U, 1);
    cairn_simbus_run();
    assert_true(ktest_migrate_stats(2).busy);
    assert_int_equal(ktest_migrate_stats(2).requests, 1);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    send_from_2("b0");
    send_from_2("b1");
    cairn_simbus_run();
    assert_true(busy_acks >= 1);
    assert_int_equal(ktest_migrate_stats(1).staged, 1);
    assert_int_equal(done_of[T], 0); /* RESULTING: module 2 does not acknowledge RESUMED */
    assert_int_equal(ktest_migrate_stats(0).resumed, 1);
    assert_int_equal(ktest_migrate_stats(0).last_outcome, CAIRN_MIG_RESUMED);
    until_0_gives_up();
    assert_int_equal(done_of[T], CAIRN_MIG_RESUMED);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_RESUMED), 1);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_COMMITTED), 0);
    assert_true(ktest_live_on(0, T));
    assert_false(ktest_live_on(1, T));
    routes_name(T, -1, 0, 0);
    heap_as_before(0);
    heap_as_before(1); /* the staged copy freed */
    /* U's migration goes on once its frames pass, and moves. */
    cairn_simbus_filter(0);
    ktest_modules_settle(MODULES);
    assert_int_equal(done_of[U], CAIRN_MIG_MOVED);
    assert_true(ktest_live_on(1, U));
    assert_false(ktest_live_on(2, U));
    routes_name(U, 1, -1, 1);
    assert_log("U@2:ser T@0:ser T@0:q0 T@0:q1 T@0:q2 T@0:b0 T@0:b1 U@1:deser(0)");
    /* The retry moves T, which handles what comes next at the destination. */
    klog_reset();
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    send_from_2("c0");
    ktest_modules_settle(MODULES);
    assert_int_equal(done_of[T], CAIRN_MIG_MOVED);
    assert_log("T@0:ser T@1:deser(5) T@1:q0 T@1:q1 T@1:q2 T@1:c0");
    t_only_on(1);
    routes_name(T, 1, -1, 1);
}

/* ---- refusals at the source --------------------------------------------------------------------- */

static void test_the_source_refuses_what_it_cannot_move(void **state)
{
    (void)state;
    start_all();
    assert_int_equal(cairn_migrate(T, MODULES), CAIRN_EINVAL); /* no such module */
    assert_int_equal(cairn_migrate(0, 1), CAIRN_EINVAL);       /* no such task ID */
    migrate_on(0, NOBODY, 1); /* on no module: no route names it */
    ktest_modules_settle(MODULES);
    assert_int_equal(ktest_migrate_stats(0).refused, 1);
    migrate_on(0, PUSHER, 1); /* not movable */
    ktest_modules_settle(MODULES);
    assert_int_equal(ktest_migrate_stats(0).refused, 2);
    migrate_on(0, T, 0); /* to where it is */
    ktest_modules_settle(MODULES);
    assert_int_equal(ktest_migrate_stats(0).refused, 3);
    /* Killed while it runs: its own REQUEST is refused, and it is gone. */
    ktest_post_on(0, T, PORT_KILL_AND_MOVE, 0, 0);
    ktest_modules_settle(MODULES);
    assert_int_equal(ktest_migrate_stats(0).refused, 4);
    assert_int_equal(ktest_migrate_stats(0).requests, 0);
    assert_int_equal(ktest_migrate_stats(1).frozen + ktest_migrate_stats(2).frozen, 0);
    assert_int_equal(ktest_trace_count(CAIRN_EV_MIG_REQUEST), 0);
    assert_log("T@0:killed T@0:final");
    for (unsigned m = 0; m < MODULES; m++)
        assert_false(ktest_live_on(m, T));
}

static unsigned acks_dropped;

static enum cairn_simbus_fate drop_every_answer_to_0(const struct cairn_simbus_wire *w)
{
    if (w->head[0] == CAIRN_NET_KIND_MIG && w->first != 1 /* REQUEST */ && w->dst == 0) {
        acks_dropped++;
        return CAIRN_SIMBUS_DROP;
    }
    return CAIRN_SIMBUS_PASS;
}

/* A REQUEST that reaches the source while it is in a migration waits for that migration's
 * end (one at a time: a second is refused), then goes where T went and moves it again. */
static void test_a_request_during_a_migration_waits_for_its_end(void **state)
{
    (void)state;
    start_all();
    acks_dropped = 0;
    cairn_simbus_filter(drop_every_answer_to_0);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    cairn_simbus_run();
    assert_true(acks_dropped >= 1);
    assert_true(ktest_migrate_stats(0).busy);
    migrate_on(0, T, 2); /* waits */
    migrate_on(2, T, 2); /* forwarded to S: refused there, one waits already */
    cairn_simbus_run();
    assert_int_equal(ktest_migrate_stats(0).refused, 1);
    assert_int_equal(ktest_migrate_stats(0).requests, 1);
    cairn_simbus_filter(0);
    ktest_modules_settle(MODULES);
    assert_int_equal(done_of[T], CAIRN_MIG_MOVED);
    assert_int_equal(ktest_migrate_stats(0).requests, 1);
    assert_int_equal(ktest_migrate_stats(1).requests, 1); /* the waiting one, sent on */
    assert_log("T@0:ser T@1:deser(0) T@1:q0 T@1:q1 T@1:q2 T@1:ser T@2:deser(3)");
    t_only_on(2);
    routes_name(T, 2, 2, -1);
}

/* A REQUEST for T while T's handler runs: T takes no message after that handler (the ones
 * that came meanwhile move with it), where it went on with its backlog until the REQUEST,
 * looking at every timer tick, found it between two messages. */
static void test_a_request_for_a_running_task_stops_it_at_the_end_of_its_handler(void **state)
{
    (void)state;
    start_all();
    ktest_post_on(0, T, PORT_MOVE_SELF, 0, 0);
    ktest_post_on(0, T, CAIRN_PORT(0), "a", 1);
    ktest_post_on(0, T, CAIRN_PORT(0), "b", 1);
    cairn_simbus_run();
    assert_true(ktest_migrate_stats(0).busy); /* the REQUEST waits for the timer */
    assert_int_equal(ktest_migrate_stats(0).requests, 0);
    ktest_modules_settle(MODULES);
    assert_int_equal(done_of[T], CAIRN_MIG_MOVED);
    assert_int_equal(ktest_migrate_stats(0).refused, 0);
    assert_log("T@0:move T@0:ser T@1:deser(0) T@1:a T@1:b");
    t_only_on(1);
    routes_name(T, 1, -1, 1);
}

/* A REQUEST that waits for T to leave the stack is overtaken by a later one for T taken at
 * once: the later one moves T, the earlier is dropped (refused), not carried out after it. */
static void test_a_waiting_request_overtaken_by_a_later_one_is_dropped(void **state)
{
    (void)state;
    start_all();
    ktest_post_on(0, T, PORT_MOVE_SELF, 0, 0); /* to module 1: waits */
    cairn_simbus_run();
    migrate_on(0, T, 2);
    cairn_simbus_run();
    ktest_modules_settle(MODULES);
    assert_int_equal(ktest_migrate_stats(0).refused, 1);
    assert_int_equal(ktest_migrate_stats(0).requests, 1);
    assert_log("T@0:move T@0:ser T@2:deser(0)");
    t_only_on(2);
}

static enum cairn_simbus_fate drop_states(const struct cairn_simbus_wire *w)
{
    return w->head[0] == CAIRN_NET_KIND_MIG && w->first == 4 ? CAIRN_SIMBUS_DROP : CAIRN_SIMBUS_PASS;
}

/* A REQUEST made in the task's INIT handler finds it on the stack before it is ready: the
 * flag its end then sets is T's to keep, so a migration that resumes leaves it taking
 * messages (it kept none: nothing was cleared to give back). */
static void test_a_request_from_init_that_resumes_leaves_the_task_ready(void **state)
{
    (void)state;
    start_all();
    cairn_simbus_select(2);
    assert_int_equal(cairn_task_kill(U), CAIRN_OK);
    cairn_simbus_run();
    static struct tstate su;
    su = (struct tstate){0};
    move_at_init = true;
    cairn_simbus_filter(drop_states);
    cairn_simbus_select(2);
    assert_int_equal(cairn_task_create(U, movable_handler, &su, 2, 0, 0, CAIRN_TASK_MOVABLE), CAIRN_OK);
    assert_int_equal(cairn_task_init(U, 0, 0), CAIRN_OK);
    cairn_simbus_run();
    ktest_modules_settle(MODULES);
    assert_int_equal(done_of[U], CAIRN_MIG_RESUMED);
    cairn_simbus_filter(0);
    klog_reset();
    ktest_post_on(2, U, CAIRN_PORT(0), "u", 1);
    cairn_simbus_run();
    assert_log("U@2:u");
    assert_true(ktest_live_on(2, U));
}

/* ---- refusals at the destination ----------------------------------------------------------------- */

/* D has no room for T's state: its DESERIALIZED(failed) makes S resume, every module as
 * before; once D has room, the retry (FREEZE first now) moves T. */
static void test_a_destination_without_room_refuses_and_the_retry_moves(void **state)
{
    (void)state;
    t_extra = 2000; /* 9 STATE parts */
    start_all();
    cairn_simbus_select(1);
    void *hog = cairn_malloc(free_before[1] - 1024);
    assert_non_null(hog);
    free_before[1] = ktest_heap_free();
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    send_from_2("b0");
    ktest_modules_settle(MODULES);
    assert_int_equal(done_of[T], CAIRN_MIG_RESUMED);
    assert_int_equal(ktest_migrate_stats(1).staged, 0);
    assert_int_equal(ktest_migrate_stats(1).committed, 0);
    assert_log("T@0:ser T@0:q0 T@0:q1 T@0:q2 T@0:b0");
    t_only_on(0);
    routes_name(T, -1, 0, 0);
    for (unsigned m = 0; m < MODULES; m++)
        heap_as_before(m);
    cairn_simbus_select(1);
    cairn_free(hog);
    klog_reset();
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    ktest_modules_settle(MODULES);
    assert_int_equal(done_of[T], CAIRN_MIG_MOVED);
    assert_log("T@0:ser T@1:deser(4) T@1:q0 T@1:q1 T@1:q2");
    t_only_on(1);
    routes_name(T, 1, -1, 1);
}

/* U's migration to module 1 holds module 1 staged: its DESERIALIZED answers are lost. */
static unsigned freeze_broadcasts;

static enum cairn_simbus_fate hold_1_staged_for_2(const struct cairn_simbus_wire *w)
{
    freeze_broadcasts += w->src == 0 && w->dst == 0xFF && mig_frame(w, F_FREEZE);
    if (w->src == 1 && w->dst == 2 && mig_frame(w, F_DESERIALIZED))
        return CAIRN_SIMBUS_DROP;
    return CAIRN_SIMBUS_PASS;
}

/* D is in another migration (U's, to it): it refuses T's STATE, S resumes T, every route as
 * before; a retry (FREEZE first now) gets busy FREEZE_ACKs and resumes too; U's migration
 * then moves, and a third try moves T to D beside U. */
static void test_a_destination_in_another_migration_refuses_the_state(void **state)
{
    (void)state;
    start_all();
    freeze_broadcasts = 0;
    cairn_simbus_filter(hold_1_staged_for_2);
    migrate_on(2, U, 1);
    cairn_simbus_run();
    assert_int_equal(ktest_migrate_stats(1).staged, 1);
    assert_true(ktest_migrate_stats(1).busy);
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    send_from_2("b0");
    cairn_simbus_run();
    until_0_gives_up();
    assert_int_equal(done_of[T], CAIRN_MIG_RESUMED);
    assert_int_equal(ktest_migrate_stats(1).staged, 1); /* U's, not T's */
    assert_true(ktest_live_on(0, T));
    assert_false(ktest_live_on(1, T));
    routes_name(T, -1, 0, 0);
    heap_as_before(0);
    /* Refused, S sends FREEZE first to D: the busy FREEZE_ACKs (D's and U's source's)
     * make it resume in FREEZING. */
    unsigned broadcasts = freeze_broadcasts;
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    cairn_simbus_run();
    until_0_gives_up();
    assert_int_equal(freeze_broadcasts, broadcasts + 1);
    assert_int_equal(ktest_migrate_stats(0).resumed, 2);
    assert_int_equal(done_of[T], CAIRN_MIG_RESUMED);
    assert_true(ktest_live_on(0, T));
    routes_name(T, -1, 0, 0);
    heap_as_before(0);
    cairn_simbus_filter(0);
    ktest_modules_settle(MODULES);
    assert_int_equal(done_of[U], CAIRN_MIG_MOVED);
    routes_name(U, 1, -1, 1);
    /* b0, refused while T was frozen, waited at module 2 for its retransmission (only S's
     * timers fired meanwhile): handled once, after the second pusher's messages. */
    assert_log("U@2:ser T@0:ser T@0:q0 T@0:q1 T@0:q2 T@0:ser T@0:q0 T@0:q1 T@0:q2 T@0:b0 "
               "U@1:deser(0)");
    klog_reset();
    ktest_post_on(0, PUSHER, CAIRN_PORT(0), 0, 0);
    ktest_modules_settle(MODULES);
    assert_int_equal(done_of[T], CAIRN_MIG_MOVED);
    assert_log("T@0:ser T@1:deser(7) T@1:q0 T@1:q1 T@1:q2"); /* 3 + 3 + b0 handled at S */
    t_only_on(1);
    assert_true(ktest_live_on(1, U));
    routes_name(T, 1, -1, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        MTEST(test_a_destination_reset_after_the_commit_kills_the_task),
        MTEST(test_a_task_killed_at_the_source_while_it_is_moved_is_not_committed),
        MTEST(test_a_task_of_many_parts_killed_at_the_source_leaves_no_block),
        MTEST(test_a_busy_freeze_ack_resumes_and_a_retry_moves),
        MTEST(test_the_source_refuses_what_it_cannot_move),
        MTEST(test_a_request_during_a_migration_waits_for_its_end),
        MTEST(test_a_request_for_a_running_task_stops_it_at_the_end_of_its_handler),
        MTEST(test_a_request_from_init_that_resumes_leaves_the_task_ready),
        MTEST(test_a_waiting_request_overtaken_by_a_later_one_is_dropped),
        MTEST(test_a_destination_without_room_refuses_and_the_retry_moves),
        MTEST(test_a_destination_in_another_migration_refuses_the_state),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
