/*
 * SimBed's benchmark set-up ("SimBed: performance and energy of embedded RTOSs",
 * sections 2.2 and 3), written once and run under the execution models by a glue file per
 * model (rtos/<model>.c): a set of 1 to 8 periodic tasks of one kind and one period, with
 * or without the background load of a 32 ms control loop (CL) and interrupt-driven
 * aperiodic IPC (AP-IPC).
 *
 * Parameter block: input ports the scenario delivers at time 0 (docs/models.md,
 * "Workloads"):
 *
 *   IN[0] tasks, 1..8           IN[3] cycles per tick (1 ms)
 *   IN[1] period, in ticks      IN[4] control loop period in ticks, 0: no control loop
 *   IN[2] kind (rtos_kind)      IN[5] run length in ticks
 *   IN[6] doze: 1 the idle loop sleeps, 0 it polls (SimBed, section 3.4; NOS honours it)
 *
 * UP and DOWN add their sampling ratio (2, 4 or 8) times 256 to IN[2].
 *
 * The tasks' input data is IN[7] (0 unless the scenario delivers values): P-IPC and FIR
 * add the release count to it, UP, DOWN and ADPCM a test signal of the input job's count
 * (rtos_signal), G721 that signal's top four bits as the code.
 *
 * UP and DOWN (section 2.2) run their jobs at two rates: the period is the faster job's.
 * UP reads a sample every ratio-th release and outputs every release, interpolating
 * between the last two samples; DOWN reads every release and outputs every ratio-th, the
 * mean of the last ratio reads (one release after the last of them).
 *
 * AP-IPC comes from stimulus line 2 (IRQ 20) when the scenario defines it (SimBed's
 * geometric process: every 100 us with probability 0.01). Markers for cairn-sim: task k
 * writes OUT[k] at each output (jitter against the period), the AP-IPC job toggles GPIO
 * pin 0 once per interrupt it answers (stimulus -> response delay).
 *
 * Every task is two jobs, as in SimBed: an input job and an output job that every model
 * schedules separately, its own way (rtos_job_due), UP's and DOWN's at their own rates, the
 * others' one after the other in each release; the value passes through shared memory.
 */
#ifndef CAIRN_MODEL_RTOS_H
#define CAIRN_MODEL_RTOS_H

#include <stdbool.h>
#include <stdint.h>

#define RTOS_MAX_TASKS 8u
#define RTOS_LINE_APIPC 2u
#define RTOS_IRQ_APIPC 20u /* stimulus line 2 */
#define RTOS_IRQ_ALARM 8u  /* timer0 */

enum rtos_kind {
    RTOS_PIPC = 0,
    RTOS_FIR = 1,
    RTOS_UP = 2,
    RTOS_DOWN = 3,
    RTOS_ADPCM = 4, /* IMA ADPCM encode */
    RTOS_G721 = 5,  /* G.721 decode */
};

struct rtos_params {
    uint32_t tasks;
    uint32_t period;
    uint32_t kind;
    uint32_t tick_cycles;
    uint32_t cl_period; /* 0: no control loop */
    uint32_t run_ticks;
    uint32_t doze;
};
extern struct rtos_params rtos_params;

/* Reads and checks the parameter block (one line and exit status 2 if it is missing or
 * out of range) and starts timer1 as the clock. */
void rtos_boot(const char *model);
uint32_t rtos_now_cycles(void);
uint32_t rtos_now_ticks(void);

/* timer0 (IRQ 8) as one alarm at an absolute tick (at once if past), or every `ticks`. */
void rtos_alarm_at(uint32_t tick);
void rtos_alarm_every(uint32_t ticks);
void rtos_alarm_stop(void); /* also clears a pending alarm */

enum rtos_job { RTOS_JOB_INPUT = 0, RTOS_JOB_OUTPUT = 1 };
/* Releases are counted from 0, release n at tick (n + 1) * period. A job runs on the
 * releases first, first + every, ...: UP's input every ratio-th from 0; DOWN's output
 * every ratio-th from ratio, each the mean of the window of ratio reads before it; the
 * rest every release. UP's and DOWN's jobs may run in either order where both are due;
 * the other kinds' output job must run after its release's input job. */
uint32_t rtos_job_every(enum rtos_job j);
uint32_t rtos_job_first(enum rtos_job j);
bool rtos_job_due(enum rtos_job j, uint32_t release);
/* Timer-driven models: the job's first release and its period, in ticks. */
uint32_t rtos_job_first_ticks(enum rtos_job j);
uint32_t rtos_job_period_ticks(enum rtos_job j);
/* One run of task k's job j. The output job writes OUT[k]; after task 0's first output at or
 * past the run length the node reports and the run ends (status 0). */
void rtos_job(unsigned k, enum rtos_job j);
/* The control loop: memory lookups at pseudo-random indices. */
void rtos_control_loop(void);
/* The AP-IPC interrupt: clears line 2 and returns the interrupts that arrived since. */
uint32_t rtos_apipc_take(void);
/* The AP-IPC job: answers one interrupt (toggles GPIO pin 0). */
void rtos_apipc_respond(void);
/* Enables the AP-IPC line in the NVIC (also what wakes WFI under PRIMASK). */
void rtos_apipc_enable(uint32_t prio);

void rtos_model_report(void);

/* The test signal of the input job's n-th read: white noise under a triangular envelope
 * (silence to full scale and back every 256 reads), so the codecs' step adaptation runs
 * both ways. python/cairn/workloads/signal.py is its reference. */
int16_t rtos_signal(uint32_t n);

#endif
