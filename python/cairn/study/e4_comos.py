"""E4: CoMOS's SSL + FBD application (the CoMOS paper, Section VI) on cairn-sim.

The application's tasks (kernel/apps/ssl) run on one 8 MHz module (Table II's set-up) and
on five modules (a 48 MHz compute module and four 8 MHz sensing modules, our reading of
Figure 8), beside a standalone image of the same computations. Latencies are timed at the
marker pins by cairn-sim; memory comes from the link maps; migration from the migration
benchmark (cairn.bench.migration) in the paper's terms, base + per byte.
"""

from __future__ import annotations

from cairn.bench import migration
from cairn.bench.linefit import fit

from . import e4_assign, e4_overhead, e4_overhead_five, plots
from .e4_measure import clocks_hz, fbd_during_fft, heap_bytes, heap_high_water, memory, message_latencies, remote_latencies
from .e4_measure import run as measure
from .paper import Paper
from .result import Comparison, Figure, OurTable, StudyResult, Verdict

NAME = "e4-comos"
ROUNDS = {"reduced": 2, "full": 4}
MIGRATION_MODULES = {"reduced": (2, 3), "full": (2, 3, 5)}
FIVE_SPLIT_CASES = {"reduced": ("sound",), "full": ("sound", "noise")}
ASSIGN_LOOPS = {"reduced": (100, 5000, 2_000_000), "full": (100, 1000, 5000, 100_000, 2_000_000)}
DIRS = 256
# Task IDs of kernel/apps/ssl/ssl.h (index + 1), as cairn-sim's attribution names them.
TASK_NAMES = {f"task{i + 1}": name for i, name in enumerate(
    ["Timer", "FFT0", "FFT1", "FFT2", "FFT3", "SC0", "SC1", "SC2", "SC3", "Vote", "HT",
     "Temp", "EWMA", "Alert", "Radio", "ADC0", "ADC1", "ADC2", "ADC3"])} | {"task20": "bus manager"}
SOURCE_DEG = 60.0


def _overhead(os_ms: float, bare_ms: float) -> float:
    return 100.0 * (os_ms - bare_ms) / os_ms


def run(paper: Paper, size: str = "reduced") -> StudyResult:
    rounds = ROUNDS[size]
    one = {(fw, case): measure(f"one-{case}", rounds, fw)
           for fw in ("ssl-one", "ssl-standalone", "ssl-one-notrace") for case in ("sound", "noise")}
    five = {case: measure(f"five-{case}", rounds) for case in ("sound", "noise")}
    five_bare = {case: measure(f"five-{case}", rounds, "ssl-standalone-five") for case in ("sound", "noise")}
    t2 = {r[0]: r for r in paper.table("ssl_single_module").rows}
    t5 = {r[0]: r for r in paper.table("ssl_five_modules").rows}
    p_over = {r[0]: r[1] for r in paper.table("ssl_overhead_single_module").rows}

    result = StudyResult(
        study=NAME, size=size,
        setup=(f"The SSL + FBD application as Cairn OS tasks (kernel/apps/ssl: Timer, ADC, FFT, SC, Vote, "
               f"HT; Temp, EWMA, Alert, Radio; 19 tasks and the bus manager, so the firmware has 20 task IDs), "
               f"{rounds} rounds of 512 samples "
               f"of 4 microphones at 2048 Hz (250 ms, as the paper's rounds), a 160 Hz tone from "
               f"{SOURCE_DEG:.0f} degrees or noise. One module: 8 MHz Cortex-M0+ (STM32L053 profile). "
               f"Five modules: a 48 MHz compute module (Timer, Vote, HT; nRF51822 profile) and four 8 MHz "
               f"sensing modules (ADC, FFT and SC of one microphone each). The standalone images do the same "
               f"computations in interrupt handlers and main, on five modules with frames sent by hand. Latencies are cairn-sim's stimulus -> "
               f"marker pin delays: the timer interrupt to the last SC done (and to HT done)."),
    )
    rows2 = []
    for case, col in (("sound", 1), ("noise", 2)):
        os_ms, bare_ms = one[("ssl-one", case)].sc_ms, one[("ssl-standalone", case)].sc_ms
        rows2.append((case, round(os_ms, 3), round(bare_ms, 3), round(_overhead(os_ms, bare_ms), 3)))
        result.comparisons.append(Comparison(
            "Table II", f"one module, {case}: timer -> SC done, CoMOS / standalone",
            f"{t2['CoMOS'][col]} / {t2['Standalone'][col]} ms",
            f"{os_ms:.2f} / {bare_ms:.2f} ms"))
        result.comparisons.append(Comparison(
            "Table II", f"one module, {case}: overhead", f"{p_over['sound source' if case == 'sound' else 'noise']} %",
            f"{_overhead(os_ms, bare_ms):.2f} %"))
    ht_one = one[("ssl-one", "sound")].ht_ms or 0.0
    ht_bare = one[("ssl-standalone", "sound")].ht_ms or 0.0
    rows2.append(("sound, to HT done", round(ht_one, 3), round(ht_bare, 3), round(_overhead(ht_one, ht_bare), 3)))
    result.tables.append(OurTable("One 8 MHz module: timer interrupt -> done (ms), CoMOS-style Cairn OS "
                                  "against the standalone image (Table II)",
                                  ("case", "cairn_os_ms", "standalone_ms", "overhead_percent"), tuple(rows2)))

    five_ht, five_bare_ht = five["sound"].ht_ms or 0.0, five_bare["sound"].ht_ms or 0.0
    five_sc, five_bare_sc = five["noise"].sc_ms, five_bare["noise"].sc_ms
    p_over5 = {r[0]: r[1] for r in paper.table("ssl_overhead_five_modules").rows}
    result.comparisons.append(Comparison("Table V", "five modules, sound source: timer -> HT done, CoMOS / standalone",
                                         f"{t5['CoMOS'][1]} / {t5['Standalone'][1]} ms",
                                         f"{five_ht:.2f} / {five_bare_ht:.2f} ms"))
    result.comparisons.append(Comparison("Table V", "five modules, sound source: overhead",
                                         f"{p_over5['sound source']} %", f"{_overhead(five_ht, five_bare_ht):.2f} %"))
    result.comparisons.append(Comparison("Table V", "five modules, noise: timer -> SC done, CoMOS / standalone",
                                         f"{t5['CoMOS'][2]} / {t5['Standalone'][2]} ms",
                                         f"{five_sc:.2f} / {five_bare_sc:.2f} ms"))
    result.comparisons.append(Comparison("Table V", "five modules, noise: overhead",
                                         f"{p_over5['noise']} %", f"{_overhead(five_sc, five_bare_sc):.2f} %"))
    rows5 = (("sound, to HT done", round(five_ht, 3), round(five_bare_ht, 3), round(_overhead(five_ht, five_bare_ht), 3)),
             ("noise, to the last SC done", round(five_sc, 3), round(five_bare_sc, 3),
              round(_overhead(five_sc, five_bare_sc), 3)))
    result.tables.append(OurTable(
        "Five modules (Table V): timer interrupt -> done (ms), Cairn OS against the standalone images",
        ("case", "cairn_os_ms", "standalone_ms", "overhead_percent"), rows5))

    brk = paper.value("overhead_breakdown").value  # messaging, event logging, memory (ms)
    log_ms = one[("ssl-one", "sound")].sc_ms - one[("ssl-one-notrace", "sound")].sc_ms
    result.comparisons.append(Comparison("Section VI-C", "event logging's share of a round (sound, one module)",
                                         f"{brk[1]} ms of {sum(brk):.1f} ms", f"{log_ms:.3f} ms of "
                                         f"{one[('ssl-one', 'sound')].sc_ms - one[('ssl-standalone', 'sound')].sc_ms:.3f} ms"))

    split_ms = _split(result, brk)
    five_split = _split_five(result, FIVE_SPLIT_CASES[size], five_ht - five_bare_ht,
                             float(t5["CoMOS"][1]) - float(t5["Standalone"][1]))
    msg_fft = _messages(result, paper)

    mem_os, mem_bare = memory("ssl-one"), memory("ssl-standalone")
    heap = heap_bytes("ssl-one")
    mem_os["Application"]["data"] -= heap
    mem_bare_total = {k: sum(v[k] for v in mem_bare.values()) for k in ("text", "data")}
    mem_os_total = {k: sum(v[k] for v in mem_os.values()) for k in ("text", "data")}
    p3 = {r[0]: r for r in paper.table("memory_comparison").rows}
    result.comparisons.append(Comparison("Table III", "code bytes, CoMOS / standalone",
                                         f"{p3['CoMOS'][1]} / {p3['Standalone'][1]}",
                                         f"{mem_os_total['text']} / {mem_bare_total['text']}"))
    result.comparisons.append(Comparison("Table III", "static data bytes (heap apart), CoMOS / standalone",
                                         f"{p3['CoMOS'][2]} / {p3['Standalone'][2]}",
                                         f"{mem_os_total['data']} / {mem_bare_total['data']} (heap {heap})"))
    peak = heap_high_water()
    result.comparisons.append(Comparison("Table III", "heap size / most in use (CoMOS)",
                                         f"{p3['CoMOS'][3]} / {p3['CoMOS'][4]} B",
                                         f"{heap} / {peak} B (from the trace's ALLOC and FREE words)"))
    net_text = sum(v["text"] for k, v in mem_os.items() if k.startswith(("Distributed", "Migration")))
    result.tables.append(OurTable("Memory of ssl-one.elf by component, from the link map (Table IV; data "
                                  "includes bss, the heap array apart)", ("component", "code_bytes", "data_bytes"),
                                  tuple((k, v["text"], v["data"]) for k, v in sorted(mem_os.items()))))

    p_base, p_per_byte = paper.value("migration_base").value, paper.value("migration_per_byte").value
    p_hz = paper.parameter("migration_cpu_hz").value
    # The bench's six state sizes at either study size: a run takes well under a second, and a
    # fit over three, one of them the empty task's one-part path, judged a bend where the parts
    # start.
    sizes = migration.SIZES
    mig = {s: migration.run(s, 2) for s in sizes}
    ms = 1e3 / migration.CLOCK_HZ
    base, per_byte, r2 = fit([float(s) for s in sizes], [float(mig[s].latency) for s in sizes])
    result.comparisons.append(Comparison("Fig. 7", "migration latency at zero state (intercept)",
                                         f"{p_base} ms ({p_hz / 1e6:.0f} MHz)",
                                         f"{base * ms:.3f} ms ({migration.CLOCK_HZ / 1e6:.0f} MHz)"))
    result.comparisons.append(Comparison("Fig. 7", "migration latency per byte of state",
                                         f"{p_per_byte} ms", f"{per_byte * ms:.5f} ms"))
    by_modules = {n: (mig[1024] if n == 2 else migration.run(1024, n)) for n in MIGRATION_MODULES[size]}
    result.tables.append(OurTable("Task migration, REQUEST -> live on the destination (8 MHz modules)",
                                  ("state_bytes", "modules", "latency_ms"),
                                  tuple((s, 2, round(mig[s].latency * ms, 3)) for s in sizes)
                                  + tuple((1024, n, round(m.latency * ms, 3)) for n, m in by_modules.items() if n != 2)))
    result.figures.append(Figure("migration", "Migration latency against state size (the paper's Fig. 7).",
                                 plots.line_fit("Task migration latency", "state (bytes)", "latency (ms)",
                                                [("cairn-sim", list(sizes), [mig[s].latency * ms for s in sizes])],
                                                [(f"fit {base * ms:.2f} ms + {per_byte * ms:.4f} ms/B",
                                                  base * ms, per_byte * ms)])))

    energy_rows = tuple((name, round(uj, 1)) for name, uj in sorted(five["sound"].energy_uj.items()))
    result.tables.append(OurTable(f"Energy by module over {rounds} rounds with a sound source (five modules)",
                                  ("module", "energy_uj"), energy_rows))
    result.tables.append(OurTable(
        f"Energy by task over {rounds} rounds with a sound source (five modules; cairn-sim's attribution to "
        f"the current task; kernel, interrupts and peripherals apart)", ("module", "task", "energy_uj"),
        tuple((m, TASK_NAMES.get(t, t), round(uj, 2)) for (m, t), uj in sorted(five["sound"].energy_by_task_uj.items()))))

    overheads = [r[3] for r in rows2[:2]]
    overheads5 = [r[3] for r in rows5]
    result.verdicts.append(Verdict(
        "overhead_below_one_percent", all(o < 1.0 for o in overheads + overheads5),
        f"one module: {overheads[0]:.2f} % (sound), {overheads[1]:.2f} % (noise), {rows2[2][3]:.2f} % to HT done; "
        f"five modules: {overheads5[0]:.2f} % (sound, to HT done), {overheads5[1]:.2f} % (noise)"))
    result.verdicts.append(_multicast(result, paper, rounds))
    grows = all(by_modules[a].latency < by_modules[b].latency
                for a, b in zip(sorted(by_modules), sorted(by_modules)[1:]))
    result.verdicts.append(Verdict(
        "migration_linear_in_state", r2 >= 0.99 and grows,
        f"R² {r2:.5f} over {len(sizes)} sizes; 1 KiB on "
        + ", ".join(f"{n} modules {m.latency * ms:.2f} ms" for n, m in sorted(by_modules.items()))))
    fbd = one[("ssl-one", "sound")]
    during = fbd_during_fft(fbd, "one-sound")
    fbd_max, fbd_mean = fbd.fbd_max_ms or 0.0, fbd.fbd_mean_ms or 0.0
    result.verdicts.append(Verdict(
        "stack_preemption_responsive",
        fbd.fbd_max_ms is not None and during and fbd_max < 0.1 * fbd.chain_ms and fbd_max < 10.0,
        f"FBD timer -> Alert done at most {fbd_max:.3f} ms (mean {fbd_mean:.3f}) on one 8 MHz "
        f"module; its 4 Hz timer fires {'during' if during else 'never during'} a channel's FFT + SC, "
        f"which takes {fbd.chain_ms:.1f} ms"))
    result.verdicts.append(_assignment(result, ASSIGN_LOOPS[size]))
    dirs = one[("ssl-one", "sound")].directions + five["sound"].directions
    result.differences = (
        f"Our rounds are as long as the paper's (512 samples at 2048 Hz), but an 8 MHz Cortex-M0+ takes "
        f"{fbd.chain_ms:.1f} ms per channel for FFT and SC, so one module's timer -> SC done is "
        f"{one[('ssl-one', 'sound')].sc_ms:.1f} ms against the paper's {t2['CoMOS'][1]} ms. Cairn OS adds "
        f"{one[('ssl-one', 'sound')].sc_ms - one[('ssl-standalone', 'sound')].sc_ms:.2f} ms a round to the "
        f"standalone image ({overheads[0]:.2f} %), the paper {sum(brk):.1f} ms ({p_over['sound source']} %); "
        f"{log_ms:.2f} ms of it is the event log (the paper's was {brk[1]} ms). By cairn-sim's attribution "
        f"of the first round from its last sample to the last SC done, messaging takes "
        f"{split_ms['messaging']:.2f} ms (the paper {brk[0]} ms), memory management {split_ms['memory']:.2f} ms "
        f"(the paper {brk[2]} ms), the rest of the kernel {split_ms['other_kernel']:.2f} ms and the "
        f"application's, drivers' and libgcc's cycles beyond the standalone image's "
        f"{split_ms['application']:.2f} ms (event log in; its writes sit in the kernel's functions, so the "
        f"table gives the split with the log compiled out too). On five modules the overhead is "
        f"{overheads5[0]:.2f} % (sound) and {overheads5[1]:.2f} % "
        f"(noise), the paper's {p_over5['sound source']} % and {p_over5['noise']} %. "
        f"There the round (sound, from its last sample to HT done, {five_split.window_ms:.2f} ms) is a "
        f"critical path across two modules: {five_split.crossing}. Along it messaging takes "
        f"{_on_path(five_split, 'messaging'):.3f} ms, the bus {_on_path(five_split, 'bus'):.3f} ms, memory "
        f"management {_on_path(five_split, 'memory'):.3f} ms and the rest of the kernel "
        f"{_on_path(five_split, 'other_kernel'):.3f} ms (event log in), against Table V's measured overhead of "
        f"{five_ht - five_bare_ht:.3f} ms. {_late_chain(five_split)} "
        f"HT found directions {sorted(set(dirs))} of {DIRS} (the source is at "
        f"{SOURCE_DEG / 360 * DIRS:.1f}). On five modules HT runs on the 48 MHz module, so the sound case is "
        f"shorter than on one module ({five_ht:.1f} against {ht_one:.1f} ms), where the paper's was longer. "
        f"Cairn OS's code is {mem_os_total['text']} B against the paper's {p3['CoMOS'][1]} B: "
        f"{net_text} B of it are the distributed services and the migrator, which every application that "
        f"talks over the bus links. The message to FFT ({msg_fft:.1f} us) is sent by the first "
        f"microphone's ADC task, which the ADC driver's interrupt handler posted with the three others at "
        f"the same priority, and waits for those three to run. "
        f"Migration costs {per_byte * ms / p_per_byte:.2f} times the paper's per byte and "
        f"{base * ms / p_base:.2f} times its base, at {migration.CLOCK_HZ / p_hz:.2f} times its clock.")
    return result




def _split(result: StudyResult, brk: list[float]) -> dict[str, float]:
    """The one-module overhead (sound) split by cairn-sim's per-function cycles over one
    round's critical stretch, the event log compiled in and out; the application's extra is
    its cycles beyond the standalone image's over the same stretch. Returns ms by part (log in)."""
    bare_run = measure("one-sound", 1, "ssl-standalone")
    bare = e4_overhead.split(bare_run.sc_ms, "ssl-standalone")
    parts: dict[str, dict[str, int]] = {}
    overhead: dict[str, float] = {}
    for fw in ("ssl-one", "ssl-one-notrace"):
        os_run = measure("one-sound", 1, fw)
        sp = e4_overhead.split(os_run.sc_ms, fw)
        parts[fw] = {"messaging": sp.messaging, "memory": sp.memory, "other_kernel": sp.other_kernel,
                     "application": sp.rest - bare.rest, "wakeup": sp.wakeup - bare.wakeup}
        overhead[fw] = os_run.sc_ms - bare_run.sc_ms
    hz = bare.clock_hz
    ms = {k: 1e3 * v / hz for k, v in parts["ssl-one"].items()}
    labels = {"messaging": "messaging (send.c, msgq.c, sched.c, mcast.c, route.c)",
              "memory": "memory management (heap.c, slab.c, payload.c)",
              "other_kernel": "other kernel code (timer, interrupts, idle, threads)",
              "application": "application, drivers and libgcc beyond the standalone image's",
              "wakeup": "waking from the last sample's sleep beyond the standalone image's (deep sleep, no code)"}
    on, off = parts["ssl-one"], parts["ssl-one-notrace"]
    result.tables.append(OurTable(
        "The one-module overhead (sound) split by cairn-sim's per-function cycles, first round, from its "
        "last sample to the last SC done, event log in and out", ("part", "log_in_cycles", "log_in_ms",
                                                                  "log_out_cycles", "log_out_ms"),
        tuple((labels[k], on[k], round(1e3 * on[k] / hz, 4), off[k], round(1e3 * off[k] / hz, 4)) for k in on)
        + (("sum", sum(on.values()), round(1e3 * sum(on.values()) / hz, 4),
            sum(off.values()), round(1e3 * sum(off.values()) / hz, 4)),
           ("measured overhead (timer -> SC done, CoMOS - standalone)", round(overhead["ssl-one"] * hz / 1e3),
            round(overhead["ssl-one"], 4), round(overhead["ssl-one-notrace"] * hz / 1e3),
            round(overhead["ssl-one-notrace"], 4)))))
    result.comparisons.append(Comparison("Section VI-C", "the overhead's messaging / dynamic memory parts (one module)",
                                         f"{brk[0]} / {brk[2]} ms (event log apart)",
                                         f"{1e3 * off['messaging'] / hz:.3f} / {1e3 * off['memory'] / hz:.3f} ms "
                                         f"(log out), {ms['messaging']:.3f} / {ms['memory']:.3f} ms (log in)"))
    return ms


def _on_path(s: e4_overhead_five.FiveSplit, part: str) -> float:
    """A part's ms along the critical path, each stretch at its module's clock."""
    return sum(st.ms(st.parts[part]) for st in s.path)


def _late_chain(s: e4_overhead_five.FiveSplit) -> str:
    """How much longer the critical sensing module's chain is than the quickest one's, how
    much of that is the kernel's, and why when it is the module of the temperature chain."""
    first = s.path[0]
    quickest = min(s.chains.values(), key=lambda c: c.cycles)
    kernel = ("messaging", "memory", "bus", "other_kernel", "wakeup")
    extra = sum(first.ms(first.parts[k]) - quickest.ms(quickest.parts[k]) for k in kernel)
    text = (f"{first.module}'s chain is {first.ms(first.cycles) - quickest.ms(quickest.cycles):.3f} ms longer than "
            f"{quickest.module}'s, {extra:.3f} ms of it in the kernel")
    if first.module != e4_overhead_five.temperature_module("five-sound"):
        return text + "."
    return (text + f": {first.module} also runs the temperature chain (FBD), whose messages come during its FFT, "
            f"and the standalone images leave FBD out, so about that much of Table V's overhead is FBD's "
            f"messaging rather than SSL's.")


def _split_five(result: StudyResult, cases: tuple[str, ...], overhead_ms: float,
                paper_ms: float) -> e4_overhead_five.FiveSplit:
    """The five-module split (Table V's device) by module and along the round's critical path,
    beside the one-module split; returns the sound case's."""
    splits = {case: e4_overhead_five.split(case) for case in cases}
    result.tables.append(e4_overhead_five.module_table(splits))
    result.tables.append(e4_overhead_five.chain_table(splits))
    result.tables.append(e4_overhead_five.path_table(splits))
    s = splits["sound"]
    result.comparisons.append(Comparison(
        "Table V", "five modules, sound: the kernel on the round's critical path, messaging + bus / memory / "
        "other kernel (event log in)", f"{paper_ms:.1f} ms of overhead in all, not split",
        f"{_on_path(s, 'messaging'):.3f} + {_on_path(s, 'bus'):.3f} / {_on_path(s, 'memory'):.3f} / "
        f"{_on_path(s, 'other_kernel'):.3f} ms; measured overhead {overhead_ms:.3f} ms"))
    return s


def _assignment(result: StudyResult, loops: tuple[int, ...]) -> Verdict:
    """The appendix's Figure 1 on two pairs of module kinds; the verdict on the pair that
    meets its premise (p faster and more energy-efficient than q)."""
    rows = []
    checked: dict[str, list[e4_assign.Point]] = {}
    params: dict[str, tuple[e4_assign.Kind, e4_assign.Kind]] = {}
    for name, pair in (("device", e4_assign.DEVICE), ("premise", e4_assign.PREMISE)):
        p, q, pts = e4_assign.check(pair, loops)
        checked[name], params[name] = pts, (p, q)
        for k, kind in (("p", p), ("q", q)):
            clock, profile = pair[k]
            rows.append((name, k, f"{clock} {profile}", round(kind.n / 1e6, 3), round(kind.m / 1e6, 1),
                         round(kind.p_i * 1e3, 4), round(kind.p_s * 1e6, 3), round(kind.e_w * 1e9, 2)))
    result.tables.append(OurTable("The appendix's parameters measured on cairn-sim",
                                  ("pair", "kind", "module", "N_mips", "M_instr_per_uJ", "P_I_mW", "P_S_uW", "E_W_nJ"),
                                  tuple(rows)))
    result.tables.append(OurTable(
        "Jobs of L instructions by deadline D: the appendix's region, the model's choice from the measured "
        "parameters, the measured cheaper module",
        ("pair", "L", "D_us", "region", "model", "measured", "E_p_nJ", "E_q_nJ"),
        tuple((name, pt.length, round(pt.deadline * 1e6, 1), pt.region, pt.predicted, pt.measured,
               None if pt.energy_p is None else round(pt.energy_p * 1e9, 1),
               None if pt.energy_q is None else round(pt.energy_q * 1e9, 1))
              for name, pts in checked.items() for pt in pts)))
    p, q = params["premise"]
    ln = e4_assign.lines(p, q)
    xs = [min(pt.length for pt in checked["premise"]) / 2, max(pt.length for pt in checked["premise"]) * 2]
    drawn = [(f"{k}: D = {ln[k][0]:.3g} L + {ln[k][1]:.3g}", xs, [ln[k][0] * x + ln[k][1] for x in xs]) for k in "abcd"
             if ln[k][0] > 0]
    if 0 < ln["e"][2] < float("inf"):
        d_all = [pt.deadline for pt in checked["premise"]]
        drawn.append((f"e: L = {ln['e'][2]:.0f}", [ln["e"][2]] * 2, [min(d_all) / 2, max(d_all) * 2]))
    result.figures.append(Figure("assignment", "The appendix's Figure 1 for the pair that meets its premise, "
                                 "with the measured cheaper module at each job.",
                                 plots.assignment_regions("Optimal assignment (premise pair)", drawn,
                                                          [(pt.measured, pt.length, pt.deadline)
                                                           for pt in checked["premise"]])))
    premise_met = p.n > q.n and p.m > q.m
    claimed = [pt for pt in checked["premise"] if pt.region.startswith(("a-b", "above c"))]
    sliver = [pt for pt in checked["premise"] if pt.region.startswith("b-c")]
    model_ok = all(pt.predicted == pt.measured for pts in checked.values() for pt in pts)
    holds = premise_met and all(pt.region.endswith(pt.measured) for pt in claimed) and \
        {pt.measured for pt in claimed} == {"p", "q"}
    dp, dq = params["device"]
    return Verdict(
        "optimal_assignment_regions", holds,
        f"premise pair (p {e4_assign.PREMISE['p'][0]} {e4_assign.PREMISE['p'][1]}, q {e4_assign.PREMISE['q'][0]} "
        f"{e4_assign.PREMISE['q'][1]}): {sum(pt.region.endswith(pt.measured) for pt in claimed)} of {len(claimed)} "
        f"jobs between a and b or above c as the appendix says; between b and c "
        f"{sum(pt.region.endswith(pt.measured) for pt in sliver)} of {len(sliver)} (line d assumes q's standby "
        f"free; it costs {q.e_w * 1e9:.1f} nJ here); the model with the measured parameters "
        f"{'picks' if model_ok else 'does not always pick'} the measured cheaper module on both pairs. On the "
        f"five-module device's kinds the premise fails (M_p {dp.m / 1e6:.0f} < M_q {dq.m / 1e6:.0f} "
        f"instructions per uJ): q wins wherever it meets the deadline")


def _messages(result: StudyResult, paper: Paper) -> float:
    """Figure 6: each destination's message latency on one module, the event log compiled out
    and in; returns the message to FFT's (log out, us)."""
    off, on = message_latencies("ssl-one-notrace"), message_latencies("ssl-one")
    dests = list(off)
    result.tables.append(OurTable(
        "Message latency by destination on one 8 MHz module (us): pin set before the send, cleared "
        "when the handler starts; Timer: its interrupt to the handler (Fig. 6)",
        ("destination", "log_out_us", "log_in_us", "log_adds_us"),
        tuple((d, round(off[d], 3), round(on[d], 3), round(on[d] - off[d], 3)) for d in dests)))
    result.figures.append(Figure("messages", "Message latency by destination, event log compiled out and in "
                                 "(the paper's Figure 6; one module, so no multicast over the bus).",
                                 plots.paired_bars("Messaging latency", "latency (us)", dests,
                                                   [("log out", [off[d] for d in dests]),
                                                    ("log in", [on[d] for d in dests])])))
    pv = {k: paper.value(k).value for k in ("latency_timer_message", "latency_fft_message", "event_logging_latency")}
    result.comparisons.append(Comparison("Fig. 6", "message to the Timer task (log out)",
                                         f"{pv['latency_timer_message']} us",
                                         f"{off['Timer']:.2f} us"))
    result.comparisons.append(Comparison("Fig. 6", "message to the FFT task (log out)",
                                         f"{pv['latency_fft_message']} us",
                                         f"{off['FFT']:.2f} us"))
    added = [on[d] - off[d] for d in dests]
    result.comparisons.append(Comparison("Fig. 6", "latency the event log adds, minimum and maximum",
                                         f"{pv['event_logging_latency'][0]} / {pv['event_logging_latency'][1]} us",
                                         f"{min(added):.2f} / {max(added):.2f} us"))
    return off["FFT"]


def _multicast(result: StudyResult, paper: Paper, rounds: int) -> Verdict:
    """Figure 6's multicast against a unicast across modules, from the device trace."""
    r = remote_latencies(rounds)
    hz = clocks_hz("five-sound")
    sensing_hz, compute_hz = hz["mic0"], hz["compute"]
    mcast_cycles, uni_cycles = r.mcast_last_us * sensing_hz / 1e6, r.unicast_min_us * compute_hz / 1e6
    result.tables.append(OurTable(
        "Messages across the five modules (event log in): frame written to the controller -> the "
        "destination handler starts (us, and the receiver's cycles)",
        ("message", "latency_us", "receiver_cycles"),
        (("Timer -> 4 ADCs (multicast, a bus broadcast; last member)", round(r.mcast_last_us, 3), round(mcast_cycles)),
         ("SC -> Vote (unicast), quickest", round(r.unicast_min_us, 3), round(uni_cycles)),
         ("SC -> Vote (unicast), mean", round(r.unicast_mean_us, 3), round(r.unicast_mean_us * compute_hz / 1e6)))))
    ratio, cycle_ratio = r.mcast_last_us / r.unicast_min_us, mcast_cycles / uni_cycles
    result.comparisons.append(Comparison("Fig. 6", "multicast latency / unicast latency",
                                         f"{paper.value('mcast_over_unicast_sound').value}",
                                         f"{ratio:.2f} in time, {cycle_ratio:.2f} in the receivers' cycles"))
    return Verdict(
        "multicast_costlier_than_unicast", ratio >= 2 and cycle_ratio >= 2,
        f"the multicast takes {ratio:.2f} times the unicast's time, but its receivers run at "
        f"{sensing_hz / 1e6:.0f} MHz and the unicast's at {compute_hz / 1e6:.0f} MHz: in their cycles "
        f"{cycle_ratio:.2f} times. A broadcast costs one frame on cairn-sim's bus, as a unicast does")
