/*
 * A thread's exit inside its mailbox frame's end (the mirror of test_end_window.c): the
 * mailbox handler has returned and cleared its task's on-stack flag, its frame is still
 * the message level's top, and an interrupt at the kernel's ARCH_IRQ_WINDOW (between the
 * two stores of the end) gives the semaphore the thread waits on. The thread outranks
 * the ending frame, runs there and exits; the frame must not be left pointing at a task
 * the exit freed, for the next choice of a context walks the suspended message level's
 * frames (here: the joiner the exit makes ready).
 *
 * The kernel's heap is its own arena, which ASan does not watch: this test links with
 * cairn_free wrapped (kernel/CMakeLists.txt), and the wrapper quarantines the exiting
 * thread's TCB, poisoned, as ASan's allocator would a freed block. A read of it through
 * the frame is then ASan's report and the test's failure.
 */
#include <sanitizer/asan_interface.h>

#include "ktest.h"

#include "cairn/sem.h"

#include "../../core/kernel.h"

#define STACK 65536 /* ASan's frames are large */

enum { EXITER = 4, JOINER = 5 };

static _Alignas(16) uint8_t stacks[2][STACK];
static cairn_sem_t go;

/* ---- the quarantine -------------------------------------------------------------------- */

void __real_cairn_free(void *p);
void __wrap_cairn_free(void *p);

static void *watched; /* the block to quarantine when freed */
static void *held;    /* the quarantined block, poisoned */

void __wrap_cairn_free(void *p)
{
    if (p && p == watched) {
        held = p;
        ASAN_POISON_MEMORY_REGION(p, sizeof(cairn_tcb_t));
        return;
    }
    __real_cairn_free(p);
}

static void watch(void *p)
{
    watched = p;
    held = 0;
}

/* The quarantined block goes back to the heap (the next test's arena is this one). */
static void release_held(void)
{
    assert_non_null(held); /* the exit freed the TCB */
    ASAN_UNPOISON_MEMORY_REGION(held, sizeof(cairn_tcb_t));
    __real_cairn_free(held);
    watch(0);
}

/* ---- the threads ----------------------------------------------------------------------- */

static void exiter(void *arg)
{
    (void)arg;
    assert_int_equal(cairn_sem_take(&go, CAIRN_THREAD_FOREVER), CAIRN_OK);
    klog("x:exit");
    cairn_thread_exit(3);
}

static void joiner(void *arg)
{
    (void)arg;
    int code = 0;
    assert_int_equal(cairn_thread_join(EXITER, &code), CAIRN_OK);
    klog("j:code%d", code);
}

/* The interrupt in the window: the exiting thread's wake-up. */
static void give_go(void)
{
    cairn_isr_enter(16);
    assert_int_equal(cairn_sem_give(&go), CAIRN_OK);
    cairn_isr_exit();
}

static void test_exit_inside_its_mailbox_frames_end(void **state)
{
    (void)state;
    assert_int_equal(cairn_sem_init(&go, 0, 1), CAIRN_OK);
    assert_int_equal(cairn_thread_create(EXITER, "x", exiter, 0, stacks[0], STACK, 5, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(JOINER, "j", joiner, 0, stacks[1], STACK, 2, 0, 0), CAIRN_OK);
    watch(cairn__tcb(EXITER));
    klog_reset();
    /* The message runs the mailbox at once (the thread waits on the semaphore, not on
     * its mailbox: nothing wakes); the interrupt comes as the handler ends. */
    cairn_host_irq_window_set(give_go);
    assert_int_equal(cairn_post(EXITER, CAIRN_PORT(1), 0, 0), CAIRN_OK);
    assert_log("x:exit j:code3");
    assert_false(cairn_task_exists(EXITER));
    assert_int_equal(cairn_post(EXITER, CAIRN_PORT(1), 0, 0), CAIRN_ENOROUTE);
    assert_int_equal(cairn_heap_check(), CAIRN_OK);
    assert_int_equal(cairn_thread_join(JOINER, 0), CAIRN_OK);
    release_held();
}

/* Without an interrupt in the window the thread runs after the end (the control). */
static void test_exit_after_its_mailbox_frames_end(void **state)
{
    (void)state;
    assert_int_equal(cairn_sem_init(&go, 0, 1), CAIRN_OK);
    assert_int_equal(cairn_thread_create(EXITER, "x", exiter, 0, stacks[0], STACK, 5, 0, 0), CAIRN_OK);
    assert_int_equal(cairn_thread_create(JOINER, "j", joiner, 0, stacks[1], STACK, 2, 0, 0), CAIRN_OK);
    watch(cairn__tcb(EXITER));
    klog_reset();
    assert_int_equal(cairn_post(EXITER, CAIRN_PORT(1), 0, 0), CAIRN_OK);
    assert_log("");
    give_go();
    assert_log("x:exit j:code3");
    assert_false(cairn_task_exists(EXITER));
    assert_int_equal(cairn_heap_check(), CAIRN_OK);
    assert_int_equal(cairn_thread_join(JOINER, 0), CAIRN_OK);
    release_held();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KTEST(test_exit_inside_its_mailbox_frames_end),
        KTEST(test_exit_after_its_mailbox_frames_end),
    };
    return cmocka_run_group_tests_name("exit_window", tests, NULL, NULL);
}
