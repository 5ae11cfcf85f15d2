/*
 * Cairn OS kernel benchmark: build/fw/kernel-bench.elf, run by
 * python/cairn/bench/kernel.py (`make bench` -> build/bench/kernel.json) on cairn-sim with
 * --trace. The firmware only marks instants; the driver turns the cycle stamps that
 * cairn-sim gives every trace-port word into figures.
 *
 * Markers. Every measured operation sits in one asm block between two marker stores to the
 * trace port (0x41000000), word 0xBE pp rr ee (pp = phase, rr = repetition, ee = 0 before,
 * 1 after). cairn-sim stamps a word with the cycle at which its STR starts, so
 * after - before - empty is exactly the cycles of what lies between, where `empty` is the
 * same pair of stores with nothing between (phase 0).
 *
 * The probe. The handlers whose first instruction is timed (PROBE) are naked stubs whose
 * FIRST instruction is `str r0, [r0]`: the task's state pointer is the trace port address,
 * so the kernel's own call `handler(state, msg)` makes the first instruction of the handler
 * store the word 0x41000000 (event code 0x41, used by nothing else). Its stamp is the cycle
 * at which the handler's first instruction starts; no correction is needed.
 *
 * Phases (3 repetitions each; everything runs from a cold, empty queue):
 *   0 empty       the two markers alone (calibration)
 *   1 enqueue     DRV (prio 2) handler: cairn_send(out 0 -> LOW, prio 1): call -> return
 *   2 preempt     DRV handler: cairn_send(out 1 -> PROBE, prio 5): call -> PROBE's first
 *                 instruction (and call -> return)
 *   3 irq         main (idle level): str to NVIC ISPR pends IRQ_SOFT0, bound to a message
 *                 to PROBE (CAIRN_IRQ_MESSAGE_EDGE): the interrupt returns into PROBE's
 *                 handler. The IRQ is asserted when the ISPR store ends
 *   4 timer       DRV handler arms PROBE's timer 0 (one-shot, 5000 ticks); main idles
 *                 (cairn_idle: WFI); the driver takes the expiry cycle from the end of
 *                 cairn-sim's sleep slice (the core wakes exactly at the expiry)
 *   5 alloc_free  DRV handler: cairn_malloc(16) then cairn_free: call -> return of both
 *   6 memset16    main: memset of 16 bytes (the board's memfuncs.c), call -> return: a
 *                 diagnostic, since GCC zeroes a compound literal with a call to memset
 *                 (the kernel's message paths fill their structs field by field instead)
 *   7 irq_level   as 3 with IRQ_SOFT1, bound as a level-sensitive source (the line is
 *                 masked on the way; PROBE unmasks it)
 *   8 irq_isr     as 3 with IRQ_SOFT2, whose ordinary ISR does cairn_isr_enter,
 *                 cairn_send_from(DRV, out 2 -> PROBE), cairn_isr_exit: queued, then PendSV
 *                 -> trampoline -> cairn_dispatch -> PROBE (the general interrupt path)
 *   9 sm_write    main: cairn_statemsg_write of a 16-byte value (depth 3), call -> return
 *  10 sm_read     main: cairn_statemsg_read of it, call -> return
 *  11 sm_atomic   main: cairn_statemsg_read_atomic of it (the slow reader's copy)
 *  12 thread_switch  thread X (priority 1) marks, then cairn_thread_yield; thread Y (the
 *                 same priority) marks right after its own cairn_thread_yield returns:
 *                 the call, PendSV's choice and switch of r4-r11 and PSP, the return.
 *                 Last, since the first thread moves the vector table to RAM
 *  13 sem_take_give  thread L (priority 1): cairn_sem_take then cairn_sem_give of a free
 *                 mutex, call -> return of both
 *  14 sem_contended  L holds the mutex, marks, posts to H (priority 3), which is in
 *                 cairn_thread_receive_then announcing the mutex, and gives it; H marks
 *                 right after its cairn_sem_take returns: wake-up, inheritance, give and
 *                 the switches. With CAIRN_SEM_EMERALDS=0 (kernel-bench-plainsem.elf) H runs
 *                 at its wake-up only to block in the take
 * Then it prints sizeof of the TCB and message types and ends with the transcript's PASS.
 */
#include <stddef.h>
#include <stdint.h>

#include "cairn/cairn.h"

#include "../../core/kernel.h" /* cairn_tcb_t (private to the kernel): its size only */

#include "bench_policy.h"
#include "cairn_armv6m.h"
#include "check.h"
#include "nvic.h"
#include "uart.h"

#include "../support/timed_sem.h"

#define TRACE_PORT 0x41000000u
#define MARK(phase, rep, edge) (0xBE000000u | ((uint32_t)(phase) << 16) | ((uint32_t)(rep) << 8) | (edge))
#define REPS 3
#define TIMER_TICKS 5000u

enum { DRV = 1, LOW = 2, PROBE = 3 };
enum {
    PH_EMPTY, PH_ENQUEUE, PH_PREEMPT, PH_IRQ, PH_TIMER, PH_ALLOC, PH_MEMSET, PH_IRQ_LEVEL, PH_IRQ_ISR,
    PH_SM_WRITE, PH_SM_READ, PH_SM_ATOMIC, PH_THREAD_SWITCH, PH_SEM_TAKE_GIVE, PH_SEM_CONTENDED
};

static const uint32_t payload = 0x12345678u; /* static: passed by reference, never copied */
static volatile uint32_t probe_runs, low_runs;
static volatile int32_t last_ret;
static uint32_t cur_rep;

/* ---- timed blocks: marker, operation, marker --------------------------------------- */

static __attribute__((noinline)) void timed_empty(uint32_t w0, uint32_t w1)
{
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "str %[m1], [%[p]]\n\t"
                     :
                     : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)
                     : "memory");
}

static __attribute__((noinline)) int32_t timed_send(uint32_t out, uint32_t w0, uint32_t w1)
{
    register uint32_t r0 __asm__("r0") = out;
    register uint32_t r1 __asm__("r1") = (uint32_t)&payload;
    register uint32_t r2 __asm__("r2") = sizeof payload;
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "bl  cairn_send\n\t"
                     "str %[m1], [%[p]]\n\t"
                     : "+l"(r0), "+l"(r1), "+l"(r2)
                     : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)
                     : "r3", "r12", "lr", "memory", "cc");
    return (int32_t)r0;
}

static __attribute__((noinline)) void timed_alloc_free(uint32_t w0, uint32_t w1)
{
    register uint32_t r0 __asm__("r0") = 16;
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "bl  cairn_malloc\n\t"
                     "bl  cairn_free\n\t"
                     "str %[m1], [%[p]]\n\t"
                     : "+l"(r0)
                     : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)
                     : "r1", "r2", "r3", "r12", "lr", "memory", "cc");
}

static __attribute__((noinline)) void timed_memset16(void *buf, uint32_t w0, uint32_t w1)
{
    register uint32_t r0 __asm__("r0") = (uint32_t)buf;
    register uint32_t r1 __asm__("r1") = 0;
    register uint32_t r2 __asm__("r2") = 16;
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "bl  memset\n\t"
                     "str %[m1], [%[p]]\n\t"
                     : "+l"(r0), "+l"(r1), "+l"(r2)
                     : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)
                     : "r3", "r12", "lr", "memory", "cc");
}

/* A state message call fn(sm, buf) between the markers. */
#define TIMED_STATEMSG(name, fn)                                                                   \
    static __attribute__((noinline)) void name(cairn_statemsg_t *sm, void *buf, uint32_t w0,       \
                                               uint32_t w1)                                        \
    {                                                                                              \
        register uint32_t r0 __asm__("r0") = (uint32_t)sm;                                         \
        register uint32_t r1 __asm__("r1") = (uint32_t)buf;                                        \
        __asm__ volatile("str %[m0], [%[p]]\n\t"                                                   \
                         "bl  " #fn "\n\t"                                                        \
                         "str %[m1], [%[p]]\n\t"                                                   \
                         : "+l"(r0), "+l"(r1)                                                      \
                         : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)                         \
                         : "r2", "r3", "r12", "lr", "memory", "cc");                               \
    }
TIMED_STATEMSG(timed_sm_write, cairn_statemsg_write)
TIMED_STATEMSG(timed_sm_read, cairn_statemsg_read)
TIMED_STATEMSG(timed_sm_atomic, cairn_statemsg_read_atomic)

static __attribute__((noinline)) void timed_irq(uint32_t irq, uint32_t w0, uint32_t w1)
{
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "str %[bit], [%[ispr]]\n\t"
                     "str %[m1], [%[p]]\n\t"
                     :
                     : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1),
                       [ispr] "l"(&NVIC_ISPR), [bit] "l"(1u << irq)
                     : "memory");
}

/* ---- tasks ----------------------------------------------------------------------------- */

static cairn_ret_t drv(void *state, cairn_msg_t *msg)
{
    (void)state;
    uint32_t r = cur_rep;
    switch (msg->port) {
    case CAIRN_PORT(PH_ENQUEUE):
        last_ret = timed_send(0, MARK(PH_ENQUEUE, r, 0), MARK(PH_ENQUEUE, r, 1));
        break;
    case CAIRN_PORT(PH_PREEMPT):
        last_ret = timed_send(1, MARK(PH_PREEMPT, r, 0), MARK(PH_PREEMPT, r, 1));
        break;
    case CAIRN_PORT(PH_TIMER):
        last_ret = cairn_timer_set(PROBE, 0, TIMER_TICKS, false);
        break;
    case CAIRN_PORT(PH_ALLOC):
        timed_alloc_free(MARK(PH_ALLOC, r, 0), MARK(PH_ALLOC, r, 1));
        break;
    }
    return CAIRN_OK;
}

static cairn_ret_t low(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT_INIT)
        low_runs++;
    return CAIRN_OK;
}

/* PROBE's handler after its first instruction (see the header comment). */
cairn_ret_t bench_probe_body(void *state, cairn_msg_t *msg);
cairn_ret_t bench_probe_body(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port != CAIRN_PORT_INIT)
        probe_runs++;
    if (msg->port == CAIRN_PORT(2))
        cairn_irq_unmask(IRQ_SOFT1); /* a level-sensitive source's message: served, unmask */
    return CAIRN_OK;
}

/* state == (void *)TRACE_PORT: the first instruction stores 0x41000000 to the trace port. */
__attribute__((naked)) static cairn_ret_t probe(void *state, cairn_msg_t *msg)
{
    (void)state;
    (void)msg;
    __asm__ volatile("str  r0, [r0]\n\t"
                     "ldr  r2, =bench_probe_body\n\t"
                     "bx   r2\n\t"
                     ".ltorg\n\t");
}

/* IRQ 24 (a software-pended interrupt: nothing to mask) is bound to a message on
 * PROBE's port 1; IRQ 25 is bound as a level-sensitive source (masked until PROBE
 * unmasks it) to port 2 (cairn/irq.h). IRQ 26 is an ordinary interrupt handler that
 * sends from DRV's output port 2 to PROBE: the general path (queue, PendSV). */
CAIRN_IRQ_MESSAGE_EDGE(irq24_handler, IRQ_SOFT0, PROBE, CAIRN_PORT(1))
CAIRN_IRQ_MESSAGE(irq25_handler, IRQ_SOFT1, PROBE, CAIRN_PORT(2))

void irq26_handler(void)
{
    cairn_isr_enter(IRQ_SOFT2);
    last_ret = cairn_send_from(DRV, 2, &payload, sizeof payload);
    cairn_isr_exit();
}

/* ---- everything enabled -------------------------------------------------------------------
 * The size figures count the kernel objects as linked into this ELF. firmware.mk links it
 * with -u for every global symbol the kernel objects define, so --gc-sections keeps the
 * whole kernel, not just what this program calls. */

static uint64_t heap[384]; /* 3 KiB: the CSD build's queues and the thread service's block both come from it */

/* ---- thread switch --------------------------------------------------------------------- */

static _Alignas(8) uint8_t stack_x[512], stack_y[512], stack_c[512];

static void thread_x(void *arg)
{
    (void)arg;
    cairn_thread_yield(); /* Y's first run, then Y's first yield back: not timed */
    for (uint32_t r = 0; r < REPS; r++) {
        *(volatile uint32_t *)TRACE_PORT = MARK(PH_THREAD_SWITCH, r, 0);
        cairn_thread_yield();
    }
}

static void thread_y(void *arg)
{
    (void)arg;
    for (uint32_t r = 0; r < REPS; r++) {
        cairn_thread_yield();
        *(volatile uint32_t *)TRACE_PORT = MARK(PH_THREAD_SWITCH, r, 1);
    }
}

/* Above X and Y: both exist before either runs. */
static void thread_creator(void *arg)
{
    (void)arg;
    cairn_thread_set_slice(0);
    check_eq("thread X", (uint32_t)cairn_thread_create(5, "X", thread_x, 0, stack_x, sizeof stack_x, 1, 0, 0), 0);
    check_eq("thread Y", (uint32_t)cairn_thread_create(6, "Y", thread_y, 0, stack_y, sizeof stack_y, 1, 0, 0), 0);
}

/* ---- semaphores ------------------------------------------------------------------------- */

enum { SEM_H = 5, SEM_L = 6 };
static cairn_sem_t bench_mutex;

static void sem_high(void *arg)
{
    (void)arg;
    for (uint32_t r = 0; r < REPS; r++) {
        cairn_msg_t m;
        (void)cairn_thread_receive_then(&m, CAIRN_THREAD_FOREVER, &bench_mutex);
        (void)cairn_sem_take(&bench_mutex, CAIRN_THREAD_FOREVER);
        *(volatile uint32_t *)TRACE_PORT = MARK(PH_SEM_CONTENDED, r, 1);
        (void)cairn_sem_give(&bench_mutex);
    }
}

static void sem_low(void *arg)
{
    (void)arg;
    for (uint32_t r = 0; r < REPS; r++) {
        timed_take_give(&bench_mutex, MARK(PH_SEM_TAKE_GIVE, r, 0), MARK(PH_SEM_TAKE_GIVE, r, 1));
    }
    for (uint32_t r = 0; r < REPS; r++) {
        (void)cairn_sem_take(&bench_mutex, CAIRN_THREAD_FOREVER);
        *(volatile uint32_t *)TRACE_PORT = MARK(PH_SEM_CONTENDED, r, 0);
        (void)cairn_post(SEM_H, CAIRN_PORT(0), 0, 0);
        (void)cairn_sem_give(&bench_mutex);
    }
}

static void say_size(const char *what, uint32_t n)
{
    uart_puts("# bench ");
    uart_puts(what);
    uart_puts("=");
    uart_put_udec(n);
    uart_puts("\n");
}

int main(void)
{
    test_begin("kernel-bench");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();

    static const cairn_route_t drv_routes[] = {
        {.task = LOW, .port = CAIRN_PORT(0)},
        {.task = PROBE, .port = CAIRN_PORT(0)},
        {.task = PROBE, .port = CAIRN_PORT(1)},
    };
    check_eq("create LOW", (uint32_t)cairn_task_create(LOW, low, 0, 1, 0, 0, 0), 0);
    check_eq("create DRV", (uint32_t)cairn_task_create(DRV, drv, 0, 2, drv_routes, 3, 0), 0);
    check_eq("create PROBE",
             (uint32_t)cairn_task_create(PROBE, probe, (void *)TRACE_PORT, 5, 0, 0, 0), 0);
#if CAIRN_POLICY != CAIRN_POLICY_FP
    bench_policy_setup(DRV, LOW, PROBE);
#endif
    for (cairn_task_id_t id = 1; id <= 3; id++)
        check_eq("init", (uint32_t)cairn_task_init(id, 0, 0), 0);
    cairn_dispatch();
    for (unsigned irq = IRQ_SOFT0; irq <= IRQ_SOFT2; irq++) {
        nvic_set_priority(irq, NVIC_PRIO_LOW);
        nvic_enable(irq);
    }

    for (uint32_t r = 0; r < REPS; r++)
        timed_empty(MARK(PH_EMPTY, r, 0), MARK(PH_EMPTY, r, 1));

    for (cur_rep = 0; cur_rep < REPS; cur_rep++) {
        (void)cairn_post(DRV, CAIRN_PORT(PH_ENQUEUE), 0, 0);
        check_eq("enqueue: send ok", (uint32_t)last_ret, 0);
    }
    check_eq("enqueue: LOW ran", low_runs, REPS);

    for (cur_rep = 0; cur_rep < REPS; cur_rep++)
        (void)cairn_post(DRV, CAIRN_PORT(PH_PREEMPT), 0, 0);
    check_eq("preempt: PROBE ran", probe_runs, REPS);

    for (cur_rep = 0; cur_rep < REPS; cur_rep++)
        timed_irq(IRQ_SOFT0, MARK(PH_IRQ, cur_rep, 0), MARK(PH_IRQ, cur_rep, 1));
    check_eq("irq: PROBE ran", probe_runs, 2 * REPS);
    for (cur_rep = 0; cur_rep < REPS; cur_rep++)
        timed_irq(IRQ_SOFT1, MARK(PH_IRQ_LEVEL, cur_rep, 0), MARK(PH_IRQ_LEVEL, cur_rep, 1));
    check_eq("irq level: PROBE ran", probe_runs, 3 * REPS);
    for (cur_rep = 0; cur_rep < REPS; cur_rep++)
        timed_irq(IRQ_SOFT2, MARK(PH_IRQ_ISR, cur_rep, 0), MARK(PH_IRQ_ISR, cur_rep, 1));
    check_eq("irq isr: PROBE ran", probe_runs, 4 * REPS);

    for (cur_rep = 0; cur_rep < REPS; cur_rep++) {
        uint32_t before = probe_runs;
        *(volatile uint32_t *)TRACE_PORT = MARK(PH_TIMER, cur_rep, 0);
        (void)cairn_post(DRV, CAIRN_PORT(PH_TIMER), 0, 0);
        while (probe_runs == before)
            cairn_idle();
        *(volatile uint32_t *)TRACE_PORT = MARK(PH_TIMER, cur_rep, 1);
    }
    check_eq("timer: PROBE ran", probe_runs, 5 * REPS);

    for (cur_rep = 0; cur_rep < REPS; cur_rep++)
        (void)cairn_post(DRV, CAIRN_PORT(PH_ALLOC), 0, 0);

    static uint32_t buf[4];
    for (uint32_t r = 0; r < REPS; r++)
        timed_memset16(buf, MARK(PH_MEMSET, r, 0), MARK(PH_MEMSET, r, 1));

    static _Alignas(4) uint8_t sm_slots[CAIRN_STATEMSG_BYTES(16, 3)];
    static uint32_t sm_value[4] = {1, 2, 3, 4}, sm_out[4];
    static cairn_statemsg_t sm;
    check_eq("state message", (uint32_t)cairn_statemsg_init(&sm, sm_slots, 16, 3, 0), 0);
    for (uint32_t r = 0; r < REPS; r++) {
        sm_value[0] = r;
        timed_sm_write(&sm, sm_value, MARK(PH_SM_WRITE, r, 0), MARK(PH_SM_WRITE, r, 1));
        timed_sm_read(&sm, sm_out, MARK(PH_SM_READ, r, 0), MARK(PH_SM_READ, r, 1));
        check_eq("state message read", sm_out[0], r);
        timed_sm_atomic(&sm, sm_out, MARK(PH_SM_ATOMIC, r, 0), MARK(PH_SM_ATOMIC, r, 1));
    }

    check_eq("thread creator", (uint32_t)cairn_thread_create(4, "C", thread_creator, 0, stack_c, sizeof stack_c, 5, 0, 0), 0);
    check_eq("join X", (uint32_t)cairn_thread_join(5, 0), 0);
    check_eq("join Y", (uint32_t)cairn_thread_join(6, 0), 0);
    check_eq("join C", (uint32_t)cairn_thread_join(4, 0), 0);

    check_eq("mutex", (uint32_t)cairn_mutex_init(&bench_mutex), 0);
    check_eq("thread H", (uint32_t)cairn_thread_create(SEM_H, "H", sem_high, 0, stack_x, sizeof stack_x, 3, 0, 0), 0);
    check_eq("thread L", (uint32_t)cairn_thread_create(SEM_L, "L", sem_low, 0, stack_y, sizeof stack_y, 1, 0, 0), 0);
    check_eq("join L", (uint32_t)cairn_thread_join(SEM_L, 0), 0);
    check_eq("join H", (uint32_t)cairn_thread_join(SEM_H, 0), 0);
    cairn_sem_stats_t sem_st;
    cairn_sem_stats(&sem_st);
    check_eq("contended takes", sem_st.blocks, REPS);
    check_eq("hinted waits", sem_st.prewaits, CAIRN_SEM_EMERALDS ? REPS : 0);

    say_size("tcb_bytes", sizeof(cairn_tcb_t));
    say_size("route_bytes", sizeof(cairn_route_t));
    say_size("msg_bytes", sizeof(cairn_msg_t));
    say_size("frame_bytes", sizeof(cairn_frame_t));
    say_size("msg_pool", CAIRN_MSG_POOL);

    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    check_eq("queued at the end", st.queued, 0);
    check_eq("pool full", st.pool_full, 0);
    return test_end();
}
