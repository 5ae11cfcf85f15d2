/*
 * Cairn's inter-processor bus controller and real-time clock (cairn-sim only; RAZ/WI on
 * QEMU). The bus controller is the module's port on an mPlatform-style TDMA bus: frames of
 * up to max_frame bytes, unicast or broadcast, hardware flow control, module power control.
 * Registers, timing and power rules are documented in docs/device.md.
 */
#ifndef CAIRN_BOARD_CAIRN_BUS_H
#define CAIRN_BOARD_CAIRN_BUS_H

#include <stdint.h>

#define CAIRN_BUS_REG(addr) (*(volatile uint32_t *)(addr))
#define CAIRN_BUS_REG8(addr) (*(volatile uint8_t *)(addr))

#define CAIRN_BUS_BASE 0x41005000u
/* ID: bits 7:0 this module's address, 15:8 modules on the bus, bit 16 connected. */
#define CAIRN_BUS_ID         CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x00u)
#define CAIRN_BUS_STATUS     CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x04u)
#define CAIRN_BUS_IRQ_EN     CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x08u)
#define CAIRN_BUS_IRQ_STATUS CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x0Cu)
#define CAIRN_BUS_TX_DEST    CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x10u)
/* TX_DATA appends the bytes of the access: STR 4 (little-endian), STRH 2, STRB 1. */
#define CAIRN_BUS_TX_DATA    CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x14u)
#define CAIRN_BUS_TX_DATA8   CAIRN_BUS_REG8(CAIRN_BUS_BASE + 0x14u)
#define CAIRN_BUS_TX_SEND    CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x18u)
#define CAIRN_BUS_TX_LEN     CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x1Cu)
#define CAIRN_BUS_RX_SRC     CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x20u)
#define CAIRN_BUS_RX_LEN     CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x24u)
/* RX_DATA reads the next bytes of the head frame: LDR 4, LDRH 2, LDRB 1 (0 past its end). */
#define CAIRN_BUS_RX_DATA    CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x28u)
#define CAIRN_BUS_RX_DATA8   CAIRN_BUS_REG8(CAIRN_BUS_BASE + 0x28u)
#define CAIRN_BUS_RX_POP     CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x2Cu)
#define CAIRN_BUS_ERR        CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x30u)
/* POWER: bits 7:0 a module address, bit 8 on (1) or off (0). */
#define CAIRN_BUS_POWER      CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x34u)
#define CAIRN_BUS_RX_COUNT   CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x38u)
#define CAIRN_BUS_TX_COUNT   CAIRN_BUS_REG(CAIRN_BUS_BASE + 0x3Cu)

#define CAIRN_BUS_ID_ADDR(id)    ((id) & 0xFFu)
#define CAIRN_BUS_ID_MODULES(id) (((id) >> 8) & 0xFFu)
#define CAIRN_BUS_ID_CONNECTED   (1u << 16)

#define CAIRN_BUS_STATUS_TX_READY   (1u << 0) /* the TX queue takes another frame */
#define CAIRN_BUS_STATUS_RX_AVAIL   (1u << 1) /* a frame is in the RX FIFO */
#define CAIRN_BUS_STATUS_TX_IDLE    (1u << 2) /* nothing queued or in flight */
#define CAIRN_BUS_STATUS_RX_CORRUPT (1u << 3) /* the head frame failed its check */
#define CAIRN_BUS_STATUS_ERROR      (1u << 4) /* ERR is not zero */

#define CAIRN_BUS_IRQ_RX     (1u << 0) /* level: a frame is in the RX FIFO */
#define CAIRN_BUS_IRQ_TXDONE (1u << 1) /* latched: a frame was delivered; write 1 to clear */
#define CAIRN_BUS_IRQ_ERR    (1u << 2) /* level: ERR is not zero */

#define CAIRN_BUS_ERR_TX_FULL   (1u << 0) /* TX_SEND with the TX queue full: frame discarded */
#define CAIRN_BUS_ERR_TOO_LONG  (1u << 1) /* TX_DATA beyond max_frame: bytes discarded */
#define CAIRN_BUS_ERR_BAD_DEST  (1u << 2) /* TX_SEND or POWER to no such module: discarded */

#define CAIRN_BUS_BROADCAST 0xFFu
#define CAIRN_BUS_POWER_ON  (1u << 8)

#define CAIRN_IRQ_BUS_RX     24
#define CAIRN_IRQ_BUS_TXDONE 25
#define CAIRN_IRQ_BUS_ERR    26

/* Real-time clock: 32.768 kHz from the module's own crystal (its ppm error included). */
#define CAIRN_RTC_BASE   0x41006000u
#define CAIRN_RTC_COUNT  CAIRN_BUS_REG(CAIRN_RTC_BASE + 0x00u)
#define CAIRN_RTC_ALARM  CAIRN_BUS_REG(CAIRN_RTC_BASE + 0x04u)
#define CAIRN_RTC_CTRL   CAIRN_BUS_REG(CAIRN_RTC_BASE + 0x08u)
#define CAIRN_RTC_STATUS CAIRN_BUS_REG(CAIRN_RTC_BASE + 0x0Cu)
#define CAIRN_RTC_FREQ   CAIRN_BUS_REG(CAIRN_RTC_BASE + 0x10u)
#define CAIRN_RTC_CTRL_ALARM_IE (1u << 0)
#define CAIRN_RTC_STATUS_ALARM  (1u << 0)
#define CAIRN_IRQ_RTC 27

#endif
