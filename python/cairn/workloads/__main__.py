"""`python -m cairn.workloads`: one point of a workload under one model or all."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from . import MODELS, RTOS_MODELS, RunError, TaskSet, TreeNode, run_task_set, run_tree
from . import __doc__ as package_doc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cairn.workloads", description=(package_doc or "").split("\n\n")[0])
    sub = ap.add_subparsers(dest="workload", required=True)
    tree = sub.add_parser("tree", help="the MANTIS/TinyOS paper's tree-network node")
    tree.add_argument("--model", default="all", choices=(*MODELS, "all"))
    tree.add_argument("--n", type=int, required=True, help="tree level (lambda_n = (2^n - 1) f_s)")
    tree.add_argument("--ls-ms", type=float, required=True, help="sensing task length l_s in ms")
    tree.add_argument("--senses", type=int, default=20, help="sensing jobs (seconds at f_s = 1/s)")
    rtos = sub.add_parser("rtos", help="SimBed's periodic task sets and background load")
    rtos.add_argument("--model", default="all", choices=(*RTOS_MODELS, "all"))
    rtos.add_argument("--tasks", type=int, required=True, help="1 to 8 tasks")
    rtos.add_argument("--period-ms", type=int, required=True)
    rtos.add_argument("--kind", default="pipc", help="pipc, fir, up, down, adpcm or g721")
    rtos.add_argument("--ratio", type=int, default=1, help="UP and DOWN: 2, 4 or 8 (the period is the faster job's)")
    rtos.add_argument("--background", action="store_true", help="AP-IPC and the control loop")
    rtos.add_argument("--energy", action="store_true", help="energy by category (STM32L053 profile)")
    rtos.add_argument("--no-doze", action="store_true", help="NOS polls instead of sleeping when idle")
    for p in (tree, rtos):
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--write", type=Path, help="only write the scenario file")
    args = ap.parse_args(argv)
    point: TreeNode | TaskSet
    models: tuple[str, ...]
    if args.workload == "tree":
        point, models = TreeNode(n=args.n, ls_ms=args.ls_ms, senses=args.senses), MODELS
    else:
        point = TaskSet(tasks=args.tasks, period_ms=args.period_ms, kind=args.kind, background=args.background,
                        energy=args.energy, doze=not args.no_doze, ratio=args.ratio)  # fmt: skip
        models = RTOS_MODELS
    try:
        point.check()
    except ValueError as err:
        print(f"cairn.workloads: {err}", file=sys.stderr)
        return 2
    if args.write is not None:
        args.write.write_text(point.scenario())
        return 0
    with tempfile.TemporaryDirectory(prefix="cairn-workload-") as tmp:
        for model in models if args.model == "all" else (args.model,):
            try:
                if isinstance(point, TreeNode):
                    print(run_tree(model, point, Path(tmp), args.seed).line())
                else:
                    print(run_task_set(model, point, Path(tmp), args.seed).line())
            except RunError as err:
                print(f"cairn.workloads: {args.workload}-{model} failed: {str(err).splitlines()[1]}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
