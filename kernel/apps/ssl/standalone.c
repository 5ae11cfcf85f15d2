/*
 * SSL + FBD without an OS, for the overhead comparison of the CoMOS paper's Tables II and
 * V: the same computations (dsp*.c) on the same scenarios and marker pins as the Cairn OS
 * tasks (ssl.h), with the timer and ADC interrupts handled in their interrupt handlers,
 * static buffers and no dynamic memory, in one file (the paper's "standalone image").
 * The round's work runs in main; FBD's short chain runs in its timer's interrupt handler,
 * which preempts it.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cairn_io.h"
#include "nvic.h"
#include "uart.h"

#include "dsp.h"

/* The pins, lines and port of ssl.h, which needs the kernel's headers. */
#define PIN_ROUND 0u
#define PIN_SC_DONE(ch) (1u + (unsigned)(ch))
#define PIN_HT_DONE 5u
#define PIN_FBD_DONE 6u
#define PIN_FFT_BUSY 7u
#define SSL_ROUND_PINS 0x3Fu
#define LINE_ROUND 0u
#define LINE_TEMP 1u
#define TEMP_PORT 0u

static int16_t x[DSP_MICS][DSP_N];
static int16_t im[DSP_N];
static uint32_t noise[DSP_MICS][DSP_BINS];
static struct dsp_band bands[DSP_MICS];
static volatile unsigned filled;
static volatile bool round_ready;
static unsigned nchan;
static uint16_t round_no;
static uint32_t avg_x16;
static bool primed, alerted;

void irq18_handler(void)
{
    CAIRN_GPIO_CLR = SSL_ROUND_PINS;
    CAIRN_GPIO_SET = 1u << PIN_ROUND;
    CAIRN_STIM_CLEAR = 1u << LINE_ROUND;
    round_no++;
    filled = 0;
    CAIRN_ADC_CLEAR = CAIRN_ADC_STATUS_READY | CAIRN_ADC_STATUS_OVERRUN;
    CAIRN_ADC_CTRL = CAIRN_ADC_CTRL_PERIODIC | CAIRN_ADC_CTRL_IRQEN;
}

void irq17_handler(void)
{
    CAIRN_ADC_CLEAR = CAIRN_ADC_STATUS_READY | CAIRN_ADC_STATUS_OVERRUN;
    unsigned n = filled;
    for (unsigned c = 0; c < DSP_MICS; c++)
        x[c][n] = (int16_t)(((int32_t)CAIRN_ADC_DATA(c % nchan) - 2048) * 8);
    if (++n == DSP_N) {
        CAIRN_ADC_CTRL = 0;
        round_ready = true;
    }
    filled = n;
}

void irq19_handler(void)
{
    CAIRN_GPIO_CLR = 1u << PIN_FBD_DONE;
    CAIRN_STIM_CLEAR = 1u << LINE_TEMP;
    uint32_t reading = CAIRN_PORT_IN(TEMP_PORT);
    avg_x16 = primed ? dsp_ewma(avg_x16, reading) : reading * 16u;
    primed = true;
    if (avg_x16 > DSP_FIRE_X16 && !alerted) {
        alerted = true;
        uart_puts("radio fire alert, average ");
        uart_put_udec(avg_x16 / 16u);
        uart_putc('\n');
    }
    CAIRN_GPIO_SET = 1u << PIN_FBD_DONE;
}

static void process_round(void)
{
    unsigned voices = 0;
    for (unsigned c = 0; c < DSP_MICS; c++) {
        CAIRN_GPIO_SET = 1u << PIN_FFT_BUSY;
        for (unsigned i = 0; i < DSP_N; i++)
            im[i] = 0;
        dsp_fft(x[c], im);
        CAIRN_GPIO_CLR = 1u << PIN_FFT_BUSY;
        if (dsp_sc(x[c], im, noise[c])) {
            dsp_band_copy(&bands[c], x[c], im);
            voices++;
        }
        CAIRN_GPIO_SET = 1u << PIN_SC_DONE(c);
    }
    if (voices <= 2u)
        return;
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

int main(void)
{
    nchan = CAIRN_ADC_NCHAN ? CAIRN_ADC_NCHAN : 1u;
    nvic_set_priority(CAIRN_IRQ_STIM(LINE_TEMP), NVIC_PRIO_HIGH);
    nvic_enable(CAIRN_IRQ_STIM(LINE_ROUND));
    nvic_enable(CAIRN_IRQ_STIM(LINE_TEMP));
    nvic_enable(CAIRN_IRQ_ADC);
    uart_puts("ssl ready\n");
    for (;;) {
        __asm volatile("cpsid i" ::: "memory");
        if (!round_ready)
            __asm volatile("wfi" ::: "memory");
        __asm volatile("cpsie i" ::: "memory");
        if (round_ready) {
            round_ready = false;
            process_round();
        }
    }
}
