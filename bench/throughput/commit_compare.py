"""This tree's driver against another commit's, interleaved, on one emulator.

    python bench/throughput/commit_compare.py --base 21f5955 [--runs 5]

Checks that a restructuring costs no speed: the other commit is checked out
into a temporary git worktree, then each measurement runs in a fresh
process, alternately with this tree's ``src`` and the other's on
``PYTHONPATH``, against the same emulator (this tree's, in its own process).
Measured: streaming the narrow table (INTEGER, VARCHAR(64), INTEGER, FLOAT,
DATE) and a realistic one (INTEGER, VARCHAR(32), DECIMAL(12,2), DATETIME
YEAR TO SECOND, DATE, VARCHAR(64) with NULLs), and executemany of each.
Prints medians, each side's spread, and the ratio this/base pair by pair.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))

from common import connect, emulator_process  # noqa: E402

TABLES = {
    "narrow": ("id INTEGER, name VARCHAR(64), counter INTEGER, value FLOAT, created DATE",
               "(i, f'name-{i:08d}', i * 7 % 1000, i / 3.0, d0 + td(days=i % 1500))"),
    "sales": ("id INTEGER, sku VARCHAR(32), amount DECIMAL(12,2), sold DATETIME YEAR TO SECOND, "
              "day DATE, note VARCHAR(64)",
              "(i, f'SKU-{i % 9973:06d}', Decimal(i % 100000) / 100, "
              "t0 + td(seconds=i * 37), d0 + td(days=i % 3000), "
              "None if i % 10 == 0 else f'note {i}')"),
}

WORKER = r'''
import json, sys, time, datetime as dt
from datetime import timedelta as td
from decimal import Decimal
import informix_stream
host, port, kind, table, n, expr = sys.argv[1:7]
n = int(n)
d0, t0 = dt.date(2020, 1, 1), dt.datetime(2020, 1, 1, 8, 0, 0)
conn = informix_stream.connect(host=host, port=int(port), user="informix", password="in4mix",
                               database="testdb")
cur = conn.cursor()
if kind == "stream":
    cur.execute(f"SELECT * FROM {table}")
    start = time.perf_counter()
    count = 0
    for _ in cur:
        count += 1
    seconds = time.perf_counter() - start
else:
    make = eval("lambda i: " + expr)
    start = time.perf_counter()
    marks = ", ".join("?" * len(make(0)))
    cur.executemany(f"INSERT INTO {table} VALUES ({marks})", (make(i) for i in range(n)))
    conn.commit()
    seconds = time.perf_counter() - start
    count = n
    cur.execute(f"DELETE FROM {table}")
    conn.commit()
conn.close()
print(json.dumps({"rows": count, "rows_per_s": count / seconds}))
'''


def worker(src: Path, host: str, port: int, kind: str, table: str, n: int, expr: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", WORKER, host, str(port), kind, table, str(n),
                          expr], capture_output=True, text=True, env=env, check=False)
    if out.returncode:
        raise RuntimeError(f"worker ({src}) failed:\n{out.stderr}")
    result = json.loads(out.stdout.splitlines()[-1])
    if result["rows"] != n:
        raise RuntimeError(f"worker ({src}) read {result['rows']} rows, not {n}")
    return result["rows_per_s"]


def row_maker(name: str):
    """The table's row generator, from the same text the workers evaluate."""
    import datetime as dt
    from datetime import timedelta
    from decimal import Decimal
    scope = {"td": timedelta, "Decimal": Decimal, "d0": dt.date(2020, 1, 1),
             "t0": dt.datetime(2020, 1, 1, 8, 0, 0)}
    return eval("lambda i: " + TABLES[name][1], scope)  # noqa: S307 - our own constant text


def load(host: str, port: int, name: str, n: int) -> None:
    columns = TABLES[name][0]
    make = row_maker(name)
    with connect(host, port) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {name} ({columns})")
        cur.execute(f"CREATE TABLE {name}_load ({columns})")
        marks = ", ".join("?" * len(make(0)))
        cur.executemany(f"INSERT INTO {name} VALUES ({marks})", (make(i) for i in range(n)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="21f5955")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--stream-rows", type=int, default=200_000)
    ap.add_argument("--load-rows", type=int, default=20_000)
    ap.add_argument("--cases", nargs="+", default=None,
                    help="only these, e.g. 'stream narrow' 'executemany sales'")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base_tree = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base_tree),
                        args.base], check=True, capture_output=True)
        try:
            run(args, base_tree / "src")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(base_tree)], check=False, capture_output=True)


def run(args, base_src: Path) -> None:
    ours = ROOT / "src"
    with emulator_process() as (host, port):
        for name in TABLES:
            load(host, port, name, args.stream_rows)
        cases = [(kind, name) for name in TABLES for kind in ("stream", "executemany")
                 if args.cases is None or f"{kind} {name}" in args.cases]
        print(f"base {args.base} vs this tree; {args.runs} interleaved runs each; "
              f"stream {args.stream_rows:,} rows, executemany {args.load_rows:,} rows")
        print("| case | this tree rows/s (min-max) | base rows/s (min-max) | ratio median (min-max) |")
        print("|---|---:|---:|---:|")
        for kind, name in cases:
            n = args.stream_rows if kind == "stream" else args.load_rows
            table = name if kind == "stream" else f"{name}_load"
            expr = TABLES[name][1]
            a, b = [], []
            for _ in range(args.runs):
                a.append(worker(ours, host, port, kind, table, n, expr))
                b.append(worker(base_src, host, port, kind, table, n, expr))
            ratios = [x / y for x, y in zip(a, b)]
            print(f"| {kind} {name} | {statistics.median(a):,.0f} ({min(a):,.0f}-{max(a):,.0f}) "
                  f"| {statistics.median(b):,.0f} ({min(b):,.0f}-{max(b):,.0f}) "
                  f"| {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) |",
                  flush=True)


if __name__ == "__main__":
    main()
