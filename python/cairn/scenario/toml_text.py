"""Write TOML: the subset cairn-sim's files use (tables, arrays of tables, strings, numbers,
booleans, arrays). Python reads TOML (tomllib) but cannot write it; this writes text that
tomllib reads back to the same dictionary."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def dumps(doc: Mapping[str, Any]) -> str:
    """`doc` as TOML text. Scalars and inline arrays come first in each table, then
    sub-tables, then arrays of tables, so every key lands in the table it belongs to."""
    lines: list[str] = []
    _table(doc, [], lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def _table(t: Mapping[str, Any], path: list[str], lines: list[str]) -> None:
    for k, v in t.items():
        if not _is_table(v) and not _is_table_array(v):
            lines.append(f"{_key(k)} = {_value(v)}")
    for k, v in t.items():
        if _is_table(v):
            # A table holding only tables needs no header of its own (`[pin.led]` alone).
            if not v or any(not _is_table(x) and not _is_table_array(x) for x in v.values()):
                lines.append("")
                lines.append(f"[{_dotted([*path, k])}]")
            _table(v, [*path, k], lines)
    for k, v in t.items():
        if _is_table_array(v):
            for item in v:
                lines.append("")
                lines.append(f"[[{_dotted([*path, k])}]]")
                _table(item, [*path, k], lines)


def _is_table(v: Any) -> bool:
    return isinstance(v, Mapping)


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and len(v) > 0 and all(isinstance(x, Mapping) for x in v)


def _dotted(path: list[str]) -> str:
    return ".".join(_key(p) for p in path)


def _key(k: str) -> str:
    return k if _BARE_KEY.match(k) else _string(k)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):  # int, and numpy's integers from a sweep's axes
        return str(int(v))
    if isinstance(v, numbers.Real):
        v = float(v)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML: {v!r}")


def _string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)
