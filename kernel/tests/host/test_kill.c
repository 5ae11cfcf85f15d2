/*
 * Killing a task: FINAL, its queued messages dropped, its memory and timers
 * freed, routes and group memberships pointing to it removed, its ID reusable.
 */
#include "ktest.h"

static struct rec victim, other, killer;
static void *mem[2];

static void victim_init(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT_INIT) {
        mem[0] = cairn_malloc(40);
        mem[1] = cairn_malloc(100);
        assert_int_equal(cairn_timer_start(0, 1000, true), CAIRN_OK);
        assert_int_equal(cairn_timer_start(3, 50, false), CAIRN_OK);
    }
    if (msg->port == CAIRN_PORT_FINAL) {
        assert_true(cairn_task_exists(2)); /* FINAL runs before the clean-up */
        assert_true(cairn_alloc_size(mem[0]) >= 40);
    }
}

static void setup_tasks(void)
{
    victim = (struct rec){.name = "V", .hook = victim_init};
    other = (struct rec){.name = "O"};
    rec_task(1, &other, 1, 2);
    rec_task(2, &victim, 3, 1);
    assert_int_equal(cairn_heap_owner(mem[0]), 2);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(5)), CAIRN_OK);
    assert_int_equal(cairn_route_set(1, 1, 1, CAIRN_PORT(6)), CAIRN_OK);
    assert_int_equal(cairn_route_set(2, 0, 1, CAIRN_PORT(7)), CAIRN_OK);
    uint8_t g = cairn_group_alloc();
    assert_int_equal(cairn_group_join(g, 2, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_group_join(g, 1, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_timer_active(), 2);
    klog_reset();
}

static void test_kill_cleans_up(void **state)
{
    (void)state;
    setup_tasks();
    /* Messages from an interrupt handler; kill is refused there. */
    cairn_isr_enter(16);
    assert_int_equal(cairn_send_from(1, 0, NULL, 0), CAIRN_OK);
    char *payload = cairn_malloc(16);
    assert_int_equal(cairn_post(2, CAIRN_PORT(9), payload, 16), CAIRN_OK);
    assert_int_equal(cairn_task_kill(2), CAIRN_EBUSY); /* not from interrupts */
    cairn_isr_exit(); /* they run here */
    assert_log("V:5 V:9");
    assert_int_equal(cairn_alloc_size(payload), 0); /* untaken: freed */
    klog_reset();

    struct cairn_heap_stats before, after;
    cairn_heap_stats(&before);
    size_t v_bytes = cairn_alloc_size(mem[0]) + cairn_alloc_size(mem[1]);
    assert_int_equal(cairn_task_kill(2), CAIRN_OK);
    assert_log("V:FINAL");
    assert_false(cairn_task_exists(2));
    assert_int_equal(cairn_alloc_size(mem[0]), 0);
    assert_int_equal(cairn_alloc_size(mem[1]), 0);
    cairn_heap_stats(&after);
    /* V's blocks and its TCB are gone. */
    assert_true(before.used_bytes - after.used_bytes > v_bytes);
    assert_int_equal(cairn_timer_active(), 0);
    cairn_route_t r;
    assert_int_equal(cairn_route_get(1, 0, &r), CAIRN_OK);
    assert_int_equal(r.task, CAIRN_TASK_NONE);
    assert_int_equal(cairn_route_get(1, 1, &r), CAIRN_OK);
    assert_int_equal(r.task, 1); /* untouched */
    assert_int_equal(cairn_group_size(1), 1);
    assert_int_equal(cairn_send_from(1, 0, NULL, 0), CAIRN_ENOROUTE);
    assert_int_equal(cairn_task_kill(2), CAIRN_EINVAL);
    assert_int_equal(cairn_task_free_id(), 2);
    /* The ID can be used again. */
    struct rec again = {.name = "N"};
    rec_task(2, &again, 1, 0);
    assert_log("V:FINAL N:INIT");
}

/* Queued messages for the victim are dropped and counted, their payloads freed. */
static void test_kill_drops_queued(void **state)
{
    (void)state;
    victim = (struct rec){.name = "V"};
    rec_task_uninit(2, &victim, 3, 0); /* not initialised: messages wait */
    char *payload = cairn_malloc(16);
    assert_int_equal(cairn_post(2, CAIRN_PORT(1), NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_post(2, CAIRN_PORT(2), payload, 16), CAIRN_OK);
    assert_int_equal(cairn_task_init(2, NULL, 0), CAIRN_OK);
    assert_log("V:INIT V:1 V:2");
    klog_reset();

    struct rec w = {.name = "W"};
    rec_task_uninit(3, &w, 3, 0);
    payload = cairn_malloc(16);
    assert_int_equal(cairn_post(3, CAIRN_PORT(1), NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_post(3, CAIRN_PORT(2), payload, 16), CAIRN_OK);
    cairn_trace_host_reset();
    assert_int_equal(cairn_task_kill(3), CAIRN_OK);
    assert_log(""); /* never initialised: no FINAL */
    assert_int_equal(cairn_alloc_size(payload), 0);
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    assert_int_equal(st.dropped, 2);
    assert_int_equal(st.queued, 0);
    uint32_t words[16];
    size_t n = ktest_trace(words, 16), kills = 0;
    for (size_t i = 0; i < n; i++)
        if (CAIRN_TRACE_EVENT(words[i]) == CAIRN_EV_KILL) {
            assert_int_equal(words[i], CAIRN_TRACE_WORD(CAIRN_EV_KILL, 3, 2));
            kills++;
        }
    assert_int_equal(kills, 1);
}

/* A task that kills itself is removed when its handler returns, after FINAL. */
static void suicide(struct rec *r, cairn_msg_t *msg)
{
    if (msg->port == CAIRN_PORT(0)) {
        assert_int_equal(cairn_task_kill(2), CAIRN_OK);
        assert_int_equal(cairn_task_kill(2), CAIRN_OK); /* already dying */
        assert_true(cairn_task_exists(2));
        /* Messages to a dying task are refused. */
        assert_int_equal(cairn_post(2, CAIRN_PORT(1), NULL, 0), CAIRN_ENOROUTE);
        klog("%s:dying", r->name);
    }
}

static void test_kill_self(void **state)
{
    (void)state;
    victim = (struct rec){.name = "V", .hook = suicide};
    rec_task(2, &victim, 3, 0);
    klog_reset();
    assert_int_equal(cairn_post(2, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("V:0 V:dying V:FINAL");
    assert_false(cairn_task_exists(2));
}

/* A higher-priority task kills a preempted one: it finishes its handler first. */
static void kill_two(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT(0)) {
        assert_int_equal(cairn_task_kill(2), CAIRN_OK);
        klog("K:killed");
    }
}

static void send_to_killer(struct rec *r, cairn_msg_t *msg)
{
    if (msg->port == CAIRN_PORT(0)) {
        assert_int_equal(cairn_post(3, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
        klog("%s:resumed", r->name);
    }
}

static void test_kill_preempted(void **state)
{
    (void)state;
    victim = (struct rec){.name = "V", .hook = send_to_killer};
    killer = (struct rec){.name = "K", .hook = kill_two};
    rec_task(2, &victim, 1, 0);
    rec_task(3, &killer, 5, 0);
    klog_reset();
    assert_int_equal(cairn_post(2, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("V:0 K:0 K:killed V:resumed V:FINAL");
    assert_false(cairn_task_exists(2));
}

/* FINAL of a low-priority task killed by a high one runs at the killer's level:
 * what FINAL sends to a task between the two does not preempt the killer. */
static void final_sends(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT_FINAL)
        assert_int_equal(cairn_post(1, CAIRN_PORT(3), NULL, 0), CAIRN_OK);
}

static void test_final_at_killer_level(void **state)
{
    (void)state;
    other = (struct rec){.name = "O"};
    victim = (struct rec){.name = "V", .hook = final_sends};
    killer = (struct rec){.name = "K", .hook = kill_two};
    rec_task(1, &other, 3, 0);
    rec_task(2, &victim, 1, 0);
    rec_task(3, &killer, 5, 0);
    klog_reset();
    assert_int_equal(cairn_post(3, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("K:0 V:FINAL K:killed O:3");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_kill_cleans_up),
        KTEST(test_kill_drops_queued),
        KTEST(test_kill_self),
        KTEST(test_kill_preempted),
        KTEST(test_final_at_killer_level),
    };
    return cmocka_run_group_tests_name("kill", tests, NULL, NULL);
}
