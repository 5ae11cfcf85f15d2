/*
 * Cairn OS event log: one macro, CAIRN_TRACE(event, a, b), for every kernel event.
 *
 * Each event is one 32-bit word:
 *
 *     bits 31..24  event code (CAIRN_EV_*; 0 is never used)
 *     bits 23..16  a: 8 bits, usually a task ID
 *     bits 15..0   b: 16 bits, usually a port, size or return value
 *
 * Where the word goes depends on the port:
 *   - host (CAIRN_ARCH_HOST): appended to a RAM ring buffer that tests read
 *     (kernel/arch/host/cairn_host.h: cairn_trace_host_read);
 *   - armv6m: stored to the memory-mapped trace register CAIRN_TRACE_ADDR, which
 *     the board defines (cairn-sim timestamps each word with the exact cycle);
 *   - CAIRN_TRACE_ENABLED=0: nothing; the arguments are not evaluated.
 * Event meanings: docs/kernel.md, "Event log".
 */
#ifndef CAIRN_TRACE_H
#define CAIRN_TRACE_H

#include <stdint.h>

#ifndef CAIRN_TRACE_ENABLED
#define CAIRN_TRACE_ENABLED 1
#endif

/* Event codes; the meaning of a and b. */
#define CAIRN_EV_SEND 0x01u      /* message sent: a = destination task, b = input port */
#define CAIRN_EV_START 0x02u     /* handler starts: a = task, b = input port */
#define CAIRN_EV_END 0x03u       /* handler returned: a = task, b = return value (low 16 bits) */
#define CAIRN_EV_ALLOC 0x04u     /* heap block allocated: a = owner, b = usable size (saturated) */
#define CAIRN_EV_FREE 0x05u      /* heap block freed: a = owner, b = usable size (saturated) */
#define CAIRN_EV_TIMER 0x06u     /* virtual timer fired: a = task, b = timer 0..3 */
#define CAIRN_EV_IRQ_ENTER 0x07u /* interrupt entry: a = nesting depth, b = IRQ/exception number */
#define CAIRN_EV_IRQ_EXIT 0x08u  /* interrupt exit: a = nesting depth after exit, b = 0 */
#define CAIRN_EV_CURRENT 0x09u   /* after an END: a = the task that resumes (0 = none) */
#define CAIRN_EV_FULL 0x0Au      /* send refused, message pool full: a = destination, b = port */
#define CAIRN_EV_CREATE 0x0Bu    /* task created: a = task, b = priority */
#define CAIRN_EV_KILL 0x0Cu      /* task removed: a = task, b = queued messages dropped */
#define CAIRN_EV_IDLE 0x0Du      /* going idle: a = sleep state chosen, b = ticks to the next timer (saturated) */
#define CAIRN_EV_DROP 0x0Eu      /* send without a route: a = sending task, b = port */
/* 0x10..0x19 (0x1A..0x1F reserved): task migration (docs/migration.md, "Implementation"): one word per phase change
 * of a module's task migrator; a = the task, b = the migration (source module << 8 | counter). */
#define CAIRN_EV_MIG_REQUEST 0x10u    /* source: REQUEST accepted */
#define CAIRN_EV_MIG_FROZEN 0x11u     /* the task frozen here (source or participant) */
#define CAIRN_EV_MIG_SERIALIZED 0x12u /* source: the task's state serialised */
#define CAIRN_EV_MIG_STAGED 0x13u     /* destination: the staged copy made */
#define CAIRN_EV_MIG_COMMITTED 0x14u  /* destination: the task live here (the commit point) */
#define CAIRN_EV_MIG_RESUMED 0x15u    /* source: the task runs here again */
#define CAIRN_EV_MIG_KILLED 0x16u     /* source: the task killed (the destination was reset after staging) */
#define CAIRN_EV_MIG_UNFROZEN 0x17u   /* the result applied here: the task unfrozen */
#define CAIRN_EV_MIG_FREED 0x18u      /* source: its copy freed after the commit */
#define CAIRN_EV_MIG_STAGE_FAILED 0x19u /* destination: no staged copy (no memory, bad state, no record) */
/* 0x20..0x2F: messages across modules (docs/distributed.md, "Trace words"). A frame that
 * leaves is NET_SEND then NET_SEND_TO; one delivered is NET_RECV then NET_RECV_TO; the pair
 * (source module, sequence) names one frame on both sides. */
#define CAIRN_EV_NET_SEND 0x20u    /* frame given to the controller: a = destination module (0xFF all), b = sequence */
#define CAIRN_EV_NET_SEND_TO 0x21u /* its destination: a = task (CAIRN_TASK_MCAST: a group), b = input port (group) */
#define CAIRN_EV_NET_RECV 0x22u    /* frame handed to the scheduler: a = source module, b = sequence */
#define CAIRN_EV_NET_RECV_TO 0x23u /* its destination: a = task (CAIRN_TASK_MCAST: a group), b = input port (group) */
#define CAIRN_EV_NET_QUEUE 0x24u   /* bus busy, message buffered: a = destination task, b = input port (group) */
#define CAIRN_EV_NET_ERR 0x25u     /* counted error: a = CAIRN_NET_ERR_*, b = module << 8 | task */
#define CAIRN_EV_TIME_SYNC 0x26u   /* time sync sample taken: a = sync number, b = samples held (1 offset, 2 offset and rate) */
#define CAIRN_EV_TIME_MARK 0x27u   /* an application's mark at an agreed global time: a = module, b = mark number */
/* Reliable remote messages (cairn/reliable.h): a message numbered, and accepted by its task's
 * module; the pair names one message whatever its frames did. */
#define CAIRN_EV_NET_REL_SEND 0x28u   /* a message numbered: a = destination task, b = sending module << 8 | number */
#define CAIRN_EV_NET_REL_ACCEPT 0x29u /* a message accepted: a = task, b = sending module << 8 | number */
/* 0x30..0x38: checkpoint migration, defined in cairn/checkpoint.h (docs/checkpoint.md). */
/* 0x80..0xFF: applications. */
#define CAIRN_EV_USER 0x80u

#define CAIRN_TRACE_WORD(ev, a, b)                                                                \
    ((((uint32_t)(ev) & 0xFFu) << 24) | (((uint32_t)(a) & 0xFFu) << 16) |                         \
     ((uint32_t)(b) & 0xFFFFu))
#define CAIRN_TRACE_EVENT(w) ((uint8_t)((w) >> 24))
#define CAIRN_TRACE_A(w) ((uint8_t)((w) >> 16))
#define CAIRN_TRACE_B(w) ((uint16_t)(w))

/* A value saturated to the 16-bit b field. */
#define CAIRN_TRACE_SAT16(x) ((uint32_t)(x) > 0xFFFFu ? 0xFFFFu : (uint32_t)(x))

#if !CAIRN_TRACE_ENABLED
/* Compiles to nothing; sizeof keeps the arguments "used" without evaluating them. */
#define CAIRN_TRACE(ev, a, b) ((void)sizeof((uint32_t)(ev) + (uint32_t)(a) + (uint32_t)(b)))
#elif defined(CAIRN_ARCH_HOST)
void cairn_trace_host_put(uint32_t word);
#define CAIRN_TRACE(ev, a, b) cairn_trace_host_put(CAIRN_TRACE_WORD(ev, a, b))
#else
#ifndef CAIRN_TRACE_ADDR
#error "the board must define CAIRN_TRACE_ADDR (trace register), or set CAIRN_TRACE_ENABLED=0"
#endif
#define CAIRN_TRACE(ev, a, b)                                                                     \
    (*(volatile uint32_t *)(CAIRN_TRACE_ADDR) = CAIRN_TRACE_WORD(ev, a, b))
#endif

#endif /* CAIRN_TRACE_H */
