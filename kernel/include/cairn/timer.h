/*
 * Cairn OS virtual timers: up to CAIRN_TIMERS_PER_TASK one-shot or periodic
 * timers per task, all driven by one hardware timer through a delta list.
 * Timer n of a task fires a message on the task's TIMEOUTn port (through
 * cairn_timer_fired, implemented by the scheduler).
 *
 * Tickless: the hardware timer is armed for the next expiry only (or for an
 * intermediate deadline when the next expiry is beyond half the counter range).
 * Periodic timers re-arm without drift: the next deadline is the previous
 * deadline plus the period. A late interrupt fires every overdue expiry, in
 * deadline order; expiries at the same tick fire in the order they were set.
 * See docs/kernel-memory-timers.md.
 */
#ifndef CAIRN_TIMER_H
#define CAIRN_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "cairn/types.h"

#define CAIRN_TIMERS_PER_TASK 4u

/* Timers that can run at once, all tasks together (a pool of CAIRN_MAX_TIMERS
 * entries of 16 bytes on a 32-bit target, carved from the heap by
 * cairn_timer_init). */
#ifndef CAIRN_MAX_TIMERS
#define CAIRN_MAX_TIMERS 8
#endif

/* Longest interval, in hardware ticks. */
#define CAIRN_TIMER_MAX_TICKS 0x7FFFFFFFu

/* Provided by the scheduler: posts the TIMEOUTn message to task. Called from the
 * timer interrupt, outside the timer lock; it may call the functions below. */
void cairn_timer_fired(cairn_task_id_t task, uint8_t n);

/* Provided by the scheduler: the running task (0 = the kernel). */
cairn_task_id_t cairn_current_task(void);

/* Carves the timer pool from the heap (so cairn_heap_init comes first) and
 * disarms the hardware timer. Call once at boot. CAIRN_ENOMEM when the heap
 * cannot hold the pool (then every cairn_timer_set fails). */
cairn_ret_t cairn_timer_init(void);

/* (Re)starts timer n (0..3) of task to fire ticks (1..CAIRN_TIMER_MAX_TICKS)
 * hardware ticks from now, and then every ticks when periodic. Setting a running
 * timer restarts it. CAIRN_EINVAL for task 0, n > 3 or ticks out of range;
 * CAIRN_ENOMEM when the timer pool is empty. */
cairn_ret_t cairn_timer_set(cairn_task_id_t task, uint8_t n, uint32_t ticks, bool periodic);

/* Stops timer n of task. CAIRN_OK when it was running (it will not fire again);
 * CAIRN_EINVAL when it was not running (a TIMEOUTn message it posted may still be
 * queued) or for bad arguments. */
cairn_ret_t cairn_timer_cancel(cairn_task_id_t task, uint8_t n);

/* Stops every timer of task (when it is killed or migrated). */
void cairn_timer_cancel_all(cairn_task_id_t task);

/* The same for the current task. */
cairn_ret_t cairn_timer_start(uint8_t n, uint32_t ticks, bool periodic);
cairn_ret_t cairn_timer_stop(uint8_t n);

/* Hardware ticks until the next expiry (0 when one is due), UINT32_MAX when no
 * timer is running. For the idle code. */
uint32_t cairn_timer_next_expiry(void);

/* For the idle code: the hardware timer interrupt comes ticks before the next
 * expiry (a sleep state's wake-up latency); that interrupt fires nothing and
 * re-arms for the expiry itself. */
void cairn_timer_wake_early(uint32_t ticks);

/* Timers running, and set requests refused for lack of pool entries. */
unsigned cairn_timer_active(void);
uint32_t cairn_timer_pool_failures(void);

#endif /* CAIRN_TIMER_H */
