"""What the workloads' runners share: the models and the error a failed run raises."""

from __future__ import annotations

#: The execution models (docs/models.md), Cairn OS's own message kernel last.
MODELS = ("tinyos", "mantis", "nos", "coop", "limit", "cairn")


class RunError(RuntimeError):
    pass
