/*
 * Cairn OS tasks: creation, initialisation, killing, and output-port routing.
 *
 * A task is a handler, a priority, a unique ID, a state pointer and an output-port
 * routing table. The table maps each output port to (destination task, input port)
 * or to a local multicast group; it lives in RAM and can be changed at run time.
 * See docs/kernel.md.
 */
#ifndef CAIRN_TASK_H
#define CAIRN_TASK_H

#include "cairn/msg.h"
#include "cairn/types.h"

/* The destination "task" of a route that goes to a local multicast group; the
 * route's port is then the group ID (CoMOS MULTICAST_PID). One past the last
 * task ID, so a route's task byte is always a valid index of the kernel's task
 * table. */
#define CAIRN_TASK_MCAST ((cairn_task_id_t)(CAIRN_MAX_TASKS + 1))

/* One routing-table entry: where an output port goes. */
typedef struct cairn_route {
    cairn_task_id_t task; /* destination task, CAIRN_TASK_MCAST, or CAIRN_TASK_NONE (unconnected) */
    cairn_port_t port;    /* its input port, or the multicast group ID */
} cairn_route_t;

#define CAIRN_ROUTE(task_, port_) ((cairn_route_t){.task = (task_), .port = (port_)})
#define CAIRN_ROUTE_GROUP(g) CAIRN_ROUTE(CAIRN_TASK_MCAST, (g))
#define CAIRN_ROUTE_NONE CAIRN_ROUTE(CAIRN_TASK_NONE, 0)

/* Task flags (cairn_task_create). */
#define CAIRN_TASK_MOVABLE 0x01u /* may migrate to another module (later issue) */

/* The task whose handler is running; 0 when none is (idle, the kernel itself, or
 * an interrupt handler). The heap tags new blocks with it. */
cairn_task_id_t cairn_current_task(void);

/* Creates task id (1..CAIRN_MAX_TASKS) with num_out output ports whose routes are
 * copied from routes[] (NULL: all unconnected). The task exists but is not
 * initialised: messages to it are buffered until it has handled INIT
 * (cairn_task_init). The TCB and routing table are one heap block owned by the
 * kernel. CAIRN_EINVAL: bad id, NULL handler, prio > CAIRN_PRIO_MAX;
 * CAIRN_EBUSY: id taken; CAIRN_ENOMEM: heap full. */
cairn_ret_t cairn_task_create(cairn_task_id_t id, cairn_handler_t handler, void *state,
                              cairn_prio_t prio, const cairn_route_t *routes, uint8_t num_out,
                              uint8_t flags);

/* A free task ID (the lowest), or 0 when all are taken. */
cairn_task_id_t cairn_task_free_id(void);

/* Sends INIT (payload: the init string, passed like any payload) to task id; it
 * is a send like any other, so it runs at once or is queued by the preemption
 * rules. CAIRN_EINVAL: no such task or it was already sent INIT. */
cairn_ret_t cairn_task_init(cairn_task_id_t id, const void *init, size_t len);

/* Kills task id: runs its FINAL handler (when it was initialised), drops its
 * queued messages, stops its timers, frees all its heap memory, disconnects
 * every route and multicast membership that points to it, and frees its ID.
 * A task that is on the stack (killing itself, or preempted) is removed when
 * its handler returns. CAIRN_EINVAL: no such task; CAIRN_EBUSY: called from an
 * interrupt handler or a thread (cairn/thread.h). */
cairn_ret_t cairn_task_kill(cairn_task_id_t id);

/* True when task id exists. */
bool cairn_task_exists(cairn_task_id_t id);

/* Priority of task id (0 when it does not exist). */
cairn_prio_t cairn_task_prio(cairn_task_id_t id);

/* Connects output port out_port of task to (dst, in_port); dst may be
 * CAIRN_TASK_MCAST (in_port = group ID) or CAIRN_TASK_NONE (disconnect). Takes
 * effect for the next send. CAIRN_EINVAL: no such task or port. */
cairn_ret_t cairn_route_set(cairn_task_id_t task, cairn_port_t out_port, cairn_task_id_t dst,
                            cairn_port_t in_port);

/* Reads a route. CAIRN_EINVAL: no such task or port. */
cairn_ret_t cairn_route_get(cairn_task_id_t task, cairn_port_t out_port, cairn_route_t *route);

/* ---- local multicast groups ------------------------------------------------- */

/* Group IDs are 1..CAIRN_MAX_GROUPS; members of all groups share one table of
 * CAIRN_MCAST_ENTRIES (task, input port) entries. */
#ifndef CAIRN_MAX_GROUPS
#define CAIRN_MAX_GROUPS 8
#endif
#ifndef CAIRN_MCAST_ENTRIES
#define CAIRN_MCAST_ENTRIES 16
#endif

/* Reserves an unused group ID (for the application manager); 0 when none is left. */
uint8_t cairn_group_alloc(void);
/* Releases a group ID and removes all its members. */
void cairn_group_free(uint8_t group);

/* Adds (task, in_port) to group. CAIRN_EINVAL: bad group or task;
 * CAIRN_EFULL: member table full; joining twice is CAIRN_OK (one entry). */
cairn_ret_t cairn_group_join(uint8_t group, cairn_task_id_t task, cairn_port_t in_port);
/* Removes (task, in_port) from group. CAIRN_EINVAL when it was not a member. */
cairn_ret_t cairn_group_leave(uint8_t group, cairn_task_id_t task, cairn_port_t in_port);
/* Members of group. */
unsigned cairn_group_size(uint8_t group);

#endif /* CAIRN_TASK_H */
