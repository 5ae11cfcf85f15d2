/*
 * SSL + FBD on Cairn OS: the one application description (the CoMOS paper, Figure 4)
 * and main. Every module of a device runs this ELF and starts this description; the
 * placement (.module of each task) is all that differs between
 *
 *   build/fw/ssl-one.elf   every task on module 0 (Table II's one module), and
 *   build/fw/ssl-five.elf  (-DSSL_FIVE=1) our reading of Figure 8 on five modules: module 0
 *                          the fast computational module (Timer, Vote, HT); module 1 + i
 *                          the sensing module of microphone i (its ADC, FFT and SC);
 *                          Radio on module 1, the temperature chain on module 2.
 *
 * The scenarios (experiments/e4-comos/) drive the round's timer (stimulus line 0, every
 * round), FBD's 4 Hz timer (line 1), the microphones (ADC channels) and the temperature
 * sensor (input port 0); the marker pins of ssl.h time the round and the FBD chain.
 * Prints "ssl ready" when started and runs until the scenario's time limit.
 */
#include <stdint.h>

#include "cairn/app.h"
#include "cairn/irq.h"
#include "cairn/mem.h"
#include "cairn/net.h"
#include "cairn/sched.h"
#include "cairn/timer.h"

#include "cairn_armv6m.h"
#include "cairn_io.h"
#include "nvic.h"
#include "uart.h"

#include "../support/app_boot.h"
#include "../support/app_fail.h"
#include "ssl.h"

#if SSL_FIVE
#define AT_COMPUTE 0
#define AT_MIC(i) (1 + (i))
#define AT_RADIO 1
#define AT_TEMP 2
#else
#define AT_COMPUTE 0
#define AT_MIC(i) 0
#define AT_RADIO 0
#define AT_TEMP 0
#endif

enum { P_TIMER, P_ADC, P_FFT, P_SC, P_VOTE, P_HT, P_TEMP, P_EWMA, P_ALERT, P_RADIO };

static const cairn_program_t programs[] = {
    [P_TIMER] = CAIRN_PROGRAM(ssl_timer_task, struct ssl_timer_state),
    [P_ADC] = CAIRN_PROGRAM(ssl_adc_task, struct ssl_adc_state),
    [P_FFT] = CAIRN_PROGRAM_STATELESS(ssl_fft_task),
    [P_SC] = CAIRN_PROGRAM(ssl_sc_task, struct ssl_sc_state),
    [P_VOTE] = CAIRN_PROGRAM(ssl_vote_task, struct ssl_vote_state),
    [P_HT] = CAIRN_PROGRAM_STATELESS(ssl_ht_task),
    [P_TEMP] = CAIRN_PROGRAM_STATELESS(fbd_temp_task),
    [P_EWMA] = CAIRN_PROGRAM(fbd_ewma_task, struct fbd_ewma_state),
    [P_ALERT] = CAIRN_PROGRAM(fbd_alert_task, struct fbd_alert_state),
    [P_RADIO] = CAIRN_PROGRAM_STATELESS(ssl_radio_task),
};

static const uint8_t channel[DSP_MICS] = {0, 1, 2, 3};
static const cairn_app_route_t timer_out[] = {CAIRN_TO_GROUP(0)};
static const cairn_app_route_t adc_out[DSP_MICS][1] = {
    {CAIRN_TO(T_FFT0, CAIRN_PORT(0))}, {CAIRN_TO(T_FFT1, CAIRN_PORT(0))},
    {CAIRN_TO(T_FFT2, CAIRN_PORT(0))}, {CAIRN_TO(T_FFT3, CAIRN_PORT(0))}};
static const cairn_app_route_t fft_out[DSP_MICS][1] = {
    {CAIRN_TO(T_SC0, CAIRN_PORT(0))}, {CAIRN_TO(T_SC1, CAIRN_PORT(0))},
    {CAIRN_TO(T_SC2, CAIRN_PORT(0))}, {CAIRN_TO(T_SC3, CAIRN_PORT(0))}};
static const cairn_app_route_t sc_out[] = {CAIRN_TO(T_VOTE, CAIRN_PORT(0))};
static const cairn_app_route_t vote_out[] = {CAIRN_TO(T_HT, CAIRN_PORT(0))};
static const cairn_app_route_t temp_out[] = {CAIRN_TO(T_EWMA, CAIRN_PORT(0))};
static const cairn_app_route_t ewma_out[] = {CAIRN_TO(T_ALERT, CAIRN_PORT(0))};
static const cairn_app_route_t alert_out[] = {CAIRN_TO(T_RADIO, CAIRN_PORT(0))};

#define ADC(i) [T_ADC0 + (i)] = {.prog = P_ADC, .prio = PRIO_SSL, .module = AT_MIC(i), \
    CAIRN_OUT(adc_out[i]), .init = &channel[i], .init_len = 1}
#define FFT(i) [T_FFT0 + (i)] = {.prog = P_FFT, .prio = PRIO_SSL, .module = AT_MIC(i), CAIRN_OUT(fft_out[i])}
#define SC(i) [T_SC0 + (i)] = {.prog = P_SC, .prio = PRIO_SSL, .module = AT_MIC(i), CAIRN_OUT(sc_out)}

static const cairn_task_desc_t tasks[T_COUNT] = {
    [T_TIMER] = {.prog = P_TIMER, .prio = PRIO_SSL, .module = AT_COMPUTE, CAIRN_OUT(timer_out)},
    FFT(0), FFT(1), FFT(2), FFT(3),
    SC(0), SC(1), SC(2), SC(3),
    [T_VOTE] = {.prog = P_VOTE, .prio = PRIO_SSL, .module = AT_COMPUTE, CAIRN_OUT(vote_out)},
    [T_HT] = {.prog = P_HT, .prio = PRIO_SSL, .module = AT_COMPUTE},
    [T_TEMP] = {.prog = P_TEMP, .prio = PRIO_FBD, .module = AT_TEMP, CAIRN_OUT(temp_out)},
    [T_EWMA] = {.prog = P_EWMA, .prio = PRIO_FBD, .module = AT_TEMP, CAIRN_OUT(ewma_out)},
    [T_ALERT] = {.prog = P_ALERT, .prio = PRIO_FBD, .module = AT_TEMP, CAIRN_OUT(alert_out)},
    [T_RADIO] = {.prog = P_RADIO, .prio = PRIO_RADIO, .module = AT_RADIO},
    ADC(0), ADC(1), ADC(2), ADC(3),
};
static const cairn_member_desc_t members[] = {
    {.group = 0, .task = T_ADC0, .port = CAIRN_PORT(0)},
    {.group = 0, .task = T_ADC1, .port = CAIRN_PORT(0)},
    {.group = 0, .task = T_ADC2, .port = CAIRN_PORT(0)},
    {.group = 0, .task = T_ADC3, .port = CAIRN_PORT(0)},
};
static const cairn_app_desc_t ssl_app = {
    CAIRN_PROGRAMS(programs), CAIRN_TASKS(tasks), .num_groups = 1, CAIRN_MEMBERS(members),
};

CAIRN_IRQ_MESSAGE(irq18_handler, CAIRN_IRQ_STIM(LINE_ROUND), SSL_ID(T_TIMER), CAIRN_PORT(0))
CAIRN_IRQ_MESSAGE(irq19_handler, CAIRN_IRQ_STIM(LINE_TEMP), SSL_ID(T_TEMP), CAIRN_PORT(0))

cairn_ret_t ssl_send_copy(const void *p, uint16_t len)
{
    uint8_t *c = cairn_malloc(len);
    if (!c)
        return CAIRN_ENOMEM;
    for (uint16_t i = 0; i < len; i++)
        c[i] = ((const uint8_t *)p)[i];
    return cairn_send(0, c, len);
}

static uint64_t heap[SSL_HEAP_BYTES / 8u];

int main(void)
{
    cairn_ret_t net = app_boot(heap, sizeof heap);
    if (net != CAIRN_OK && net != CAIRN_ENOROUTE)
        return app_fail("cairn_net_init", net);
    uint8_t self = net == CAIRN_OK ? cairn_net_address() : 0u;
    cairn_task_id_t ids[T_COUNT];
    cairn_ret_t r = cairn_app_start(&ssl_app, ids);
    if (r != CAIRN_OK)
        return app_fail("cairn_app_start", r);
    for (unsigned t = 0; t < T_COUNT; t++)
        if (ids[t] != SSL_ID(t))
            return app_fail("task ids", CAIRN_EINVAL);
    if (net == CAIRN_OK && (r = cairn_net_start()) != CAIRN_OK)
        return app_fail("cairn_net_start", r);
    if (tasks[T_TIMER].module == self)
        nvic_enable(CAIRN_IRQ_STIM(LINE_ROUND));
    if (tasks[T_TEMP].module == self)
        nvic_enable(CAIRN_IRQ_STIM(LINE_TEMP));
    uart_puts("ssl ready\n");
    cairn_run();
}
