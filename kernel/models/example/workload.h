/*
 * The examples' workload and board glue, shared by the models' example.c so they
 * run the same work: SENSED sensing jobs, one every SENSE_MS (SENSE_WORK loop turns), and
 * forwarding work (FORWARD_WORK turns) for each of STIMULI stimuli, an interrupt every
 * STIM_US (SysTick, standing in for a radio), about RUN_MS in all. The clock is CMSDK
 * timer1 free-running; timer0 is the one alarm a model may use.
 *
 * The run ends on counts, not on the clock, and the firmware prints only behaviour
 * (counts, and checks that hold whatever the timing), so its transcript is the same on
 * any correct timing: QEMU's, whose timers follow the host's clock, and cairn-sim's.
 * The timing is left for cairn-sim to measure: each sensing and forwarding job toggles a
 * marker pin as it starts, the clock's and the stimuli's starts set one, and a
 * model publishes its time-dependent counters (sleeps, late releases, ...) on output
 * ports; both are cairn-sim's devices, ignored on QEMU (cairn_io.h).
 */
#ifndef CAIRN_MODEL_WORKLOAD_H
#define CAIRN_MODEL_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#define SENSE_MS 10u
#define STIM_US 3000u
#define RUN_MS 104u /* stimuli at 3..102 ms, sensing at 10..100 ms */
#define SENSED (RUN_MS / SENSE_MS)
#define STIMULI (RUN_MS * 1000u / STIM_US)
#define SENSE_WORK 3000u   /* loop turns of the sensing job */
#define FORWARD_WORK 1000u /* loop turns per forwarded packet */

void ex_clock_start(void);
uint32_t ex_now_us(void);
uint32_t ex_now_ms(void);
/* timer0: one interrupt (IRQ 8) at absolute time `at_us`, at once if past. */
void ex_alarm_at_us(uint32_t at_us);
void ex_alarm_stop(void); /* also clears a pending alarm interrupt */
/* timer0 every period_us, for the LIMIT harness. */
void ex_alarm_every_us(uint32_t period_us);

/* SysTick every STIM_US from now, until ex_stimulus_arrived has counted STIMULI. */
void ex_stimulus_start(void);
void ex_stimulus_stop(void);
/* The model saw a stimulus (its handler ran, or it polled the pending bit). */
void ex_stimulus_arrived(void);
bool ex_stimulus_pending(void); /* SysTick pending in ICSR (the polled models) */
void ex_stimulus_clear(void);

/* The work itself: a sensing job (none after the SENSED-th: a late source may release
 * one more before the model stops it) and forwarding one stimulus. */
void ex_sense(void);
void ex_forward(void);
struct ex_stats {
    uint32_t stimuli;
    uint32_t sensed;
    uint32_t forwarded;
};
extern struct ex_stats ex_stats;
bool ex_sensing_done(void);
bool ex_done(void); /* every sensing job run, every stimulus arrived and forwarded */

/* The marker pins (cairn-sim's marker GPIO) the tests read the timing from. */
#define EX_PIN_FORWARD 0u /* toggled as each forwarding starts */
#define EX_PIN_SENSE 1u   /* toggled as each sensing job starts */
#define EX_PIN_CLOCK 2u   /* set when the clock starts: sensing job n is due n * SENSE_MS later */
#define EX_PIN_STIMULUS 3u /* set as SysTick starts: stimulus k arrives (k + 1) * STIM_US later */
void ex_mark_clock_start(void);
/* A time-dependent counter for cairn-sim's io-log: output port `port` (0..7) := value. */
void ex_publish(unsigned port, uint32_t value);

/* Print the counts and check them against the workload; returns main's status. */
int ex_report(const char *model, uint32_t lost);

#endif
