/*
 * Cairn OS reliable remote messages (docs/migration.md, "Messages during a migration"):
 * once started, every message a module sends to a task on another module is a DATA frame
 * numbered per (sending module, destination task), kept by the sender's bus manager until
 * the task's module acknowledges it (DACK, cumulative) and sent again on a virtual timer
 * of the bus manager until it is; one message in flight per destination task (a window of
 * one). The receiver accepts only the next number of its per-task table: a duplicate is
 * dropped and acknowledged again, a frame beyond a gap is dropped. A module without the
 * task answers NOTASK. Multicast stays an unreliable broadcast.
 *
 * Restarts: every module numbers its boots (cairn_bus_boot_epoch). A DATA frame ends with
 * two bytes, the receiver's epoch as the sender knows it (0: not yet) and the sender's; a
 * DACK or NOTASK carries the answering module's epoch as its one payload byte. A receiver
 * accepts only DATA addressed to its own epoch (a frame for its earlier life is refused and
 * answered, so the sender learns the epoch), and starts a table entry again when a sender's
 * epoch is newer; an entry that has taken nothing yet takes any number. A message whose
 * DACK the receiver's earlier life could not send is taken again by the new life: at most
 * once per life of the receiving task (what the earlier life did died with it).
 *
 * Without cairn_net_reliable_start the bus manager sends plain messages (docs/distributed.md).
 */
#ifndef CAIRN_RELIABLE_H
#define CAIRN_RELIABLE_H

#include "cairn/types.h"

/* Frame kinds of the reliable layer (the kind byte of the bus frame's header). */
#define CAIRN_NET_KIND_DATA 0x14u   /* a numbered message: header byte 4 = its number (1..255) */
#define CAIRN_NET_KIND_DACK 0x15u   /* every number up to byte 4 accepted for task byte 2 (0: none) */
#define CAIRN_NET_KIND_NOTASK 0x16u /* task byte 2 is not on this module (byte 4: the number) */
/* The bytes a DATA frame carries after the message's payload (the two epochs). */
#define CAIRN_REL_TRAILER 2u

/* Modules whose numbers a module keeps (the per-task tables' width). */
#ifndef CAIRN_NET_MODULES
#define CAIRN_NET_MODULES 8u
#endif

/* The bus manager's timer that sends unacknowledged messages again. */
#define CAIRN_RELIABLE_TIMER 1u

/* Starts the reliable layer on this module: retransmit_ticks is the retransmission period
 * in hardware ticks (longer than a round trip on the bus: two TDMA rounds and the
 * receiver's handling). CAIRN_ENOROUTE without a bus manager; CAIRN_EINVAL for 0;
 * CAIRN_ENOMEM: no heap for its state (a few hundred bytes, kernel-owned). */
cairn_ret_t cairn_net_reliable_start(uint32_t retransmit_ticks);
bool cairn_net_reliable_on(void);

typedef struct cairn_reliable_stats {
    uint32_t numbered;   /* messages numbered (first sends) */
    uint32_t resent;     /* DATA frames sent again */
    uint32_t acked;      /* messages acknowledged and freed */
    uint32_t accepted;   /* DATA accepted (the next number) */
    uint32_t duplicates; /* DATA dropped: an old number */
    uint32_t gaps;       /* DATA dropped: beyond a gap */
    uint32_t refused;    /* DATA not accepted by the scheduler (pool full): sent again later */
    uint32_t notask_tx;  /* NOTASK answered */
    uint32_t notask_rx;  /* messages dropped on a NOTASK from the task's module */
    uint32_t no_memory;  /* sends refused: no heap to keep the message */
    uint32_t stale;      /* DATA refused: addressed to an earlier life of this module or from one of the sender's */
    uint16_t pending;    /* messages kept now */
    uint16_t pending_peak;
} cairn_reliable_stats_t;

void cairn_net_reliable_stats(cairn_reliable_stats_t *st);

#endif /* CAIRN_RELIABLE_H */
