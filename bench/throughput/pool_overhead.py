"""What a pool checkout costs, side by side in one run (issue 10's target).

    python bench/throughput/pool_overhead.py [--n 2000]

Three ways to run ``SELECT 1`` and commit, each N times against one emulator
in its own process, interleaved in rounds:

* held: on a connection already open (the floor);
* pooled: ``with pool.connection() as conn:`` (checkout, statement, commit
  on leaving, return);
* connect: connect, statement, close (what a pool saves).

Prints microseconds per operation (median of the rounds) and the ratios to
"held"; also the same for asyncio (``AsyncConnectionPool``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import emulator_process  # noqa: E402

import informix_stream  # noqa: E402

SQL = "SELECT 1 FROM systables WHERE tabid = 1"


def kwargs(host: str, port: int) -> dict:
    return dict(host=host, port=port, password="in4mix", database="testdb")


def held(conn, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        conn.execute(SQL).fetchall()
        conn.commit()
    return time.perf_counter() - start


def pooled(pool, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        with pool.connection() as conn:
            conn.execute(SQL).fetchall()
    return time.perf_counter() - start


def connecting(kw: dict, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        conn = informix_stream.connect(**kw)
        conn.execute(SQL).fetchall()
        conn.close()
    return time.perf_counter() - start


async def async_rounds(kw: dict, n: int, rounds: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"async held": [], "async pooled": []}
    conn = await informix_stream.connect_async(**kw)
    async with informix_stream.AsyncConnectionPool(min_size=1, max_size=1, **kw) as pool:
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(n):
                cur = await conn.execute(SQL)
                await cur.fetchall()
                await conn.commit()
            out["async held"].append(time.perf_counter() - start)
            start = time.perf_counter()
            for _ in range(n):
                async with pool.connection() as c:
                    cur = await c.execute(SQL)
                    await cur.fetchall()
            out["async pooled"].append(time.perf_counter() - start)
    await conn.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with emulator_process() as (host, port):
        kw = kwargs(host, port)
        times: dict[str, list[float]] = {"held": [], "pooled": [], "connect": []}
        conn = informix_stream.connect(**kw)
        with informix_stream.ConnectionPool(min_size=1, max_size=1, **kw) as pool:
            held(conn, 200), pooled(pool, 200)              # warm-up
            for _ in range(args.rounds):
                times["held"].append(held(conn, args.n))
                times["pooled"].append(pooled(pool, args.n))
                times["connect"].append(connecting(kw, args.n // 10) * 10)
        conn.close()
        times.update(asyncio.run(async_rounds(kw, args.n, args.rounds)))
    per_op = {k: statistics.median(v) / args.n * 1e6 for k, v in times.items()}
    print(f"SELECT 1 + commit, {args.n} operations x {args.rounds} rounds, one emulator")
    print("| way | us per operation | vs held |")
    print("|---|---:|---:|")
    for name, us in per_op.items():
        base = per_op["async held" if name.startswith("async") else "held"]
        print(f"| {name} | {us:,.0f} | x{us / base:.2f} |")


if __name__ == "__main__":
    main()
