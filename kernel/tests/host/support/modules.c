#include "modules.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>

#include <cmocka.h>

#include "cairn_host.h"

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
