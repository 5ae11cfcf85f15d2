"""The base of every table of a scenario or device file: a dataclass whose fields are the keys
cairn-sim documents, plus `extra` for any other key.

Keys the model does not know are kept, not refused: cairn-sim is the one validator
(Document.check, in document.py), so a file with a misspelt key round-trips and then gets exactly the
simulator's error. A field left at None is absent from the file, and so takes cairn-sim's
default.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Self


def key(name: str, kind: type[Section] | None = None, shape: str = "one") -> Any:
    """A field stored under TOML key `name`. With `kind`, its value is that Section (shape
    "one"), a list of them ("list", an array of tables) or a dict of them ("dict", a table of
    named tables such as `[pin.NAME]`)."""
    return dataclasses.field(default=None, metadata={"key": name, "kind": kind, "shape": shape})


@dataclasses.dataclass
class Section:
    extra: dict[str, Any] = dataclasses.field(default_factory=dict, kw_only=True)

    #: keys of the TOML table whose values are file paths, relative to the file's folder
    path_keys: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_toml(cls, table: Mapping[str, Any]) -> Self:
        rest = dict(table)
        values: dict[str, Any] = {}
        for f in _model_fields(cls):
            k = f.metadata.get("key", f.name)
            if k not in rest:
                continue
            v = rest.pop(k)
            kind, shape = f.metadata.get("kind"), f.metadata.get("shape", "one")
            if kind is not None:
                v = _load(kind, shape, v)
            values[f.name] = v
        return cls(**values, extra=rest)

    def to_toml(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in _model_fields(type(self)):
            v = getattr(self, f.name)
            if v is None:
                continue
            k = f.metadata.get("key", f.name)
            if isinstance(v, Section):
                out[k] = v.to_toml()
            elif isinstance(v, list):
                out[k] = [x.to_toml() if isinstance(x, Section) else copy.deepcopy(x) for x in v]
            elif isinstance(v, dict):
                out[k] = {n: x.to_toml() if isinstance(x, Section) else copy.deepcopy(x) for n, x in v.items()}
            else:
                out[k] = str(v) if hasattr(v, "__fspath__") else v
        out.update(copy.deepcopy(self.extra))
        return out

    def copy(self) -> Self:
        return copy.deepcopy(self)

    def map_paths(self, fn: Callable[[str], str]) -> None:
        """Rewrite, in place, every value that names a file (in this table and the ones inside it)."""
        for f in _model_fields(type(self)):
            v = getattr(self, f.name)
            k = f.metadata.get("key", f.name)
            if k in self.path_keys and isinstance(v, (str, os.PathLike)) and self.is_path(k, str(v)):
                setattr(self, f.name, fn(str(v)))
            for x in v if isinstance(v, list) else v.values() if isinstance(v, dict) else [v]:
                if isinstance(x, Section):
                    x.map_paths(fn)

    def is_path(self, key: str, value: str) -> bool:
        """Whether `value` of path key `key` is a file (some keys take a name or a file)."""
        return True


def _model_fields(cls: type[Section]) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(cls) if f.name != "extra" and not f.metadata.get("internal")]


def _load(kind: type[Section], shape: str, v: Any) -> Any:
    if shape == "one" and isinstance(v, Mapping):
        return kind.from_toml(v)
    if shape == "list" and isinstance(v, list) and all(isinstance(x, Mapping) for x in v):
        return [kind.from_toml(x) for x in v]
    if shape == "dict" and isinstance(v, Mapping) and all(isinstance(x, Mapping) for x in v.values()):
        return {n: kind.from_toml(x) for n, x in v.items()}
    # Not the shape cairn-sim expects: kept as written, for cairn-sim to refuse.
    return v
