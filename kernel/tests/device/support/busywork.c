/*
 * Benchmark workload of the device firmware. See busywork.h.
 */
#include "busywork.h"

#include "bus.h"
#include "cpu.h"
#include "nvic.h"
#include "systick.h"
#include "uart.h"

#define WORDS 64u

static uint32_t table[WORDS];
static uint32_t lcg = 0x2545F491u;
static uint32_t sum;
volatile uint32_t busywork_sink; /* keeps the work observable */

static volatile uint32_t received;
static volatile uint32_t rx_bad;

/* Cycle counter from SysTick (24 bits, down-counting), extended to 32 bits: called at
 * least once per 2^24 cycles. */
static uint32_t cyc_last, cyc_total;

static void cyc_start(void)
{
    SYST_CSR = 0;
    SYST_RVR = SYST_MAX_RELOAD;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_CLKSOURCE;
    cyc_last = SYST_CVR;
    cyc_total = 0;
}

static uint32_t cyc_now(void)
{
    uint32_t now = SYST_CVR;
    cyc_total += (cyc_last - now) & SYST_MAX_RELOAD;
    cyc_last = now;
    return cyc_total;
}

/* One step of work: an LCG picks table words, which are shifted through a CRC-32
 * polynomial, mixed and summed: loads, stores, ALU and data-dependent branches. */
static void work_chunk(void)
{
    uint32_t x = lcg, s = sum;
    for (unsigned i = 0; i < 8; i++) {
        x = x * 1664525u + 1013904223u;
        unsigned k = x >> 26;
        uint32_t v = table[k];
        if (v & 1u)
            v = (v >> 1) ^ 0xEDB88320u;
        else
            v >>= 1;
        table[k] = v ^ x;
        s += v;
    }
    lcg = x;
    sum = s;
}

/* RX interrupt: pop every waiting frame, which takes the level line down. */
static void rx_frames(void)
{
    uint32_t w[2];
    uint8_t src;
    int n;
    while ((n = bus_try_recv(&src, w, sizeof w)) >= 0) {
        received++;
        if (n != (int)sizeof w || w[0] != src)
            rx_bad++;
    }
}

int busywork_run(uint32_t period_cycles, uint32_t run_cycles)
{
    unsigned addr = bus_address();
    unsigned modules = bus_modules();
    unsigned dest = modules ? (addr + 1u) % modules : addr;
    uint32_t sent = 0;

    for (unsigned i = 0; i < WORDS; i++)
        table[i] = i * 0x9E3779B9u;
    bus_set_rx_handler(rx_frames);
    bus_rx_irq_enable();
    cyc_start();

    uint32_t next = period_cycles;
    uint32_t now = 0;
    while (now < run_cycles) {
        work_chunk();
        now = cyc_now();
        if (period_cycles != 0 && now >= next) {
            if (CAIRN_BUS_STATUS & CAIRN_BUS_STATUS_TX_READY) {
                uint32_t frame[2] = {addr, sent};
                bus_send(dest, frame, sizeof frame);
                sent++;
            }
            next += period_cycles;
            if (next <= now)
                next = now + period_cycles;
        }
    }

    CAIRN_BUS_IRQ_EN &= ~CAIRN_BUS_IRQ_RX;
    nvic_disable(CAIRN_IRQ_BUS_RX);
    cpu_sync();
    busywork_sink = sum;

    uart_puts("busy m");
    uart_put_udec(addr);
    uart_puts(" sent ");
    uart_put_udec(sent);
    uart_puts(" received ");
    uart_put_udec(received);
    uart_puts("\n");
    if (rx_bad != 0) {
        uart_puts("FAIL busy m");
        uart_put_udec(addr);
        uart_puts(" bad frames ");
        uart_put_udec(rx_bad);
        uart_puts("\n");
        return 1;
    }
    return 0;
}
