/*
 * Cairn's simulated I/O devices in the Cairn window (cairn-sim only; RAZ/WI on QEMU):
 * marker GPIO, I/O ports, ADC and the stimulus interrupt controller. Registers are
 * documented in docs/board-mps2-an385.md ("Cairn devices"); what the scenario feeds into
 * them and what cairn-sim measures on them in docs/stimuli.md.
 */
#ifndef CAIRN_BOARD_CAIRN_IO_H
#define CAIRN_BOARD_CAIRN_IO_H

#include <stdint.h>

#define CAIRN_REG(addr) (*(volatile uint32_t *)(addr))

/* Marker GPIO: 32 output pins; every write is logged with its cycle. */
#define CAIRN_GPIO_BASE 0x41001000u
#define CAIRN_GPIO_OUT  CAIRN_REG(CAIRN_GPIO_BASE + 0x0u)
#define CAIRN_GPIO_SET  CAIRN_REG(CAIRN_GPIO_BASE + 0x4u)
#define CAIRN_GPIO_CLR  CAIRN_REG(CAIRN_GPIO_BASE + 0x8u)
#define CAIRN_GPIO_TGL  CAIRN_REG(CAIRN_GPIO_BASE + 0xCu)

/* I/O ports: OUT[0..7] (a write is an output event), IN[0..7] (scenario values). */
#define CAIRN_PORTS_BASE     0x41002000u
#define CAIRN_PORT_OUT(n)    CAIRN_REG(CAIRN_PORTS_BASE + 0x000u + 4u * (unsigned)(n))
#define CAIRN_PORT_IN(n)     CAIRN_REG(CAIRN_PORTS_BASE + 0x100u + 4u * (unsigned)(n))
#define CAIRN_PORT_IN_STATUS CAIRN_REG(CAIRN_PORTS_BASE + 0x180u)
#define CAIRN_PORT_IN_CLEAR  CAIRN_REG(CAIRN_PORTS_BASE + 0x184u)
#define CAIRN_PORT_IN_IRQ_EN CAIRN_REG(CAIRN_PORTS_BASE + 0x188u)

/* ADC: up to 8 channels defined by the scenario. */
#define CAIRN_ADC_BASE        0x41003000u
#define CAIRN_ADC_CTRL        CAIRN_REG(CAIRN_ADC_BASE + 0x00u)
#define CAIRN_ADC_STATUS      CAIRN_REG(CAIRN_ADC_BASE + 0x04u)
#define CAIRN_ADC_CLEAR       CAIRN_REG(CAIRN_ADC_BASE + 0x08u)
#define CAIRN_ADC_NCHAN       CAIRN_REG(CAIRN_ADC_BASE + 0x0Cu)
#define CAIRN_ADC_RATE_HZ     CAIRN_REG(CAIRN_ADC_BASE + 0x10u)
#define CAIRN_ADC_BITS        CAIRN_REG(CAIRN_ADC_BASE + 0x14u)
#define CAIRN_ADC_DATA(n)     CAIRN_REG(CAIRN_ADC_BASE + 0x20u + 4u * (unsigned)(n))
#define CAIRN_ADC_CTRL_PERIODIC (1u << 0)
#define CAIRN_ADC_CTRL_IRQEN    (1u << 1)
#define CAIRN_ADC_STATUS_READY   (1u << 0)
#define CAIRN_ADC_STATUS_OVERRUN (1u << 1)

/* Stimulus interrupt controller: line k raises IRQ CAIRN_IRQ_STIM(k). */
#define CAIRN_STIM_BASE     0x41004000u
#define CAIRN_STIM_STATUS   CAIRN_REG(CAIRN_STIM_BASE + 0x00u)
#define CAIRN_STIM_CLEAR    CAIRN_REG(CAIRN_STIM_BASE + 0x04u)
#define CAIRN_STIM_COUNT(k) CAIRN_REG(CAIRN_STIM_BASE + 0x10u + 4u * (unsigned)(k))
#define CAIRN_STIM_LINES    6u

#define CAIRN_IRQ_INPUT   16
#define CAIRN_IRQ_ADC     17
#define CAIRN_IRQ_STIM(k) (18 + (k))

#endif
