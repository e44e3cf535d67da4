"""Shared machinery of the generated per-shape row codecs.

Every fetched row passes through a decoder and every served row through an
encoder, and a loop calling one converter per cell costs several times the
work itself.  So each row shape gets its own function of straight-line
Python (rowdecode.py, rowencode.py), compiled here.  Only integer literals,
struct format letters and names chosen by those modules are written into the
source; values (encodings, structs, converters) reach the code through its
namespace, never as text.  Each generated function has a plain reference
twin (rowdecode_ref.py, rowencode_ref.py) that the differential tests hold
it to.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import DataError, ProtocolError

__all__ = ["SHAPE_CACHE_SIZE", "STRUCT_CACHE_SIZE", "FixedCell", "compile_function", "indent",
           "struct_maker"]

# Shapes repeat (the same query runs again and again), so the generated
# functions are cached per shape; structs are made per text length on first use.
SHAPE_CACHE_SIZE = 256
STRUCT_CACHE_SIZE = 4096


@dataclass(frozen=True)
class FixedCell:
    """How one fixed-width column decodes in a generated row decoder: its
    struct letters inside the row's read, the names that read binds, the
    statements that convert them (run after the whole row has framed), and
    the expression of its value."""

    fmt: str
    raws: list[str]
    expr: str
    lines: tuple[str, ...] = ()


def compile_function(source: str, namespace: dict, name: str) -> Callable:
    """Compile generated ``source`` and return its function ``name``."""
    namespace.update(ProtocolError=ProtocolError, DataError=DataError,
                     StructError=struct.error)
    exec(compile(source, f"<informix_stream.codec {name}>", "exec"), namespace)
    return namespace[name]


def indent(lines: list[str], depth: int) -> str:
    pad = " " * depth
    return "".join(f"{pad}{line}\n" for line in lines)


def struct_maker(fmt: str, cache: dict | list, fixed: int = 0, pad: bool = False,
                 method: str = "pack") -> Callable[[int], Callable]:
    """Lazily build the struct for one text length ``{0}`` in ``fmt``; with
    ``pad`` a zero byte follows when ``fixed`` plus the length is odd.  A
    dict cache is cleared when it reaches STRUCT_CACHE_SIZE entries."""
    def make(length: int) -> Callable:
        full = fmt.format(length) + ("x" if pad and (fixed + length) & 1 else "")
        if isinstance(cache, dict) and len(cache) >= STRUCT_CACHE_SIZE:
            cache.clear()
        cache[length] = fn = getattr(struct.Struct(full), method)
        return fn
    return make
