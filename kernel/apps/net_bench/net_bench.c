/*
 * Cairn OS across modules, the benchmark: build/fw/net-bench.elf on every processor of
 * experiments/bench/distributed.toml (five modules at 8 MHz on the default bus), run by
 * python/cairn/bench/distributed.py (`make bench` -> build/bench/distributed.json) with
 * --trace and --bus-log. The firmware only marks instants; the driver turns the cycle
 * stamps of the trace-port words (and the bus log's frame times) into figures.
 *
 * Markers, as in kernel/apps/kernel_bench: word 0xBE pp rr ee (pp = phase, rr = repetition,
 * ee = 0 before, 1 after) around one `bl cairn_send` in an asm block.
 *
 * Probes. Every task whose handler's first instruction is timed is a naked stub whose
 * FIRST instruction is `str r0, [r0]` with the task's state = the trace port: the kernel's
 * call handler(state, msg) stamps the handler's first instruction (word 0x41000000). The
 * processor (pid in the trace) tells which module's probe it was.
 *
 * Tasks (the same IDs on every module; each module creates its own and a remote TCB for
 * the others'): DRV (1, module 0, prio 2) drives; LOCAL (2, module 0, prio 5) is a probe;
 * P1..P4 (3..6, prio 5) are probes on modules 1..4; LOW (7, module 0, prio 1) only counts. Group g (1..4) has P1..Pg as members,
 * so a multicast to group g reaches g modules besides the sender's.
 *
 * Phases (REPS each, one per 2 ms tick of DRV's periodic timer, so every module is asleep
 * when a frame arrives and every repetition meets the TDMA rounds in the same phase):
 *   0 empty     the two markers alone (calibration)
 *   1 local     cairn_send(out 0 -> LOCAL): call -> LOCAL's first instruction (preempting)
 *   2 remote    cairn_send(out 1 -> P1 on module 1): call -> return (the frame written to
 *               the controller); the bus log's TX_SEND and arrival; P1's first instruction
 *   3..6 mcast  cairn_send(out 2..5 -> group 1..4): one broadcast frame; each member's first
 *               instruction on its module
 *   7 queue     cairn_send(out 6 -> LOW, prio 1, same module): call -> return (queued), the
 *               local counterpart of the remote send's call -> return
 * Module 0 exits (status 0) one tick after the last phase; the others sleep.
 */
#include <stdint.h>

#include "cairn/cairn.h"
#include "cairn/net.h"
#include "cairn/timer.h"

#include "cairn/arch_timer.h"
#include "cairn_armv6m.h"

#include "semihost.h"
#include "uart.h"

#include "../support/app_boot.h"
#include "../support/app_fail.h"

#define TRACE_PORT 0x41000000u
#define MARK(phase, rep, edge) (0xBE000000u | ((uint32_t)(phase) << 16) | ((uint32_t)(rep) << 8) | (edge))
#define REPS 3
#define PROBES 4
/* Timer ticks are core cycles: 2 ms at the device's 8 MHz, 50 TDMA rounds of five 8 us slots,
 * so every repetition finds the bus in the same phase. */
#define PERIOD_TICKS 16000u

enum { DRV = 1, LOCAL = 2, P1 = 3, LOW = P1 + PROBES };
enum { PH_EMPTY, PH_LOCAL, PH_REMOTE, PH_MCAST1, PH_LOCAL_QUEUE = PH_MCAST1 + PROBES, PH_LAST = PH_LOCAL_QUEUE };

static const uint32_t payload = 0x12345678u;
static volatile int32_t last_ret;
static uint8_t groups[PROBES];

static __attribute__((noinline)) void timed_empty(uint32_t w0, uint32_t w1)
{
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "str %[m1], [%[p]]\n\t"
                     :
                     : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)
                     : "memory");
}

static __attribute__((noinline)) int32_t timed_send(uint32_t out, uint32_t w0, uint32_t w1)
{
    register uint32_t r0 __asm__("r0") = out;
    register uint32_t r1 __asm__("r1") = (uint32_t)&payload;
    register uint32_t r2 __asm__("r2") = sizeof payload;
    __asm__ volatile("str %[m0], [%[p]]\n\t"
                     "bl  cairn_send\n\t"
                     "str %[m1], [%[p]]\n\t"
                     : "+l"(r0), "+l"(r1), "+l"(r2)
                     : [p] "l"(TRACE_PORT), [m0] "l"(w0), [m1] "l"(w1)
                     : "r3", "r12", "lr", "memory", "cc");
    return (int32_t)r0;
}

static uint32_t tick;

static cairn_ret_t drv(void *state, cairn_msg_t *msg)
{
    (void)state;
    if (msg->port == CAIRN_PORT_INIT)
        return cairn_timer_start(0, PERIOD_TICKS, true);
    if (msg->port != CAIRN_PORT_TIMEOUT0)
        return CAIRN_OK;
    uint32_t phase = tick / REPS, rep = tick % REPS;
    tick++;
    if (phase == PH_EMPTY)
        timed_empty(MARK(phase, rep, 0), MARK(phase, rep, 1));
    else if (phase <= PH_LAST)
        last_ret = timed_send(phase - PH_LOCAL, MARK(phase, rep, 0), MARK(phase, rep, 1));
    else {
        uart_puts(last_ret == CAIRN_OK ? "net-bench done\n" : "net-bench FAIL\n");
        sh_exit(last_ret == CAIRN_OK ? 0 : 1);
    }
    if (last_ret != CAIRN_OK) {
        uart_puts("net-bench: a send failed\n");
        sh_exit(1);
    }
    return CAIRN_OK;
}

static cairn_ret_t low(void *state, cairn_msg_t *msg)
{
    (void)state;
    (void)msg;
    return CAIRN_OK;
}

cairn_ret_t net_bench_probe_body(void *state, cairn_msg_t *msg);
cairn_ret_t net_bench_probe_body(void *state, cairn_msg_t *msg)
{
    (void)state;
    (void)msg;
    return CAIRN_OK;
}

/* state == (void *)TRACE_PORT: the first instruction stores 0x41000000 to the trace port. */
__attribute__((naked)) static cairn_ret_t probe(void *state, cairn_msg_t *msg)
{
    (void)state;
    (void)msg;
    __asm__ volatile("str  r0, [r0]\n\t"
                     "ldr  r2, =net_bench_probe_body\n\t"
                     "bx   r2\n\t"
                     ".ltorg\n\t");
}

static uint64_t heap[512];

#define TRY(what, call)                                                                           \
    do {                                                                                          \
        cairn_ret_t r_ = (call);                                                                  \
        if (r_ != CAIRN_OK)                                                                       \
            return app_fail(what, r_);                                                                \
    } while (0)

int main(void)
{
    TRY("cairn_net_init", app_boot(heap, sizeof heap));
    uint8_t me = cairn_net_address();
    for (unsigned g = 0; g < PROBES; g++)
        groups[g] = cairn_group_alloc();
    if (me == 0) {
        cairn_route_t routes[3 + PROBES] = {
            {.task = LOCAL, .port = CAIRN_PORT(0)},
            {.task = P1, .port = CAIRN_PORT(0)},
        };
        for (unsigned g = 0; g < PROBES; g++)
            routes[2 + g] = (cairn_route_t){.task = CAIRN_TASK_MCAST, .port = groups[g]};
        routes[2 + PROBES] = (cairn_route_t){.task = LOW, .port = CAIRN_PORT(0)};
        TRY("create DRV", cairn_task_create(DRV, drv, 0, 2, routes, 3 + PROBES, 0));
        TRY("create LOW", cairn_task_create(LOW, low, 0, 1, 0, 0, 0));
        TRY("init LOW", cairn_task_init(LOW, 0, 0));
        TRY("create LOCAL", cairn_task_create(LOCAL, probe, (void *)TRACE_PORT, 5, 0, 0, 0));
    } else {
        TRY("remote DRV", cairn_task_create_remote(DRV, 2, 0));
        TRY("remote LOCAL", cairn_task_create_remote(LOCAL, 5, 0));
    }
    for (unsigned k = 1; k <= PROBES; k++) {
        cairn_task_id_t id = (cairn_task_id_t)(P1 + k - 1);
        if (k != me) {
            TRY("remote probe", cairn_task_create_remote(id, 5, (uint8_t)k));
            continue;
        }
        TRY("create probe", cairn_task_create(id, probe, (void *)TRACE_PORT, 5, 0, 0, 0));
        TRY("init probe", cairn_task_init(id, 0, 0));
        for (unsigned g = k; g <= PROBES; g++)
            TRY("join", cairn_group_join(groups[g - 1], id, CAIRN_PORT(0)));
    }
    if (me == 0) {
        TRY("init LOCAL", cairn_task_init(LOCAL, 0, 0));
        TRY("init DRV", cairn_task_init(DRV, 0, 0));
    }
    TRY("cairn_net_start", cairn_net_start());
    cairn_run();
}
