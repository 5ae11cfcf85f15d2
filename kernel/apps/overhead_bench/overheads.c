/*
 * The scheduler's operations, timed one by one for the analysis's overhead model
 * (docs/analysis.md, "The overhead model"): build/fw/kernel-overheads-{fp,edf,csd}.elf, one
 * per policy (docs/policies.md), run by python/cairn/bench/overheads.py (`make bench` ->
 * build/bench/overheads.json, a file `python -m cairn.analysis.breakdown --overheads` reads).
 *
 * What each operation is in Cairn's message scheduler (the analysis counts per job one
 * unblock, one block, two selects and two context switches):
 *   unblock  a message released to a task: cairn__enqueue into the queue of n messages, the
 *            new one behind all of them (the longest walk of the sorted insert)
 *   select   the dispatcher's choice: cairn__dequeue_above with n messages queued, the first
 *            ready (the queue is sorted at the insert: nothing to parse)
 *   block    a handler's return: cairn__end (the queue is not looked at)
 *   dispatch one queued message to an empty handler and back: cairn_dispatch, which is
 *            select + the switch in + the handler + block + the switch out + select on an
 *            empty queue; the driver derives context_switch from it
 * Every operation runs from main with interrupts masked (the kernel calls them so), 3
 * repetitions, between two marker stores to the trace port (0xBE pp rr ee, as the kernel
 * bench's markers), so after - before - empty is its exact cycle count.
 */
#include <stddef.h>
#include <stdint.h>

#include "cairn/cairn.h"

#include "../../core/kernel.h" /* the scheduler's internal operations */

#include "cairn_armv6m.h"
#include "check.h"

#define TRACE_PORT 0x41000000u
#define MARK(phase, rep, edge) (0xBE000000u | ((uint32_t)(phase) << 16) | ((uint32_t)(rep) << 8) | (edge))
#define REPS 3
#define LONG 8 /* the longer queue: slopes are (op(LONG) - op(short)) / (LONG - short) */

enum { PH_EMPTY, PH_UNBLOCK0, PH_UNBLOCK_LONG, PH_SELECT1, PH_SELECT_LONG, PH_BLOCK, PH_DISPATCH };

/* Tasks 1..LONG + 1: levels and relative deadlines that follow them (SRP); under CSD all in
 * EDF queue 0. Task 1, the lowest, is the one whose messages are timed. */
enum { TIMED = 1, NTASKS = LONG + 1 };

static cairn_ret_t empty_handler(void *state, cairn_msg_t *msg)
{
    (void)state;
    (void)msg;
    return CAIRN_OK;
}

/* A message to task id as a send would make it (the policy's stamp). */
static void make_msg(cairn_msg_t *m, cairn_task_id_t id)
{
    cairn_frame_t f;
    cairn__msg_new(&f, CAIRN_TASK_NONE, 0, 0);
    f.msg.dst = id;
    f.msg.port = CAIRN_PORT(0);
    cairn__policy_stamp(&f.msg, cairn__tcb(id));
    *m = f.msg;
}

/* n messages to tasks above TIMED (each outranks TIMED's). */
static void fill(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        cairn_msg_t m;
        make_msg(&m, (cairn_task_id_t)(2 + i % (NTASKS - 1)));
        check_eq("fill", (uint32_t)cairn__enqueue(&m), 0);
    }
}

static cairn_task_id_t last_queued(void)
{
    const cairn_msg_t *m = cairn_k.queue;
    while (m && m->next)
        m = m->next;
    return m ? m->dst : CAIRN_TASK_NONE;
}

static void drain(void)
{
    cairn_msg_t out;
    while (cairn__dequeue_above(cairn__policy_floor(), &out))
        ;
}

static __attribute__((noinline)) void timed_empty(uint32_t w0, uint32_t w1)
{
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "str %[m1], [%[p]]\n\t"
                     :
                     : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)
                     : "memory");
}

/* r0 = a, r1 = b; `bl fn` between the markers. */
#define TIMED_CALL2(name, fn)                                                                     \
    static __attribute__((noinline)) uint32_t name(uint32_t a, uint32_t b, uint32_t w0, uint32_t w1) \
    {                                                                                             \
        register uint32_t r0 __asm__("r0") = a;                                                   \
        register uint32_t r1 __asm__("r1") = b;                                                   \
        __asm__ volatile("str %[m0], [%[p]]\n\t"                                                  \
                         "bl  " #fn "\n\t"                                                       \
                         "str %[m1], [%[p]]\n\t"                                                  \
                         : "+l"(r0), "+l"(r1)                                                     \
                         : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)                        \
                         : "r2", "r3", "r12", "lr", "memory", "cc");                              \
        return r0;                                                                                \
    }
TIMED_CALL2(timed_enqueue, cairn__enqueue)
TIMED_CALL2(timed_dequeue, cairn__dequeue_above)
TIMED_CALL2(timed_end, cairn__end)
TIMED_CALL2(timed_dispatch, cairn_dispatch)

static uint32_t floor_word(void)
{
#if CAIRN_POLICY == CAIRN_POLICY_FP
    return (uint32_t)cairn__policy_floor(); /* -1: idle */
#else
    return (uint32_t)(uintptr_t)cairn__policy_floor(); /* NULL: idle */
#endif
}

static uint64_t heap[512];

int main(void)
{
    test_begin("kernel-overheads");
    cairn_port_init();
    cairn_heap_init(heap, sizeof heap);
    cairn_timer_init();
    cairn_sched_init();
    for (cairn_task_id_t id = 1; id <= NTASKS; id++) {
        check_eq("create", (uint32_t)cairn_task_create(id, empty_handler, 0, id, 0, 0, 0), 0);
#if CAIRN_POLICY != CAIRN_POLICY_FP
        check_eq("deadline", (uint32_t)cairn_task_deadline(id, (NTASKS + 1u - id) * 1000u), 0);
#endif
#if CAIRN_POLICY == CAIRN_POLICY_CSD
        check_eq("queue", (uint32_t)cairn_task_queue(id, 0), 0);
#endif
        check_eq("init", (uint32_t)cairn_task_init(id, 0, 0), 0);
    }
    uint32_t s = arch_irq_save();

    for (uint32_t r = 0; r < REPS; r++)
        timed_empty(MARK(PH_EMPTY, r, 0), MARK(PH_EMPTY, r, 1));

    static const struct {
        uint8_t phase;
        uint8_t queued;
    } unblocks[] = {{PH_UNBLOCK0, 0}, {PH_UNBLOCK_LONG, LONG}};
    for (unsigned k = 0; k < CAIRN_COUNT(unblocks); k++) {
        for (uint32_t r = 0; r < REPS; r++) {
            fill(unblocks[k].queued);
            cairn_msg_t m;
            make_msg(&m, TIMED);
            uint32_t ret = timed_enqueue((uint32_t)&m, 0, MARK(unblocks[k].phase, r, 0),
                                         MARK(unblocks[k].phase, r, 1));
            check_eq("unblock", ret, 0);
            check_yes("unblock: behind the others", last_queued() == TIMED);
            drain();
        }
    }

    static const struct {
        uint8_t phase;
        uint8_t queued;
    } selects[] = {{PH_SELECT1, 1}, {PH_SELECT_LONG, LONG}};
    for (unsigned k = 0; k < CAIRN_COUNT(selects); k++) {
        for (uint32_t r = 0; r < REPS; r++) {
            fill(selects[k].queued);
            cairn_msg_t out;
            uint32_t t = timed_dequeue(floor_word(), (uint32_t)&out, MARK(selects[k].phase, r, 0),
                                       MARK(selects[k].phase, r, 1));
            check_yes("select: a task", t != 0);
            drain();
        }
    }

    for (uint32_t r = 0; r < REPS; r++) {
        cairn_frame_t f;
        make_msg(&f.msg, TIMED);
        cairn__enter(cairn__tcb(TIMED), &f, TIMED);
        (void)timed_end(CAIRN_OK, (uint32_t)&f, MARK(PH_BLOCK, r, 0), MARK(PH_BLOCK, r, 1));
        check_yes("block: off the stack", cairn_k.top == 0);
    }

    for (uint32_t r = 0; r < REPS; r++) {
        cairn_msg_t m;
        make_msg(&m, TIMED);
        check_eq("queued", (uint32_t)cairn__enqueue(&m), 0);
        (void)timed_dispatch(0, 0, MARK(PH_DISPATCH, r, 0), MARK(PH_DISPATCH, r, 1));
        check_yes("dispatch: ran", cairn_k.queue == 0);
    }

    arch_irq_restore(s);
    cairn_sched_stats_t st;
    cairn_sched_stats(&st);
    check_eq("queued at the end", st.queued, 0);
    return test_end();
}
