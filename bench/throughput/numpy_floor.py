"""What a numpy pass costs on this machine, against the Arrow per-type
figures (issue 13's "Arrow/INTEGER <= 2"): why the base-100 types and
VARCHAR cannot meet 2x INTEGER while their decode is numpy passes.

Measured, CPU time of this thread, best of ``--repeat``, on columns of
``--values`` values (the per-type table's 20,000):

* the fixed cost of one column (INTEGER's whole decode of a 16-row batch:
  framing, the Arrow array and RecordBatch), and a numpy call on 16 values;
* one pass over the column: an elementwise operation on contiguous uint8,
  int32 and int64 columns (a new array, and in place), an int64 division by
  a per-row divisor (DECIMAL's rescale), a strided read of one word a cell
  (the first step of every cell wider than its number), a gather from a
  65,536-entry table;
* the Arrow decode of INTEGER and of the types that miss 2x, and each one's
  cost over INTEGER in int64 passes: ``(type - INTEGER) / int64 pass``.

    python bench/throughput/numpy_floor.py [--values 20000] [--repeat 15] [--write]

``--write`` puts the table into bench/README.md between its numpy_floor
markers.  encode_floor.py does the same for the Arrow encode (issue 14).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE.parent / "README.md"
START, END = "<!-- numpy_floor:start -->", "<!-- numpy_floor:end -->"
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from common import best_ns, floor_table_main  # noqa: E402

import numpy as np  # noqa: E402
import per_type  # noqa: E402

from informix_stream.arrow.columnar import decode_block, fixed_row_width, pack_images  # noqa: E402
from informix_stream.codecs import make_row_encoder, parse_type  # noqa: E402

# The types the README's floor paragraph is about, and INTEGER as the base.
FLOOR_TYPES = ["INTEGER", "BIGINT", "INT8", "BOOLEAN", "DATETIME HOUR TO MINUTE", "CHAR(20)",
               "DATETIME YEAR TO SECOND", "DATETIME YEAR TO FRACTION(5)", "DECIMAL(12,2)",
               "MONEY(16,2)", "DECIMAL(32,10)", "DECIMAL(16) floating", "VARCHAR(64)"]


def cpu_ns(run, repeat: int) -> float:
    return best_ns(run, repeat, time.thread_time_ns)


def pass_costs(n: int, repeat: int) -> list[tuple[str, float]]:
    """(what, microseconds) of one numpy pass over ``n`` values."""
    rng = np.random.default_rng(7)
    a8 = rng.integers(0, 100, n).astype(np.uint8)
    a32 = rng.integers(0, 1 << 30, n).astype(np.int32)
    a64 = rng.integers(1, 1 << 60, n)
    div = 10 ** rng.integers(0, 16, n)
    small = a64[:16].copy()
    cells7 = rng.integers(0, 256, 7 * n + 8).astype(np.uint8)
    table = rng.integers(0, 1 << 30, 65536).astype(np.int32)
    index = rng.integers(0, 65536, n)
    work = a64.copy()
    cases = [
        ("a numpy call on 16 values", lambda: small + 1),
        ("uint8 elementwise, new array", lambda: a8 + np.uint8(1)),
        ("int32 elementwise, new array", lambda: a32 + np.int32(1)),
        ("int64 elementwise, new array", lambda: a64 + 1),
        ("int64 elementwise, in place", lambda: np.add(work, 1, out=work)),
        ("int64 division by a per-row divisor", lambda: a64 // div),
        ("strided read of a uint64 a 7-byte cell", lambda: np.ndarray(
            (n,), "<u8", cells7, 0, (7,)).copy()),
        ("gather from a 65,536-entry int32 table", lambda: table.take(index)),
    ]
    return [(what, cpu_ns(run, repeat) / 1000) for what, run in cases]


def _block(name: str, n: int):
    """(column type, packed images) of the per-type bench's column ``name``."""
    for tname, ddl, make, _ in per_type.TYPES:
        if tname == name:
            ctype = parse_type(ddl)
            encode = make_row_encoder([ctype])
            images = [encode((make(i % per_type.DISTINCT.get(name, n + 1)),))
                      for i in range(n)]
            return ctype, pack_images(np, images, fixed_row_width([ctype]))
    raise KeyError(name)


def type_costs(n: int, repeat: int) -> dict[str, float]:
    """Arrow decode, microseconds for the whole ``n``-value column."""
    out = {}
    for name in FLOOR_TYPES:
        ctype, block = _block(name, n)
        out[name] = cpu_ns(lambda: decode_block(block, [ctype], ["c"]), repeat) / 1000
    ctype, block = _block("INTEGER", 16)
    out["fixed"] = cpu_ns(lambda: decode_block(block, [ctype], ["c"]), repeat) / 1000
    return out


def table(n: int, repeat: int) -> str:
    passes = pass_costs(n, repeat)
    costs = type_costs(n, repeat)
    i64 = dict(passes)["int64 elementwise, new array"]
    base = costs["INTEGER"]
    lines = [f"{n:,} values a column, microseconds of CPU time, best of {repeat}.", "",
             "| one numpy pass over the column | us |", "|---|---:|"]
    lines += [f"| {what} | {us:.2f} |" for what, us in passes]
    lines += ["", f"Fixed cost of a column (INTEGER, 16 rows, whole decode_block): "
              f"{costs['fixed']:.1f} us.", "",
              "| Arrow decode | us a column | ns a value | / INTEGER | over INTEGER, "
              "in int64 passes |", "|---|---:|---:|---:|---:|"]
    for name in FLOOR_TYPES:
        us = costs[name]
        lines.append(f"| {name} | {us:.1f} | {us * 1000 / n:.2f} | {us / base:.1f} | "
                     f"{(us - base) / i64:.0f} |")
    lines += ["", "Regenerate: `python bench/throughput/numpy_floor.py --write`."]
    return "\n".join(lines)


def main() -> None:
    floor_table_main(__doc__, table, README, START, END, "What a numpy pass costs (issue 13)")


if __name__ == "__main__":
    main()
