/*
 * Cairn OS armv6m port: the two paths the kernel's latency figures depend on,
 * in assembly (docs/kernel.md, "Fast paths"). Each handles the common case only
 * and otherwise falls back to the general C path, which gives the same result.
 * Interrupts are off from the checks to the new top of the execution stack,
 * like the C paths' arch_irq_save sections, so the paths see each other's
 * updates whole.
 *
 * cairn_send: a handler sends a payload that is not a heap block on an output
 *   port routed to one task that is ready and preempts it (PRIMASK clear). The
 *   same checks, frame and message as cairn__deliver. A resolved send that cannot
 *   run now (queued) passes its frame straight to cairn__deliver; anything else
 *   (heap payload, multicast, no route, interrupts off) goes to
 *   cairn__send_general.
 *
 * cairn__irq_fast / cairn__irq_fast_level (r0 = the binding; the vectors
 *   CAIRN_IRQ_MESSAGE[_EDGE] define): the _level entry first masks the line. When
 *   the interrupt returns to Thread mode on the main stack, the task exists and
 *   is ready, nothing is queued and the task outranks the interrupted level
 *   strictly, the binding's frame becomes the top of the execution stack and the
 *   exception returns INTO the task's handler, through a fabricated exception
 *   frame below the interrupted code's: r0 = state, r1 = the message, lr =
 *   cairn__armv6m_direct_end, pc = the handler (port[] of the binding holds these,
 *   filled when the task is created). Else cairn_irq_message.
 *
 * cairn__armv6m_direct_end: where that handler returns (Thread mode, SP at the
 *   interrupted code's exception frame, as at the handler's first instruction):
 *   ends the level (cairn__end), dispatches what outranks the interrupted code,
 *   then SVC, whose handler drops its own frame and returns from the exception
 *   through the interrupted code's original frame (irq.c).
 *
 * The vectors and these paths share the section prefix .text.cairn_fast, which
 * the board's linker script places first, so a vector reaches them with B.
 */
#include "../../core/kernel.h"

#define S_(x) #x
#define S(x) S_(x)

#define FAST __attribute__((naked, section(".text.cairn_fast")))

void cairn__armv6m_direct_end(void);
void cairn__irq_fast(void);
void cairn__irq_fast_level(void);
void cairn__direct_end(cairn_ret_t r);
void cairn__armv6m_return_into(void);

/* Event codes and offsets as plain numbers for the assembler. */
#define EV_SEND 1
#define EV_START 2
#define EV_IRQ_EXIT 8
_Static_assert(EV_SEND == CAIRN_EV_SEND && EV_START == CAIRN_EV_START && EV_IRQ_EXIT == CAIRN_EV_IRQ_EXIT,
               "event codes");
#define TCB_ID (CAIRN_TCB_PRIO + 1)
#define B_PORT 28
#define B_TRACE 56
#if CAIRN_POLICY == CAIRN_POLICY_FP /* the only policy whose binding the assembly reads */
_Static_assert(__builtin_offsetof(cairn_irq_binding_t, port) == B_PORT, "binding layout");
#if CAIRN_TRACE_ENABLED
_Static_assert(__builtin_offsetof(cairn_irq_binding_t, trace) == B_TRACE, "binding layout");
#endif
#endif

void arch_irq_binding_fill(cairn_irq_binding_t *b, struct cairn_tcb *t)
{
    b->port[0] = t->state;                                            /* r0 */
    b->port[1] = &b->frame.msg;                                       /* r1 */
    b->port[2] = (void *)(uintptr_t)cairn__armv6m_direct_end;         /* lr */
    b->port[3] = (void *)((uintptr_t)t->handler & ~(uintptr_t)1);     /* pc: bit 0 clear */
    b->port[4] = (void *)(uintptr_t)0x01000000u;                      /* xPSR: Thumb */
    b->port[5] = (void *)(uintptr_t)(1u << (b->irq & 31u));           /* NVIC bit */
}

/* The end of a handler the fast path started (called from assembly): its level,
 * the binding's frame, is the top again. */
void cairn__direct_end(cairn_ret_t r)
{
    cairn__end(r, cairn_k.top);
    cairn_dispatch();
}

/* Where cairn_send goes for a route without a local TCB, its registers {r4-r7, lr} pushed,
 * r0-r2 its arguments, r5 the sender's TCB: the bus manager's remote fast path
 * (kernel/arch/armv6m/net/net_fast.c) when it is linked, else the general path. */
__attribute__((weak, naked, section(".text.cairn_fast.send_remote"))) void cairn__send_remote(void)
{
    __asm__ volatile("pop   {r4-r7}\n\t"
                     "pop   {r3}\n\t"
                     "mov   lr, r3\n\t"
                     "ldr   r3, =cairn__send_general\n\t"
                     "bx    r3\n\t"
                     ".ltorg\n\t");
}

FAST void cairn__armv6m_direct_end(void)
{
    __asm__ volatile("bl   cairn__direct_end\n\t"
                     "svc  #0\n\t"
                     "b    .\n\t");
}

#if CAIRN_POLICY != CAIRN_POLICY_FP
/* EDF and CSD: the assembly below hard-codes fixed priority's test, so an interrupt bound to
 * a message decides in C (cairn__irq_policy_start) and returns into the handler through
 * cairn__armv6m_return_into, as the bus's RX fast path does; cairn_send is send.c's C
 * function. */
cairn_frame_t *cairn__irq_policy_start(cairn_irq_binding_t *b, uint32_t exc_return);

/* With interrupts masked, from cairn__irq_fast: when the interrupt returns to Thread mode on
 * the main stack, the task exists and is ready, nothing is queued and the message may start
 * above the interrupted code (the policy's test, after its stamp), the binding's frame becomes
 * the top of the execution stack and is returned; else NULL (cairn_irq_message then). */
cairn_frame_t *cairn__irq_policy_start(cairn_irq_binding_t *b, uint32_t exc_return)
{
    cairn_frame_t *f = &b->frame;
    cairn_tcb_t *t = f->tcb;
    if (exc_return != 0xFFFFFFF9u || !t || (t->flags >> 5) != 1u || cairn_k.queue)
        return 0; /* not READY alone: on the stack, not initialised, being killed */
    cairn__policy_stamp(&f->msg, t);
    cairn_frame_t *top = cairn_k.top;
    if (!cairn__policy_starts(&f->msg, top))
        return 0;
    CAIRN_TRACE(CAIRN_EV_IRQ_ENTER, 1, b->irq);
    CAIRN_TRACE(CAIRN_EV_SEND, t->id, f->msg.port);
    CAIRN_TRACE(CAIRN_EV_IRQ_EXIT, 0, 0);
    CAIRN_TRACE(CAIRN_EV_START, t->id, f->msg.port);
    f->below = top;
    cairn_k.top = f;
    t->flags = TCB_READY | TCB_ON_STACK;
    /* This policy may start f at the interrupted level's priority: a mark left by a loop
     * between handlers there would read as f's and hold back what outranks f. */
    cairn_k.gap = 0;
    return f;
}

FAST void cairn__irq_fast_level(void)
{
    __asm__ volatile("cpsid i\n\t"
                     "ldr   r1, [r0, %c0]\n\t" /* 1 << irq (0 until the task exists) */
                     "ldr   r2, =0xE000E180\n\t" /* NVIC_ICER: masked until cairn_irq_unmask */
                     "str   r1, [r2]\n\t"
                     "b     cairn__irq_fast\n\t"
                     ".ltorg\n\t" ::"i"(__builtin_offsetof(cairn_irq_binding_t, port) + 5 * sizeof(void *)));
}

FAST void cairn__irq_fast(void)
{
    __asm__ volatile("cpsid i\n\t"
                     "push  {r0, lr}\n\t"
                     "mov   r1, lr\n\t"
                     "bl    cairn__irq_policy_start\n\t"
                     "pop   {r1, r2}\n\t" /* the binding, EXC_RETURN */
                     "mov   lr, r2\n\t"
                     "cmp   r0, #0\n\t"
                     "beq   9f\n\t"
                     "ldr   r1, =cairn__armv6m_return_into\n\t"
                     "bx    r1\n\t"
                     "9:\n\t"
                     "cpsie i\n\t"
                     "mov   r0, r1\n\t"
                     "ldr   r1, =cairn_irq_message\n\t"
                     "bx    r1\n\t"
                     ".ltorg\n\t");
}
#else
FAST void cairn__irq_fast_level(void)
{
    __asm__ volatile(
        "cpsid i\n\t"
        "ldr   r1, [r0, #" S(B_PORT) " + 20]\n\t" /* 1 << irq (0 until the task exists) */
        "ldr   r2, =0xE000E180\n\t"               /* NVIC_ICER: masked until cairn_irq_unmask */
        "str   r1, [r2]\n\t"
        "b     cairn__irq_fast\n\t"
        ".ltorg\n\t");
}

FAST void cairn__irq_fast(void)
{
    __asm__ volatile(
        "cpsid i\n\t"
        "mov   r2, lr\n\t"
        "adds  r2, #7\n\t" /* EXC_RETURN 0xFFFFFFF9: back to Thread mode, main stack? */
        "bne   9f\n\t"
        "ldr   r1, [r0, #" S(CAIRN_FRAME_TCB) "]\n\t"
        "cmp   r1, #0\n\t"
        "beq   9f\n\t" /* the task does not exist */
        "ldrb  r2, [r1, #" S(CAIRN_TCB_FLAGS) "]\n\t"
        "lsrs  r2, #5\n\t"
        "cmp   r2, #1\n\t"
        "bne   9f\n\t" /* not READY alone: on the stack, not initialised, being killed */
        "ldr   r3, =cairn_k\n\t"
        "ldr   r2, [r3, #" S(CAIRN_K_QUEUE) "]\n\t"
        "cmp   r2, #0\n\t"
        "bne   9f\n\t" /* something is queued: the general path keeps the order */
        "ldr   r2, [r3, #" S(CAIRN_K_TOP) "]\n\t"
        "cmp   r2, #0\n\t"
        "beq   1f\n\t"
        "ldrb  r2, [r2, #" S(CAIRN_FRAME_PRIO) "]\n\t"
        "ldrb  r1, [r0, #" S(CAIRN_FRAME_PRIO) "]\n\t"
        "cmp   r1, r2\n\t"
        "bls   9f\n\t" /* not strictly above the interrupted level */
        "ldr   r1, [r0, #" S(CAIRN_FRAME_TCB) "]\n\t"
        "ldr   r2, [r3, #" S(CAIRN_K_TOP) "]\n\t"
        "1:\n\t"
        /* frame.below only once the frame is taken: inside cairn__end the task is ready
         * again while this frame is still the top, and a store before the test made it
         * its own below, so that the end's pop left it on the stack for good. */
        "str   r2, [r0]\n\t"
        "str   r0, [r3, #" S(CAIRN_K_TOP) "]\n\t"
        "movs  r2, #0x60\n\t" /* READY | ON_STACK */
        "strb  r2, [r1, #" S(CAIRN_TCB_FLAGS) "]\n\t"
#if CAIRN_TRACE_ENABLED
        "ldr   r3, =" S(CAIRN_TRACE_ADDR) "\n\t"
        "ldr   r2, [r0, #" S(B_TRACE) "]\n\t"
        "str   r2, [r3]\n\t" /* IRQ_ENTER */
        "ldr   r2, [r0, #" S(B_TRACE) " + 4]\n\t"
        "str   r2, [r3]\n\t" /* SEND */
        "movs  r2, #" S(EV_IRQ_EXIT) "\n\t"
        "lsls  r2, #24\n\t"
        "str   r2, [r3]\n\t" /* IRQ_EXIT */
        "ldr   r2, [r0, #" S(B_TRACE) " + 8]\n\t"
        "str   r2, [r3]\n\t" /* START */
#endif
        "mov   r3, sp\n\t"
        "subs  r3, #32\n\t" /* the fabricated exception frame */
        "adds  r0, #" S(B_PORT) "\n\t"
        "ldm   r0!, {r1, r2}\n\t" /* state, message */
        "stm   r3!, {r1, r2}\n\t" /* r0, r1 */
        "adds  r3, #12\n\t"       /* (r2, r3, r12: anything) */
        "ldm   r0, {r0, r1, r2}\n\t"
        "stm   r3!, {r0, r1, r2}\n\t" /* lr, pc, xPSR */
        "subs  r3, #32\n\t"
        "mov   sp, r3\n\t"
        "cpsie i\n\t"
        "bx    lr\n\t"
        "9:\n\t"
        "cpsie i\n\t"
        "ldr   r1, =cairn_irq_message\n\t"
        "bx    r1\n\t"
        ".ltorg\n\t");
}

#endif /* CAIRN_POLICY != CAIRN_POLICY_FP */

/* r0 = a frame that a vector's C part made the top of the execution stack, interrupts
 * masked, lr the EXC_RETURN to Thread mode on the main stack: the exception returns into
 * the frame's handler as cairn__irq_fast's does (r0 = state, r1 = the message, lr =
 * cairn__armv6m_direct_end). */
FAST void cairn__armv6m_return_into(void)
{
    __asm__ volatile(
        "ldr   r1, [r0, #" S(CAIRN_FRAME_TCB) "]\n\t"
        "ldm   r1!, {r2, r3}\n\t" /* state, handler */
        "mov   r1, sp\n\t"
        "subs  r1, #32\n\t" /* the fabricated exception frame */
        "mov   sp, r1\n\t"
        "adds  r0, #" S(CAIRN_FRAME_MSG) "\n\t"
        "stm   r1!, {r2}\n\t" /* r0 = state */
        "stm   r1!, {r0}\n\t" /* r1 = the message */
        "adds  r1, #12\n\t"   /* (r2, r3, r12: anything) */
        "ldr   r0, =cairn__armv6m_direct_end\n\t"
        "lsrs  r3, #1\n\t"
        "lsls  r3, #1\n\t" /* pc: bit 0 clear */
        "movs  r2, #1\n\t"
        "lsls  r2, #24\n\t" /* xPSR: Thumb */
        "stm   r1!, {r0, r3}\n\t" /* lr, pc */
        "str   r2, [r1]\n\t"
        "cpsie i\n\t"
        "bx    lr\n\t"
        ".ltorg\n\t");
}

#if CAIRN_POLICY == CAIRN_POLICY_FP
/* cairn_ret_t cairn_send(cairn_port_t out_port, const void *payload, size_t len) */
FAST cairn_ret_t cairn_send(cairn_port_t out_port, const void *payload, size_t len)
{
    (void)out_port;
    (void)payload;
    (void)len;
    __asm__ volatile(
        "push  {r4-r7, lr}\n\t"
        "ldr   r3, =cairn_k\n\t"
        "ldm   r3!, {r4, r5}\n\t" /* heap base, size; r3 = &cairn_k + 8 */
        "subs  r4, r1, r4\n\t"
        "cmp   r4, r5\n\t"
        "blo   9f\n\t" /* a heap payload: the general path claims it */
        "lsrs  r4, r2, #16\n\t"
        "bne   9f\n\t" /* len > CAIRN_MSG_MAX_LEN */
        "ldr   r4, [r3, #" S(CAIRN_K_TOP) " - 8]\n\t"
        "cmp   r4, #0\n\t"
        "beq   9f\n\t" /* no handler is running (or in an interrupt handler) */
        "ldr   r5, [r4, #" S(CAIRN_FRAME_TCB) "]\n\t" /* the sender */
        "cmp   r5, #0\n\t"
        "beq   9f\n\t" /* the kernel's own level */
        "ldrb  r6, [r5, #" S(CAIRN_TCB_NUM_OUT) "]\n\t"
        "cmp   r0, r6\n\t"
        "bhs   9f\n\t"
        "lsls  r6, r0, #1\n\t"
        "adds  r6, r5\n\t"
        "ldrb  r7, [r6, #" S(CAIRN_TCB_ROUTES) "]\n\t"     /* destination task */
        "ldrb  r6, [r6, #" S(CAIRN_TCB_ROUTES) " + 1]\n\t" /* its input port */
        "lsls  r7, #2\n\t"
        "adds  r7, r3\n\t"
        "ldr   r7, [r7, #" S(CAIRN_K_TASKS) " - 8]\n\t"
        "cmp   r7, #0\n\t"
        "beq   6f\n\t" /* a remote task, unconnected, a multicast group, or the task is gone */
        "lsls  r6, #16\n\t"
        "orrs  r2, r6\n\t"
        "ldrb  r6, [r5, #" S(TCB_ID) "]\n\t"
        "lsls  r6, #24\n\t"
        "orrs  r2, r6\n\t" /* msg.len | port << 16 | src << 24 */
        "mrs   r5, primask\n\t"
        "cmp   r5, #0\n\t"
        "bne   8f\n\t" /* the caller has interrupts off: the general path keeps them off */
        "sub   sp, #32\n\t" /* the frame (28 bytes), 8-byte aligned, and its message */
        "ldrh  r5, [r7, #" S(CAIRN_TCB_PRIO) "]\n\t" /* prio | id << 8 */
        "str   r5, [sp, #" S(CAIRN_FRAME_PRIO) "]\n\t" /* prio (and a reserved byte) */
        "str   r5, [sp, #" S(CAIRN_FRAME_MSG) " + " S(CAIRN_MSG_PRIO) "]\n\t" /* msg.prio, .dst; .flags = 0 */
        "str   r1, [sp, #" S(CAIRN_FRAME_MSG) " + " S(CAIRN_MSG_PAYLOAD) "]\n\t"  /* msg.payload */
        "str   r2, [sp, #" S(CAIRN_FRAME_MSG) " + " S(CAIRN_MSG_LEN) "]\n\t"  /* msg.len, .port, .src */
        "cpsid i\n\t"
        "ldrb  r5, [r7, #" S(CAIRN_TCB_FLAGS) "]\n\t"
        "lsrs  r5, #5\n\t"
        "cmp   r5, #1\n\t"
        "bne   7f\n\t" /* not READY alone: on the stack, not initialised, being killed */
        "ldrb  r5, [r7, #" S(CAIRN_TCB_PRIO) "]\n\t"
        "ldrb  r6, [r4, #" S(CAIRN_FRAME_PRIO) "]\n\t"
        "cmp   r5, r6\n\t"
        "blo   7f\n\t" /* below the running level: queued */
        "str   r4, [sp, #0]\n\t" /* below */
        "str   r7, [sp, #" S(CAIRN_FRAME_TCB) "]\n\t"
        "mov   r4, sp\n\t"
        "str   r4, [r3, #" S(CAIRN_K_TOP) " - 8]\n\t"
        "movs  r5, #0x60\n\t"
        "strb  r5, [r7, #" S(CAIRN_TCB_FLAGS) "]\n\t" /* READY | ON_STACK */
        "cpsie i\n\t"
#if CAIRN_TRACE_ENABLED
        "ldrb  r5, [r7, #" S(TCB_ID) "]\n\t"
        "lsls  r5, #16\n\t"
        "lsls  r6, r2, #8\n\t"
        "lsrs  r6, #24\n\t"
        "orrs  r5, r6\n\t" /* dst << 16 | port */
        "ldr   r0, =" S(CAIRN_TRACE_ADDR) "\n\t"
        "movs  r6, #" S(EV_SEND) "\n\t"
        "lsls  r6, #24\n\t"
        "orrs  r6, r5\n\t"
        "str   r6, [r0]\n\t"
        "movs  r6, #" S(EV_START) "\n\t"
        "lsls  r6, #24\n\t"
        "orrs  r6, r5\n\t"
        "str   r6, [r0]\n\t"
#endif
        "add   r1, sp, #" S(CAIRN_FRAME_MSG) "\n\t"
        "ldm   r7!, {r0, r2}\n\t" /* state, handler */
        "blx   r2\n\t"
        "mov   r1, r4\n\t"
        "bl    cairn__end\n\t"
        "bl    cairn_dispatch\n\t"
        "add   sp, #32\n\t"
        "movs  r0, #0\n\t"
        "pop   {r4-r7, pc}\n\t"
        "7:\n\t" /* resolved, not run now: cairn__deliver(the frame) queues the message */
        "cpsie i\n\t"
        "mov   r0, sp\n\t"
        "bl    cairn__deliver\n\t"
        "add   sp, #32\n\t"
        "pop   {r4-r7, pc}\n\t"
        "6:\n\t" /* no local TCB: the bus manager's remote fast path, if it is linked */
        "b     cairn__send_remote\n\t" /* r4-r7 and lr pushed, r5 the sender */
        "8:\n\t"
        "uxth  r2, r2\n\t" /* len again */
        "9:\n\t"
        "pop   {r4-r7}\n\t"
        "pop   {r3}\n\t"
        "mov   lr, r3\n\t"
        "ldr   r3, =cairn__send_general\n\t"
        "bx    r3\n\t"
        ".ltorg\n\t");
}
#endif /* CAIRN_POLICY == CAIRN_POLICY_FP */
