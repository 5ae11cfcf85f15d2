/*
 * Cairn OS: interrupts bound to messages — the fastest way from an interrupt
 * into a task (issue 3, "irq_to_handler").
 *
 *     CAIRN_IRQ_MESSAGE(irq24_handler, IRQ_SOFT0, SENSOR_TASK, CAIRN_PORT(0));
 *
 * defines the interrupt handler irq24_handler (the board's vector for IRQ 24)
 * that turns each interrupt into a message without payload (src 0) on input port
 * CAIRN_PORT(0) of task SENSOR_TASK. The handler first masks the line in the
 * interrupt controller; the task unmasks it with cairn_irq_unmask(irq) once it has
 * served the device, so a level-sensitive device cannot interrupt again before
 * its task has run.
 *
 * The message follows the rules of any interrupt-handler send (strictly higher
 * priority than the interrupted code preempts it; docs/kernel.md). On armv6m,
 * when it does preempt, nothing is queued and the interrupt returns straight
 * into the task's handler: the handler's level is the binding's own frame, and
 * the interrupted code resumes when the handler (and whatever it dispatches) is
 * done. Otherwise — a queued message, a nested interrupt, a task not ready — the
 * message is queued by the general path, cairn_irq_message.
 */
#ifndef CAIRN_IRQ_H
#define CAIRN_IRQ_H

#include "cairn/msg.h"
#include "cairn/trace.h"
#include "cairn/types.h"

/* One level of the execution stack (kernel-private fields). */
struct cairn_frame {
    struct cairn_frame *below;
    cairn_msg_t *msg;     /* message being handled or held; NULL for none */
    cairn_prio_t prio;    /* priority of this level (255 for the kernel itself) */
    cairn_task_id_t task; /* task running at this level; 0 = the kernel */
    uint16_t reserved;
};

/* What CAIRN_IRQ_MESSAGE defines (in RAM: the kernel fills frame and msg.prio). */
typedef struct cairn_irq_binding {
    struct cairn_frame frame; /* the handler's level while it runs from the fast path */
    cairn_msg_t msg;          /* the message: port, dst; no payload */
    uint32_t irq_bit;         /* 1 << irq */
    uint16_t irq;
#if CAIRN_TRACE_ENABLED
    uint32_t trace[3]; /* IRQ_ENTER, SEND, START words (precomputed for the fast path) */
#endif
} cairn_irq_binding_t;

#if CAIRN_TRACE_ENABLED
#define CAIRN__IRQ_TRACE(irq, task, port)                                                         \
    .trace = {CAIRN_TRACE_WORD(CAIRN_EV_IRQ_ENTER, 1, irq),                                      \
              CAIRN_TRACE_WORD(CAIRN_EV_SEND, task, port),                                       \
              CAIRN_TRACE_WORD(CAIRN_EV_START, task, port)},
#else
#define CAIRN__IRQ_TRACE(irq, task, port)
#endif

#define CAIRN_IRQ_BINDING_INIT(self, irq_, task_, port_)                                          \
    {.frame = {.msg = &(self).msg, .task = (task_)},                                             \
     .msg = {.port = (port_), .dst = (task_)},                                                   \
     .irq_bit = 1u << (irq_),                                                                     \
     .irq = (irq_),                                                                               \
     CAIRN__IRQ_TRACE(irq_, task_, port_)}

/* The general path: masks the line, then sends the message as an interrupt
 * handler would (cairn_isr_enter / send / cairn_isr_exit). The host port's
 * CAIRN_IRQ_MESSAGE handlers call it; on armv6m the fast path falls back to it. */
void cairn_irq_message(cairn_irq_binding_t *b);

/* Unmasks IRQ irq in the interrupt controller (call when the device is served). */
void cairn_irq_unmask(unsigned irq);

/* The port's part: arch_irq_mask/unmask and CAIRN__IRQ_VECTOR(vector, binding). */
#include "cairn_port.h"

#define CAIRN_IRQ_MESSAGE(vector, irq, task, port)                                                \
    static cairn_irq_binding_t vector##_binding =                                                 \
        CAIRN_IRQ_BINDING_INIT(vector##_binding, irq, task, port);                                \
    CAIRN__IRQ_VECTOR(vector, vector##_binding)

#endif /* CAIRN_IRQ_H */
