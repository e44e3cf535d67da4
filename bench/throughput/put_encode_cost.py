"""Client cost of an Arrow load through the insert cursor, ns a row.

    python bench/throughput/put_encode_cost.py [--rows 30000] [--repeat 9]

For the sales and the fixed table of bench/common.py as pyarrow Tables:
"images" is ``put_images.put_batches`` alone (each record batch's row
images in one buffer), "requests" the whole client side of a load
(``put_requests.chunks``: chunks of 4,000 rows and their SQ_PUT requests,
nothing sent), and, beside them, the row-by-row path the requests are held
to (``insert_cursor.item_chunks`` over ``put_images.put_items``).  Thread
CPU time, best of ``--repeat``: on the shared two-core machine wall-clock
bests swing with the load of others.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import SHAPES  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

from informix_stream import executemany as em  # noqa: E402
from informix_stream import insert_cursor as ic  # noqa: E402
from informix_stream import row_errors  # noqa: E402
from informix_stream.arrow import put_images, put_requests  # noqa: E402
from informix_stream.codec.typeinfo import ColumnType, TypeCode  # noqa: E402

ENC = "iso-8859-1"
INTEGER, DATE = ColumnType(TypeCode.INTEGER, 4), ColumnType(TypeCode.DATE, 4)
STAMP = ColumnType(TypeCode.DATETIME, (14 << 8) | 10)
AMOUNT = ColumnType(TypeCode.DECIMAL, (12 << 8) | 2)
TABLES = {   # the columns as the server describes them, and as Arrow holds them
    "sales": ([INTEGER, ColumnType(TypeCode.VARCHAR, 32), AMOUNT, STAMP, DATE,
               ColumnType(TypeCode.VARCHAR, 64)],
              [pa.int32(), pa.string(), pa.decimal128(12, 2), pa.timestamp("s"), pa.date32(),
               pa.string()]),
    "fixed": ([INTEGER, ColumnType(TypeCode.BIGINT, 8), ColumnType(TypeCode.FLOAT, 8), DATE,
               STAMP, AMOUNT],
              [pa.int32(), pa.int64(), pa.float64(), pa.date32(), pa.timestamp("s"),
               pa.decimal128(12, 2)]),
}


def best(make, n: int, repeat: int) -> float:
    """ns a row: the thread's CPU time of draining ``make()``, best of ``repeat``."""
    low = float("inf")
    for _ in range(repeat):
        start = time.thread_time()
        for _ in make():
            pass
        low = min(low, time.thread_time() - start)
    return low / n * 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=30000)
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    n = args.rows
    print(f"{'table':<8}{'images':>10}{'requests':>10}{'row path':>10}   (ns a row, {n:,} rows, "
          f"best of {args.repeat})")
    for name, (types, arrow_types) in TABLES.items():
        data = list(zip(*(SHAPES[name][1](i) for i in range(n))))
        table = pa.table({f"c{i}": pa.array(col, kind)
                          for i, (col, kind) in enumerate(zip(data, arrow_types))})
        put = ic.InsertCursor(1, types, [ic.value_check(t, ENC) for t in types], ENC,
                              em.BindExecute(1).request)
        batches = lambda: put_images.put_batches(table, None, 6, put, ENC)  # noqa: E731
        images = best(batches, n, args.repeat)
        requests = best(lambda: put_requests.chunks(np, batches(), put, 4000, 1 << 22,
                                                    row_errors.at_row), n, args.repeat)
        rows = best(lambda: ic.item_chunks(put_images.put_items(table, None, 6, put, ENC,
                                                                ic.BadRow),
                                           put, 4000, 1 << 22, row_errors.at_row), n, args.repeat)
        print(f"{name:<8}{images:>10.0f}{requests:>10.0f}{rows:>10.0f}")


if __name__ == "__main__":
    main()
