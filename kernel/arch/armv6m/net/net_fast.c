/*
 * Cairn OS armv6m port: the bus manager's two fast paths in assembly (docs/distributed.md,
 * "Sending" and "Receiving"); kernel/core/net/rx_fast.c and send_fast.c are the same in C
 * (the host port's, tested there). Linked only into firmware that has the bus manager
 * (kernel/firmware.mk, FW_NET_SRCS). Each takes the common case and otherwise goes on as
 * before, which gives the same result.
 *
 * cairn__net_rx_vector (the bus RX vector, r0 = its binding, cairn/bus.h): when the
 *   interrupt returns to Thread mode on the main stack, nothing is queued, the bus manager
 *   is ready (started, not running), the RX fast path's frame is free, and exactly one
 *   frame waits, not corrupt, of at most CAIRN_NET_RX_BLOCK payload bytes: its header is
 *   read (cairn_bus_rx_single). A message frame to a local task that is ready and outranks
 *   the interrupted level strictly, whose payload has a receive block, is read into the
 *   block and popped; the message is the one the bus manager builds, in the fast path's
 *   frame, which becomes the top of the execution stack, and the interrupt returns into the
 *   task's handler (cairn__armv6m_return_into). Any other frame keeps its header for the
 *   bus manager (rx_peeked), and the interrupt goes on as the binding's level-sensitive
 *   vector (cairn__irq_fast_level). With the time synchronisation on, the C path decides
 *   (it stamps the entry for a TIMESYNC frame).
 *
 * cairn__send_remote (from cairn_send's fast path when the route's task has no local TCB,
 *   after its checks: a task's handler, an existing output port, a payload that is not a
 *   heap block): a remote task on a module not powered off, a payload that fits a frame,
 *   the plain bus manager (not the reliable layer), nothing buffered and the controller idle
 *   (cairn_bus_tx_if_idle): the frame goes to the controller as the bus manager's submit
 *   writes it. Else cairn__send_general.
 */
#include "../../../core/net/net.h"

#define S_(x) #x
#define S(x) S_(x)

void cairn__net_rx_vector(void);
void cairn__armv6m_return_into(void);

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
#define M_NEXT 0
#define M_PAYLOAD 4
#define M_LEN 8
#define M_PRIO 12
_Static_assert(OFF(cairn_msg_t, payload) == M_PAYLOAD && OFF(cairn_msg_t, len) == M_LEN &&
                   OFF(cairn_msg_t, port) == M_LEN + 2 && OFF(cairn_msg_t, src) == M_LEN + 3 &&
                   OFF(cairn_msg_t, prio) == M_PRIO && OFF(cairn_msg_t, dst) == M_PRIO + 1 &&
                   OFF(cairn_msg_t, flags) == M_PRIO + 2,
               "message layout");
#define TCB_ID (CAIRN_TCB_PRIO + 1)

/* Trace words (event code << 24). */
#define EV_SEND 1
#define EV_START 2
_Static_assert(EV_SEND == CAIRN_EV_SEND && EV_START == CAIRN_EV_START, "event codes");

__attribute__((naked, section(".text.cairn_fast.net_rx"))) void cairn__net_rx_vector(void)
{
    __asm__ volatile(
        "cpsid i\n\t"
        "mov   r1, lr\n\t"
        "adds  r1, #7\n\t" /* EXC_RETURN 0xFFFFFFF9: back to Thread mode, main stack? */
        "bne   19f\n\t"
        "push  {r0, r4, r5, r6, r7, lr}\n\t"
        "ldr   r4, =cairn_k\n\t"
        "ldr   r5, =cairn_net\n\t"
        "ldr   r1, [r4, #" S(CAIRN_K_QUEUE) "]\n\t"
        "ldrb  r2, [r5, #" S(N_PEEKED) "]\n\t"
        "orrs  r1, r2\n\t"
        "ldr   r2, =%c[isr]\n\t"
        "ldrb  r2, [r2]\n\t"
        "orrs  r1, r2\n\t"
        "bne   18f\n\t" /* queued messages, a header already read, in an interrupt handler */
        "ldr   r2, [r4, #%c[nettcb]]\n\t"
        "cmp   r2, #0\n\t"
        "beq   18f\n\t"
        "ldrb  r2, [r2, #" S(CAIRN_TCB_FLAGS) "]\n\t"
        "lsrs  r2, #5\n\t"
        "cmp   r2, #1\n\t"
        "bne   18f\n\t" /* the bus manager is not started, or it runs */
        "ldr   r1, =%c[tson]\n\t"
        "ldrb  r1, [r1]\n\t"
        "cmp   r1, #0\n\t"
        "bne   17f\n\t"
        "ldr   r6, [r4, #" S(CAIRN_K_TOP) "]\n\t"
        "movs  r1, #" S(N_FRAME) "\n\t"
        "adds  r1, r5\n\t"
        "mov   r2, r6\n\t"
        "1:\n\t" /* the fast path's frame is free unless it is on the stack */
        "cmp   r2, #0\n\t"
        "beq   2f\n\t"
        "cmp   r2, r1\n\t"
        "beq   18f\n\t"
        "ldr   r2, [r2]\n\t"
        "b     1b\n\t"
        "17:\n\t" /* out of the conditional branches' reach */
        "b     7f\n\t"
        "18:\n\t"
        "b     8f\n\t"
        "19:\n\t"
        "b     9f\n\t"
        "2:\n\t"
        "movs  r0, #" S(N_PEEK) "\n\t"
        "adds  r0, r5\n\t"
        "movs  r1, #%c[maxlen]\n\t"
        "bl    cairn_bus_rx_single\n\t"
        "cmp   r0, #0\n\t"
        "blt   18b\n\t" /* not one frame alone, corrupt, or too long: nothing read */
        "ldr   r1, [r5, #" S(N_PEEK) "]\n\t" /* kind | source << 8 | task << 16 | port << 24 */
        "uxth  r2, r1\n\t"
        "lsrs  r3, r0, #16\n\t"
        "lsls  r3, #8\n\t"
        "adds  r3, #%c[kind]\n\t"
        "cmp   r2, r3\n\t"
        "bne   6f\n\t" /* not a message frame, or not from the controller's source */
        "uxth  r2, r0\n\t"
        "subs  r2, #%c[header]\n\t" /* payload length */
        "ldrh  r3, [r5, #" S(N_PEEK) " + 8]\n\t"
        "cmp   r3, r2\n\t"
        "bne   6f\n\t"
        "lsrs  r3, r1, #24\n\t"
        "subs  r3, #1\n\t"
        "cmp   r3, #%c[portmax]\n\t"
        "bhi   6f\n\t" /* not an input port a message may be sent to */
        "lsls  r3, r1, #8\n\t"
        "lsrs  r3, #24\n\t"
        "cmp   r3, #%c[maxtasks]\n\t"
        "bhi   6f\n\t"
        "lsls  r3, #2\n\t"
        "adds  r3, r4\n\t"
        "ldr   r7, [r3, #" S(CAIRN_K_TASKS) "]\n\t"
        "cmp   r7, #0\n\t"
        "beq   6f\n\t" /* no local task: the bus manager counts it */
        "ldrb  r3, [r7, #" S(CAIRN_TCB_FLAGS) "]\n\t"
        "lsrs  r3, #5\n\t"
        "cmp   r3, #1\n\t"
        "bne   6f\n\t" /* not READY alone */
        "cmp   r6, #0\n\t"
        "beq   3f\n\t"
        "ldrb  r3, [r7, #" S(CAIRN_TCB_PRIO) "]\n\t"
        "ldrb  r0, [r6, #" S(CAIRN_FRAME_PRIO) "]\n\t"
        "cmp   r3, r0\n\t"
        "bls   6f\n\t" /* not strictly above the interrupted level */
        "3:\n\t"
        "movs  r0, #0\n\t"
        "cmp   r2, #0\n\t"
        "beq   4f\n\t" /* no payload, no block */
        "ldrb  r3, [r5]\n\t" /* rx_cached */
        "subs  r3, #1\n\t"
        "bmi   6f\n\t" /* no receive block: the bus manager allocates one */
        "strb  r3, [r5]\n\t"
        "lsls  r3, #2\n\t"
        "adds  r3, r5\n\t"
        "ldr   r0, [r3, #" S(N_CACHE) "]\n\t"
        "4:\n\t"
        "str   r0, [r5, #" S(N_FRAME) " + " S(CAIRN_FRAME_MSG) " + " S(M_PAYLOAD) "]\n\t"
        "mov   r1, r2\n\t"
        "bl    cairn_bus_rx_words_pop\n\t"
        /* The message: len | port << 16 | src << 24; prio | dst << 8 | flags << 16; next. */
        "ldr   r1, [r5, #" S(N_PEEK) "]\n\t"
        "ldrh  r2, [r5, #" S(N_PEEK) " + 8]\n\t"
        "lsrs  r3, r1, #24\n\t"
        "lsls  r3, #16\n\t"
        "orrs  r2, r3\n\t"
        "ldrb  r3, [r5, #" S(N_PEEK) " + 5]\n\t"
        "lsls  r3, #24\n\t"
        "orrs  r2, r3\n\t"
        "str   r2, [r5, #" S(N_FRAME) " + " S(CAIRN_FRAME_MSG) " + " S(M_LEN) "]\n\t"
        "ldrb  r2, [r7, #" S(CAIRN_TCB_PRIO) "]\n\t"
        "lsls  r3, r1, #8\n\t"
        "lsrs  r3, #24\n\t"
        "lsls  r3, #8\n\t"
        "orrs  r2, r3\n\t"
        "ldr   r0, [r5, #" S(N_FRAME) " + " S(CAIRN_FRAME_MSG) " + " S(M_PAYLOAD) "]\n\t"
        "movs  r3, #%c[remote]\n\t"
        "cmp   r0, #0\n\t"
        "beq   5f\n\t"
        "movs  r3, #%c[heapremote]\n\t"
        "5:\n\t"
        "lsls  r3, #16\n\t"
        "orrs  r2, r3\n\t"
        "str   r2, [r5, #" S(N_FRAME) " + " S(CAIRN_FRAME_MSG) " + " S(M_PRIO) "]\n\t"
        "movs  r3, #0\n\t"
        "str   r3, [r5, #" S(N_FRAME) " + " S(CAIRN_FRAME_MSG) " + " S(M_NEXT) "]\n\t"
        /* The frame: below, tcb, prio; the task on the stack; the new top. */
        "str   r6, [r5, #" S(N_FRAME) "]\n\t"
        "str   r7, [r5, #" S(N_FRAME) " + " S(CAIRN_FRAME_TCB) "]\n\t"
        "movs  r0, #" S(N_FRAME) "\n\t"
        "adds  r0, r5\n\t"
        "ldrb  r2, [r7, #" S(CAIRN_TCB_PRIO) "]\n\t"
        "strb  r2, [r0, #" S(CAIRN_FRAME_PRIO) "]\n\t"
        "ldrb  r2, [r7, #" S(CAIRN_TCB_FLAGS) "]\n\t"
        "movs  r3, #%c[onstack]\n\t"
        "orrs  r2, r3\n\t"
        "strb  r2, [r7, #" S(CAIRN_TCB_FLAGS) "]\n\t"
        "str   r0, [r4, #" S(CAIRN_K_TOP) "]\n\t"
        "ldr   r1, =%c[rxframes]\n\t"
        "ldm   r1!, {r2, r3}\n\t"
        "adds  r2, #1\n\t"
        "adds  r3, #1\n\t"
        "subs  r1, #8\n\t"
        "stm   r1!, {r2, r3}\n\t"
#if CAIRN_TRACE_ENABLED
        "ldr   r1, =" S(CAIRN_TRACE_ADDR) "\n\t"
        "ldrb  r2, [r5, #" S(N_PEEK) " + 1]\n\t"
        "lsls  r2, #16\n\t"
        "ldrh  r3, [r5, #" S(N_PEEK) " + 6]\n\t"
        "orrs  r2, r3\n\t"
        "movs  r3, #%c[evrecv]\n\t"
        "lsls  r3, #24\n\t"
        "orrs  r2, r3\n\t"
        "str   r2, [r1]\n\t" /* NET_RECV: source module, sequence */
        "ldrb  r2, [r5, #" S(N_PEEK) " + 2]\n\t"
        "lsls  r2, #16\n\t"
        "ldrb  r3, [r5, #" S(N_PEEK) " + 3]\n\t"
        "orrs  r2, r3\n\t" /* task << 16 | port */
        "movs  r3, #%c[evrecvto]\n\t"
        "lsls  r3, #24\n\t"
        "orrs  r3, r2\n\t"
        "str   r3, [r1]\n\t" /* NET_RECV_TO */
        "movs  r3, #" S(EV_SEND) "\n\t"
        "lsls  r3, #24\n\t"
        "orrs  r3, r2\n\t"
        "str   r3, [r1]\n\t" /* SEND */
        "movs  r3, #" S(EV_START) "\n\t"
        "lsls  r3, #24\n\t"
        "orrs  r3, r2\n\t"
        "str   r3, [r1]\n\t" /* START */
#endif
        "pop   {r1, r4, r5, r6, r7}\n\t"
        "pop   {r1}\n\t"
        "mov   lr, r1\n\t"
        "b     cairn__armv6m_return_into\n\t" /* r0 = the frame */
        "7:\n\t" /* time synchronisation on: the C path */
        "bl    cairn__net_rx_fast\n\t"
        "cmp   r0, #0\n\t"
        "beq   8f\n\t"
        "pop   {r1, r4, r5, r6, r7}\n\t"
        "pop   {r1}\n\t"
        "mov   lr, r1\n\t"
        "b     cairn__armv6m_return_into\n\t"
        "6:\n\t" /* the header is read: the bus manager takes the frame from it */
        "movs  r1, #1\n\t"
        "strb  r1, [r5, #" S(N_PEEKED) "]\n\t"
        "8:\n\t"
        "pop   {r0, r4, r5, r6, r7}\n\t"
        "pop   {r1}\n\t"
        "mov   lr, r1\n\t"
        "9:\n\t"
        "b     cairn__irq_fast_level\n\t" /* r0 = the binding */
        ".ltorg\n\t" ::[isr] "i"(&cairn_k.isr_depth),
        [nettcb] "i"(CAIRN_K_TASKS + 4 * CAIRN_TASK_NET), [tson] "i"(&cairn_net.ts.on),
        [maxlen] "i"(CAIRN_NET_HEADER + CAIRN_NET_RX_BLOCK), [kind] "i"(CAIRN_NET_KIND_MSG),
        [header] "i"(CAIRN_NET_HEADER), [portmax] "i"(CAIRN_PORT_LIMIT - 2),
        [maxtasks] "i"(CAIRN_MAX_TASKS), [remote] "i"(CAIRN_MSG_REMOTE),
        [heapremote] "i"(CAIRN_MSG_HEAP | CAIRN_MSG_REMOTE), [onstack] "i"(0x40),
        [rxframes] "i"(&cairn_net.stats.rx_frames), [evrecv] "i"(CAIRN_EV_NET_RECV),
        [evrecvto] "i"(CAIRN_EV_NET_RECV_TO));
}

/* cairn_ret_t cairn__send_remote(cairn_port_t out_port, const void *payload, size_t len) */
__attribute__((naked, section(".text.cairn_fast.net_send"))) cairn_ret_t
cairn__send_remote(cairn_port_t out_port, const void *payload, size_t len)
{
    (void)out_port;
    (void)payload;
    (void)len;
    __asm__ volatile(
        "push  {r0, r1, r2, r4, r5, r6, r7, lr}\n\t"
        "ldr   r3, =%c[knet]\n\t"
        "ldr   r7, [r3]\n\t"
        "ldr   r3, =cairn_k\n\t"
        "ldr   r4, [r3, #" S(CAIRN_K_TOP) "]\n\t"
        "ldr   r4, [r4, #" S(CAIRN_FRAME_TCB) "]\n\t" /* the sender */
        "ldr   r3, =cairn__net_plain_ops\n\t"
        "cmp   r7, r3\n\t"
        "bne   9f\n\t" /* the reliable layer, or no bus manager */
        "cmp   r2, #%c[maxpayload]\n\t"
        "bhi   9f\n\t"
        "lsls  r5, r0, #1\n\t"
        "adds  r5, r4\n\t"
        "ldrb  r6, [r5, #" S(CAIRN_TCB_ROUTES) "]\n\t"     /* destination task */
        "ldrb  r5, [r5, #" S(CAIRN_TCB_ROUTES) " + 1]\n\t" /* its input port */
        "subs  r7, r6, #1\n\t"
        "cmp   r7, #%c[maxtasks1]\n\t"
        "bhi   9f\n\t" /* unconnected, a multicast group */
        "lsls  r3, r7, #1\n\t"
        "adds  r7, r3\n\t"
        "ldr   r3, =cairn_net + " S(N_REMOTE) "\n\t"
        "adds  r7, r3\n\t" /* its remote TCB, if any */
        "ldrb  r3, [r7]\n\t"
        "cmp   r3, r6\n\t"
        "bne   9f\n\t" /* no remote task either (the general path drops it) */
        "ldrb  r0, [r7, #2]\n\t" /* module */
        "lsrs  r1, r0, #5\n\t"
        "lsls  r1, #2\n\t"
        "ldr   r2, =cairn_net + " S(N_OFF) "\n\t"
        "ldr   r1, [r2, r1]\n\t"
        "movs  r2, #31\n\t"
        "ands  r2, r0\n\t"
        "lsrs  r1, r2\n\t"
        "lsls  r1, #31\n\t"
        "bmi   9f\n\t" /* powered off by this module: refused and counted */
        /* h[0] = kind | address << 8 | task << 16 | port << 24; h[1] = prio | src << 8. */
        "ldr   r3, =cairn_net\n\t"
        "lsls  r6, #16\n\t"
        "lsls  r5, #24\n\t"
        "orrs  r6, r5\n\t"
        "ldrb  r5, [r3, #" S(N_ADDR) "]\n\t"
        "lsls  r5, #8\n\t"
        "orrs  r6, r5\n\t"
        "adds  r6, #%c[kind]\n\t"
        "ldrb  r4, [r4, #" S(TCB_ID) "]\n\t"
        "lsls  r4, #8\n\t"
        "ldrb  r5, [r7, #1]\n\t"
        "orrs  r4, r5\n\t"
        "mov   r7, r0\n\t" /* module */
        "mrs   r5, primask\n\t"
        "cpsid i\n\t"
        "ldr   r2, [r3, #" S(N_TXQ) "]\n\t"
        "cmp   r2, #0\n\t"
        "bne   8f\n\t" /* buffered messages go first */
        "ldrh  r2, [r3, #" S(N_SEQ) "]\n\t"
        "lsls  r2, #16\n\t"
        "orrs  r4, r2\n\t" /* | seq << 16 */
        "ldr   r3, [sp, #8]\n\t" /* len */
        "sub   sp, #16\n\t"
        "str   r6, [sp]\n\t"
        "str   r4, [sp, #4]\n\t"
        "str   r3, [sp, #8]\n\t"
        "mov   r0, r7\n\t"
        "mov   r1, sp\n\t"
        "ldr   r2, [sp, #20]\n\t" /* payload */
        "bl    cairn_bus_tx_if_idle\n\t"
        "add   sp, #16\n\t"
        "cmp   r0, #0\n\t"
        "beq   8f\n\t" /* the controller is busy: the bus manager buffers it */
        "ldr   r3, =cairn_net\n\t"
        "ldrh  r2, [r3, #" S(N_SEQ) "]\n\t"
        "adds  r2, #1\n\t"
        "strh  r2, [r3, #" S(N_SEQ) "]\n\t"
        "ldr   r1, =%c[txframes]\n\t"
        "ldm   r1!, {r0, r2, r3}\n\t"
        "adds  r0, #1\n\t"
        "adds  r2, #1\n\t"
        "adds  r3, #1\n\t"
        "subs  r1, #12\n\t"
        "stm   r1!, {r0, r2, r3}\n\t"
        "msr   primask, r5\n\t"
#if CAIRN_TRACE_ENABLED
        "ldr   r1, =" S(CAIRN_TRACE_ADDR) "\n\t"
        "lsls  r7, #16\n\t"
        "lsrs  r4, #16\n\t"
        "orrs  r7, r4\n\t"
        "movs  r2, #%c[evsend]\n\t"
        "lsls  r2, #24\n\t"
        "orrs  r7, r2\n\t"
        "str   r7, [r1]\n\t" /* NET_SEND: module, sequence */
        "lsrs  r2, r6, #24\n\t" /* port */
        "lsls  r6, #8\n\t"
        "lsrs  r6, #24\n\t"
        "lsls  r6, #16\n\t"
        "orrs  r6, r2\n\t"
        "movs  r2, #%c[evsendto]\n\t"
        "lsls  r2, #24\n\t"
        "orrs  r6, r2\n\t"
        "str   r6, [r1]\n\t" /* NET_SEND_TO: task, port */
#endif
        "movs  r0, #0\n\t"
        "add   sp, #12\n\t"
        "pop   {r4, r5, r6, r7, pc}\n\t"
        "8:\n\t"
        "msr   primask, r5\n\t"
        "9:\n\t"
        "pop   {r0, r1, r2, r4, r5, r6, r7}\n\t"
        "pop   {r3}\n\t"
        "mov   lr, r3\n\t"
        "ldr   r3, =cairn__send_general\n\t"
        "bx    r3\n\t"
        ".ltorg\n\t" ::[knet] "i"(&cairn_k.net),
        [maxpayload] "i"(CAIRN_NET_MAX_PAYLOAD), [maxtasks1] "i"(CAIRN_MAX_TASKS - 1),
        [kind] "i"(CAIRN_NET_KIND_MSG), [txframes] "i"(&cairn_net.stats.tx_frames),
        [evsend] "i"(CAIRN_EV_NET_SEND), [evsendto] "i"(CAIRN_EV_NET_SEND_TO));
}
