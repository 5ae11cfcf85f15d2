/*
 * Cairn OS: basic types and error codes shared by every kernel part.
 * The programming model and the API are described in docs/kernel.md.
 */
#ifndef CAIRN_TYPES_H
#define CAIRN_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A task's unique ID: 1..CAIRN_MAX_TASKS; 0 = none (or the kernel itself). */
typedef uint8_t cairn_task_id_t;
/* An input port (CAIRN_PORT_INIT.., CAIRN_PORT(n)) or an output port (0..num_out-1). */
typedef uint8_t cairn_port_t;
/* Task priority: 0 (lowest) .. CAIRN_PRIO_MAX; a higher number runs first. */
typedef uint8_t cairn_prio_t;
/* CAIRN_OK or a negative CAIRN_E* code. */
typedef int cairn_ret_t;

#define CAIRN_OK 0
#define CAIRN_ENOMEM -1   /* the heap has no block large enough */
#define CAIRN_EFULL -2    /* a fixed-size pool/table (messages, tasks, groups) is full */
#define CAIRN_EINVAL -3   /* a bad argument (unknown task, port out of range, ...) */
#define CAIRN_ENOROUTE -4 /* the output port is not connected, or the destination is gone */
#define CAIRN_EBUSY -5    /* the ID is taken, or the call is not allowed right now */
#define CAIRN_EDOWN -6    /* the destination module is powered off (docs/distributed.md) */
#define CAIRN_EAGAIN -7   /* raced with a writer: try again (a state message read, cairn/statemsg.h) */

#define CAIRN_TASK_NONE ((cairn_task_id_t)0)

#ifndef CAIRN_MAX_TASKS
#define CAIRN_MAX_TASKS 16
#endif
_Static_assert(CAIRN_MAX_TASKS >= 1 && CAIRN_MAX_TASKS <= 254, "task IDs are 1..254");

#define CAIRN_PRIO_MAX ((cairn_prio_t)254) /* 255 is kept for the kernel's own frames */

/* Number of elements of an array (for the description macros). */
#define CAIRN_COUNT(a) (sizeof(a) / sizeof((a)[0]))

#endif /* CAIRN_TYPES_H */
