/*
 * Start-up and task creation when the heap cannot hold what they carve from it:
 * cairn_sched_init without room for the message pool, cairn_timer_init without
 * room for the timer pool, cairn_task_create without room for the TCB. Each
 * returns CAIRN_ENOMEM, leaks nothing, leaves the heap consistent, and the kernel
 * keeps working within what it has (a refused send, a refused timer).
 */
#include "hwtimer.h"
#include "ktest.h"

/* Too small for the message pool (CAIRN_MSG_POOL x 16 bytes) or the timer pool
 * (CAIRN_MAX_TIMERS x 16 bytes), large enough for a TCB. */
static _Alignas(16) uint8_t small[96];

static void assert_heap_empty(void)
{
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    assert_int_equal(st.used_bytes, 0);
    assert_int_equal(cairn_heap_check(), CAIRN_OK);
}

static void test_sched_init_without_room_for_the_pool(void **state)
{
    (void)state;
    static struct rec a;
    a = (struct rec){.name = "A"};
    cairn_heap_init(small, sizeof small);
    assert_int_equal(cairn_sched_init(), CAIRN_ENOMEM);
    assert_heap_empty();
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    assert_int_equal(st.queued, 0);
    assert_int_equal(cairn_current_task(), CAIRN_TASK_NONE);

    /* A task still runs what needs no pool entry; what must be queued is refused. */
    rec_task(1, &a, 1, 0);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    cairn_isr_enter(16);
    assert_int_equal(cairn_post(1, CAIRN_PORT(1), NULL, 0), CAIRN_EFULL);
    cairn_isr_exit();
    assert_log("A:INIT A:0");
    cairn_sched_stats(&st);
    assert_int_equal(st.pool_full, 1);
    assert_int_equal(cairn_task_kill(1), CAIRN_OK);
    assert_false(cairn_task_exists(1));
    assert_heap_empty();
}

static void test_timer_init_without_storage(void **state)
{
    (void)state;
    cairn_heap_init(small, 8); /* no room for anything */
    assert_int_equal(cairn_timer_init(), CAIRN_ENOMEM);
    assert_heap_empty();
    /* Every timer is refused, nothing is armed, and the queries still answer. */
    assert_int_equal(cairn_timer_set(1, 0, 5, false), CAIRN_ENOMEM);
    assert_int_equal(cairn_timer_set(1, 3, 1, true), CAIRN_ENOMEM);
    assert_int_equal(cairn_timer_active(), 0);
    assert_false(host_timer_armed(NULL));
    cairn_timer_cancel_all(1);
    assert_heap_empty();
}

static void test_task_create_out_of_memory(void **state)
{
    (void)state;
    static struct rec a;
    a = (struct rec){.name = "A"};
    /* Fill the heap (from the kernel's context: blocks owned by no task). */
    void *blocks[64];
    size_t n = 0;
    struct cairn_heap_stats st;
    for (cairn_heap_stats(&st); st.largest_free > 0 && n < 64; cairn_heap_stats(&st))
        assert_non_null(blocks[n++] = cairn_malloc(st.largest_free));
    assert_int_equal(cairn_task_create(1, rec_handler, &a, 1, NULL, 0, 0), CAIRN_ENOMEM);
    assert_false(cairn_task_exists(1));
    assert_int_equal(cairn_task_free_id(), 1);
    assert_int_equal(cairn_heap_check(), CAIRN_OK);
    /* A send to the task that was not created is refused like any unknown task's. */
    assert_int_not_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    /* With room again, the same ID is created. */
    while (n > 0)
        cairn_free(blocks[--n]);
    rec_task(1, &a, 1, 0);
    assert_log("A:INIT");
    assert_int_equal(cairn_task_kill(1), CAIRN_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_sched_init_without_room_for_the_pool),
        KTEST(test_timer_init_without_storage),
        KTEST(test_task_create_out_of_memory),
    };
    return cmocka_run_group_tests_name("exhaustion", tests, NULL, NULL);
}
