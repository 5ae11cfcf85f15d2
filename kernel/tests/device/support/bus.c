/*
 * Bus controller and real-time clock driver of the device test firmware. See bus.h.
 */
#include "bus.h"
#include "check.h"

#include "cpu.h"
#include "nvic.h"
#include "startup.h"

static void (*volatile rx_handler)(void);

void bus_init(void)
{
    CAIRN_BUS_IRQ_EN = 0;
    nvic_disable(CAIRN_IRQ_BUS_RX);
    nvic_clear_pending(CAIRN_IRQ_BUS_RX);
    CAIRN_BUS_IRQ_STATUS = CAIRN_BUS_IRQ_TXDONE;
    CAIRN_BUS_ERR = CAIRN_BUS_ERR_TX_FULL | CAIRN_BUS_ERR_TOO_LONG | CAIRN_BUS_ERR_BAD_DEST;
    cpu_sync();
}

unsigned bus_address(void)
{
    return CAIRN_BUS_ID_ADDR(CAIRN_BUS_ID);
}

unsigned bus_modules(void)
{
    return CAIRN_BUS_ID_MODULES(CAIRN_BUS_ID);
}

int bus_connected(void)
{
    return (CAIRN_BUS_ID & CAIRN_BUS_ID_CONNECTED) != 0;
}

int bus_start(void)
{
    bus_init();
    if (!bus_connected()) {
        say("FAIL bus not connected");
        return -1;
    }
    return (int)bus_address();
}

static void wait_tx_ready(void)
{
    while ((CAIRN_BUS_STATUS & CAIRN_BUS_STATUS_TX_READY) == 0)
        ;
}

void bus_compose(unsigned dest, const void *buf, unsigned len)
{
    const uint8_t *p = buf;
    wait_tx_ready();
    CAIRN_BUS_TX_DEST = dest;
    for (; len >= 4; len -= 4, p += 4)
        CAIRN_BUS_TX_DATA = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                            (uint32_t)p[3] << 24;
    for (; len > 0; len--, p++)
        CAIRN_BUS_TX_DATA8 = *p;
}

void bus_send(unsigned dest, const void *buf, unsigned len)
{
    bus_compose(dest, buf, len);
    bus_commit();
}

void bus_flush(void)
{
    while ((CAIRN_BUS_STATUS & CAIRN_BUS_STATUS_TX_IDLE) == 0)
        ;
}

int bus_try_recv_status(uint8_t *src, void *buf, unsigned cap, uint32_t *status)
{
    uint32_t st = CAIRN_BUS_STATUS;
    if ((st & CAIRN_BUS_STATUS_RX_AVAIL) == 0)
        return -1;
    if (status)
        *status = st;
    if (src)
        *src = (uint8_t)CAIRN_BUS_RX_SRC;
    unsigned len = CAIRN_BUS_RX_LEN;
    unsigned n = len < cap ? len : cap;
    uint8_t *p = buf;
    for (; n >= 4; n -= 4, p += 4) {
        uint32_t w = CAIRN_BUS_RX_DATA;
        p[0] = (uint8_t)w;
        p[1] = (uint8_t)(w >> 8);
        p[2] = (uint8_t)(w >> 16);
        p[3] = (uint8_t)(w >> 24);
    }
    for (; n > 0; n--, p++)
        *p = CAIRN_BUS_RX_DATA8;
    CAIRN_BUS_RX_POP = 1u;
    return (int)len;
}

int bus_try_recv(uint8_t *src, void *buf, unsigned cap)
{
    return bus_try_recv_status(src, buf, cap, 0);
}

/* The NVIC pending bit is left alone: a frame may have come since the caller last looked,
 * and its interrupt must not be lost. A stale pending bit costs one harmless handler run. */
void bus_rx_irq_enable(void)
{
    CAIRN_BUS_IRQ_EN |= CAIRN_BUS_IRQ_RX;
    nvic_enable(CAIRN_IRQ_BUS_RX);
}

/* The default RX handler: mask the (level) RX interrupt so that the handler is not
 * entered again and again while the frame waits to be popped; bus_wait_rx() unmasks it
 * before it sleeps again. With the line masked (low), the pending bit it may have set again
 * during the handler can be cleared safely. */
static void rx_mask(void)
{
    CAIRN_BUS_IRQ_EN &= ~CAIRN_BUS_IRQ_RX;
    nvic_clear_pending(CAIRN_IRQ_BUS_RX);
}

void irq24_handler(void)
{
    void (*fn)(void) = rx_handler;
    if (fn)
        fn();
    else
        rx_mask();
    cpu_dsb();
}

void bus_set_rx_handler(void (*fn)(void))
{
    rx_handler = fn;
}

/* CPU_WAIT_UNTIL's pattern (cpu.h): the FIFO is tested with PRIMASK set, WFI wakes on the
 * pending RX interrupt even then, and the handler runs at the CPSIE. The interrupt is
 * unmasked before each sleep because the default handler masks it. */
void bus_wait_rx(void)
{
    cpu_irq_disable();
    while ((CAIRN_BUS_STATUS & CAIRN_BUS_STATUS_RX_AVAIL) == 0) {
        bus_rx_irq_enable();
        cpu_wfi();
        cpu_irq_enable();
        cpu_irq_disable();
    }
    cpu_irq_enable();
}

int bus_recv_wait_status(uint8_t *src, void *buf, unsigned cap, uint32_t *status)
{
    for (;;) {
        int n = bus_try_recv_status(src, buf, cap, status);
        if (n >= 0)
            return n;
        bus_wait_rx();
    }
}

int bus_recv_wait(uint8_t *src, void *buf, unsigned cap)
{
    return bus_recv_wait_status(src, buf, cap, 0);
}

void bus_power(unsigned addr, int on)
{
    uint32_t v = (addr & 0xFFu) | (on ? CAIRN_BUS_POWER_ON : 0u);
    if (addr != bus_address())
        wait_tx_ready();
    CAIRN_BUS_POWER = v;
    if (addr == bus_address() && !on) {
        /* The write stops the module at once; nothing after it runs. */
        for (;;)
            cpu_wfi();
    }
}

uint32_t rtc_count(void)
{
    return CAIRN_RTC_COUNT;
}

void bus_sleep_forever(void)
{
    cpu_irq_disable();
    CAIRN_BUS_IRQ_EN = 0;
    nvic_disable(CAIRN_IRQ_BUS_RX);
    nvic_clear_pending(CAIRN_IRQ_BUS_RX);
    for (;;)
        cpu_wfi();
}
