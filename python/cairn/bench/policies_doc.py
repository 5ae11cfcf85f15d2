"""The scheduling policies' measured figures in their docs (docs/policies.md and a page per
policy under docs/policies/), generated from one run.

Runs, on cairn-sim, the kernel bench built once per policy (the figures of kernel.json's
``policies``, python/cairn/bench/kernel.py: build/fw/kernel-bench-notrace.elf for fixed
priority, build/fw/kernel-bench-{edf,csd}.elf) and the scheduler-operation firmware
(python/cairn/bench/overheads.py: build/fw/kernel-overheads-{fp,edf,csd}.elf), then writes the
overview's table (a column per policy) and each page's block (its policy's figures beside the
others', with the difference).

``python -m cairn.bench.policies_doc --sim build/bin/cairn-sim`` prints the figures as JSON;
``--write-doc docs/policies.md`` regenerates the blocks there and in docs/policies/<page>.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cairn.bench import kernel, overheads
from cairn.docblock import write_or_check

#: the policies in docs/policies.md's order: (kernel.json's key, heading, page under docs/policies/)
POLICIES = (
    ("fp", "fixed priority", "fp"),
    ("edf", "EDF + SRP", "edf-srp"),
    ("csd", "CSD-2", "csd"),
)
#: the kernel bench's rows: (key of a `policies` entry, heading)
BENCH_ROWS = (
    ("send_preempt_cycles", "send → preempting handler's first instruction"),
    ("send_preempt_roundtrip_cycles", "send → preempting handler → back (call → return)"),
    ("send_enqueue_cycles", "queued send (call → return)"),
    ("irq_to_handler_cycles", "interrupt bound to a message → handler"),
    ("irq_to_handler_beyond_entry_cycles", "the same beyond the hardware's exception entry"),
    ("timer_to_handler_cycles", "timer expiry → TIMEOUT handler"),
)
#: the scheduler operations' rows (python/cairn/bench/overheads.py): (operation, heading)
OP_ROWS = (
    ("unblock0", "unblock: enqueue, queue empty"),
    ("unblock_long", f"unblock: enqueue behind {overheads.LONG} queued"),
    ("select1", "select: the dispatcher's choice, 1 queued"),
    ("select_long", f"select: the dispatcher's choice, {overheads.LONG} queued"),
    ("block", "block: a handler's return"),
    ("dispatch", "dispatch of one queued message to an empty handler"),
)
OVERVIEW_BEGIN = "<!-- policies-figures:begin -->"
OVERVIEW_END = "<!-- policies-figures:end -->"
FIX = "python -m cairn.bench.policies_doc --sim build/bin/cairn-sim --write-doc docs/policies.md"


def page_markers(policy: str) -> tuple[str, str]:
    """The begin and end markers of a policy's block on its own page."""
    return f"<!-- policies-figures:{policy}:begin -->", f"<!-- policies-figures:{policy}:end -->"


def page_path(overview: Path, policy: str) -> Path:
    """A policy's page beside the overview: docs/policies.md -> docs/policies/<page>.md."""
    page = {key: name for key, _, name in POLICIES}[policy]
    return overview.with_suffix("") / f"{page}.md"


def measure(sim: str, fw_dir: Path, clock_hz: int = kernel.DEFAULT_CLOCK_HZ) -> dict[str, Any]:
    """Per policy the kernel bench's figures (as kernel.json's `policies`), the scheduler's
    operations, and the analysis's overhead keys derived from them."""
    bench_elfs = {"fp": fw_dir / "kernel-bench-notrace.elf",
                  **{p: fw_dir / f"kernel-bench-{p}.elf" for p in kernel.POLICIES}}
    bench: dict[str, Any] = {}
    for policy, elf in bench_elfs.items():
        if not elf.is_file():
            raise kernel.BenchError(f"{elf} is missing (`make firmware` builds it)")
        figures, _, sizeofs = kernel.measure(sim, elf, clock_hz)
        bench[policy] = kernel.policy_figures(figures, sizeofs, kernel.FAST_PATHS[policy])
    ops, _ = overheads.measure(sim, fw_dir, clock_hz)
    return {"bench": bench, "operations": ops, "keys": overheads.derive(ops)}


def _rows(figs: dict[str, Any]) -> list[tuple[str, dict[str, int | str]]]:
    """(heading, value per policy) of every row of the tables."""
    rows: list[tuple[str, dict[str, int | str]]] = []
    for key, heading in BENCH_ROWS:
        rows.append((f"{heading} (cycles)", {p: figs["bench"][p][key] for p, _, _ in POLICIES}))
    rows.append(("message size (bytes)", {p: figs["bench"][p]["msg_bytes"] for p, _, _ in POLICIES}))
    rows.append(("fast paths written in", {p: figs["bench"][p]["fast_paths"] for p, _, _ in POLICIES}))
    for op, heading in OP_ROWS:
        rows.append((f"{heading} (cycles)", {p: figs["operations"][p][op] for p, _, _ in POLICIES}))
    return rows


def _keys_line(keys: dict[str, float], prefixes: tuple[str, ...]) -> str:
    shown = [f"`{k}` {v:g}" for k, v in keys.items() if k.startswith(prefixes)]
    return "The analysis's overhead keys (docs/analysis.md, `--overheads`): " + ", ".join(shown) + "."


def render_overview(figs: dict[str, Any]) -> str:
    """docs/policies.md's block: a row per figure, a column per policy."""
    lines = [OVERVIEW_BEGIN,
             "| | " + " | ".join(h for _, h, _ in POLICIES) + " |",
             "|---|" + "---:|" * len(POLICIES)]
    for heading, values in _rows(figs):
        lines.append(f"| {heading} | " + " | ".join(str(values[p]) for p, _, _ in POLICIES) + " |")
    lines += ["", _keys_line(figs["keys"], ("",)), OVERVIEW_END]
    return "\n".join(lines)


def render_page(figs: dict[str, Any], policy: str) -> str:
    """One policy's block: its figures, and each other policy's with the difference from it."""
    begin, end = page_markers(policy)
    others = [(p, h) for p, h, _ in POLICIES if p != policy]
    mine = {p: h for p, h, _ in POLICIES}[policy]

    def against(value: int | str, own: int | str) -> str:
        if isinstance(value, int) and isinstance(own, int):
            return f"{value} ({value - own:+d})"
        return str(value)

    lines = [begin,
             f"| | {mine} | " + " | ".join(f"{h} (difference)" for _, h in others) + " |",
             "|---|---:|" + "---:|" * len(others)]
    for heading, values in _rows(figs):
        lines.append(f"| {heading} | {values[policy]} | "
                     + " | ".join(against(values[p], values[policy]) for p, _ in others) + " |")
    prefixes = ("fp.", "context_switch") if policy == "fp" else (f"{policy}.",)
    lines += ["", _keys_line(figs["keys"], prefixes), end]
    return "\n".join(lines)


def write_docs(overview: Path, figs: dict[str, Any], write: bool, fix: str = FIX) -> int:
    """The overview's block and every page's, from one run: 0 when all are (or now are) fresh,
    else 1 with a line per stale file on stderr."""
    status = write_or_check(overview, render_overview(figs), OVERVIEW_BEGIN, OVERVIEW_END, write, fix)
    for policy, _, _ in POLICIES:
        begin, end = page_markers(policy)
        status |= write_or_check(page_path(overview, policy), render_page(figs, policy), begin, end,
                                 write, fix)
    return status


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", required=True)
    ap.add_argument("--fw", type=Path, default=Path("build/fw"),
                    help="where kernel-bench-*.elf and kernel-overheads-*.elf are")
    ap.add_argument("--clock", type=int, default=kernel.DEFAULT_CLOCK_HZ)
    ap.add_argument("--write-doc", type=Path,
                    help="the overview page whose block to regenerate, with its pages <page>/<policy>.md")
    args = ap.parse_args(argv)
    try:
        figs = measure(args.sim, args.fw, args.clock)
        if args.write_doc:
            write_docs(args.write_doc, figs, True)
    except (kernel.BenchError, ValueError, OSError) as e:
        sys.exit(f"policies_doc: {e}")
    print(json.dumps(figs, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
