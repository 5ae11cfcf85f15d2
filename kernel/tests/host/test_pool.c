/*
 * Message pool exhaustion: the send that finds the pool empty gets CAIRN_EFULL,
 * it is counted and logged, and every older message is delivered intact.
 */
#include <stdio.h>
#include <string.h>

#include "ktest.h"

static struct rec hi, lo;
static int full_at; /* index of the first refused send, -1 when none */
static uint8_t *heap_payload;

static void flood(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(0))
        return;
    full_at = -1;
    for (int i = 0; i < CAIRN_MSG_POOL + 3; i++) {
        cairn_ret_t ret = cairn_post(2, CAIRN_PORT(i), NULL, 0);
        if (ret == CAIRN_EFULL && full_at < 0)
            full_at = i;
        assert_int_equal(ret, i < CAIRN_MSG_POOL ? CAIRN_OK : CAIRN_EFULL);
    }
    /* A heap payload of a refused send is freed (the send gave it away). */
    heap_payload = cairn_malloc(32);
    assert_non_null(heap_payload);
    assert_int_equal(cairn_post(2, CAIRN_PORT(100), heap_payload, 32), CAIRN_EFULL);
    assert_int_equal(cairn_alloc_size(heap_payload), 0);
    /* A send that runs at once needs no pool entry. */
    assert_int_equal(cairn_post(3, CAIRN_PORT(1), NULL, 0), CAIRN_OK);
}

static void test_pool_full(void **state)
{
    (void)state;
    static struct rec top;
    hi = (struct rec){.name = "H", .hook = flood};
    lo = (struct rec){.name = "L"};
    top = (struct rec){.name = "X"};
    rec_task(1, &hi, 5, 0);
    rec_task(2, &lo, 1, 0);
    rec_task(3, &top, 9, 0);
    klog_reset();
    cairn_trace_host_reset();
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_int_equal(full_at, CAIRN_MSG_POOL);

    /* All CAIRN_MSG_POOL older messages were delivered, in order. */
    char want[1024] = "H:0 X:1";
    for (int i = 0; i < CAIRN_MSG_POOL; i++) {
        char item[16];
        snprintf(item, sizeof item, " L:%d", i);
        strcat(want, item);
    }
    assert_log(want);
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    assert_int_equal(st.pool_full, 4);
    assert_int_equal(st.queued, 0);
    assert_int_equal(st.queued_peak, CAIRN_MSG_POOL);

    uint32_t words[256];
    size_t n = ktest_trace(words, 256), full = 0;
    for (size_t i = 0; i < n; i++)
        if (CAIRN_TRACE_EVENT(words[i]) == CAIRN_EV_FULL) {
            assert_int_equal(CAIRN_TRACE_A(words[i]), 2);
            full++;
        }
    assert_int_equal(full, 4);

    /* The pool is whole again. */
    klog_reset();
    cairn_isr_enter(16);
    for (int i = 0; i < CAIRN_MSG_POOL; i++)
        assert_int_equal(cairn_post(2, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_post(2, CAIRN_PORT(0), NULL, 0), CAIRN_EFULL);
    cairn_isr_exit();
    assert_int_equal(lo.count, 1 + CAIRN_MSG_POOL * 2); /* INIT too */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_pool_full),
    };
    return cmocka_run_group_tests_name("pool", tests, NULL, NULL);
}
