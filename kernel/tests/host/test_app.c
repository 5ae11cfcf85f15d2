/*
 * The application manager: descriptions in the CoMOS Listing 2 style, two-stage
 * start (create all, then INIT), buffering of messages to tasks that have not
 * handled INIT yet, ID patching, and clean failure.
 */
#include <string.h>

#include "ktest.h"

#include "cairn/arch_timer.h"
#include "hwtimer.h"

/* ---- the CoMOS hello world (Listings 1 and 2) -------------------------------- */

enum { TIMER_PROG, HELLO_PROG, SINK_PROG };

struct timer_init {
    uint32_t period;
};
struct timer_state {
    uint32_t period;
    unsigned fired;
};
struct hello_state {
    unsigned said;
};

static cairn_ret_t timer_task(void *state, cairn_msg_t *msg)
{
    struct timer_state *s = state;
    switch (msg->port) {
    case CAIRN_PORT_INIT: {
        const struct timer_init *init = msg->payload;
        assert_int_equal(msg->len, sizeof *init);
        s->period = init->period;
        klog("timer:INIT(%u)", (unsigned)s->period);
        return cairn_timer_start(0, s->period, true);
    }
    case CAIRN_PORT_TIMEOUT0:
        s->fired++;
        return cairn_send(0, "tick", 5);
    }
    return CAIRN_OK;
}

static cairn_ret_t hello_task(void *state, cairn_msg_t *msg)
{
    struct hello_state *s = state;
    switch (msg->port) {
    case CAIRN_PORT_INIT:
        klog("hello:INIT");
        break;
    case CAIRN_PORT(0):
        assert_string_equal(msg->payload, "tick");
        klog("Hello World %u @%u", ++s->said, (unsigned)arch_timer_now());
        break;
    }
    return CAIRN_OK;
}

static const cairn_program_t programs[] = {
    [TIMER_PROG] = CAIRN_PROGRAM(timer_task, struct timer_state),
    [HELLO_PROG] = CAIRN_PROGRAM(hello_task, struct hello_state),
    [SINK_PROG] = CAIRN_PROGRAM_STATELESS(rec_handler),
};

static const struct timer_init timer_init = {.period = 125};
static const cairn_app_route_t timer_out[] = {CAIRN_TO_GROUP(0)};
static const cairn_task_desc_t hello_tasks[] = {
    {.prog = TIMER_PROG, .prio = 1, .flags = CAIRN_TASK_MOVABLE, CAIRN_OUT(timer_out),
     CAIRN_INIT_DATA(timer_init)},
    {.prog = HELLO_PROG, .prio = 1, .flags = CAIRN_TASK_MOVABLE},
};
static const cairn_member_desc_t hello_members[] = {
    {.group = 0, .task = 1, .port = CAIRN_PORT(0)},
};
static const cairn_app_desc_t hello_app = {
    CAIRN_PROGRAMS(programs),
    CAIRN_TASKS(hello_tasks),
    .num_groups = 1,
    CAIRN_MEMBERS(hello_members),
};

static void test_hello_world(void **state)
{
    (void)state;
    cairn_task_id_t ids[2];
    assert_int_equal(cairn_app_start(&hello_app, ids), CAIRN_OK);
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[1], 2);
    assert_log("timer:INIT(125) hello:INIT");
    klog_reset();
    host_timer_advance(125 * 3);
    assert_log("Hello World 1 @125 Hello World 2 @250 Hello World 3 @375");
    cairn_route_t r;
    assert_int_equal(cairn_route_get(1, 0, &r), CAIRN_OK);
    assert_int_equal(r.task, CAIRN_TASK_MCAST);
    assert_int_equal(cairn_group_size(r.port), 1);
    /* Killing the application's tasks frees everything but the group ID. */
    struct cairn_heap_stats st;
    assert_int_equal(cairn_task_kill(1), CAIRN_OK);
    assert_int_equal(cairn_task_kill(2), CAIRN_OK);
    cairn_heap_stats(&st);
    assert_int_equal(st.used_bytes, ktest_kernel_heap_bytes);
    assert_int_equal(cairn_timer_active(), 0);
}

/* ---- two-stage start and buffering --------------------------------------------- */

static struct rec recs[4];
static int created_at_init;

/* A's INIT: every task of the app exists already; A sends to B and C. */
static void a_init(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT_INIT)
        return;
    created_at_init = cairn_task_exists(2) && cairn_task_exists(3);
    assert_memory_equal(msg->payload, "alpha", 6);
    assert_int_equal(cairn_send(0, NULL, 0), CAIRN_OK); /* B: p2 < A: queued anyway */
    assert_int_equal(cairn_send(1, NULL, 0), CAIRN_OK); /* C: p5 = A, not ready: buffered */
    klog("A:sent");
}

static cairn_ret_t rec_a(void *state, cairn_msg_t *msg)
{
    (void)state;
    recs[0].hook = a_init;
    return rec_handler(&recs[0], msg);
}
static cairn_ret_t rec_b(void *state, cairn_msg_t *msg)
{
    (void)state;
    return rec_handler(&recs[1], msg);
}
static cairn_ret_t rec_c(void *state, cairn_msg_t *msg)
{
    (void)state;
    return rec_handler(&recs[2], msg);
}

static const cairn_program_t abc_programs[] = {
    CAIRN_PROGRAM_STATELESS(rec_a),
    CAIRN_PROGRAM_STATELESS(rec_b),
    CAIRN_PROGRAM_STATELESS(rec_c),
};
static const cairn_app_route_t a_out[] = {CAIRN_TO(1, CAIRN_PORT(1)), CAIRN_TO(2, CAIRN_PORT(2))};
static const cairn_task_desc_t abc_tasks[] = {
    /* A and C have the same priority: A's INIT runs first (description order),
     * and its send to C would preempt (5 >= 5) but C has not handled INIT. */
    {.prog = 0, .prio = 5, CAIRN_OUT(a_out), CAIRN_INIT_STRING("alpha")},
    {.prog = 1, .prio = 2},
    {.prog = 2, .prio = 5},
};
static const cairn_app_desc_t abc_app = {CAIRN_PROGRAMS(abc_programs), CAIRN_TASKS(abc_tasks)};

static void setup_recs(void)
{
    recs[0] = (struct rec){.name = "A"};
    recs[1] = (struct rec){.name = "B"};
    recs[2] = (struct rec){.name = "C"};
    created_at_init = 0;
}

static void test_two_stage_and_buffering(void **state)
{
    (void)state;
    setup_recs();
    assert_int_equal(cairn_app_start(&abc_app, NULL), CAIRN_OK);
    /* INITs by priority, then description order: A, C (5), B (2). A's message
     * to C waits for C's INIT; B's waits for B's. */
    assert_log("A:INIT A:sent C:INIT C:2 B:INIT B:1");
    assert_true(created_at_init);
}

/* Started from inside a task's handler: nothing of the app runs before the
 * caller returns unless it outranks the caller. */
static void start_app(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT(0)) {
        cairn_task_id_t ids[3];
        assert_int_equal(cairn_app_start(&abc_app, ids), CAIRN_OK);
        assert_int_equal(ids[0], 1);
        assert_int_equal(ids[1], 2);
        assert_int_equal(ids[2], 4); /* 3 is the manager task */
        klog("M:started");
    }
}

static void test_start_from_task(void **state)
{
    (void)state;
    setup_recs();
    static struct rec mgr;
    mgr = (struct rec){.name = "M", .hook = start_app};
    rec_task(3, &mgr, 3, 0);
    klog_reset();
    assert_int_equal(cairn_post(3, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("M:0 A:INIT A:sent C:INIT C:2 M:started B:INIT B:1");
}

/* ---- failures leave nothing behind ----------------------------------------------- */

static void assert_empty_kernel(void)
{
    for (cairn_task_id_t id = 1; id <= CAIRN_MAX_TASKS; id++)
        assert_false(cairn_task_exists(id));
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    assert_int_equal(st.used_bytes, ktest_kernel_heap_bytes);
    cairn_sched_stats_t ss;
    cairn_sched_stats(&ss);
    assert_int_equal(ss.queued, 0);
    assert_int_equal(cairn_group_alloc(), 1); /* no group left reserved */
    cairn_group_free(1);
}

static void test_bad_descriptions(void **state)
{
    (void)state;
    assert_int_equal(cairn_app_start(NULL, NULL), CAIRN_EINVAL);
    cairn_app_desc_t app = hello_app;
    app.num_groups = 0; /* the timer's route names group 0 */
    assert_int_equal(cairn_app_start(&app, NULL), CAIRN_EINVAL);
    cairn_task_desc_t tasks[2];
    memcpy(tasks, hello_tasks, sizeof tasks);
    app = hello_app;
    app.tasks = tasks;
    tasks[1].prog = 7;
    assert_int_equal(cairn_app_start(&app, NULL), CAIRN_EINVAL);
    tasks[1].prog = HELLO_PROG;
    tasks[1].prio = 255;
    assert_int_equal(cairn_app_start(&app, NULL), CAIRN_EINVAL);
    tasks[1].prio = 1;
    static const cairn_app_route_t bad_out[] = {CAIRN_TO(5, CAIRN_PORT(0))};
    tasks[0].out = bad_out;
    assert_int_equal(cairn_app_start(&app, NULL), CAIRN_EINVAL);
    static const cairn_member_desc_t bad_members[] = {
        {.group = 0, .task = 2, .port = CAIRN_PORT(0)}, /* task 2 does not exist */
    };
    app = hello_app;
    app.members = bad_members;
    assert_int_equal(cairn_app_start(&app, NULL), CAIRN_EINVAL);
    cairn_isr_enter(16);
    assert_int_equal(cairn_app_start(&hello_app, NULL), CAIRN_EBUSY);
    cairn_isr_exit();
    assert_empty_kernel();
    assert_log("");
}

static void test_out_of_ids(void **state)
{
    (void)state;
    static struct rec filler;
    filler = (struct rec){.name = "F"};
    for (cairn_task_id_t id = 1; id < CAIRN_MAX_TASKS; id++)
        rec_task_uninit(id, &filler, 1, 0);
    assert_int_equal(cairn_app_start(&hello_app, NULL), CAIRN_EFULL);
    for (cairn_task_id_t id = 1; id < CAIRN_MAX_TASKS; id++)
        assert_int_equal(cairn_task_kill(id), CAIRN_OK);
    assert_empty_kernel();
    /* Out of group IDs. */
    for (unsigned g = 0; g < CAIRN_MAX_GROUPS; g++)
        cairn_group_alloc();
    assert_int_equal(cairn_app_start(&hello_app, NULL), CAIRN_EFULL);
    for (uint8_t g = 1; g <= CAIRN_MAX_GROUPS; g++)
        cairn_group_free(g);
    assert_empty_kernel();
    assert_log("");
}

static void test_out_of_memory_and_pool(void **state)
{
    (void)state;
    /* Heap: leave room for the first task only. */
    struct cairn_heap_stats st;
    void *blocks[4096];
    size_t n = 0;
    while (n < 4096 && (blocks[n] = cairn_malloc(8)) != NULL)
        n++;
    for (size_t i = 0; i < 4 && n; i++)
        cairn_free(blocks[--n]);
    assert_int_equal(cairn_app_start(&hello_app, NULL), CAIRN_ENOMEM);
    while (n)
        cairn_free(blocks[--n]);
    cairn_heap_stats(&st);
    assert_int_equal(st.used_bytes, ktest_kernel_heap_bytes);
    assert_empty_kernel();

    /* Message pool: no room for the INITs. */
    static struct rec sink;
    sink = (struct rec){.name = "S"};
    rec_task_uninit(CAIRN_MAX_TASKS, &sink, 1, 0);
    for (int i = 0; i < CAIRN_MSG_POOL - 1; i++)
        assert_int_equal(cairn_post(CAIRN_MAX_TASKS, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_app_start(&hello_app, NULL), CAIRN_EFULL);
    assert_int_equal(cairn_task_kill(CAIRN_MAX_TASKS), CAIRN_OK);
    assert_empty_kernel();
    assert_log("");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_hello_world),
        KTEST(test_two_stage_and_buffering),
        KTEST(test_start_from_task),
        KTEST(test_bad_descriptions),
        KTEST(test_out_of_ids),
        KTEST(test_out_of_memory_and_pool),
    };
    return cmocka_run_group_tests_name("app", tests, NULL, NULL);
}
