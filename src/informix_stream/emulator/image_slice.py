"""Serving a projection from stored row images: cut the selected cells out.

A table with row images keeps each row's SQ_TUPLE message (statements.
IMAGE_COLUMN).  A SELECT of some of its plain columns (any order, repeats
allowed) needs the same cells, only fewer or reordered, so instead of
reading the stored values back into Python objects and encoding them again
(values.row_converter + codec.make_tuple_encoder, several microseconds a row
for a DECIMAL or DATETIME cell), the rows are made by slicing bytes: fixed
offsets up to the first VARCHAR cell, offsets after it read from its length
byte.  The result is byte for byte what the encoder makes of the values
(tests/unit/test_image_slice.py holds it to that).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from informix_stream.codec.codegen import compile_function
from informix_stream.codec.rowencode import cell_width
from informix_stream.codecs import ColumnType

_HEAD = struct.Struct("!hhi")
_TUPLE_TAG = 14
_SOURCE = """\
def cut(rows):
    out = []
    add = out.append
    for (r,) in rows:
{body}
    return out
"""


def can_slice(types: Sequence[ColumnType], picks: Sequence[int]) -> bool:
    """Do the picked cells, and every cell before them, have a layout?"""
    try:
        for t in types[:max(picks) + 1]:
            cell_width(t)
    except ValueError:
        return False
    return True


def make_slicer(types: Sequence[ColumnType], picks: Sequence[int]
                ) -> Callable[[list[tuple[bytes]]], list[bytes]] | None:
    """A function turning rows of ``(image,)`` into the SQ_TUPLE messages of
    the columns at ``picks``; None when a picked cell (or one before it) has
    no layout to cut by."""
    try:
        widths = [cell_width(t) for t in types[:max(picks) + 1]]
    except ValueError:
        return None
    starts, lines = _offsets(widths)
    pieces = _merged([(starts[k], _end(starts[k], widths[k], k)) for k in picks])
    cells = " + ".join(f"r[{a}:{b}]" for a, b in pieces)
    variable = any(widths[k] is None for k in picks)
    lengths = [f"l{k}" for k in picks if widths[k] is None]
    lines += _length_lines(widths, picks, starts)
    fixed = sum(widths[k] or 0 for k in picks)
    ns: dict[str, object] = {}
    if variable:
        # Every possible size: a header and a pad byte by lookup, not by pack.
        most = sum(_most(types[k], widths[k]) for k in picks)
        ns["_heads"] = [_HEAD.pack(_TUPLE_TAG, 0, n) for n in range(most + 1)]
        ns["_pads"] = (b"", b"\x00")
        lines += [f"n = {' + '.join([str(fixed), *lengths])}",
                  f"add(_heads[n] + {cells} + _pads[n & 1])"]
    else:
        ns["_head"] = _HEAD.pack(_TUPLE_TAG, 0, fixed)
        ns["_pad"] = b"\x00" if fixed & 1 else b""
        lines.append(f"add(_head + {cells} + _pad)")
    body = "\n".join("        " + line for line in lines)
    return compile_function(_SOURCE.format(body=body), ns, "cut")


def _offsets(widths: list[int | None]) -> tuple[list[str], list[str]]:
    """Each cell's start as an expression over ``r`` (the 8-byte message
    header first), and the statements naming the VARCHAR-dependent ones:
    ``o{k}`` is where cell k starts when a VARCHAR cell ends there."""
    starts: list[str] = []
    lines: list[str] = []
    base, const = "", 8
    for k, width in enumerate(widths):
        start = f"{base} + {const}" if base and const else base or str(const)
        starts.append(start)
        if width is None:
            lines.append(f"o{k + 1} = {start} + 1 + r[{start}]")
            base, const = f"o{k + 1}", 0
        else:
            const += width
    return starts, lines


def _end(start: str, width: int | None, k: int) -> str:
    return f"o{k + 1}" if width is None else _plus(start, width)


def _plus(expr: str, n: int) -> str:
    """``expr + n`` folded when ``expr`` ends with a number."""
    head, _, tail = expr.rpartition(" + ")
    if tail.isdigit():
        total = int(tail) + n
        return f"{head} + {total}" if head else str(total)
    if expr.isdigit():
        return str(int(expr) + n)
    return f"{expr} + {n}"


def _merged(pieces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Adjacent slices (one's end is the next one's start) as one."""
    out: list[tuple[str, str]] = []
    for a, b in pieces:
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _length_lines(widths: list[int | None], picks: Sequence[int], starts: list[str]
                  ) -> list[str]:
    """``l{k}``: the bytes of each picked VARCHAR cell, its length byte too."""
    return [f"l{k} = 1 + r[{starts[k]}]" for k in dict.fromkeys(picks) if widths[k] is None]


def _most(ctype: ColumnType, width: int | None) -> int:
    return width if width is not None else 1 + 255
