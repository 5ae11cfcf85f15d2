/*
 * Cairn OS bus driver for mps2-an385's cairn-bus-ctrl (cairn_bus.h; registers and
 * timing in docs/device.md): what the bus manager (kernel/core/net/) takes from a board,
 * cairn/bus.h. Kernel firmware that talks to other modules links it (kernel/firmware.mk,
 * FW_NET_OBJS); it is not part of the plain board support because it owns vectors 24-26.
 *
 * The controller's three interrupts (RX: a frame waits, level; TX done: latched until
 * cleared; error: level while ERR is not zero) are bound to the bus manager task as
 * level-sensitive messages (cairn/irq.h): each masks its line, and cairn_bus_serviced()
 * unmasks them once the bus manager has served the controller. RX and TX done first go to
 * the bus manager's fast paths, which take the common case without the bus manager's message
 * (kernel/arch/armv6m/net/net_fast.c).
 */
#include "cairn/arch_timer.h"
#include "cairn/bus.h"
#include "cairn/irq.h"
#include "cairn/net.h"

#include "cairn_bus.h"
#include "nvic.h"

/* RX goes to the bus manager's fast path, which takes the common frame into its task's
 * handler itself (kernel/arch/armv6m/net/net_fast.c) and otherwise goes on as the others'
 * binding, which it loads only then (cairn/bus.h). */
cairn_irq_binding_t cairn_bus_rx_binding __attribute__((used, section("cairn_irq_bindings"))) =
    CAIRN_IRQ_BINDING_INIT(CAIRN_IRQ_BUS_RX, CAIRN_TASK_NET, CAIRN_NET_PORT_SERVICE, 1);
void irq24_handler(void);
void cairn__net_rx_vector(void);
__attribute__((naked, section(".text.cairn_fast.irq24_handler"))) void irq24_handler(void)
{
    __asm__ volatile("b    cairn__net_rx_vector\n\t");
}
/* TX done goes to the bus manager's fast path too, which clears the latch when nothing is
 * buffered and otherwise goes on as this binding's vector. */
cairn_irq_binding_t cairn_bus_txdone_binding __attribute__((used, section("cairn_irq_bindings"))) =
    CAIRN_IRQ_BINDING_INIT(CAIRN_IRQ_BUS_TXDONE, CAIRN_TASK_NET, CAIRN_NET_PORT_SERVICE, 1);
void irq25_handler(void);
void cairn__net_txdone_vector(void);
__attribute__((naked, section(".text.cairn_fast.irq25_handler"))) void irq25_handler(void)
{
    __asm__ volatile("b    cairn__net_txdone_vector\n\t");
}
CAIRN_IRQ_MESSAGE(irq26_handler, CAIRN_IRQ_BUS_ERR, CAIRN_TASK_NET, CAIRN_NET_PORT_SERVICE)

#define LINES                                                                                     \
    (1u << CAIRN_IRQ_BUS_RX | 1u << CAIRN_IRQ_BUS_TXDONE | 1u << CAIRN_IRQ_BUS_ERR)

_Static_assert(CAIRN_NET_BROADCAST == CAIRN_BUS_BROADCAST, "broadcast address");
_Static_assert(CAIRN_NET_HEADER == 10u, "the fast paths move the header as two words and a halfword");

/* From this many bytes a FIFO copy takes four words a turn. */
#define LONG_FRAME 64u

/* The boot counter lives in SRAM the reset handler does not clear: a reset and a power-on
 * from the bus keep it (cairn-sim keeps SRAM; so does a real part across a reset). A
 * counter that is not valid (first power-up, or SRAM lost) starts from the RTC, which runs
 * whatever the module's power, so that it differs from the lost one but for bad luck. */
#define EPOCH_VALID 0xCA1E0000u

static uint32_t boot_record __attribute__((section(".noinit")));
static uint8_t boot_epoch;

static void count_boot(void)
{
    uint32_t r = boot_record;
    uint8_t e = (r & 0xFFFF0000u) == EPOCH_VALID && (r & 0xFFu) == ((~r >> 8) & 0xFFu)
                    ? (uint8_t)r
                    : (uint8_t)cairn_bus_rtc();
    e = e == 255u ? 1u : (uint8_t)(e + 1u);
    boot_record = EPOCH_VALID | (uint32_t)(uint8_t)~e << 8 | e;
    boot_epoch = e;
}

uint8_t cairn_bus_boot_epoch(void)
{
    return boot_epoch;
}

/* Beside the boot counter, kept as it is. */
static uint32_t retained[10] __attribute__((section(".noinit")));

void *cairn_bus_retained(unsigned *len)
{
    *len = sizeof retained;
    return retained;
}

bool cairn_bus_init(void)
{
    count_boot();
    CAIRN_BUS_IRQ_EN = 0;
    NVIC_ICER = LINES;
    NVIC_ICPR = LINES;
    if (!(CAIRN_BUS_ID & CAIRN_BUS_ID_CONNECTED))
        return false;
    CAIRN_BUS_IRQ_STATUS = CAIRN_BUS_IRQ_TXDONE;
    CAIRN_BUS_ERR = CAIRN_BUS_ERR_TX_FULL | CAIRN_BUS_ERR_TOO_LONG | CAIRN_BUS_ERR_BAD_DEST;
    /* Below the kernel's own timer, like any device a task serves. */
    nvic_set_priority(CAIRN_IRQ_BUS_RX, NVIC_PRIO_LOW);
    nvic_set_priority(CAIRN_IRQ_BUS_TXDONE, NVIC_PRIO_LOW);
    nvic_set_priority(CAIRN_IRQ_BUS_ERR, NVIC_PRIO_LOW);
    CAIRN_BUS_IRQ_EN = CAIRN_BUS_IRQ_RX | CAIRN_BUS_IRQ_TXDONE | CAIRN_BUS_IRQ_ERR;
    NVIC_ISER = LINES;
    return true;
}

uint8_t cairn_bus_address(void)
{
    return (uint8_t)CAIRN_BUS_ID_ADDR(CAIRN_BUS_ID);
}

uint8_t cairn_bus_modules(void)
{
    return (uint8_t)CAIRN_BUS_ID_MODULES(CAIRN_BUS_ID);
}

bool cairn_bus_tx_idle(void)
{
    return (CAIRN_BUS_STATUS & CAIRN_BUS_STATUS_TX_IDLE) != 0;
}

/* LDM and four STRs a turn, for long frames only (a migration's STATE parts, 244 bytes): out
 * of line, so that the short frames' path keeps its registers. */
__attribute__((noinline)) static const uint8_t *put_quads(const uint8_t *p, unsigned quads)
{
    volatile uint32_t *fifo = &CAIRN_BUS_TX_DATA;
    __asm__ volatile("1:\n\t"
                     "ldmia %[p]!, {r3, r4, r5, r6}\n\t"
                     "str r3, [%[f]]\n\t"
                     "str r4, [%[f]]\n\t"
                     "str r5, [%[f]]\n\t"
                     "str r6, [%[f]]\n\t"
                     "subs %[q], %[q], #1\n\t"
                     "bne 1b\n\t"
                     : [p] "+l"(p), [q] "+l"(quads)
                     : [f] "l"(fifo)
                     : "r3", "r4", "r5", "r6", "cc", "memory");
    return p;
}

/* Whole words with STR (the controller appends the 4 bytes little-endian), the rest with
 * STRB. A word-aligned source (the bus manager's header, most payloads) is copied with
 * LDR/STR; any other is assembled byte by byte. One pass: this is every remote send's. */
static void put(const uint8_t *p, unsigned len)
{
    const uint8_t *end = p + len;
    if (((uintptr_t)p & 3u) == 0) {
        if (len >= LONG_FRAME)
            p = put_quads(p, len / 16u);
        for (; end - p >= 4; p += 4)
            CAIRN_BUS_TX_DATA = *(const uint32_t *)(const void *)p;
    } else {
        for (; end - p >= 4; p += 4)
            CAIRN_BUS_TX_DATA = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                (uint32_t)p[3] << 24;
    }
    while (p != end)
        CAIRN_BUS_TX_DATA8 = *p++;
}

bool cairn_bus_tx_if_idle(uint8_t dst, const uint32_t *head, const void *payload, unsigned len)
{
    if (!(CAIRN_BUS_STATUS & CAIRN_BUS_STATUS_TX_IDLE))
        return false;
    CAIRN_BUS_TX_DEST = dst;
    CAIRN_BUS_TX_DATA = head[0];
    CAIRN_BUS_TX_DATA = head[1];
    *(volatile uint16_t *)&CAIRN_BUS_TX_DATA = (uint16_t)head[2];
    const uint8_t *p = payload;
    if (((uintptr_t)p & 3u) || len >= LONG_FRAME) {
        put(p, len);
    } else { /* a short message's words, without put's choices */
        const uint8_t *end = p + len;
        for (; end - p >= 4; p += 4)
            CAIRN_BUS_TX_DATA = *(const uint32_t *)(const void *)p;
        while (p != end)
            CAIRN_BUS_TX_DATA8 = *p++;
    }
    CAIRN_BUS_TX_SEND = 1u;
    return true;
}

void cairn_bus_tx(uint8_t dst, const uint8_t *hdr, unsigned hdr_len, const void *payload,
                  unsigned len)
{
    CAIRN_BUS_TX_DEST = dst;
    put(hdr, hdr_len);
    put(payload, len);
    CAIRN_BUS_TX_SEND = 1u;
}

void cairn_bus_tx_sub(uint8_t dst, const uint32_t *head, const uint32_t *sub, unsigned sub_words,
                      const void *payload, unsigned len)
{
    CAIRN_BUS_TX_DEST = dst;
    CAIRN_BUS_TX_DATA = head[0];
    CAIRN_BUS_TX_DATA = head[1];
    *(volatile uint16_t *)&CAIRN_BUS_TX_DATA = (uint16_t)head[2];
    while (sub_words--)
        CAIRN_BUS_TX_DATA = *sub++;
    put(payload, len);
    CAIRN_BUS_TX_SEND = 1u;
}

/* The stamp is the last thing computed before TX_SEND: two word stores and the commit
 * follow it, a fixed number of cycles. The watch's first look comes five cycles (and their
 * wait states) after the commit: sooner than the frame can arrive (its transfer time at the
 * least, 0.9 us on the timesync demo's bus) at 8 MHz and above. Its loop is LDR, TST, BNE,
 * ADDS, CMP, BHI: eight cycles a turn, and the arrival half a turn before the LDR that sees
 * it, on average; from that LDR to the counter's read: LDR, TST, BNE taken, two CMPs and
 * branches not taken, BL, and the LDR of the counter's address in arch_timer_now, 14 cycles.
 * The reading less those 18 is the arrival, as the receivers' RX stamp is their wake-up
 * (kernel/arch/armv6m/net/net_fast.c, RX_STAMP_CYCLES). */
#define WATCH_CYCLES 18u
uint64_t cairn_bus_tx_stamped(uint8_t dst, const uint8_t *hdr, unsigned hdr_len,
                              const void *payload, unsigned len, uint64_t (*stamp)(void),
                              cairn_bus_watch_t *watch)
{
    CAIRN_BUS_TX_DEST = dst;
    put(hdr, hdr_len);
    put(payload, len);
    uint64_t t = stamp();
    uint32_t turns = watch->turns, busy = 0;
    CAIRN_BUS_TX_DATA = (uint32_t)t;
    CAIRN_BUS_TX_DATA = (uint32_t)(t >> 32);
    CAIRN_BUS_TX_SEND = 1u;
    while (!(CAIRN_BUS_STATUS & CAIRN_BUS_STATUS_TX_IDLE) && ++busy < turns)
        ;
    if (busy && busy < turns)
        watch->hw = arch_timer_now() - WATCH_CYCLES;
    watch->busy = busy;
    return t;
}

uint32_t cairn_bus_rtc(void)
{
    return CAIRN_RTC_COUNT;
}

/* LDR, CMP, BEQ: five cycles a turn (and a wait state per instruction from flash). */
uint32_t cairn_bus_rtc_edge(uint32_t *hw)
{
    uint32_t n0 = CAIRN_RTC_COUNT, n;
    while ((n = CAIRN_RTC_COUNT) == n0)
        ;
    *hw = arch_timer_now();
    return n;
}

int cairn_bus_rx_head(uint8_t *src, bool *corrupt)
{
    uint32_t st = CAIRN_BUS_STATUS;
    if (!(st & CAIRN_BUS_STATUS_RX_AVAIL))
        return -1;
    *src = (uint8_t)CAIRN_BUS_RX_SRC;
    *corrupt = (st & CAIRN_BUS_STATUS_RX_CORRUPT) != 0;
    return (int)CAIRN_BUS_RX_LEN;
}

unsigned cairn_bus_rx_count(void)
{
    return CAIRN_BUS_RX_COUNT;
}

/* One call for the RX fast path: the registers it needs, in the order it needs them. */
int cairn_bus_rx_single(uint32_t *head, unsigned max_len)
{
    if (CAIRN_BUS_RX_COUNT != 1u || (CAIRN_BUS_STATUS & CAIRN_BUS_STATUS_RX_CORRUPT))
        return -1;
    unsigned len = CAIRN_BUS_RX_LEN;
    if (len - CAIRN_NET_HEADER > max_len - CAIRN_NET_HEADER)
        return -1;
    head[0] = CAIRN_BUS_RX_DATA;
    head[1] = CAIRN_BUS_RX_DATA;
    head[2] = *(volatile uint16_t *)&CAIRN_BUS_RX_DATA;
    return (int)(len | CAIRN_BUS_RX_SRC << 16);
}

void cairn_bus_rx_words_pop(void *buf, unsigned len)
{
    uint32_t *w = buf;
    for (unsigned n = (len + 3u) / 4u; n; n--)
        *w++ = CAIRN_BUS_RX_DATA;
    CAIRN_BUS_RX_POP = 1u;
}

__attribute__((noinline)) static uint8_t *read_quads(uint8_t *p, unsigned quads)
{
    volatile uint32_t *fifo = &CAIRN_BUS_RX_DATA;
    __asm__ volatile("1:\n\t"
                     "ldr r3, [%[f]]\n\t"
                     "ldr r4, [%[f]]\n\t"
                     "ldr r5, [%[f]]\n\t"
                     "ldr r6, [%[f]]\n\t"
                     "stmia %[p]!, {r3, r4, r5, r6}\n\t"
                     "subs %[q], %[q], #1\n\t"
                     "bne 1b\n\t"
                     : [p] "+l"(p), [q] "+l"(quads)
                     : [f] "l"(fifo)
                     : "r3", "r4", "r5", "r6", "cc", "memory");
    return p;
}

/* Into a word-aligned buffer with LDR/STR (four words a turn for a long frame); any other
 * byte by byte from each word. */
void cairn_bus_rx_read(void *buf, unsigned len)
{
    uint8_t *p = buf;
    uint8_t *end = p + len;
    if (((uintptr_t)p & 3u) == 0) {
        if (len >= LONG_FRAME)
            p = read_quads(p, len / 16u);
        for (; end - p >= 4; p += 4)
            *(uint32_t *)(void *)p = CAIRN_BUS_RX_DATA;
    } else {
        for (; end - p >= 4; p += 4) {
            uint32_t w = CAIRN_BUS_RX_DATA;
            p[0] = (uint8_t)w;
            p[1] = (uint8_t)(w >> 8);
            p[2] = (uint8_t)(w >> 16);
            p[3] = (uint8_t)(w >> 24);
        }
    }
    while (p != end)
        *p++ = CAIRN_BUS_RX_DATA8;
}

void cairn_bus_rx_pop(void)
{
    CAIRN_BUS_RX_POP = 1u;
}

uint32_t cairn_bus_errors(void)
{
    uint32_t e = CAIRN_BUS_ERR;
    if (e)
        CAIRN_BUS_ERR = e;
    return e;
}

void cairn_bus_tx_ack(void)
{
    CAIRN_BUS_IRQ_STATUS = CAIRN_BUS_IRQ_TXDONE;
}

/* The pending bits are stale (set while the lines were masked, before the service): cleared,
 * so the lines do not call the bus manager again for nothing. A line still up (a frame came
 * meanwhile) pends its interrupt again at once: the sources are level-sensitive. */
void cairn_bus_serviced(void)
{
    NVIC_ICPR = LINES;
    NVIC_ISER = LINES;
}

void cairn_bus_power(uint8_t module, bool on)
{
    CAIRN_BUS_POWER = module | (on ? CAIRN_BUS_POWER_ON : 0u);
}
