/*
 * The kernel benchmark under the deadline policies (build/fw/kernel-bench-edf.elf,
 * kernel-bench-csd.elf; docs/policies.md): relative deadlines that follow the tasks'
 * levels, as SRP wants, so the same phases measure the same paths (PROBE preempts DRV,
 * LOW waits). Under CSD, PROBE and DRV are in the EDF queue and LOW in the FP queue:
 * the queued send crosses queues. Nothing under fixed priority.
 */
#include "cairn/policy.h"

#if CAIRN_POLICY != CAIRN_POLICY_FP
#include "bench_policy.h"

#include "check.h"

void bench_policy_setup(cairn_task_id_t drv, cairn_task_id_t low, cairn_task_id_t probe)
{
    const uint32_t tenth = CAIRN_TICKS_PER_SECOND / 10u;
    check_eq("deadline LOW", (uint32_t)cairn_task_deadline(low, 8 * tenth), 0);
    check_eq("deadline DRV", (uint32_t)cairn_task_deadline(drv, 4 * tenth), 0);
    check_eq("deadline PROBE", (uint32_t)cairn_task_deadline(probe, 1 * tenth), 0);
#if CAIRN_POLICY == CAIRN_POLICY_CSD
    check_eq("queue DRV", (uint32_t)cairn_task_queue(drv, 0), 0);
    check_eq("queue PROBE", (uint32_t)cairn_task_queue(probe, 0), 0);
    check_eq("queue LOW", (uint32_t)cairn_task_queue(low, CAIRN_CSD_FP_QUEUE), 0);
#endif
}
#endif
