/*
 * Cairn OS applications: a description of a set of tasks (CoMOS Listing 2) and
 * the application manager that instantiates it.
 *
 * Task IDs and multicast group IDs inside a description are RELATIVE (task 0 is
 * the first entry of .tasks, group 0 the first group); the manager patches them
 * to free global IDs, creates every task, joins the groups, and only then sends
 * INIT (with the task's init string) to each. Messages to a task that has not yet
 * handled INIT are buffered. Example (the CoMOS hello world):
 *
 *   static const cairn_program_t programs[] = {
 *       [TIMER_PROG] = CAIRN_PROGRAM(timer_task, struct timer_state),
 *       [HELLO_PROG] = CAIRN_PROGRAM(hello_task, struct hello_state),
 *   };
 *   static const struct timer_init timer_init = {.period = CAIRN_TICKS_PER_SECOND / 8};
 *   static const cairn_app_route_t timer_out[] = {CAIRN_TO_GROUP(0)};
 *   static const cairn_task_desc_t tasks[] = {
 *       {.prog = TIMER_PROG, .prio = 1, CAIRN_OUT(timer_out), CAIRN_INIT_DATA(timer_init)},
 *       {.prog = HELLO_PROG, .prio = 1},
 *   };
 *   static const cairn_member_desc_t members[] = {
 *       {.group = 0, .task = 1, .port = CAIRN_PORT(0)},
 *   };
 *   static const cairn_app_desc_t hello_app = {
 *       CAIRN_PROGRAMS(programs), CAIRN_TASKS(tasks), .num_groups = 1, CAIRN_MEMBERS(members),
 *   };
 *   ...  cairn_app_start(&hello_app, NULL);
 */
#ifndef CAIRN_APP_H
#define CAIRN_APP_H

#include "cairn/msg.h"
#include "cairn/types.h"

/* A program: the code of a task (CoMOS prog_id indexes a table of these). The
 * manager allocates state_size zeroed bytes of state, owned by the task. */
typedef struct cairn_program {
    cairn_handler_t handler;
    uint16_t state_size;
} cairn_program_t;

#define CAIRN_PROGRAM(handler_, state_type)                                                       \
    {.handler = (handler_), .state_size = sizeof(state_type)}
#define CAIRN_PROGRAM_STATELESS(handler_) {.handler = (handler_), .state_size = 0}

/* Where an output port of a described task goes. */
typedef enum {
    CAIRN_DST_NONE = 0, /* unconnected */
    CAIRN_DST_TASK,     /* a task of this application (relative ID) */
    CAIRN_DST_GROUP,    /* a multicast group of this application (relative ID) */
    CAIRN_DST_GLOBAL,   /* a task outside the application, by global ID (e.g. a driver) */
} cairn_dst_kind_t;

typedef struct cairn_app_route {
    uint8_t kind;       /* cairn_dst_kind_t */
    uint8_t target;     /* relative task, relative group, or global task ID */
    cairn_port_t port;  /* input port (not used for groups) */
} cairn_app_route_t;

#define CAIRN_TO(task_, port_) {.kind = CAIRN_DST_TASK, .target = (task_), .port = (port_)}
#define CAIRN_TO_GROUP(g) {.kind = CAIRN_DST_GROUP, .target = (g), .port = 0}
#define CAIRN_TO_GLOBAL(id, port_) {.kind = CAIRN_DST_GLOBAL, .target = (id), .port = (port_)}
#define CAIRN_TO_NONE {.kind = CAIRN_DST_NONE, .target = 0, .port = 0}

/* One task of an application (CoMOS task_desc). */
typedef struct cairn_task_desc {
    uint8_t prog;                     /* index into the application's program table */
    cairn_prio_t prio;
    uint8_t flags;                    /* CAIRN_TASK_MOVABLE, ... */
    uint8_t num_out;                  /* output ports */
    uint8_t module;                   /* where it lives: a bus address (0 = the only module) */
    const cairn_app_route_t *out;     /* num_out routes */
    const void *init;                 /* init string (INIT payload), or NULL */
    uint16_t init_len;
} cairn_task_desc_t;

#define CAIRN_OUT(arr) .out = (arr), .num_out = (uint8_t)CAIRN_COUNT(arr)
#define CAIRN_INIT_DATA(obj) .init = &(obj), .init_len = (uint16_t)sizeof(obj)
#define CAIRN_INIT_STRING(lit) .init = (lit), .init_len = (uint16_t)sizeof(lit)

/* A member of a multicast group of the application (CoMOS mcast table). */
typedef struct cairn_member_desc {
    uint8_t group;      /* relative group ID, < num_groups */
    uint8_t task;       /* relative task ID */
    cairn_port_t port;  /* its input port */
} cairn_member_desc_t;

/* A whole application (CoMOS app_desc). */
typedef struct cairn_app_desc {
    const cairn_program_t *programs;
    uint8_t num_programs;
    uint8_t num_tasks;
    uint8_t num_groups;
    uint8_t num_members;
    const cairn_task_desc_t *tasks;
    const cairn_member_desc_t *members;
} cairn_app_desc_t;

#define CAIRN_PROGRAMS(arr) .programs = (arr), .num_programs = (uint8_t)CAIRN_COUNT(arr)
#define CAIRN_TASKS(arr) .tasks = (arr), .num_tasks = (uint8_t)CAIRN_COUNT(arr)
#define CAIRN_MEMBERS(arr) .members = (arr), .num_members = (uint8_t)CAIRN_COUNT(arr)

/* The application manager at boot (loading a description at run time on one module and
 * broadcasting it to the others is cairn/appmgr.h's): validates app, patches its IDs,
 * creates all tasks, joins the groups, then sends INIT to each task in description order.
 * With a bus manager (cairn/net.h), a task whose .module is another module's address gets a remote
 * TCB instead, and only local members join the groups (CoMOS V-A.3): every module starts
 * the same description and patches it to the same IDs (docs/distributed.md). It runs
 * above every task priority, so no task runs until it is done; the INIT
 * messages then run by priority, then description order, when the caller's
 * context allows (at once from main or the idle loop). ids (optional,
 * app->num_tasks entries) receives the global task IDs. On any error nothing is
 * left behind: CAIRN_EINVAL (bad description), CAIRN_EFULL (no free task or
 * group IDs, member table or message pool full), CAIRN_ENOMEM (heap full),
 * CAIRN_EBUSY (called from an interrupt handler). */
cairn_ret_t cairn_app_start(const cairn_app_desc_t *app, cairn_task_id_t *ids);

#endif /* CAIRN_APP_H */
