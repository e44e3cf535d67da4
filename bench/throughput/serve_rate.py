"""How fast the emulator serves rows, and how fast it ingests them.

    python bench/throughput/serve_rate.py --rows 1000000
    python bench/throughput/serve_rate.py --table sales --rows 200000 \
        --columns '*' 'id, amount, sold' 'amount' 'sku, sold, note'
    python bench/throughput/serve_rate.py --ingest --rows 200000 [--table sales] [--path put] \
        [--baseline-src ../other-checkout/src]

1. End to end: the raw-bytes floor client (decodes nothing but message
   framing) drains the table from an emulator in another process, through a
   socket, with a 64 KiB tuple buffer.
2. Server side only: the same SQ_NFETCH requests handed straight to an
   in-process emulator session, no socket and no client, so the figure is
   the emulator's own cost per row.

The emulator must never be what a client benchmark measures: both figures
have to stay well above any client's rows/s.

``--table sales`` (issue 13's realistic table: INTEGER, VARCHAR(32),
DECIMAL(12,2), DATETIME YEAR TO SECOND, DATE, VARCHAR(64) with 10% NULLs)
with ``--columns`` measures projections end to end, one figure per column
list.  ``--ingest`` measures loading instead (issue 14): the raw-bytes client
sends requests it encoded before the clock starts, in bursts, and reads the
replies; rows/s of the whole load, on both paths a client can take:

* bind: pipelined ``SQ_ID/SQ_BIND/SQ_EXECUTE`` requests, one row each;
* put: ``SQ_BEGIN``, then insert-cursor requests ``SQ_ID/SQ_CURNAME/SQ_OPEN``
  + ``SQ_PUT`` blocks of row images (at most 32 KB a request, as this
  driver sends them), then ``SQ_CMMTWORK``.

Every load is checked: the table holds exactly the rows sent.
"""

from __future__ import annotations

import argparse
import statistics
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import (DDL, SELECT, TABLE, RawClient, connect, emulator_process,  # noqa: E402
                    load_table, rows)

import datetime as dt  # noqa: E402
import socket  # noqa: E402
from decimal import Decimal  # noqa: E402

from informix_stream import codecs  # noqa: E402
from informix_stream.codec.params import encode_param  # noqa: E402
from informix_stream.codec.rowencode import make_row_encoder  # noqa: E402
from informix_stream.codec.typeinfo import parse_type  # noqa: E402
from informix_stream.core import requests as rq  # noqa: E402
from informix_stream.messages import Reply, parse_reply, write_cost, write_done  # noqa: E402
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


SALES_DDL = ("CREATE TABLE {} (id INTEGER, sku VARCHAR(32), amount DECIMAL(12,2), "
             "sold DATETIME YEAR TO SECOND, day DATE, note VARCHAR(64))")
T0, D0 = dt.datetime(2020, 1, 1, 8), dt.date(2020, 1, 1)


def sales_rows(n: int, start: int = 0):
    for i in range(start, start + n):
        yield (i, f"SKU-{i % 9973:06d}", Decimal(i % 100000) / 100,
               T0 + dt.timedelta(seconds=i * 37), D0 + dt.timedelta(days=i % 3000),
               None if i % 10 == 0 else f"note {i}")


TABLES = {"narrow": (DDL.replace(TABLE, "{}"), rows),
          "sales": (SALES_DDL, sales_rows)}


def load(host: str, port: int, table: str, n: int, name: str) -> None:
    ddl, make = TABLES[table]
    with connect(host, port) as conn:
        cur = conn.cursor()
        cur.execute(ddl.format(name))
        marks = ", ".join("?" * (6 if table == "sales" else 5))
        cur.executemany(f"INSERT INTO {name} VALUES ({marks})", make(n))


def serve(args) -> None:
    with emulator_process() as (host, port):
        t0 = time.perf_counter()
        load(host, port, args.table, args.rows, "served")
        print(f"loaded {args.rows:,} {args.table} rows in {time.perf_counter() - t0:.1f} s")
        client = RawClient(host, port)
        for columns in args.columns:
            sql = f"SELECT {columns} FROM served"
            rates = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                n = client.drain(sql, args.buffer)
                rates.append(n / (time.perf_counter() - t0))
                assert n == args.rows, (n, args.rows)
            print(f"{args.table} SELECT {columns}: median {statistics.median(rates):,.0f} rows/s "
                  f"(min {min(rates):,.0f}, max {max(rates):,.0f}) over {args.repeat} runs")
        client.close()


def _bind_requests(stmt_id: int, data, burst: int) -> list[tuple[bytes, list[int]]]:
    """The load as bursts of whole BIND+EXECUTE requests: (bytes, the row
    count each request's SQ_DONE must report)."""
    head = rq.statement_id(stmt_id)
    tail = rq.EXECUTE + b"\x00\x0c"
    out, part = [], []
    for row in data:
        part.append(head + rq.bind([encode_param(v) for v in row]) + tail)
        if len(part) == burst:
            out.append((b"".join(part), [1] * len(part)))
            part = []
    if part:
        out.append((b"".join(part), [1] * len(part)))
    return out


PUT_BLOCK = 32 * 1024
_PUT_HEAD = struct.Struct("!hih")


def _put_requests(stmt_id: int, ddl: str, data, burst: int) -> list[tuple[bytes, list[int]]]:
    """The load as bursts of insert-cursor requests inside one transaction
    (each request re-opens the cursor, as this driver's requests do; rows of
    one image length share an SQ_PUT)."""
    encode = make_row_encoder([parse_type(c.split(" ", 1)[1]) for c in _column_texts(ddl)])
    head = (rq.statement_id(stmt_id) + Writer().short(Tag.CURNAME).short_string(b"c")
            .short(Tag.OPEN).getvalue())
    images = [encode(row) for row in data]
    requests: list[tuple[bytes, int]] = [(Writer().short(Tag.BEGIN).getvalue(), 0)]
    i = 0
    while i < len(images):
        parts, size, start = [head], 0, i
        while i < len(images) and size < PUT_BLOCK:
            width, j = len(images[i]), i
            while j < len(images) and len(images[j]) == width and size < PUT_BLOCK:
                size += width + (width & 1)
                j += 1
            pad = b"\x00" if width & 1 else b""
            parts += [_PUT_HEAD.pack(Tag.PUT, width, j - i), pad.join(images[i:j]) + pad]
            i = j
        requests.append((b"".join(parts), i - start))
    requests.append((rq.COMMIT, 0))
    return [(b"".join(r + b"\x00\x0c" for r, _ in requests[k:k + burst]),
             [c for _, c in requests[k:k + burst]])
            for k in range(0, len(requests), burst)]


def _column_texts(ddl: str) -> list[str]:
    """'name TYPE' of each column of a benchmark table's CREATE TABLE."""
    body = ddl[ddl.index("(") + 1:ddl.rindex(")")]
    cols, depth, cur = [], 0, ""
    for ch in body:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            cols.append(cur.strip())
            cur = ""
        else:
            cur += ch
    cols.append(cur.strip())
    return [c.replace(" NOT NULL", "") for c in cols]


def _one_row_reply() -> bytes:
    """A server's whole reply to an insert of one row: SQ_DONE (1 row),
    SQ_COST, SQ_EOT (what the reference parse below accepts, byte for byte)."""
    w = Writer()
    write_done(w, 1)
    write_cost(w, 0, 0)
    return w.short(Tag.EOT).getvalue()


ONE_ROW_REPLY = _one_row_reply()


def _send_load(sock: socket.socket, bursts: list[tuple[bytes, list[int]]]) -> None:
    """Send each burst, then read one reply per request, each with the row
    count it must report (0: any); any error stops.  A burst of one-row
    inserts is checked first against the exact bytes of its successful
    replies (a floor client must not cost more than the server); any
    difference, as soon as it arrives, sends it through the full parse."""
    buf, pos = b"", 0
    sock.settimeout(60)          # nothing waits forever
    for data, counts in bursts:
        sock.sendall(data)
        if counts and all(c == 1 for c in counts):
            buf, pos, ok = _expect(sock, buf, pos, ONE_ROW_REPLY * len(counts))
            if ok:
                continue
        k = 0
        while k < len(counts):
            reply = Reply()
            try:
                end, done = parse_reply(buf, pos, reply)
            except Exception:  # noqa: BLE001 - incomplete until the reply is whole
                done = False
            if done:
                if reply.error is not None or (counts[k] and reply.done_rows != counts[k]):
                    raise RuntimeError(f"insert failed: {reply.error} "
                                       f"({reply.done_rows} rows for {counts[k]})")
                pos, k = end, k + 1
                continue
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("server closed the connection")
            buf, pos = buf[pos:] + chunk, 0


def _expect(sock: socket.socket, buf: bytes, pos: int, want: bytes) -> tuple[bytes, int, bool]:
    """Read while what arrived is a prefix of ``want``: (buf, pos, True)
    past it when all of it came, else (buf, pos, False) untouched."""
    while len(buf) - pos < len(want):
        if buf[pos:] != want[:len(buf) - pos]:
            return buf, pos, False
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError("server closed the connection")
        buf, pos = buf[pos:] + chunk, 0
    if buf[pos:pos + len(want)] != want:
        return buf, pos, False
    return buf, pos + len(want), True


def ingest(args) -> None:
    """Each table on each path; with ``--baseline-src`` the same loads into
    an emulator of that source tree too, the two trees taking turns."""
    trees = [("", None)] + ([(" [baseline]", args.baseline_src)] if args.baseline_src else [])
    for table in args.table or sorted(TABLES):
        for path in args.path:
            rates: dict[str, list[float]] = {label: [] for label, _ in trees}
            for _ in range(args.repeat):
                for label, src in trees:
                    rates[label] += _ingest_rates(table, path, args, src, 1)
            for label, got in rates.items():
                print(f"ingest {table} via {path}{label}: {args.rows:,} rows: median "
                      f"{statistics.median(got):,.0f} rows/s (min {min(got):,.0f}, "
                      f"max {max(got):,.0f}) over {args.repeat} runs", flush=True)


def _ingest_rates(table: str, path: str, args, src: str | None, repeat: int) -> list[float]:
    """Rows/s of each of ``repeat`` loads of ``table`` through ``path``, each
    into a new table of one emulator (run from the source tree ``src``)."""
    ddl, make = TABLES[table]
    width = 6 if table == "sales" else 5
    data = list(make(args.rows))
    with emulator_process(src=src) as (host, port):
        client = RawClient(host, port)
        rates = []
        for k in range(repeat):
            name = f"ingest{k}"
            client._request(Writer().short(Tag.COMMAND).short(0).int(len(ddl.format(name)))
                            .padded(ddl.format(name).encode()).short(Tag.EXECUTE)
                            .short(Tag.RELEASE))
            sql = f"INSERT INTO {name} VALUES ({', '.join('?' * width)})".encode()
            _, _, tail = client._request(Writer().short(Tag.PREPARE).short(0).int(len(sql))
                                         .padded(sql).short(Tag.NDESCRIBE).short(Tag.WANTDONE))
            stmt_id = struct.unpack_from("!h", tail, 4)[0]
            if path == "put":
                bursts = _put_requests(stmt_id, ddl.format(name), data,
                                       max(1, args.burst // 100))
            else:
                bursts = _bind_requests(stmt_id, data, args.burst)
            t0 = time.perf_counter()
            _send_load(client.sock, bursts)
            rates.append(args.rows / (time.perf_counter() - t0))
            client._request(Writer().short(Tag.ID).short(stmt_id).short(Tag.RELEASE))
            _check_count(client, name, args.rows)
        client.close()
    return rates


def _check_count(client: RawClient, name: str, expected: int) -> None:
    """The load landed whole: the table holds exactly ``expected`` rows."""
    got = client.drain(f"SELECT id FROM {name}")
    if got != expected:
        raise RuntimeError(f"{name} holds {got} rows, {expected} were loaded")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--buffer", type=int, default=64 * 1024)
    ap.add_argument("--table", choices=sorted(TABLES), action="append",
                    help="serve (or --ingest) this table instead of the default run; "
                         "--ingest takes it more than once (default: every table)")
    ap.add_argument("--columns", nargs="*", default=["*"],
                    help="column lists to serve with --table, e.g. '*' 'id, amount'")
    ap.add_argument("--ingest", action="store_true", help="measure loading, not serving")
    ap.add_argument("--burst", type=int, default=1000,
                    help="--ingest: bind requests per send (put: a 100th of it)")
    ap.add_argument("--path", choices=("bind", "put"), nargs="+", default=["bind", "put"],
                    help="--ingest: the load paths to measure")
    ap.add_argument("--baseline-src", metavar="DIR",
                    help="--ingest: also load into an emulator run from this source tree "
                         "(another checkout's src/), taking turns with this one")
    args = ap.parse_args()
    if args.ingest:
        ingest(args)
        return
    if args.table:
        args.table = args.table[0]
        serve(args)
        return
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
