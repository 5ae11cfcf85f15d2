/*
 * Time synchronisation across modules on Cairn OS (docs/distributed.md, "Time
 * synchronisation"), measured from the simulator's true clocks.
 *
 * Every module runs this ELF. Module 0 is the master: it synchronises the others every
 * 200 ms at first and, once they have had two samples, sends the TIMESYNC task a message
 * that makes the period 1 s (CoMOS: 1 Hz). On every module a marker task writes a
 * CAIRN_EV_TIME_MARK trace word (a = module, b = mark number k) when its global clock reads
 * k x 100 ms + 50 ms: it wakes a little before, asks the kernel for the hardware counter
 * value at that global time and waits for it. cairn-sim timestamps each trace word with its
 * processor's exact cycle, so the marks' spread across modules is the true error of the
 * global clock (python/cairn/timesync_skew.py). Marks sit halfway between syncs, so a mark
 * never holds up a SYNC's time stamp.
 *
 * Built with -DTIMESYNC_FREE=1 (build/fw/timesync-free.elf), every module is its own master
 * and no frame is sent: the marks follow each module's own RTC, and drift apart.
 *
 * Each module prints `m<module> marks <n> missed <m> samples <s> bad <b> late <l> skipped <k>
 * rate <ppb> ppb` and exits after mark TIMESYNC_LAST_MARK. Runs on
 * experiments/devices/timesync.toml (and timesync-energy.toml).
 */
#include <stdint.h>

#include "cairn/arch_timer.h"
#include "cairn/mem.h"
#include "cairn/msg.h"
#include "cairn/net.h"
#include "cairn/sched.h"
#include "cairn/sleep.h"
#include "cairn/task.h"
#include "cairn/timer.h"
#include "cairn/timesync.h"
#include "cairn/trace.h"

#include "cairn_armv6m.h"
#include "cmsdk_timer.h"
#include "scb.h"
#include "semihost.h"
#include "systick.h"
#include "uart.h"

#include "../support/app_boot.h"
#include "../support/app_fail.h"

#ifndef TIMESYNC_FREE
#define TIMESYNC_FREE 0
#endif
#ifndef TIMESYNC_LAST_MARK
#define TIMESYNC_LAST_MARK 100u /* at 10.05 s of global time */
#endif

/* The bus of experiments/devices/timesync.toml: the transfer time of a frame comes from
 * these, so they must be the device file's. */
#define BUS_BYTES_PER_S 64000000u
#define BUS_LATENCY_NS 500u
#define BUS_HEADER_BYTES 4u

#define MASTER 0u
#define FIRST_PERIOD_MS 200u
#define PERIOD_MS 1000u
#define MARK_EVERY (CAIRN_TIME_SECOND / 10u)
#define MARK_PHASE (CAIRN_TIME_SECOND / 20u)
/* The master changes the period here, after the third sync (at 600 ms) and on a whole
 * 100 ms, so that every 1 Hz sync falls halfway between two marks. A sync that comes as a
 * module marks finds it awake, or asleep in another state than the deepest, and is stamped
 * off by a critical section or another wake-up time (docs/distributed.md). */
#define SLOW_AT (CAIRN_TIME_SECOND * 7u / 10u)
/* A receiver's first look for a synchronised clock: 20 ms after the second sync. */
#define FIRST_LOOK (CAIRN_TICKS_PER_SECOND / 1000u * (2u * FIRST_PERIOD_MS + 20u))
/* Woken this long before a mark, the marker waits the rest by the hardware counter. It must
 * be more than the timer's lateness plus cairn_global_deadline's time (up to an RTC tick's
 * wait for its anchor): 200 us was not, with the flash wait state an STM32L053 needs at
 * 25 MHz, and a receiver marked after its deadline had passed while the master refused its
 * own (a missed mark). Several times more holds up nothing (marks are half a period from
 * syncs) and leaves room for slower clocks. */
#define WAKE_EARLY (CAIRN_TIME_SECOND / 1000u) /* 1 ms */
/* Only the last of the wait has interrupts masked, long enough for an interrupt taken just
 * before it to end first (none is due at a mark). */
#define MASKED_WAIT (CAIRN_TICKS_PER_SECOND / 20000u) /* 50 us */
#define POLL_TICKS (CAIRN_TICKS_PER_SECOND / 50u)

#define MARKER_TASK 1

struct marker {
    uint32_t next; /* the next mark's number */
    uint32_t marks, missed;
    bool slowed;
};

static struct marker marker;

static uint32_t ticks_of(cairn_time_t t)
{
    return (uint32_t)((t * CAIRN_TICKS_PER_SECOND) >> 31);
}

static void finish(const struct marker *m)
{
    cairn_timesync_stats_t st;
    cairn_timesync_stats(&st);
    uart_putc('m');
    uart_put_udec(cairn_net_address());
    uart_puts(" marks ");
    uart_put_udec(m->marks);
    uart_puts(" missed ");
    uart_put_udec(m->missed);
    uart_puts(" samples ");
    uart_put_udec(st.samples);
    uart_puts(" bad ");
    uart_put_udec(st.bad);
    uart_puts(" late ");
    uart_put_udec(st.late);
    uart_puts(" skipped ");
    uart_put_udec(st.skipped);
    uart_puts(" rate ");
    uart_put_dec(st.rate_ppb);
    uart_puts(" ppb\n");
    sh_exit(0);
}

/* Plans the next mark: timer 1 a little before it, or timer 0 to look again while the
 * clock is not synchronised. */
static cairn_ret_t plan(struct marker *m)
{
    cairn_time_t g;
    if (cairn_global_time(&g) != CAIRN_OK)
        return cairn_timer_start(0, POLL_TICKS, false);
    if (!TIMESYNC_FREE && cairn_net_address() == MASTER && !m->slowed) {
        /* Timer 2 at SLOW_AT: the 1 Hz syncs start from there. */
        m->slowed = true;
        cairn_timer_start(2, ticks_of(SLOW_AT - g), false);
    }
    cairn_time_t soon = g + WAKE_EARLY + CAIRN_TIME_SECOND / 1000u;
    uint32_t k = soon < MARK_PHASE ? 0u : (uint32_t)((soon - MARK_PHASE) / MARK_EVERY) + 1u;
    if (k < m->next)
        k = m->next;
    if (k > TIMESYNC_LAST_MARK)
        finish(m);
    m->next = k;
    cairn_time_t at = MARK_PHASE + (cairn_time_t)k * MARK_EVERY;
    return cairn_timer_start(1, ticks_of(at - WAKE_EARLY - g), false);
}

/* The mark's word is composed before the wait, and the wait reads the counter's register
 * (arch_timer_now's) itself: the store follows the deadline by a few cycles. A longer path
 * would make every mark late by its cycles, which a module with a slower clock spends
 * longer on, and the spread of modules of mixed clocks would be the path's. */
static void mark(struct marker *m)
{
    cairn_time_t at = MARK_PHASE + (cairn_time_t)m->next * MARK_EVERY;
    uint32_t hw;
    if (cairn_global_deadline(at, &hw) == CAIRN_OK) {
        uint32_t word = CAIRN_TRACE_WORD(CAIRN_EV_TIME_MARK, cairn_net_address(), m->next);
        volatile uint32_t *trace = (volatile uint32_t *)(CAIRN_TRACE_ADDR);
        volatile uint32_t *counter = &CMSDK_TIMER1->value;
        while ((int32_t)(arch_timer_now() - (hw - MASKED_WAIT)) < 0)
            ;
        uint32_t s = arch_irq_save();
        while ((int32_t)(~*counter - hw) < 0)
            ;
        *trace = word;
        arch_irq_restore(s);
        m->marks++;
    } else {
        m->missed++;
    }
    m->next++;
}

static cairn_ret_t marker_task(void *state, cairn_msg_t *msg)
{
    struct marker *m = state;
    switch (msg->port) {
    case CAIRN_PORT_INIT: {
        /* A receiver looks first when its second sample is in, not every POLL_TICKS from
         * boot: a look that falls on a sync's arrival finds it awake. */
        cairn_time_t g;
        if (cairn_global_time(&g) != CAIRN_OK)
            return cairn_timer_start(0, FIRST_LOOK, false);
        return plan(m);
    }
    case CAIRN_PORT_TIMEOUT0:
        return plan(m);
    case CAIRN_PORT_TIMEOUT1:
        mark(m);
        return plan(m);
    case CAIRN_PORT_TIMEOUT2: {
        /* The others have had two samples by now: 1 Hz from here on. */
        uint32_t ms = PERIOD_MS;
        return cairn_post(CAIRN_TASK_TIMESYNC, CAIRN_TIMESYNC_PORT_PERIOD, &ms, sizeof ms);
    }
    }
    return CAIRN_OK;
}

/* SysTick's count for a probe of the wake-up: long enough to be asleep when it ends. */
#define PROBE_TICKS 1000u

/* Cycles from SysTick's start to a WFI's return, asleep in the deep state or the plain one,
 * with interrupts masked (WFI still wakes; the SysTick exception is never taken). SysTick
 * is not the kernel's. 0 when something else woke the core first. */
static uint32_t wfi_cycles(bool deep)
{
    SYST_CSR = 0;
    SYST_RVR = PROBE_TICKS;
    SYST_CVR = 0;
    if (deep)
        SCB_SCR |= SCR_SLEEPDEEP;
    else
        SCB_SCR &= ~SCR_SLEEPDEEP;
    uint32_t t0 = arch_timer_now();
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE;
    __asm__ volatile("dsb\n\twfi" ::: "memory");
    uint32_t t = arch_timer_now() - t0;
    SYST_CSR = 0;
    SCB_ICSR = ICSR_PENDSTCLR;
    SCB_SCR &= ~SCR_SLEEPDEEP;
    return t > PROBE_TICKS ? t : 0u;
}

/* The deepest state's wake-up time as the part has it, for rx_latency_ns: the receivers
 * sleep in it between syncs. The sleep table gives the datasheet's figure, which cairn-sim
 * applies only with an energy profile (without one it wakes at once): the same SysTick count
 * slept out in the deep state and in plain sleep differs by the deep state's wake-up (plain
 * sleep's own, a few cycles, aside). The table's figure if every probe was cut short. */
static uint32_t wakeup_ns(void)
{
    uint32_t s = arch_irq_save();
    uint32_t plain = 0, deep = 0;
    for (unsigned i = 0; i < 3 && !(plain && deep); i++) {
        plain = plain ? plain : wfi_cycles(false);
        deep = deep ? deep : wfi_cycles(true);
    }
    arch_irq_restore(s);
    if (!plain || !deep) {
        const struct cairn_sleep_table *t = arch_sleep_table();
        return t->states[t->count - 1u].wakeup_us * 1000u;
    }
    uint32_t d = deep > plain ? deep - plain : 0u;
    return (uint32_t)((uint64_t)d * 1000000000u / CAIRN_TICKS_PER_SECOND);
}

static uint64_t heap[512];

int main(void)
{
    cairn_ret_t r = app_boot(heap, sizeof heap);
    if (r != CAIRN_OK)
        return app_fail("cairn_net_init", r);
    cairn_timesync_config_t cfg = {
        .master = TIMESYNC_FREE ? cairn_net_address() : MASTER,
        .period_ms = TIMESYNC_FREE ? 0u : FIRST_PERIOD_MS,
        .hw_hz = CAIRN_TICKS_PER_SECOND,
        .bus_bytes_per_s = BUS_BYTES_PER_S,
        .bus_latency_ns = BUS_LATENCY_NS,
        .bus_header_bytes = BUS_HEADER_BYTES,
        .max_wait_ns = 100000u, /* a round is 32 us: room for stalls */
        /* Between syncs the receivers sleep in the deepest state the board has. */
        .rx_latency_ns = wakeup_ns(),
    };
    if ((r = cairn_timesync_init(&cfg)) != CAIRN_OK)
        return app_fail("cairn_timesync_init", r);
    if ((r = cairn_task_create(MARKER_TASK, marker_task, &marker, 1, 0, 0, 0)) != CAIRN_OK)
        return app_fail("cairn_task_create", r);
    if ((r = cairn_net_start()) != CAIRN_OK)
        return app_fail("cairn_net_start", r);
    if ((r = cairn_task_init(MARKER_TASK, 0, 0)) != CAIRN_OK)
        return app_fail("cairn_task_init", r);
    cairn_run();
}
