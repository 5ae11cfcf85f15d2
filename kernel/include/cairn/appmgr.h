/*
 * Cairn OS application manager task (CoMOS V-A.3): applications loaded at run time.
 *
 * Every module runs an application manager with the same well-known task ID (CoMOS's
 * "special control task that represents the module"), so one manager can address the
 * manager of any other module. A description (cairn/app_wire.h, relative IDs) sent to a
 * module's manager on CAIRN_APPMGR_PORT_LOAD is created on every module of the bus:
 *
 *   1. patched: its task IDs become the lowest IDs free here, its groups free group IDs;
 *   2. instantiated here: local tasks created (not initialised), remote TCBs for the
 *      tasks of other modules, local members joined;
 *   3. broadcast: the patched description goes to every other module's manager, which
 *      instantiates it the same way and acknowledges (sent again until it does);
 *   4. initialised: when every module has acknowledged, INIT goes to every module's
 *      manager (acknowledged the same way), and each sends INIT, with its init string,
 *      to its local tasks. A message to a task not yet initialised is buffered, and no
 *      task is initialised before every task exists, so no message is lost.
 *
 * A module that refuses (IDs taken, no memory, an image it does not have) or does not
 * answer after the last try is reported: if it fails step 3, nothing is initialised
 * anywhere, the tasks are removed here and every other module is told to drop the
 * description (once, unacknowledged: a module that missed it drops it at the next load).
 * The report (cairn_appmgr_report_t) goes to the input port the loader named, of the task
 * that sent the description. docs/distributed.md, "Applications".
 */
#ifndef CAIRN_APPMGR_H
#define CAIRN_APPMGR_H

#include "cairn/app.h"
#include "cairn/net.h"
#include "cairn/types.h"

/* Below the bus manager (CAIRN_MAX_TASKS), the highest ID free for applications. */
#define CAIRN_TASK_APPMGR ((cairn_task_id_t)(CAIRN_MAX_TASKS - 1))
/* Above every application task (the bus manager, a kernel service, stays above it). */
#define CAIRN_APPMGR_PRIO ((cairn_prio_t)(CAIRN_PRIO_MAX - 1))

/* Input ports. LOAD: one byte, the loader's input port for the report, then a relative
 * description of at most CAIRN_APPMGR_MAX_DESC bytes (it goes to each module in one frame).
 * PEER and ACK: between managers (below). */
#define CAIRN_APPMGR_PORT_LOAD CAIRN_PORT(0)
#define CAIRN_APPMGR_PORT_PEER CAIRN_PORT(1)
#define CAIRN_APPMGR_PORT_ACK CAIRN_PORT(2)
/* The manager's timer that sends unacknowledged steps again. */
#define CAIRN_APPMGR_TIMER 0u

/* A PEER message: kind, load number, the loading module and its boot epoch
 * (cairn_bus_boot_epoch: a load of a later life is not taken for a resend), then (DESC) the
 * patched description. An ACK: kind, load number, the answering module, its status, the
 * loading module's epoch. */
#define CAIRN_APPMGR_DESC 1u /* instantiate this description */
#define CAIRN_APPMGR_INIT 2u /* initialise the local tasks of that load */
#define CAIRN_APPMGR_DROP 3u /* forget that load (not acknowledged) */
#define CAIRN_APPMGR_PEER_HEAD 4u
#define CAIRN_APPMGR_ACK_LEN 5u
#define CAIRN_APPMGR_MAX_DESC (CAIRN_NET_MAX_PAYLOAD - CAIRN_APPMGR_PEER_HEAD)

/* Modules a load reaches at most (a bit each). */
#define CAIRN_APPMGR_MODULES 32u

typedef struct cairn_appmgr_report {
    int8_t status;       /* CAIRN_OK: initialised on every module; else the first error */
    uint8_t step;        /* the step that failed (1..4 as above), 0 none */
    uint8_t num_tasks;
    uint8_t reserved;
    uint32_t acked;      /* bit m: module m took the last step (this one included) */
    uint32_t failed;     /* bit m: module m refused or did not answer */
    cairn_task_id_t ids[CAIRN_MAX_TASKS]; /* the tasks' global IDs (num_tasks of them) */
} cairn_appmgr_report_t;

/* Creates and initialises this module's application manager. images[0..num_images) is
 * the table of task images a description's image indexes (the same on every module);
 * retry_ticks (hardware timer ticks) the period of sending again to modules that have not
 * acknowledged, tries how many sends in all before a module counts as not answering.
 * Call it after cairn_net_init (with a bus) and before cairn_net_start. CAIRN_EINVAL:
 * bad arguments; CAIRN_EBUSY: the ID is taken; CAIRN_ENOMEM. */
cairn_ret_t cairn_appmgr_start(const cairn_program_t *images, uint8_t num_images,
                               uint32_t retry_ticks, uint8_t tries);

#endif /* CAIRN_APPMGR_H */
