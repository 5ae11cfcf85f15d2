/*
 * Cairn OS armv6m port: the two paths the kernel's latency figures depend on,
 * in assembly (docs/kernel.md, "Fast paths"). Each handles the common case only
 * and otherwise falls back to the general C path, which gives the same result:
 *
 * cairn_send: a handler sends a payload that is not a heap block on an output
 *   port routed to one task that is ready and preempts it. Same checks, same
 *   frame and message as cairn__deliver; falls back to cairn_send_from.
 *
 * cairn__irq_fast (r0 = the binding; the vectors of CAIRN_IRQ_MESSAGE): masks the
 *   line; when the interrupt returns to Thread mode on the main stack, nothing is
 *   queued, the task is ready and outranks the interrupted level strictly, it
 *   pushes the binding's frame as the new top of the execution stack and
 *   returns from the exception INTO the task's handler, through a fabricated
 *   exception frame below the interrupted code's one: r0 = state, r1 = message,
 *   lr = cairn__armv6m_direct_end, pc = handler. Falls back to cairn_irq_message.
 *
 * cairn__armv6m_direct_end: where that handler returns (Thread mode, SP at the
 *   interrupted code's exception frame, as at the handler's first instruction):
 *   ends the level (cairn__end), dispatches what outranks the
 *   interrupted code, then SVC, whose handler drops its own frame and returns
 *   from the exception through the interrupted code's original frame (irq.c).
 *
 * Interrupts are off from the checks to the new top, like the C paths'
 * arch_irq_save sections, so the two paths see each other's updates whole.
 */
#include "../../core/kernel.h"

#define S_(x) #x
#define S(x) S_(x)

void cairn__armv6m_direct_end(void);
void cairn__irq_fast(void);
void cairn__direct_end(cairn_ret_t r);

/* The end of a handler the fast path started (called from assembly): its level,
 * the binding's frame, is the top again. */
void cairn__direct_end(cairn_ret_t r)
{
    cairn__end(r, cairn_k.top);
    cairn_dispatch();
}

__attribute__((naked)) void cairn__armv6m_direct_end(void)
{
    __asm__ volatile("bl   cairn__direct_end\n\t"
                     "svc  #0\n\t"
                     "b    .\n\t");
}

/* Event codes as plain numbers for the assembler. */
#define EV_SEND 1
#define EV_START 2
#define EV_IRQ_EXIT 8
_Static_assert(EV_SEND == CAIRN_EV_SEND && EV_START == CAIRN_EV_START && EV_IRQ_EXIT == CAIRN_EV_IRQ_EXIT,
               "event codes");

/* Binding layout (cairn/irq.h). */
#define B_FRAME_PRIO 8
#define B_MSG 12
#define B_MSG_PRIO (B_MSG + CAIRN_MSG_PRIO)
#define B_IRQ_BIT 28
#define B_TRACE 36
_Static_assert(__builtin_offsetof(cairn_irq_binding_t, msg) == B_MSG, "binding layout");
_Static_assert(__builtin_offsetof(cairn_irq_binding_t, irq_bit) == B_IRQ_BIT, "binding layout");
#if CAIRN_TRACE_ENABLED
_Static_assert(__builtin_offsetof(cairn_irq_binding_t, trace) == B_TRACE, "binding layout");
#endif

__attribute__((naked)) void cairn__irq_fast(void)
{
    __asm__ volatile(
        "cpsid i\n\t"
        "ldr   r1, [r0, #" S(B_IRQ_BIT) "]\n\t"
        "ldr   r2, =0xE000E180\n\t" /* NVIC_ICER: masked until cairn_irq_unmask */
        "str   r1, [r2]\n\t"
        "mov   r2, lr\n\t"
        "adds  r2, #7\n\t" /* EXC_RETURN 0xFFFFFFF9: back to Thread mode, main stack? */
        "bne   9f\n\t"
        "ldr   r3, =cairn_k\n\t"
        "ldr   r2, [r3, #" S(CAIRN_K_QUEUE) "]\n\t"
        "cmp   r2, #0\n\t"
        "bne   9f\n\t" /* something queued: the general path keeps the order */
        "ldrb  r1, [r0, #" S(B_FRAME_PRIO) " + 1]\n\t"
        "lsls  r1, #2\n\t"
        "adds  r1, r3\n\t"
        "ldr   r1, [r1, #" S(CAIRN_K_TASKS) "]\n\t"
        "cmp   r1, #0\n\t"
        "beq   9f\n\t"
        "ldrb  r2, [r1, #" S(CAIRN_TCB_FLAGS) "]\n\t"
        "lsrs  r2, #5\n\t"
        "cmp   r2, #1\n\t" /* READY, not on the stack, not being killed */
        "bne   9f\n\t"
        "ldrh  r2, [r1, #" S(CAIRN_TCB_PRIO) "]\n\t" /* prio | id << 8 */
        "strh  r2, [r0, #" S(B_FRAME_PRIO) "]\n\t"
        "strh  r2, [r0, #" S(B_MSG_PRIO) "]\n\t"
        "ldr   r2, [r3, #" S(CAIRN_K_TOP) "]\n\t"
        "str   r2, [r0]\n\t" /* frame.below */
        "cmp   r2, #0\n\t"
        "beq   1f\n\t"
        "ldrb  r2, [r2, #" S(CAIRN_FRAME_PRIO) "]\n\t"
        "mov   r12, r1\n\t"
        "ldrb  r1, [r0, #" S(B_FRAME_PRIO) "]\n\t"
        "cmp   r1, r2\n\t"
        "mov   r1, r12\n\t"
        "bls   9f\n\t" /* not strictly above the interrupted level */
        "1:\n\t"
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
        "subs  r3, #32\n\t" /* the fabricated frame */
        "ldr   r2, [r1, #" S(CAIRN_TCB_STATE) "]\n\t"
        "str   r2, [r3, #0]\n\t" /* r0 = state */
        "movs  r2, #" S(B_MSG) "\n\t"
        "adds  r2, r0\n\t"
        "str   r2, [r3, #4]\n\t" /* r1 = the message */
        "ldr   r2, =cairn__armv6m_direct_end\n\t"
        "str   r2, [r3, #20]\n\t" /* lr */
        "ldr   r2, [r1, #" S(CAIRN_TCB_HANDLER) "]\n\t"
        "lsrs  r2, #1\n\t"
        "lsls  r2, #1\n\t"
        "str   r2, [r3, #24]\n\t" /* pc = the handler (a stacked pc has bit 0 clear) */
        "movs  r2, #1\n\t"
        "lsls  r2, #24\n\t"
        "str   r2, [r3, #28]\n\t" /* xPSR: Thumb */
        "mov   sp, r3\n\t"
        "cpsie i\n\t"
        "bx    lr\n\t"
        "9:\n\t"
        "cpsie i\n\t"
        "ldr   r1, =cairn_irq_message\n\t"
        "bx    r1\n\t"
        ".ltorg\n\t");
}

/* cairn_ret_t cairn_send(cairn_port_t out_port, const void *payload, size_t len) */
__attribute__((naked)) cairn_ret_t cairn_send(cairn_port_t out_port, const void *payload, size_t len)
{
    (void)out_port;
    (void)payload;
    (void)len;
    __asm__ volatile(
        "push  {r4-r7, lr}\n\t"
        "ldr   r3, =cairn__heap\n\t"
        "ldm   r3!, {r4, r5}\n\t" /* base, size */
        "subs  r4, r1, r4\n\t"
        "cmp   r4, r5\n\t"
        "blo   9f\n\t" /* a heap payload: the general path claims it */
        "lsrs  r4, r2, #16\n\t"
        "bne   9f\n\t" /* len > CAIRN_MSG_MAX_LEN */
        "ldr   r3, =cairn_k\n\t"
        "ldr   r4, [r3, #" S(CAIRN_K_TOP) "]\n\t"
        "cmp   r4, #0\n\t"
        "beq   9f\n\t" /* no handler is running */
        "ldrb  r5, [r3, #" S(CAIRN_K_ISR_DEPTH) "]\n\t"
        "cmp   r5, #0\n\t"
        "bne   9f\n\t" /* inside an interrupt handler */
        "ldrb  r5, [r4, #" S(CAIRN_FRAME_PRIO) " + 1]\n\t"
        "lsls  r5, #2\n\t"
        "adds  r5, r3\n\t"
        "ldr   r5, [r5, #" S(CAIRN_K_TASKS) "]\n\t" /* the sender */
        "cmp   r5, #0\n\t"
        "beq   9f\n\t" /* the kernel's own level */
        "ldrb  r6, [r5, #" S(CAIRN_TCB_NUM_OUT) "]\n\t"
        "cmp   r0, r6\n\t"
        "bhs   9f\n\t"
        "lsls  r6, r0, #1\n\t"
        "adds  r6, r5\n\t"
        "ldrh  r6, [r6, #" S(CAIRN_TCB_ROUTES) "]\n\t" /* route: task | port << 8 */
        "uxtb  r7, r6\n\t"
        "cmp   r7, #" S(CAIRN_MAX_TASKS) "\n\t"
        "bhi   9f\n\t" /* a multicast group */
        "lsls  r7, #2\n\t"
        "adds  r7, r3\n\t"
        "ldr   r7, [r7, #" S(CAIRN_K_TASKS) "]\n\t" /* the destination */
        "cmp   r7, #0\n\t"
        "beq   9f\n\t" /* unconnected, or the task is gone */
        "mov   lr, r0\n\t" /* out_port, for the general path (lr is saved) */
        "mrs   r0, primask\n\t"
        "cpsid i\n\t"
        "mov   r12, r0\n\t"
        "ldrb  r0, [r7, #" S(CAIRN_TCB_FLAGS) "]\n\t"
        "lsrs  r0, #5\n\t"
        "cmp   r0, #1\n\t"
        "bne   8f\n\t" /* not ready, on the stack or being killed */
        "ldrb  r0, [r7, #" S(CAIRN_TCB_PRIO) "]\n\t"
        "ldrb  r5, [r4, #" S(CAIRN_FRAME_PRIO) "]\n\t"
        "cmp   r0, r5\n\t"
        "blo   8f\n\t" /* below the running level: queued */
#if CAIRN_TRACE_ENABLED
        "uxtb  r5, r6\n\t"
        "lsls  r5, #16\n\t"
        "lsrs  r0, r6, #8\n\t"
        "orrs  r5, r0\n\t" /* dst << 16 | port, for SEND and START */
#endif
        "sub   sp, #32\n\t" /* frame (12 bytes), message (16), 8-byte aligned */
        "str   r4, [sp, #0]\n\t" /* frame.below */
        "add   r0, sp, #12\n\t"
        "str   r0, [sp, #4]\n\t" /* frame.msg */
        "ldrh  r0, [r7, #" S(CAIRN_TCB_PRIO) "]\n\t" /* prio | id << 8 */
        "str   r0, [sp, #8]\n\t" /* frame.prio, .task */
        "str   r0, [sp, #24]\n\t" /* msg.prio, .dst; .flags = 0 */
        "str   r1, [sp, #16]\n\t" /* msg.payload */
        "lsrs  r6, #8\n\t"
        "lsls  r6, #16\n\t"
        "orrs  r6, r2\n\t"
        "ldrb  r2, [r4, #" S(CAIRN_FRAME_PRIO) " + 1]\n\t"
        "lsls  r2, #24\n\t"
        "orrs  r6, r2\n\t"
        "str   r6, [sp, #20]\n\t" /* msg.len, .port, .src */
        "mov   r4, sp\n\t"
        "str   r4, [r3, #" S(CAIRN_K_TOP) "]\n\t"
        "movs  r0, #0x60\n\t"
        "strb  r0, [r7, #" S(CAIRN_TCB_FLAGS) "]\n\t" /* READY | ON_STACK */
        "mov   r0, r12\n\t"
        "msr   primask, r0\n\t"
#if CAIRN_TRACE_ENABLED
        "ldr   r0, =" S(CAIRN_TRACE_ADDR) "\n\t"
        "movs  r2, #" S(EV_SEND) "\n\t"
        "lsls  r2, #24\n\t"
        "orrs  r2, r5\n\t"
        "str   r2, [r0]\n\t"
        "movs  r2, #" S(EV_START) "\n\t"
        "lsls  r2, #24\n\t"
        "orrs  r2, r5\n\t"
        "str   r2, [r0]\n\t"
#endif
        "add   r1, sp, #12\n\t"
        "ldr   r0, [r7, #" S(CAIRN_TCB_STATE) "]\n\t"
        "ldr   r2, [r7, #" S(CAIRN_TCB_HANDLER) "]\n\t"
        "blx   r2\n\t"
        "mov   r1, r4\n\t"
        "bl    cairn__end\n\t"
        "bl    cairn_dispatch\n\t"
        "add   sp, #32\n\t"
        "movs  r0, #0\n\t"
        "pop   {r4-r7, pc}\n\t"
        "8:\n\t"
        "mov   r0, r12\n\t"
        "msr   primask, r0\n\t"
        "mov   r0, lr\n\t"
        "9:\n\t"
        "pop   {r4-r7}\n\t"
        "pop   {r3}\n\t"
        "mov   lr, r3\n\t"
        "ldr   r3, =cairn__send_general\n\t"
        "bx    r3\n\t"
        ".ltorg\n\t");
}
