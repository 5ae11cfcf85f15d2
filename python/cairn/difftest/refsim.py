"""`python -m cairn.difftest.refsim exec-cases CASES.jsonl`: the exec-cases contract
implemented by the slow reference unicorn runner (fresh engine per case, count=1 stepping).

It stands in for cairn-sim in `python -m cairn.difftest --self-check`, which proves the
harness: generator, JSON plumbing, the fast runner's stepping and its reuse of one engine.
"""

from __future__ import annotations

import sys

from .contract import Case
from .uc_runner import ReferenceRunner


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "exec-cases":
        print("usage: python -m cairn.difftest.refsim exec-cases CASES.jsonl", file=sys.stderr)
        return 2
    runner = ReferenceRunner()
    try:
        f = open(argv[1])  # noqa: SIM115
    except OSError as e:
        print(f"refsim: cannot open {argv[1]}: {e}", file=sys.stderr)
        return 2
    with f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                case = Case.from_json(line)
            except (ValueError, KeyError, TypeError) as e:
                print(f"refsim: {argv[1]}:{n}: {e}", file=sys.stderr)
                return 2
            sys.stdout.write(runner.run(case).to_json() + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
