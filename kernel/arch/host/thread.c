/*
 * Cairn OS host port: thread contexts on ucontext (makecontext/swapcontext), so
 * the unit tests run the thread semantics natively under ASan/UBSan.
 *
 * The message level is the test's own (main) context. A switch happens when
 * "interrupts are enabled" (the nesting counter of irq.c is 0), as a pended
 * PendSV runs on Cortex-M0+; resuming the message level runs cairn_dispatch
 * first, as the armv6m port's trampoline does.
 *
 * ASan tracks one stack per thread of the process: every swapcontext is
 * bracketed by __sanitizer_start_switch_fiber/__sanitizer_finish_switch_fiber,
 * which tell it the stack being entered (else it reports false stack overflows
 * and loses its fake stacks).
 */
#define _GNU_SOURCE
#include <ucontext.h>

#include "cairn_host.h"
#include "hwtimer.h"

#include "../../core/thread.h"

#if defined(__SANITIZE_ADDRESS__)
#define HOST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOST_ASAN 1
#endif
#endif
#ifdef HOST_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, size_t *size_old);
#endif

#define HOST_CONTEXTS 16

struct host_ctx {
    ucontext_t uc;
    const void *stack; /* NULL for the main context until ASan tells its bounds */
    size_t size;
    void *fake;
    int used;
};

static struct host_ctx pool[HOST_CONTEXTS];
static struct host_ctx main_ctx;
static int pending;
static unsigned overflows;
static const char *overflow_name;

static struct host_ctx *leaving; /* the context a switch leaves */

static struct host_ctx *rec(cairn_ctx_t *c)
{
    return c == &cairn__thread_msg_ctx ? &main_ctx : (struct host_ctx *)c->port;
}

/* In the context just entered: tells ASan the switch is over. */
static void finish(struct host_ctx *me)
{
#ifdef HOST_ASAN
    const void *bottom;
    size_t size;
    __sanitizer_finish_switch_fiber(me ? me->fake : 0, &bottom, &size);
    if (leaving && !leaving->stack) { /* the main stack: ASan knows its bounds */
        leaving->stack = bottom;
        leaving->size = size;
    }
#else
    (void)me;
#endif
}

static void entry(void)
{
    finish(0);
    arch_irq_restore(0); /* a thread starts with interrupts enabled */
    cairn__thread_entry();
}

cairn_ret_t arch_thread_setup(void)
{
    cairn__thread_msg_ctx.port = &main_ctx;
    if (!cairn_k.nthreads) /* a restarted kernel: every record is free */
        for (unsigned i = 0; i < HOST_CONTEXTS; i++)
            pool[i].used = 0;
    return CAIRN_OK;
}

cairn_ret_t arch_thread_init(cairn_ctx_t *c, void *lo, void *hi)
{
    for (unsigned i = 0; i < HOST_CONTEXTS; i++) {
        struct host_ctx *h = &pool[i];
        if (h->used)
            continue;
        if (getcontext(&h->uc) != 0)
            return CAIRN_ENOMEM;
        h->used = 1;
        h->stack = lo;
        h->size = (size_t)((char *)hi - (char *)lo);
        h->fake = 0;
        h->uc.uc_stack.ss_sp = lo;
        h->uc.uc_stack.ss_size = h->size;
        h->uc.uc_link = 0;
        makecontext(&h->uc, entry, 0);
        c->port = h;
        c->sp = (uintptr_t)hi;
        return CAIRN_OK;
    }
    return CAIRN_ENOMEM;
}

void arch_thread_release(cairn_ctx_t *c)
{
    struct host_ctx *h = c->port;
    if (h)
        h->used = 0;
    c->port = 0;
}

static void swap(cairn_ctx_t *from, cairn_ctx_t *to)
{
    struct host_ctx *f = rec(from), *t = rec(to);
#ifdef HOST_ASAN
    /* A thread that exited never comes back: ASan may drop its fake stack. */
    bool dead = from != &cairn__thread_msg_ctx && cairn_k.nthreads &&
                ((cairn_thread_t *)(void *)from)->state == TH_DEAD;
    __sanitizer_start_switch_fiber(dead ? 0 : &f->fake, t->stack, t->size);
#endif
    leaving = f;
    swapcontext(&f->uc, &t->uc);
    finish(f);
}

int cairn_host_thread_switch_now(void)
{
    return !host_timer_in_isr();
}

/* The switch a thread's own kernel call decided: the same swap as run()'s, without choosing
 * again (the core did). A context left by either resumes by either. */
void arch_thread_switch(cairn_thread_t *cur, cairn_thread_t *next)
{
    cairn_k.threads->cur = next;
    cairn_k.top = &next->frame;
    swap(&cur->ctx, &next->ctx);
}

void arch_thread_switch_pended(void)
{
    /* arch_thread_reschedule switched already, or the switch waits for the end of the
     * simulated interrupt: any context resumes by either switch. */
}

static void run(void)
{
    for (;;) {
        cairn_ctx_t *from, *to;
        uint32_t s = arch_irq_save();
        bool sw = cairn__thread_pick(&from, &to);
        if (sw)
            swap(from, to);
        arch_irq_restore(s);
        if (!sw || cairn_k.in_thread)
            return;
        /* Back on the message level: what outranks it first, then maybe a thread. */
        cairn_dispatch();
        s = arch_irq_save();
        sw = cairn__thread_should_switch();
        arch_irq_restore(s);
        if (!sw)
            return;
    }
}

void arch_thread_settle(void)
{
    /* sem.c's fast path masks interrupts here: nothing is ever left half-way. */
}

void arch_thread_reschedule(void)
{
    if (cairn_host_irq_depth() || cairn_k.isr_depth || host_timer_in_isr()) {
        pending = 1;
        return;
    }
    pending = 0;
    run();
}

void cairn_host_thread_pending(void)
{
    if (pending && !cairn_k.isr_depth && !cairn_host_irq_depth() && !host_timer_in_isr()) {
        pending = 0;
        run();
    }
}

void arch_thread_overflow(const char *name)
{
    overflows++;
    overflow_name = name;
}

unsigned cairn_host_thread_overflows(void)
{
    return overflows;
}

const char *cairn_host_thread_overflow_name(void)
{
    return overflow_name;
}

unsigned cairn_host_thread_contexts(void)
{
    unsigned n = 0;
    for (unsigned i = 0; i < HOST_CONTEXTS; i++)
        n += (unsigned)pool[i].used;
    return n;
}
