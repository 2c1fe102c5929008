"""The checks of the package's arguments: a value of the wrong type or out of range raises
``ConfigError`` naming the argument and what was expected, on one line, before any work
starts (never a raw ``TypeError``, ``ValueError`` or ``OverflowError`` from deeper down)."""

from __future__ import annotations

import math
import os

from ._native import ConfigError


def _shown(v) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _bad(name: str, v, expected: str) -> ConfigError:
    return ConfigError(f"{name}: got {_shown(v)}; expected {expected}")


def path(name: str, v) -> str:
    """A file's path: ``str`` or ``os.PathLike`` (``bytes`` are decoded as the OS does)."""
    if isinstance(v, (str, bytes)) or hasattr(v, "__fspath__"):
        try:
            p = os.fsdecode(os.fspath(v))
        except (TypeError, ValueError):
            raise _bad(name, v, "a path (str or os.PathLike)") from None
        if p and "\0" not in p:
            return p
    raise _bad(name, v, "a path (str or os.PathLike)")


def optional_path(name: str, v) -> str | None:
    return None if v is None else path(name, v)


def text_or_path(name: str, v, what: str) -> str | None:
    """A file's path or the text itself (``jobs``): ``None``, ``str`` or ``os.PathLike``."""
    if v is None:
        return None
    if isinstance(v, str):
        if "\0" in v:
            raise _bad(name, v, f"{what} without NUL characters")
        return v
    if hasattr(v, "__fspath__"):
        return path(name, v)
    raise _bad(name, v, f"{what} (str) or a path (os.PathLike)")


def string(name: str, v, expected: str) -> str:
    if isinstance(v, str) and "\0" not in v:
        return v
    raise _bad(name, v, expected)


def flag(name: str, v) -> bool:
    """A boolean: ``True`` or ``False`` (``0`` and ``1`` too, as Python counts them)."""
    if isinstance(v, bool) or (isinstance(v, int) and v in (0, 1)):
        return bool(v)
    raise _bad(name, v, "True or False")


def optional_flag(name: str, v) -> bool | None:
    """``True``, ``False`` or ``None`` (a progress bar: on, off, or on a terminal only)."""
    if v is None or isinstance(v, bool):
        return v
    raise ConfigError(f"{name}: {v!r}; expected True, False or None")


def whole(name: str, v, lo: int, hi: int | None = None, optional: bool = False) -> int | None:
    """A whole number from ``lo`` to ``hi`` (no bound when ``None``); ``None`` if optional."""
    if v is None and optional:
        return None
    if isinstance(v, int) and not isinstance(v, bool) and v >= lo and (hi is None or v <= hi):
        return int(v)
    span = f"at least {lo}" if hi is None else f"from {lo} to {hi}"
    or_none = " (or None)" if optional else ""
    raise _bad(name, v, f"a whole number {span}{or_none}")


def positive(name: str, v) -> float:
    """A finite number above zero (``int`` or ``float``, not ``bool``)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        x = float(v)
        if math.isfinite(x) and x > 0:
            return x
    raise _bad(name, v, "a finite number above 0")


def mapping(name: str, v, expected: str) -> dict:
    """A dict with string keys, or ``None`` for an empty one."""
    if v is None:
        return {}
    if isinstance(v, dict) and all(isinstance(k, str) and k for k in v):
        return v
    raise _bad(name, v, expected)


def seeds(name: str, v) -> list[int] | None:
    """A list of simulation seeds (each 0 to 2^64 - 1), or ``None``."""
    if v is None:
        return None
    if isinstance(v, (str, bytes, dict)) or not hasattr(v, "__iter__"):
        raise _bad(name, v, "a list of seeds (whole numbers from 0 to 2^64 - 1)")
    out = list(v)
    for i, s in enumerate(out):
        whole(f"{name}[{i}]", s, 0, 2**64 - 1)
    return out
