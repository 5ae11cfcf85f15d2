"""Randomized differential testing of cairn-sim's ARMv6-M core against unicorn.

    python -m cairn.difftest --cases 100000 --seed 1          # against build/bin/cairn-sim
    python -m cairn.difftest --cases 2000 --self-check        # harness against itself
    python -m cairn.difftest --seed 1 --case 1234             # one case, in detail

See contract.py for the `cairn-sim exec-cases` JSON contract and gen.py for what is generated
(and EXCLUDED_BEHAVIOURS for what is not, and why).
"""

from .compare import Summary, run_diff
from .contract import Case, Result, fnv1a64, normalize_fault
from .gen import CaseGen
from .space import EXCLUDED_BEHAVIOURS

__all__ = ["EXCLUDED_BEHAVIOURS", "Case", "CaseGen", "Result", "Summary", "fnv1a64", "normalize_fault", "run_diff"]
