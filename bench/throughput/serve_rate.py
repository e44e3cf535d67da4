"""How fast the emulator serves rows: the raw-bytes floor client drains a table.

    python bench/throughput/serve_rate.py --rows 1000000

The client decodes nothing but message framing, so rows/s here is what the
emulator (plus the socket) delivers.  The emulator must never be what a
client benchmark measures: this figure has to stay well above any client's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import SELECT, RawClient, emulator_process, load_table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--buffer", type=int, default=64 * 1024)
    args = ap.parse_args()
    with emulator_process() as (host, port):
        t0 = time.perf_counter()
        load_table(host, port, args.rows)
        print(f"loaded {args.rows:,} rows in {time.perf_counter() - t0:.1f} s")
        client = RawClient(host, port)
        rates = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            n = client.drain(SELECT, args.buffer)
            rates.append(n / (time.perf_counter() - t0))
            assert n == args.rows, (n, args.rows)
        client.close()
    print(f"served {args.rows:,} rows with a {args.buffer // 1024} KiB fetch buffer: "
          f"median {statistics.median(rates):,.0f} rows/s over {args.repeat} runs "
          f"(min {min(rates):,.0f}, max {max(rates):,.0f})")


if __name__ == "__main__":
    main()
