"""How fast the emulator serves rows, two ways.

    python bench/throughput/serve_rate.py --rows 1000000

1. End to end: the raw-bytes floor client (decodes nothing but message
   framing) drains the table from an emulator in another process, through a
   socket, with a 64 KiB tuple buffer.
2. Server side only: the same SQ_NFETCH requests handed straight to an
   in-process emulator session, no socket and no client, so the figure is
   the emulator's own cost per row.

The emulator must never be what a client benchmark measures: both figures
have to stay well above any client's rows/s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import DDL, SELECT, RawClient, emulator_process, load_table, rows  # noqa: E402

from informix_stream import codecs  # noqa: E402
from informix_stream.emulator.engine import Engine  # noqa: E402
from informix_stream.emulator.session import Session  # noqa: E402
from informix_stream.framing import Writer  # noqa: E402
from informix_stream.messages import Tag, parse_request  # noqa: E402


# Only the reply that exhausts the cursor ends with DONE, then COST, then EOT.
_LAST_REPLY_END = b"\x00\x37" + bytes(8) + b"\x00\x0c"


def server_side_rate(n: int, bufsize: int) -> float:
    """Rows/s of an in-process session answering NFETCHes, no socket."""
    engine = Engine(["testdb"])
    session = Session(engine, version="bench")

    def request(w: Writer) -> bytes:
        messages, _ = parse_request(w.getvalue() + b"\x00\x0c", 0, codecs.read_param)
        return session.handle(messages)

    request(Writer().short(Tag.DBOPEN).short_string(b"testdb").short(0))
    db = session.db
    db.execute(db.prepare(DDL), [])
    insert = db.prepare("INSERT INTO bench_rows VALUES (?, ?, ?, ?, ?)")
    db.begin()
    for row in rows(n):
        db.execute(insert, list(row))
    db.commit()
    sql = SELECT.encode()
    request(Writer().short(Tag.PREPARE).short(0).int(len(sql)).padded(sql)
            .short(Tag.NDESCRIBE).short(Tag.WANTDONE))
    t0 = time.perf_counter()
    request(Writer().short(Tag.ID).short(0).short(Tag.CURNAME).short_string(b"c").short(Tag.OPEN))
    fetch = Writer().short(Tag.ID).short(0).short(Tag.NFETCH).int(bufsize).short(0)
    while not request(fetch).endswith(_LAST_REPLY_END):
        pass
    rate = n / (time.perf_counter() - t0)
    engine.close()
    return rate


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
    print(f"end to end: served {args.rows:,} rows with a {args.buffer // 1024} KiB fetch "
          f"buffer: median {statistics.median(rates):,.0f} rows/s over {args.repeat} runs "
          f"(min {min(rates):,.0f}, max {max(rates):,.0f})")
    inner = [server_side_rate(args.rows, args.buffer) for _ in range(args.repeat)]
    print(f"server side only: median {statistics.median(inner):,.0f} rows/s "
          f"(min {min(inner):,.0f}, max {max(inner):,.0f})")


if __name__ == "__main__":
    main()
