/*
 * The tree-node workload's shared code (tree.h): the parameter block, the calibrated
 * work, the receive buffer and the markers cairn-sim measures.
 */
#include "tree.h"

#include "cairn_io.h"
#include "cmsdk_timer.h"
#include "cpu.h"
#include "nvic.h"
#include "semihost.h"
#include "uart.h"

#define PARAM_PORTS 4u
#define PARAM_MASK ((1u << PARAM_PORTS) - 1u)
#define CAL_TURNS 1024u

struct tree_params tree_params;
struct tree_counts tree_counts;

static const char *model_name;
static uint32_t turn_cycles_x256; /* one turn of spin(), in 1/256 cycle */
/* Converted once at boot: the division is a library call that would add its own
 * hundreds of cycles to every job. */
static uint32_t sense_turns, forward_turns;
static uint32_t packets_seen, senses_seen;
static uint32_t rx[TREE_RX_SLOTS];
static uint32_t rx_head, rx_count;
static volatile bool stopping; /* the last sensing job is done: drain, then end */
static void finish(void);
static bool drained(void);

static void spin(uint32_t turns)
{
    __asm__ volatile("1:\n\tsubs %0, %0, #1\n\tbne 1b" : "+l"(turns) : : "cc");
}

uint32_t tree_now_cycles(void)
{
    return ~CMSDK_TIMER1->value;
}

/* Not inlined: both calls must cost the same around the loop. */
__attribute__((noinline)) static uint32_t time_spin(uint32_t turns)
{
    uint32_t t0 = tree_now_cycles();
    spin(turns);
    return tree_now_cycles() - t0;
}

static uint32_t turns_of(uint32_t cycles)
{
    uint32_t turns = (uint32_t)(((uint64_t)cycles * 256u) / turn_cycles_x256);
    return turns > 0u ? turns : 1u;
}

void tree_boot(const char *model)
{
    model_name = model;
    if ((CAIRN_PORT_IN_STATUS & PARAM_MASK) != PARAM_MASK) {
        uart_puts("tree: no parameter block on input ports 0-3 (run with a scenario from "
                  "experiments/workloads/)\n");
        sh_exit(2);
    }
    tree_params = (struct tree_params){.sense_cycles = CAIRN_PORT_IN(0),
                                       .forward_cycles = CAIRN_PORT_IN(1),
                                       .senses = CAIRN_PORT_IN(2),
                                       .tick_cycles = CAIRN_PORT_IN(3)};
    CAIRN_PORT_IN_CLEAR = PARAM_MASK;
    CMSDK_TIMER1->ctrl = 0;
    CMSDK_TIMER1->reload = 0xFFFFFFFFu; /* also loads VALUE: now = 0 */
    CMSDK_TIMER1->ctrl = CMSDK_TIMER_CTRL_EN;
    /* Two lengths, so the call and the clock reads cancel out. */
    uint32_t irq = cpu_get_primask();
    cpu_irq_disable();
    uint32_t once = time_spin(CAL_TURNS);
    uint32_t twice = time_spin(2u * CAL_TURNS);
    cpu_set_primask(irq);
    turn_cycles_x256 = (twice - once) * 256u / CAL_TURNS;
    if (tree_params.tick_cycles == 0u || tree_params.senses == 0u) {
        uart_puts("tree: parameter block: IN[2] (sensing jobs) and IN[3] (cycles per tick) "
                  "must be > 0\n");
        sh_exit(2);
    }
    sense_turns = turns_of(tree_params.sense_cycles);
    forward_turns = turns_of(tree_params.forward_cycles);
}

void tree_enable_irqs(uint32_t packet_prio, uint32_t sense_prio)
{
    nvic_set_priority(TREE_IRQ_PACKET, packet_prio);
    nvic_set_priority(TREE_IRQ_SENSE, sense_prio);
    nvic_enable(TREE_IRQ_PACKET);
    nvic_enable(TREE_IRQ_SENSE);
}

/* Clearing before reading the count: a firing in between sets the line again and is
 * found by this read, so the next interrupt may find nothing new, never miss one. */
static uint32_t take_line(unsigned line, uint32_t *seen)
{
    CAIRN_STIM_CLEAR = 1u << line;
    uint32_t count = CAIRN_STIM_COUNT(line);
    uint32_t fresh = count - *seen;
    *seen = count;
    return fresh;
}

uint32_t tree_receive(void)
{
    uint32_t irq = cpu_get_primask();
    cpu_irq_disable();
    uint32_t first = packets_seen + 1u;
    uint32_t fresh = take_line(TREE_LINE_PACKET, &packets_seen);
    if (stopping) {
        tree_counts.after_end += fresh;
        fresh = 0;
    }
    uint32_t taken = 0;
    for (uint32_t k = 0; k < fresh; k++) {
        if (rx_count == TREE_RX_SLOTS) {
            tree_counts.overflow++;
            continue;
        }
        rx[(rx_head + rx_count) % TREE_RX_SLOTS] = first + k;
        rx_count++;
        taken++;
    }
    tree_counts.received += taken;
    cpu_set_primask(irq);
    return taken;
}

void tree_unreceive(void)
{
    uint32_t irq = cpu_get_primask();
    cpu_irq_disable();
    if (rx_count > 0u) {
        rx_count--;
        tree_counts.unqueued++;
    }
    cpu_set_primask(irq);
}

bool tree_forward(void)
{
    uint32_t irq = cpu_get_primask();
    cpu_irq_disable();
    if (rx_count == 0u) {
        cpu_set_primask(irq);
        return false;
    }
    uint32_t seq = rx[rx_head];
    rx_head = (rx_head + 1u) % TREE_RX_SLOTS;
    rx_count--;
    cpu_set_primask(irq);
    spin(forward_turns);
    CAIRN_PORT_OUT(0) = seq;
    tree_counts.forwarded++;
    if (stopping && drained())
        finish();
    return true;
}

uint32_t tree_sense_requests(void)
{
    uint32_t irq = cpu_get_primask();
    cpu_irq_disable();
    uint32_t fresh = take_line(TREE_LINE_SENSE, &senses_seen);
    tree_counts.sense_requests += fresh;
    cpu_set_primask(irq);
    if (stopping && fresh > 0u)
        finish(); /* a sensing period to drain is enough: what is left counts as lost */
    return fresh;
}

static void report(const char *what, uint32_t v)
{
    uart_puts(what);
    uart_put_udec(v);
}

static void finish(void)
{
    cpu_irq_disable();
    uart_puts("tree ");
    uart_puts(model_name);
    report(" sensed=", tree_counts.sensed);
    report(" received=", tree_counts.received);
    report(" forwarded=", tree_counts.forwarded);
    report(" overflow=", tree_counts.overflow);
    report(" unqueued=", tree_counts.unqueued);
    report(" after_end=", tree_counts.after_end);
    report(" turn_cycles_x256=", turn_cycles_x256);
    uart_puts("\n");
    tree_model_report();
    sh_exit(0);
}

static bool drained(void)
{
    uint32_t irq = cpu_get_primask();
    cpu_irq_disable();
    bool empty = rx_count == 0u;
    cpu_set_primask(irq);
    return empty;
}

void tree_sense(void)
{
    spin(sense_turns);
    tree_counts.sensed++;
    CAIRN_PORT_OUT(1) = tree_counts.sensed;
    if (tree_counts.sensed < tree_params.senses)
        return;
    /* The packets received so far are still forwarded (the last one ends the run);
     * later ones are not taken. */
    stopping = true;
    if (drained())
        finish();
}
