/*
 * The abstract tree-network node of "A performance analysis of MANTIS and TinyOS"
 * (section IV.A, Table I), written once and run under every execution model by a thin
 * glue file per model (tree/<model>.c).
 *
 * Two interrupt sources, both from the cairn-sim scenario's stimuli, so a sweep needs no
 * rebuild: packets on stimulus line 0 (the paper's Poisson arrivals, rate
 * lambda_n = (2^n - 1) f_s for a node at level n) and the sensing trigger on line 1
 * (periodic, f_s). The work lengths come from a parameter block: input ports the
 * scenario delivers at time 0 (docs/models.md, "Workloads"):
 *
 *   IN[0] l_s, cycles of one sensing job      IN[2] sensing jobs before the run ends
 *   IN[1] l_p, cycles of one forwarded packet IN[3] cycles per model tick (1 ms)
 *
 * What cairn-sim measures comes from two output ports: OUT[0] gets a packet's sequence
 * number when its forwarding completes, OUT[1] a sensing job's when it completes, so
 * `[[io.delay]]` entries with `match = "sequence"` give the paper's packet processing time
 * e = e_stop - e_start from the stimulus itself; idle periods are the core's sleeps.
 */
#ifndef CAIRN_MODEL_TREE_H
#define CAIRN_MODEL_TREE_H

#include <stdbool.h>
#include <stdint.h>

#define TREE_LINE_PACKET 0u
#define TREE_LINE_SENSE 1u
#define TREE_IRQ_PACKET 18u /* stimulus line 0 */
#define TREE_IRQ_SENSE 19u  /* stimulus line 1 */
#define TREE_RX_SLOTS 32u   /* the radio's receive buffer, in packets */

struct tree_params {
    uint32_t sense_cycles;
    uint32_t forward_cycles;
    uint32_t senses;
    uint32_t tick_cycles;
};
extern struct tree_params tree_params;

struct tree_counts {
    uint32_t received;  /* packets taken into the receive buffer */
    uint32_t overflow;  /* packets the full buffer could not take */
    uint32_t unqueued;  /* packets the model could not schedule (dropped) */
    uint32_t after_end; /* packets that arrived after the last sensing job (not taken) */
    uint32_t forwarded;
    uint32_t sense_requests;
    uint32_t sensed;
};
extern struct tree_counts tree_counts;

/* Reads the parameter block (a run without one prints one line and exits with status 2)
 * and calibrates the work loop. Call first, with interrupts as reset left them. */
void tree_boot(const char *model);
/* Enables both stimulus lines in the NVIC at the given priorities (NVIC_PRIO_*). */
void tree_enable_irqs(uint32_t packet_prio, uint32_t sense_prio);

/* The packet interrupt: clears the line and moves the packets that arrived into the
 * receive buffer; returns how many, each owed one tree_forward(). */
uint32_t tree_receive(void);
/* The model could not schedule the newest received packet: drop it (counted). */
void tree_unreceive(void);
/* Forwards the oldest received packet: l_p cycles of work, then OUT[0] = its sequence.
 * False, doing nothing, when the buffer is empty. */
bool tree_forward(void);

/* The sensing interrupt: clears the line; returns the sensing jobs requested since. */
uint32_t tree_sense_requests(void);
/* One sensing job: l_s cycles, then OUT[1] = its number. After the last job of the run
 * no packet is taken any more; once those received are forwarded, or at the next sensing
 * request if they are not by then, the node reports and the run ends (exit status 0). */
void tree_sense(void);

/* Cycles since tree_boot on timer1, free-running (the Cairn kernel's own clock restarts
 * it): the clock of a model that needs one. */
uint32_t tree_now_cycles(void);

/* Each glue file prints its model's own counters at the end of the run. */
void tree_model_report(void);

#endif
