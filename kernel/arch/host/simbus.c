/*
 * Cairn OS host port: an in-process simulated bus, and the bus driver (cairn/bus.h) of
 * each simulated module on it, for unit tests under ASan/UBSan.
 *
 * The kernel's state is a global, so one process runs several modules' kernels by
 * swapping instances: cairn_simbus_select saves the running module's cairn_k, bus
 * manager state and interrupt mask and loads another's. The test calls it at top level
 * only (no handler of any module on the stack), which is what keeps the swap sound; the
 * bus moves frames between the modules' controllers only when the test steps it, and a
 * module's interrupts run only when the test services it. The controller follows
 * cairn-bus-ctrl (docs/device.md): FIFOs of whole frames, TX done latched at delivery,
 * hardware flow control, broadcasts to every other powered module, a unicast frame
 * powering its destination on.
 */
#include "cairn_host.h"

#include "../../core/net/net.h"
#include "cairn/irq.h"
#include "cairn/arch_timer.h"
#include "hwtimer.h"

#define IRQ_RX 24
#define IRQ_TXDONE 25
#define IRQ_ERR 26
#define ERR_TOO_LONG 2u
#define ERR_BAD_DEST 4u

CAIRN_IRQ_MESSAGE(cairn_host_bus_rx, IRQ_RX, CAIRN_TASK_NET, CAIRN_NET_PORT_SERVICE)
/* TX done: the bus manager's fast path first (tx_done_fast.c), as armv6m's vector. */
static cairn_irq_binding_t txdone_binding __attribute__((used, section("cairn_irq_bindings"))) =
    CAIRN_IRQ_BINDING_INIT(IRQ_TXDONE, CAIRN_TASK_NET, CAIRN_NET_PORT_SERVICE, 1);
static void cairn_host_bus_txdone(void)
{
    if (!cairn__net_tx_done_fast())
        cairn_irq_message(&txdone_binding);
}
CAIRN_IRQ_MESSAGE(cairn_host_bus_err, IRQ_ERR, CAIRN_TASK_NET, CAIRN_NET_PORT_SERVICE)

struct frame {
    uint8_t src, dst;
    uint16_t len;
    bool corrupt;
    uint8_t data[CAIRN_NET_MAX_FRAME];
};

struct fifo {
    struct frame f[CAIRN_SIMBUS_FIFO];
    unsigned head, n;
};

struct module {
    cairn_kernel_t k;
    cairn_net_t net;
    uint32_t irq_mask;
    bool powered, enabled, txdone;
    uint32_t err;
    struct frame compose;
    struct fifo tx, rx;
    unsigned rx_read;
    int32_t rtc_ppb;
    uint32_t rtc_hz, rtc_start;
    uint8_t boots; /* cairn_bus_init calls: one per boot of the module's kernel */
    uint32_t retained[10]; /* cairn_bus_retained: kept across boots, as a reset keeps RAM */
};

static struct {
    struct module m[CAIRN_SIMBUS_MODULES];
    unsigned modules, rx_fifo, selected, last_sender;
    bool corrupt_next;
    struct cairn_simbus_wire wire[256];
    unsigned wires;
    cairn_simbus_filter_t filter;
    struct frame delayed;
    bool has_delayed;
    bool watch_set;
    uint32_t watch_busy;
} bus;

static struct module *cur(void)
{
    return &bus.m[bus.selected];
}

static struct frame *fifo_head(struct fifo *q)
{
    return &q->f[q->head];
}

static struct frame *fifo_push(struct fifo *q)
{
    struct frame *f = &q->f[(q->head + q->n) % CAIRN_SIMBUS_FIFO];
    q->n++;
    return f;
}

static void fifo_pop(struct fifo *q)
{
    q->head = (q->head + 1) % CAIRN_SIMBUS_FIFO;
    q->n--;
}

void cairn_simbus_reset(unsigned modules, unsigned rx_fifo)
{
    __builtin_memset(&bus, 0, sizeof bus);
    bus.modules = modules > CAIRN_SIMBUS_MODULES ? CAIRN_SIMBUS_MODULES : modules;
    bus.rx_fifo = rx_fifo > CAIRN_SIMBUS_FIFO ? CAIRN_SIMBUS_FIFO : rx_fifo;
    bus.last_sender = bus.modules - 1;
    for (unsigned i = 0; i < bus.modules; i++) {
        bus.m[i].powered = true;
        bus.m[i].rtc_hz = 1000000u;
    }
    __builtin_memset(&cairn_k, 0, sizeof cairn_k);
    __builtin_memset(&cairn_net, 0, sizeof cairn_net);
    cairn_host_irq_mask_set(0);
}

void cairn_simbus_select(unsigned m)
{
    if (m >= bus.modules || m == bus.selected)
        return;
    struct module *o = cur();
    o->k = cairn_k;
    o->net = cairn_net;
    o->irq_mask = cairn_host_irq_mask_get();
    bus.selected = m;
    cairn_k = bus.m[m].k;
    cairn_net = bus.m[m].net;
    cairn_host_irq_mask_set(bus.m[m].irq_mask);
}

unsigned cairn_simbus_selected(void)
{
    return bus.selected;
}

/* Whether frame f can go now: its receivers have room (broadcast: every other powered
 * module). */
static bool room(const struct frame *f)
{
    for (unsigned i = 0; i < bus.modules; i++) {
        bool to = f->dst == CAIRN_NET_BROADCAST ? i != f->src && bus.m[i].powered : i == f->dst;
        if (to && bus.m[i].rx.n >= bus.rx_fifo)
            return false;
    }
    return true;
}

/* Frame f from module s into its receivers' RX FIFOs (beyond a full one: lost). */
static void deliver(const struct frame *f, unsigned s)
{
    for (unsigned i = 0; i < bus.modules; i++) {
        bool to = f->dst == CAIRN_NET_BROADCAST ? i != s && bus.m[i].powered : i == f->dst;
        if (!to || bus.m[i].rx.n >= CAIRN_SIMBUS_FIFO)
            continue;
        bus.m[i].powered = true;
        *fifo_push(&bus.m[i].rx) = *f;
    }
}

void cairn_simbus_filter(cairn_simbus_filter_t filter)
{
    bus.filter = filter;
}

bool cairn_simbus_step(void)
{
    for (unsigned k = 1; k <= bus.modules; k++) {
        unsigned s = (bus.last_sender + k) % bus.modules;
        struct module *sm = &bus.m[s];
        if (!sm->tx.n || !room(fifo_head(&sm->tx)))
            continue;
        struct frame f = *fifo_head(&sm->tx);
        fifo_pop(&sm->tx);
        if (bus.corrupt_next) {
            bus.corrupt_next = false;
            f.corrupt = true;
            f.data[0] ^= 1u;
        }
        enum cairn_simbus_fate fate = CAIRN_SIMBUS_PASS;
        if (bus.filter) {
            struct cairn_simbus_wire w = {.src = f.src, .dst = f.dst, .len = f.len, .corrupt = f.corrupt,
                                          .first = f.len > CAIRN_NET_HEADER ? f.data[CAIRN_NET_HEADER] : 0};
            __builtin_memcpy(w.head, f.data, sizeof w.head);
            fate = bus.filter(&w);
        }
        bool release = bus.has_delayed && fate != CAIRN_SIMBUS_DELAY;
        if (fate == CAIRN_SIMBUS_DELAY && !bus.has_delayed) {
            bus.delayed = f;
            bus.has_delayed = true;
        } else if (fate != CAIRN_SIMBUS_DROP) {
            deliver(&f, s);
            if (fate == CAIRN_SIMBUS_DUPLICATE)
                deliver(&f, s);
        }
        if (release) {
            bus.has_delayed = false;
            deliver(&bus.delayed, bus.delayed.src);
        }
        sm->txdone = true;
        bus.last_sender = s;
        if (bus.wires < CAIRN_COUNT(bus.wire)) {
            struct cairn_simbus_wire *w = &bus.wire[bus.wires++];
            w->src = f.src;
            w->dst = f.dst;
            w->len = f.len;
            w->corrupt = f.corrupt;
            __builtin_memcpy(w->head, f.data, sizeof w->head);
        }
        return true;
    }
    if (bus.has_delayed) { /* nothing else goes: the delayed frame arrives now */
        bus.has_delayed = false;
        deliver(&bus.delayed, bus.delayed.src);
        return true;
    }
    return false;
}

/* The interrupt lines of module m that are up and enabled in its controller. */
static unsigned lines(const struct module *m)
{
    if (!m->enabled)
        return 0;
    return (m->rx.n ? 1u << IRQ_RX : 0u) | (m->txdone ? 1u << IRQ_TXDONE : 0u) |
           (m->err ? 1u << IRQ_ERR : 0u);
}

void cairn_simbus_service(void)
{
    unsigned back = bus.selected;
    for (bool again = true; again;) {
        again = false;
        /* The modules run side by side: each one's interrupt of this pass starts at the
         * same host time (what one spends, waiting for its RTC say, is not the others'),
         * and the pass ends when the slowest is done. */
        uint32_t t0 = arch_timer_now(), spent = 0;
        for (unsigned i = 0; i < bus.modules; i++) {
            if (!bus.m[i].powered)
                continue;
            host_timer_set(t0);
            cairn_simbus_select(i);
            unsigned up = lines(cur()) & ~cairn_host_irq_mask_get();
            if (up & 1u << IRQ_RX)
                cairn_host_bus_rx();
            else if (up & 1u << IRQ_TXDONE)
                cairn_host_bus_txdone();
            else if (up & 1u << IRQ_ERR)
                cairn_host_bus_err();
            else
                continue;
            again = true;
            if (arch_timer_now() - t0 > spent)
                spent = arch_timer_now() - t0;
        }
        host_timer_set(t0 + spent);
    }
    cairn_simbus_select(back);
}

void cairn_simbus_run(void)
{
    do
        cairn_simbus_service();
    while (cairn_simbus_step());
}

unsigned cairn_simbus_tx_count(unsigned m)
{
    return m < bus.modules ? bus.m[m].tx.n : 0;
}

unsigned cairn_simbus_rx_count(unsigned m)
{
    return m < bus.modules ? bus.m[m].rx.n : 0;
}

bool cairn_simbus_powered(unsigned m)
{
    return m < bus.modules && bus.m[m].powered;
}

void cairn_simbus_corrupt_next(void)
{
    bus.corrupt_next = true;
}

void cairn_simbus_inject(unsigned dst, unsigned src, const void *data, unsigned len)
{
    if (dst >= bus.modules || bus.m[dst].rx.n >= CAIRN_SIMBUS_FIFO || len > CAIRN_NET_MAX_FRAME)
        return;
    struct frame *f = fifo_push(&bus.m[dst].rx);
    f->src = (uint8_t)src;
    f->dst = (uint8_t)dst;
    f->len = (uint16_t)len;
    f->corrupt = false;
    __builtin_memcpy(f->data, data, len);
}

unsigned cairn_simbus_wire_count(void)
{
    return bus.wires;
}

const struct cairn_simbus_wire *cairn_simbus_wire(unsigned i)
{
    return i < bus.wires ? &bus.wire[i] : 0;
}

/* ---- the selected module's controller (cairn/bus.h) ---------------------------------- */

bool cairn_bus_init(void)
{
    struct module *m = cur();
    if (bus.modules == 0)
        return false;
    m->enabled = true;
    m->txdone = false;
    m->err = 0;
    m->boots = m->boots == 255u ? 1u : (uint8_t)(m->boots + 1u);
    return true;
}

uint8_t cairn_bus_boot_epoch(void)
{
    return cur()->boots;
}

void cairn_simbus_lose_retained(unsigned m, uint8_t byte)
{
    if (m < CAIRN_SIMBUS_MODULES)
        __builtin_memset(bus.m[m].retained, byte, sizeof bus.m[m].retained);
}

void *cairn_bus_retained(unsigned *len)
{
    *len = sizeof cur()->retained;
    return cur()->retained;
}

uint8_t cairn_bus_address(void)
{
    return (uint8_t)bus.selected;
}

uint8_t cairn_bus_modules(void)
{
    return (uint8_t)bus.modules;
}

bool cairn_bus_tx_idle(void)
{
    return cur()->tx.n == 0;
}

void cairn_bus_tx(uint8_t dst, const uint8_t *hdr, unsigned hdr_len, const void *payload,
                  unsigned len)
{
    struct module *m = cur();
    if (hdr_len + len > CAIRN_NET_MAX_FRAME) {
        m->err |= ERR_TOO_LONG;
        return;
    }
    if ((dst >= bus.modules && dst != CAIRN_NET_BROADCAST) || dst == bus.selected ||
        m->tx.n >= CAIRN_SIMBUS_FIFO) {
        m->err |= ERR_BAD_DEST;
        return;
    }
    struct frame *f = fifo_push(&m->tx);
    f->src = (uint8_t)bus.selected;
    f->dst = dst;
    f->len = (uint16_t)(hdr_len + len);
    f->corrupt = false;
    __builtin_memcpy(f->data, hdr, hdr_len);
    if (len)
        __builtin_memcpy(f->data + hdr_len, payload, len);
}

void cairn_simbus_watch_next(uint32_t busy)
{
    bus.watch_set = true;
    bus.watch_busy = busy;
}

/* The watch sees the frame still queued, and the TX done interrupt does the rest, unless
 * cairn_simbus_watch_next said otherwise. */
uint64_t cairn_bus_tx_stamped(uint8_t dst, const uint8_t *hdr, unsigned hdr_len,
                              const void *payload, unsigned len, uint64_t (*stamp)(void),
                              cairn_bus_watch_t *watch)
{
    uint8_t buf[CAIRN_NET_MAX_FRAME];
    unsigned n = len > sizeof buf - 8 ? (unsigned)sizeof buf - 8 : len;
    if (n)
        __builtin_memcpy(buf, payload, n);
    uint64_t t = stamp();
    for (unsigned i = 0; i < 8; i++)
        buf[n + i] = (uint8_t)(t >> (8 * i));
    cairn_bus_tx(dst, hdr, hdr_len, buf, n + 8);
    watch->busy = watch->turns;
    if (bus.watch_set && bus.watch_busy < watch->turns) {
        bus.watch_set = false;
        host_timer_advance(bus.watch_busy);
        cairn_simbus_step();
        watch->busy = bus.watch_busy;
        watch->hw = arch_timer_now();
    }
    return t;
}

void cairn_simbus_rtc(unsigned m, int32_t ppb, uint32_t hz, uint32_t start_ticks)
{
    if (m < bus.modules && hz) {
        bus.m[m].rtc_ppb = ppb;
        bus.m[m].rtc_hz = hz;
        bus.m[m].rtc_start = start_ticks;
    }
}

uint32_t cairn_bus_rtc(void)
{
    const struct module *m = cur();
    host_timer_advance(1);
    unsigned __int128 t = (unsigned __int128)arch_timer_now() * 32768u *
                          (uint64_t)(1000000000 + (int64_t)m->rtc_ppb);
    return m->rtc_start + (uint32_t)(t / ((uint64_t)m->rtc_hz * 1000000000u));
}

uint32_t cairn_bus_rtc_edge(uint32_t *hw)
{
    uint32_t n0 = cairn_bus_rtc(), n;
    while ((n = cairn_bus_rtc()) == n0)
        ;
    *hw = arch_timer_now();
    return n;
}

int cairn_bus_rx_head(uint8_t *src, bool *corrupt)
{
    struct module *m = cur();
    if (!m->rx.n)
        return -1;
    const struct frame *f = fifo_head(&m->rx);
    *src = f->src;
    *corrupt = f->corrupt;
    return f->len;
}

unsigned cairn_bus_rx_count(void)
{
    return cur()->rx.n;
}

int cairn_bus_rx_single(uint32_t *head, unsigned max_len)
{
    uint8_t src;
    bool corrupt;
    int len = cairn_bus_rx_head(&src, &corrupt);
    if (cairn_bus_rx_count() != 1 || corrupt ||
        (unsigned)len - CAIRN_NET_HEADER > max_len - CAIRN_NET_HEADER)
        return -1;
    cairn_bus_rx_read(head, CAIRN_NET_HEADER);
    return len | src << 16;
}

void cairn_bus_rx_words_pop(void *buf, unsigned len)
{
    cairn_bus_rx_read(buf, (len + 3u) & ~3u);
    cairn_bus_rx_pop();
}

void cairn_bus_tx_sub(uint8_t dst, const uint32_t *head, const uint32_t *sub, unsigned sub_words,
                      const void *payload, unsigned len)
{
    uint8_t b[CAIRN_NET_HEADER + CAIRN_NET_MAX_PAYLOAD];
    if (sub_words > CAIRN_NET_MAX_PAYLOAD / 4u) { /* a first STATE part's head: up to a part */
        cur()->err |= ERR_TOO_LONG;
        return;
    }
    __builtin_memcpy(b, head, CAIRN_NET_HEADER);
    __builtin_memcpy(b + CAIRN_NET_HEADER, sub, 4u * sub_words);
    cairn_bus_tx(dst, b, CAIRN_NET_HEADER + 4u * sub_words, payload, len);
}

bool cairn_bus_tx_if_idle(uint8_t dst, const uint32_t *head, const void *payload, unsigned len)
{
    if (!cairn_bus_tx_idle())
        return false;
    cairn_bus_tx(dst, (const uint8_t *)head, CAIRN_NET_HEADER, payload, len);
    return true;
}

void cairn_bus_rx_read(void *buf, unsigned len)
{
    struct module *m = cur();
    uint8_t *p = buf;
    const struct frame *f = m->rx.n ? fifo_head(&m->rx) : 0;
    for (unsigned i = 0; i < len; i++, m->rx_read++)
        p[i] = f && m->rx_read < f->len ? f->data[m->rx_read] : 0; /* zero past the end */
}

void cairn_bus_rx_pop(void)
{
    struct module *m = cur();
    if (m->rx.n)
        fifo_pop(&m->rx);
    m->rx_read = 0;
}

uint32_t cairn_bus_errors(void)
{
    uint32_t e = cur()->err;
    cur()->err = 0;
    return e;
}

void cairn_bus_tx_ack(void)
{
    cur()->txdone = false;
}

void cairn_bus_serviced(void)
{
    arch_irq_unmask(IRQ_RX);
    arch_irq_unmask(IRQ_TXDONE);
    arch_irq_unmask(IRQ_ERR);
}

void cairn_bus_power(uint8_t module, bool on)
{
    if (module < bus.modules)
        bus.m[module].powered = on; /* a power frame: instantaneous here */
}
