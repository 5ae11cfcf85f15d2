/*
 * Support for the scheduler's host tests: a fresh kernel per test, an execution
 * log, and a scriptable recording task.
 */
#ifndef KTEST_H
#define KTEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cairn/cairn.h"
#include "cairn_host.h"

/* A cmocka test with the fixture below. */
#define KTEST(fn) cmocka_unit_test_setup_teardown(fn, ktest_setup, ktest_teardown)

/* cmocka setup: heap (a fresh arena), timers, scheduler, trace ring, log, idle hook. */
int ktest_setup(void **state);
/* Heap bytes in use right after ktest_setup: the kernel's own (the message pool). */
extern size_t ktest_kernel_heap_bytes;
/* cmocka teardown: the heap is consistent and interrupts are enabled again. */
int ktest_teardown(void **state);

/* Execution log: entries separated by one space. */
void klog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *klog_str(void);
void klog_reset(void);
#define assert_log(expected) assert_string_equal(klog_str(), (expected))

/* A recording task: its handler logs "<name>:<port>" (ports: INIT, FINAL,
 * T0..T3, ERR, or the application port number) and then calls its hook. */
struct rec;
typedef void (*rec_hook_t)(struct rec *r, cairn_msg_t *msg);
struct rec {
    const char *name;
    rec_hook_t hook;
    int count;
    void *user;
};
cairn_ret_t rec_handler(void *state, cairn_msg_t *msg);

/* Creates and initialises (INIT runs now, from the test's idle context) a
 * recording task with num_out unconnected output ports; fails the test on error. */
void rec_task(cairn_task_id_t id, struct rec *r, cairn_prio_t prio, uint8_t num_out);
/* The same without sending INIT. */
void rec_task_uninit(cairn_task_id_t id, struct rec *r, cairn_prio_t prio, uint8_t num_out);

/* Simulates an interrupt: enter, fn(arg), exit. */
void ktest_irq(void (*fn)(void *), void *arg);

/* The event log as words; returns how many (at most max). */
size_t ktest_trace(uint32_t *out, size_t max);
/* How many words of event ev the event log holds (every module's: one ring). */
unsigned ktest_trace_count(uint8_t ev);

#endif /* KTEST_H */
