/*
 * SSL on five modules without an OS, for Table V's standalone column: the same
 * computations (dsp*.c) and marker pins as the Cairn OS tasks on ssl-five.elf's placement,
 * each module's role chosen by its bus address, frames sent and received by hand with the
 * device tests' bus driver (kernel/tests/device/support/bus.h), static buffers.
 *   address 0, the compute module: the round's timer interrupt broadcasts the round's start;
 *     main collects the four verdicts, runs HT on a voice heard by more than two.
 *   address 1 + i, microphone i's module: a start frame begins a round of DSP_N samples of
 *     its ADC's channel 0 in the ADC interrupt; main then runs FFT and SC and sends the
 *     verdict (with the band when it is a voice) to the compute module.
 * FBD is left out: Table V measures SSL only.
 */
#include <stdbool.h>
#include <stdint.h>

#include "bus.h"
#include "cairn_io.h"
#include "nvic.h"
#include "uart.h"

#include "dsp.h"

#define PIN_ROUND 0u
#define PIN_SC_DONE(ch) (1u + (unsigned)(ch))
#define PIN_HT_DONE 5u
#define PIN_FFT_BUSY 7u
#define SSL_ROUND_PINS 0x3Fu
#define LINE_ROUND 0u
#define COMPUTE 0u

struct verdict {
    uint16_t round;
    uint8_t channel;
    uint8_t voice;
    struct dsp_band band;
};
#define VERDICT_HEADER 4u

static unsigned self;
static uint16_t round_no;

/* ---- the compute module ---------------------------------------------------------------- */

static struct dsp_band bands[DSP_MICS];

void irq18_handler(void)
{
    CAIRN_GPIO_CLR = SSL_ROUND_PINS;
    CAIRN_GPIO_SET = 1u << PIN_ROUND;
    CAIRN_STIM_CLEAR = 1u << LINE_ROUND;
    round_no++;
    bus_send(CAIRN_BUS_BROADCAST, &round_no, sizeof round_no);
}

__attribute__((noreturn)) static void compute(void)
{
    nvic_enable(CAIRN_IRQ_STIM(LINE_ROUND));
    for (;;) {
        unsigned heard = 0, voices = 0;
        while (heard < DSP_MICS) {
            struct verdict v;
            int len = bus_recv_wait(0, &v, sizeof v);
            if (len < (int)VERDICT_HEADER)
                continue;
            heard++;
            if (v.voice && len == (int)sizeof v && v.channel < DSP_MICS) {
                bands[v.channel] = v.band;
                voices++;
            }
        }
        if (voices <= 2u)
            continue;
        unsigned d = dsp_ht(bands);
        CAIRN_GPIO_SET = 1u << PIN_HT_DONE;
        uart_puts("ht round ");
        uart_put_udec(round_no);
        uart_puts(" direction ");
        uart_put_udec(d);
        uart_puts(" of ");
        uart_put_udec(DSP_DIRS);
        uart_putc('\n');
    }
}

/* ---- a microphone's module ------------------------------------------------------------- */

static int16_t x[DSP_N], im[DSP_N];
static uint32_t noise[DSP_BINS];
static volatile unsigned filled;
static volatile bool round_ready;

void irq17_handler(void)
{
    CAIRN_ADC_CLEAR = CAIRN_ADC_STATUS_READY | CAIRN_ADC_STATUS_OVERRUN;
    unsigned n = filled;
    x[n] = (int16_t)(((int32_t)CAIRN_ADC_DATA(0) - 2048) * 8);
    if (++n == DSP_N) {
        CAIRN_ADC_CTRL = 0;
        round_ready = true;
    }
    filled = n;
}

__attribute__((noreturn)) static void microphone(unsigned channel)
{
    static struct verdict v;
    nvic_enable(CAIRN_IRQ_ADC);
    for (;;) {
        uint16_t start;
        if (bus_recv_wait(0, &start, sizeof start) != (int)sizeof start)
            continue;
        CAIRN_GPIO_CLR = 1u << PIN_SC_DONE(channel);
        filled = 0;
        round_ready = false;
        CAIRN_ADC_CLEAR = CAIRN_ADC_STATUS_READY | CAIRN_ADC_STATUS_OVERRUN;
        CAIRN_ADC_CTRL = CAIRN_ADC_CTRL_PERIODIC | CAIRN_ADC_CTRL_IRQEN;
        for (;;) {
            __asm volatile("cpsid i" ::: "memory");
            if (round_ready)
                break;
            __asm volatile("wfi\n\tcpsie i" ::: "memory");
        }
        __asm volatile("cpsie i" ::: "memory");
        CAIRN_GPIO_SET = 1u << PIN_FFT_BUSY;
        for (unsigned i = 0; i < DSP_N; i++)
            im[i] = 0;
        dsp_fft(x, im);
        CAIRN_GPIO_CLR = 1u << PIN_FFT_BUSY;
        v.round = start;
        v.channel = (uint8_t)channel;
        v.voice = dsp_sc(x, im, noise);
        if (v.voice)
            dsp_band_copy(&v.band, x, im);
        CAIRN_GPIO_SET = 1u << PIN_SC_DONE(channel);
        bus_send(COMPUTE, &v, v.voice ? sizeof v : VERDICT_HEADER);
    }
}

int main(void)
{
    int addr = bus_start();
    if (addr < 0)
        return 1;
    self = (unsigned)addr;
    uart_puts("ssl ready\n");
    if (self == COMPUTE)
        compute();
    microphone(self - 1u);
}
