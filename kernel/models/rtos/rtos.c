/*
 * SimBed's benchmark set-up's shared code (rtos.h): parameters, clock and alarm, the
 * P-IPC, FIR, UP, DOWN, ADPCM and G721 jobs, the control loop, AP-IPC and the markers
 * cairn-sim measures.
 */
#include "rtos.h"

#include "g721.h"
#include "ima_adpcm.h"

#include "cairn_io.h"
#include "cmsdk_timer.h"
#include "cpu.h"
#include "nvic.h"
#include "semihost.h"
#include "uart.h"

#define PARAM_PORTS 7u
#define PARAM_MASK ((1u << PARAM_PORTS) - 1u)
#define KIND_MASK 0xFFu
#define RATIO_SHIFT 8u
#define FIR_TAPS 128u
#define CL_TABLE 64u
#define CL_LOOKUPS 16u

struct rtos_params rtos_params;

static const char *model_name;
static uint32_t shared[RTOS_MAX_TASKS]; /* the IPC between a task's two jobs */
static uint32_t hist_at[RTOS_MAX_TASKS];
static uint32_t releases[RTOS_MAX_TASKS]; /* output jobs run */
static uint32_t inputs[RTOS_MAX_TASKS];   /* input jobs run */
/* A task's state for its kind. All tasks run one kind, so the kinds share the memory. */
static union task_state {
    int16_t history[FIR_TAPS];
    struct sampling {
        /* UP: the last two samples read; DOWN: the sums of the even and odd windows of ratio
         * reads, so that a window's output and the next window's first read may run in
         * either order. */
        int32_t held[2];
        uint32_t shift;  /* log2 of the ratio */
    } sampling;
    struct ima_adpcm adpcm;
    struct g721_decoder g721;
} state[RTOS_MAX_TASKS];
static uint32_t cl_table[CL_TABLE];
static uint32_t cl_seed = 0x2545F491u;
static uint32_t cl_runs, apipc_seen, apipc_answered;
static bool ended;

static const int16_t taps[FIR_TAPS] = {
#define T(i) (int16_t)(((i) * 37 % 255) - 127)
    T(0), T(1), T(2), T(3), T(4), T(5), T(6), T(7), T(8), T(9), T(10), T(11), T(12), T(13),
    T(14), T(15), T(16), T(17), T(18), T(19), T(20), T(21), T(22), T(23), T(24), T(25),
    T(26), T(27), T(28), T(29), T(30), T(31), T(32), T(33), T(34), T(35), T(36), T(37),
    T(38), T(39), T(40), T(41), T(42), T(43), T(44), T(45), T(46), T(47), T(48), T(49),
    T(50), T(51), T(52), T(53), T(54), T(55), T(56), T(57), T(58), T(59), T(60), T(61),
    T(62), T(63), T(64), T(65), T(66), T(67), T(68), T(69), T(70), T(71), T(72), T(73),
    T(74), T(75), T(76), T(77), T(78), T(79), T(80), T(81), T(82), T(83), T(84), T(85),
    T(86), T(87), T(88), T(89), T(90), T(91), T(92), T(93), T(94), T(95), T(96), T(97),
    T(98), T(99), T(100), T(101), T(102), T(103), T(104), T(105), T(106), T(107), T(108),
    T(109), T(110), T(111), T(112), T(113), T(114), T(115), T(116), T(117), T(118), T(119),
    T(120), T(121), T(122), T(123), T(124), T(125), T(126), T(127),
#undef T
};

static void refuse(const char *why)
{
    uart_puts("rtos: parameter block: ");
    uart_puts(why);
    uart_puts("\n");
    sh_exit(2);
}

/* The kinds after P-IPC and FIR: their parameter (UP's and DOWN's ratio) and state. */
static void start_kind(void)
{
    uint32_t ratio = rtos_params.kind >> RATIO_SHIFT;
    rtos_params.kind &= KIND_MASK;
    if (rtos_params.kind > RTOS_G721)
        refuse("IN[2] (kind) must be 0 P-IPC, 1 FIR, 2 UP, 3 DOWN, 4 ADPCM or 5 G721");
    bool sampling = rtos_params.kind == RTOS_UP || rtos_params.kind == RTOS_DOWN;
    if (sampling && ratio != 2u && ratio != 4u && ratio != 8u)
        refuse("IN[2] (kind): UP and DOWN add 256 times a ratio of 2, 4 or 8");
    if (!sampling && ratio != 0u)
        refuse("IN[2] (kind): only UP and DOWN take a ratio");
    for (unsigned k = 0; k < rtos_params.tasks; k++) {
        state[k].sampling.shift = ratio == 2u ? 1u : ratio == 4u ? 2u : 3u;
        if (rtos_params.kind == RTOS_G721)
            g721_init(&state[k].g721);
    }
}

void rtos_boot(const char *model)
{
    model_name = model;
    if ((CAIRN_PORT_IN_STATUS & PARAM_MASK) != PARAM_MASK)
        refuse("missing on input ports 0-6 (run with a scenario from experiments/workloads/)");
    rtos_params = (struct rtos_params){.tasks = CAIRN_PORT_IN(0),
                                       .period = CAIRN_PORT_IN(1),
                                       .kind = CAIRN_PORT_IN(2),
                                       .tick_cycles = CAIRN_PORT_IN(3),
                                       .cl_period = CAIRN_PORT_IN(4),
                                       .run_ticks = CAIRN_PORT_IN(5),
                                       .doze = CAIRN_PORT_IN(6)};
    CAIRN_PORT_IN_CLEAR = PARAM_MASK;
    if (rtos_params.tasks == 0u || rtos_params.tasks > RTOS_MAX_TASKS)
        refuse("IN[0] (tasks) must be 1 to 8");
    if (rtos_params.period == 0u || rtos_params.tick_cycles == 0u || rtos_params.run_ticks == 0u)
        refuse("IN[1] (period), IN[3] (cycles per tick) and IN[5] (run) must be > 0");
    if (rtos_params.kind > RTOS_FIR)
        start_kind();
    if (rtos_params.doze > 1u)
        refuse("IN[6] (doze) must be 0 or 1");
    CMSDK_TIMER1->ctrl = 0;
    CMSDK_TIMER1->reload = 0xFFFFFFFFu; /* also loads VALUE: now = 0 */
    CMSDK_TIMER1->ctrl = CMSDK_TIMER_CTRL_EN;
}

uint32_t rtos_now_cycles(void)
{
    return ~CMSDK_TIMER1->value;
}

uint32_t rtos_now_ticks(void)
{
    return rtos_now_cycles() / rtos_params.tick_cycles;
}

void rtos_alarm_at(uint32_t tick)
{
    uint32_t at = tick * rtos_params.tick_cycles;
    uint32_t now = rtos_now_cycles();
    uint32_t wait = (int32_t)(at - now) > 0 ? at - now : 1u;
    CMSDK_TIMER0->ctrl = 0;
    CMSDK_TIMER0->reload = wait; /* also loads VALUE */
    CMSDK_TIMER0->value = wait;
    CMSDK_TIMER0->ctrl = CMSDK_TIMER_CTRL_EN | CMSDK_TIMER_CTRL_IRQEN;
    nvic_enable(RTOS_IRQ_ALARM);
}

void rtos_alarm_every(uint32_t ticks)
{
    uint32_t cycles = ticks * rtos_params.tick_cycles;
    CMSDK_TIMER0->ctrl = 0;
    CMSDK_TIMER0->reload = cycles;
    CMSDK_TIMER0->value = cycles;
    CMSDK_TIMER0->ctrl = CMSDK_TIMER_CTRL_EN | CMSDK_TIMER_CTRL_IRQEN;
    nvic_enable(RTOS_IRQ_ALARM);
}

void rtos_alarm_stop(void)
{
    CMSDK_TIMER0->ctrl = 0;
    CMSDK_TIMER0->intstatus = CMSDK_TIMER_INT;
    nvic_clear_pending(RTOS_IRQ_ALARM);
}

static void report(const char *what, uint32_t v)
{
    uart_puts(what);
    uart_put_udec(v);
}

static void finish(void)
{
    cpu_irq_disable();
    uart_puts("rtos ");
    uart_puts(model_name);
    report(" tasks=", rtos_params.tasks);
    report(" releases=", releases[0]);
    report(" cl_runs=", cl_runs);
    report(" apipc=", apipc_seen);
    report(" answered=", apipc_answered);
    uart_puts("\n");
    rtos_model_report();
    sh_exit(0);
}

static uint32_t fir(unsigned k, int16_t sample)
{
    state[k].history[hist_at[k]] = sample;
    hist_at[k] = (hist_at[k] + 1u) % FIR_TAPS;
    int32_t acc = 0;
    uint32_t at = hist_at[k];
    for (uint32_t i = 0; i < FIR_TAPS; i++) {
        acc += (int32_t)taps[i] * state[k].history[at];
        at = at + 1u == FIR_TAPS ? 0u : at + 1u;
    }
    return (uint32_t)acc;
}

int16_t rtos_signal(uint32_t n)
{
    int32_t noise = (int16_t)((n * 2654435761u) >> 16);
    int32_t envelope = (int32_t)(n & 0x7Fu);
    if (n & 0x80u)
        envelope = 127 - envelope;
    return (int16_t)(CAIRN_PORT_IN(7) + (uint32_t)((noise * envelope) >> 7));
}

/* P-IPC's and FIR's jobs, apart so that the energy of their own work is the user's (the
 * scenario's categories name them): the input job reads the task's input plus its count, the
 * output job writes it, FIR's filtered. */
__attribute__((noinline)) static void ipc_input_job(unsigned k, uint32_t i)
{
    shared[k] = CAIRN_PORT_IN(7) + i;
}

__attribute__((noinline)) static void ipc_output_job(unsigned k)
{
    uint32_t v = shared[k];
    if (rtos_params.kind == RTOS_FIR)
        v = fir(k, (int16_t)v);
    CAIRN_PORT_OUT(k) = v;
}

/* P-IPC's and FIR's input job reads a value, UP's a sample, DOWN's adds it to the sum, the
 * codecs' passes it on. */
static void input_job(unsigned k)
{
    uint32_t i = inputs[k]++;
    struct sampling *s = &state[k].sampling;
    if (rtos_params.kind <= RTOS_FIR) {
        ipc_input_job(k, i);
    } else if (rtos_params.kind == RTOS_UP) {
        s->held[0] = s->held[1];
        s->held[1] = rtos_signal(i);
    } else if (rtos_params.kind == RTOS_DOWN) {
        s->held[(i >> s->shift) & 1u] += rtos_signal(i);
    } else {
        shared[k] = (uint32_t)rtos_signal(i);
    }
}

/* UP interpolates from sample i - 1 towards sample i, i its output's count over the ratio.
 * Where its input job has not read sample i yet (a model that ran the output job first at
 * a release where both are due) the phase is 0 and the output is sample i - 1: held[1]. */
static void up_output(struct sampling *s, unsigned k, uint32_t n)
{
    uint32_t phase = n & ((1u << s->shift) - 1u);
    bool read = inputs[k] > (n >> s->shift);
    int32_t from = read ? s->held[0] : s->held[1];
    int32_t step = (s->held[1] - from) * (int32_t)phase;
    CAIRN_PORT_OUT(k) = (uint32_t)(from + (step >> s->shift));
}

static void output_job(unsigned k)
{
    struct sampling *s = &state[k].sampling;
    if (rtos_params.kind <= RTOS_FIR) {
        ipc_output_job(k);
    } else if (rtos_params.kind == RTOS_UP) {
        up_output(s, k, releases[k]);
    } else if (rtos_params.kind == RTOS_DOWN) {
        int32_t *sum = &s->held[releases[k] & 1u];
        CAIRN_PORT_OUT(k) = (uint32_t)(*sum >> s->shift);
        *sum = 0;
    } else if (rtos_params.kind == RTOS_ADPCM) {
        CAIRN_PORT_OUT(k) = ima_adpcm_encode(&state[k].adpcm, (int16_t)shared[k]);
    } else {
        CAIRN_PORT_OUT(k) = (uint32_t)g721_decode(&state[k].g721, (shared[k] >> 12) & 0xFu);
    }
    releases[k]++;
    if (k == 0u && !ended && rtos_now_ticks() >= rtos_params.run_ticks) {
        ended = true;
        finish();
    }
}

uint32_t rtos_job_every(enum rtos_job j)
{
    /* The slower job's: only UP's and DOWN's state holds a ratio. */
    bool slower = (rtos_params.kind == RTOS_UP && j == RTOS_JOB_INPUT) ||
                  (rtos_params.kind == RTOS_DOWN && j == RTOS_JOB_OUTPUT);
    return slower ? 1u << state[0].sampling.shift : 1u;
}

uint32_t rtos_job_first(enum rtos_job j)
{
    return rtos_params.kind == RTOS_DOWN && j == RTOS_JOB_OUTPUT ? rtos_job_every(j) : 0u;
}

bool rtos_job_due(enum rtos_job j, uint32_t release)
{
    uint32_t first = rtos_job_first(j);
    return release >= first && (release - first) % rtos_job_every(j) == 0u;
}

uint32_t rtos_job_first_ticks(enum rtos_job j)
{
    return (rtos_job_first(j) + 1u) * rtos_params.period;
}

uint32_t rtos_job_period_ticks(enum rtos_job j)
{
    return rtos_job_every(j) * rtos_params.period;
}

void rtos_job(unsigned k, enum rtos_job j)
{
    if (j == RTOS_JOB_INPUT)
        input_job(k);
    else
        output_job(k);
}

void rtos_control_loop(void)
{
    for (uint32_t i = 0; i < CL_LOOKUPS; i++) {
        cl_seed ^= cl_seed << 13;
        cl_seed ^= cl_seed >> 17;
        cl_seed ^= cl_seed << 5;
        cl_table[cl_seed % CL_TABLE] += cl_table[(cl_seed >> 8) % CL_TABLE] + 1u;
    }
    cl_runs++;
}

uint32_t rtos_apipc_take(void)
{
    uint32_t irq = cpu_get_primask();
    cpu_irq_disable();
    CAIRN_STIM_CLEAR = 1u << RTOS_LINE_APIPC;
    uint32_t count = CAIRN_STIM_COUNT(RTOS_LINE_APIPC);
    uint32_t fresh = count - apipc_seen;
    apipc_seen = count;
    cpu_set_primask(irq);
    return fresh;
}

void rtos_apipc_respond(void)
{
    CAIRN_GPIO_TGL = 1u;
    apipc_answered++;
}

void rtos_apipc_enable(uint32_t prio)
{
    nvic_set_priority(RTOS_IRQ_APIPC, prio);
    nvic_enable(RTOS_IRQ_APIPC);
}
