"""Per-type encode cost of a load (issue 14 item 3): ns per value of one
column of all-distinct values, with and without NULLs, for

* Arrow buffers -> insert-cursor cells, column-wise (arrow.put_cells:
  numpy over the Arrow buffers), target: within 2x of INTEGER;
* the same through the Arrow reference (each value's Python form, the
  column's check and cell encoder, as ``InsertCursor.item`` decides);
* Python objects -> row images as a load makes them: the insert cursor's
  column-wise batch encoder (codec/colencode.py, checks included) over
  batches of ``BATCH_ROWS`` rows of ``WIDE`` columns of the type, so the
  figure is a cell's share of a row and not one call's overhead, against
  the bare cost of reading the object's own fields, target: at most 1.5x.
  The fields are what an encoder must read to write the cell, read as a
  column-wise encoder must read them, without bytecode of the benchmark's
  own: one C-level ``map`` a column, over the same ``BATCH_ROWS``-value
  columns the encoder gets, each column's fields kept in a list as an
  encoder keeps them until the row images are made
  (an int's or a float's bytes by ``struct``, ``date.toordinal``, one
  ``attrgetter`` of a datetime's six fields and its ``tzinfo`` -- an
  aware value must be refused, not written as local time --,
  ``Decimal.as_tuple``, ``str.encode``).  floor/fields is the best ratio an
  encoder on this path could show: (INTEGER's column-wise figure -- a
  cell's share of taking values out of rows, type checks, NULL finding and
  laying out the row image, its own field a by-product -- + the type's
  fields) / the fields, with and without NULLs, in the same run.  Beside
  them "whole PUT path", the client side of a load per value
  (``insert_cursor.chunks``: the batch encoder, its per-row hand-over,
  chunking and SQ_PUT requests, nothing sent), and the same rows one at a
  time as the insert cursor encoded them before (``InsertCursor.item``:
  each value's check, then the generated row encoder), the reference the
  column-wise encoder is held to.

    python bench/throughput/encode_per_type.py [--values 20000] [--repeat 5] [--write]
    python bench/throughput/encode_per_type.py --only DATETIME,DECIMAL   # a few types, fast
    python bench/throughput/encode_per_type.py --nulls   # ways to find a column's Nones

``--write`` puts the table into bench/README.md between its encode markers.
Times are the thread's CPU time (best of ``--repeat``): on the shared two-core
machine wall-clock bests of a few milliseconds swing by half with the load
of others; both sides of a ratio are measured the same way in the same run.
"""

from __future__ import annotations

import datetime as dt
import struct
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from itertools import compress, repeat
from operator import attrgetter, is_
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE.parent / "README.md"
START, END = "<!-- encode_per_type:start -->", "<!-- encode_per_type:end -->"
sys.path.insert(0, str(HERE.parent))

from common import (best_ns, only_types, per_type_parser, per_type_rows,  # noqa: E402  (also puts src/ on the path)
                    write_readme_block)

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

from informix_stream.arrow import put_cells  # noqa: E402
from informix_stream.codecs import make_row_encoder, parse_type  # noqa: E402
from informix_stream.codec import colencode  # noqa: E402
from informix_stream.codec.colencode import make_batch_encoder  # noqa: E402
from informix_stream import insert_cursor  # noqa: E402
from informix_stream.executemany import (BindExecute, DEFAULT_CHUNK_BYTES,  # noqa: E402
                                         DEFAULT_CHUNK_SIZE)
from informix_stream.insert_cursor import BATCH_ROWS, InsertCursor, value_check  # noqa: E402
from informix_stream.row_errors import at_row  # noqa: E402

ENC = "iso-8859-1"
WIDE = 8
_STAMP = attrgetter("year", "month", "day", "hour", "minute", "second", "tzinfo")


def _each(read: Callable[..., object], *args: object) -> Callable[[list], list]:
    """A column's fields: ``read(value, *args)`` of each value by one
    C-level map, kept in a list."""
    extra = [repeat(a) for a in args]
    return lambda column: list(map(read, column, *extra))


# name, DDL type, Arrow type, value of the i-th row, a column's fields
TYPES: list[tuple[str, str, object, Callable[[int], object], Callable[[list], list]]] = [
    ("SMALLINT", "smallint", pa.int16(), lambda i: i % 30000 - 15000,
     _each(struct.Struct(">h").pack)),
    ("INTEGER", "integer", pa.int32(), lambda i: i * 100_003 - 10**9,
     _each(struct.Struct(">i").pack)),
    ("BIGINT", "bigint", pa.int64(), lambda i: i * 10**13 - 7 * 10**17,
     _each(struct.Struct(">q").pack)),
    ("FLOAT", "float", pa.float64(), lambda i: i / 7 + 0.5, _each(struct.Struct(">d").pack)),
    ("DATE", "date", pa.date32(), lambda i: dt.date(1900, 1, 1) + dt.timedelta(days=i),
     _each(dt.date.toordinal)),
    ("DATETIME YEAR TO SECOND", "datetime year to second", pa.timestamp("s"),
     lambda i: dt.datetime(1990, 1, 1) + dt.timedelta(seconds=i * 3601), _each(_STAMP)),
    ("DECIMAL(12,2)", "decimal(12,2)", pa.decimal128(12, 2),
     lambda i: Decimal(i * 1_000_003 + 17) / 100 * (-1 if i & 1 else 1),
     _each(Decimal.as_tuple)),
    ("MONEY(16,2)", "money(16,2)", pa.decimal128(16, 2), lambda i: Decimal(i * 7919 + 3) / 100,
     _each(Decimal.as_tuple)),
    ("CHAR(20)", "char(20)", pa.string(), lambda i: f"c{i:019d}", _each(str.encode, ENC)),
    ("VARCHAR(64)", "varchar(64)", pa.string(), lambda i: f"varchar value {i}",
     _each(str.encode, ENC)),
]


def cpu_best_ns(run, repeat: int) -> float:
    """The least CPU time of ``repeat`` runs of ``run()``, in nanoseconds."""
    return best_ns(run, repeat, time.thread_time_ns)


def measure(name: str, ddl: str, atype, make, fields, n: int, nulls: bool,
            repeat: int) -> dict:
    ctype = parse_type(ddl)
    # NULLs at every tenth row of each of the WIDE columns the rows are cut
    # into (``i % 10`` would put them all in the even columns, 20% each)
    values = [None if nulls and (i // WIDE + i % WIDE) % 10 == 0 else make(i)
              for i in range(n)]
    array = pa.array(values, atype)
    check = value_check(ctype, ENC)
    encode = make_row_encoder([ctype] * WIDE, ENC)
    batch = make_batch_encoder([ctype] * WIDE, [check] * WIDE, ENC)
    put = InsertCursor(1, [ctype] * WIDE, [check] * WIDE, ENC, BindExecute(1).request)
    item = put.item
    fast = put_cells.column_cells(np, array, ctype, check, ENC)
    plain = put_cells.python_cells(np, array, ctype, check, ENC)
    assert put_cells.flat_of(np, fast).tobytes() == plain.flat.tobytes() and fast.ok.all(), name
    present = [v for v in values if v is not None]
    columns = [present[k:k + BATCH_ROWS] for k in range(0, len(present), BATCH_ROWS)]
    rows = [tuple(values[k:k + WIDE]) for k in range(0, n - n % WIDE, WIDE)]

    batches = [rows[k:k + BATCH_ROWS] for k in range(0, len(rows), BATCH_ROWS)]
    assert [i for b in batches for i in batch(b)] == [encode(r) for r in rows], name

    def python_encode():
        for b in batches:
            batch(b)

    def row_encode():
        for r in rows:
            item(r, None, WIDE, ENC)

    def read_fields():
        for column in columns:
            fields(column)

    def whole_path():
        for _ in insert_cursor.chunks(rows, put, None, WIDE, ENC, DEFAULT_CHUNK_SIZE,
                                      DEFAULT_CHUNK_BYTES, at_row):
            pass
    encode_ns = cpu_best_ns(python_encode, repeat) / (len(rows) * WIDE)
    row_ns = cpu_best_ns(row_encode, repeat) / (len(rows) * WIDE)
    path_ns = cpu_best_ns(whole_path, repeat) / (len(rows) * WIDE)
    fields_ns = cpu_best_ns(read_fields, repeat) / n
    return {
        "arrow": cpu_best_ns(lambda: put_cells.column_cells(np, array, ctype, check, ENC),
                       repeat) / n,
        "arrow_ref": cpu_best_ns(lambda: put_cells.python_cells(np, array, ctype, check, ENC),
                           1) / n,
        "python": encode_ns, "row": row_ns, "path": path_ns, "fields": fields_ns,
        "ratio": encode_ns / fields_ns,
    }


def table(n: int, repeat: int, only: list[str] | None = None) -> str:
    rows = per_type_rows(only_types(TYPES, only), lambda t, nulls: measure(*t, n, nulls, repeat))
    # a cell's share of rows -> columns -> row images, as INTEGER pays it
    base = {nulls: r["python"] for name, nulls, r in rows if name == "INTEGER"}
    lines = [
        f"{n:,} all-distinct values per column (10% NULLs where marked), ns per value, "
        f"best of {repeat}; targets: Arrow/INTEGER <= 2, Python encode/fields <= 1.5.",
        "",
        "| type | NULLs | Arrow column-wise | Arrow reference | Arrow/INTEGER "
        "| Python column-wise | reading its fields | encode/fields | floor/fields "
        "| whole PUT path | Python row at a time |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, nulls, r in rows:
        miss_a = " ✗" if r["vs_int"] > 2 else ""
        miss_p = " ✗" if r["ratio"] > 1.5 else ""
        floor = (base[nulls] + r["fields"]) / r["fields"]
        lines.append(f"| {name} | {'10%' if nulls else '-'} | {r['arrow']:.1f} | "
                     f"{r['arrow_ref']:.0f} | {r['vs_int']:.1f}{miss_a} | {r['python']:.0f} | "
                     f"{r['fields']:.0f} | {r['ratio']:.2f}{miss_p} | {floor:.2f} | "
                     f"{r['path']:.0f} | {r['row']:.0f} |")
    lines += ["", "✗ misses its target.  floor/fields: (INTEGER's Python column-wise figure "
              "in the same NULL case, a cell's share of rows -> columns -> row images, + "
              "the type's fields) / the fields, the best ratio an encoder on this path "
              "could show.  Regenerate: `python bench/throughput/encode_per_type.py --write`."]
    return "\n".join(lines)


def _walk(column: list, target: object = None) -> list[int]:
    """Indices of ``target`` by ``list.index`` from one to the next."""
    found, at = [], -1
    try:
        while True:
            at = column.index(target, at + 1)
            found.append(at)
    except ValueError:
        return found


# Ways to find the Nones of a column in pure Python (each exact for the
# column's kind; "types" alone is the type check every column pays anyway).
NULL_FINDERS: dict[str, Callable[[list], object]] = {
    "types: set(map(type))": lambda c: set(map(type, c)),
    "compress(map(is_))": lambda c: list(compress(range(len(c)), map(is_, c, repeat(None)))),
    "compress(bytes(map(is_)))": lambda c: list(compress(range(len(c)),
                                                         bytes(map(is_, c, repeat(None))))),
    "list.index walk": _walk,
    "count(None) then index": lambda c: c.count(None) and _walk(c),
    "types list, index walk": lambda c: _walk(list(map(type, c)), type(None)),
    "ids, index walk": lambda c: _walk(list(map(id, c)), id(None)),
}


def null_finding(repeat: int) -> str:
    """ns per value of each way to find the Nones (``NULL_FINDERS``) and of
    colencode's own ``_nulls`` (type check included), over 20 columns of
    ``BATCH_ROWS`` values of INTEGER, DECIMAL and VARCHAR values with 10%
    and 50% Nones."""
    kinds = {"INTEGER": (int, lambda i: i * 100_003),
             "DECIMAL": (Decimal, lambda i: Decimal(i) / 100),
             "VARCHAR": (str, lambda i: f"v{i}")}
    lines = [f"ns per value, 20 columns of {BATCH_ROWS:,} values, thread CPU time, "
             f"best of {repeat}", "", "| way | " + " | ".join(
                 f"{k} {p}%" for k in kinds for p in (10, 50)) + " |",
             "|---|" + "---:|" * (2 * len(kinds))]
    finders = dict(NULL_FINDERS, **{"colencode._nulls (with the type check)": None})
    cells: dict[str, list[str]] = {way: [] for way in finders}
    for kind, make in kinds.values():
        for every in (10, 2):
            cols = [[None if i % every == 0 else make(j * BATCH_ROWS + i)
                     for i in range(BATCH_ROWS)] for j in range(20)]
            for way, find in finders.items():
                find = find or (lambda c: colencode._nulls(c, kind))  # noqa: B023
                ns = cpu_best_ns(lambda: list(map(find, cols)), repeat)  # noqa: B023
                cells[way].append(f"{ns / (20 * BATCH_ROWS):.1f}")
    lines += [f"| {way} | " + " | ".join(c) + " |" for way, c in cells.items()]
    return "\n".join(lines)


def write(text: str) -> None:
    write_readme_block(README, START, END, "Encode cost per type of a load (issue 14)", text)


def main() -> None:
    ap = per_type_parser(__doc__)
    ap.add_argument("--nulls", action="store_true",
                    help="only the table of ways to find a column's Nones")
    args = ap.parse_args()
    if args.nulls:
        print(null_finding(args.repeat))
        return
    if args.only and args.write:
        ap.error("--only measures a part of the table: it cannot --write it")
    text = table(args.values, args.repeat, args.only.split(",") if args.only else None)
    print(text)
    if args.write:
        write(text)


if __name__ == "__main__":
    main()
