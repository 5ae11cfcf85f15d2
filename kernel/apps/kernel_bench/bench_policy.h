/*
 * The kernel benchmark's set-up under the deadline policies (policy_setup.c).
 */
#ifndef BENCH_POLICY_H
#define BENCH_POLICY_H

#include "cairn/policy.h"
#include "cairn/types.h"

#include "cairn_armv6m.h"

#if CAIRN_POLICY != CAIRN_POLICY_FP
/* Deadlines (and CSD queues) for the bench's three message tasks, before their INIT. */
void bench_policy_setup(cairn_task_id_t drv, cairn_task_id_t low, cairn_task_id_t probe);
#endif

#endif /* BENCH_POLICY_H */
