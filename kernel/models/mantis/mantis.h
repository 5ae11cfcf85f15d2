/*
 * The MANTIS-like thread model (docs/models.md): a thin layer over Cairn OS's thread tasks
 * (cairn/thread.h) giving MANTIS OS's five priority levels, threads an interrupt resumes,
 * and a periodic sleep. After "A performance analysis of MANTIS and TinyOS", section
 * III.B: the higher level always runs first, equal levels share the processor round robin
 * on a time slice (Cairn's own slice), and when no thread can run the idle thread
 * (Cairn's idle loop, cairn_idle) puts the processor to sleep.
 *
 * Unlike the other models this is not the whole OS: the Cairn kernel is linked, and the
 * layer only maps names and levels onto it.
 */
#ifndef CAIRN_MODEL_MANTIS_H
#define CAIRN_MODEL_MANTIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cairn/thread.h"

/* MANTIS OS's five levels (the paper gives their number, the names are ours), lowest
 * first; level L is Cairn priority MOS_CAIRN_PRIO_BASE + L. The base is 1, not 0: a
 * Cairn thread of priority 0 would hold back interrupt messages of priority 0 until it
 * blocks (docs/kernel.md, "Threads", limits). */
enum mos_level {
    MOS_PRIO_IDLE = 0,
    MOS_PRIO_LOW,
    MOS_PRIO_NORMAL,
    MOS_PRIO_HIGH,
    MOS_PRIO_KERNEL,
    MOS_LEVELS
};
#define MOS_CAIRN_PRIO_BASE 1u

/* MANTIS OS's static thread table: the layer's threads at one time (a slot whose thread
 * has exited is free again). */
#define MOS_THREADS 12u

struct mos_stats {
    uint32_t created;          /* threads made by mos_thread_new */
    uint32_t errors;           /* calls refused: a bad level, a full table, or Cairn refused */
    uint32_t resumed;          /* resumes given to a thread (coalesced ones included) */
    uint32_t resume_coalesced; /* resumes that found one pending already: merged into it */
    uint32_t resume_lost;      /* resumes refused: no such thread of the layer's */
};
extern struct mos_stats mos_stats;

/* The Cairn priority of a level; false (and counted) for a level >= MOS_LEVELS. */
bool mos_level_prio(unsigned level, cairn_prio_t *prio);

/* Creates thread id at a MANTIS level on the caller's stack (cairn_thread_create without
 * routes) with its resume semaphore. CAIRN_EINVAL for a bad level, CAIRN_EFULL when the
 * table has no free slot; otherwise what Cairn returns. */
cairn_ret_t mos_thread_new(cairn_task_id_t id, const char *name, cairn_thread_fn_t fn, void *arg,
                           void *stack, size_t stack_size, unsigned level);

/* Blocks the running thread until mos_thread_resume(its id): a take of the thread's binary
 * semaphore (a resume that came first is pending and returns at once). CAIRN_EINVAL
 * outside a layer's thread. */
cairn_ret_t mos_thread_suspend(void);

/* Makes thread id runnable: a give of its binary semaphore, from an interrupt handler
 * (between cairn_isr_enter and cairn_isr_exit), the message level or a thread. Nothing is
 * allocated, so nothing fills up: resumes that come while one is pending coalesce into it
 * (counted), as on MANTIS, and the thread runs once for all of them. False, and counted,
 * only when id is no thread of the layer's. */
bool mos_thread_resume(cairn_task_id_t id);

/* A periodic release on the hardware timer's ticks, kept on the grid start + k * period
 * so it does not drift. */
struct mos_period {
    uint32_t next;     /* the next release, in hardware ticks */
    uint32_t period;
    uint32_t overruns; /* releases already past when the thread asked to wait for them */
};

/* False (counted in mos_stats.errors) for period 0 or above CAIRN_HWTIMER_HALF. */
bool mos_period_init(struct mos_period *p, uint32_t start, uint32_t period);
/* Advances to the next release and returns the ticks from now until it: 0 when it is
 * already due or past (an overrun is counted when past). */
uint32_t mos_period_advance(struct mos_period *p, uint32_t now);
/* mos_period_advance at the hardware timer's now, then sleeps that long (a yield when 0). */
cairn_ret_t mos_period_sleep(struct mos_period *p);

#endif /* CAIRN_MODEL_MANTIS_H */
