"""Per-type decode cost (issue 13, "Targets: Per type"): ns per value of one
column of all-distinct values, with and without NULLs, for

* the tuple path's generated row decoder (codec.rowdecode.make_row_decoder),
  on one-column rows and per cell of rows of ``WIDE`` columns of the type
  (the figure the target reads: a cell's share of a row),
* the tuple path's block decoder (codec/rowblock.py): fetch buffers of
  SQ_TUPLE messages of ``WIDE``-column rows through ``messages.parse_reply``,
  as the cursor decodes a reply, per cell -- header checks and row tuples
  included (shapes with no block hook, the variable-width ones, show the
  per-row path with parse_reply's framing here),
* the plain reference row decoder (codec.rowdecode_ref),
* the bare Python constructor of the same values (``Decimal`` from its
  digits tuple, ``datetime(...)``, ``int.from_bytes``, ``str(bytes, enc)``)
  called by ``starmap`` with the values kept, the bar of the tuple path:
  target block/constructor <= 1.5 -- the block figure because it is what a
  cursor pays (parse_reply with the shape's bulk hook, framing and row
  tuples included); the per-cell figure, a Python loop calling the row
  decoder on spans it was handed, is no path a user's fetch takes,
* the Arrow columnar decoder (arrow.columnar.decode_block over the packed
  images, as the bulk fetch path hands them over) and the Arrow reference
  (row decoder -> Python values -> pyarrow), target Arrow/INTEGER <= 2,
* for VARCHAR and LVARCHAR, the cells floor: the least found for a Python
  loop to cut a buffer of bare length-prefixed cells into strs (``cells``),
  the measured stand-in for the INTEGER-framing estimate, which does not
  count that a cell's length must be read before its bytes can be cut.

Values are all distinct so no decoder's value cache can help (HOUR TO
MINUTE has only 1,440 values and BOOLEAN two; their columns repeat).  Each
figure is the best of ``--repeat`` runs over the whole column.

    python bench/throughput/per_type.py [--values 20000] [--repeat 5] [--write]
                                        [--only BOOLEAN,DATE]

``--write`` puts the table into bench/README.md between its per-type markers.
"""

from __future__ import annotations

import datetime as dt
import functools
import struct
import sys
from collections.abc import Callable
from decimal import Decimal
from itertools import starmap
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE.parent / "README.md"
START, END = "<!-- per_type:start -->", "<!-- per_type:end -->"
sys.path.insert(0, str(HERE.parent))

from common import (best_ns, only_types, per_type_parser, per_type_rows,  # noqa: E402
                    write_readme_block)

from informix_stream.arrow.columnar import decode_block, fixed_row_width, pack_images  # noqa: E402
from informix_stream.arrow.reference import reference_batch  # noqa: E402
from informix_stream.codec.rowdecode_ref import reference_decoder  # noqa: E402
from informix_stream.codecs import IntervalYM, make_row_decoder, make_row_encoder, parse_type  # noqa: E402
from informix_stream.connect_params import DEFAULT_FETCH_BUFFER  # noqa: E402
from informix_stream.messages import Reply, parse_reply  # noqa: E402

ENC = "iso-8859-1"
# A row decoder call has a fixed cost (the row's struct read, its tuple) that
# a one-column row charges to its one cell; the target is per cell, so the
# tuple path is also measured over rows of WIDE columns of the type.
WIDE = 8
# What one fetch reply holds: the cursor's default fetch buffer filled with tuples.
FETCH_BUFFER = DEFAULT_FETCH_BUFFER
_D = struct.Struct(">d").unpack
_F = struct.Struct(">f").unpack
_LENGTH4 = struct.Struct(">i").unpack_from


_FROM_BYTES = functools.partial(int.from_bytes, byteorder="big", signed=True)


def _int_ctor(width: int):
    return _FROM_BYTES, lambda v: (v.to_bytes(width, "big", signed=True),)


def _text():
    return str, lambda v: (v.encode(ENC), ENC)


# name, DDL type, value of the i-th row, (constructor, its arguments from a value)
TYPES: list[tuple[str, str, Callable[[int], object], tuple]] = [
    ("SMALLINT", "smallint", lambda i: i - 16000, _int_ctor(2)),
    ("INTEGER", "integer", lambda i: i * 100_003 - 10**9, _int_ctor(4)),
    ("BIGINT", "bigint", lambda i: i * 10**13 - 7 * 10**17, _int_ctor(8)),
    ("INT8", "int8", lambda i: i * 10**13 - 7 * 10**17, _int_ctor(8)),
    ("SMALLFLOAT", "smallfloat", lambda i: i / 8 + 0.5,
     (_F, lambda v: (struct.pack(">f", v),))),
    ("FLOAT", "float", lambda i: i / 7 + 0.5, (_D, lambda v: (struct.pack(">d", v),))),
    ("DECIMAL(12,2)", "decimal(12,2)", lambda i: Decimal(i * 1_000_003 + 17) / 100
     * (-1 if i & 1 else 1), (Decimal, lambda v: (v.as_tuple(),))),
    ("DECIMAL(32,10)", "decimal(32,10)",
     lambda i: Decimal(i * 123_456_789_012_345_678 + 1).scaleb(-10) * (-1 if i & 1 else 1),
     (Decimal, lambda v: (v.as_tuple(),))),
    ("DECIMAL(16) floating", "decimal(16)",
     lambda i: Decimal(f"{i}.{i % 997}E{i % 21 - 10}"), (Decimal, lambda v: (v.as_tuple(),))),
    ("MONEY(16,2)", "money(16,2)", lambda i: Decimal(i * 7919 + 3) / 100,
     (Decimal, lambda v: (v.as_tuple(),))),
    ("DATE", "date", lambda i: dt.date(1900, 1, 1) + dt.timedelta(days=i),
     (dt.date.fromordinal, lambda v: (v.toordinal(),))),
    ("DATETIME YEAR TO SECOND", "datetime year to second",
     lambda i: dt.datetime(1990, 1, 1) + dt.timedelta(seconds=i * 3601),
     (dt.datetime, lambda v: (v.year, v.month, v.day, v.hour, v.minute, v.second))),
    ("DATETIME YEAR TO FRACTION(5)", "datetime year to fraction(5)",
     lambda i: dt.datetime(1990, 1, 1) + dt.timedelta(seconds=i * 3601, microseconds=i * 10),
     (dt.datetime, lambda v: (v.year, v.month, v.day, v.hour, v.minute, v.second,
                              v.microsecond))),
    ("DATETIME HOUR TO MINUTE", "datetime hour to minute",
     lambda i: dt.time((i // 60) % 24, i % 60), (dt.time, lambda v: (v.hour, v.minute))),
    ("INTERVAL DAY(9) TO SECOND", "interval day(9) to second",
     lambda i: dt.timedelta(days=i % 90000, seconds=(i * 7) % 86400),
     (dt.timedelta, lambda v: (v.days, v.seconds, v.microseconds))),
    ("INTERVAL YEAR TO MONTH", "interval year to month", lambda i: IntervalYM(i),
     (IntervalYM, lambda v: (v.months,))),
    ("BOOLEAN", "boolean", lambda i: bool(i & 1), (bool, lambda v: (int(v),))),
    ("CHAR(20)", "char(20)", lambda i: f"c{i:019d}", _text()),
    ("VARCHAR(64)", "varchar(64)", lambda i: f"varchar value {i}", _text()),
    ("LVARCHAR", "lvarchar", lambda i: f"lvarchar value {i} " + "x" * (i % 50), _text()),
]
DISTINCT = {"DATETIME HOUR TO MINUTE": 1440, "BOOLEAN": 2}


# The cells floor of the length-prefixed types.  What it includes: the
# buffer read once as ISO 8859-1 (one character a byte, so a cell's text is
# a slice of it: one str a cell, where bytes.decode makes a bytes object
# first), then per cell its length read, the offsets moved, the slice cut
# and appended to a list.  What it leaves out, all of which a fetch pays:
# the SQ_TUPLE head and its checks, the NULL test, the row tuple, and any
# code set with multibyte characters (there each cell's bytes must be
# decoded by themselves).  The best of the loops tried (branch s25b):
# `bytes` slice then `decode` cost ~40 ns a cell more, `str(slice, enc)`
# ~70 more, a regex `findall` of the cells with their length characters
# then `[1:]` ~60 more, and an offsets list then `map(slice)` ~100 more; an
# unrolled loop of 8 cells a pass saved nothing.  LVARCHAR's 4-byte length
# is read by one struct call (the bytes shifted together, or
# int.from_bytes of a slice, cost ~40-80 ns more); its null flag is not read.
def varchar_cells(buf: bytes) -> list[str]:
    """VARCHAR's floor: [length byte][bytes] cells -> their texts."""
    text, out, end = str(buf, "iso-8859-1"), [], 0
    append = out.append
    try:
        while True:
            start = end + 1
            end = start + buf[end]
            append(text[start:end])
    except IndexError:      # buf[end] past the last cell
        pass
    return _whole(out, end, len(buf))


def lvarchar_cells(buf: bytes) -> list[str]:
    """LVARCHAR's floor: [null flag][4-byte length][bytes] cells -> texts."""
    text, out, end = str(buf, "iso-8859-1"), [], 0
    append, length = out.append, _LENGTH4
    try:
        while True:
            start = end + 5
            end = start + length(buf, end + 1)[0]
            append(text[start:end])
    except struct.error:    # the length read past the last cell
        pass
    return _whole(out, end, len(buf))


def _whole(cells: list[str], end: int, size: int) -> list[str]:
    """The cells, once the loop is known to have stopped exactly at the
    buffer's end (a last length running past it would cut a short str)."""
    if end != size:
        raise ValueError(f"cells end at {end}, the buffer at {size}")
    return cells


CELLS_FLOOR = {"VARCHAR(64)": varchar_cells, "LVARCHAR": lvarchar_cells}


def measure(name: str, ddl: str, make, ctor, n: int, nulls: bool, repeat: int) -> dict:
    ctype = parse_type(ddl)
    values = [None if nulls and i % 10 == 0 else make(i % DISTINCT.get(name, n + 1))
              for i in range(n)]
    encode = make_row_encoder([ctype])
    images = [encode((v,)) for v in values]
    buf = b"".join(images)
    spans, at = [], 0
    for image in images:
        spans.append((at, at + len(image)))
        at += len(image)
    fast, ref = make_row_decoder([ctype]), reference_decoder([ctype], ENC)
    wide = make_row_decoder([ctype] * WIDE)
    wide_spans = [(spans[k][0], spans[k + WIDE - 1][1]) for k in range(0, n - n % WIDE, WIDE)]
    make_value, args_of = ctor
    args = [None if v is None else args_of(v) for v in values]
    assert [fast(buf, a, b)[0][0] for a, b in spans] == values, name

    def decode_all(decode):
        def run():
            for a, b in spans:
                decode(buf, a, b)
        return run

    # The bare constructor: C-level iteration (no per-value bytecode of the
    # benchmark's own) over the non-NULL values, each kept, as a decoder's
    # values are (a value freed at once lets the next reuse its memory,
    # which no result set gets).  Per value of the column, NULLs included.
    present = [a for a in args if a is not None]

    def construct():
        return list(starmap(make_value, present))

    import numpy as np
    block = pack_images(np, images, fixed_row_width([ctype]))
    def decode_wide():
        for a, b in wide_spans:
            wide(buf, a, b)

    replies = _replies([buf[a:b] for a, b in wide_spans])

    def decode_replies():
        for reply_buf in replies:
            parse_reply(reply_buf, 0, Reply(), wide)

    cells = CELLS_FLOOR.get(name)
    if cells is not None:
        assert [c for c, v in zip(cells(buf), values) if v is not None] == \
            [v for v in values if v is not None], name
    tuple_ns = best_ns(decode_all(fast), repeat) / n
    cell_ns = best_ns(decode_wide, repeat) / (len(wide_spans) * WIDE)
    block_ns = best_ns(decode_replies, repeat) / (len(wide_spans) * WIDE)
    ctor_ns = best_ns(construct, repeat) / n
    return {
        "tuple": tuple_ns, "cell": cell_ns, "block": block_ns,
        "reference": best_ns(decode_all(ref), repeat) / n,
        "constructor": ctor_ns, "ratio": block_ns / ctor_ns,
        "cells": None if cells is None else best_ns(lambda: cells(buf), repeat) / n,
        "arrow": best_ns(lambda: decode_block(block, [ctype], ["c"]), repeat) / n,
        "arrow_ref": best_ns(lambda: reference_batch(images, [ctype], ["c"]), 1) / n,
    }


def _replies(images: list[bytes]) -> list[bytearray]:
    """The images as SQ_TUPLE messages, cut into fetch buffers."""
    out, buf = [], bytearray()
    for image in images:
        size = len(image)
        if len(buf) + 8 + size + 1 > FETCH_BUFFER:
            out.append(buf)
            buf = bytearray()
        buf += struct.pack("!hhI", 14, 0, size) + image + (b"\x00" if size & 1 else b"")
    out.append(buf)
    return out


def table(n: int, repeat: int, only: list[str] | None = None) -> str:
    rows = per_type_rows(only_types(TYPES, only),
                         lambda t, nulls: measure(*t, n, nulls, repeat))
    lines = [
        f"{n:,} all-distinct values per column (10% NULLs where marked), ns per value, "
        f"best of {repeat}; targets: tuple/constructor <= 1.5 (the block figure: "
        "what a cursor pays), Arrow/INTEGER <= 2.",
        "",
        "| type | NULLs | tuple path, 1-column row | tuple path, per cell of a "
        f"{WIDE}-column row | tuple path, block | tuple reference | constructor "
        "| tuple/constructor | floor/constructor | cells floor (/constructor) "
        "| Arrow | Arrow reference | Arrow/INTEGER |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    # A cell's share of framing, field extraction and its row tuple, as an
    # INTEGER cell pays it in the block path (its value is a by-product):
    # no decoder on this framing pays less than that plus the constructor.
    framing = {nulls: r["block"] for name, nulls, r in rows if name == "INTEGER"}
    for name, nulls, r in rows:
        miss_t = " ✗" if r["ratio"] > 1.5 else ""
        miss_a = " ✗" if r["vs_int"] > 2 else ""
        floor = (framing[nulls] + r["constructor"]) / r["constructor"]
        cells = "-" if r["cells"] is None else \
            f"{r['cells']:.0f} ({r['cells'] / r['constructor']:.2f})"
        lines.append(f"| {name} | {'10%' if nulls else '-'} | {r['tuple']:.0f} | "
                     f"{r['cell']:.0f} | {r['block']:.0f} | {r['reference']:.0f} | "
                     f"{r['constructor']:.0f} | {r['ratio']:.2f}{miss_t} | {floor:.2f} | {cells} | "
                     f"{r['arrow']:.1f} | {r['arrow_ref']:.0f} | {r['vs_int']:.1f}{miss_a} |")
    lines += ["", "✗ misses its target.  floor/constructor: (an INTEGER cell's block "
              "figure, its framing, field and row-tuple share, + the constructor) / the "
              "constructor, the best ratio a decoder on this framing could show.  "
              "cells floor: ns a value of the least loop found that cuts bare "
              "length-prefixed cells into strs (no tuple head, NULL test or row tuple; "
              "per_type.py says what it holds), and its ratio to the constructor.  "
              "Regenerate: `python bench/throughput/per_type.py --write`."]
    return "\n".join(lines)


def write(text: str) -> None:
    write_readme_block(README, START, END, "Decode cost per type (issue 13)", text)


def main() -> None:
    ap = per_type_parser(__doc__)
    args = ap.parse_args()
    if args.only and args.write:
        ap.error("--only measures a part of the table: it cannot --write it")
    text = table(args.values, args.repeat, args.only.split(",") if args.only else None)
    print(text)
    if args.write:
        write(text)


if __name__ == "__main__":
    sys.exit(main())
