"""Streaming rows/s against the replay floor, not the emulator: each client's
conversation is recorded once from the emulator, then replayed from memory
by a server in another process (see replay.py), so the figures are the
client's own cost.  Narrow table (INTEGER, VARCHAR(64), INTEGER, FLOAT,
DATE), a fixed-width table (INTEGER, BIGINT, FLOAT, DATE, DATETIME YEAR TO
SECOND, DECIMAL(12,2)) and the sales table of issue 13 (INTEGER, VARCHAR(32), DECIMAL(12,2),
DATETIME YEAR TO SECOND, DATE, VARCHAR(64) with 10% NULLs).

    python bench/throughput/replay_compare.py --rows 200000 --repeat 3
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from common import SHAPES, RawClient, connect, emulator_process  # noqa: E402
from replay import record, replay_server  # noqa: E402

TABLES = SHAPES

# client(host, port, sql) -> rows consumed, timed from execute to the last row
Client = Callable[[str, int, str], int]


def ours_tuples(host: str, port: int, sql: str) -> int:
    with connect(host, port) as conn:
        cur = conn.cursor()
        cur.execute(sql)
        return sum(1 for _ in cur)


def ours_arrow(host: str, port: int, sql: str) -> int:
    with connect(host, port) as conn:
        cur = conn.cursor()
        cur.execute(sql)
        return sum(batch.num_rows for batch in cur.fetch_arrow_batches())


def ours_arrow_per_row(host: str, port: int, sql: str) -> int:
    """Arrow with the per-row reply path (one image cut per SQ_TUPLE), the
    reference the bulk path (arrow/bulk.py) replaced: before/after in one run."""
    with connect(host, port) as conn:
        cur = conn.cursor()
        cur.arrow_bulk = False
        cur.execute(sql)
        return sum(batch.num_rows for batch in cur.fetch_arrow_batches())


def informix_driver(host: str, port: int, sql: str) -> int:
    import itertools

    import informix_db
    from informix_db import cursors
    # Its cursor names come from a process-wide counter: restart it, so that
    # every run sends the conversation that was recorded.
    cursors._cursor_counter = itertools.count(1)
    conn = informix_db.connect(host=host, port=port, user="informix", password="in4mix",
                               database="testdb", server="informix")
    try:
        cur = conn.cursor()
        cur.execute(sql)
        return sum(1 for _ in cur)
    finally:
        conn.close()


def floor(host: str, port: int, sql: str) -> int:
    client = RawClient(host, port)
    try:
        return client.drain(sql)
    finally:
        client.close()


def bytes_only(recording, rows: int) -> Client:
    """The floor under every client: the raw-bytes client's recorded requests
    sent and exactly its recorded replies' bytes received into one buffer,
    nothing parsed, not even the framing the raw-bytes client walks in
    Python (which a bulk decoder can outrun).  ``rows`` is what that
    recording carried."""
    def run(host: str, port: int, sql: str) -> int:
        with socket.create_connection((host, port)) as sock:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            view = memoryview(bytearray(max(len(reply) for _, reply in recording)))
            for request, reply in recording:
                sock.sendall(request)
                got, need = 0, len(reply)
                while got < need:
                    n = sock.recv_into(view[got:need])
                    if not n:
                        raise ConnectionError(f"replay ended after {got} of {need} bytes")
                    got += n
        return rows
    run.__name__ = "bytes_only"
    return run


CLIENTS: dict[str, Client] = {
    "ours, streaming tuples": ours_tuples,
    "ours, Arrow batches": ours_arrow,
    "ours, Arrow, per-row reply path": ours_arrow_per_row,
    "informix-driver": informix_driver,
    "floor: raw bytes, no decoding": floor,
}
BASE = "informix-driver"
FLOOR = "floor: raw bytes, no decoding"
# Derived from FLOOR's recording, so FLOOR is always recorded when it is asked for.
BYTES_FLOOR = "floor: recorded bytes, no framing"


def load(host: str, port: int, table: str, n: int) -> None:
    ddl, make = TABLES[table]
    with connect(host, port) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {table} ({ddl})")
        marks = ", ".join("?" * len(make(0)))
        cur.executemany(f"INSERT INTO {table} VALUES ({marks})", (make(i) for i in range(n)))


def timed(client: Client, host: str, port: int, sql: str, n: int) -> float:
    t0 = time.perf_counter()
    count = client(host, port, sql)
    seconds = time.perf_counter() - t0
    if count != n:
        raise RuntimeError(f"{client.__name__} consumed {count} rows, expected {n}")
    return n / seconds


def measure(tables: list[str], clients: dict[str, Client], n: int, repeat: int) -> dict:
    """{table: {client: [rows/s, ...]}}, each client against its own recording."""
    results: dict = {}
    with emulator_process() as (host, port):
        recordings = {}
        for table in tables:
            load(host, port, table, n)
            sql = f"SELECT * FROM {table}"
            for name, client in clients.items():
                recordings[table, name] = record(
                    lambda h, p, c=client: timed(c, h, p, sql, n), host, port)
    for table in tables:
        sql = f"SELECT * FROM {table}"
        runs = dict(clients)
        if FLOOR in clients:
            recordings[table, BYTES_FLOOR] = recordings[table, FLOOR]
            runs[BYTES_FLOOR] = bytes_only(recordings[table, FLOOR], n)
        results[table] = {name: [] for name in runs}
        for name, client in runs.items():
            with replay_server(recordings[table, name]) as (host, port):
                for _ in range(repeat):
                    results[table][name].append(timed(client, host, port, sql, n))
    return results


def _images(table: str, n: int):
    from informix_stream.codecs import make_row_encoder, parse_type
    ddl, make = TABLES[table]
    types = [parse_type(col.split(" ", 1)[1]) for col in ddl.split(", ")]
    encode = make_row_encoder(types)
    return types, [encode(make(i)) for i in range(n)]


def ceilings(table: str, n: int, repeat: int) -> dict[str, float]:
    """Decode-only rows/s with no I/O: the tuple path as a cursor runs it
    (``parse_reply`` over fetch buffers of SQ_TUPLEs, the shape's block or
    run hook included: reply_decode.py), and the columnar Arrow decoder in
    65,536-row batches.  Timing the row decoder called per image instead
    would understate what a fixed shape's block path does."""
    from informix_stream.arrow.columnar import decode_batch
    from informix_stream.codecs import make_row_decoder
    from informix_stream.messages import Reply, parse_reply
    from reply_decode import replies
    rows = min(n, 65536)
    types, images = _images(table, rows)
    _, bufs = replies(table, rows)
    names = [f"c{k}" for k in range(len(types))]
    decode = make_row_decoder(types)

    def tuples() -> float:
        t0 = time.perf_counter()
        for buf in bufs:
            parse_reply(buf, 0, Reply(), decode)
        return rows / (time.perf_counter() - t0)

    def arrow() -> float:
        t0 = time.perf_counter()
        decode_batch(images, types, names)
        return len(images) / (time.perf_counter() - t0)
    return {"decode-only ceiling, tuples": statistics.median(tuples() for _ in range(repeat)),
            "decode-only ceiling, Arrow": statistics.median(arrow() for _ in range(repeat))}


def report(results: dict, n: int, repeat: int) -> None:
    print(f"{n:,} rows, median of {repeat} runs, each client against the replay of its "
          "own recorded conversation")
    for table, by_client in results.items():
        base = statistics.median(by_client[BASE]) if BASE in by_client else None
        floor_name = BYTES_FLOOR if BYTES_FLOOR in by_client else FLOOR
        low = statistics.median(by_client[floor_name]) if floor_name in by_client else None
        print(f"  {table}:")
        for name, rates in by_client.items():
            med = statistics.median(rates)
            ratio = f"   x{med / base:5.2f} {BASE}" if base else ""
            ratio += f"   {med / low:6.1%} of the floor" if low else ""
            print(f"    {name:36s} {med:>12,.0f} rows/s{ratio}")
        for name, rate in ceilings(table, n, repeat).items():
            print(f"    {name:36s} {rate:>12,.0f} rows/s   (in memory, no I/O)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tables", nargs="*", default=["narrow", "sales", "fixed"],
                    choices=list(TABLES))
    ap.add_argument("--clients", nargs="*", default=list(CLIENTS), choices=list(CLIENTS))
    args = ap.parse_args()
    clients = {k: CLIENTS[k] for k in args.clients}
    report(measure(args.tables, clients, args.rows, args.repeat), args.rows, args.repeat)


if __name__ == "__main__":
    main()
