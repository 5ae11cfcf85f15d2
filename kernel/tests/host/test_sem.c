/*
 * Semaphores and mutexes (cairn/sem.h) between thread tasks on the host port:
 * the classic priority inversion (inheritance makes the medium thread wait),
 * inheritance along a chain of mutexes, time limits, first come first served
 * among waiters of one priority, ownership errors, the message level's and an
 * interrupt's limits, and the blocking call's hint (CAIRN_SEM_EMERALDS: the
 * context switches it saves). Built twice: with the hint honoured and without
 * (test_sem_plain); the observable order is the same in both. So is the order around
 * EMERALDS's exchange of places, which only saves the plain build's search for the
 * lowered holder's place. A port's fast path stopped half-way through its stores and
 * completed by the kernel leaves what the whole take or give leaves.
 */
#include <string.h>

#include "ktest.h"

#include "cairn/sem.h"
#include "hwtimer.h"

#include "../../core/thread.h" /* a thread's token */

#define STACK 65536 /* ASan's frames are large */
#define P(n) CAIRN_PORT(n)

enum { TH = 3, TM = 4, TL = 5, TX = 6, TC = 7 };

static _Alignas(16) uint8_t stacks[5][STACK];
static cairn_sem_t m1, m2, cs;

static cairn_sem_stats_t stats_now(void)
{
    cairn_sem_stats_t st;
    cairn_sem_stats(&st);
    return st;
}

/* ---- the classic inversion ------------------------------------------------------------ */

static void inv_high(void *arg)
{
    (void)arg;
    cairn_msg_t m;
    assert_int_equal(cairn_thread_receive(&m, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("H:take");
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("H:took");
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
}

static void inv_medium(void *arg)
{
    (void)arg;
    cairn_msg_t m;
    assert_int_equal(cairn_thread_receive(&m, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("M:run");
}

static void inv_low(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("L:took");
    assert_int_equal(cairn_post(TH, P(1), 0, 0), CAIRN_OK); /* H runs, blocks on m1 */
    assert_int_equal(cairn_post(TM, P(1), 0, 0), CAIRN_OK); /* M is ready, below L's inherited priority */
    klog("L:give");
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
    klog("L:end");
}

static void test_inheritance_stops_the_inversion(void **state)
{
    (void)state;
    assert_int_equal(cairn_mutex_init(&m1), CAIRN_OK);
    cairn_sem_stats_t before = stats_now();
    assert_int_equal(cairn_thread_create(TH, "H", inv_high, 0, stacks[0], STACK, 6, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TM, "M", inv_medium, 0, stacks[1], STACK, 4, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TL, "L", inv_low, 0, stacks[2], STACK, 2, 0, 0), CAIRN_OK);
    /* Without inheritance M would run between H's block and L's give. */
    assert_log("L:took H:take L:give H:took M:run L:end");
    cairn_sem_stats_t after = stats_now();
    assert_int_equal(after.inherits - before.inherits, 1);
    assert_int_equal(after.blocks - before.blocks, 1);
    assert_int_equal(cairn_mutex_owner(&m1), CAIRN_TASK_NONE);
    assert_int_equal(cairn_mutex_owner(&m1), CAIRN_TASK_NONE);
    assert_null(m1.waiters);
}

/* ---- a chain: H waits for m2 (held by M, who waits for m1, held by L) ---------------------- */

static void chain_high(void *arg)
{
    (void)arg;
    klog("H:take");
    assert_int_equal(cairn_sem_take(&m2, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("H:took");
    assert_int_equal(cairn_sem_give(&m2), CAIRN_OK);
}

static void chain_mid(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m2, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("M:take");
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("M:took");
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
    assert_int_equal(cairn_sem_give(&m2), CAIRN_OK);
}

static void chain_other(void *arg)
{
    (void)arg;
    klog("X:run");
}

static void chain_low(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("L:took");
    assert_int_equal(cairn_thread_create(TM, "M", chain_mid, 0, stacks[1], STACK, 3, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TH, "H", chain_high, 0, stacks[0], STACK, 7, 0, 0), CAIRN_OK);
    /* X (5) is above L and M but below H, whose priority both inherited. */
    assert_int_equal(cairn_thread_create(TX, "X", chain_other, 0, stacks[3], STACK, 5, 0, 0), CAIRN_OK);
    klog("L:give");
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
    klog("L:end");
}

static void test_inheritance_follows_a_chain(void **state)
{
    (void)state;
    assert_int_equal(cairn_mutex_init(&m1), CAIRN_OK);
    assert_int_equal(cairn_mutex_init(&m2), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TL, "L", chain_low, 0, stacks[2], STACK, 1, 0, 0), CAIRN_OK);
    assert_log("L:took M:take H:take L:give M:took H:took X:run L:end");
}

/* ---- time limits ---------------------------------------------------------------------------- */

static void holder(void *arg)
{
    assert_int_equal(cairn_sem_take(arg, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("L:took");
    cairn_msg_t m;
    assert_int_equal(cairn_thread_receive(&m, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("L:give");
    assert_int_equal(cairn_sem_give(arg), CAIRN_OK);
}

static void timed_taker(void *arg)
{
    klog("T:%d", cairn_sem_take(arg, 10));
    klog("T:%d", cairn_sem_take(arg, 10));
}

static void test_take_times_out(void **state)
{
    (void)state;
    assert_int_equal(cairn_mutex_init(&m1), CAIRN_OK);
    cairn_sem_stats_t before = stats_now();
    assert_int_equal(cairn_thread_create(TL, "L", holder, &m1, stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TH, "T", timed_taker, &m1, stacks[1], STACK, 5, 0, 0), CAIRN_OK);
    assert_log("L:took");
    host_timer_advance(9);
    assert_log("L:took");
    host_timer_advance(1);
    assert_log("L:took T:-7"); /* CAIRN_EAGAIN; it waits again */
    assert_int_equal(cairn_mutex_owner(&m1), TL);
    assert_int_equal(cairn_post(TL, P(1), 0, 0), CAIRN_OK);
    assert_log("L:took T:-7 L:give T:0"); /* the second take got it in time */
    cairn_sem_stats_t after = stats_now();
    assert_int_equal(after.timeouts - before.timeouts, 1);
    assert_int_equal(after.blocks - before.blocks, 2);
    assert_int_equal(cairn_mutex_owner(&m1), CAIRN_TASK_NONE); /* T exited holding it */
    assert_int_equal(cairn_mutex_owner(&m1), CAIRN_TASK_NONE);
    assert_null(m1.waiters);
    host_timer_advance(20); /* the second limit's timer was cancelled: nothing more */
    assert_log("L:took T:-7 L:give T:0");
}

/* ---- waiters by priority, then first come first served --------------------------------------- */

static void waiter(void *arg)
{
    assert_int_equal(cairn_sem_take(&cs, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("%s", (const char *)arg);
}

static void test_waiters_by_priority_then_fifo(void **state)
{
    (void)state;
    assert_int_equal(cairn_sem_init(&cs, 0, 4), CAIRN_OK);
    assert_int_equal(cairn_thread_create(3, "A", waiter, "A", stacks[0], STACK, 3, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(4, "B", waiter, "B", stacks[1], STACK, 3, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(5, "D", waiter, "D", stacks[2], STACK, 5, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(6, "C", waiter, "C", stacks[3], STACK, 3, 0, 0), CAIRN_OK);
    assert_log("");
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(cairn_sem_give(&cs), CAIRN_OK); /* the message level may give */
    assert_log("D A B C");
    assert_int_equal(cs.count, 0);
    assert_int_equal(cairn_sem_give(&cs), CAIRN_OK);
    assert_int_equal(cs.count, 1);
}

static void isr_give(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_give(&cs), CAIRN_OK);
    klog("i:gave");
}

static void test_interrupt_give_wakes_a_thread(void **state)
{
    (void)state;
    assert_int_equal(cairn_sem_init(&cs, 0, 1), CAIRN_OK);
    assert_int_equal(cairn_thread_create(3, "A", waiter, "A", stacks[0], STACK, 3, 0, 0), CAIRN_OK);
    assert_log("");
    ktest_irq(isr_give, 0);
    assert_log("i:gave A"); /* when the interrupt ends, with no message queued */
    assert_int_equal(cs.count, 0);
}

/* ---- ownership and the message level ----------------------------------------------------------- */

static void owner_thread(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    assert_int_equal(cairn_sem_take(&m1, 5), CAIRN_EBUSY); /* it owns it already */
    cairn_msg_t m;
    assert_int_equal(cairn_thread_receive(&m, CAIRN_THREAD_FOREVER), CAIRN_OK);
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
    assert_int_equal(cairn_sem_give(&m1), CAIRN_EINVAL); /* no longer */
    klog("O:done");
}

static void other_thread(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_give(&m1), CAIRN_EINVAL); /* not the owner */
    klog("N:refused");
}

static cairn_ret_t handler(void *st, cairn_msg_t *m)
{
    (void)st;
    if (m->port == CAIRN_PORT_INIT)
        return CAIRN_OK;
    klog("h:%d", cairn_sem_take(&cs, 3));          /* a handler cannot wait */
    klog("h:%d", cairn_sem_try_take(&cs));
    klog("h:%d", cairn_sem_try_take(&m2));         /* a handler may own a mutex */
    klog("h:%d", cairn_sem_give(&m2));
    return CAIRN_OK;
}

static void isr_uses(void *arg)
{
    (void)arg;
    klog("i:%d", cairn_sem_try_take(&m2));         /* an interrupt cannot own */
    klog("i:%d", cairn_sem_give(&cs));
}

static void test_ownership_and_levels(void **state)
{
    (void)state;
    cairn_sem_stats_t before = stats_now();
    assert_int_equal(cairn_mutex_init(&m1), CAIRN_OK);
    assert_int_equal(cairn_mutex_init(&m2), CAIRN_OK);
    assert_int_equal(cairn_sem_init(&cs, 1, 1), CAIRN_OK);
    assert_int_equal(cairn_sem_init(&cs, 2, 1), CAIRN_EINVAL);
    assert_int_equal(cairn_sem_init(&cs, 0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_sem_init(0, 0, 1), CAIRN_EINVAL);
    assert_int_equal(cairn_mutex_init(0), CAIRN_EINVAL);
    assert_int_equal(cairn_sem_init(&cs, 1, 1), CAIRN_OK);
    assert_int_equal(cairn_sem_take(0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_sem_give(0), CAIRN_EINVAL);
    assert_int_equal(cairn_thread_create(TL, "O", owner_thread, 0, stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TM, "N", other_thread, 0, stacks[1], STACK, 3, 0, 0), CAIRN_OK);
    /* (counted from the first thread on: the counters live in the thread service's block) */
    assert_int_equal(cairn_sem_give(&cs), CAIRN_EFULL);
    assert_int_equal(cairn_sem_give(&m1), CAIRN_EINVAL); /* the message level does not own it */
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_EINVAL);
    assert_int_equal(cairn_sem_try_take(&m1), CAIRN_EAGAIN);
    assert_int_equal(cairn_post(TL, P(1), 0, 0), CAIRN_OK);
    assert_log("N:refused O:done");
    assert_int_equal(cairn_task_create(8, handler, 0, 2, 0, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_task_init(8, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_post(8, P(1), 0, 0), CAIRN_OK);
    assert_log("N:refused O:done h:-3 h:0 h:0 h:0");
    assert_int_equal(cairn_mutex_owner(&m2), CAIRN_TASK_NONE);
    ktest_irq(isr_uses, 0);
    assert_log("N:refused O:done h:-3 h:0 h:0 h:0 i:-3 i:0");
    assert_int_equal(cs.count, 1);
    cairn_sem_stats_t after = stats_now();
    /* Refused: the full give, O's second take, the two givers that did not own m1 (N, the
     * message level), O's second give, the message level's waiting take, the handler's,
     * the interrupt's. */
    assert_int_equal(after.refused - before.refused, 8);
}

/* ---- a mutex held at exit goes to its waiter ----------------------------------------------------- */

static void quitter(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    cairn_msg_t m;
    assert_int_equal(cairn_thread_receive(&m, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("Q:exit");
    cairn_thread_exit(1);
}

static void mutex_waiter(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("W:took");
    cairn_msg_t m;
    assert_int_equal(cairn_thread_receive(&m, CAIRN_THREAD_FOREVER), CAIRN_OK);
}

static void test_exit_hands_mutexes_on(void **state)
{
    (void)state;
    assert_int_equal(cairn_mutex_init(&m1), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TL, "Q", quitter, 0, stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TH, "W", mutex_waiter, 0, stacks[1], STACK, 4, 0, 0), CAIRN_OK);
    assert_log("");
    assert_int_equal(cairn_mutex_owner(&m1), TL);
    assert_int_equal(cairn_post(TL, P(1), 0, 0), CAIRN_OK);
    assert_log("Q:exit W:took");
    assert_int_equal(cairn_mutex_owner(&m1), TH);
    assert_int_equal(cairn_thread_join(TL, 0), CAIRN_OK);
}

/* ---- the blocking call's hint (EMERALDS) --------------------------------------------------------- */

static void hinted_high(void *arg)
{
    (void)arg;
    cairn_msg_t m;
    assert_int_equal(cairn_thread_receive_then(&m, CAIRN_THREAD_FOREVER, &m1), CAIRN_OK);
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("H:took");
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
}

static void hinted_low(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("L:took");
    assert_int_equal(cairn_post(TH, P(1), 0, 0), CAIRN_OK); /* wakes H, which takes m1 next */
    assert_int_equal(cairn_post(TM, P(1), 0, 0), CAIRN_OK); /* M: below what L inherited */
    klog("L:give");
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
    klog("L:end");
}

static void test_hint_saves_switches(void **state)
{
    (void)state;
    assert_int_equal(cairn_mutex_init(&m1), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TH, "H", hinted_high, 0, stacks[0], STACK, 6, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TM, "M", inv_medium, 0, stacks[1], STACK, 4, 0, 0), CAIRN_OK);
    cairn_thread_stats_t t0, t1;
    cairn_thread_stats(&t0);
    cairn_sem_stats_t before = stats_now();
    assert_int_equal(cairn_thread_create(TL, "L", hinted_low, 0, stacks[2], STACK, 2, 0, 0), CAIRN_OK);
    /* The same order either way: H holds m1 only after L's give, and M waits for both. */
    assert_log("L:took L:give H:took M:run L:end");
    cairn_thread_stats(&t1);
    cairn_sem_stats_t after = stats_now();
    assert_int_equal(after.inherits - before.inherits, 1);
    /* Switches from L's creation on, either way: message level -> L; L -> message level
     * (H's mailbox takes the post); L -> H at the give; H (exits) -> message level (M's
     * mailbox); -> M; M (exits) -> L; L (exits) -> message level. Without the hint H also
     * runs after its mailbox only to block on m1, and its mailbox's frame, which waited
     * under it, must end before L (raised to H's priority) runs: message level -> H ->
     * message level -> L instead of message level -> L, two switches more. */
#if CAIRN_SEM_EMERALDS
    assert_int_equal(after.prewaits - before.prewaits, 1);
    assert_int_equal(t1.switches - t0.switches, 8);
#else
    assert_int_equal(after.prewaits - before.prewaits, 0);
    assert_int_equal(t1.switches - t0.switches, 10);
#endif
}

static void hinted_sleeper(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_thread_sleep_then(5, &cs), CAIRN_OK);
    assert_int_equal(cairn_sem_take(&cs, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("S:took");
    assert_int_equal(cairn_thread_sleep_then(5, &cs), CAIRN_OK); /* available at the wake-up */
    assert_int_equal(cairn_sem_take(&cs, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("S:again");
}

static void test_hint_on_a_counting_semaphore(void **state)
{
    (void)state;
    assert_int_equal(cairn_sem_init(&cs, 0, 2), CAIRN_OK);
    cairn_sem_stats_t before = stats_now();
    assert_int_equal(cairn_thread_create(TH, "S", hinted_sleeper, 0, stacks[0], STACK, 3, 0, 0), CAIRN_OK);
    host_timer_advance(5);
    assert_log("");
    assert_int_equal(cairn_sem_give(&cs), CAIRN_OK);
    assert_log("S:took");
    assert_int_equal(cairn_sem_give(&cs), CAIRN_OK);
    assert_int_equal(cs.count, 1);
    host_timer_advance(5);
    assert_log("S:took S:again");
    assert_int_equal(cs.count, 0);
    cairn_sem_stats_t after = stats_now();
    assert_int_equal(after.prewaits - before.prewaits, CAIRN_SEM_EMERALDS ? 1 : 0);
    assert_int_equal(after.blocks - before.blocks, 1); /* the prewait, or the take's wait */
    /* The message level cannot announce: it cannot block. */
    cairn_msg_t m;
    assert_int_equal(cairn_thread_receive_then(&m, 0, &cs), CAIRN_EINVAL);
    assert_int_equal(cairn_thread_sleep_then(1, &cs), CAIRN_EINVAL);
}

/* ---- EMERALDS's exchange of places ------------------------------------------------------ */

static cairn_sem_t go, fill;

static void ex_high(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&go, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("H:take");
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("H:took");
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
}

static void ex_filler(void *arg)
{
    assert_int_equal(cairn_sem_take(&fill, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("%s:run", (const char *)arg);
}

static void ex_low(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("L:took");
    assert_int_equal(cairn_sem_give(&go), CAIRN_OK); /* H runs and blocks on m1: L is raised */
    klog("L:raised");
    /* Two threads of L's own priority become ready behind L's place while L runs above it. */
    assert_int_equal(cairn_sem_give(&fill), CAIRN_OK);
    assert_int_equal(cairn_sem_give(&fill), CAIRN_OK);
    klog("L:give");
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK); /* H at once; L back first of its priority */
    klog("L:end");
}

static void test_exchange_of_places(void **state)
{
    (void)state;
    assert_int_equal(cairn_mutex_init(&m1), CAIRN_OK);
    assert_int_equal(cairn_sem_init(&go, 0, 1), CAIRN_OK);
    assert_int_equal(cairn_sem_init(&fill, 0, 2), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TH, "H", ex_high, 0, stacks[0], STACK, 5, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TM, "F1", ex_filler, "F1", stacks[1], STACK, 2, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TX, "F2", ex_filler, "F2", stacks[2], STACK, 2, 0, 0), CAIRN_OK);
    cairn_thread_stats_t t0, t1;
    cairn_thread_stats(&t0);
    cairn_sem_stats_t before = stats_now();
    assert_int_equal(cairn_thread_create(TL, "L", ex_low, 0, stacks[3], STACK, 2, 0, 0), CAIRN_OK);
    /* The same order either way: the raised L runs before the fillers, H takes m1 at L's
     * give, and L, lowered, resumes before the fillers that became ready meanwhile. */
    assert_log("L:took H:take L:raised L:give H:took L:end F1:run F2:run");
    cairn_thread_stats(&t1);
    cairn_sem_stats_t after = stats_now();
    assert_int_equal(after.inherits - before.inherits, 1);
    assert_int_equal(t1.switches - t0.switches, 8); /* the same switches: L, H, L, H, L, F1, F2, the message level */
#if CAIRN_SEM_EMERALDS
    /* L took H's place and H L's; the give exchanged them back: no search. */
    assert_int_equal(after.exchanges - before.exchanges, 1);
    assert_int_equal(after.requeue_steps - before.requeue_steps, 0);
#else
    /* L's place is searched for, past the two fillers that came after it. */
    assert_int_equal(after.exchanges - before.exchanges, 0);
    assert_int_equal(after.requeue_steps - before.requeue_steps, 2);
#endif
}

static void third_waiter(void *arg)
{
    klog("%s:take", (const char *)arg);
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("%s:took", (const char *)arg);
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
}

static void third_low(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    /* W1 (3) blocks: L takes its place; W2 (5) blocks: W1's place goes back, L takes W2's. */
    assert_int_equal(cairn_thread_create(TM, "W1", third_waiter, "W1", stacks[1], STACK, 3, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TH, "W2", third_waiter, "W2", stacks[0], STACK, 5, 0, 0), CAIRN_OK);
    klog("L:give");
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
    klog("L:end");
}

static void test_a_third_thread_raises_the_holder_again(void **state)
{
    (void)state;
    assert_int_equal(cairn_mutex_init(&m1), CAIRN_OK);
    cairn_sem_stats_t before = stats_now();
    assert_int_equal(cairn_thread_create(TL, "L", third_low, 0, stacks[2], STACK, 1, 0, 0), CAIRN_OK);
    assert_log("W1:take W2:take L:give W2:took W1:took L:end");
    cairn_sem_stats_t after = stats_now();
    assert_int_equal(after.exchanges - before.exchanges, CAIRN_SEM_EMERALDS ? 2 : 0);
    assert_int_equal(after.inherits - before.inherits, 2);
    assert_int_equal(cairn_mutex_owner(&m1), CAIRN_TASK_NONE);
    assert_null(m1.waiters);
}

static void expiring_waiter(void *arg)
{
    (void)arg;
    klog("W:%d", cairn_sem_take(&m1, 10));
}

static void expiring_low(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TH, "W", expiring_waiter, 0, stacks[0], STACK, 4, 0, 0), CAIRN_OK);
    klog("L:raised");
    host_timer_advance(10); /* W's limit ends while L runs in its place */
    klog("L:back");
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
}

static void test_a_waiter_times_out_while_the_holder_holds_its_place(void **state)
{
    (void)state;
    assert_int_equal(cairn_mutex_init(&m1), CAIRN_OK);
    cairn_sem_stats_t before = stats_now();
    assert_int_equal(cairn_thread_create(TL, "L", expiring_low, 0, stacks[2], STACK, 1, 0, 0), CAIRN_OK);
    assert_log("L:raised W:-7 L:back");
    cairn_sem_stats_t after = stats_now();
    assert_int_equal(after.exchanges - before.exchanges, CAIRN_SEM_EMERALDS ? 1 : 0);
    assert_int_equal(after.timeouts - before.timeouts, 1);
    assert_int_equal(cairn_mutex_owner(&m1), CAIRN_TASK_NONE);
}

static void equal_holder(void *arg);

static void creator_of_equals(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_thread_create(TH, "H", equal_holder, 0, stacks[0], STACK, 3, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TM, "W", third_waiter, "W", stacks[1], STACK, 3, 0, 0), CAIRN_OK);
}

static void equal_holder(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("H:took");
    cairn_thread_yield(); /* W, of the same priority, runs and blocks on m1 */
    klog("H:give");
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
    klog("H:end");
}

static void test_nothing_moves_when_the_holder_runs_as_high(void **state)
{
    (void)state;
    assert_int_equal(cairn_mutex_init(&m1), CAIRN_OK);
    cairn_thread_set_slice(0);
    cairn_sem_stats_t before = stats_now();
    assert_int_equal(cairn_thread_create(TC, "creator", creator_of_equals, 0, stacks[4], STACK, 6, 0, 0), CAIRN_OK);
    /* W blocks behind H; H's give readies W behind H, which runs on to its end. */
    assert_log("H:took W:take H:give H:end W:took");
    cairn_sem_stats_t after = stats_now();
    assert_int_equal(after.exchanges - before.exchanges, 0);
    assert_int_equal(after.inherits - before.inherits, 0);
    assert_int_equal(after.requeue_steps - before.requeue_steps, 0);
    cairn_thread_set_slice(CAIRN_THREAD_SLICE_TICKS);
}

/* ---- the uncontended mutex: one word, unfolded when needed ---------------------------------- */

static void lazy_holder(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&m1, CAIRN_THREAD_FOREVER), CAIRN_OK);
    assert_int_equal(cairn_sem_take(&m2, CAIRN_THREAD_FOREVER), CAIRN_OK);
    assert_int_equal(m1.lock, cairn__thread_current()->token); /* the fast path's one word */
    assert_int_equal(cairn_mutex_owner(&m1), TL);
    assert_int_equal(cairn_sem_take(&m1, 0), CAIRN_EBUSY); /* the general path: it is ours */
    assert_int_equal(m1.lock, CAIRN_SEM_SLOW);
    assert_int_equal(cairn_mutex_owner(&m1), TL);
    assert_int_equal(cairn_sem_give(&m1), CAIRN_OK);
    assert_int_equal(m1.lock, 0); /* free, nobody waiting: one word again */
    klog("L:exit"); /* holding m2, taken uncontended */
}

static void lazy_taker(void *arg)
{
    (void)arg;
    klog("T:%d", cairn_sem_take(&m2, 0));
    klog("T:%d", cairn_sem_give(&m2));
    /* The inline pair is the same take and give. */
    assert_int_equal(cairn_mutex_lock(&m2), CAIRN_OK);
    assert_int_equal(m2.lock, cairn__thread_current()->token);
    assert_int_equal(cairn_mutex_lock(&m2), CAIRN_EBUSY);
    assert_int_equal(cairn_mutex_unlock(&m2), CAIRN_OK);
    assert_int_equal(cairn_mutex_unlock(&m2), CAIRN_EINVAL); /* not its own any more */
}

static void test_an_uncontended_mutex_is_one_word(void **state)
{
    (void)state;
    assert_int_equal(cairn_mutex_init(&m1), CAIRN_OK);
    assert_int_equal(cairn_mutex_init(&m2), CAIRN_OK);
    assert_int_equal(m1.lock, 0);
    assert_int_equal(cairn_thread_create(TL, "L", lazy_holder, 0, stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    assert_log("L:exit");
    /* Its token is still in m2's word: an exited holder's mutex is free. */
    assert_int_not_equal(m2.lock, 0);
    assert_int_equal(cairn_mutex_owner(&m2), CAIRN_TASK_NONE);
    assert_int_equal(cairn_thread_join(TL, 0), CAIRN_OK);
    /* No thread left: the counters start again, the tokens do not (a new thread is not the
     * old holder). */
    assert_int_equal(cairn_thread_create(TL, "T", lazy_taker, 0, stacks[1], STACK, 2, 0, 0), CAIRN_OK);
    assert_log("L:exit T:0 T:0");
    assert_int_equal(cairn_mutex_owner(&m2), CAIRN_TASK_NONE);
    assert_int_equal(m2.lock, 0);
    assert_int_equal(cairn_thread_join(TL, 0), CAIRN_OK);
}

/* ---- where the switch a thread's own give decides happens ------------------------------------- */

static void twice_waiter(void *arg)
{
    (void)arg;
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(cairn_sem_take(&cs, CAIRN_THREAD_FOREVER), CAIRN_OK);
        klog("H:took");
    }
}

static void giver(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_give(&cs), CAIRN_OK); /* interrupts enabled: H runs inside it */
    klog("L:gave");
    uint32_t s = arch_irq_save();
    assert_int_equal(cairn_sem_give(&cs), CAIRN_OK); /* masked: H waits for the unmasking */
    klog("L:gave masked");
    arch_irq_restore(s);
    klog("L:unmasked");
}

static void test_a_give_switches_at_once_unless_masked(void **state)
{
    (void)state;
    assert_int_equal(cairn_sem_init(&cs, 0, 1), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TH, "H", twice_waiter, 0, stacks[0], STACK, 5, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(TL, "L", giver, 0, stacks[1], STACK, 2, 0, 0), CAIRN_OK);
    assert_log("H:took L:gave L:gave masked H:took L:unmasked");
    assert_int_equal(cairn_thread_join(TH, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_join(TL, 0), CAIRN_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_inheritance_stops_the_inversion),
        KTEST(test_inheritance_follows_a_chain),
        KTEST(test_take_times_out),
        KTEST(test_waiters_by_priority_then_fifo),
        KTEST(test_interrupt_give_wakes_a_thread),
        KTEST(test_ownership_and_levels),
        KTEST(test_exit_hands_mutexes_on),
        KTEST(test_hint_saves_switches),
        KTEST(test_hint_on_a_counting_semaphore),
        KTEST(test_exchange_of_places),
        KTEST(test_a_third_thread_raises_the_holder_again),
        KTEST(test_a_waiter_times_out_while_the_holder_holds_its_place),
        KTEST(test_nothing_moves_when_the_holder_runs_as_high),
        KTEST(test_an_uncontended_mutex_is_one_word),
        KTEST(test_a_give_switches_at_once_unless_masked),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
