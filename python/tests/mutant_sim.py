"""A deliberately wrong simulator for the harness tests: the reference unicorn runner behind
the exec-cases CLI, with one mutation chosen by $MUTATION:

  reg     flip bit 0 of r3 in the first state of case 2
  hash    flip bit 0 of memhash in the last state of case 2
  drop    drop the last state of the first case with two or more states
  fault   report a different fault kind for the first faulting case
  nofault report no fault for the first faulting case
  crash   exit with status 3 after 5 results
  none    no mutation
"""

from __future__ import annotations

import os
import sys

from cairn.difftest.contract import Case
from cairn.difftest.uc_runner import ReferenceRunner


def main() -> int:
    assert sys.argv[1] == "exec-cases"
    mutation = os.environ.get("MUTATION", "none")
    runner = ReferenceRunner()
    done = False
    with open(sys.argv[2]) as f:
        for i, line in enumerate(f):
            if mutation == "crash" and i == 5:
                print("mutant: crashing on purpose", file=sys.stderr)
                return 3
            res = runner.run(Case.from_json(line))
            if not done:
                if mutation == "reg" and i == 2 and res.states:
                    res.states[0][3] ^= 1
                    done = True
                elif mutation == "hash" and i == 2 and res.states:
                    res.states[-1][17] ^= 1
                    done = True
                elif mutation == "drop" and len(res.states) >= 2:
                    res.states.pop()
                    done = True
                elif mutation == "fault" and res.fault:
                    res.fault = "bus error at 0x00000000" if res.fault != "bus" else "undefined instruction"
                    done = True
                elif mutation == "nofault" and res.fault:
                    res.fault = None
                    done = True
            sys.stdout.write(res.to_json() + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
