"""The seeds' abstract workloads on cairn-sim (docs/models.md, "Workloads"): write the
scenario of one point, run the workload's firmware under a model on it, and compute the
paper's metrics from what the simulator measured. The firmware is the same for every point.

- the tree-network node of "A performance analysis of MANTIS and TinyOS" (section IV.A),
  build/fw/tree-<model>.elf, for a node level n and a sensing length l_s;
- SimBed's task sets (sections 2.2 and 3), build/fw/rtos-<model>.elf, for a number of
  P-IPC, FIR, UP, DOWN, ADPCM or G721 tasks, a period and the background load.

    python -m cairn.workloads tree --model all --n 3 --ls-ms 75
    python -m cairn.workloads tree --n 3 --ls-ms 75 --write experiments/workloads/tree.toml
    python -m cairn.workloads rtos --tasks 4 --period-ms 2 --kind fir --background
"""

from __future__ import annotations

from . import fir, g721, ima_adpcm, signal
from .common import MODELS, RunError
from .tasksets import TaskSet, TaskSetResult, run_task_set
from .tree import TreeNode, TreeResult, run_tree

#: SimBed's task sets run under every model.
RTOS_MODELS = MODELS

__all__ = ["MODELS", "RTOS_MODELS", "RunError", "TaskSet", "TaskSetResult", "TreeNode", "TreeResult",
           "fir", "g721", "ima_adpcm", "run_task_set", "run_tree", "signal"]  # fmt: skip
