/*
 * Thread tasks (cairn/thread.h) on the host port's ucontext switch: priorities
 * against each other and against the message level (which wins ties), round
 * robin on simulated slice expiries, blocking receive with and without a time
 * limit, sleep on the host timer model, join, and the guard word.
 */
#include <string.h>

#include "ktest.h"

#include "hwtimer.h"

#include "../../core/kernel.h"

#define STACK 65536 /* ASan's frames are large */
#define P(n) CAIRN_PORT(n)

static _Alignas(16) uint8_t stacks[4][STACK];

/* ---- one thread that receives and logs ---------------------------------------------- */

static void receiver(void *arg)
{
    const char *name = arg;
    klog("%s:start", name);
    for (;;) {
        cairn_msg_t m;
        cairn_ret_t r = cairn_thread_receive(&m, CAIRN_THREAD_FOREVER);
        if (r != CAIRN_OK) {
            klog("%s:err%d", name, r);
            return;
        }
        klog("%s:got%u", name, CAIRN_PORT_NUM(m.port));
        if (CAIRN_PORT_NUM(m.port) == 9)
            cairn_thread_exit(9);
    }
}

static void test_create_runs_at_once_and_receive_blocks(void **state)
{
    (void)state;
    assert_int_equal(cairn_thread_create(3, "r", receiver, "r", stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    assert_log("r:start"); /* the idle message level gave way at once */
    assert_int_equal(cairn_current_task(), CAIRN_TASK_NONE);
    assert_int_equal(cairn_post(3, P(1), 0, 0), CAIRN_OK);
    assert_log("r:start r:got1");
    assert_int_equal(cairn_post(3, P(9), 0, 0), CAIRN_OK);
    assert_log("r:start r:got1 r:got9");
    int code = 0;
    assert_int_equal(cairn_thread_join(3, &code), CAIRN_OK);
    assert_int_equal(code, 9);
    assert_false(cairn_task_exists(3));
    assert_int_equal(cairn_thread_join(3, &code), CAIRN_EINVAL); /* joined already */
    assert_int_equal(cairn_host_thread_contexts(), 0);
}

/* ---- priorities ------------------------------------------------------------------------- */

static void low(void *arg)
{
    (void)arg;
    klog("L:start");
    cairn_msg_t m;
    assert_int_equal(cairn_thread_receive(&m, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("L:got");
    assert_int_equal(cairn_post(5, P(1), 0, 0), CAIRN_OK); /* to H: it runs before this returns */
    klog("L:after");
    assert_int_equal(cairn_thread_receive(&m, CAIRN_THREAD_FOREVER), CAIRN_OK);
}

static void test_higher_thread_preempts_a_sender(void **state)
{
    (void)state;
    assert_int_equal(cairn_thread_create(4, "L", low, 0, stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(5, "H", receiver, "H", stacks[1], STACK, 5, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_post(4, P(1), 0, 0), CAIRN_OK);
    assert_log("L:start H:start L:got H:got1 L:after");
}

/* ---- the message level wins ties ------------------------------------------------------------ */

static cairn_ret_t msg_task(void *st, cairn_msg_t *m)
{
    (void)st;
    if (m->port != CAIRN_PORT_INIT)
        klog("M%u:%u", (unsigned)cairn_current_task(), CAIRN_PORT_NUM(m->port));
    return CAIRN_OK;
}

static void poster(void *arg)
{
    (void)arg;
    klog("T:before");
    assert_int_equal(cairn_current_task(), 6);
    assert_int_equal(cairn_thread_self(), 6);
    cairn_send(0, 0, 0); /* to M7, of equal priority: runs at once */
    cairn_send(1, 0, 0); /* to M8, lower: when this thread blocks */
    klog("T:after");
    cairn_msg_t m;
    (void)cairn_thread_receive(&m, CAIRN_THREAD_FOREVER);
}

static void test_message_level_wins_ties(void **state)
{
    (void)state;
    assert_int_equal(cairn_task_create(7, msg_task, 0, 3, 0, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_task_create(8, msg_task, 0, 1, 0, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_task_init(7, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_task_init(8, 0, 0), CAIRN_OK);
    cairn_route_t routes[2] = {{7, P(1)}, {8, P(2)}};
    assert_int_equal(cairn_thread_create(6, "T", poster, 0, stacks[0], STACK, 3, routes, 2), CAIRN_OK);
    assert_log("T:before M7:1 T:after M8:2");
}

/* ---- round robin ------------------------------------------------------------------------------ */

static unsigned work[2];
static char runs[256];

static void worker(void *arg)
{
    unsigned me = (unsigned)(uintptr_t)arg;
    for (unsigned i = 0; i < 12; i++) {
        size_t n = strlen(runs);
        if (n < sizeof runs - 1)
            runs[n] = (char)('A' + me);
        work[me]++;
        host_timer_advance(1); /* one tick of work: the timer interrupt may end the slice */
    }
}

static void starter(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_thread_create(11, "A", worker, (void *)0, stacks[1], STACK, 3, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(12, "B", worker, (void *)1, stacks[2], STACK, 3, 0, 0), CAIRN_OK);
    assert_string_equal(runs, ""); /* lower than the starter */
}

static void test_round_robin_on_the_slice(void **state)
{
    (void)state;
    memset(runs, 0, sizeof runs);
    work[0] = work[1] = 0;
    cairn_thread_set_slice(4);
    assert_int_equal(cairn_thread_get_slice(), 4);
    assert_int_equal(cairn_thread_create(10, "S", starter, 0, stacks[0], STACK, 9, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_join(10, 0), CAIRN_OK);
    /* Both ran to completion, four ticks at a time, A first (created first). */
    assert_int_equal(work[0], 12);
    assert_int_equal(work[1], 12);
    assert_string_equal(runs, "AAAABBBBAAAABBBBAAAABBBB");
    cairn_thread_stats_t st;
    cairn_thread_stats(&st);
    /* Six slices ended with the other ready: each thread's last one too, as a slice
     * ends inside a timer tick, before the thread's loop (and A's life) ends. */
    assert_int_equal(st.slices, 6);
    assert_int_equal(cairn_thread_join(11, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_join(12, 0), CAIRN_OK);
    cairn_thread_set_slice(CAIRN_THREAD_SLICE_TICKS);
}

static void test_no_slice_runs_to_block(void **state)
{
    (void)state;
    memset(runs, 0, sizeof runs);
    work[0] = work[1] = 0;
    cairn_thread_set_slice(0);
    assert_int_equal(cairn_thread_create(10, "S", starter, 0, stacks[0], STACK, 9, 0, 0), CAIRN_OK);
    assert_string_equal(runs, "AAAAAAAAAAAABBBBBBBBBBBB");
    cairn_thread_set_slice(CAIRN_THREAD_SLICE_TICKS);
}

/* ---- time limits, sleep, idle ----------------------------------------------------------------- */

static void timed(void *arg)
{
    (void)arg;
    cairn_msg_t m;
    klog("t:%d", cairn_thread_receive(&m, 10));
    klog("t:%d", cairn_thread_receive(&m, 10));
    klog("t:%d", cairn_thread_receive(&m, 0));
    klog("t:sleep");
    assert_int_equal(cairn_thread_sleep(50), CAIRN_OK);
    klog("t:woke");
}

static void test_receive_timeout_and_sleep(void **state)
{
    (void)state;
    assert_int_equal(cairn_thread_create(3, "t", timed, 0, stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    assert_log("");
    host_timer_advance(9);
    assert_log("");
    host_timer_advance(1);
    assert_log("t:-7"); /* CAIRN_EAGAIN */
    host_timer_advance(3);
    assert_int_equal(cairn_post(3, P(1), 0, 0), CAIRN_OK);
    assert_log("t:-7 t:0 t:-7 t:sleep");
    /* A blocked thread does not keep the module awake: the idle loop sleeps until its timer. */
    uint32_t calls = cairn_host_idle_calls();
    cairn_idle();
    assert_int_equal(cairn_host_idle_calls(), calls + 1);
    assert_int_equal(cairn_host_idle_last_ticks(), 50);
    host_timer_advance(49);
    assert_log("t:-7 t:0 t:-7 t:sleep");
    host_timer_advance(1);
    assert_log("t:-7 t:0 t:-7 t:sleep t:woke");
    assert_int_equal(cairn_thread_join(3, 0), CAIRN_OK);
}

/* ---- an interrupt's message wakes a thread ----------------------------------------------------- */

static void irq_post(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_post(3, P(2), 0, 0), CAIRN_OK);
    assert_log("r:start"); /* queued until the interrupt ends */
}

static void test_interrupt_wakes_a_thread(void **state)
{
    (void)state;
    assert_int_equal(cairn_thread_create(3, "r", receiver, "r", stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    ktest_irq(irq_post, 0);
    assert_log("r:start r:got2");
}

/* An interrupt that wakes a higher thread a second time, while a lower thread runs: the
 * woken thread preempts the lower one each time, not only when it blocks. */
static void wake_h(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_post(5, P(1), 0, 0), CAIRN_OK);
}

static void lower_with_interrupts(void *arg)
{
    (void)arg;
    for (unsigned i = 1; i <= 3; i++) {
        klog("L:irq%u", i);
        ktest_irq(wake_h, 0);
    }
    klog("L:end");
    cairn_msg_t m;
    (void)cairn_thread_receive(&m, CAIRN_THREAD_FOREVER);
}

static void test_interrupt_wakes_a_higher_thread_again(void **state)
{
    (void)state;
    assert_int_equal(cairn_thread_create(5, "H", receiver, "H", stacks[0], STACK, 5, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(4, "L", lower_with_interrupts, 0, stacks[1], STACK, 2, 0, 0),
                     CAIRN_OK);
    assert_log("H:start L:irq1 H:got1 L:irq2 H:got1 L:irq3 H:got1 L:end");
    /* Both blocked: nothing is left on the message level's stack or in its queue. */
    assert_null(cairn_k.top);
    assert_null(cairn_k.queue);
}

/* ---- payloads ----------------------------------------------------------------------------------- */

static void *kept;

static void taker(void *arg)
{
    (void)arg;
    cairn_msg_t m;
    assert_int_equal(cairn_thread_receive(&m, CAIRN_THREAD_FOREVER), CAIRN_OK);
    assert_string_equal(m.payload, "heap1");
    kept = cairn_take_msg(&m);
    assert_int_equal(cairn_thread_receive(&m, CAIRN_THREAD_FOREVER), CAIRN_OK);
    assert_string_equal(m.payload, "heap2"); /* not taken: freed at the next receive */
    assert_int_equal(cairn_thread_receive(&m, CAIRN_THREAD_FOREVER), CAIRN_OK);
}

static void test_heap_payload_ownership(void **state)
{
    (void)state;
    assert_int_equal(cairn_thread_create(3, "p", taker, 0, stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    char *a = cairn_malloc(6), *b = cairn_malloc(6);
    memcpy(a, "heap1", 6);
    memcpy(b, "heap2", 6);
    assert_int_equal(cairn_post(3, P(1), a, 6), CAIRN_OK);
    assert_ptr_equal(kept, a);
    assert_int_equal(cairn_heap_owner(a), 3);
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    size_t blocks = st.blocks_used;
    assert_int_equal(cairn_post(3, P(1), b, 6), CAIRN_OK);
    /* The thread's next receive freed b, which it had not taken; a stays its own. */
    cairn_heap_stats(&st);
    assert_int_equal(st.blocks_used, blocks - 1);
    assert_int_equal(cairn_heap_owner(a), 3);
    assert_int_equal(st.bad_frees, 0);
    assert_int_equal(cairn_heap_check(), CAIRN_OK);
}

static void test_full_mailbox_refuses(void **state)
{
    (void)state;
    assert_int_equal(cairn_thread_create(3, "f", receiver, "f", stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    cairn_isr_enter(16); /* everything queues: the mailbox takes them one after another */
    for (unsigned i = 0; i < CAIRN_THREAD_MAILBOX + 2; i++)
        assert_int_equal(cairn_post(3, P(1), 0, 0), CAIRN_OK);
    cairn_isr_exit();
    cairn_thread_stats_t st;
    cairn_thread_stats(&st);
    assert_int_equal(st.mailbox_full, 2);
    assert_log("f:start f:got1 f:got1 f:got1 f:got1");
}

/* ---- join ------------------------------------------------------------------------------------------ */

static void short_lived(void *arg)
{
    klog("s:run");
    cairn_thread_sleep(5);
    cairn_thread_exit((int)(uintptr_t)arg);
}

static void joiner(void *arg)
{
    (void)arg;
    int code = 0;
    klog("j:wait");
    assert_int_equal(cairn_thread_join(4, &code), CAIRN_OK);
    klog("j:code%d", code);
}

static void test_join(void **state)
{
    (void)state;
    assert_int_equal(cairn_thread_create(4, "s", short_lived, (void *)7, stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(5, "j", joiner, 0, stacks[1], STACK, 4, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_join(5, 0), CAIRN_EAGAIN); /* the message level cannot wait */
    assert_int_equal(cairn_thread_join(4, 0), CAIRN_EAGAIN);
    host_timer_advance(5);
    assert_log("s:run j:wait j:code7");
    assert_int_equal(cairn_thread_join(5, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_join(4, 0), CAIRN_EINVAL); /* j joined it */
}

/* A thread exits while the mailbox frame that woke it is on the message level, and a higher
 * thread joins it before that frame ends: its task ID goes when the frame ends. */
static void exits_on_wake(void *arg)
{
    (void)arg;
    cairn_msg_t m;
    (void)cairn_thread_receive(&m, CAIRN_THREAD_FOREVER);
    klog("x:exit");
    cairn_thread_exit(3);
}

static void joins_x(void *arg)
{
    (void)arg;
    int code = 0;
    assert_int_equal(cairn_thread_join(4, &code), CAIRN_OK);
    klog("j:code%d", code);
    assert_true(cairn_task_exists(4)); /* its mailbox frame has not ended yet */
}

static void test_exit_under_its_mailbox_frame(void **state)
{
    (void)state;
    assert_int_equal(cairn_thread_create(4, "x", exits_on_wake, 0, stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(5, "j", joins_x, 0, stacks[1], STACK, 5, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_post(4, P(1), 0, 0), CAIRN_OK);
    assert_log("x:exit j:code3");
    assert_false(cairn_task_exists(4));
    assert_int_equal(cairn_post(4, P(1), 0, 0), CAIRN_ENOROUTE);
    assert_int_equal(cairn_heap_check(), CAIRN_OK);
    assert_int_equal(cairn_thread_join(5, 0), CAIRN_OK);
}

/* ---- the guard word ---------------------------------------------------------------------------------- */

static void overflower(void *arg)
{
    klog("o:run");
    *(volatile uint32_t *)arg = 0; /* as a stack grown into its guard would */
    cairn_msg_t m;
    (void)cairn_thread_receive(&m, CAIRN_THREAD_FOREVER); /* the switch away checks it */
    klog("o:never");
}

static void test_guard_word_catches_an_overflow(void **state)
{
    (void)state;
    unsigned before = cairn_host_thread_overflows();
    assert_int_equal(cairn_thread_create(3, "r", receiver, "r", stacks[1], STACK, 1, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(4, "deep", overflower, stacks[0], stacks[0], STACK, 2, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_host_thread_overflows(), before + 1);
    assert_string_equal(cairn_host_thread_overflow_name(), "deep");
    int code = 0;
    assert_int_equal(cairn_thread_join(4, &code), CAIRN_OK);
    assert_int_equal(code, -92);
    cairn_thread_stats_t st;
    cairn_thread_stats(&st);
    assert_int_equal(st.overflows, 1);
    assert_int_equal(cairn_post(3, P(1), 0, 0), CAIRN_OK); /* the others go on */
    assert_log("r:start o:run r:got1");
}

static void test_bad_arguments(void **state)
{
    (void)state;
    assert_int_equal(cairn_thread_create(3, "x", 0, 0, stacks[0], STACK, 2, 0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_thread_create(3, "x", receiver, "x", stacks[0], 64, 2, 0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_thread_create(3, "x", receiver, "x", 0, STACK, 2, 0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_thread_create(0, "x", receiver, "x", stacks[0], STACK, 2, 0, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_thread_create(3, "x", receiver, "x", stacks[0], STACK, 255, 0, 0), CAIRN_EINVAL);
    cairn_msg_t m;
    assert_int_equal(cairn_thread_receive(&m, 0), CAIRN_EINVAL); /* not a thread */
    assert_int_equal(cairn_thread_sleep(1), CAIRN_EINVAL);
    assert_int_equal(cairn_thread_join(9, 0), CAIRN_EINVAL);
    assert_int_equal(cairn_thread_self(), CAIRN_TASK_NONE);
    assert_log("");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_create_runs_at_once_and_receive_blocks),
        KTEST(test_higher_thread_preempts_a_sender),
        KTEST(test_message_level_wins_ties),
        KTEST(test_round_robin_on_the_slice),
        KTEST(test_no_slice_runs_to_block),
        KTEST(test_receive_timeout_and_sleep),
        KTEST(test_interrupt_wakes_a_thread),
        KTEST(test_interrupt_wakes_a_higher_thread_again),
        KTEST(test_heap_payload_ownership),
        KTEST(test_full_mailbox_refuses),
        KTEST(test_join),
        KTEST(test_exit_under_its_mailbox_frame),
        KTEST(test_guard_word_catches_an_overflow),
        KTEST(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
