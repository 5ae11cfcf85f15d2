/*
 * Cairn OS armv6m port: an interrupt bound to a message that comes again while the handler
 * it started is ending, at every instruction of that end in turn.
 *
 * IRQ 24 is bound to B. Main pends it; the interrupt's fast path starts B from the idle
 * level; B arms SysTick one cycle later than in the round before, and SysTick pends IRQ 24
 * again. So on cairn-sim (cycle-exact) the second request lands on each instruction of B's
 * end in turn: in the handler, inside cairn__end (B ready again, its frame, the binding's,
 * still on top of the execution stack), in the dispatch after it, and back in main. Wherever
 * it lands, B must run twice per round and the execution stack must be empty afterwards.
 * On cairn-sim one line also says that some rounds landed inside the end, where B was ready
 * with its frame still on the stack: the line that may differ from QEMU, whose SysTick is
 * not cycle-exact.
 */
#include <stdint.h>

#include "cairn/irq.h"
#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/sched.h"
#include "cairn/task.h"
#include "cairn/timer.h"

#include "../../core/kernel.h" /* the execution stack and B's flags, as the interrupt sees them */

#include "cairn_armv6m.h"
#include "check.h"
#include "cpu.h"
#include "nvic.h"
#include "scb.h"
#include "systick.h"

enum { B = 2 };
#define ROUNDS 200u /* SysTick 1..200 cycles after B arms it: past B's end and main's return */

CAIRN_IRQ_MESSAGE_EDGE(irq24_handler, IRQ_SOFT0, B, CAIRN_PORT(0))

static uint64_t heap[256];
static volatile uint32_t runs, delay, fired, in_end;

static void arm_systick(uint32_t cycles)
{
    SYST_RVR = cycles;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE;
}

/* B's second request of the round; it notes whether it caught B between the two stores of
 * its end (ready again, its frame still on top). */
void systick_handler(void)
{
    SYST_CSR = 0;
    SCB_ICSR = ICSR_PENDSTCLR; /* a short period may have come round again meanwhile */
    const cairn_tcb_t *b = cairn__tcb_inline(B);
    in_end += cairn_k.top && cairn_k.top->tcb == b && !(b->flags & TCB_ON_STACK);
    nvic_set_pending(IRQ_SOFT0);
    fired = 1;
}

static cairn_ret_t b_handler(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT(0) && (++runs & 1u))
        arm_systick(delay);
    return CAIRN_OK;
}

int main(void)
{
    test_begin("armv6m-irq-end-window");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    check_eq("create B", (uint32_t)cairn_task_create(B, b_handler, 0, 4, 0, 0, 0), 0);
    check_eq("init B", (uint32_t)cairn_task_init(B, 0, 0), 0);
    nvic_set_priority(IRQ_SOFT0, NVIC_PRIO_LOW);
    nvic_enable(IRQ_SOFT0);

    uint32_t short_rounds = 0, left_on_stack = 0;
    for (uint32_t d = 1; d <= ROUNDS; d++) {
        uint32_t before = runs;
        delay = d;
        fired = 0;
        nvic_set_pending(IRQ_SOFT0);
        cpu_sync();
        if (runs != before) /* B ran and armed SysTick: the second request comes (it tail-chains) */
            while (!fired)
                ;
        cairn_dispatch();
        short_rounds += runs != before + 2u;
        left_on_stack += cairn_k.top != 0;
        if (runs != before + 2u || cairn_k.top)
            break; /* B is stuck: the later rounds would only wait */
    }
    check_eq("rounds in which B did not run twice", short_rounds, 0);
    check_eq("rounds that left a frame on the stack", left_on_stack, 0);
    check_eq("B is not on the stack", (uint32_t)cairn_current_task(), CAIRN_TASK_NONE);
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    check_eq("queued at the end", st.queued, 0);
    say(in_end ? "second request inside the end: some rounds" : "second request inside the end: none");
    check_eq_hex("PRIMASK at the end", cpu_get_primask(), 0);
    return test_end();
}
