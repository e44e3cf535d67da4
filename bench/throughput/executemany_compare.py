"""executemany rows/s, ours vs informix-driver, side by side in one run.

    python bench/throughput/executemany_compare.py --sizes 1000 10000 100000 --repeat 3

Each contender loads the 5-column table into a fresh table of its own, in
one transaction and with autocommit, against the same emulator process.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import DDL, TABLE, connect, emulator_process, rows  # noqa: E402

_names = itertools.count()


def _fresh_table(host, port) -> str:
    name = f"em_{next(_names)}"
    with connect(host, port, autocommit=True) as conn:
        conn.cursor().execute(DDL.replace(TABLE, name))
    return name


def ours(host, port, n, autocommit, **kw):
    table = _fresh_table(host, port)
    with connect(host, port, autocommit=autocommit) as conn:
        cur = conn.cursor()
        t0 = time.perf_counter()
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)", rows(n), **kw)
        conn.commit()
        el = time.perf_counter() - t0
        assert cur.rowcount == n, cur.rowcount
    return n / el


# informix-driver writes every request before reading any reply; on a large
# batch both ends block on full socket buffers.  A socket timeout turns that
# deadlock into an error the report can show instead of a hang.
STALL_TIMEOUT = 120.0


def informix_driver(host, port, n, autocommit):
    """Rows/s, or NaN when the load stalled (the send-all-then-read deadlock)."""
    import informix_db
    table = _fresh_table(host, port)
    conn = informix_db.connect(host=host, port=port, user="informix", password="in4mix",
                               database="testdb", server="informix", autocommit=autocommit,
                               read_timeout=STALL_TIMEOUT)
    cur = conn.cursor()
    data = list(rows(n))          # its executemany takes a sequence
    t0 = time.perf_counter()
    try:
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)", data)
        conn.commit()
    except Exception as exc:      # noqa: BLE001 - reported, not hidden
        print(f"  informix-driver, {n:,} rows: stalled and failed after "
              f"{time.perf_counter() - t0:.0f} s: {exc!r}", file=sys.stderr)
        return float("nan")
    finally:
        conn.close()
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with emulator_process() as (host, port):
        for autocommit in (False, True):
            mode = "autocommit" if autocommit else "one transaction"
            for n in args.sizes:
                a = statistics.median(ours(host, port, n, autocommit) for _ in range(args.repeat))
                b = statistics.median(informix_driver(host, port, n, autocommit)
                                      for _ in range(args.repeat))
                theirs = ("did not finish (stalled)" if math.isnan(b)
                          else f"{b:>10,.0f} rows/s, ratio x{a / b:.2f}")
                print(f"{mode:15s} {n:>9,} rows: ours {a:>10,.0f} rows/s, "
                      f"informix-driver {theirs}")


if __name__ == "__main__":
    main()
