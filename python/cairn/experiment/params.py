"""Sweep points: a grid of parameter values, and setting a point's values in a scenario or
device by their TOML key paths."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from ..scenario import Device, Document, Scenario

Point = dict[str, Any]
D = TypeVar("D", bound=Document)


def grid(axes: Mapping[str, Sequence[Any]]) -> list[Point]:
    """Every combination of the axes' values, the last axis varying fastest."""
    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*(list(axes[n]) for n in names))]


def points(grid_or_list: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]]) -> list[Point]:
    """A dict of axes is a grid; a list of dicts is the points themselves."""
    if isinstance(grid_or_list, Mapping):
        return grid(grid_or_list)
    return [dict(p) for p in grid_or_list]


def apply(base: D, point: Mapping[str, Any]) -> D:
    """A copy of `base` with each `path = value` of the point set. A path is the TOML key
    path, dotted: `clock`, `energy.profile`, `bus.slot`; an element of an array of tables by
    its name or index: `processor.fast.clock`, `stimulus.0.period`, `fault.1.probability`.
    Tables on the way are made when missing; None removes the key (cairn-sim's default)."""
    doc = base.to_toml()
    for path, value in point.items():
        _set(doc, path.split("."), value, path)
    out = type(base).from_toml(doc)
    out.source_dir, out.file_name = base.source_dir, base.file_name
    return out


def _set(node: Any, keys: list[str], value: Any, path: str) -> None:
    for k in keys[:-1]:
        node = _child(node, k, path)
    last = keys[-1]
    if isinstance(node, list):
        node[_index(node, last, path)] = value
    elif value is None:  # absent: cairn-sim's default
        node.pop(last, None)
    else:
        node[last] = value


def _child(node: Any, k: str, path: str) -> Any:
    if isinstance(node, list):
        return node[_index(node, k, path)]
    if not isinstance(node, dict):
        raise KeyError(f"{path}: {k!r} is inside a value, not a table")
    return node.setdefault(k, {})


def _index(items: list[Any], k: str, path: str) -> int:
    if k.isdigit() and int(k) < len(items):
        return int(k)
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get("name") == k:
            return i
    raise KeyError(f"{path}: no element {k!r} (by name or index)")


__all__ = ["Device", "Point", "Scenario", "apply", "grid", "points"]
