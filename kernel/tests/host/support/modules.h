/*
 * Support for the host tests of several modules on the simulated bus (kernel/arch/host/
 * simbus.c): each module is a kernel instance, selected before it is used.
 */
#ifndef KTEST_MODULES_H
#define KTEST_MODULES_H

#include <stddef.h>

#include "cairn/cairn.h"

/* Posts to task on module m (selecting it); the post must succeed. */
void ktest_post_on(unsigned m, cairn_task_id_t task, cairn_port_t port, const void *p, size_t len);

/* The teardown of such a test: the bus filter cleared, every one of the `modules` modules'
 * heap consistent and its interrupts enabled again, module 0 selected. */
void ktest_modules_check(unsigned modules);

#endif
