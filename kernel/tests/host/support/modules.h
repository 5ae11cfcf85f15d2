/*
 * Support for the host tests of several modules on the simulated bus (kernel/arch/host/
 * simbus.c): each module is a kernel instance, selected before it is used.
 */
#ifndef KTEST_MODULES_H
#define KTEST_MODULES_H

#include <stdbool.h>
#include <stddef.h>

#include "cairn/cairn.h"

/* Module m's kernel from nothing (a boot), m left selected: its heap on `arena` (`len`
 * bytes), the scheduler, the bus manager (not started). */
void ktest_module_boot(unsigned m, void *arena, size_t len);

/* Posts to task on module m (selecting it); the post must succeed. */
void ktest_post_on(unsigned m, cairn_task_id_t task, cairn_port_t port, const void *p, size_t len);

/* The teardown of such a test: the bus filter cleared, every one of the `modules` modules'
 * heap consistent and its interrupts enabled again, module 0 selected. */
void ktest_modules_check(unsigned modules);

/* Module m's migration statistics; the module selected before stays selected. */
cairn_migrate_stats_t ktest_migrate_stats(unsigned m);

/* No module of the `modules` has a reliable message pending or a migration under way. */
bool ktest_modules_quiet(unsigned modules);

/* The selected module's free heap bytes once its kernel has idled (what the bus manager frees
 * then). */
size_t ktest_heap_free(void);

/* Whether task lives on module m (a TCB there, not a remote one); m stays selected. */
bool ktest_live_on(unsigned m, cairn_task_id_t task);

/* Module m's bus-manager timers (retransmission, migrator) fire once. */
void ktest_module_tick(unsigned m);

/* Every module's timers fire, and the bus runs, until ktest_modules_quiet (at most 100
 * rounds); module 0 is selected after. The rounds it took. */
unsigned ktest_modules_settle(unsigned modules);

#endif
