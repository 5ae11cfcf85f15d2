"""The figures a paper reports, as transcribed into `experiments/<study>/paper.toml`.

A study's report sets these beside Cairn's measurements. Every entry names where in the
paper it comes from (`ref`), so a reader can check the transcription; claims are the
paper's conclusions, each checked by the study's test on our own numbers.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar


class PaperDataError(ValueError):
    """A paper.toml that does not follow the format; the message names file and entry."""


@dataclass(frozen=True)
class Parameter:
    name: str
    value: Any
    ref: str
    unit: str = ""
    note: str = ""


@dataclass(frozen=True)
class Table:
    id: str
    ref: str
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    def records(self) -> list[dict[str, Any]]:
        """Rows as dicts keyed by column (what pandas.DataFrame.from_records takes)."""
        return [dict(zip(self.columns, row)) for row in self.rows]


@dataclass(frozen=True)
class Value:
    id: str
    ref: str
    quantity: str
    value: Any
    unit: str = ""
    conditions: dict[str, Any] = field(default_factory=dict)
    note: str = ""


@dataclass(frozen=True)
class Claim:
    id: str
    ref: str
    text: str


@dataclass(frozen=True)
class Paper:
    study: str
    title: str
    citation: str
    platform: str
    values_available: bool
    parameters: tuple[Parameter, ...]
    tables: tuple[Table, ...]
    values: tuple[Value, ...]
    claims: tuple[Claim, ...]

    def table(self, table_id: str) -> Table:
        return _find(self.tables, table_id, "table", self.study)

    def value(self, value_id: str) -> Value:
        return _find(self.values, value_id, "value", self.study)

    def claim(self, claim_id: str) -> Claim:
        return _find(self.claims, claim_id, "claim", self.study)

    def parameter(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(f"{self.study}: no parameter {name!r}")


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


_T = TypeVar("_T", bound=_HasId)


def _find(items: tuple[_T, ...], key: str, kind: str, study: str) -> _T:
    for item in items:
        if item.id == key:
            return item
    raise KeyError(f"{study}: no {kind} {key!r}")


_KNOWN = {
    "parameter": {"name", "value", "ref", "unit", "note"},
    "table": {"id", "ref", "caption", "columns", "rows"},
    "value": {"id", "ref", "quantity", "value", "unit", "conditions", "note"},
    "claim": {"id", "ref", "text"},
}
_REQUIRED = {
    "parameter": {"name", "value", "ref"},
    "table": {"id", "ref", "caption", "columns", "rows"},
    "value": {"id", "ref", "quantity", "value"},
    "claim": {"id", "ref", "text"},
}


def load(path: Path) -> Paper:
    """Read and check one paper.toml; raises PaperDataError naming the file and entry."""
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise PaperDataError(f"{path}: {e}") from e
    unknown = set(doc) - {"paper", *_KNOWN}
    if unknown:
        raise PaperDataError(f"{path}: unknown section {sorted(unknown)[0]!r}")
    head = doc.get("paper")
    if not isinstance(head, dict) or not {"title", "citation", "platform"} <= set(head):
        raise PaperDataError(f"{path}: [paper] needs title, citation and platform")
    entries = {kind: _entries(path, doc, kind) for kind in _KNOWN}
    for t in entries["table"]:
        for i, row in enumerate(t["rows"]):
            if len(row) != len(t["columns"]):
                raise PaperDataError(
                    f"{path}: table {t['id']!r} row {i} has {len(row)} cells for {len(t['columns'])} columns"
                )
    return Paper(
        study=path.parent.name,
        title=head["title"],
        citation=head["citation"],
        platform=head["platform"],
        values_available=bool(head.get("values_available", True)),
        parameters=tuple(Parameter(**e) for e in entries["parameter"]),
        tables=tuple(
            Table(id=e["id"], ref=e["ref"], caption=e["caption"], columns=tuple(e["columns"]),
                  rows=tuple(tuple(r) for r in e["rows"]))
            for e in entries["table"]
        ),
        values=tuple(Value(**e) for e in entries["value"]),
        claims=tuple(Claim(**e) for e in entries["claim"]),
    )


def _entries(path: Path, doc: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    raw = doc.get(kind, [])
    if not isinstance(raw, list):
        raise PaperDataError(f"{path}: {kind} must be an array of tables ([[{kind}]])")
    key = "name" if kind == "parameter" else "id"
    seen: set[str] = set()
    for i, e in enumerate(raw):
        label = f"{kind} {e.get(key, i)!r}"
        missing = _REQUIRED[kind] - set(e)
        if missing:
            raise PaperDataError(f"{path}: {label} lacks {sorted(missing)[0]!r}")
        extra = set(e) - _KNOWN[kind]
        if extra:
            raise PaperDataError(f"{path}: {label} has unknown key {sorted(extra)[0]!r}")
        if not str(e["ref"]).strip():
            raise PaperDataError(f"{path}: {label} has an empty ref")
        if e[key] in seen:
            raise PaperDataError(f"{path}: {label} appears twice")
        seen.add(e[key])
    return list(raw)


def load_study(name: str) -> Paper:
    """The paper data of study `name` in this checkout (`experiments/<name>/paper.toml`)."""
    from cairn.paths import repo_root

    return load(repo_root() / "experiments" / name / "paper.toml")


def load_all(experiments: Path) -> dict[str, Paper]:
    """Every `experiments/*/paper.toml`, keyed by study folder name."""
    return {p.parent.name: load(p) for p in sorted(experiments.glob("*/paper.toml"))}
