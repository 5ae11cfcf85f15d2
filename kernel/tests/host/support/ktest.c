#include "ktest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwtimer.h"

#define ARENA_BYTES (32 * 1024)
static uint8_t *arena;

static char log_buf[4096];
static size_t log_len;

void klog_reset(void)
{
    log_len = 0;
    log_buf[0] = 0;
}

void klog(const char *fmt, ...)
{
    if (log_len && log_len < sizeof log_buf - 1)
        log_buf[log_len++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(log_buf + log_len, sizeof log_buf - log_len, fmt, ap);
    va_end(ap);
    if (n > 0)
        log_len += (size_t)n;
    if (log_len >= sizeof log_buf)
        log_len = sizeof log_buf - 1;
}

const char *klog_str(void)
{
    return log_buf;
}

size_t ktest_kernel_heap_bytes;

int ktest_setup(void **state)
{
    (void)state;
    free(arena);
    arena = malloc(ARENA_BYTES);
    assert_non_null(arena);
    cairn_heap_init(arena, ARENA_BYTES);
    host_timer_reset(0);
    assert_int_equal(cairn_timer_init(), CAIRN_OK);
    assert_int_equal(cairn_sched_init(), CAIRN_OK);
    struct cairn_heap_stats st;
    cairn_heap_stats(&st);
    ktest_kernel_heap_bytes = st.used_bytes;
    cairn_trace_host_reset();
    cairn_host_idle_reset();
    cairn_host_irq_window_set(NULL);
    klog_reset();
    return 0;
}

int ktest_teardown(void **state)
{
    (void)state;
    assert_int_equal(cairn_heap_check(), CAIRN_OK);
    assert_int_equal(cairn_host_irq_depth(), 0);
    assert_false(cairn_in_isr());
    assert_int_equal(cairn_current_task(), 0);
    free(arena);
    arena = NULL;
    return 0;
}

static const char *port_name(cairn_port_t p, char *buf, size_t n)
{
    static const char *const sys[] = {"INIT", "FINAL", "SER", "DESER", "T0",
                                      "T1",   "T2",    "T3",  "ERR"};
    if (p < sizeof sys / sizeof sys[0])
        return sys[p];
    snprintf(buf, n, "%u", p >= CAIRN_PORT_APP_BASE ? CAIRN_PORT_NUM(p) : 1000u + p);
    return buf;
}

cairn_ret_t rec_handler(void *state, cairn_msg_t *msg)
{
    struct rec *r = state;
    char buf[16];
    assert_int_equal(cairn_current_task(), msg->dst);
    klog("%s:%s", r->name, port_name(msg->port, buf, sizeof buf));
    r->count++;
    if (r->hook)
        r->hook(r, msg);
    return CAIRN_OK;
}

void rec_task_uninit(cairn_task_id_t id, struct rec *r, cairn_prio_t prio, uint8_t num_out)
{
    assert_int_equal(cairn_task_create(id, rec_handler, r, prio, NULL, num_out, 0), CAIRN_OK);
}

void rec_task(cairn_task_id_t id, struct rec *r, cairn_prio_t prio, uint8_t num_out)
{
    rec_task_uninit(id, r, prio, num_out);
    assert_int_equal(cairn_task_init(id, NULL, 0), CAIRN_OK);
}

void ktest_irq(void (*fn)(void *), void *arg)
{
    cairn_isr_enter(16);
    fn(arg);
    cairn_isr_exit();
}

size_t ktest_trace(uint32_t *out, size_t max)
{
    return cairn_trace_host_read(out, max);
}

unsigned ktest_trace_count(uint8_t ev)
{
    uint32_t w[4096];
    size_t n = ktest_trace(w, 4096);
    unsigned c = 0;
    for (size_t i = 0; i < n; i++)
        c += CAIRN_TRACE_EVENT(w[i]) == ev;
    return c;
}
