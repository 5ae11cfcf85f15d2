/*
 * The examples' workload and board glue, shared by the four models' example.c so they
 * run the same work: a periodic sensing job (SENSE_MS period, SENSE_WORK loop turns) and
 * forwarding work (FORWARD_WORK turns) for each stimulus, an interrupt every STIM_US
 * (SysTick, standing in for a radio), for RUN_MS of simulated time. The clock is CMSDK
 * timer1 free-running; timer0 is the one alarm a model may use.
 */
#ifndef CAIRN_MODEL_WORKLOAD_H
#define CAIRN_MODEL_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#define SENSE_MS 10u
#define STIM_US 3000u
#define RUN_MS 104u /* stimuli at 3..102 ms, sensing at 10..100 ms */
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

/* SysTick every STIM_US from now; stimulus k (0, 1, ...) arrives at ex_stim_time_us(k). */
void ex_stimulus_start(void);
void ex_stimulus_stop(void);
uint32_t ex_stim_time_us(uint32_t k);
bool ex_stimulus_pending(void); /* SysTick pending in ICSR (the polled models) */
void ex_stimulus_clear(void);

/* The work itself: sensing, and forwarding stimulus k (records its delay). */
void ex_sense(void);
void ex_forward(void);
struct ex_stats {
    uint32_t sensed;
    uint32_t forwarded;
    uint32_t max_forward_delay_us;
    uint32_t max_sense_late_us; /* start of sensing job n vs n * SENSE_MS */
};
extern struct ex_stats ex_stats;
/* Print the counts and check them against what RUN_MS implies; returns main's status. */
int ex_report(const char *model, uint32_t stimuli_seen, uint32_t lost);

#endif
