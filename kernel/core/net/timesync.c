/*
 * Cairn OS time synchronisation (CoMOS V-C): the TIMESYNC virtual task, served by the bus
 * manager, and the global clock. docs/distributed.md, "Time synchronisation".
 *
 * The master broadcasts SYNC, stamped by the bus driver as it commits the frame; the frame
 * then waits for the master's TDMA slot, which the stamp cannot know, so the master
 * measures that wait from its TX done (latched at the frame's arrival, the very instant
 * the receivers get it) and sends it in a FOLLOW_UP. A receiver stamps SYNC at its RX
 * interrupt (the bus manager's entry) and, with the FOLLOW_UP, knows the master's clock at
 * that instant: commit + wait + transfer. Two samples give offset and rate.
 */
#include "net.h"

#include "cairn/arch_timer.h"
#include "cairn/mem.h"
#include "cairn/timer.h"

#define TS (cairn_net.ts)

/* The anchor (an RTC edge and the counter there) is trusted for this many RTC ticks
 * (~1 ms): the counter's frequency against the RTC's is off by the crystals' error, which
 * costs at most ppm x 1 ms (20 ns at 20 ppm) by then. */
#define ANCHOR_TICKS 32u
/* Samples further than this from the prediction are refused (a wild stamp), unless two come
 * in a row: then the master's clock has really jumped, and synchronisation starts again. */
#define MAX_STEP (CAIRN_TIME_SECOND / 1000u)
/* The rate is measured from an older sample than the last while they are less than this
 * far apart: a sample's jitter then weighs on the rate over seconds, not over one period,
 * which matters most when a short period (the first samples') gives the rate used over a
 * longer one. Crystals that wander are followed with this much delay. */
#define RATE_SPAN (4u * CAIRN_TIME_SECOND)
/* Crystals are at most this far apart (500 ppm, Q32): a larger rate is a bad sample. */
#define MAX_RATE ((int64_t)2147484)
/* Longest period, so that the timer's ticks fit CAIRN_TIMER_MAX_TICKS at any counter rate
 * up to 32 MHz. */
#define MAX_PERIOD_MS 60000u
/* A turn of the driver's watch for the SYNC's arrival takes at least this many counter
 * ticks (the counter runs at the core clock): its turns are bounded by max_wait_hw over this.
 * A watch that ends past max_wait reports a wait the receivers refuse. */
#define POLL_TURN_MIN 4u

static void put64(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 8; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* ---- the local clock ------------------------------------------------------------------ */

/* Waits for the RTC's next tick (at most 30.5 us) and anchors there. The driver's loop is a
 * few cycles, so the anchor trails the edge by a fixed time give or take those: the fixed
 * part delays every local time of the module alike and cancels out; the rest is jitter in
 * every stamp, which the rate amplifies, so the loop must be short (a loop of calls, with
 * a flash wait state, gave a microsecond of it). */
static void anchor(void)
{
    uint32_t hw;
    TS.anchor_rtc = cairn_bus_rtc_edge(&hw);
    TS.anchor_hw = hw;
    TS.anchored = true;
}

/* Anchors again when the anchor is too old. Called before the counter is read for "now",
 * so that the wait for an RTC edge comes before the reading, not between it and its use. */
static void fresh_anchor(void)
{
    if (!TS.anchored || cairn_bus_rtc() - TS.anchor_rtc > ANCHOR_TICKS)
        anchor();
}

/* The local clock when the counter read hw (within a few ms of now, either side). */
static cairn_time_t local_at(uint32_t hw)
{
    fresh_anchor();
    int32_t d = (int32_t)((hw - TS.anchor_hw) & CAIRN_HWTIMER_MASK);
    if (CAIRN_HWTIMER_BITS < 32 && d >= (int32_t)CAIRN_HWTIMER_HALF)
        d -= (int32_t)CAIRN_HWTIMER_MASK + 1;
    uint64_t mag = ((uint64_t)(d < 0 ? -(int64_t)d : d) * TS.units_per_hw) >> 32;
    cairn_time_t base = (cairn_time_t)TS.anchor_rtc * CAIRN_TIME_RTC_TICK;
    return d < 0 ? base - mag : base + mag;
}

cairn_time_t cairn_local_time(void)
{
    uint32_t s = arch_irq_save();
    fresh_anchor();
    cairn_time_t t = local_at(arch_timer_now());
    arch_irq_restore(s);
    return t;
}

static uint64_t stamp_now(void)
{
    fresh_anchor();
    return local_at(arch_timer_now());
}

/* ---- the global clock ----------------------------------------------------------------- */

static bool is_master(void)
{
    return cairn_net.address == TS.cfg.master;
}

static bool synced(void)
{
    return TS.on && (is_master() || TS.samples >= 2);
}

/* a x r / 2^32 for |r| <= MAX_RATE, without overflow for any |a| below 2^62. */
static int64_t mul_q32(int64_t a, int64_t r)
{
    bool neg = (a < 0) != (r < 0);
    uint64_t ua = a < 0 ? (uint64_t)-a : (uint64_t)a, ur = r < 0 ? (uint64_t)-r : (uint64_t)r;
    uint64_t m = ((ua >> 16) * ur >> 16) + ((ua & 0xFFFFu) * ur >> 32);
    return neg ? -(int64_t)m : (int64_t)m;
}

/* The master's clock when the local clock reads l (after two samples). */
static cairn_time_t global_at(cairn_time_t l)
{
    if (is_master())
        return l;
    int64_t dl = (int64_t)(l - TS.ref_local);
    return TS.ref_master + (uint64_t)(dl + mul_q32(dl, TS.rate));
}

/* The master's clock read m when the local clock read l. */
static void sample(cairn_time_t l, cairn_time_t m)
{
    if (TS.samples >= 2) {
        int64_t err = (int64_t)(m - global_at(l));
        if ((err > (int64_t)MAX_STEP || err < -(int64_t)MAX_STEP) && ++TS.refused < 2) {
            TS.stats.bad++;
            return;
        }
        if (TS.refused >= 2)
            TS.samples = 0; /* the master's clock jumped: start again */
    }
    if (TS.samples >= 1) {
        int64_t dl = (int64_t)(l - TS.base->local);
        int64_t dm = (int64_t)(m - TS.base->master);
        int64_t diff = dm - dl;
        /* Checked before the division so that it cannot overflow: the rate must be below
         * 1/1024 (and is then below 2^22 in Q32, times a diff below 2^40). */
        bool sane = dl > 0 && dl < ((int64_t)1 << 50) && diff < (dl >> 10) && -diff < (dl >> 10);
        int64_t rate = MAX_RATE + 1;
        if (sane) {
            uint64_t q = ((uint64_t)(diff < 0 ? -diff : diff) << 22) / (uint64_t)dl << 10;
            q += ((((uint64_t)(diff < 0 ? -diff : diff) << 22) % (uint64_t)dl) << 10) / (uint64_t)dl;
            rate = diff < 0 ? -(int64_t)q : (int64_t)q;
        }
        if (rate > MAX_RATE || rate < -MAX_RATE) {
            TS.stats.bad++;
            TS.samples = 1; /* keep the newer point as the reference */
            TS.ref_local = TS.base->local = l;
            TS.ref_master = TS.base->master = m;
            return;
        }
        TS.rate = rate;
        TS.samples = 2;
        if (dl >= (int64_t)RATE_SPAN) {
            /* The next rate spans two periods at least. */
            TS.base->local = TS.ref_local;
            TS.base->master = TS.ref_master;
        }
    } else {
        TS.samples = 1;
        TS.base->local = l;
        TS.base->master = m;
    }
    TS.refused = 0;
    TS.ref_local = l;
    TS.ref_master = m;
    TS.stats.samples++;
    CAIRN_TRACE(CAIRN_EV_TIME_SYNC, TS.sync_seq, TS.samples);
}

cairn_ret_t cairn_global_time(cairn_time_t *now)
{
    uint32_t s = arch_irq_save();
    bool ok = synced();
    if (ok) {
        fresh_anchor();
        *now = global_at(local_at(arch_timer_now()));
    }
    arch_irq_restore(s);
    return ok ? CAIRN_OK : CAIRN_EBUSY;
}

uint64_t cairn_global_time_us(void)
{
    cairn_time_t g;
    if (cairn_global_time(&g) != CAIRN_OK)
        return 0;
    return (g >> 31) * 1000000u + (((g & (CAIRN_TIME_SECOND - 1u)) * 1000000u) >> 31);
}

cairn_ret_t cairn_global_deadline(cairn_time_t g, uint32_t *hw)
{
    uint32_t s = arch_irq_save();
    if (!synced()) {
        arch_irq_restore(s);
        return CAIRN_EBUSY;
    }
    fresh_anchor();
    uint32_t now_hw = arch_timer_now();
    cairn_time_t now_l = local_at(now_hw);
    int64_t ahead = (int64_t)(g - global_at(now_l)); /* in the master's units */
    if (ahead < 0 || ahead > (int64_t)(CAIRN_TIME_SECOND / 16u)) {
        arch_irq_restore(s);
        return CAIRN_EINVAL;
    }
    /* Local units: the master's divided by (1 + rate), to first order (the rate is at most
     * 500 ppm, so the second order is below 0.1 ns over the range allowed). */
    if (!is_master())
        ahead -= mul_q32(ahead, TS.rate);
    *hw = now_hw + (uint32_t)(((uint64_t)ahead * TS.cfg.hw_hz) >> 31);
    arch_irq_restore(s);
    return CAIRN_OK;
}

void cairn_timesync_stats(cairn_timesync_stats_t *st)
{
    uint32_t s = arch_irq_save();
    *st = TS.stats;
    st->period_ms = TS.cfg.period_ms;
    st->rate_ppb = (int32_t)((TS.rate * 1000000000) >> 32);
    st->synced = synced();
    arch_irq_restore(s);
}

/* ---- the protocol --------------------------------------------------------------------- */

static uint16_t frame_head(uint8_t *h)
{
    uint16_t seq = cairn_net.seq++;
    const uint8_t head[CAIRN_NET_HEADER] = {
        CAIRN_NET_KIND_TIMESYNC, cairn_net.address, CAIRN_TASK_TIMESYNC, 0, CAIRN_NET_PRIO, 0,
        (uint8_t)seq, (uint8_t)(seq >> 8), CAIRN_TIMESYNC_PAYLOAD, 0,
    };
    __builtin_memcpy(h, head, sizeof head);
    return seq;
}

static void sent(uint16_t seq)
{
    cairn_net.stats.tx_frames++;
    CAIRN_TRACE(CAIRN_EV_NET_SEND, CAIRN_NET_BROADCAST, seq);
    CAIRN_TRACE(CAIRN_EV_NET_SEND_TO, CAIRN_TASK_TIMESYNC, 0);
}

/* A FOLLOW_UP: the last 8 bytes are v. */
static void send_frame(uint8_t type, uint8_t n, uint64_t v)
{
    uint8_t h[CAIRN_NET_HEADER];
    uint16_t seq = frame_head(h);
    uint8_t p[CAIRN_TIMESYNC_PAYLOAD] = {type, n};
    put64(p + 4, v);
    cairn_bus_tx(CAIRN_NET_BROADCAST, h, sizeof h, p, sizeof p);
    sent(seq);
}

/* The SYNC arrived when the counter read TS.service_hw: its wait for the slot goes out. */
static void follow_up(void)
{
    TS.in_flight = false;
    cairn_time_t done = local_at(TS.service_hw);
    int64_t wait = (int64_t)(done - TS.commit - TS.transfer);
    send_frame(CAIRN_TIMESYNC_FOLLOW_UP, TS.seq, (uint64_t)wait);
}

void cairn__timesync_entry_at(uint32_t hw)
{
    TS.service_hw = hw;
    TS.service_fresh = true;
}

void cairn__timesync_entry(void)
{
    cairn__timesync_entry_at(arch_timer_now());
}

/* One SYNC per TIMEOUT0 of the bus manager (its period timer). */
void cairn__timesync_period_timer(void)
{
    if (!TS.on || !is_master())
        return;
    uint32_t s = arch_irq_save();
    bool idle = !cairn_net.txq && !TS.in_flight && cairn_bus_tx_idle();
    if (idle) {
        uint8_t h[CAIRN_NET_HEADER];
        uint16_t seq = frame_head(h);
        uint8_t p[4] = {CAIRN_TIMESYNC_SYNC, ++TS.seq};
        /* The frame arrives at the start of the master's next slot and a transfer time on:
         * the driver watches the controller for it from right after the commit, interrupts
         * masked, and sees it within a turn of its loop, where the TX done interrupt would
         * come as late as the longest critical section. */
        cairn_bus_watch_t w = {.turns = TS.max_wait_hw / POLL_TURN_MIN + 1u};
        TS.commit = cairn_bus_tx_stamped(CAIRN_NET_BROADCAST, h, sizeof h, p, sizeof p,
                                         stamp_now, &w);
        sent(seq);
        TS.stats.syncs_sent++;
        TS.in_flight = true;
        if (w.busy == 0) {
            /* There already (a clock too slow to look in time): when, the master cannot
             * tell, so this SYNC has no FOLLOW_UP and the receivers keep their clocks. */
            TS.in_flight = false;
            TS.stats.skipped++;
        } else if (w.busy < w.turns) {
            TS.service_hw = w.hw;
            follow_up();
        }
        /* Past max_wait (a stalled bus; the host's simulated bus, which moves only when the
         * test steps it) the TX done interrupt sends the FOLLOW_UP. */
    } else {
        TS.stats.skipped++;
    }
    arch_irq_restore(s);
}

/* The master's SYNC has arrived everywhere when its controller is idle again: TX done
 * brought the bus manager here, and its entry stamp is the arrival. The FOLLOW_UP goes
 * before anything buffered. */
void cairn__timesync_tx_done(void)
{
    uint32_t s = arch_irq_save();
    if (TS.in_flight && cairn_bus_tx_idle())
        follow_up();
    arch_irq_restore(s);
}

void cairn__timesync_rx(uint8_t src, const uint8_t *p, unsigned len)
{
    bool fresh = TS.service_fresh;
    TS.service_fresh = false;
    if (!TS.on || is_master() || src != TS.cfg.master || len != CAIRN_TIMESYNC_PAYLOAD ||
        p[2] || p[3]) {
        TS.stats.bad++;
        return;
    }
    if (p[0] == CAIRN_TIMESYNC_SYNC) {
        /* A SYNC that waited behind another frame was not stamped at its arrival. */
        TS.have_sync = fresh;
        if (!fresh) {
            TS.stats.late++;
            return;
        }
        TS.sync_seq = p[1];
        TS.sync_commit = get64(p + 4);
        TS.sync_local = local_at(TS.service_hw) - TS.rx_latency;
        return;
    }
    if (p[0] != CAIRN_TIMESYNC_FOLLOW_UP) {
        TS.stats.bad++;
        return;
    }
    if (!TS.have_sync || p[1] != TS.sync_seq) {
        TS.stats.late++;
        return;
    }
    TS.have_sync = false;
    int64_t wait = (int64_t)get64(p + 4);
    cairn_time_t max = ((cairn_time_t)TS.cfg.max_wait_ns << 31) / 1000000000u;
    if (wait < 0 || (uint64_t)wait > max) {
        TS.stats.bad++;
        return;
    }
    sample(TS.sync_local, TS.sync_commit + (uint64_t)wait + TS.transfer);
}

static cairn_ret_t set_period(uint32_t ms)
{
    if (ms > MAX_PERIOD_MS)
        return CAIRN_EINVAL;
    TS.cfg.period_ms = ms;
    if (!is_master())
        return CAIRN_OK;
    if (ms == 0) {
        cairn_timer_cancel(CAIRN_TASK_NET, 0);
        return CAIRN_OK;
    }
    uint32_t ticks = (uint32_t)((uint64_t)ms * TS.cfg.hw_hz / 1000u);
    return cairn_timer_set(CAIRN_TASK_NET, 0, ticks ? ticks : 1u, true);
}

cairn_ret_t cairn__timesync_period_msg(const cairn_msg_t *msg)
{
    uint32_t ms = 0;
    if (msg->len == sizeof ms)
        __builtin_memcpy(&ms, msg->payload, sizeof ms);
    cairn_ret_t r = msg->len == sizeof ms && TS.on ? set_period(ms) : CAIRN_EINVAL;
    if (r != CAIRN_OK)
        TS.stats.bad++;
    return r;
}

cairn_ret_t cairn_timesync_init(const cairn_timesync_config_t *cfg)
{
    if (!cairn_k.net)
        return CAIRN_ENOROUTE;
    if (!cfg || cfg->hw_hz == 0 || cfg->hw_hz > 32000000u || cfg->bus_bytes_per_s == 0 ||
        cfg->period_ms > MAX_PERIOD_MS || cfg->master == CAIRN_NET_BROADCAST)
        return CAIRN_EINVAL;
    struct cairn_timesync_base *base = TS.base;
    if (!base && !(base = cairn_malloc(sizeof *base)))
        return CAIRN_ENOMEM;
    cairn_heap_set_owner(base, CAIRN_TASK_NONE);
    __builtin_memset(&TS, 0, sizeof TS);
    TS.base = base;
    TS.cfg = *cfg;
    TS.units_per_hw = ((uint64_t)1 << 63) / cfg->hw_hz;
    /* arrival = slot start + ceil(bytes x 10^12 / throughput) ps + latency (docs/device.md) */
    uint64_t bytes = cfg->bus_header_bytes + CAIRN_NET_HEADER + CAIRN_TIMESYNC_PAYLOAD;
    uint64_t ps = (bytes * 1000000000000u + cfg->bus_bytes_per_s - 1u) / cfg->bus_bytes_per_s +
                  (uint64_t)cfg->bus_latency_ns * 1000u;
    TS.transfer = (ps << 31) / 1000000000000u;
    TS.rx_latency = ((cairn_time_t)cfg->rx_latency_ns << 31) / 1000000000u;
    TS.max_wait_hw = (uint32_t)((uint64_t)cfg->max_wait_ns * cfg->hw_hz / 1000000000u);
    TS.on = true;
    cairn_ret_t r = set_period(cfg->period_ms);
    if (r != CAIRN_OK)
        TS.on = false;
    return r;
}
