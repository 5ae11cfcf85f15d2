"""The instruction-mix finding of docs/energy.md: how far the STM32L053 profile's flat model
(every instruction class at the Table 28 run current) is from DS10152 Table 29, which gives
the run current of three kinds of code at two operating points, and whether one set of
instruction-class factors fitted to those points does better at both.

It runs the energy firmware (kernel/tests/sim/energy_{while1,fib,dproc}.c, built by
`make build`) on cairn-sim with `--energy stm32l053 --stats` at 32 MHz (voltage range 1) and
4 MHz (range 3), and reads each run's mean current and its cycles per instruction class.

Two fits are tried. A class factor f_c scales the run current of class c, so program p at point r draws
I_28(r) * sum_c share_pc(r) * f_c (share: the class's fraction of p's cycles at r, which the
flash wait states change). DS10152 measures Table 28 on Dhrystone 2.1; Dhrystone is not in
this repository, so the Dhrystone-style energy_dproc.c stands in for it. Each fit minimises
the squared relative errors at all six points of Table 29 (Dhrystone's are Table 28's), with
a small pull of each factor towards 1 so that classes the data cannot tell apart stay at 1.
A fit may be adopted only if every factor is positive (a class cannot draw a negative
current), it reduces the error at every while(1) and Fibonacci point, and the Dhrystone
stand-in stays within 5 % of Table 28.

`python -m cairn.energy_mix` prints the Markdown block that docs/energy.md quotes;
python/tests/test_energy_mix.py checks that the document holds exactly this output."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from .experiment import run as cairn_run
from .paths import firmware

#: DS10152 Rev 9 Table 29, typical run current by code type, uA: (range 1 at 32 MHz, range 3 at 4 MHz).
TABLE_29 = {"while(1)": (5400.0, 355.0), "Fibonacci": (6550.0, 440.0), "Dhrystone": (6300.0, 555.0)}
#: Table 28 run current at the same points (Dhrystone), uA.
TABLE_28 = (6300.0, 555.0)
POINTS = (("32MHz", "range 1, 32 MHz"), ("4MHz", "range 3, 4 MHz"))
PROGRAMS = {"while(1)": "energy_while1", "Fibonacci": "energy_fib", "Dhrystone": "energy_dproc"}
CLASSES = ("alu", "mul", "load", "store", "branch", "multi", "system", "sleep", "exception")
#: The two fits: groups of classes sharing one factor. "per class": each class with a
#: noticeable share of some program's cycles has its own; "branch vs rest": branches have one,
#: every other class another. Classes outside every group keep factor 1.
FITS: dict[str, tuple[tuple[str, ...], ...]] = {
    "per class": (("alu",), ("load",), ("store",), ("branch",), ("multi",)),
    "branch vs rest": (("branch",), tuple(c for c in CLASSES if c != "branch")),
}
VOLTS = 3.0
#: Largest error the Dhrystone stand-in may have under an adopted fit (the tests' tolerance).
DHRYSTONE_TOLERANCE = 0.05
PULL_TO_ONE = 1e-3


@dataclass(frozen=True)
class Run:
    mean_ua: float
    shares: dict[str, float]


def measure(program: str, clock: str) -> Run:
    """Runs build/fw/test-`program`.elf at `clock` with the stm32l053 profile."""
    r = cairn_run(firmware(program), outputs=("stats",), options=("--energy", "stm32l053", "--clock", clock),
                  timeout=120)
    if r.status != 0:
        raise RuntimeError(r.describe_failure())
    s = r.stats_json
    by_class = s["energy_model"]["by_class"]
    cycles = {c: float(by_class.get(c, {}).get("cycles", 0)) for c in CLASSES}
    total = sum(cycles.values())
    mean = float(s["energy_joules"]["total"]) / float(s["simulated_seconds"]) / VOLTS * 1e6
    return Run(mean_ua=mean, shares={c: v / total for c, v in cycles.items()})


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Least squares a x ~ b by the normal equations (Gauss-Jordan with partial pivoting)."""
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] + [sum(r[i] * y for r, y in zip(a, b))] for i in range(n)]
    for col in range(n):
        piv = max(range(col, n), key=lambda k: abs(m[k][col]))
        m[col], m[piv] = m[piv], m[col]
        for k in range(n):
            if k != col:
                f = m[k][col] / m[col][col]
                m[k] = [x - f * y for x, y in zip(m[k], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(runs: dict[tuple[str, int], Run], groups: tuple[tuple[str, ...], ...]) -> dict[str, float]:
    """Class factors (one per group) minimising the relative errors at the six Table 29 points
    (see the module's docstring)."""
    rows: list[list[float]] = []
    rhs: list[float] = []
    grouped = {c for g in groups for c in g}
    for (prog, pt), run in runs.items():
        fixed = sum(run.shares[c] for c in CLASSES if c not in grouped)
        target = TABLE_29[prog][pt] / TABLE_28[pt]
        # shares . f = target, relative to the target so each point weighs the same.
        rows.append([sum(run.shares[c] for c in g) / target for g in groups])
        rhs.append((target - fixed) / target)
    for i in range(len(groups)):
        rows.append([PULL_TO_ONE if j == i else 0.0 for j in range(len(groups))])
        rhs.append(PULL_TO_ONE)
    return {c: f for g, f in zip(groups, solve(rows, rhs)) for c in g}


def modelled(run: Run, pt: int, factors: dict[str, float]) -> float:
    return TABLE_28[pt] * sum(run.shares[c] * factors.get(c, 1.0) for c in CLASSES)


@dataclass(frozen=True)
class Finding:
    """What `report` found: the Markdown block, per fit whether it may be adopted (see the
    module's docstring), and the flat model's error per (program, point)."""

    markdown: str
    adoptable: dict[str, bool]
    flat_error: dict[tuple[str, int], float]


def report() -> Finding:
    """Runs the firmware and fits; the Markdown block of docs/energy.md."""
    runs = {(prog, pt): measure(fw, POINTS[pt][0]) for prog, fw in PROGRAMS.items() for pt in range(2)}
    fits = {name: fit(runs, groups) for name, groups in FITS.items()}
    head = "| code (firmware) | operating point | DS10152 Table 29 | flat model | error |"
    rule = "| --- | --- | --- | --- | --- |"
    for name in fits:
        head += f" fit {name} | error |"
        rule += " --- | --- |"
    lines = [head, rule]
    reasons: dict[str, list[str]] = {name: [] for name in fits}
    for name, f in fits.items():
        if any(v <= 0 for v in f.values()):
            reasons[name].append("a factor is not positive")
    flat_error: dict[tuple[str, int], float] = {}
    for (prog, pt), run in runs.items():
        want = TABLE_29[prog][pt]
        e_flat = run.mean_ua / want - 1
        flat_error[(prog, pt)] = e_flat
        row = f"| {prog} ({PROGRAMS[prog]}.c) | {POINTS[pt][1]} | {want:g} uA | {run.mean_ua:.0f} uA | {e_flat:+.1%} |"
        for name, factors in fits.items():
            m = modelled(run, pt, factors)
            e_fit = m / want - 1
            if prog == "Dhrystone" and abs(e_fit) > DHRYSTONE_TOLERANCE:
                reasons[name].append(f"Dhrystone stand-in off by more than 5 % at {POINTS[pt][1]}")
            elif prog != "Dhrystone" and abs(e_fit) >= abs(e_flat):
                reasons[name].append(f"{prog} error not reduced at {POINTS[pt][1]}")
            row += f" {m:.0f} uA | {e_fit:+.1%} |"
        lines.append(row)
    lines.append("")
    adoptable = {name: not r for name, r in reasons.items()}
    for name, factors in fits.items():
        shown = {"/".join(g) if len(g) < 3 else "all others": factors[g[0]] for g in FITS[name]}
        verdict = "adoptable" if adoptable[name] else "not adoptable: " + "; ".join(reasons[name])
        lines.append(f"- Fit {name}: " + ", ".join(f"{k} {v:.3f}" for k, v in shown.items()) + f" ({verdict}).")
    branch = {pt: runs[("while(1)", pt)].shares["branch"] for pt in range(2)}
    lines.append(
        f"- while(1) spends {branch[0]:.1%} (range 1) and {branch[1]:.1%} (range 3) of its cycles on branches;"
        + f" Table 29 puts it at {TABLE_29['while(1)'][0] / TABLE_28[0]:.3f} of the Dhrystone current in range 1"
        + f" and {TABLE_29['while(1)'][1] / TABLE_28[1]:.3f} in range 3."
    )
    chosen = [n for n, ok in adoptable.items() if ok]
    lines.append("- Verdict: " + (f"fit {chosen[0]} adopted." if chosen else "no fit adopted; the shipped profile stays flat."))
    return Finding("\n".join(lines) + "\n", adoptable, flat_error)


def main() -> int:
    sys.stdout.write(report().markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
