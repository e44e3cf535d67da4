"""Ways to read a big result, side by side: rows/s and peak RSS of each.

    python bench/throughput/strategy_lab.py                    # 100k 500k 1M, writes STRATEGIES.md
    python bench/throughput/strategy_lab.py --sizes 100000 --runs 1 --no-write

Every strategy runs in fresh consumer processes (bench/memory/consumer.py)
against the same server in the same run, repeated ``--runs`` times in
rotation; the tables show medians.  The fan-out starts ``--workers``
processes, each streaming its own ``WHERE id >= ? AND id < ?`` range; they
connect first and start together, and its rows/s is all rows over the time
from the first start to the last finish, its RSS the sum of their peaks
(each is a whole interpreter, which is what fanning out costs).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "memory"))

from harness import (Target, code_note, consume, consumer_command, load,  # noqa: E402
                     machine_note, target)

MIB = 1 << 20
STRATEGIES = {
    "materialize": "ours, materialize=True, fetchall",
    "stream-iterate": "ours, streaming, iterate",
    "stream-fetchmany": "ours, streaming, fetchmany(10,000)",
    "async-stream": "ours, asyncio, async for",
    "arrow-batches": "ours, Arrow: fetch_arrow_batches(batch_rows=16,384)",
    "pooled-sync": "ours, pooled: 4 threads over a pool of 4, 16 id ranges",
    "async-fanout": "ours, asyncio: 16 range tasks over a pool of 4",
    "fan-out": "ours, fan-out: {workers} processes streaming id ranges",
    "informix-driver": "informix-driver (materializes at execute)",
    "floor": "floor: raw bytes, decodes nothing",
}


def fan_out(t: Target, n: int, workers: int) -> dict:
    """Stream n rows as ``workers`` parallel range readers; one combined result."""
    bounds = [n * i // workers for i in range(workers + 1)]
    procs = [subprocess.Popen(consumer_command(t, "stream-iterate", n, "--range", str(lo),
                                               str(hi), "--wait-go"),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for lo, hi in zip(bounds, bounds[1:])]
    try:
        for p in procs:
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError("a fan-out worker did not get ready")
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        outs = [p.communicate()[0] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    if any(p.returncode for p in procs):
        raise RuntimeError("a fan-out worker failed")
    parts = [json.loads(out.splitlines()[-1]) for out in outs]
    rows = sum(r["rows"] for r in parts)
    if rows != n:
        raise RuntimeError(f"the fan-out read {rows:,} rows, not {n:,}")
    seconds = max(r["end"] for r in parts) - min(r["start"] for r in parts)
    return {"rows_per_s": n / seconds, "peak": sum(r["peak"] for r in parts)}


def runner(t: Target, name: str, workers: int) -> Callable[[int], dict]:
    if name == "fan-out":
        return lambda n: fan_out(t, n, workers)
    return lambda n: consume(t, name, n)


def measure(t: Target, sizes: list[int], runs: int, workers: int) -> dict[int, dict]:
    names = [s for s in STRATEGIES if not (s == "floor" and t.real)]
    medians: dict[int, dict] = {}
    for n in sizes:
        print(f"== {n:,} rows: loading", file=sys.stderr, flush=True)
        load(t, n)
        got: dict[str, list[dict]] = {s: [] for s in names}
        for run in range(1, runs + 1):
            for name in names:
                print(f"[{n:,} rows, run {run}/{runs}] {name}", file=sys.stderr, flush=True)
                got[name].append(runner(t, name, workers)(n))
        medians[n] = {s: {"rows_per_s": statistics.median(r["rows_per_s"] for r in rs),
                          "peak": statistics.median(r["peak"] for r in rs)}
                      for s, rs in got.items()}
    return medians


def report(medians: dict[int, dict], runs: int, workers: int) -> list[str]:
    lines = []
    for n, m in medians.items():
        base = m["informix-driver"]["rows_per_s"]
        floor = m.get("floor", {}).get("rows_per_s")
        lines += [f"## {n:,} rows", "",
                  "| strategy | rows/s | vs informix-driver | of the floor | peak RSS (MiB) |",
                  "|---|---:|---:|---:|---:|"]
        for name, r in m.items():
            label = STRATEGIES[name].format(workers=workers)
            of_floor = f"{r['rows_per_s'] / floor:.0%}" if floor else "n/a"
            lines.append(f"| {label} | {r['rows_per_s']:,.0f} | x{r['rows_per_s'] / base:.2f} "
                         f"| {of_floor} | {r['peak'] / MIB:,.1f} |")
        lines.append("")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 500_000, 1_000_000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-write", action="store_true", help="print only; keep STRATEGIES.md")
    args = ap.parse_args()
    machine, code = machine_note(), code_note()
    with target() as t:
        medians = measure(t, sorted(args.sizes), args.runs, args.workers)
    server = "a real Informix server (IFX_HOST)" if t.real else "the emulator in its own process"
    body = report(medians, args.runs, args.workers)
    print("\n".join(body))
    if args.no_write:
        return
    head = [
        "# Read strategies: rows/s and peak RSS",
        "",
        "Generated by `bench/throughput/strategy_lab.py`; do not edit by hand.",
        "",
        f"- Command: `{' '.join(['python bench/throughput/strategy_lab.py', *sys.argv[1:]])}`",
        f"- Date: {datetime.date.today().isoformat()}",
        f"- Machine: {machine}",
        f"- Code: {code}",
        f"- Server: {server}",
        f"- Median of {args.runs} runs per cell, strategies in rotation, same server.",
        "",
        "Rows/s counts from execute to the last row (connecting is not timed).  Peak",
        "RSS is the whole consumer process's, sampled every ~2-5 ms, so it includes",
        "the interpreter (~25 MiB); the fan-out's is the sum over its processes.  The",
        "emulator serves all connections from one Python process, so on a small",
        "machine the fan-out competes with the server for the same cores.",
        "",
    ]
    (HERE / "STRATEGIES.md").write_text("\n".join(head + body))


if __name__ == "__main__":
    main()
