"""What a study reproduction produces: our figures beside the paper's, and the paper's claims
judged on our measurements. The report renders these; nothing in them is typed by hand."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Verdict:
    """A paper claim judged on our numbers: True holds, False does not, None not reproduced
    (``evidence`` then says what is missing)."""

    claim_id: str
    holds: bool | None
    evidence: str


@dataclass(frozen=True)
class Comparison:
    """One paper figure and ours beside it, both as display text with units."""

    ref: str
    quantity: str
    paper: str
    ours: str


@dataclass(frozen=True)
class OurTable:
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class Figure:
    """A rendered figure: PNG bytes and the caption saying which paper figure it mirrors."""

    name: str
    caption: str
    png: bytes


@dataclass
class StudyResult:
    study: str
    size: str
    setup: str
    comparisons: list[Comparison] = field(default_factory=list)
    tables: list[OurTable] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    differences: str = ""

    def verdict(self, claim_id: str) -> Verdict:
        for v in self.verdicts:
            if v.claim_id == claim_id:
                return v
        raise KeyError(f"{self.study}: no verdict for claim {claim_id!r}")
