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
  the bare cost of reading the object's own fields (``Decimal.as_tuple()``,
  a datetime's attributes, ``str.encode``, ``int.to_bytes``), target: at
  most 1.5x; beside it the same rows one at a time as the insert cursor
  encoded them before (``InsertCursor.item``: each value's check, then the
  generated row encoder), the reference the column-wise encoder is held to.

    python bench/throughput/encode_per_type.py [--values 20000] [--repeat 5] [--write]
    python bench/throughput/encode_per_type.py --only DATETIME,DECIMAL   # a few types, fast

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
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE.parent / "README.md"
START, END = "<!-- encode_per_type:start -->", "<!-- encode_per_type:end -->"
sys.path.insert(0, str(HERE.parent))

from common import (best_ns, per_type_parser, per_type_rows,  # noqa: E402  (also puts src/ on the path)
                    write_readme_block)

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

from informix_stream.arrow import put_cells  # noqa: E402
from informix_stream.codecs import make_row_encoder, parse_type  # noqa: E402
from informix_stream.codec.colencode import make_batch_encoder  # noqa: E402
from informix_stream.insert_cursor import BATCH_ROWS, InsertCursor, value_check  # noqa: E402

ENC = "iso-8859-1"
WIDE = 8
_D = struct.Struct(">d").pack

# name, DDL type, Arrow type, value of the i-th row, reading the value's own fields
TYPES: list[tuple[str, str, object, Callable[[int], object], Callable[[object], object]]] = [
    ("SMALLINT", "smallint", pa.int16(), lambda i: i % 30000 - 15000,
     lambda v: v.to_bytes(2, "big", signed=True)),
    ("INTEGER", "integer", pa.int32(), lambda i: i * 100_003 - 10**9,
     lambda v: v.to_bytes(4, "big", signed=True)),
    ("BIGINT", "bigint", pa.int64(), lambda i: i * 10**13 - 7 * 10**17,
     lambda v: v.to_bytes(8, "big", signed=True)),
    ("FLOAT", "float", pa.float64(), lambda i: i / 7 + 0.5, _D),
    ("DATE", "date", pa.date32(), lambda i: dt.date(1900, 1, 1) + dt.timedelta(days=i),
     lambda v: v.toordinal()),
    ("DATETIME YEAR TO SECOND", "datetime year to second", pa.timestamp("s"),
     lambda i: dt.datetime(1990, 1, 1) + dt.timedelta(seconds=i * 3601),
     lambda v: (v.year, v.month, v.day, v.hour, v.minute, v.second)),
    ("DECIMAL(12,2)", "decimal(12,2)", pa.decimal128(12, 2),
     lambda i: Decimal(i * 1_000_003 + 17) / 100 * (-1 if i & 1 else 1), Decimal.as_tuple),
    ("MONEY(16,2)", "money(16,2)", pa.decimal128(16, 2), lambda i: Decimal(i * 7919 + 3) / 100,
     Decimal.as_tuple),
    ("CHAR(20)", "char(20)", pa.string(), lambda i: f"c{i:019d}", lambda v: v.encode(ENC)),
    ("VARCHAR(64)", "varchar(64)", pa.string(), lambda i: f"varchar value {i}",
     lambda v: v.encode(ENC)),
]


def cpu_best_ns(run, repeat: int) -> float:
    """The least CPU time of ``repeat`` runs of ``run()``, in nanoseconds."""
    return best_ns(run, repeat, time.thread_time_ns)


def measure(name: str, ddl: str, atype, make, fields, n: int, nulls: bool,
            repeat: int) -> dict:
    ctype = parse_type(ddl)
    values = [None if nulls and i % 10 == 0 else make(i) for i in range(n)]
    array = pa.array(values, atype)
    check = value_check(ctype, ENC)
    encode = make_row_encoder([ctype] * WIDE, ENC)
    batch = make_batch_encoder([ctype] * WIDE, [check] * WIDE, ENC)
    item = InsertCursor(1, [ctype] * WIDE, [check] * WIDE, ENC, lambda blocks: b"").item
    fast = put_cells.column_cells(np, array, ctype, check, ENC)
    plain = put_cells.python_cells(np, array, ctype, check, ENC)
    assert put_cells.flat_of(np, fast).tobytes() == plain.flat.tobytes() and fast.ok.all(), name
    present = [v for v in values if v is not None]
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
        for v in present:
            fields(v)
    encode_ns = cpu_best_ns(python_encode, repeat) / (len(rows) * WIDE)
    row_ns = cpu_best_ns(row_encode, repeat) / (len(rows) * WIDE)
    fields_ns = cpu_best_ns(read_fields, repeat) / n
    return {
        "arrow": cpu_best_ns(lambda: put_cells.column_cells(np, array, ctype, check, ENC),
                       repeat) / n,
        "arrow_ref": cpu_best_ns(lambda: put_cells.python_cells(np, array, ctype, check, ENC),
                           1) / n,
        "python": encode_ns, "row": row_ns, "fields": fields_ns, "ratio": encode_ns / fields_ns,
    }


def table(n: int, repeat: int, only: list[str] | None = None) -> str:
    wanted = [t for t in TYPES if only is None or t[0] == "INTEGER"
              or any(t[0].startswith(prefix) for prefix in only)]
    rows = per_type_rows(wanted, lambda t, nulls: measure(*t, n, nulls, repeat))
    lines = [
        f"{n:,} all-distinct values per column (10% NULLs where marked), ns per value, "
        f"best of {repeat}; targets: Arrow/INTEGER <= 2, Python encode/fields <= 1.5.",
        "",
        "| type | NULLs | Arrow column-wise | Arrow reference | Arrow/INTEGER "
        "| Python column-wise | reading its fields | encode/fields | Python row at a time |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, nulls, r in rows:
        miss_a = " ✗" if r["vs_int"] > 2 else ""
        miss_p = " ✗" if r["ratio"] > 1.5 else ""
        lines.append(f"| {name} | {'10%' if nulls else '-'} | {r['arrow']:.1f} | "
                     f"{r['arrow_ref']:.0f} | {r['vs_int']:.1f}{miss_a} | {r['python']:.0f} | "
                     f"{r['fields']:.0f} | {r['ratio']:.2f}{miss_p} | {r['row']:.0f} |")
    lines += ["", "✗ misses its target.  Regenerate: "
              "`python bench/throughput/encode_per_type.py --write`."]
    return "\n".join(lines)


def write(text: str) -> None:
    write_readme_block(README, START, END, "Encode cost per type of a load (issue 14)", text)


def main() -> None:
    ap = per_type_parser(__doc__)
    ap.add_argument("--only", help="comma-separated type name prefixes (INTEGER is always "
                    "measured, as the ratios' base), e.g. DECIMAL,VARCHAR; not with --write")
    args = ap.parse_args()
    if args.only and args.write:
        ap.error("--only measures a part of the table: it cannot --write it")
    text = table(args.values, args.repeat, args.only.split(",") if args.only else None)
    print(text)
    if args.write:
        write(text)


if __name__ == "__main__":
    main()
