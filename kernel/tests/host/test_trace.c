/*
 * The event log: the exact words of a simple scenario, and the ring's limits.
 */
#include "ktest.h"

static struct rec a, b, c;

static void send_0(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT(0))
        assert_int_equal(cairn_send(0, NULL, 0), CAIRN_OK);
}

#define W(ev, x, y) CAIRN_TRACE_WORD(CAIRN_EV_##ev, x, y)

static void expect_trace(const uint32_t *want, size_t n)
{
    uint32_t got[64];
    size_t m = ktest_trace(got, 64);
    for (size_t i = 0; i < m && i < n; i++)
        if (got[i] != want[i])
            fail_msg("word %zu: got %08x, want %08x", i, got[i], want[i]);
    assert_int_equal(m, n);
}

/* A (1) sends to B (5): B runs at once; B sends to C (3): queued, runs when B
 * returns (it outranks A). An interrupt then posts to C. */
static void test_scenario(void **state)
{
    (void)state;
    a = (struct rec){.name = "A", .hook = send_0};
    b = (struct rec){.name = "B", .hook = send_0};
    c = (struct rec){.name = "C"};
    rec_task_uninit(1, &a, 1, 1);
    rec_task_uninit(2, &b, 5, 1);
    rec_task_uninit(3, &c, 3, 0);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(0)), CAIRN_OK);
    assert_int_equal(cairn_route_set(2, 0, 3, CAIRN_PORT(2)), CAIRN_OK);
    /* INIT from the idle context runs at once. */
    assert_int_equal(cairn_task_init(1, NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_task_init(2, NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_task_init(3, NULL, 0), CAIRN_OK);
    cairn_trace_host_reset();

    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    cairn_isr_enter(24);
    assert_int_equal(cairn_post(3, CAIRN_PORT(9), NULL, 0), CAIRN_OK);
    cairn_isr_exit();

    const uint32_t want[] = {
        W(SEND, 1, CAIRN_PORT(0)),  /* idle -> A */
        W(START, 1, CAIRN_PORT(0)),
        W(SEND, 2, CAIRN_PORT(0)),  /* A -> B: preempts */
        W(START, 2, CAIRN_PORT(0)),
        W(SEND, 3, CAIRN_PORT(2)),  /* B -> C: queued */
        W(END, 2, CAIRN_OK),
        W(CURRENT, 1, 0),           /* back in A ... */
        W(START, 3, CAIRN_PORT(2)), /* ... but C outranks A */
        W(END, 3, CAIRN_OK),
        W(CURRENT, 1, 0),
        W(END, 1, CAIRN_OK),
        W(CURRENT, 0, 0),
        W(IRQ_ENTER, 1, 24),
        W(SEND, 3, CAIRN_PORT(9)),
        W(IRQ_EXIT, 0, 0),
        W(START, 3, CAIRN_PORT(9)),
        W(END, 3, CAIRN_OK),
        W(CURRENT, 0, 0),
    };
    expect_trace(want, CAIRN_COUNT(want));
}

static void test_create_kill_idle_drop(void **state)
{
    (void)state;
    a = (struct rec){.name = "A"};
    assert_int_equal(cairn_task_create(4, rec_handler, &a, 7, NULL, 1, 0), CAIRN_OK);
    assert_int_equal(cairn_send_from(4, 0, NULL, 0), CAIRN_ENOROUTE);
    cairn_idle();
    assert_int_equal(cairn_task_kill(4), CAIRN_OK);
    uint32_t got[16];
    size_t n = ktest_trace(got, 16);
    /* ALLOC/FREE come from the heap; keep the scheduler's events. */
    uint32_t mine[16];
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (CAIRN_TRACE_EVENT(got[i]) != CAIRN_EV_ALLOC &&
            CAIRN_TRACE_EVENT(got[i]) != CAIRN_EV_FREE)
            mine[m++] = got[i];
    assert_int_equal(m, 4);
    assert_int_equal(mine[0], W(CREATE, 4, 7));
    assert_int_equal(mine[1], W(DROP, 4, 0));
    assert_int_equal(mine[2], W(IDLE, 1, 0xFFFF)); /* no timer: the deepest state (1) */
    assert_int_equal(mine[3], W(KILL, 4, 0));
}

static void test_word_format(void **state)
{
    (void)state;
    uint32_t w = CAIRN_TRACE_WORD(0x81, 0x1234, 0xABCDE);
    assert_int_equal(w, 0x8134BCDEu);
    assert_int_equal(CAIRN_TRACE_EVENT(w), 0x81);
    assert_int_equal(CAIRN_TRACE_A(w), 0x34);
    assert_int_equal(CAIRN_TRACE_B(w), 0xBCDE);
    assert_int_equal(CAIRN_TRACE_SAT16(70000), 0xFFFF);
    CAIRN_TRACE(CAIRN_EV_USER + 1, 2, 3);
    uint32_t got[2];
    assert_int_equal(ktest_trace(got, 2), 1);
    assert_int_equal(got[0], CAIRN_TRACE_WORD(0x81, 2, 3));
}

static void test_ring_wraps(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < CAIRN_TRACE_RING + 5; i++)
        CAIRN_TRACE(CAIRN_EV_USER, 0, i);
    assert_int_equal(cairn_trace_host_count(), CAIRN_TRACE_RING);
    assert_int_equal(cairn_trace_host_lost(), 5);
    uint32_t first[1];
    assert_int_equal(ktest_trace(first, 1), 1);
    assert_int_equal(CAIRN_TRACE_B(first[0]), 5); /* the oldest kept */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_scenario),
        KTEST(test_create_kill_idle_drop),
        KTEST(test_word_format),
        KTEST(test_ring_wraps),
    };
    return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
