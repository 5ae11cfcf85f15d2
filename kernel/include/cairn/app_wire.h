/*
 * Cairn OS application descriptions on the wire (CoMOS V-A.3): the bytes an application
 * manager receives (relative IDs) and broadcasts to every other module (patched IDs).
 *
 * Layout, all fields one byte (docs/distributed.md, "Applications"):
 *
 *   header      state (CAIRN_APP_WIRE_RELATIVE / _PATCHED), tasks n (1..CAIRN_MAX_TASKS),
 *               groups g (0..CAIRN_MAX_GROUPS), members m
 *   IDs         n global task IDs, then g global group IDs (zeros while relative)
 *   n tasks     image (index into the module's table of task images), priority, flags,
 *               module (initial location), outputs k, init length l,
 *               then k routes (kind, target, port) and l bytes of init data
 *   m members   group (relative), task (relative), input port
 *
 * Inside the tasks and members every ID stays relative (task i, group j); patching
 * writes only the ID tables, so a patched description still says "task i", and a module
 * reads task i's global ID from the table. The task code itself is never sent: every
 * module's flash holds the same table of task images (cairn_program_t), as CoMOS keeps
 * task images apart from the description.
 */
#ifndef CAIRN_APP_WIRE_H
#define CAIRN_APP_WIRE_H

#include "cairn/app.h"

#define CAIRN_APP_WIRE_RELATIVE 0xA0u /* IDs not yet patched */
#define CAIRN_APP_WIRE_PATCHED 0xA1u  /* ID tables hold global IDs */
#define CAIRN_APP_WIRE_HEADER 4u
#define CAIRN_APP_WIRE_TASK 6u  /* bytes of a task before its routes and init data */
#define CAIRN_APP_WIRE_ROUTE 3u
#define CAIRN_APP_WIRE_MEMBER 3u

/* The wire's routes and members are read in place. */
_Static_assert(sizeof(cairn_app_route_t) == CAIRN_APP_WIRE_ROUTE, "a route is 3 bytes");
_Static_assert(sizeof(cairn_member_desc_t) == CAIRN_APP_WIRE_MEMBER, "a member is 3 bytes");

/* A checked description: where each part starts in the bytes it was parsed from. */
typedef struct cairn_app_wire {
    const uint8_t *bytes;
    uint16_t len;
    uint8_t num_tasks, num_groups, num_members;
    bool patched;
    uint16_t task_at[CAIRN_MAX_TASKS]; /* offset of task i's record */
    uint16_t members_at;
} cairn_app_wire_t;

/* Writes app as a relative description into buf (cap bytes): its program table is taken
 * to be the modules' table of task images (.prog is the image index). The length, or
 * CAIRN_EINVAL (app not valid on the wire: more tasks or groups than the kernel has,
 * init data beyond 255 bytes) or CAIRN_EFULL (cap too small). */
int cairn_app_wire_write(const cairn_app_desc_t *app, uint8_t *buf, size_t cap);

/* Checks len bytes as a description whose images are below num_images and fills *w.
 * CAIRN_EINVAL for anything malformed (truncated, trailing bytes, a count, priority,
 * port, route kind or target out of range, duplicate or out-of-range patched IDs); *w is
 * then unusable. */
cairn_ret_t cairn_app_wire_parse(const uint8_t *bytes, size_t len, uint8_t num_images,
                                 cairn_app_wire_t *w);

/* Task i of w as a description (routes and init data point into the bytes). */
void cairn_app_wire_task(const cairn_app_wire_t *w, unsigned i, cairn_task_desc_t *d);
/* Member j of w. */
const cairn_member_desc_t *cairn_app_wire_member(const cairn_app_wire_t *w, unsigned j);
/* Global IDs of a patched w: task i's, group j's. */
cairn_task_id_t cairn_app_wire_task_id(const cairn_app_wire_t *w, unsigned i);
uint8_t cairn_app_wire_group_id(const cairn_app_wire_t *w, unsigned j);

/* Patches the parsed relative description in bytes (the buffer w was parsed from) in place:
 * task IDs ids[0..n), group IDs gids[0..g), and the state byte; w follows. */
void cairn_app_wire_patch(uint8_t *bytes, cairn_app_wire_t *w, const cairn_task_id_t *ids,
                          const uint8_t *gids);

#endif /* CAIRN_APP_WIRE_H */
