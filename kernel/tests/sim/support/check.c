/*
 * Transcript helpers. See check.h.
 */
#include "check.h"

#include "cpu.h"
#include "uart.h"

static unsigned n_checks;
static unsigned n_failed;

void test_begin(const char *name)
{
    uart_puts("# test ");
    uart_puts(name);
    uart_puts("\n");
}

int test_end(void)
{
    uart_puts("# checks=");
    uart_put_udec(n_checks);
    uart_puts(" failed=");
    uart_put_udec(n_failed);
    uart_puts(n_failed == 0 ? " PASS\n" : " FAIL\n");
    return n_failed == 0 ? 0 : 1;
}

unsigned test_failures(void)
{
    return n_failed;
}

void say(const char *s)
{
    uart_puts(s);
    uart_puts("\n");
}

static void verdict(int cond)
{
    n_checks++;
    if (!cond)
        n_failed++;
    uart_puts(cond ? "ok " : "FAIL ");
}

void check(int cond, const char *what)
{
    verdict(cond);
    uart_puts(what);
    uart_puts("\n");
}

void check_eq(const char *what, uint32_t got, uint32_t expect)
{
    verdict(got == expect);
    uart_puts(what);
    uart_puts("=");
    uart_put_udec(got);
    if (got != expect) {
        uart_puts(" expect=");
        uart_put_udec(expect);
    }
    uart_puts("\n");
}

void check_eq_hex(const char *what, uint32_t got, uint32_t expect)
{
    verdict(got == expect);
    uart_puts(what);
    uart_puts("=");
    uart_put_hex(got);
    if (got != expect) {
        uart_puts(" expect=");
        uart_put_hex(expect);
    }
    uart_puts("\n");
}

void check_yes(const char *what, int cond)
{
    verdict(cond);
    uart_puts(what);
    uart_puts(cond ? ": yes\n" : ": no\n");
}

int str_eq(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

void check_str(const char *what, const char *got, const char *expect)
{
    int same = str_eq(got, expect);
    verdict(same);
    uart_puts(what);
    uart_puts("=\"");
    uart_puts(got);
    uart_puts("\"");
    if (!same) {
        uart_puts(" expect=\"");
        uart_puts(expect);
        uart_puts("\"");
    }
    uart_puts("\n");
}

#define SEQ_SIZE 256
static char seq_buf[SEQ_SIZE];
static unsigned seq_len;

void seq_reset(void)
{
    uint32_t pm = cpu_get_primask();
    cpu_irq_disable();
    seq_len = 0;
    seq_buf[0] = '\0';
    if (!pm)
        cpu_irq_enable();
}

void seq_add(const char *token)
{
    uint32_t pm = cpu_get_primask();
    cpu_irq_disable();
    if (seq_len != 0 && seq_len < SEQ_SIZE - 1)
        seq_buf[seq_len++] = ' ';
    while (*token != '\0' && seq_len < SEQ_SIZE - 1)
        seq_buf[seq_len++] = *token++;
    seq_buf[seq_len] = '\0';
    if (!pm)
        cpu_irq_enable();
}

const char *seq_get(void)
{
    return seq_buf;
}
