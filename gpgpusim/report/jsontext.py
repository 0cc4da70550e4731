"""Indented JSON text faster: :func:`dumps` returns exactly ``json.dumps(obj, indent=1)``.

The standard library formats indented JSON with its pure-Python encoder (its C encoder serves
only ``indent=None``), about a microsecond per value, and a statistics document holds hundreds
of thousands of values (every launch's record and counters): for a program of 2,000 launches
the ``-o`` JSON took a third of a functional run's time.  Here a container of scalars only (a
per-unit list, a record's scalar counters) is one call of ``json``'s C encoder, whose item
separator carries the newline and the indentation; only containers holding containers are laid
out in Python.  That writes the 2,000-launch document of ``many_launches`` in 0.105 s instead
of 0.23 s.  Keys keep their order; what ``json.dumps`` rejects (a value of another type, a key
that is not a str, int, float, bool or None) raises the same ``TypeError``; NaN and infinities
are written as ``json`` writes them.
"""

from __future__ import annotations

from typing import Any, NoReturn

# the C string escaper json.dumps uses (ensure_ascii) and its C encoder (used when not indenting)
from _json import encode_basestring_ascii as _str
from _json import make_encoder as _c_encoder

_INF = float("inf")


def _float(v: float) -> str:
    if v != v:
        return "NaN"
    if v == _INF:
        return "Infinity"
    if v == -_INF:
        return "-Infinity"
    return float.__repr__(v)


def _scalar(v: Any) -> str | None:
    """``v`` as JSON when it is not a container, else None."""
    if isinstance(v, str):
        return _str(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return int.__repr__(v)
    if isinstance(v, float):
        return _float(v)
    return None


def _key(k: Any) -> str:
    """A dict key as ``json`` writes it: a str as it is, a bool, None, int or float quoted."""
    if isinstance(k, str):
        return _str(k)
    s = _scalar(k)
    if s is None:
        raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")
    return '"' + s + '"'


#: per depth: ``json``'s C encoder with the item separator of that depth's indentation
_LEAF: dict[int, Any] = {}


def _unserializable(o: Any) -> NoReturn:
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def _leaves(v: Any, depth: int) -> str:
    """A non-empty container of scalars only, by the C encoder: its item separator carries the
    newline and indentation, so only the brackets' lines are added here."""
    enc = _LEAF.get(depth)
    if enc is None:
        # the arguments JSONEncoder.iterencode passes (markers, default, string escaper,
        # indent, key and item separators, sort_keys, skipkeys, allow_nan)
        enc = _LEAF[depth] = _c_encoder(None, _unserializable, _str, None, ": ", "," + _NL[depth + 1],
                                        False, False, True)
    s = "".join(enc(v, 0))
    return s[0] + _NL[depth + 1] + s[1:-1] + _NL[depth] + s[-1]


class _Newlines(dict):
    """depth -> newline and that depth's indentation."""

    def __missing__(self, depth: int) -> str:
        v = self[depth] = "\n" + " " * depth
        return v


_NL = _Newlines()
_CONTAINERS = (dict, list, tuple)


def _put(v: Any, depth: int, out: list[str]) -> None:
    if not isinstance(v, _CONTAINERS):
        s = _scalar(v)
        if s is None:
            _unserializable(v)
        out.append(s)
        return
    if not v:
        out.append("{}" if isinstance(v, dict) else "[]")
        return
    items = v.values() if isinstance(v, dict) else v
    for x in items:
        if isinstance(x, _CONTAINERS):
            break
    else:
        out.append(_leaves(v, depth))
        return
    inner = _NL[depth + 1]
    sep = inner
    if isinstance(v, dict):
        out.append("{")
        for k, x in v.items():
            out.append(sep)
            out.append(_key(k))
            out.append(": ")
            _put(x, depth + 1, out)
            sep = "," + inner
        out.append(_NL[depth] + "}")
    else:
        out.append("[")
        for x in v:
            out.append(sep)
            _put(x, depth + 1, out)
            sep = "," + inner
        out.append(_NL[depth] + "]")


def dumps(obj: Any, depth: int = 0) -> str:
    """``json.dumps(obj, indent=1)``, the same text, faster; ``depth``: the text of ``obj``
    as it appears nested that deep in such a dump (its inner lines indented ``depth`` more)."""
    out: list[str] = []
    _put(obj, depth, out)
    return "".join(out)
