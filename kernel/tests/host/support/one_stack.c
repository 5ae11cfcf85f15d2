#include "one_stack.h"

#include "ktest.h"

#include "../../../core/kernel.h"

unsigned assert_one_stack(void)
{
    const cairn_frame_t *f = cairn_k.isr_depth ? cairn_k.isr_top : cairn_k.top;
    unsigned depth = 0;
    for (; f; f = f->below, depth++) {
        if (f->below)
            assert_true(f->prio > f->below->prio);
        for (const cairn_frame_t *g = f->below; g; g = g->below)
            assert_true(!f->tcb || g->tcb != f->tcb);
    }
    return depth;
}
