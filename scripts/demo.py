"""The main job: stream a large table out of the embedded emulator in bounded memory.

Starts the emulator as its own process (so the figures below are the
client's alone), loads a table of N rows with the pipelined executemany,
then streams it back through the default cursor and reports rows/s and the
client's memory: RSS before streaming, peak RSS while streaming, growth.

    python scripts/demo.py --rows 1000000
"""

from __future__ import annotations

import argparse
import datetime
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import informix_stream  # noqa: E402
from informix_stream.emulator.process import spawned  # noqa: E402

TABLE_DDL = ("CREATE TABLE demo_rows (id INTEGER NOT NULL, name VARCHAR(64), "
             "counter INTEGER, value FLOAT, created DATE)")


def rss_bytes() -> int:
    """Current resident set size, from /proc (not the monotonic peak)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class RssSampler:
    """Samples RSS every few milliseconds on a thread; keeps the maximum."""

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.peak = rss_bytes()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, rss_bytes())

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_bytes())


def progress(rows, total: int, label: str):
    """Pass rows through while showing progress on stderr: a live bar on a
    terminal, a plain line every tenth of the way otherwise (a log file
    should not fill with carriage returns)."""
    live = sys.stderr.isatty()
    width, step = 40, max(total // (200 if live else 10), 1)
    start = time.perf_counter()
    for i, row in enumerate(rows, 1):
        if i % step == 0 or i == total:
            done = i * width // total
            rate = i / max(time.perf_counter() - start, 1e-9)
            if live:
                sys.stderr.write(f"\r{label} [{'#' * done}{'.' * (width - done)}] "
                                 f"{i:>10,}/{total:,}  {rate:,.0f} rows/s")
            else:
                sys.stderr.write(f"{label} {i:>10,}/{total:,}  {rate:,.0f} rows/s\n")
            sys.stderr.flush()
        yield row
    if live:
        sys.stderr.write("\n")


def generate(n: int):
    base = datetime.date(2020, 1, 1)
    for i in range(n):
        yield (i, f"name-{i:08d}", i * 7 % 1000, i / 3.0, base + datetime.timedelta(days=i % 1500))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--fetch-buffer", type=int, default=informix_stream.connection.DEFAULT_FETCH_BUFFER)
    args = ap.parse_args()
    if args.rows < 1:
        ap.error("--rows must be positive")

    with spawned() as (host, port):
        conn = informix_stream.connect(host=host, port=port, user="informix", password="in4mix",
                                       database="testdb", fetch_buffer_size=args.fetch_buffer)
        cur = conn.cursor()
        cur.execute(TABLE_DDL)
        t0 = time.perf_counter()
        cur.executemany("INSERT INTO demo_rows VALUES (?, ?, ?, ?, ?)",
                        progress(generate(args.rows), args.rows, "load  "))
        conn.commit()
        load_s = time.perf_counter() - t0

        before = rss_bytes()
        count, checksum = 0, 0
        with RssSampler() as sampler:
            t0 = time.perf_counter()
            cur.execute("SELECT id, name, counter, value, created FROM demo_rows")
            for row in progress(cur, args.rows, "stream"):
                count += 1
                checksum += row[0]
            stream_s = time.perf_counter() - t0
        cur.close()
        conn.close()

    expected = args.rows * (args.rows - 1) // 2
    mib = 1024 * 1024
    print(f"rows loaded      {args.rows:,} in {load_s:.1f} s  ({args.rows / load_s:,.0f} rows/s)")
    print(f"rows streamed    {count:,} in {stream_s:.1f} s  ({count / stream_s:,.0f} rows/s)")
    print(f"client RSS       {before / mib:.1f} MiB before streaming, "
          f"peak {sampler.peak / mib:.1f} MiB while streaming "
          f"(growth {(sampler.peak - before) / mib:.1f} MiB for {count:,} rows)")
    if count != args.rows or checksum != expected:
        print(f"MISMATCH: expected {args.rows} rows with id sum {expected}, got {count} / {checksum}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
