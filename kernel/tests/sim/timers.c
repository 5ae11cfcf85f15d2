/*
 * CMSDK APB timers 0 and 1 (IRQ 8 and 9): register behaviour, a fixed number
 * of interrupts from each (cleared through INTCLEAR, waited for with WFI),
 * and the level-sensitive interrupt line as seen in the NVIC pending bits.
 * Only counts and flags are printed.
 */
#include <stdint.h>

#include "board.h"
#include "check.h"
#include "cmsdk_timer.h"
#include "cpu.h"
#include "nvic.h"
#include "startup.h"

#define N0 5
#define N1 3

struct timer_state {
    volatile uint32_t count;
    volatile uint32_t limit;
    volatile uint32_t status_at_entry_bad; /* entries where INTSTATUS was 0 */
    volatile uint32_t status_after_clear_bad;
};
static struct timer_state st0, st1;

static void timer_irq(struct cmsdk_timer *t, struct timer_state *s, unsigned irq)
{
    if (t->intstatus != CMSDK_TIMER_INT)
        s->status_at_entry_bad++;
    s->count++;
    int last = s->count >= s->limit;
    if (last) {
        /* Stop before clearing: on QEMU the timer follows the host clock, and a
         * handler delayed by host load could otherwise see one more expiry latch. */
        t->ctrl = 0;
        nvic_disable(irq);
    }
    t->intstatus = CMSDK_TIMER_INT; /* INTCLEAR */
    if (t->intstatus != 0)
        s->status_after_clear_bad++;
    if (last)
        nvic_clear_pending(irq);
    cpu_dsb();
}

void irq8_handler(void) { timer_irq(CMSDK_TIMER0, &st0, IRQ_TIMER0); }
void irq9_handler(void) { timer_irq(CMSDK_TIMER1, &st1, IRQ_TIMER1); }

static void spin(unsigned n)
{
    for (volatile unsigned i = 0; i < n; i++)
        ;
}

static void check_registers(struct cmsdk_timer *t)
{
    t->ctrl = 0;
    t->intstatus = CMSDK_TIMER_INT;
    t->reload = 0x12345678u;
    check_eq_hex("reload readback", t->reload, 0x12345678u);
    t->value = 0x00ABCDEFu;
    check_eq_hex("value readback while stopped", t->value, 0x00ABCDEFu);
    spin(1000);
    check_eq_hex("stopped value holds", t->value, 0x00ABCDEFu);
    t->ctrl = CMSDK_TIMER_CTRL_IRQEN;
    check_eq_hex("ctrl readback", t->ctrl, CMSDK_TIMER_CTRL_IRQEN);
    t->ctrl = 0;
    check_eq_hex("intstatus idle", t->intstatus, 0);
    t->value = 0x00FFFFFFu;
    t->ctrl = CMSDK_TIMER_CTRL_EN;
    spin(10000);
    check_yes("running value counts down", t->value < 0x00FFFFFFu);
    t->ctrl = 0;
}

int main(void)
{
    test_begin("timers");

    say("timer0 registers");
    check_registers(CMSDK_TIMER0);
    say("timer1 registers");
    check_registers(CMSDK_TIMER1);

    /* Interrupts from both timers. */
    st0.limit = N0;
    st1.limit = N1;
    nvic_set_priority(IRQ_TIMER0, 0x80);
    nvic_set_priority(IRQ_TIMER1, 0x80);
    nvic_clear_pending(IRQ_TIMER0);
    nvic_clear_pending(IRQ_TIMER1);
    nvic_enable(IRQ_TIMER0);
    nvic_enable(IRQ_TIMER1);
    CMSDK_TIMER0->reload = 2499u; /* 100 us */
    CMSDK_TIMER0->value = 2499u;
    CMSDK_TIMER1->reload = 4999u; /* 200 us */
    CMSDK_TIMER1->value = 4999u;
    CMSDK_TIMER0->ctrl = CMSDK_TIMER_CTRL_EN | CMSDK_TIMER_CTRL_IRQEN;
    CMSDK_TIMER1->ctrl = CMSDK_TIMER_CTRL_EN | CMSDK_TIMER_CTRL_IRQEN;
    CPU_WAIT_UNTIL(st0.count >= N0 && st1.count >= N1);
    spin(20000);
    check_eq("timer0 interrupts", st0.count, N0);
    check_eq("timer1 interrupts", st1.count, N1);
    check_eq("intstatus set at entry (bad entries)",
             st0.status_at_entry_bad + st1.status_at_entry_bad, 0);
    check_eq("intstatus clear after intclear (bad entries)",
             st0.status_after_clear_bad + st1.status_after_clear_bad, 0);
    check_eq("timer0 stopped", CMSDK_TIMER0->ctrl & CMSDK_TIMER_CTRL_EN, 0);
    check_eq("timer0 intstatus", CMSDK_TIMER0->intstatus, 0);
    check_eq("timer1 intstatus", CMSDK_TIMER1->intstatus, 0);
    check_eq("nvic pending timers", (NVIC_ISPR >> IRQ_TIMER0) & 3u, 0);

    /* Level-sensitive line: with the NVIC input disabled, an expiry sets
     * INTSTATUS and the NVIC pending bit; INTCLEAR then ICPR discards it. */
    st0.count = 0;
    st0.limit = 100;
    CMSDK_TIMER0->reload = 999u;
    CMSDK_TIMER0->value = 999u;
    CMSDK_TIMER0->ctrl = CMSDK_TIMER_CTRL_EN | CMSDK_TIMER_CTRL_IRQEN;
    uint32_t n = 0;
    while (CMSDK_TIMER0->intstatus == 0 && n < 10000000u)
        n++;
    CMSDK_TIMER0->ctrl = 0;
    check_eq("expiry sets intstatus", CMSDK_TIMER0->intstatus, 1);
    check_eq("disabled irq pending in nvic", nvic_is_pending(IRQ_TIMER0), 1);
    CMSDK_TIMER0->intstatus = CMSDK_TIMER_INT;
    nvic_clear_pending(IRQ_TIMER0);
    cpu_sync();
    check_eq("pending after intclear and icpr", nvic_is_pending(IRQ_TIMER0), 0);
    nvic_enable(IRQ_TIMER0);
    cpu_sync();
    check_eq("no interrupt after clearing", st0.count, 0);

    /* Same, but enable the NVIC input while the line is still high: the
     * handler runs once and clears it. */
    nvic_disable(IRQ_TIMER0);
    CMSDK_TIMER0->value = 999u;
    CMSDK_TIMER0->ctrl = CMSDK_TIMER_CTRL_EN | CMSDK_TIMER_CTRL_IRQEN;
    n = 0;
    while (CMSDK_TIMER0->intstatus == 0 && n < 10000000u)
        n++;
    CMSDK_TIMER0->ctrl = 0;
    nvic_enable(IRQ_TIMER0);
    cpu_sync();
    check_eq("held interrupt taken once enabled", st0.count, 1);
    check_eq("intstatus after handler", CMSDK_TIMER0->intstatus, 0);

    return test_end();
}
