/*
 * Cairn OS: interrupts bound to messages — the fastest way from an interrupt
 * into a task ("irq_to_handler").
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

struct cairn_tcb;

/* One level of the execution stack (kernel-private fields), with the message
 * its handler handles (or a multicast send holds; empty for the kernel's own). */
struct cairn_frame {
    struct cairn_frame *below;
    struct cairn_tcb *tcb; /* task running at this level; NULL = the kernel */
    cairn_prio_t prio;     /* priority of this level (255 for the kernel itself) */
    uint8_t reserved[3];
    cairn_msg_t msg;
};

/* What CAIRN_IRQ_MESSAGE defines, in RAM. The kernel keeps frame.tcb, the
 * priorities and port[] up to date while the task exists (all bindings sit in
 * one linker section, so task creation and removal can find them). */
typedef struct cairn_irq_binding {
    struct cairn_frame frame; /* the handler's level and message (port, dst; no payload) */
    void *port[6];            /* the port's precomputed data (armv6m: the fabricated frame) */
    uint16_t irq;
    uint8_t level; /* mask the line until cairn_irq_unmask (level-sensitive source) */
    uint8_t reserved;
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

#define CAIRN_IRQ_BINDING_INIT(irq_, task_, port_, level_)                                  \
    {.frame = {.msg = {.port = (port_), .dst = (task_)}},                                         \
     .irq = (irq_),                                                                               \
     .level = (level_),                                                                           \
     CAIRN__IRQ_TRACE(irq_, task_, port_)}

/* The general path: masks a level-sensitive line, then sends the message as an interrupt
 * handler would (cairn_isr_enter / send / cairn_isr_exit). The host port's
 * CAIRN_IRQ_MESSAGE handlers call it; on armv6m the fast path falls back to it. */
void cairn_irq_message(cairn_irq_binding_t *b);

/* Unmasks IRQ irq in the interrupt controller (call when the device is served). A request
 * the controller latched while the line was masked is dropped first: a level-sensitive
 * device that still requests service pends the line again at once. */
void cairn_irq_unmask(unsigned irq);

/* The port's part: arch_irq_mask/unmask, CAIRN__IRQ_VECTOR(vector, binding, level)
 * and arch_irq_binding_fill (the port[] data of a binding whose task exists). */
#include "cairn_port.h"

#define CAIRN__IRQ_DEFINE(vector, irq, task, port, level)                                         \
    static cairn_irq_binding_t vector##_binding                                                   \
        __attribute__((used, section("cairn_irq_bindings"))) =                                    \
            CAIRN_IRQ_BINDING_INIT(irq, task, port, level);                     \
    CAIRN__IRQ_VECTOR(vector, vector##_binding, level)

/* A level-sensitive source (the device holds its request until served): the line
 * stays masked from the interrupt until the task calls cairn_irq_unmask. */
#define CAIRN_IRQ_MESSAGE(vector, irq, task, port) CAIRN__IRQ_DEFINE(vector, irq, task, port, 1)
/* A source that does not hold a request line (a software-pended interrupt, a
 * pulse the NVIC latches): nothing is masked. */
#define CAIRN_IRQ_MESSAGE_EDGE(vector, irq, task, port) CAIRN__IRQ_DEFINE(vector, irq, task, port, 0)

/* Kernel-internal: every binding; the refresh of those of task id when it is
 * created (t) or removed (NULL); and forgetting every task (cairn_sched_init). */
extern cairn_irq_binding_t __start_cairn_irq_bindings[] __attribute__((weak));
extern cairn_irq_binding_t __stop_cairn_irq_bindings[] __attribute__((weak));
void cairn__irq_bindings_refresh(cairn_task_id_t id, struct cairn_tcb *t);
void cairn__irq_bindings_forget(void);
void arch_irq_binding_fill(cairn_irq_binding_t *b, struct cairn_tcb *t);

#endif /* CAIRN_IRQ_H */
