"""Streaming rows/s, side by side in one run: ours (read-ahead on and off,
materializing), informix-driver, the raw-bytes floor, and our decode-only
ceiling (rows/s decoding bytes already in memory).

    python bench/throughput/stream_compare.py --rows 100000 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import SELECT, RawClient, connect, emulator_process, load_table, rows  # noqa: E402

from informix_stream import codecs  # noqa: E402


def ours(host, port, n, **cursor_kw):
    with connect(host, port) as conn:
        cur = conn.cursor(**cursor_kw)
        t0 = time.perf_counter()
        cur.execute(SELECT)
        count = sum(1 for _ in cur)
        el = time.perf_counter() - t0
    assert count == n, count
    return n / el


def informix_driver(host, port, n):
    import informix_db
    conn = informix_db.connect(host=host, port=port, user="informix", password="in4mix",
                               database="testdb", server="informix")
    cur = conn.cursor()
    t0 = time.perf_counter()
    cur.execute(SELECT)
    count = sum(1 for _ in cur)
    el = time.perf_counter() - t0
    conn.close()
    assert count == n, count
    return n / el


def floor(host, port, n):
    client = RawClient(host, port)
    t0 = time.perf_counter()
    count = client.drain(SELECT)
    el = time.perf_counter() - t0
    client.close()
    assert count == n, count
    return n / el


def decode_ceiling(n):
    """Decode n row images already in memory, the way a fetch reply holds them."""
    types = [codecs.parse_type(t) for t in ("INTEGER", "VARCHAR(64)", "INTEGER",
                                            "FLOAT", "DATE")]
    enc, dec = codecs.make_tuple_encoder(types), codecs.make_row_decoder(types)
    blob = b"".join(enc(r) for r in rows(min(n, 20000)))
    from informix_stream.messages import Reply, parse_reply
    t0 = time.perf_counter()
    done = 0
    while done < n:
        reply = Reply()
        parse_reply(blob + b"\x00\x0c", 0, reply, dec)
        done += len(reply.rows)
    return done / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n = args.rows
    contenders = {
        "ours, streaming (read-ahead)": lambda h, p: ours(h, p, n),
        "ours, streaming (no read-ahead)": lambda h, p: ours(h, p, n, read_ahead=False),
        "ours, materializing": lambda h, p: ours(h, p, n, materialize=True),
        "informix-driver": lambda h, p: informix_driver(h, p, n),
        "floor: raw bytes, no decoding": lambda h, p: floor(h, p, n),
    }
    results = {k: [] for k in contenders}
    with emulator_process() as (host, port):
        load_table(host, port, n)
        for _ in range(args.repeat):
            for name, run in contenders.items():
                results[name].append(run(host, port))
    ceiling = statistics.median(decode_ceiling(n) for _ in range(args.repeat))
    base = statistics.median(results["informix-driver"])
    print(f"{n:,} rows, median of {args.repeat} runs, same emulator, same run")
    for name, rates in results.items():
        med = statistics.median(rates)
        print(f"  {name:34s} {med:>12,.0f} rows/s   x{med / base:4.2f} informix-driver"
              f"   {med / ceiling:6.1%} of decode ceiling")
    print(f"  {'decode-only ceiling (in memory)':34s} {ceiling:>12,.0f} rows/s")


if __name__ == "__main__":
    main()
