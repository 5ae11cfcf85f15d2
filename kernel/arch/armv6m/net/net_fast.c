/*
 * Cairn OS armv6m port: the bus manager's two fast paths in assembly (docs/distributed.md,
 * "Sending" and "Receiving"); kernel/core/net/rx_fast.c and send_fast.c are the same in C
 * (the host port's, tested there). Linked only into firmware that has the bus manager
 * (kernel/firmware.mk, FW_NET_SRCS). Each takes the common case and otherwise goes on as
 * before, which gives the same result.
 *
 * Both reach the controller's registers themselves (the board's register map, cairn_bus.h),
 * where the C twins call the driver (cairn/bus.h): a call's prologue, its literal loads and
 * its copies through memory were a third of each path.
 *
 * cairn__net_rx_vector (the bus RX vector branches here; its binding is the board's
 *   cairn_bus_rx_binding): when the interrupt returns to Thread mode on the main stack,
 *   nothing is queued, the bus manager is ready (started, not running), the RX fast path's
 *   frame is free, and exactly one frame waits, not corrupt, of at most CAIRN_NET_RX_BLOCK
 *   payload bytes: its header is read into registers. A message frame to a local task that
 *   is ready and outranks the interrupted level strictly, whose payload has a receive block,
 *   is read into the block and popped; the message is the one the bus manager builds, in the
 *   fast path's frame, which becomes the top of the execution stack, and the exception
 *   returns into the task's handler through a frame fabricated below the interrupted code's,
 *   as cairn__armv6m_return_into's (kernel/arch/armv6m/fast.c). Any other frame leaves its
 *   header in rx_peek for the bus manager (rx_peeked), and the interrupt goes on as the
 *   binding's level-sensitive vector (cairn__irq_fast_level). With the time synchronisation
 *   on, the C path decides, given the counter read right after that check, a fixed
 *   instruction sequence from the vector's entry: a TIMESYNC frame's RX stamp (the C path's
 *   checks, its header read and the bus manager's code are then no part of it).
 *
 * cairn__net_txdone_vector (the bus TX-done vector branches here; its binding is the board's
 *   cairn_bus_txdone_binding): with nothing buffered and the time synchronisation off, the
 *   latch is cleared and the interrupt returns; else it goes on as the binding's vector. The
 *   C twin is kernel/core/net/tx_done_fast.c, which says why that is enough.
 *
 * cairn__send_remote (cairn_send's fast path branches here when the route's task has no
 *   local TCB, after its checks: a task's handler, an existing output port, a payload that
 *   is not a heap block; its registers {r4-r7, lr} pushed, r0-r2 the arguments, r5 the
 *   sender's TCB): a remote task on a module not powered off, a payload that fits a frame,
 *   the plain bus manager (not the reliable layer), nothing buffered and the controller idle:
 *   the frame goes to the controller as the bus manager's submit writes it. Else
 *   cairn__send_general.
 */
#include "../../../core/net/net.h"

#include "cairn_bus.h"
#include "cmsdk_timer.h"

#define S_(x) #x
#define S(x) S_(x)

void cairn__net_rx_vector(void);
void cairn__net_txdone_vector(void);
void cairn__armv6m_return_into(void);
void cairn__armv6m_direct_end(void);

#define OFF(t, f) __builtin_offsetof(t, f)

/* cairn_net's fields the paths reach with immediate offsets (checked by the assembler). */
#define N_PEEKED 1
#define N_SEQ 2
#define N_ADDR 4
#define N_PEEK 8
#define N_TXQ 20
#define N_CACHE 24
#define N_FRAME 40
#define N_OFF 68
#define N_REMOTE 100
_Static_assert(OFF(cairn_net_t, rx_cached) == 0 && OFF(cairn_net_t, rx_peeked) == N_PEEKED &&
                   OFF(cairn_net_t, seq) == N_SEQ && OFF(cairn_net_t, address) == N_ADDR &&
                   OFF(cairn_net_t, rx_peek) == N_PEEK && OFF(cairn_net_t, txq) == N_TXQ &&
                   OFF(cairn_net_t, rx_cache) == N_CACHE && OFF(cairn_net_t, rx_frame) == N_FRAME &&
                   OFF(cairn_net_t, off) == N_OFF && OFF(cairn_net_t, remote) == N_REMOTE,
               "cairn_net layout");
_Static_assert(sizeof(cairn_rtcb_t) == 3, "remote TCB: id, prio, module");
_Static_assert(OFF(cairn_net_stats_t, tx_immediate) == OFF(cairn_net_stats_t, tx_frames) + 4 &&
                   OFF(cairn_net_stats_t, tx_fast) == OFF(cairn_net_stats_t, tx_frames) + 8 &&
                   OFF(cairn_net_stats_t, rx_fast) == OFF(cairn_net_stats_t, rx_frames) + 4,
               "the counters the paths increment together");
/* The fast path's frame, and its message's words as the receive path writes them. */
#define F_BELOW N_FRAME
#define F_TCB (N_FRAME + CAIRN_FRAME_TCB)
#define F_PRIO (N_FRAME + CAIRN_FRAME_PRIO)
#define F_MSG (N_FRAME + CAIRN_FRAME_MSG)
#define M_NEXT 0
#define M_PAYLOAD 4
#define M_LEN 8
#define M_PRIO 12
_Static_assert(OFF(cairn_msg_t, payload) == M_PAYLOAD && OFF(cairn_msg_t, len) == M_LEN &&
                   OFF(cairn_msg_t, port) == M_LEN + 2 && OFF(cairn_msg_t, src) == M_LEN + 3 &&
                   OFF(cairn_msg_t, prio) == M_PRIO && OFF(cairn_msg_t, dst) == M_PRIO + 1 &&
                   OFF(cairn_msg_t, flags) == M_PRIO + 2 && OFF(cairn_msg_t, reserved) == M_PRIO + 3,
               "message layout");
/* The word whose low byte is isr_depth (little-endian). */
#define K_ISR 36
_Static_assert(OFF(cairn_kernel_t, isr_depth) == K_ISR, "kernel layout");
#define TCB_ID (CAIRN_TCB_PRIO + 1)

/* The controller's registers, from its base (cairn_bus.h). */
#define R_STATUS 0x04
#define R_IRQ_STATUS 0x0C
#define R_TX_DEST 0x10
#define R_TX_DATA 0x14
#define R_TX_SEND 0x18
#define R_RX_SRC 0x20
#define R_RX_LEN 0x24
#define R_RX_DATA 0x28
#define R_RX_POP 0x2C
#define R_RX_COUNT 0x38
#define BUS(r) (CAIRN_BUS_BASE + (r))
_Static_assert(&CAIRN_BUS_STATUS == &CAIRN_BUS_REG(BUS(R_STATUS)) &&
                   &CAIRN_BUS_IRQ_STATUS == &CAIRN_BUS_REG(BUS(R_IRQ_STATUS)) &&
                   &CAIRN_BUS_TX_DEST == &CAIRN_BUS_REG(BUS(R_TX_DEST)) &&
                   &CAIRN_BUS_TX_DATA == &CAIRN_BUS_REG(BUS(R_TX_DATA)) &&
                   &CAIRN_BUS_TX_SEND == &CAIRN_BUS_REG(BUS(R_TX_SEND)) &&
                   &CAIRN_BUS_RX_SRC == &CAIRN_BUS_REG(BUS(R_RX_SRC)) &&
                   &CAIRN_BUS_RX_LEN == &CAIRN_BUS_REG(BUS(R_RX_LEN)) &&
                   &CAIRN_BUS_RX_DATA == &CAIRN_BUS_REG(BUS(R_RX_DATA)) &&
                   &CAIRN_BUS_RX_POP == &CAIRN_BUS_REG(BUS(R_RX_POP)) &&
                   &CAIRN_BUS_RX_COUNT == &CAIRN_BUS_REG(BUS(R_RX_COUNT)),
               "controller registers");
_Static_assert(CAIRN_BUS_STATUS_RX_CORRUPT == 1u << 3 && CAIRN_BUS_STATUS_TX_IDLE == 1u << 2,
               "the status bits the paths shift into the sign");
_Static_assert(CAIRN_NET_HEADER == 10u && CAIRN_NET_RX_BLOCK <= 16u,
               "the header is two words and a halfword; a receive block at most four words");

/* Time synchronisation's RX stamp is the counter at the receiver's wake-up (docs/distributed.md,
 * "Time synchronisation"): the counter's read at label 17 less the cycles from a wake-up by the
 * RX interrupt to that read, at zero wait states: arch_idle's BX (2), cairn_idle's MSR PRIMASK
 * (3), the exception's entry (15), irq24_handler's B (2), the path from cairn__net_rx_vector to
 * label 17 (32) and the LDR of the counter's address (2). The receiver then goes back the
 * wake-up's own time (rx_latency_ns); the master's watch takes off its own few cycles
 * (bus_driver.c), so that both stamp the same instant. A change to this path changes the
 * figure: test_timesync.py's check of the receivers' offset against the master fails. */
#define RX_STAMP_CYCLES 56

/* Trace words (event code << 24). */
#define EV_SEND 1
#define EV_START 2
_Static_assert(EV_SEND == CAIRN_EV_SEND && EV_START == CAIRN_EV_START, "event codes");

/* The bus manager's TCB, cairn_k.tasks[CAIRN_TASK_NET], the last task ID's: an LDR's
 * immediate offset reaches it up to 16 task IDs; a firmware built with more (a larger
 * CAIRN_MAX_TASKS) puts the offset in r2 first, one cycle more. */
_Static_assert(CAIRN_TASK_NET == CAIRN_MAX_TASKS, "the bus manager has the last task ID");
#if CAIRN_K_TASKS + 4 * CAIRN_MAX_TASKS <= 124
#define LOAD_NET_TCB "ldr   r2, [r4, #%c[nettcb]]\n\t"
#else
#define LOAD_NET_TCB                                                                               \
    "movs  r2, #%c[nettcb]\n\t"                                                                    \
    "ldr   r2, [r4, r2]\n\t"
#endif
_Static_assert(CAIRN_K_TASKS + 4 * CAIRN_MAX_TASKS <= 255, "the offset fits a MOVS");

/* Registers in the receive path: r4 cairn_k, r5 cairn_net, r6 the interrupted top, r7 the
 * destination's TCB, r3 the controller; the header's words in r0, r1 and (once its length
 * is checked) the payload length in r2. The checks that keep the controller to the bus
 * manager come before the header is read, the other kernel checks after its kind, so that a
 * frame of another kind (a multicast, the reliable layer's) is declined sooner. Its rare
 * parts come first, before its entry cairn__net_rx_vector, in reach of its conditional
 * branches; the function's symbol spans both, so profiles name the path by it. */
void cairn__net_rx_vector_body(void);
__attribute__((naked, section(".text.cairn_fast.net_rx"))) void cairn__net_rx_vector_body(void)
{
    __asm__ volatile(
        "17:\n\t" /* time synchronisation on: the C path, given the counter (arch_timer_now) */
        "ldr   r0, =%c[counter]\n\t"
        "ldr   r0, [r0]\n\t"
        "mvns  r0, r0\n\t"
        "subs  r0, #" S(RX_STAMP_CYCLES) "\n\t"
        "bl    cairn__net_rx_fast\n\t"
        "movs  r1, #7\n\t"
        "rsbs  r1, r1, #0\n\t"
        "mov   lr, r1\n\t" /* EXC_RETURN 0xFFFFFFF9 again */
        "pop   {r4, r5, r6, r7}\n\t"
        "cmp   r0, #0\n\t"
        "beq   19f\n\t"
        "b     cairn__armv6m_return_into\n\t" /* r0 = the frame */
        "15:\n\t" /* the header is read: the bus manager takes the frame from it */
        "mov   r2, r7\n\t"
        "16:\n\t"
        "str   r0, [r5, #" S(N_PEEK) "]\n\t"
        "str   r1, [r5, #" S(N_PEEK) " + 4]\n\t"
        "str   r2, [r5, #" S(N_PEEK) " + 8]\n\t"
        "movs  r1, #1\n\t"
        "strb  r1, [r5, #" S(N_PEEKED) "]\n\t"
        "18:\n\t"
        "pop   {r4, r5, r6, r7}\n\t"
        "19:\n\t"
        "ldr   r0, =cairn_bus_rx_binding\n\t"
        "b     cairn__irq_fast_level\n\t"
        "12:\n\t" /* the payload's other words */
        "ldr   r6, [r3, #" S(R_RX_DATA) "]\n\t"
        "str   r6, [r4, #4]\n\t"
        "cmp   r2, #8\n\t"
        "bls   13f\n\t"
        "ldr   r6, [r3, #" S(R_RX_DATA) "]\n\t"
        "str   r6, [r4, #8]\n\t"
        "cmp   r2, #12\n\t"
        "bls   13f\n\t"
        "ldr   r6, [r3, #" S(R_RX_DATA) "]\n\t"
        "str   r6, [r4, #12]\n\t"
        "b     13f\n\t"
        ".global cairn__net_rx_vector\n\t"
        ".type   cairn__net_rx_vector, %%function\n\t"
        ".thumb_func\n"
        "cairn__net_rx_vector:\n\t"
        "cpsid i\n\t"
        "mov   r1, lr\n\t"
        "adds  r1, #7\n\t" /* EXC_RETURN 0xFFFFFFF9: back to Thread mode, main stack? */
        "bne   19b\n\t"
        "push  {r4, r5, r6, r7}\n\t"
        "ldr   r4, =cairn_k\n\t"
        "ldr   r5, =cairn_net\n\t"
        "ldrb  r1, [r5, #" S(N_PEEKED) "]\n\t"
        LOAD_NET_TCB
        "cmp   r2, #0\n\t"
        "beq   18b\n\t"
        "ldrb  r2, [r2, #" S(CAIRN_TCB_FLAGS) "]\n\t"
        "lsrs  r2, #5\n\t"
        "subs  r2, #1\n\t"
        "orrs  r1, r2\n\t"
        "bne   18b\n\t" /* a header already read, the bus manager not started or running:
                           the controller is not the fast path's */
        "ldr   r2, =%c[tson]\n\t"
        "ldrb  r2, [r2]\n\t"
        "cmp   r2, #0\n\t"
        "bne   17b\n\t"
        "ldr   r3, =" S(CAIRN_BUS_BASE) "\n\t"
        "ldr   r0, [r3, #" S(R_RX_COUNT) "]\n\t"
        "cmp   r0, #1\n\t"
        "bne   18b\n\t" /* none, or frames behind it */
        "ldr   r0, [r3, #" S(R_STATUS) "]\n\t"
        "lsls  r0, #28\n\t"
        "bmi   18b\n\t" /* corrupt */
        "ldr   r2, [r3, #" S(R_RX_LEN) "]\n\t"
        "subs  r2, #%c[header]\n\t"
        "cmp   r2, #%c[block]\n\t"
        "bhi   18b\n\t" /* shorter than a header, or a payload beyond a receive block */
        "ldr   r0, [r3, #" S(R_RX_DATA) "]\n\t"  /* kind | source << 8 | task << 16 | port << 24 */
        "ldr   r1, [r3, #" S(R_RX_DATA) "]\n\t"  /* prio | src << 8 | seq << 16 */
        "ldrh  r7, [r3, #" S(R_RX_DATA) "]\n\t" /* length */
#if CAIRN_TRACE_ENABLED /* the trace words below read the header from there */
        "str   r0, [r5, #" S(N_PEEK) "]\n\t"
        "str   r1, [r5, #" S(N_PEEK) " + 4]\n\t"
        "str   r7, [r5, #" S(N_PEEK) " + 8]\n\t"
#endif
        "cmp   r7, r2\n\t"
        "bne   15b\n\t"
        "ldr   r7, [r3, #" S(R_RX_SRC) "]\n\t"
        "lsls  r7, #8\n\t"
        "adds  r7, #%c[kind]\n\t"
        "eors  r7, r0\n\t"
        "lsls  r7, #16\n\t"
        "bne   16b\n\t" /* not a message frame, or not from the controller's source */
        /* The kernel's state (after the kind: a frame of another kind is declined sooner). */
        "ldr   r6, [r4, #" S(CAIRN_K_QUEUE) "]\n\t"
        "ldr   r7, [r4, #" S(K_ISR) "]\n\t"
        "lsls  r7, #24\n\t"
        "orrs  r6, r7\n\t"
        "bne   16b\n\t" /* queued messages, in an interrupt handler */
        "ldr   r6, [r4, #" S(CAIRN_K_TOP) "]\n\t"
        "cmp   r6, #0\n\t"
        "beq   2f\n\t"
        "movs  r3, #" S(N_FRAME) "\n\t"
        "adds  r3, r5\n\t"
        "mov   r7, r6\n\t"
        "1:\n\t" /* the fast path's frame is free unless it is on the stack */
        "cmp   r7, r3\n\t"
        "beq   16b\n\t"
        "ldr   r7, [r7]\n\t"
        "cmp   r7, #0\n\t"
        "bne   1b\n\t"
        "ldr   r3, =" S(CAIRN_BUS_BASE) "\n\t"
        "2:\n\t"
        "lsrs  r7, r0, #24\n\t"
        "subs  r7, #1\n\t"
        "cmp   r7, #%c[portmax]\n\t"
        "bhi   16b\n\t" /* not an input port a message may be sent to */
        "lsls  r7, r0, #8\n\t"
        "lsrs  r7, #24\n\t"
        "cmp   r7, #%c[maxtasks]\n\t"
        "bhi   16b\n\t"
        "lsls  r7, #2\n\t"
        "adds  r7, r4\n\t"
        "ldr   r7, [r7, #" S(CAIRN_K_TASKS) "]\n\t"
        "cmp   r7, #0\n\t"
        "beq   16b\n\t" /* no local task: the bus manager counts it */
        "ldrb  r4, [r7, #" S(CAIRN_TCB_FLAGS) "]\n\t"
        "lsrs  r4, #5\n\t"
        "cmp   r4, #1\n\t"
        "bne   16b\n\t" /* not READY alone */
        "cmp   r6, #0\n\t"
        "beq   3f\n\t"
        "ldrb  r4, [r7, #" S(CAIRN_TCB_PRIO) "]\n\t"
        "ldrb  r3, [r6, #" S(CAIRN_FRAME_PRIO) "]\n\t"
        "cmp   r4, r3\n\t"
        "bls   16b\n\t" /* not strictly above the interrupted level */
        "ldr   r3, =" S(CAIRN_BUS_BASE) "\n\t"
        "3:\n\t"
        "movs  r4, #0\n\t" /* no payload, no block */
        "movs  r6, #%c[remote]\n\t" /* the message's flags */
        "cmp   r2, #0\n\t"
        "beq   4f\n\t"
        "ldrb  r4, [r5]\n\t" /* rx_cached */
        "subs  r4, #1\n\t"
        "bmi   16b\n\t" /* no receive block: the bus manager allocates one */
        /* Taken: the frame is read and popped, the message and frame written. */
        "strb  r4, [r5]\n\t"
        "lsls  r4, #2\n\t"
        "adds  r4, r5\n\t"
        "ldr   r4, [r4, #" S(N_CACHE) "]\n\t"
        "ldr   r6, [r3, #" S(R_RX_DATA) "]\n\t"
        "str   r6, [r4]\n\t"
        "cmp   r2, #4\n\t"
        "bhi   12b\n\t"
        "13:\n\t"
        "movs  r6, #%c[heapremote]\n\t"
        "4:\n\t"
        "str   r3, [r3, #" S(R_RX_POP) "]\n\t"
        /* len | port << 16 | src << 24 */
        "lsrs  r3, r0, #24\n\t"
        "lsls  r3, #16\n\t"
        "orrs  r2, r3\n\t"
        "lsls  r3, r1, #16\n\t"
        "lsrs  r3, #24\n\t"
        "lsls  r3, #24\n\t"
        "orrs  r2, r3\n\t"
        /* prio | dst << 8 | flags << 16 (reserved 0) */
        "lsls  r0, #8\n\t"
        "lsrs  r0, #24\n\t"
        "lsls  r0, #8\n\t"
        "ldrb  r1, [r7, #" S(CAIRN_TCB_PRIO) "]\n\t"
        "orrs  r0, r1\n\t"
        "lsls  r6, #16\n\t"
        "orrs  r0, r6\n\t"
        "str   r4, [r5, #" S(F_MSG) " + " S(M_PAYLOAD) "]\n\t"
        "str   r2, [r5, #" S(F_MSG) " + " S(M_LEN) "]\n\t"
        "str   r0, [r5, #" S(F_MSG) " + " S(M_PRIO) "]\n\t"
        "movs  r3, #0\n\t"
        "str   r3, [r5, #" S(F_MSG) " + " S(M_NEXT) "]\n\t"
        /* The frame: below, tcb, prio; the task on the stack; the new top. */
        "ldr   r2, =cairn_k\n\t"
        "ldr   r3, [r2, #" S(CAIRN_K_TOP) "]\n\t"
        "str   r3, [r5, #" S(F_BELOW) "]\n\t"
        "str   r7, [r5, #" S(F_TCB) "]\n\t"
        "str   r1, [r5, #" S(F_PRIO) "]\n\t" /* prio, reserved 0 */
        "movs  r3, #%c[readyonstack]\n\t"
        "strb  r3, [r7, #" S(CAIRN_TCB_FLAGS) "]\n\t"
        "movs  r1, #" S(F_MSG) "\n\t"
        "adds  r1, r5\n\t" /* the message */
        "mov   r3, r1\n\t"
        "subs  r3, #" S(CAIRN_FRAME_MSG) "\n\t"
        "str   r3, [r2, #" S(CAIRN_K_TOP) "]\n\t"
        "ldr   r2, =%c[rxframes]\n\t"
        "ldm   r2!, {r0, r3}\n\t"
        "adds  r0, #1\n\t"
        "adds  r3, #1\n\t"
        "subs  r2, #8\n\t"
        "stm   r2!, {r0, r3}\n\t"
#if CAIRN_TRACE_ENABLED
        "ldr   r2, =" S(CAIRN_TRACE_ADDR) "\n\t"
        "ldrb  r0, [r5, #" S(N_PEEK) " + 1]\n\t"
        "lsls  r0, #16\n\t"
        "ldrh  r3, [r5, #" S(N_PEEK) " + 6]\n\t"
        "orrs  r0, r3\n\t"
        "movs  r3, #%c[evrecv]\n\t"
        "lsls  r3, #24\n\t"
        "orrs  r0, r3\n\t"
        "str   r0, [r2]\n\t" /* NET_RECV: source module, sequence */
        "ldrb  r0, [r5, #" S(N_PEEK) " + 2]\n\t"
        "lsls  r0, #16\n\t"
        "ldrb  r3, [r5, #" S(N_PEEK) " + 3]\n\t"
        "orrs  r0, r3\n\t" /* task << 16 | port */
        "movs  r3, #%c[evrecvto]\n\t"
        "lsls  r3, #24\n\t"
        "orrs  r3, r0\n\t"
        "str   r3, [r2]\n\t" /* NET_RECV_TO */
        "movs  r3, #" S(EV_SEND) "\n\t"
        "lsls  r3, #24\n\t"
        "orrs  r3, r0\n\t"
        "str   r3, [r2]\n\t" /* SEND */
        "movs  r3, #" S(EV_START) "\n\t"
        "lsls  r3, #24\n\t"
        "orrs  r3, r0\n\t"
        "str   r3, [r2]\n\t" /* START */
#endif
        /* The exception returns into the handler through a frame fabricated below the
         * interrupted code's, where r4-r7 were pushed: r0 = state, r1 = the message,
         * lr = cairn__armv6m_direct_end, pc = the handler, xPSR = Thumb. */
        "ldm   r7!, {r0, r3}\n\t" /* state, handler */
        "mov   r2, sp\n\t"
        "subs  r2, #16\n\t"
        "mov   sp, r2\n\t"
        "stm   r2!, {r0, r1}\n\t"
        "adds  r2, #8\n\t"
        "ldm   r2!, {r4, r5, r6, r7}\n\t"
        "subs  r2, #12\n\t"
        "ldr   r0, =cairn__armv6m_direct_end\n\t"
        "lsrs  r1, r3, #1\n\t"
        "lsls  r1, #1\n\t" /* pc: bit 0 clear */
        "movs  r3, #1\n\t"
        "lsls  r3, #24\n\t"
        "stm   r2!, {r0, r1, r3}\n\t"
        "cpsie i\n\t"
        "bx    lr\n\t"
        ".ltorg\n\t" ::[nettcb] "i"(CAIRN_K_TASKS + 4 * CAIRN_TASK_NET),
        [tson] "i"(&cairn_net.ts.on), [counter] "i"(&CMSDK_TIMER1->value),
        [header] "i"(CAIRN_NET_HEADER),
        [block] "i"(CAIRN_NET_RX_BLOCK), [kind] "i"(CAIRN_NET_KIND_MSG),
        [portmax] "i"(CAIRN_PORT_LIMIT - 2), [maxtasks] "i"(CAIRN_MAX_TASKS),
        [remote] "i"(CAIRN_MSG_REMOTE), [heapremote] "i"(CAIRN_MSG_HEAP | CAIRN_MSG_REMOTE),
        [readyonstack] "i"(0x60), [rxframes] "i"(&cairn_net.stats.rx_frames),
        [evrecv] "i"(CAIRN_EV_NET_RECV), [evrecvto] "i"(CAIRN_EV_NET_RECV_TO));
}

__attribute__((naked, section(".text.cairn_fast.net_txdone"))) void cairn__net_txdone_vector(void)
{
    __asm__ volatile(
        "cpsid i\n\t"
        "ldr   r0, =cairn_net\n\t"
        "ldr   r1, [r0, #" S(N_TXQ) "]\n\t"
        "ldr   r2, =%c[tson]\n\t"
        "ldrb  r2, [r2]\n\t"
        "orrs  r1, r2\n\t"
        "bne   1f\n\t" /* buffered messages, or a SYNC's time stamp: the bus manager's */
        "ldr   r0, =" S(CAIRN_BUS_BASE) "\n\t"
        "movs  r1, #%c[txdone]\n\t"
        "str   r1, [r0, #" S(R_IRQ_STATUS) "]\n\t"
        "cpsie i\n\t"
        "bx    lr\n\t"
        "1:\n\t"
        "ldr   r0, =cairn_bus_txdone_binding\n\t"
        "b     cairn__irq_fast_level\n\t"
        ".ltorg\n\t" ::[tson] "i"(&cairn_net.ts.on), [txdone] "i"(CAIRN_BUS_IRQ_TXDONE));
}

/* Registers in the send path: r0-r2 the arguments until the frame is committed (r12 keeps
 * r0 for the general path), r4 cairn_net then the controller, r6 the remote TCB then
 * PRIMASK, r7 the route then the header's first word, r5 the sender then the second, r3 the
 * module. Nothing the event log needs is computed before TX_SEND, so the log costs the
 * sender's measured part nothing. */
__attribute__((naked, section(".text.cairn_fast.net_send"))) void cairn__send_remote(void)
{
    __asm__ volatile(
        "ldr   r3, =%c[knet]\n\t"
        "ldr   r3, [r3]\n\t"
        "ldr   r4, =cairn__net_plain_ops\n\t"
        "cmp   r3, r4\n\t"
        "bne   9f\n\t" /* the reliable layer, or no bus manager */
        "cmp   r2, #%c[maxpayload]\n\t"
        "bhi   9f\n\t"
        "lsls  r7, r0, #1\n\t"
        "adds  r7, r5\n\t"
        "ldrh  r7, [r7, #" S(CAIRN_TCB_ROUTES) "]\n\t" /* task | port << 8 */
        "uxtb  r6, r7\n\t"
        "subs  r6, #1\n\t"
        "cmp   r6, #%c[maxtasks1]\n\t"
        "bhi   9f\n\t" /* unconnected, a multicast group */
        "lsls  r3, r6, #1\n\t"
        "adds  r6, r3\n\t"
        "ldr   r4, =cairn_net\n\t"
        "adds  r6, r4\n\t"
        "adds  r6, #" S(N_REMOTE) "\n\t" /* its remote TCB */
        "ldrb  r3, [r6]\n\t"
        "eors  r3, r7\n\t"
        "lsls  r3, #24\n\t"
        "bne   9f\n\t" /* no remote task either (the general path drops it) */
        "ldrb  r3, [r6, #2]\n\t" /* module */
        "mov   r12, r0\n\t"
        "lsrs  r0, r3, #5\n\t"
        "lsls  r0, #2\n\t"
        "adds  r0, r4\n\t"
        "ldr   r0, [r0, #" S(N_OFF) "]\n\t"
        "rors  r0, r3\n\t" /* its bit (module mod 32) to bit 0 */
        "lsrs  r0, #1\n\t"
        "bcs   10f\n\t" /* powered off by this module: refused and counted */
        /* h[0] = kind | address << 8 | task << 16 | port << 24; h[1] = prio | src << 8 | seq << 16. */
        "lsls  r7, #16\n\t"
        "ldrb  r0, [r4, #" S(N_ADDR) "]\n\t"
        "lsls  r0, #8\n\t"
        "orrs  r7, r0\n\t"
        "adds  r7, #%c[kind]\n\t"
        "ldrb  r5, [r5, #" S(TCB_ID) "]\n\t"
        "lsls  r5, #8\n\t"
        "ldrb  r0, [r6, #1]\n\t"
        "orrs  r5, r0\n\t"
        "mrs   r6, primask\n\t"
        "cpsid i\n\t"
        "ldr   r0, [r4, #" S(N_TXQ) "]\n\t"
        "cmp   r0, #0\n\t"
        "bne   11f\n\t" /* buffered messages go first */
        "ldrh  r0, [r4, #" S(N_SEQ) "]\n\t"
        "lsls  r0, #16\n\t"
        "orrs  r5, r0\n\t"
        "ldr   r4, =" S(CAIRN_BUS_BASE) "\n\t"
        "ldr   r0, [r4, #" S(R_STATUS) "]\n\t"
        "lsls  r0, #29\n\t"
        "bpl   11f\n\t" /* the controller is busy: the bus manager buffers it */
        "str   r3, [r4, #" S(R_TX_DEST) "]\n\t"
        "str   r7, [r4, #" S(R_TX_DATA) "]\n\t"
        "str   r5, [r4, #" S(R_TX_DATA) "]\n\t"
        "strh  r2, [r4, #" S(R_TX_DATA) "]\n\t"
        "lsls  r0, r1, #30\n\t"
        "bne   13f\n\t" /* not word-aligned: byte by byte */
        "lsrs  r0, r2, #2\n\t"
        "beq   2f\n\t"
        "1:\n\t"
        "ldm   r1!, {r3}\n\t"
        "str   r3, [r4, #" S(R_TX_DATA) "]\n\t"
        "subs  r0, #1\n\t"
        "bne   1b\n\t"
        "2:\n\t"
        "lsls  r0, r2, #30\n\t"
        "bne   12f\n\t" /* the last bytes */
        "3:\n\t"
        "str   r4, [r4, #" S(R_TX_SEND) "]\n\t"
        "ldr   r4, =cairn_net\n\t"
        "ldrh  r2, [r4, #" S(N_SEQ) "]\n\t"
        "adds  r2, #1\n\t"
        "strh  r2, [r4, #" S(N_SEQ) "]\n\t"
        "ldr   r1, =%c[txframes]\n\t"
        "ldm   r1!, {r0, r2, r3}\n\t"
        "adds  r0, #1\n\t"
        "adds  r2, #1\n\t"
        "adds  r3, #1\n\t"
        "subs  r1, #12\n\t"
        "stm   r1!, {r0, r2, r3}\n\t"
#if CAIRN_TRACE_ENABLED /* the module again, from the remote TCB: none of it before TX_SEND */
        "lsls  r0, r7, #8\n\t"
        "lsrs  r0, #24\n\t"
        "subs  r0, #1\n\t"
        "lsls  r3, r0, #1\n\t"
        "adds  r0, r3\n\t"
        "adds  r0, r4\n\t"
        "adds  r0, #" S(N_REMOTE) "\n\t"
        "ldrb  r0, [r0, #2]\n\t"
#endif
#if CAIRN_TRACE_ENABLED /* with interrupts still masked: the two words in a row */
        "ldr   r1, =" S(CAIRN_TRACE_ADDR) "\n\t"
        "lsls  r0, #16\n\t"
        "lsrs  r5, #16\n\t"
        "orrs  r0, r5\n\t"
        "movs  r2, #%c[evsend]\n\t"
        "lsls  r2, #24\n\t"
        "orrs  r0, r2\n\t"
        "str   r0, [r1]\n\t" /* NET_SEND: module, sequence */
        "lsrs  r2, r7, #24\n\t" /* port */
        "lsls  r7, #8\n\t"
        "lsrs  r7, #24\n\t"
        "lsls  r7, #16\n\t"
        "orrs  r7, r2\n\t"
        "movs  r2, #%c[evsendto]\n\t"
        "lsls  r2, #24\n\t"
        "orrs  r7, r2\n\t"
        "str   r7, [r1]\n\t" /* NET_SEND_TO: task, port */
#endif
        "msr   primask, r6\n\t"
        "movs  r0, #0\n\t"
        "pop   {r4, r5, r6, r7, pc}\n\t"
        "12:\n\t"
        "lsrs  r2, r0, #30\n\t"
        "13:\n\t" /* r2 bytes from r1 */
        "cmp   r2, #0\n\t"
        "beq   3b\n\t"
        "14:\n\t"
        "ldrb  r3, [r1]\n\t"
        "adds  r1, #1\n\t"
        "strb  r3, [r4, #" S(R_TX_DATA) "]\n\t"
        "subs  r2, #1\n\t"
        "bne   14b\n\t"
        "b     3b\n\t"
        "11:\n\t"
        "msr   primask, r6\n\t"
        "10:\n\t"
        "mov   r0, r12\n\t"
        "9:\n\t"
        "pop   {r4, r5, r6, r7}\n\t"
        "pop   {r3}\n\t"
        "mov   lr, r3\n\t"
        "ldr   r3, =cairn__send_general\n\t"
        "bx    r3\n\t"
        ".ltorg\n\t" ::[knet] "i"(&cairn_k.net),
        [maxpayload] "i"(CAIRN_NET_MAX_PAYLOAD), [maxtasks1] "i"(CAIRN_MAX_TASKS - 1),
        [kind] "i"(CAIRN_NET_KIND_MSG), [txframes] "i"(&cairn_net.stats.tx_frames),
        [evsend] "i"(CAIRN_EV_NET_SEND), [evsendto] "i"(CAIRN_EV_NET_SEND_TO));
}
