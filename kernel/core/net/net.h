/*
 * Cairn OS across modules: the bus manager's private state, shared by the files of
 * kernel/core/net/ (and the host port's simulated bus, which swaps it with the
 * kernel's state between simulated modules). docs/distributed.md.
 */
#ifndef CAIRN_CORE_NET_H
#define CAIRN_CORE_NET_H

#include "../kernel.h"

#include "cairn/bus.h"
#include "cairn/net.h"
#include "cairn/timesync.h"
#include "reliable.h"
#include "migrator_state.h"

/* A remote TCB (CoMOS V-B.2): what the message scheduler needs to forward a message. */
typedef struct cairn_rtcb {
    cairn_task_id_t id; /* 0 = a free entry */
    cairn_prio_t prio;
    uint8_t module;
} cairn_rtcb_t;

_Static_assert(sizeof(cairn_rtcb_t) <= 6, "a remote TCB is at most 6 bytes (CoMOS)");

/* Time synchronisation (timesync.c): the local clock's anchor, the master's SYNC in
 * flight, the receiver's pending SYNC and its reference point and rate. */
struct cairn_timesync_base {
    cairn_time_t local, master;
};

typedef struct cairn_timesync_state {
    cairn_timesync_config_t cfg;
    bool on;
    bool anchored;
    uint32_t anchor_rtc, anchor_hw; /* an RTC edge and the hardware counter there */
    /* Receiver: the older sample the rate is measured from, a kernel-owned heap block (in
     * the padding before units_per_hw: the bus manager's state keeps its size and layout,
     * and the other services' cycle counts with it). */
    struct cairn_timesync_base *base;
    uint64_t units_per_hw;          /* clock units per counter tick, Q32 */
    cairn_time_t transfer;          /* a TIMESYNC frame's time on the wire, in units */
    uint32_t max_wait_hw;           /* cfg.max_wait_ns in counter ticks */
    cairn_time_t rx_latency;        /* cfg.rx_latency_ns in units */
    uint32_t service_hw;            /* counter at the bus manager's entry */
    bool service_fresh;             /* no frame of this service has been taken yet */
    uint8_t seq;                    /* the master's sync number */
    bool in_flight;                 /* master: a SYNC waits for its TX done */
    cairn_time_t commit;            /* master: its commit stamp */
    bool have_sync;                 /* receiver: a SYNC waits for its FOLLOW_UP */
    uint8_t sync_seq;
    cairn_time_t sync_commit, sync_local;
    uint8_t samples;                /* 0, 1 (offset), 2 (offset and rate) */
    uint8_t refused;                /* samples refused in a row */
    cairn_time_t ref_local, ref_master;
    int64_t rate;                   /* master's clock against the local one, minus 1, Q32 */
    cairn_timesync_stats_t stats;
} cairn_timesync_state_t;

typedef struct cairn_net {
    /* The fast paths' state first, where their assembly (kernel/arch/armv6m/net/) reaches it
     * with short offsets. The RX interrupt's fast path (rx_fast.c): the frame and message of
     * the last frame it took, and the header of the head frame when it read it and left
     * the frame to the bus manager (rx_peeked: take_frame uses it instead of reading the
     * controller). Receive blocks allocated beforehand (bus_manager.c, "receive blocks"). */
    uint8_t rx_cached;
    bool rx_peeked;
    uint16_t seq; /* the next frame's sequence number */
    uint8_t address;
    uint32_t rx_peek[3];
    /* Messages waiting for the bus, by destination priority (high first), then order;
     * from the kernel's message pool, msg.reserved = the destination module. */
    cairn_msg_t *txq;
    void *rx_cache[CAIRN_NET_RX_CACHE];
    cairn_frame_t rx_frame;
    uint32_t off[8]; /* bit m: module m was powered off by this module */
    cairn_rtcb_t remote[CAIRN_MAX_TASKS]; /* task id's at [id - 1] (id 0: a free entry) */
    uint8_t remote_count;                  /* at most CAIRN_NET_REMOTE_TASKS */
    cairn_net_stats_t stats;
    cairn_timesync_state_t ts;
    /* Heap blocks (kernel-owned) of the reliable layer and the task migrator, NULL until
     * they are started: a module without them pays a pointer each. */
    cairn_rel_state_t *rel;
    cairn_mig_state_t *mig;
} cairn_net_t;

extern cairn_net_t cairn_net;

/* Remote TCBs (remote.c). */
const cairn_rtcb_t *cairn__remote_find(cairn_task_id_t id);
bool cairn__remote_is(cairn_task_id_t id);
cairn_ret_t cairn__remote_create(cairn_task_id_t id, cairn_prio_t prio, uint8_t module);
cairn_ret_t cairn__remote_remove(cairn_task_id_t id);

/* The bus manager (bus_manager.c): m (prio set) to module (or CAIRN_NET_BROADCAST), now
 * when the bus is idle, else buffered. CAIRN_OK with sent = true when it went at once. */
cairn_ret_t cairn__net_submit(cairn_msg_t *m, uint8_t module, bool *sent);
/* A counted error and its trace word. */
void cairn__net_error(unsigned kind, uint8_t module, cairn_task_id_t task);
/* The same for a token (CAIRN_MSG_NET_TOKEN): its frame is built when it goes. */
cairn_ret_t cairn__net_submit_token(const cairn_msg_t *t, uint8_t module);
/* Whether a buffered message other than self holds heap payload p. */
bool cairn__net_holds(const void *p, const cairn_msg_t *self);
/* Serves the controller: TX done, errors, buffered messages, received frames. */
void cairn__net_service(void);

/* The fast paths (rx_fast.c, send_fast.c; in assembly on armv6m, kernel/arch/armv6m/net/,
 * which defers to the first with the time synchronisation on): the RX interrupt's, called
 * with interrupts masked when the interrupt returns to the thread: the frame made the top of
 * the execution stack, whose handler the interrupt returns into, or NULL (the bus manager's
 * then; cairn/bus.h), given the hardware counter read at the vector's head (a TIMESYNC
 * frame's RX stamp: a fixed number of cycles from the interrupt's entry, whatever the checks
 * and the header read after it cost); and a send from a task's handler on its output port out_port, whose
 * route has no local TCB (cairn_send's result). */
cairn_frame_t *cairn__net_rx_fast(uint32_t entry_hw);
/* The TX-done interrupt's (tx_done_fast.c): true when it cleared the latch and the bus manager
 * has nothing to do for it (nothing buffered, no time synchronisation); false, nothing done,
 * when the interrupt goes on as its binding's. */
bool cairn__net_tx_done_fast(void);
cairn_ret_t cairn__net_send_fast(cairn_port_t out_port, const void *payload, size_t len);

/* The bus manager's operations without the reliable layer (bus_manager.c). */
extern const struct cairn_net_ops cairn__net_plain_ops;

/* Multicast over the bus (multicast.c): broadcasts a group message. */
cairn_ret_t cairn__net_mcast(cairn_frame_t *f);

/* Time synchronisation (timesync.c), called by the bus manager: at its entry (the RX or
 * TX done stamp: the counter now, or the one the RX vector read at its head); the master's
 * period; a received TIMESYNC frame's payload (after the
 * header checks); the period message. */
void cairn__timesync_entry(void);
void cairn__timesync_entry_at(uint32_t hw);
void cairn__timesync_tx_done(void);
void cairn__timesync_period_timer(void);
void cairn__timesync_rx(uint8_t src, const uint8_t *payload, unsigned len);
cairn_ret_t cairn__timesync_period_msg(const cairn_msg_t *msg);

/* Reliable remote messages (reliable.c), called by the bus manager: a message to remote
 * task m->dst on module (when the layer is on); the frame a TX token stands for, going to
 * module (false: nothing to send any more); a received DATA frame (f->msg filled, without
 * the trailer whose epochs follow; 0, or CAIRN_EFULL when the scheduler refused it); a DACK
 * or NOTASK with the answering module's epoch; the retransmission timer. */
cairn_ret_t cairn__rel_forward(cairn_msg_t *m, uint8_t module);
bool cairn__rel_frame(const cairn_msg_t *token, uint8_t module, uint32_t *h, const void **payload,
                      unsigned *len);
cairn_ret_t cairn__rel_receive(cairn_frame_t *f, uint8_t src, uint8_t seq, uint8_t to_epoch,
                               uint8_t from_epoch);
void cairn__rel_control(uint8_t kind, uint8_t src, cairn_task_id_t task, uint8_t seq, uint8_t epoch);
void cairn__rel_timer(void);
/* The kernel is about to sleep: the acknowledged messages' blocks are freed. */
void cairn__rel_idle(void);
/* The bus manager forwards through the reliable layer from now on. */
void cairn__net_reliable_ops(void);

#endif /* CAIRN_CORE_NET_H */
