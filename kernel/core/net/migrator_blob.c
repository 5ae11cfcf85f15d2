/*
 * The release of a migration's serialised task, which both roles call when their part in it
 * ends: the blob (a heap block, or the STATE frame buffer itself for a task of one part) and,
 * on the source, the block of a split state that the task handed over.
 */
#include "migrator_internal.h"

void cairn__mig_free_blob(void)
{
    cairn_mig_state_t *const m = cairn_net.mig;
    if (m->blob && m->blob != inline_blob()) /* none, at a join: no call */
        cairn_free(m->blob);
    m->blob = 0;
    m->blob_len = 0;
    if (m->role == MIG_SOURCE && m->stage.state_at) {
        /* A split state's block, which T handed (the destination's is the stage's). */
        cairn_free(m->handed);
        m->handed = 0;
        m->stage.state = 0;
        m->stage.state_at = 0;
    }
}
