/*
 * The start-up every device application's main() begins with: the port (the hardware counter
 * at 0, exception priorities), the heap, the timer and message pools carved from it, then the
 * distributed services on the board's bus.
 */
#ifndef CAIRN_APP_BOOT_H
#define CAIRN_APP_BOOT_H

#include <stddef.h>

#include "cairn/mem.h"
#include "cairn/net.h"
#include "cairn/sched.h"
#include "cairn/timer.h"
#include "cairn_armv6m.h"

/* cairn_port_init, cairn_heap_init(heap, bytes), cairn_timer_init, cairn_sched_init, then
 * cairn_net_init, whose result it returns: CAIRN_OK on a bus, CAIRN_ENOROUTE on a module
 * alone (every task local), which only an application that also runs alone accepts. The
 * caller reports a failure (app_fail) as its own.
 *
 * Inline, so that a firmware boots in exactly the cycles it did with these calls written in
 * its main: a call's few cycles at boot move every later event against the bus's TDMA slots,
 * and with it figures measured long after boot (a checkpoint's migration cost, the clock
 * rates time synchronisation finds). */
static inline __attribute__((always_inline)) cairn_ret_t app_boot(void *heap, size_t bytes)
{
    cairn_port_init();
    cairn_heap_init(heap, bytes);
    cairn_timer_init();
    cairn_sched_init();
    return cairn_net_init();
}

#endif /* CAIRN_APP_BOOT_H */
