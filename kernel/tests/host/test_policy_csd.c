/*
 * CSD-k (cairn/policy.h, docs/policies.md), built with CAIRN_POLICY=CAIRN_POLICY_CSD and
 * CAIRN_CSD_K=3 (CSD-3): EDF queues 0 and 1 above the fixed-priority queue 2. The highest
 * non-empty queue runs, by deadline in an EDF queue and by priority in the FP queue;
 * preemption across and within queues by SRP levels on the one stack.
 */
#include "ktest.h"
#include "one_stack.h"
#include "policy/storm.h"

#include "cairn/arch_timer.h"
#include "hwtimer.h"

_Static_assert(CAIRN_POLICY == CAIRN_POLICY_CSD && CAIRN_CSD_K == 3, "built as CSD-3");

enum { FP_Q = CAIRN_CSD_FP_QUEUE };
enum { P = 1, Q, R, S, T, U };
static struct rec p, q, r, s, t, u;

/* Creates task id at level prio in queue qn with relative deadline rel (0: none). */
static void csd_task(cairn_task_id_t id, struct rec *rc, const char *name, cairn_prio_t prio,
                     uint8_t qn, uint32_t rel)
{
    *rc = (struct rec){.name = name};
    rec_task_uninit(id, rc, prio, 0);
    assert_int_equal(cairn_task_queue(id, qn), CAIRN_OK);
    if (rel)
        assert_int_equal(cairn_task_deadline(id, rel), CAIRN_OK);
    assert_int_equal(cairn_task_init(id, NULL, 0), CAIRN_OK);
}

static void post(cairn_task_id_t id, unsigned port)
{
    assert_int_equal(cairn_post(id, CAIRN_PORT(port), NULL, 0), CAIRN_OK);
}

/* Levels banded by queue: queue 0 at 9-10, queue 1 at 6-7, the FP queue 1-5. */
static void six_tasks(void)
{
    csd_task(P, &p, "P", 10, 0, 400); /* queue 0, a long deadline */
    csd_task(Q, &q, "Q", 9, 0, 500);
    csd_task(R, &r, "R", 7, 1, 10);   /* queue 1, a short deadline */
    csd_task(S, &s, "S", 6, 1, 20);
    csd_task(T, &t, "T", 2, FP_Q, 0); /* the FP queue: by priority */
    csd_task(U, &u, "U", 5, FP_Q, 0);
    klog_reset();
}

static void isr_posts_all(void *arg)
{
    (void)arg;
    static const cairn_task_id_t to[] = {T, S, U, Q, R, P, T, Q};
    for (unsigned i = 0; i < CAIRN_COUNT(to); i++) {
        host_timer_set(arch_timer_now() + 1);
        post(to[i], i);
    }
    klog("irq:end");
}

/* Queue 0 first, by deadline (P's 6 + 400 before Q's 4 + 500 and 8 + 500), then queue 1
 * (R before S), although its deadlines are all earlier than queue 0's, then the FP queue
 * by priority (U, then T's two in send order). */
static void test_queue_order(void **state)
{
    (void)state;
    six_tasks();
    ktest_irq(isr_posts_all, NULL);
    assert_log("irq:end P:5 Q:3 Q:7 R:4 S:1 U:2 T:0 T:6");
}

/* A task starts in the FP queue; cairn_task_queue moves it (promotion) before its next
 * message: its messages then outrank every FP message. */
static void isr_posts_t_u(void *arg)
{
    (void)arg;
    post(T, 0);
    post(U, 1);
    klog("irq:end");
}

static void test_default_queue_and_promotion(void **state)
{
    (void)state;
    t = (struct rec){.name = "T"};
    u = (struct rec){.name = "U"};
    rec_task(T, &t, 2, 0);
    rec_task(U, &u, 5, 0);
    assert_int_equal(cairn_task_queue_get(T), FP_Q);
    klog_reset();
    ktest_irq(isr_posts_t_u, NULL);
    assert_log("irq:end U:1 T:0");
    /* T into EDF queue 1 (and, as SRP wants, above U's level: a new task) */
    assert_int_equal(cairn_task_kill(T), CAIRN_OK);
    csd_task(T, &t, "T", 6, 1, 100);
    assert_int_equal(cairn_task_queue_get(T), 1);
    klog_reset();
    ktest_irq(isr_posts_t_u, NULL);
    assert_log("irq:end T:0 U:1");
}

/* Preemption across queues: an FP handler's send to an EDF task runs at once (a higher
 * queue, a higher level); an EDF handler's send to an FP task of any priority waits; and
 * a queue-0 task whose level is below the running FP handler's (levels not banded) waits
 * too — SRP keeps the stack, whatever the queues say. */
static void u_sends(struct rec *rc, cairn_msg_t *msg)
{
    (void)rc;
    if (msg->port != CAIRN_PORT(0))
        return;
    post(R, 1); /* queue 1, level 7 > 5: at once */
    post(S, 2); /* queue 1, level 6: at once */
    post(T, 3); /* FP, priority 2 < 5: waits */
    klog("U:end");
}

static void r_sends(struct rec *rc, cairn_msg_t *msg)
{
    (void)rc;
    klog("depth=%u", assert_one_stack());
    if (msg->port == CAIRN_PORT(1))
        post(U, 9); /* the FP queue, from queue 1: waits (U is on the stack anyway) */
}

static void test_preemption_across_queues(void **state)
{
    (void)state;
    six_tasks();
    u.hook = u_sends;
    r.hook = r_sends;
    s.hook = r_sends;
    post(U, 0);
    assert_log("U:0 R:1 depth=2 S:2 depth=2 U:end U:9 T:3");
}

static void isr_posts_p(void *arg)
{
    (void)arg;
    post(P, 4);
}

static void u_interrupted(struct rec *rc, cairn_msg_t *msg)
{
    (void)rc;
    if (msg->port != CAIRN_PORT(0))
        return;
    ktest_irq(isr_posts_p, NULL);
    klog("U:end");
}

static void test_unbanded_level_waits(void **state)
{
    (void)state;
    csd_task(P, &p, "P", 3, 0, 100); /* queue 0, but level 3 */
    csd_task(U, &u, "U", 5, FP_Q, 0);
    u.hook = u_interrupted;
    klog_reset();
    post(U, 0);
    assert_log("U:0 U:end P:4");
    /* the same with P's level above U's: it preempts at the interrupt's end */
    assert_int_equal(cairn_task_kill(P), CAIRN_OK);
    csd_task(P, &p, "P", 8, 0, 100);
    klog_reset();
    post(U, 0);
    assert_log("U:0 P:4 U:end");
}

/* Within the FP queue CSD is fixed priority, but under SRP: an equal priority waits. */
static void t_sends(struct rec *rc, cairn_msg_t *msg)
{
    (void)rc;
    if (msg->port == CAIRN_PORT(0))
        post(Q, 1), post(U, 2), klog("T:end");
}

static void test_fp_queue_equal_level_waits(void **state)
{
    (void)state;
    csd_task(T, &t, "T", 5, FP_Q, 0);
    csd_task(U, &u, "U", 5, FP_Q, 0);
    csd_task(Q, &q, "Q", 9, 0, 50);
    t.hook = t_sends;
    klog_reset();
    post(T, 0);
    assert_log("T:0 Q:1 T:end U:2");
}

static void test_bad_arguments(void **state)
{
    (void)state;
    t = (struct rec){.name = "T"};
    rec_task(T, &t, 2, 0);
    assert_int_equal(cairn_task_queue(T, CAIRN_CSD_FP_QUEUE + 1), CAIRN_EINVAL);
    assert_int_equal(cairn_task_queue(U, 0), CAIRN_EINVAL); /* no such task */
    assert_int_equal(cairn_task_queue(T, 0), CAIRN_OK);
    assert_int_equal(cairn_task_queue_get(T), 0);
    assert_int_equal(cairn_task_kill(T), CAIRN_OK);
    rec_task(T, &t, 2, 0);
    assert_int_equal(cairn_task_queue_get(T), FP_Q); /* a new task starts in the FP queue */
}

/* Moving a task with messages queued re-sorts them: T's message, queued behind U's in the FP
 * queue, moves with T into EDF queue 1 and runs first. */
static void isr_posts_then_moves_t(void *arg)
{
    (void)arg;
    post(T, 0);
    post(U, 1);
    assert_int_equal(cairn_task_queue(T, 1), CAIRN_OK);
    klog("irq:end");
}

static void test_queue_move_resorts_queued(void **state)
{
    (void)state;
    csd_task(T, &t, "T", 2, FP_Q, 100); /* below U: only the queue can put T first */
    csd_task(U, &u, "U", 5, FP_Q, 0);
    klog_reset();
    ktest_irq(isr_posts_then_moves_t, NULL);
    assert_log("irq:end T:0 U:1");
    assert_int_equal(cairn_task_queue_get(T), 1);
}

/* And back: moved into the FP queue, T's message goes behind U's higher priority. */
static void isr_posts_then_demotes_t(void *arg)
{
    (void)arg;
    post(T, 0);
    post(U, 1);
    assert_int_equal(cairn_task_queue(T, FP_Q), CAIRN_OK);
    klog("irq:end");
}

static void test_queue_demotion_resorts_queued(void **state)
{
    (void)state;
    csd_task(T, &t, "T", 2, 1, 100);
    csd_task(U, &u, "U", 5, FP_Q, 0);
    klog_reset();
    ktest_irq(isr_posts_then_demotes_t, NULL);
    assert_log("irq:end U:1 T:0");
}

/* A new relative deadline moves the deadlines the old one gave by the change, so R's queued
 * message (10 -> 100) falls behind S's (20); the deadline a sender gave stays. */
static void isr_posts_then_lengthens_r(void *arg)
{
    (void)arg;
    post(R, 0);
    post(S, 1);
    assert_int_equal(cairn_post_deadline(R, CAIRN_PORT(2), NULL, 0, 5), CAIRN_OK);
    assert_int_equal(cairn_task_deadline(R, 100), CAIRN_OK);
    klog("irq:end");
}

static void test_deadline_change_resorts_queued(void **state)
{
    (void)state;
    csd_task(R, &r, "R", 7, 1, 10);
    csd_task(S, &s, "S", 6, 1, 20);
    klog_reset();
    ktest_irq(isr_posts_then_lengthens_r, NULL);
    assert_log("irq:end R:2 S:1 R:0");
}

/* The one-stack property under a storm across the three queues. */
static void test_one_stack_storm(void **state)
{
    (void)state;
    static struct rec storm[6];
    static const char *names[] = {"S1", "S2", "S3", "S4", "S5", "S6"};
    storm_start(6, 777);
    /* levels 1..6: tasks 1-2 in the FP queue, 3-4 in queue 1, 5-6 in queue 0 */
    for (unsigned i = 0; i < 6; i++) {
        csd_task((cairn_task_id_t)(i + 1), &storm[i], names[i], (cairn_prio_t)(i + 1),
                 (uint8_t)(2 - i / 2), i < 2 ? 0 : 600 - 100 * i);
        storm[i].hook = storm_hook_of(i);
    }
    struct storm_counts c = storm_run(200);
    assert_int_equal(c.handled, c.sent);
    assert_true(c.max_depth >= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_queue_order),
        KTEST(test_default_queue_and_promotion),
        KTEST(test_preemption_across_queues),
        KTEST(test_unbanded_level_waits),
        KTEST(test_fp_queue_equal_level_waits),
        KTEST(test_bad_arguments),
        KTEST(test_queue_move_resorts_queued),
        KTEST(test_queue_demotion_resorts_queued),
        KTEST(test_deadline_change_resorts_queued),
        KTEST(test_one_stack_storm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
