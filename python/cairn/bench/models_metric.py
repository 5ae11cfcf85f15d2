"""The Thread-Metric-style figures per execution model (docs/models.md, "Thread-Metric per
model"): exact cycles of each kind of kernel work the model has, "n/a" where it has no such
concept.

Runs build/fw/metric-<model>.elf (kernel/models/metric/<model>.c; the phases and their
definitions: kernel/models/metric/metric.h) on cairn-sim with ``--trace``: each operation lies
between two marker stores, the figure is after - before - the two stores alone, 3
repetitions whose last two must agree. A phase the firmware never marks is "n/a".

``python -m cairn.bench.models_metric`` prints the figures; ``--out build/bench/kernel.json``
puts them in that file under ``models`` (the kernel bench, python -m cairn.bench.kernel,
writes the same key); ``--write-doc docs/models.md`` regenerates, from the one run, the table
there and each model's block on its own page, docs/models/<model>.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cairn.bench import kernel
from cairn.docblock import write_or_check

REPS = 3
#: the models, in docs/models.md's order, and the firmware of each
MODELS = ("limit", "tinyos", "coop", "nos", "mantis", "cairn")
#: kernel/models/metric/metric.h's phases: (JSON key, marker phase, the table's heading)
FIGURES = (
    ("cooperative_switch", 1, "cooperative switch"),
    ("preemptive_switch", 2, "preemptive switch"),
    ("interrupt_processing", 3, "interrupt processing"),
    ("interrupt_preemption", 4, "interrupt preemption"),
    ("message_processing", 5, "message processing"),
    ("synchronisation", 6, "synchronisation"),
    ("memory_allocation", 7, "memory allocation"),
)
NA = "n/a"

METHOD = {
    "cycles": "cairn-sim (cycle-exact Cortex-M0+, zero wait states) runs build/fw/metric-<model>.elf "
              "(kernel/models/metric/<model>.c, -Os; mantis and cairn on the kernel without the event "
              "log); each operation lies between two marker stores to the trace port, figure = after - "
              "before - the two stores alone; 3 repetitions, the last two must agree; a phase the "
              "model has no concept for is never marked: n/a",
    "cooperative_switch": "a unit of work ends (yields) -> the first instruction of the next one its "
                          "scheduler runs",
    "preemptive_switch": "running work makes higher-priority work ready -> that work's first instruction",
    "interrupt_processing": "running work pends a software interrupt and ends (yields) -> the first "
                            "instruction of the work the handler released",
    "interrupt_preemption": "running work pends a software interrupt whose handler releases "
                            "higher-priority work -> that work's first instruction (it preempts)",
    "message_processing": "a 16-byte message to another unit of work, which reads it: call -> return",
    "synchronisation": "a signal and its take by the same unit of work, nothing waiting",
    "memory_allocation": "an allocation of 128 bytes and its free",
}  # fmt: skip

BEGIN = "<!-- models-metric:begin -->"
END = "<!-- models-metric:end -->"


def page_markers(model: str) -> tuple[str, str]:
    """The begin and end markers of a model's block on its own page."""
    return f"<!-- models-metric:{model}:begin -->", f"<!-- models-metric:{model}:end -->"


def page_path(overview: Path, model: str) -> Path:
    """A model's own page beside the overview: docs/models.md -> docs/models/<model>.md."""
    return overview.with_suffix("") / f"{model}.md"


def figures_from_trace(tr: kernel.Trace, model: str) -> dict[str, int | str]:
    """One model's figures: cycles, or "n/a" for a phase its firmware does not mark."""

    def span(phase: int) -> list[int]:
        return [tr.markers[(phase, r, 1)] - tr.markers[(phase, r, 0)] for r in range(REPS)]

    def steady(values: list[int], what: str) -> int:
        if len(set(values[1:])) != 1:
            raise kernel.BenchError(f"models {model} {what}: repetitions differ: {values}")
        return values[-1]

    def marked(phase: int) -> bool:
        edges = [(phase, r, e) in tr.markers for r in range(REPS) for e in (0, 1)]
        if any(edges) and not all(edges):
            raise kernel.BenchError(f"models {model}: phase {phase} is marked only in part")
        return all(edges)

    if not marked(0):
        raise kernel.BenchError(f"models {model}: no empty-marker phase in the trace")
    empty = steady(span(0), "empty")
    out: dict[str, int | str] = {}
    for key, phase, _ in FIGURES:
        out[key] = steady([v - empty for v in span(phase)], key) if marked(phase) else NA
    return out


def measure(sim: str, fw_dir: Path, clock_hz: int = kernel.DEFAULT_CLOCK_HZ) -> dict[str, Any]:
    """kernel.json's ``models`` object: per model its figures, and the method."""
    per_model: dict[str, Any] = {}
    for model in MODELS:
        elf = fw_dir / f"metric-{model}.elf"
        _, trace = kernel.run_firmware(sim, elf, clock_hz)
        per_model[model] = figures_from_trace(kernel.parse_trace(trace, clock_hz), model)
    return {"figures": per_model, "firmware": [str(fw_dir / f"metric-{m}.elf") for m in MODELS],
            "method": METHOD}


def render_table(models: dict[str, Any]) -> str:
    """The Markdown block of docs/models.md: a row per figure, a column per model."""
    figs = models["figures"]
    names = [m for m in MODELS if m in figs]
    lines = [BEGIN,
             "| cycles | " + " | ".join(names) + " |",
             "|---|" + "---:|" * len(names)]
    for key, _, heading in FIGURES:
        lines.append(f"| {heading} | " + " | ".join(str(figs[m][key]) for m in names) + " |")
    lines.append(END)
    return "\n".join(lines)


def render_page(models: dict[str, Any], model: str) -> str:
    """The block of one model's page: its figures beside the least and the most of the other
    models that have the same concept, so the page compares without the overview."""
    figs = models["figures"]
    begin, end = page_markers(model)
    others = [m for m in MODELS if m in figs and m != model]

    def extreme(key: str, pick: Any) -> str:
        have = [(figs[m][key], m) for m in others if figs[m][key] != NA]
        if not have:
            return "none has it"
        value, who = pick(have)
        return f"{value} ({who})"

    lines = [begin,
             f"| cycles | {model} | least of the other models | most of the other models |",
             "|---|---:|---:|---:|"]
    for key, _, heading in FIGURES:
        lines.append(f"| {heading} | {figs[model][key]} | {extreme(key, min)} | {extreme(key, max)} |")
    lines.append(end)
    return "\n".join(lines)


def write_docs(overview: Path, models: dict[str, Any], write: bool, fix: str) -> int:
    """The overview's table and every model page's block, from one run: 0 when all are (or
    now are) fresh, else 1 with a line per stale file on stderr."""
    status = write_or_check(overview, render_table(models), BEGIN, END, write, fix)
    for model in MODELS:
        if model in models["figures"]:
            begin, end = page_markers(model)
            status |= write_or_check(page_path(overview, model), render_page(models, model), begin, end,
                                     write, fix)
    return status


def render_status_line(models: dict[str, Any]) -> list[str]:
    """One line for the STATUS bench block (python -m cairn.bench.status)."""
    figs = models["figures"]
    parts = []
    for key, _, heading in FIGURES:
        have = [f"{m} {figs[m][key]}" for m in MODELS if m in figs and figs[m][key] != NA]
        parts.append(f"{heading} " + ", ".join(have))
    return ["  - Thread-Metric per execution model (`metric-<model>.elf`, docs/models.md; models without the concept omitted): "
            + "; ".join(parts)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--fw", type=Path, default=Path("build/fw"), help="where metric-<model>.elf are")
    ap.add_argument("--clock", type=int, default=kernel.DEFAULT_CLOCK_HZ)
    ap.add_argument("--out", type=Path, help="a JSON file to put the figures in, under `models`")
    ap.add_argument("--write-doc", type=Path,
                    help="the overview page whose table to regenerate, with its pages <page>/<model>.md")
    args = ap.parse_args(argv)
    try:
        models = measure(args.sim, args.fw, args.clock)
    except (kernel.BenchError, OSError) as e:
        sys.exit(f"models_metric: {e}")
    if args.out:
        try:
            data = json.loads(args.out.read_text()) if args.out.exists() else {}
        except json.JSONDecodeError as e:
            sys.exit(f"models_metric: {args.out}: not JSON ({e})")
        data["models"] = models
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(data, indent=2) + "\n")
    if args.write_doc:
        try:
            write_docs(args.write_doc, models, True, "")
        except (ValueError, OSError) as e:
            sys.exit(f"models_metric: {e}")
    print(json.dumps(models["figures"], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
