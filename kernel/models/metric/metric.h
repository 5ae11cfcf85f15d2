/*
 * The Thread-Metric-style figures per execution model (docs/models.md, "Thread-Metric per
 * model"; python/cairn/bench/models_metric.py): one firmware per model,
 * build/fw/metric-<model>.elf, marks each operation it has between two stores to cairn-sim's
 * trace port (word 0xBE pp rr ee: phase, repetition, 0 before / 1 after), METRIC_REPS
 * repetitions. A phase a model has no concept for is never marked: its figure is "n/a".
 *
 *  cooperative    a unit of work ends (or yields); to the first instruction of the next one
 *                 the model's scheduler runs
 *  preemptive     running work makes higher-priority work ready; to that work's first
 *                 instruction
 *  interrupt      running work pends an interrupt and ends; to the first instruction of the
 *                 work the handler released
 *  irq_preempt    running work pends an interrupt whose handler releases higher-priority
 *                 work; to that work's first instruction (it preempts)
 *  message        a 16-byte message to another unit of work, which reads it; call -> return
 *  synchronise    a signal and its take by the same unit of work, nothing waiting
 *  memory         an allocation of 128 bytes and its free
 */
#ifndef CAIRN_MODEL_METRIC_H
#define CAIRN_MODEL_METRIC_H

#include <stdint.h>

#include "board.h"
#include "nvic.h"

#define METRIC_REPS 3u
#define METRIC_TRACE (*(volatile uint32_t *)0x41000000u)
#define METRIC_WORD(phase, rep, edge) \
    (0xBE000000u | ((uint32_t)(phase) << 16) | ((uint32_t)(rep) << 8) | (uint32_t)(edge))
#define METRIC_MARK(phase, rep, edge) (METRIC_TRACE = METRIC_WORD(phase, rep, edge))

enum metric_phase {
    METRIC_EMPTY, METRIC_COOP, METRIC_PREEMPT, METRIC_IRQ, METRIC_IRQ_PREEMPT, METRIC_MESSAGE,
    METRIC_SYNC, METRIC_MEMORY
};

/* The two marker stores with nothing between: what every figure subtracts. */
static __attribute__((noinline, unused)) void metric_empty(uint32_t rep)
{
    uint32_t w0 = METRIC_WORD(METRIC_EMPTY, rep, 0), w1 = METRIC_WORD(METRIC_EMPTY, rep, 1);
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "str %[m1], [%[p]]\n\t"
                     :
                     : [p] "l"(0x41000000u), [m0] "l"(w0), [m1] "l"(w1)
                     : "memory");
}

/* Marks `before`, then pends irq: the interrupt is taken right after the pending store. */
static __attribute__((noinline, unused)) void metric_pend(uint32_t phase, uint32_t rep, unsigned irq)
{
    uint32_t w0 = METRIC_WORD(phase, rep, 0);
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "str %[bit], [%[ispr]]\n\t"
                     "nop\n\t"
                     "nop\n\t"
                     :
                     : [p] "l"(0x41000000u), [m0] "l"(w0), [ispr] "l"(&NVIC_ISPR),
                       [bit] "l"(1u << irq)
                     : "memory");
}

#endif
