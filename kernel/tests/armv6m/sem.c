/*
 * Cairn OS armv6m port: semaphores and priority inheritance (cairn/sem.h) between
 * thread tasks on real exception hardware (cairn-sim and QEMU, same transcript).
 *
 * The classic inversion: L (priority 2) holds a mutex; an interrupt bound to H's
 * task ID (priority 6) wakes H, which announced (cairn_thread_receive_then) that
 * it takes the mutex next; L then wakes M (priority 4). With inheritance L runs
 * on at H's priority until it gives the mutex, H takes it, and only then M runs.
 * Then H and M wait for a counting semaphore, M with a time limit: an interrupt's
 * give goes to H (the higher), which runs when the interrupt ends, and M's limit
 * runs out on the hardware timer.
 */
#include <stdint.h>

#include "cairn/irq.h"
#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/sem.h"
#include "cairn/task.h"
#include "cairn/thread.h"
#include "cairn/timer.h"

#include "cairn_armv6m.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"

enum { H = 3, M = 4, L = 5 };

CAIRN_IRQ_MESSAGE_EDGE(irq24_handler, IRQ_SOFT0, H, CAIRN_PORT(1))

static _Alignas(8) uint8_t heap[8192];
static _Alignas(8) uint8_t stack_h[768], stack_m[768], stack_l[768];
static cairn_sem_t mutex, items;
static volatile uint32_t l_prio_seen; /* whether M ran while L held the mutex */
static volatile int timed_ret = 99;

void irq25_handler(void)
{
    cairn_isr_enter(25);
    (void)cairn_sem_give(&items);
    seq_add("i");
    cairn_isr_exit();
}

static void h_main(void *arg)
{
    (void)arg;
    cairn_msg_t msg;
    if (cairn_thread_receive_then(&msg, CAIRN_THREAD_FOREVER, &mutex) != CAIRN_OK)
        return;
    if (cairn_sem_take(&mutex, CAIRN_THREAD_FOREVER) != CAIRN_OK)
        return;
    seq_add("H");
    (void)cairn_sem_give(&mutex);
    /* The interrupt's give. */
    if (cairn_sem_take(&items, CAIRN_THREAD_FOREVER) == CAIRN_OK)
        seq_add("h");
}

static void m_main(void *arg)
{
    (void)arg;
    cairn_msg_t msg;
    if (cairn_thread_receive(&msg, CAIRN_THREAD_FOREVER) != CAIRN_OK)
        return;
    l_prio_seen |= cairn_mutex_owner(&mutex) == L; /* inheritance failed: M ran inside L's section */
    seq_add("M");
    timed_ret = cairn_sem_take(&items, CAIRN_TICKS_PER_SECOND / 20); /* 50 ms; H, higher, waits too: the give is H's */
    seq_add("m");
}

static void l_main(void *arg)
{
    (void)arg;
    if (cairn_sem_take(&mutex, CAIRN_THREAD_FOREVER) != CAIRN_OK)
        return;
    seq_add("L");
    nvic_set_pending(IRQ_SOFT0);           /* wakes H, which waits for the mutex */
    (void)cairn_post(M, CAIRN_PORT(1), 0, 0); /* M: below what L inherited */
    seq_add("l");
    (void)cairn_sem_give(&mutex);
    seq_add("L2");
}

int main(void)
{
    test_begin("armv6m-sem");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    nvic_set_priority(IRQ_SOFT0, NVIC_PRIO_LOW);
    nvic_enable(IRQ_SOFT0);
    nvic_set_priority(IRQ_SOFT1, NVIC_PRIO_LOW);
    nvic_enable(IRQ_SOFT1);

    check_eq("mutex", (uint32_t)cairn_mutex_init(&mutex), 0);
    check_eq("items", (uint32_t)cairn_sem_init(&items, 0, 1), 0);
    cairn_sem_stats_t s0, s1;
    cairn_sem_stats(&s0);
    check_eq("create H", (uint32_t)cairn_thread_create(H, "H", h_main, 0, stack_h, sizeof stack_h, 6, 0, 0), 0);
    check_eq("create M", (uint32_t)cairn_thread_create(M, "M", m_main, 0, stack_m, sizeof stack_m, 4, 0, 0), 0);
    check_eq("create L", (uint32_t)cairn_thread_create(L, "L", l_main, 0, stack_l, sizeof stack_l, 2, 0, 0), 0);
    /* H and M wait for items (M with a time limit), L has ended. */
    check_str("inheritance: H before M, M after L's give", seq_get(), "L l H M L2");
    check_yes("M never ran inside L's critical section", !l_prio_seen);
    seq_reset();
    nvic_set_pending(IRQ_SOFT1);
    check_str("the interrupt's give wakes H when it ends", seq_get(), "i h");
    while (timed_ret == 99)
        cairn_idle();
    check_eq("M's take timed out (CAIRN_EAGAIN)", (uint32_t)timed_ret, (uint32_t)CAIRN_EAGAIN);
    check_str("then M went on", seq_get(), "i h m");
    check_eq("the mutex is free", cairn_mutex_owner(&mutex), CAIRN_TASK_NONE);
    check_eq("items is empty", items.count, 0);
    cairn_sem_stats(&s1);
    check_eq("one inheritance (L from H)", s1.inherits - s0.inherits, 1);
    check_eq("one timeout", s1.timeouts - s0.timeouts, 1);
    check_eq("H's wake-up joined the mutex's waiters at once (the hint)", s1.prewaits - s0.prewaits,
             CAIRN_SEM_EMERALDS);
    check_eq("refusals", s1.refused - s0.refused, 0);
    for (cairn_task_id_t t = H; t <= L; t++)
        check_eq("join", (uint32_t)cairn_thread_join(t, 0), 0);
    cairn_thread_stats_t st;
    cairn_thread_stats(&st);
    check_eq("no overflow", st.overflows, 0);
    check_eq_hex("PRIMASK at the end", cpu_get_primask(), 0);
    return test_end();
}
