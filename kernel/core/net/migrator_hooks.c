/*
 * The reliable layer's questions to the task migrator about a task's DATA messages: whether
 * they must stay with their senders (the task frozen here), whether one is refused (the task
 * frozen at its source, or moved away), and the news that the source's were acknowledged (the
 * drain rule's wait ends).
 */
#include "migrator_internal.h"

void cairn__mig_drained(void)
{
    if (on() && MIG.role == MIG_SOURCE && MIG.phase == PH_DRAINING && !cairn__rel_sent_by(MIG.task))
        cairn__mig_commit_or_drain();
}

bool cairn__mig_holds(cairn_task_id_t task)
{
    return on() && MIG.role == MIG_PARTICIPANT && MIG.task == task &&
           (MIG.phase == PH_FROZEN || MIG.phase == PH_STAGED);
}

bool cairn__mig_refuse(cairn_task_id_t task, uint8_t src)
{
    if (!on() || MIG.role != MIG_SOURCE || MIG.task != task)
        return false;
    if (MIG.phase >= PH_FREEZING && MIG.phase <= PH_COMMITTING) {
        /* the sender holds it from now on */
        cairn__mig_frame_to(src, F_FREEZE, MIG.task, MIG.dest);
        return true;
    }
    if (MIG.outcome == CAIRN_MIG_MOVED) {
        cairn__mig_result_to(src); /* redirects the sender */
        return true;
    }
    return false;
}
