/*
 * Cairn OS time synchronisation across modules (CoMOS V-C, the TIMESYNC virtual task) and
 * the global clock. docs/distributed.md, "Time synchronisation", gives the protocol step by
 * step, the frame and the error budget.
 *
 * One module, the master, broadcasts a SYNC frame every period; the bus driver stamps it
 * with the master's local clock at the moment it commits the frame to the controller. The
 * controller's TX done (latched at the frame's arrival) tells the master how long the frame
 * waited for its TDMA slot, and a FOLLOW_UP frame carries that wait. Every other module
 * stamps the SYNC frame at its RX interrupt, so it learns the master's clock at that
 * instant: commit stamp + slot wait + transfer time (from the bus parameters). Two such
 * samples give the offset and the rate (drift) of the master's clock against its own.
 *
 * Local clocks: the module's 32.768 kHz RTC, interpolated between its ticks by the
 * hardware counter (cairn/arch_timer.h), since one RTC tick (30.5 us) is coarser than the
 * target. Times are in units of 2^-31 s: an RTC tick is 65536 units.
 *
 * Start-up, after cairn_net_init():
 *
 *     cairn_timesync_init(&cfg);   // before cairn_net_start
 *
 * The period can be changed at run time by a message to the TIMESYNC task:
 *
 *     uint32_t ms = 500;
 *     cairn_post(CAIRN_TASK_TIMESYNC, CAIRN_TIMESYNC_PORT_PERIOD, &ms, sizeof ms);
 *
 * (0 stops the master's SYNC frames; a message on a module other than the master only
 * records the period.)
 */
#ifndef CAIRN_TIMESYNC_H
#define CAIRN_TIMESYNC_H

#include "cairn/msg.h"
#include "cairn/net.h"
#include "cairn/types.h"

/* The TIMESYNC task (CoMOS TIMESYNCPID) has no TCB of its own: the bus manager serves its
 * port, so a period message is handled at the bus manager's priority. */
#define CAIRN_TASK_TIMESYNC CAIRN_TASK_NET
#define CAIRN_TIMESYNC_PORT_PERIOD CAIRN_PORT(1) /* payload: uint32_t period in ms */

/* The frame kind of SYNC and FOLLOW_UP frames (docs/distributed.md, "Frames"). */
#define CAIRN_NET_KIND_TIMESYNC (CAIRN_NET_VERSION | 3u)
#define CAIRN_TIMESYNC_SYNC 1u
#define CAIRN_TIMESYNC_FOLLOW_UP 2u
/* Payload: type, sync number, two zero bytes, then a 64-bit time (little-endian): the
 * commit stamp (SYNC) or the slot wait (FOLLOW_UP). */
#define CAIRN_TIMESYNC_PAYLOAD 12u

/* One second in clock units (2^-31 s): 32768 RTC ticks of 65536 units. */
#define CAIRN_TIME_SECOND ((cairn_time_t)1u << 31)
#define CAIRN_TIME_RTC_TICK ((cairn_time_t)65536u)

typedef uint64_t cairn_time_t;

typedef struct cairn_timesync_config {
    uint8_t master;        /* the module whose clock is the global clock */
    uint32_t period_ms;    /* SYNC period at start (0: none until a period message) */
    uint32_t hw_hz;        /* the hardware counter's frequency (CAIRN_TICKS_PER_SECOND) */
    uint32_t bus_bytes_per_s; /* the bus's throughput */
    uint32_t bus_latency_ns;  /* the controllers' fixed latency per frame */
    uint32_t bus_header_bytes; /* the controller's own header on the wire */
    uint32_t max_wait_ns;  /* longest slot wait a FOLLOW_UP may report (a TDMA round and
                            * its stalls); beyond it the sample is refused */
    uint32_t rx_latency_ns; /* from a frame's arrival to the receiver's wake-up when it was
                             * asleep: its sleep state's wake-up time (the receivers sleep
                             * between syncs); subtracted from the RX stamp, which the port
                             * has taken back from its reading to the wake-up */
} cairn_timesync_config_t;

/* Starts time synchronisation: the master sends SYNC every period (its bus manager's
 * timer 0), the others take samples. CAIRN_ENOROUTE without cairn_net_init; CAIRN_EINVAL:
 * a bad configuration; CAIRN_ENOMEM: no heap for its 16-byte block (the first call only). */
cairn_ret_t cairn_timesync_init(const cairn_timesync_config_t *cfg);

/* This module's local clock: its RTC, interpolated by the hardware counter. */
cairn_time_t cairn_local_time(void);

/* The global clock (the master's local clock as this module estimates it) now.
 * CAIRN_EBUSY until two samples have given the offset and the rate (at once on the
 * master). */
cairn_ret_t cairn_global_time(cairn_time_t *now);
/* The same in microseconds; 0 when not synchronised. */
uint64_t cairn_global_time_us(void);
/* The hardware counter value (cairn/arch_timer.h) at which the global clock will read g,
 * for g less than a second ahead: a task can wait for it exactly. CAIRN_EBUSY when not
 * synchronised, CAIRN_EINVAL when g is past or too far. */
cairn_ret_t cairn_global_deadline(cairn_time_t g, uint32_t *hw);

typedef struct cairn_timesync_stats {
    uint32_t syncs_sent;   /* SYNC frames committed (master) */
    uint32_t skipped;      /* periods without a sample: the bus was busy (no SYNC), or the
                            * SYNC arrived before the master watched (no FOLLOW_UP) (master) */
    uint32_t samples;      /* samples taken (offset updated) */
    uint32_t bad;          /* frames refused: not from the master, bad length or type, a
                            * wait out of range, a sample that contradicts the rate */
    uint32_t late;         /* FOLLOW_UPs without their SYNC (lost, reordered, stale) */
    uint32_t period_ms;    /* the period now */
    int32_t rate_ppb;      /* the master's clock against this one's, parts per 10^9 */
    bool synced;
} cairn_timesync_stats_t;

void cairn_timesync_stats(cairn_timesync_stats_t *st);

#endif /* CAIRN_TIMESYNC_H */
