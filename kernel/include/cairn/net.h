/*
 * Cairn OS across modules (CoMOS V-B.2 and the multicast manager): remote TCBs, the
 * bus manager and multicast over the bus. docs/distributed.md describes the protocols,
 * the frame format and the trace words.
 *
 * A task's code does not change when its peers move to other modules: a route names a
 * task ID, and the message scheduler finds the task local (its TCB) or remote (its
 * remote TCB: ID, priority, module address) and forwards remote messages to the bus
 * manager. The application manager creates remote TCBs for the tasks an application
 * description places on other modules (cairn_task_desc_t.module).
 *
 * Start-up, after cairn_sched_init() (which forgets the network):
 *
 *     cairn_net_init();            // CAIRN_ENOROUTE on a module without a bus: all local
 *     cairn_app_start(&app, NULL); // the same description on every module
 *     cairn_net_start();           // frames are received from now on
 *
 * Frames that arrive before cairn_net_start wait in the controller's RX FIFO (the bus's
 * flow control holds their senders), so no message is lost to a task not yet created.
 */
#ifndef CAIRN_NET_H
#define CAIRN_NET_H

#include "cairn/types.h"

/* The bus manager runs as a kernel task with the highest task ID and priority: the
 * bus controller's interrupts are bound to it (cairn/irq.h), and it turns received
 * frames into ordinary messages. Its ID is not free for applications. */
#define CAIRN_TASK_NET ((cairn_task_id_t)CAIRN_MAX_TASKS)
#define CAIRN_NET_PRIO CAIRN_PRIO_MAX
/* The bus manager's input port: "the controller needs service" (RX, TX done, error). */
#define CAIRN_NET_PORT_SERVICE CAIRN_PORT(0)

/* Remote TCBs a module holds at most. */
#ifndef CAIRN_NET_REMOTE_TASKS
#define CAIRN_NET_REMOTE_TASKS CAIRN_MAX_TASKS
#endif

/* Messages of the kernel's pool (CAIRN_MSG_POOL) the bus manager leaves free for the
 * controller's three interrupts: it buffers for the bus, and accepts received frames, only
 * while more are free (docs/distributed.md, "Buffers"). */
#ifndef CAIRN_NET_POOL_RESERVE
#define CAIRN_NET_POOL_RESERVE 3
#endif

/* Received payloads of up to CAIRN_NET_RX_BLOCK bytes go to heap blocks the bus manager
 * allocated beforehand, CAIRN_NET_RX_CACHE of them, refilled when the kernel is about to
 * sleep: receiving a small message costs no allocation (docs/distributed.md, "Receiving"). */
#ifndef CAIRN_NET_RX_BLOCK
#define CAIRN_NET_RX_BLOCK 16u
#endif
#ifndef CAIRN_NET_RX_CACHE
#define CAIRN_NET_RX_CACHE 4u
#endif

/* The frame format (docs/distributed.md, "Frames"): a 10-byte header, then the payload. */
#define CAIRN_NET_HEADER 10u
#define CAIRN_NET_VERSION 0x10u                 /* high nibble of the kind byte */
#define CAIRN_NET_KIND_MSG (CAIRN_NET_VERSION | 1u)   /* to one task */
#define CAIRN_NET_KIND_MCAST (CAIRN_NET_VERSION | 2u) /* to a multicast group, broadcast */
/* The largest frame the bus carries (the bus's max_frame) and so the largest payload. */
#ifndef CAIRN_NET_MAX_FRAME
#define CAIRN_NET_MAX_FRAME 256u
#endif
#define CAIRN_NET_MAX_PAYLOAD (CAIRN_NET_MAX_FRAME - CAIRN_NET_HEADER)
#define CAIRN_NET_BROADCAST 0xFFu

/* Error kinds of the CAIRN_EV_NET_ERR trace word (each also has its counter). */
#define CAIRN_NET_ERR_DOWN 1       /* destination module powered off: CAIRN_EDOWN to the sender */
#define CAIRN_NET_ERR_TX_FULL 2    /* bus busy and no message left to buffer: CAIRN_EFULL */
#define CAIRN_NET_ERR_TOO_LONG 3   /* payload beyond CAIRN_NET_MAX_PAYLOAD: CAIRN_EINVAL */
#define CAIRN_NET_ERR_RX_OVERFLOW 4 /* received, but no heap for the payload or pool full: dropped */
#define CAIRN_NET_ERR_RX_CORRUPT 5 /* the controller's frame check failed: dropped */
#define CAIRN_NET_ERR_RX_BAD 6     /* header inconsistent (kind, source, length, port): dropped */
#define CAIRN_NET_ERR_RX_NO_TASK 7 /* no such local task here: dropped */
#define CAIRN_NET_ERR_CONTROLLER 8 /* the controller refused a frame (ERR register) */

/* Brings the bus manager up: the controller in a known state, its interrupts bound to
 * the bus manager task (created here, ID CAIRN_TASK_NET, not yet initialised), every
 * module taken as powered on; remote tasks may be created from now on.
 * CAIRN_ENOROUTE: this module is not on a bus (a lone run, QEMU); CAIRN_EBUSY: the ID is
 * taken; CAIRN_ENOMEM. */
cairn_ret_t cairn_net_init(void);

/* Starts receiving: the bus manager task handles INIT, then every frame waiting.
 * CAIRN_ENOROUTE without cairn_net_init. */
cairn_ret_t cairn_net_start(void);

/* This module's address on the bus (0 without a bus manager). */
uint8_t cairn_net_address(void);

/* Tells the message scheduler that task id lives on module `module` with priority prio
 * (CoMOS sched_task_create_remote). CAIRN_EINVAL: bad id, module is this one or no bus
 * manager; CAIRN_EBUSY: a local or remote task has the ID; CAIRN_EFULL: table full. */
cairn_ret_t cairn_task_create_remote(cairn_task_id_t id, cairn_prio_t prio, uint8_t module);
/* Forgets remote task id and disconnects the routes to it. CAIRN_EINVAL: not remote. */
cairn_ret_t cairn_task_remove_remote(cairn_task_id_t id);
/* The module of remote task id, or -1 when it is not a remote task. */
int cairn_task_module(cairn_task_id_t id);

/* Powers module `module` on or off through the bus (a power frame). Sends to a task on
 * a module powered off by this module fail with CAIRN_EDOWN until it is powered on.
 * This module's own address with on == false stops it at once. */
cairn_ret_t cairn_net_power(uint8_t module, bool on);

/* Counters since cairn_net_init. */
typedef struct cairn_net_stats {
    uint32_t tx_frames;    /* frames given to the controller */
    uint32_t tx_immediate; /* sends transmitted at once (bus idle) */
    uint32_t tx_fast;      /* of which the send's fast path wrote */
    uint32_t tx_buffered;  /* sends buffered (bus busy) */
    uint32_t tx_full;      /* CAIRN_NET_ERR_TX_FULL */
    uint32_t tx_down;      /* CAIRN_NET_ERR_DOWN */
    uint32_t tx_too_long;  /* CAIRN_NET_ERR_TOO_LONG */
    uint32_t rx_frames;    /* frames handed to the scheduler */
    uint32_t rx_fast;      /* of which the RX interrupt ran straight into the handler */
    uint32_t rx_overflow;  /* CAIRN_NET_ERR_RX_OVERFLOW */
    uint32_t rx_corrupt;   /* CAIRN_NET_ERR_RX_CORRUPT */
    uint32_t rx_bad;       /* CAIRN_NET_ERR_RX_BAD */
    uint32_t rx_no_task;   /* CAIRN_NET_ERR_RX_NO_TASK */
    uint32_t controller;   /* CAIRN_NET_ERR_CONTROLLER */
    uint16_t buffered;     /* messages buffered now */
    uint16_t buffered_peak;
} cairn_net_stats_t;

void cairn_net_stats(cairn_net_stats_t *st);

#endif /* CAIRN_NET_H */
