"""The Cairn OS hello world (kernel/apps/hello, the CoMOS hello world) as firmware:
build/fw/hello.elf (forever) and build/fw/hello-8.elf (exits with 0 after 8 lines), built
by `make build`. On cairn-sim (cycle-accurate, tickless timers) every line comes exactly
125 ms after the previous one; QEMU prints the same lines, time stamps aside."""

from __future__ import annotations

import re

import pytest
from pathlib import Path

from cairn.bench import kernel
from cairn.paths import firmware_dir, sim_binary
from cairn.runners import TIMEOUT_STATUS, Result, run_qemu, run_sim

LINE = re.compile(r"(\d+)\.(\d{3}) Hello World")
PERIOD_US = 125_000
#: Stamps are the counter when the hello task runs: the timer's deadline plus the time from
#: the counter's start to the timer task's INIT and the timer-interrupt-to-handler latency
#: (docs/kernel.md, "armv6m port"). Less than 1 ms on cairn-sim.
MAX_OFFSET_US = 1_000


def _elf(name: str) -> Path:
    elf = firmware_dir() / name
    assert elf.is_file(), f"{elf} is missing: `make build` (or `make firmware`) builds it"
    return elf


def _stamps(result: Result) -> list[int]:
    """The time stamps, in microseconds, of stdout's lines; every line must be a hello line."""
    lines = result.text().splitlines()
    stamps: list[int] = []
    for line in lines:
        m = LINE.fullmatch(line)
        assert m is not None, f"unexpected line {line!r}\n{result.describe()}"
        stamps.append(int(m.group(1)) * 1000 + int(m.group(2)))
    return stamps


def _assert_exact_period(stamps: list[int], result: Result) -> None:
    assert 0 <= stamps[0] - PERIOD_US < MAX_OFFSET_US, f"first stamp {stamps[0]} us\n{result.describe()}"
    offset = stamps[0] - PERIOD_US
    want = [PERIOD_US * (k + 1) + offset for k in range(len(stamps))]
    assert stamps == want, f"stamps are not exactly 125 ms apart\n{result.describe()}"


def test_hello_forever_on_sim() -> None:
    result = run_sim(_elf("hello.elf"), "--max-time", "1100ms", timeout=120)
    assert not result.timed_out and result.status == TIMEOUT_STATUS, result.describe()
    stamps = _stamps(result)
    assert len(stamps) == 8, result.describe()  # 125 ms .. 1000 ms
    _assert_exact_period(stamps, result)


def test_hello_8_on_sim() -> None:
    result = run_sim(_elf("hello-8.elf"), timeout=120)
    assert not result.timed_out and result.status == 0, result.describe()
    stamps = _stamps(result)
    assert len(stamps) == 8, result.describe()
    _assert_exact_period(stamps, result)
    # The same program as hello.elf up to the exit: the same stamps.
    forever = run_sim(_elf("hello.elf"), "--max-time", "1100ms", timeout=120)
    assert forever.stdout == result.stdout, f"{forever.describe()}\n=== hello-8\n{result.describe()}"


def test_hello_8_on_qemu() -> None:
    result = run_qemu(_elf("hello-8.elf"), timeout=60)
    assert not result.timed_out and result.status == 0, result.describe()
    stamps = _stamps(result)
    assert len(stamps) == 8, result.describe()
    # QEMU's timers follow the host's clock: only the order is certain.
    assert stamps == sorted(stamps) and stamps[0] >= PERIOD_US, result.describe()


@pytest.mark.parametrize("name", ["preempt", "irq_message", "statemsg", "threads", "thread_rewake", "sem",
                                  "thread_sleep_window"])
def test_armv6m_preemption(name: str) -> None:
    """kernel/tests/armv6m/preempt.c (PendSV dispatch), irq_message.c (interrupts bound to
    messages, the fast path into the handler), statemsg.c (a state message read while a
    higher-priority writer preempts the reader) and threads.c (thread tasks beside a message
    task: priorities, yields, round robin on a slice, an interrupt waking a blocked thread),
    thread_rewake.c (an interrupt wakes a higher thread again and again while a lower one runs:
    it preempts every time, within a bound on the cycles), thread_sleep_window.c (an interrupt
    waking a higher thread lands on every instruction of a lower thread's sleep in turn: the
    sleeper always wakes) and sem.c (priority inheritance in the classic inversion, woken by an interrupt; an interrupt's
    give; a take's time limit): cairn-sim and QEMU print the same transcript."""
    elf = _elf(f"kernel-{name}.elf")
    sim = run_sim(elf, timeout=120)
    assert not sim.timed_out and sim.status == 0, sim.describe()
    assert "FAIL" not in sim.text() and sim.text().rstrip().endswith("PASS"), sim.describe()
    qemu = run_qemu(elf, timeout=60)
    assert not qemu.timed_out and qemu.status == 0, qemu.describe()
    assert sim.stdout == qemu.stdout, f"{sim.describe()}\n=== QEMU\n{qemu.describe()}"


def test_armv6m_mutex_fast_path_stopped_anywhere() -> None:
    """kernel/tests/armv6m/mutex_ras.c: an interrupt that lets a higher thread take the mutex
    lands on every instruction of the uncontended take and give (which do not mask
    interrupts) in turn; every call succeeds and the mutexes end free. On cairn-sim, where
    the sweep is cycle-exact, some of those interrupts stopped the fast path before its one
    store (restarted; nothing is ever left half-stored), the inline sequences too (found by
    their marker wherever inlined); QEMU's SysTick follows the host's
    clock, so that one line may differ, the rest is the same transcript."""
    elf = _elf("kernel-mutex_ras.elf")
    sim = run_sim(elf, timeout=120)
    assert not sim.timed_out and sim.status == 0, sim.describe()
    assert "FAIL" not in sim.text() and sim.text().rstrip().endswith("PASS"), sim.describe()
    assert "fast path stopped: restarted some" in sim.text().splitlines(), sim.describe()
    assert "fast path stopped: inline restarted some" in sim.text().splitlines(), sim.describe()
    qemu = run_qemu(elf, timeout=60)
    assert not qemu.timed_out and qemu.status == 0, qemu.describe()

    def common(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("fast path stopped:")]

    assert common(sim.text()) == common(qemu.text()), f"{sim.describe()}\n=== QEMU\n{qemu.describe()}"


def test_armv6m_irq_message_again_inside_the_handlers_end() -> None:
    """kernel/tests/armv6m/irq_end_window.c: an interrupt bound to a message comes again at
    every instruction of the end of the handler it started, in turn; the handler runs twice
    each round and the execution stack ends empty. On cairn-sim some of those requests came
    inside cairn__end, with the task ready again and the binding's frame still on top (the
    fast path once took that frame's place below it and left it on the stack); QEMU's SysTick
    is not cycle-exact, so that one line may differ."""
    elf = _elf("kernel-irq_end_window.elf")
    sim = run_sim(elf, timeout=120)
    assert not sim.timed_out and sim.status == 0, sim.describe()
    assert "FAIL" not in sim.text() and sim.text().rstrip().endswith("PASS"), sim.describe()
    assert "second request inside the end: some rounds" in sim.text().splitlines(), sim.describe()
    qemu = run_qemu(elf, timeout=60)
    assert not qemu.timed_out and qemu.status == 0, qemu.describe()

    def common(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("second request inside the end:")]

    assert common(sim.text()) == common(qemu.text()), f"{sim.describe()}\n=== QEMU\n{qemu.describe()}"


def test_armv6m_posting_storm_between_handlers_does_not_nest() -> None:
    """kernel/tests/armv6m/dispatch_storm.c: interrupts that post between the handlers of a task
    whose queue never empties nest no dispatch: the stack's low-water mark stays within a bound
    and every message runs. On cairn-sim many of them came during the jobs; QEMU's SysTick runs
    slower, so that one line may differ, the rest is the same transcript."""
    elf = _elf("kernel-dispatch_storm.elf")
    sim = run_sim(elf, timeout=120)
    assert not sim.timed_out and sim.status == 0, sim.describe()
    assert "FAIL" not in sim.text() and sim.text().rstrip().endswith("PASS"), sim.describe()
    assert "interrupts during the jobs: many" in sim.text().splitlines(), sim.describe()
    qemu = run_qemu(elf, timeout=60)
    assert not qemu.timed_out and qemu.status == 0, qemu.describe()

    def common(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("interrupts during the jobs:")]

    assert common(sim.text()) == common(qemu.text()), f"{sim.describe()}\n=== QEMU\n{qemu.describe()}"


#: Pend -> the woken thread's receive returns, event log on: an interrupt, PendSV to the
#: message level, the mailbox, PendSV to the thread. Far below the lower thread's work between
#: wake-ups, which a wake-up held back would wait for.
REWAKE_CYCLES_MAX = 2500
REWAKES = 5


def test_armv6m_thread_rewake_cycles_are_bounded() -> None:
    """kernel/tests/armv6m/thread_rewake.c on cairn-sim: every wake-up of the higher thread,
    the second and later ones included, reaches it within REWAKE_CYCLES_MAX cycles of the
    pend, and no later one costs more than the first (nothing piles up on the message level)."""
    clock = kernel.DEFAULT_CLOCK_HZ
    _, text = kernel.run_firmware(str(sim_binary()), _elf("kernel-thread_rewake.elf"), clock)
    tr = kernel.parse_trace(text, clock)
    edges = [(1, i, e) for i in range(REWAKES) for e in (0, 1)]
    assert all(k in tr.markers for k in edges), sorted(tr.markers)
    cycles = [tr.markers[(1, i, 1)] - tr.markers[(1, i, 0)] for i in range(REWAKES)]
    assert all(0 < c <= REWAKE_CYCLES_MAX for c in cycles), cycles
    assert max(cycles[1:]) <= cycles[0], cycles


def test_armv6m_thread_stack_overflow_stops_the_module() -> None:
    """kernel/tests/armv6m/thread_overflow.c: a thread recurses past its stack; the guard word
    check at the next switch names it and stops the module with CAIRN_EXIT_STACK_OVERFLOW (92),
    the same on cairn-sim and QEMU."""
    elf = _elf("kernel-thread_overflow.elf")
    sim = run_sim(elf, timeout=120)
    assert not sim.timed_out and sim.status == 92, sim.describe()
    assert sim.text().rstrip().endswith("FAIL thread stack overflow: deep"), sim.describe()
    assert "the overflow was not caught" not in sim.text(), sim.describe()
    qemu = run_qemu(elf, timeout=60)
    assert not qemu.timed_out and qemu.status == 92, qemu.describe()
    assert sim.stdout == qemu.stdout, f"{sim.describe()}\n=== QEMU\n{qemu.describe()}"


@pytest.mark.parametrize("policy", ["edf", "csd"])
def test_armv6m_deadline_policy(policy: str) -> None:
    """kernel/tests/policy/policy.c built with CAIRN_POLICY_EDF and CAIRN_POLICY_CSD
    (docs/policies.md): interrupts post, PendSV dispatches by deadline and SRP level, a lower
    level never preempts, the stack's levels strictly increase; where the policies differ (a
    later deadline in CSD's FP queue preempts by priority) the transcripts differ. cairn-sim
    and QEMU print the same transcript."""
    elf = _elf(f"kernel-policy-{policy}.elf")
    sim = run_sim(elf, timeout=120)
    assert not sim.timed_out and sim.status == 0, sim.describe()
    assert "FAIL" not in sim.text() and sim.text().rstrip().endswith("PASS"), sim.describe()
    assert f"# test armv6m-policy-{policy}" in sim.text(), sim.describe()
    qemu = run_qemu(elf, timeout=60)
    assert not qemu.timed_out and qemu.status == 0, qemu.describe()
    assert sim.stdout == qemu.stdout, f"{sim.describe()}\n=== QEMU\n{qemu.describe()}"
