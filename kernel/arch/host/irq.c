/*
 * Cairn OS host port: simulated interrupt masking and dispatch requests.
 *
 * arch_irq_save/restore keep a nesting counter. A dispatch requested by the
 * outermost cairn_isr_exit runs at once when "interrupts are enabled", else when
 * the outermost arch_irq_restore re-enables them, which is what PendSV does on
 * Cortex-M0+.
 */
#include "cairn_host.h"

#include "cairn/arch.h"
#include "cairn/irq.h"
#include "cairn/sched.h"

#include "../../core/kernel.h"

/* As the armv6m trampoline does after its dispatch: a thread may outrank what is left. */
static void dispatch(void)
{
    if (cairn_k.in_thread && !cairn_k.isr_depth) { /* PendSV over a thread: the switch */
        cairn__thread_resched();
        return;
    }
    cairn_dispatch();
    if (cairn_k.nthreads)
        cairn__thread_resched();
}

static unsigned depth;
static int dispatch_pending;

uint32_t arch_irq_save(void)
{
    return depth++;
}

void arch_irq_restore(uint32_t state)
{
    depth = state;
    if (depth == 0 && dispatch_pending) {
        dispatch_pending = 0;
        dispatch();
    }
    if (depth == 0)
        cairn_host_thread_pending();
}

void arch_request_dispatch(void)
{
    if (depth == 0)
        dispatch();
    else
        dispatch_pending = 1;
}

unsigned cairn_host_irq_depth(void)
{
    return depth;
}

static void (*window_irq)(void);

void cairn_host_irq_window_set(void (*fn)(void))
{
    window_irq = fn;
}

void cairn_host_irq_window(void)
{
    void (*fn)(void) = window_irq;
    if (fn && depth == 0) {
        window_irq = 0;
        fn();
    }
}

static uint32_t masked;

void arch_irq_mask(unsigned irq)
{
    masked |= 1u << (irq & 31u);
}

void arch_irq_unmask(unsigned irq)
{
    masked &= ~(1u << (irq & 31u));
}

bool cairn_host_irq_masked(unsigned irq)
{
    return (masked >> (irq & 31u)) & 1u;
}

void arch_irq_binding_fill(cairn_irq_binding_t *b, struct cairn_tcb *t)
{
    (void)b; /* the host port has no fast path */
    (void)t;
}

uint32_t cairn_host_irq_mask_get(void)
{
    return masked;
}

void cairn_host_irq_mask_set(uint32_t m)
{
    masked = m;
}
