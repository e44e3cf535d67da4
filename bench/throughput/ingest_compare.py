"""Loading the sales table: tuples, Arrow, informix-driver, side by side.

    python bench/throughput/ingest_compare.py [--rows 50000] [--repeat 3]

Each round loads ``--rows`` rows of the realistic sales table (INTEGER,
VARCHAR(32), DECIMAL(12,2), DATETIME YEAR TO SECOND, DATE, VARCHAR(64) with
10% NULLs) into a fresh table of one emulator in its own process, three
ways, interleaved: informix-driver's executemany of tuples, this driver's
executemany of tuples (through its insert cursor, the default, and forced to
BIND+EXECUTE), and this driver's ``load_arrow`` of a pyarrow Table.
Also the client's encode-only rate of both of ours (the requests built,
nothing sent), which shows how much of a load is the client.  Prints the
median rows/s of each and the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import SHAPES, connect, emulator_process, sales_row  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

from informix_stream import executemany as em  # noqa: E402
from informix_stream import insert_cursor as ic  # noqa: E402
from informix_stream import row_errors  # noqa: E402
from informix_stream.arrow import ingest, put_images, put_requests  # noqa: E402
from informix_stream.codec.typeinfo import ColumnType, TypeCode  # noqa: E402

DDL = SHAPES["sales"][0]
INSERT = "INSERT INTO {} VALUES (?, ?, ?, ?, ?, ?)"
# The sales columns as the server describes them (for the encode-only rates).
SALES_TYPES = [ColumnType(TypeCode.INTEGER, 4), ColumnType(TypeCode.VARCHAR, 32),
               ColumnType(TypeCode.DECIMAL, (12 << 8) | 2),
               ColumnType(TypeCode.DATETIME, (14 << 8) | 10), ColumnType(TypeCode.DATE, 4),
               ColumnType(TypeCode.VARCHAR, 64)]


def rows(n: int) -> list[tuple]:
    return [sales_row(i) for i in range(n)]


def arrow_table(data: list[tuple]) -> pa.Table:
    cols = list(zip(*data))
    return pa.table({"id": pa.array(cols[0], pa.int32()), "sku": pa.array(cols[1]),
                     "amount": pa.array(cols[2], pa.decimal128(12, 2)),
                     "sold": pa.array(cols[3], pa.timestamp("s")),
                     "day": pa.array(cols[4], pa.date32()), "note": pa.array(cols[5])})


def timed(load, table: str, host: str, port: int) -> float:
    with connect(host, port, autocommit=True) as conn:
        conn.cursor().execute(f"CREATE TABLE {table} ({DDL})")
    start = time.perf_counter()
    load(table)
    elapsed = time.perf_counter() - start
    with connect(host, port, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT count(*) FROM {table}")
        assert cur.fetchone()[0] > 0
        cur.execute(f"DROP TABLE {table}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=50000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data = rows(args.rows)
    table = arrow_table(data)
    n = args.rows
    rates: dict[str, list[float]] = {}

    # client side alone: the requests built, nothing sent
    put = ic.InsertCursor(1, SALES_TYPES, [ic.value_check(t, "iso-8859-1") for t in SALES_TYPES],
                          "iso-8859-1", em.BindExecute(1).request)
    encoders = [
        ("encode tuples bind", lambda: em.chunk(em.tuple_rows(data, None, 6), em.BindExecute(1),
                                                4000, 1 << 22)),
        ("encode Arrow bind", lambda: em.chunk(ingest.encoded_rows(table, None, 6,
                                                                   em.Unencodable),
                                               em.BindExecute(1), 4000, 1 << 22)),
        ("encode tuples PUT", lambda: ic.chunks(data, put, None, 6, "iso-8859-1", 4000,
                                                1 << 22, row_errors.at_row)),
        ("encode Arrow PUT", lambda: put_requests.chunks(
            np, put_images.put_batches(table, None, 6, put, "iso-8859-1"), put, 4000,
            1 << 22, row_errors.at_row)),
    ]
    for name, make in encoders:
        for _ in range(args.repeat):
            start = time.perf_counter()
            for _ in make():
                pass
            rates.setdefault(name, []).append(n / (time.perf_counter() - start))

    with emulator_process() as (host, port):
        import informix_db

        def theirs(t: str) -> None:
            conn = informix_db.connect(host=host, port=port, user="informix",
                                       password="in4mix", database="testdb",
                                       server="informix", autocommit=True)
            conn.cursor().executemany(INSERT.format(t), data)
            conn.close()

        def ours_tuples(t: str) -> None:
            with connect(host, port, autocommit=True) as conn:
                conn.cursor().executemany(INSERT.format(t), data)       # insert cursor

        def ours_bind(t: str) -> None:
            with connect(host, port, autocommit=True) as conn:
                conn.cursor().executemany(INSERT.format(t), data, insert_cursor=False)

        def ours_arrow(t: str) -> None:
            with connect(host, port, autocommit=True) as conn:
                conn.cursor().load_arrow(t, table)

        for k in range(args.repeat):
            for name, load in [("informix-driver tuples", theirs), ("ours tuples", ours_tuples),
                               ("ours tuples-bind", ours_bind), ("ours Arrow", ours_arrow)]:
                elapsed = timed(load, f"ingest_{k}_{name.split()[0].replace('-', '_')}_"
                                f"{name.split()[1].lower().replace('-', '_')}", host, port)
                rates.setdefault(name, []).append(n / elapsed)
    base = statistics.median(rates["informix-driver tuples"])
    print(f"{'load':<24}{'rows/s':>12}{'x informix-driver':>20}   ({n:,} sales rows, "
          f"median of {args.repeat})")
    for name, values in rates.items():
        rate = statistics.median(values)
        ratio = "" if name.startswith("encode") else f"{rate / base:>20.2f}"
        print(f"{name:<24}{rate:>12,.0f}{ratio}")


if __name__ == "__main__":
    main()
