/*
 * Local multicast groups: one send on an output port routed to a group reaches
 * every member, highest priority first, each by the normal preemption rules;
 * members share a heap payload, which is freed after the last one.
 */
#include <string.h>

#include "ktest.h"

static struct rec s, m[4];
static uint8_t group;

static void send_0(struct rec *r, cairn_msg_t *msg)
{
    (void)r;
    if (msg->port == CAIRN_PORT(0)) {
        klog("S:send");
        klog("ret=%d", cairn_send(0, r->user, r->user ? 8 : 0));
        klog("S:back");
    }
}

/* S (2) sends to a group of A (5), B (1), C (3), D (5). */
static void setup_group(void)
{
    static const char *const names[] = {"A", "B", "C", "D"};
    static const cairn_prio_t prio[] = {5, 1, 3, 5};
    s = (struct rec){.name = "S", .hook = send_0};
    rec_task(1, &s, 2, 1);
    group = cairn_group_alloc();
    assert_int_equal(group, 1);
    for (unsigned i = 0; i < 4; i++) {
        m[i] = (struct rec){.name = names[i]};
        rec_task((cairn_task_id_t)(2 + i), &m[i], prio[i], 0);
        assert_int_equal(cairn_group_join(group, (cairn_task_id_t)(2 + i), CAIRN_PORT(10 + i)),
                         CAIRN_OK);
    }
    assert_int_equal(cairn_group_size(group), 4);
    assert_int_equal(cairn_route_set(1, 0, CAIRN_TASK_MCAST, group), CAIRN_OK);
    klog_reset();
}

static void test_multicast_order(void **state)
{
    (void)state;
    setup_group();
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("S:0 S:send A:10 D:13 C:12 ret=0 S:back B:11");
}

static void test_membership_changes(void **state)
{
    (void)state;
    setup_group();
    assert_int_equal(cairn_group_join(group, 3, CAIRN_PORT(11)), CAIRN_OK); /* twice: one entry */
    assert_int_equal(cairn_group_size(group), 4);
    assert_int_equal(cairn_group_leave(group, 2, CAIRN_PORT(10)), CAIRN_OK);
    assert_int_equal(cairn_group_leave(group, 2, CAIRN_PORT(10)), CAIRN_EINVAL);
    assert_int_equal(cairn_group_join(group, 1, CAIRN_PORT(20)), CAIRN_OK); /* S itself: queued */
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("S:0 S:send D:13 C:12 ret=0 S:back S:20 B:11");

    assert_int_equal(cairn_group_join(0, 2, CAIRN_PORT(0)), CAIRN_EINVAL);
    assert_int_equal(cairn_group_join(group, 9, CAIRN_PORT(0)), CAIRN_EINVAL);
    assert_int_equal(cairn_group_join(group, 2, CAIRN_PORT_INIT), CAIRN_EINVAL);
    /* The member table fills up. */
    unsigned used = 4;
    cairn_ret_t r = CAIRN_OK;
    for (unsigned p = 30; r == CAIRN_OK; p++, used++)
        r = cairn_group_join(group, 2, CAIRN_PORT(p));
    assert_int_equal(r, CAIRN_EFULL);
    assert_int_equal(used - 1, CAIRN_MCAST_ENTRIES);
    cairn_group_free(group);
    assert_int_equal(cairn_group_size(group), 0);
    /* An empty group: nobody to deliver to, not an error. */
    klog_reset();
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("S:0 S:send ret=0 S:back");
}

static void test_group_ids(void **state)
{
    (void)state;
    for (unsigned g = 1; g <= CAIRN_MAX_GROUPS; g++)
        assert_int_equal(cairn_group_alloc(), g);
    assert_int_equal(cairn_group_alloc(), 0);
    cairn_group_free(3);
    assert_int_equal(cairn_group_alloc(), 3);
}

/* Heap payloads: earlier members that take it get copies, the last one the block. */
static void *taken[4];
static void take_it(struct rec *r, cairn_msg_t *msg)
{
    unsigned i = (unsigned)(r - m);
    taken[i] = cairn_take_msg(msg);
    assert_non_null(taken[i]);
    assert_memory_equal(taken[i], "payload", 8);
    assert_int_equal(cairn_heap_owner(taken[i]), 2 + i);
}

static void test_shared_heap_payload(void **state)
{
    (void)state;
    setup_group();
    struct cairn_heap_stats before, after;
    cairn_heap_stats(&before);
    char *p = cairn_malloc(8);
    memcpy(p, "payload", 8);
    s.user = p;
    for (unsigned i = 0; i < 4; i++)
        m[i].hook = take_it;
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("S:0 S:send A:10 D:13 C:12 ret=0 S:back B:11");
    /* B ran last (queued): it got the block itself; the others copies. */
    assert_ptr_equal(taken[1], p);
    assert_ptr_not_equal(taken[0], p);
    assert_ptr_not_equal(taken[2], p);
    assert_ptr_not_equal(taken[3], p);
    for (unsigned i = 0; i < 4; i++)
        cairn_free(taken[i]);
    cairn_heap_stats(&after);
    assert_int_equal(after.used_bytes, before.used_bytes);
}

/* Nobody takes it: freed once, after the last member. */
static void test_shared_heap_payload_freed(void **state)
{
    (void)state;
    setup_group();
    struct cairn_heap_stats before, after;
    cairn_heap_stats(&before);
    s.user = cairn_malloc(8);
    memcpy(s.user, "payload", 8);
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    cairn_heap_stats(&after);
    assert_int_equal(after.used_bytes, before.used_bytes);
    assert_int_equal(cairn_alloc_size(s.user), 0);
}

/* When every member runs at once, the last one still gets the block itself. */
static void test_last_immediate_member_takes_block(void **state)
{
    (void)state;
    setup_group();
    assert_int_equal(cairn_group_leave(group, 3, CAIRN_PORT(11)), CAIRN_OK); /* B */
    char *p = cairn_malloc(8);
    memcpy(p, "payload", 8);
    s.user = p;
    memset(taken, 0, sizeof taken);
    for (unsigned i = 0; i < 4; i++)
        m[i].hook = take_it;
    assert_int_equal(cairn_post(1, CAIRN_PORT(0), NULL, 0), CAIRN_OK);
    assert_log("S:0 S:send A:10 D:13 C:12 ret=0 S:back");
    assert_ptr_equal(taken[2], p); /* C is last */
    assert_ptr_not_equal(taken[0], p);
    assert_ptr_not_equal(taken[3], p);
    cairn_free(taken[0]);
    cairn_free(taken[2]);
    cairn_free(taken[3]);
}

/* Pool exhaustion in the middle of a multicast: the members that got a
 * message get it, the call reports CAIRN_EFULL. */
static void test_partial_delivery(void **state)
{
    (void)state;
    setup_group();
    cairn_isr_enter(16);
    for (int i = 0; i < CAIRN_MSG_POOL - 2; i++)
        assert_int_equal(cairn_post(2, CAIRN_PORT(1), NULL, 0), CAIRN_OK);
    assert_int_equal(cairn_send_from(1, 0, NULL, 0), CAIRN_EFULL);
    cairn_isr_exit();
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    assert_int_equal(st.pool_full, 2);
    assert_int_equal(m[0].count, 1 + CAIRN_MSG_POOL - 2 + 1); /* A: INIT, posts, group */
    assert_int_equal(m[3].count, 1 + 1);                      /* D */
    assert_int_equal(m[2].count, 1);                          /* C: missed it */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_multicast_order),
        KTEST(test_membership_changes),
        KTEST(test_group_ids),
        KTEST(test_shared_heap_payload),
        KTEST(test_shared_heap_payload_freed),
        KTEST(test_last_immediate_member_takes_block),
        KTEST(test_partial_delivery),
    };
    return cmocka_run_group_tests_name("mcast", tests, NULL, NULL);
}
