"""Where one ``pandas.read_sql`` through the SQLAlchemy engine spends its
client CPU (issue 15's read target; bench/README.md "SQLAlchemy and pandas").

    python bench/throughput/sqla_read_stages.py [--rows 100000] [--rounds 4]

Each round reads the sales table once with the cyclic GC on and once with
it off, timing with ``time.process_time`` three nested stages by wrapping
them: the driver's ``Cursor.fetchall`` (fetch and decode), SQLAlchemy's
``Result._allrows`` (that fetchall plus one Row per tuple) and pandas'
``_wrap_result`` (the DataFrame from the Rows); ``gc.callbacks`` tell which
stage each collection fell in and what it cost.  The wrappers add a few
microseconds a call, nothing per row.  sqla_compare.py gives the wall-clock
ratios; this tells which part of the client's time is the driver's.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from common import emulator_process  # noqa: E402
from sqla_compare import COLUMNS, engine_url, load  # noqa: E402

STAGES = ("driver fetchall", "SQLAlchemy rows", "pandas frame")


class Stages:
    """CPU seconds per wrapped stage (nested stages count in each), and the
    collections that ran inside each innermost stage."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.collections: list[tuple[str, int, float]] = []   # (stage, generation, seconds)
        self._stage = "other"
        self._gc_start = 0.0

    def wrap(self, owner: object, name: str, label: str) -> None:
        original = getattr(owner, name)

        def timed(*args, **kw):
            outer, self._stage = self._stage, label
            start = time.process_time()
            try:
                return original(*args, **kw)
            finally:
                self.cpu[label] = self.cpu.get(label, 0.0) + time.process_time() - start
                self._stage = outer
        setattr(owner, name, timed)

    def on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_start = time.process_time()
        else:
            self.collections.append((self._stage, info["generation"],
                                     time.process_time() - self._gc_start))

    def reset(self) -> None:
        self.cpu.clear()
        self.collections.clear()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args()
    import pandas as pd
    import pandas.io.sql as pandas_sql
    from sqlalchemy import create_engine
    from sqlalchemy.engine import result as sa_result

    from informix_stream import cursors

    stages = Stages()
    stages.wrap(cursors.Cursor, "fetchall", STAGES[0])
    stages.wrap(sa_result.Result, "_allrows", STAGES[1])
    stages.wrap(pandas_sql, "_wrap_result", STAGES[2])
    gc.callbacks.append(stages.on_gc)
    n = args.rows
    with emulator_process() as (host, port):
        load(host, port, "sqla_stages", n)
        engine = create_engine(engine_url(host, port))
        sql = f"SELECT {', '.join(COLUMNS)} FROM sqla_stages"
        print(f"pd.read_sql through the engine, {n:,} sales rows: client CPU us/row "
              "(SQLAlchemy rows include the driver's fetchall)")
        for _ in range(args.rounds):
            for gc_on in (True, False):
                stages.reset()
                if not gc_on:
                    gc.disable()
                start = time.process_time()
                try:
                    with engine.connect() as conn:
                        got = len(pd.read_sql(sql, conn))
                finally:
                    gc.enable()
                total = time.process_time() - start
                if got != n:
                    raise RuntimeError(f"read {got:,} rows, not {n:,}")
                report(stages, total, n, gc_on)
        engine.dispose()


def report(stages: Stages, total: float, n: int, gc_on: bool) -> None:
    per_row = {k: v * 1e6 / n for k, v in stages.cpu.items()}
    gc_cpu = sum(s for _, _, s in stages.collections) * 1e6 / n
    full = [f"{stage} {s * 1e3:.0f} ms" for stage, gen, s in stages.collections if gen == 2]
    print(f"  GC {'on ' if gc_on else 'off'}  total {total * 1e6 / n:.2f}  "
          + "  ".join(f"{k} {per_row.get(k, 0.0):.2f}" for k in STAGES)
          + f"  collections {gc_cpu:.2f}" + (f"  (full: {', '.join(full)})" if full else ""))


if __name__ == "__main__":
    main()
