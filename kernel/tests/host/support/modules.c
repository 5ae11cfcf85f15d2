#include "modules.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>

#include <cmocka.h>

#include "cairn_host.h"

#include "../../../core/net/migrator.h" /* CAIRN_MIG_TIMER */

void ktest_module_boot(unsigned m, void *arena, size_t len)
{
    cairn_simbus_select(m);
    cairn_heap_init(arena, len);
    assert_int_equal(cairn_sched_init(), CAIRN_OK);
    assert_int_equal(cairn_net_init(), CAIRN_OK);
}

void ktest_post_on(unsigned m, cairn_task_id_t task, cairn_port_t port, const void *p, size_t len)
{
    cairn_simbus_select(m);
    assert_int_equal(cairn_post(task, port, p, len), CAIRN_OK);
}

void ktest_modules_check(unsigned modules)
{
    cairn_simbus_filter(0);
    for (unsigned m = 0; m < modules; m++) {
        cairn_simbus_select(m);
        assert_int_equal(cairn_heap_check(), CAIRN_OK);
        assert_int_equal(cairn_host_irq_depth(), 0);
    }
    cairn_simbus_select(0);
}

cairn_migrate_stats_t ktest_migrate_stats(unsigned m)
{
    unsigned back = cairn_simbus_selected();
    cairn_simbus_select(m);
    cairn_migrate_stats_t st;
    cairn_migrate_stats(&st);
    cairn_simbus_select(back);
    return st;
}

bool ktest_modules_quiet(unsigned modules)
{
    for (unsigned m = 0; m < modules; m++) {
        cairn_simbus_select(m);
        cairn_reliable_stats_t r;
        cairn_net_reliable_stats(&r);
        cairn_migrate_stats_t s;
        cairn_migrate_stats(&s);
        if (r.pending || s.busy)
            return false;
    }
    return true;
}

size_t ktest_heap_free(void)
{
    cairn_idle();
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    return st.free_bytes;
}

bool ktest_live_on(unsigned m, cairn_task_id_t task)
{
    cairn_simbus_select(m);
    return cairn_task_exists(task) && cairn_task_module(task) < 0;
}

void ktest_module_tick(unsigned m)
{
    ktest_post_on(m, CAIRN_TASK_NET, CAIRN_PORT_TIMEOUT(CAIRN_RELIABLE_TIMER), 0, 0);
    ktest_post_on(m, CAIRN_TASK_NET, CAIRN_PORT_TIMEOUT(CAIRN_MIG_TIMER), 0, 0);
}

unsigned ktest_modules_settle(unsigned modules)
{
    unsigned rounds = 0;
    cairn_simbus_run();
    while (!ktest_modules_quiet(modules)) {
        assert_true(rounds < 100);
        for (unsigned m = 0; m < modules; m++)
            ktest_module_tick(m);
        cairn_simbus_run();
        rounds++;
    }
    cairn_simbus_select(0);
    return rounds;
}
