/*
 * cairn_take_msg: a heap payload is handed over without a copy (the receiver
 * becomes its owner); a static one is deep-copied into a block the receiver
 * owns. Payloads nobody takes are freed after the handler.
 */
#include <string.h>

#include "ktest.h"

static struct rec snd, rcv;
static void *got;
static const void *seen;

static void send_user(struct rec *r, cairn_msg_t *msg)
{
    if (msg->port == CAIRN_PORT(0))
        assert_int_equal(cairn_send(0, r->user, 16), CAIRN_OK);
}

static void take(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(1))
        return;
    seen = msg->payload;
    assert_int_equal(msg->len, 16);
    assert_int_equal(msg->src, 1);
    got = cairn_take_msg(msg);
    assert_non_null(got);
    assert_ptr_equal(cairn_take_msg(msg), got); /* again: the same block */
    assert_memory_equal(got, "0123456789abcde", 16);
}

static void pair(cairn_prio_t ps, cairn_prio_t pr, rec_hook_t rcv_hook)
{
    snd = (struct rec){.name = "S", .hook = send_user};
    rcv = (struct rec){.name = "R", .hook = rcv_hook};
    rec_task(1, &snd, ps, 1);
    rec_task(2, &rcv, pr, 0);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(1)), CAIRN_OK);
    got = NULL;
    seen = NULL;
    klog_reset();
}

/* Allocated by the sender (inside its handler: it owns it). */
static void alloc_and_send(struct rec *r, cairn_msg_t *msg)
{
    if (msg->port != CAIRN_PORT(0))
        return;
    char *p = cairn_malloc(16);
    assert_int_equal(cairn_heap_owner(p), 1);
    memcpy(p, "0123456789abcde", 16);
    r->user = p;
    assert_int_equal(cairn_send(0, p, 16), CAIRN_OK);
}

static void test_heap_payload_zero_copy(void **state)
{
    (void)state;
    for (int queued = 0; queued < 2; queued++) {
        if (queued)
            ktest_setup(NULL); /* a fresh kernel for the second round */
        pair(queued ? 5 : 1, 3, take);
        snd.hook = alloc_and_send;
        assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
        assert_log("S:0 R:1");
        assert_ptr_equal(got, snd.user);
        assert_ptr_equal(seen, snd.user);
        assert_int_equal(cairn_heap_owner(got), 2);
        /* The sender's death does not touch it; the receiver's frees it. */
        assert_int_equal(cairn_task_kill(1), CAIRN_OK);
        assert_int_equal(cairn_alloc_size(got), 16);
        assert_int_equal(cairn_task_kill(2), CAIRN_OK);
        assert_int_equal(cairn_alloc_size(got), 0);
        assert_int_equal(cairn_heap_check(), CAIRN_OK);
    }
}

static void test_static_payload_deep_copy(void **state)
{
    (void)state;
    static const char text[16] = "0123456789abcde";
    pair(1, 3, take);
    snd.user = (void *)text;
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("S:0 R:1");
    assert_ptr_equal(seen, text);
    assert_ptr_not_equal(got, text);
    assert_int_equal(cairn_heap_owner(got), 2);
    assert_true(cairn_alloc_size(got) >= 16);
    assert_int_equal(cairn_task_kill(2), CAIRN_OK);
    assert_int_equal(cairn_alloc_size(got), 0);
}

/* Not taken: the kernel frees it after the handler (and owns it while queued). */
static void check_owner_kernel(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(1))
        return;
    seen = msg->payload;
    assert_int_equal(cairn_heap_owner(msg->payload), 0);
}

static void test_untaken_heap_payload_freed(void **state)
{
    (void)state;
    pair(5, 3, check_owner_kernel);
    struct cairn_heap_stats before, after;
    cairn_heap_stats(&before);
    snd.hook = alloc_and_send;
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("S:0 R:1");
    assert_ptr_equal(seen, snd.user);
    assert_int_equal(cairn_alloc_size(seen), 0);
    cairn_heap_stats(&after);
    assert_int_equal(after.used_bytes, before.used_bytes);
}

/* A queued heap payload survives its sender's death. */
static void test_queued_payload_outlives_sender(void **state)
{
    (void)state;
    /* R is not initialised yet, so S's message waits in the queue. */
    snd = (struct rec){.name = "S", .hook = alloc_and_send};
    rcv = (struct rec){.name = "R", .hook = take};
    rec_task(1, &snd, 5, 1);
    rec_task_uninit(2, &rcv, 3, 0);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(1)), CAIRN_OK);
    klog_reset();
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_task_kill(1), CAIRN_OK);
    assert_int_equal(cairn_alloc_size(snd.user), 16);
    assert_int_equal(cairn_task_init(2, NULL, 0), CAIRN_OK);
    assert_log("S:0 S:FINAL R:INIT R:1");
    assert_ptr_equal(got, snd.user);
    assert_int_equal(cairn_heap_owner(got), 2);
}

/* A task's own state block is never given away by sending it. */
static cairn_ret_t stateful(void *state, cairn_msg_t *msg)
{
    if (msg->port == CAIRN_PORT(0))
        assert_int_equal(cairn_send(0, state, 16), CAIRN_OK);
    return CAIRN_OK;
}

static void test_state_not_given_away(void **state)
{
    (void)state;
    rcv = (struct rec){.name = "R", .hook = take};
    char *st = cairn_malloc(16);
    memcpy(st, "0123456789abcde", 16);
    assert_int_equal(cairn_task_create(1, stateful, st, 1, NULL, 1, 0), CAIRN_OK);
    cairn_heap_set_owner(st, 1);
    assert_int_equal(cairn_task_init(1, NULL, 0), CAIRN_OK);
    rec_task(2, &rcv, 3, 0);
    assert_int_equal(cairn_route_set(1, 0, 2, CAIRN_PORT(1)), CAIRN_OK);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_ptr_not_equal(got, st); /* copied */
    assert_int_equal(cairn_heap_owner(st), 1);
    assert_int_equal(cairn_heap_owner(got), 2);
}

/* No payload, or no heap for the copy. */
static void take_fails(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port != CAIRN_PORT(1))
        return;
    got = cairn_take_msg(msg);
}

static void test_take_failures(void **state)
{
    (void)state;
    pair(1, 3, take_fails);
    snd.user = NULL;
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_null(got);
    assert_null(cairn_take_msg(NULL));
    /* Exhaust the heap, then ask for a copy. */
    static const char text[16] = "0123456789abcde";
    snd.user = (void *)text;
    void *blocks[4096];
    size_t n = 0;
    while (n < 4096 && (blocks[n] = cairn_malloc(8)) != NULL)
        n++;
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_null(got);
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    assert_int_equal(st.take_nomem, 1);
    while (n)
        cairn_free(blocks[--n]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_heap_payload_zero_copy),
        KTEST(test_static_payload_deep_copy),
        KTEST(test_untaken_heap_payload_freed),
        KTEST(test_queued_payload_outlives_sender),
        KTEST(test_state_not_given_away),
        KTEST(test_take_failures),
    };
    return cmocka_run_group_tests_name("take", tests, NULL, NULL);
}
