"""One consumer, measured in a fresh process: prints one JSON line.

    python bench/memory/consumer.py CONSUMER N HOST PORT [--range LO HI] [--wait-go]

A fresh interpreter per measurement, so that no consumer inherits another's
heap, imports or allocator state.  The baseline is taken after connecting
(and after a garbage collection), immediately before the statement runs;
growth is the peak RSS sampled while rows flow, minus that baseline.

``--wait-go`` lets a parent start several consumers at once (the strategy
lab's fan-out): the consumer connects, prints ``ready``, and starts only when
a line arrives on stdin, so process start-up is not part of the timing.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import RssSampler, Target, select_for, target_at  # noqa: E402

from common import DDL, SHAPES, TABLE, RawClient, rows, sales_row  # noqa: E402

FETCHMANY = 10_000

# A consumer, set up and connected: something to close, and the measured work.
Prepared = tuple[Any, Callable[[RssSampler], None]]


def _iterate(cur, s: RssSampler) -> None:
    for s.rows, _ in enumerate(cur, 1):
        pass


def stream_iterate(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    conn = t.ours()
    cur = conn.cursor()

    def run(s: RssSampler) -> None:
        cur.execute(sql, params)
        _iterate(cur, s)
    return conn, run


def stream_fetchmany(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    conn = t.ours()
    cur = conn.cursor()

    def run(s: RssSampler) -> None:
        cur.execute(sql)
        while batch := cur.fetchmany(FETCHMANY):
            s.rows += len(batch)
    return conn, run


ARROW_BATCH_ROWS = 16_384


def arrow_batches(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    """fetch_arrow_batches(ARROW_BATCH_ROWS): each RecordBatch dropped once
    counted.  numpy and pyarrow are imported before the baseline (their
    import is not the rows').  A batch is smaller than the check's smallest
    table, so growth is one batch's working set at every size."""
    import numpy  # noqa: F401
    import pyarrow
    # pyarrow imports pandas, when installed, the first time it converts a
    # Python list (its pandas shim): ~50 MiB of import, not the rows'
    pyarrow.array([0])
    conn = t.ours()
    # One small batch of the same statement before the baseline: the first
    # decode maps pyarrow's and numpy's kernels for these types into memory
    # (3-4 MiB that came or not at 20k rows from one CI run to the next,
    # 7.7 / 11.0 MiB), code pages, not the rows'.
    warm = conn.cursor()
    warm.execute(sql, params)
    next(warm.fetch_arrow_batches(batch_rows=64))
    warm.close()
    cur = conn.cursor()

    def run(s: RssSampler) -> None:
        cur.execute(sql, params)
        for batch in cur.fetch_arrow_batches(batch_rows=ARROW_BATCH_ROWS):
            s.rows += batch.num_rows
            del batch       # a consumer done with a batch: issue 13 allows one batch
    return conn, run


def materialize(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    conn = t.ours()
    cur = conn.cursor(materialize=True)
    kept: list = []

    def run(s: RssSampler) -> None:
        cur.execute(sql)
        kept.append(cur.fetchall())   # alive until the sampler's last sample
        s.rows = len(kept[0])
    return conn, run


def informix_driver(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    """informix-driver reads the whole result during execute; iterating walks that list."""
    conn = t.theirs()
    cur = conn.cursor()

    def run(s: RssSampler) -> None:
        cur.execute(sql)
        _iterate(cur, s)
    return conn, run


def executemany(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    """Loads n generated rows into a fresh table in one transaction."""
    conn = t.ours()
    table = f"em_{n}_{os.getpid()}"
    cur = conn.cursor()
    cur.execute(DDL.replace(TABLE, table))
    conn.commit()

    def counted(s: RssSampler):
        for s.rows, row in enumerate(rows(n), 1):
            yield row

    def run(s: RssSampler) -> None:
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)", counted(s))
        conn.commit()
        s.rows = cur.rowcount
    return _Dropping(conn, table), run


def _sales_table(t: Target, n: int) -> tuple[Any, str]:
    conn = t.ours()
    table = f"ld_{n}_{os.getpid()}"
    conn.cursor().execute(f"CREATE TABLE {table} ({SHAPES['sales'][0]})")
    conn.commit()
    return conn, table


def load_sales(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    """The sales table (DECIMAL, DATETIME, NULLs) loaded from a generator by
    executemany's default path (the insert cursor), in one transaction."""
    conn, table = _sales_table(t, n)
    cur = conn.cursor()

    def counted(s: RssSampler):
        for s.rows, i in enumerate(range(n), 1):
            yield sales_row(i)

    def run(s: RssSampler) -> None:
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?)", counted(s))
        conn.commit()
        s.rows = cur.rowcount
    return _Dropping(conn, table), run


def load_sales_arrow(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    """The sales table loaded by load_arrow from a pyarrow Table built before
    the baseline: growth is the load's working set, not the source's."""
    import pyarrow as pa
    cols = list(zip(*map(sales_row, range(n))))
    source = pa.table({"id": pa.array(cols[0], pa.int32()), "sku": pa.array(cols[1]),
                       "amount": pa.array(cols[2], pa.decimal128(12, 2)),
                       "sold": pa.array(cols[3], pa.timestamp("s")),
                       "day": pa.array(cols[4], pa.date32()), "note": pa.array(cols[5])})
    del cols
    conn, table = _sales_table(t, n)
    cur = conn.cursor()

    def run(s: RssSampler) -> None:
        cur.load_arrow(table, source)
        conn.commit()
        s.rows = cur.rowcount
    return _Dropping(conn, table), run


# Fan-out strategies read the table as this many id ranges, with at most
# WORKERS connections (threads or tasks) at a time.
WORKERS = int(os.environ.get("BENCH_WORKERS", "4"))
RANGES = 4 * WORKERS


def _ranges(n: int) -> list[tuple[int, int]]:
    bounds = [n * i // RANGES for i in range(RANGES + 1)]
    return list(zip(bounds, bounds[1:]))


def _connect_kwargs(t: Target) -> dict:
    return dict(host=t.host, port=t.port, user=t.user, password=t.password,
                database=t.database, server=t.server)


def pooled_sync(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    """Threads over a ConnectionPool of WORKERS connections, one range each."""
    import threading

    import informix_stream
    pool = informix_stream.ConnectionPool(min_size=WORKERS, max_size=WORKERS,
                                          **_connect_kwargs(t))
    ranged = sql + " WHERE id >= ? AND id < ?"

    def run(s: RssSampler) -> None:
        todo = _ranges(n)
        lock = threading.Lock()

        def worker() -> None:
            while True:
                with lock:
                    if not todo:
                        return
                    lo_hi = todo.pop()
                with pool.connection() as conn:
                    count = sum(1 for _ in conn.execute(ranged, lo_hi))
                with lock:
                    s.rows += count
        threads = [threading.Thread(target=worker) for _ in range(WORKERS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    return pool, run


class _AsyncCloser:
    def __init__(self, loop, closer) -> None:
        self.loop, self.closer = loop, closer

    def close(self) -> None:
        self.loop.run_until_complete(self.closer())
        self.loop.close()


def async_stream(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    """One AsyncConnection, ``async for`` over the whole table."""
    import asyncio

    import informix_stream
    loop = asyncio.new_event_loop()
    conn = loop.run_until_complete(informix_stream.connect_async(**_connect_kwargs(t)))

    async def go(s: RssSampler) -> None:
        cur = conn.cursor()
        await cur.execute(sql, params)
        async for _ in cur:
            s.rows += 1

    return _AsyncCloser(loop, conn.close), lambda s: loop.run_until_complete(go(s))


def async_fanout(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    """RANGES tasks over an AsyncConnectionPool of WORKERS connections."""
    import asyncio

    import informix_stream
    loop = asyncio.new_event_loop()
    pool = informix_stream.AsyncConnectionPool(min_size=WORKERS, max_size=WORKERS,
                                               **_connect_kwargs(t))
    loop.run_until_complete(pool.open())
    ranged = sql + " WHERE id >= ? AND id < ?"

    async def one(lo_hi, s: RssSampler) -> None:
        async with pool.connection() as conn:
            cur = conn.cursor()
            await cur.execute(ranged, lo_hi)
            count = 0
            async for _ in cur:
                count += 1
        s.rows += count

    async def go(s: RssSampler) -> None:
        await asyncio.gather(*(one(r, s) for r in _ranges(n)))

    return _AsyncCloser(loop, pool.close), lambda s: loop.run_until_complete(go(s))


def floor(t: Target, sql: str, params: tuple, n: int) -> Prepared:
    client = RawClient(t.host, t.port)

    def run(s: RssSampler) -> None:
        s.rows = client.drain(sql)
    return client, run


# The LOB consumers read one value of LOB_BYTES_PER_ROW * n bytes (1M "rows":
# 200 MB), written from a generator before the baseline, as a stream.
LOB_BYTES_PER_ROW = 200
_PIECE = 1 << 20


def _lob_table(t: Target, n: int, kind: str) -> tuple[Any, str]:
    """A table holding one value of n * LOB_BYTES_PER_ROW bytes in column
    ``v`` (BLOB/CLOB: copied by the server from a BYTE/TEXT written from a
    generator, so no Python process holds the value)."""
    conn = t.ours()
    table = f"lob_{n}_{os.getpid()}"
    simple = {"BLOB": "BYTE", "CLOB": "TEXT"}.get(kind, kind)
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {table} (s {simple}, v {kind})")
    size = n * LOB_BYTES_PER_ROW
    pieces = (b"x" * min(_PIECE, size - at) for at in range(0, size, _PIECE))
    import informix_stream as ifx
    value = ifx.Text(pieces) if simple == "TEXT" else pieces
    cur.execute(f"INSERT INTO {table} (s) VALUES (?)", (value,))
    cur.execute(f"UPDATE {table} SET v = s")
    conn.commit()
    # The first SELECT of a process builds the row decoders' shared tables
    # (codec/packedcells._quads, about 0.8 MiB, once per process): built
    # here, before the baseline, they are not counted as the value's.
    cur.execute(f"SELECT v FROM {table} WHERE 1 = 0")
    cur.fetchall()
    return conn, table


def _lob_stream(kind: str) -> Callable[[Target, str, tuple, int], Prepared]:
    def consumer(t: Target, sql: str, params: tuple, n: int) -> Prepared:
        conn, table = _lob_table(t, n, kind)
        cur = conn.cursor(lob="stream")

        def run(s: RssSampler) -> None:
            cur.execute(f"SELECT v FROM {table}")
            (reader,) = cur.fetchone()
            got = sum(len(chunk) for chunk in reader)
            cur.close()
            assert got == n * LOB_BYTES_PER_ROW, got
            s.rows = n
        return _Dropping(conn, table), run
    consumer.__doc__ = f"One {kind} of n * {LOB_BYTES_PER_ROW} bytes read as a stream."
    return consumer


def _lob_write(kind: str, many: bool) -> Callable[[Target, str, tuple, int], Prepared]:
    """Write one value of n * LOB_BYTES_PER_ROW bytes from a generator of
    1 MiB pieces: with ``execute`` (``many`` False) or as the one row of an
    ``executemany`` (True).  The value must stream: growth about a piece."""
    def consumer(t: Target, sql: str, params: tuple, n: int) -> Prepared:
        import informix_stream as ifx
        conn = t.ours()
        table = f"lobw_{n}_{os.getpid()}"
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {table} (id INTEGER, v {kind})")
        conn.commit()
        size = n * LOB_BYTES_PER_ROW

        def run(s: RssSampler) -> None:
            pieces = (b"x" * min(_PIECE, size - at) for at in range(0, size, _PIECE))
            value = ifx.Text(pieces) if kind in ("TEXT", "CLOB") else pieces
            insert = f"INSERT INTO {table} VALUES (?, ?)"
            if many:
                cur.executemany(insert, [(1, value)])
            else:
                cur.execute(insert, (1, value))
            conn.commit()
            s.rows = n
            cur.execute(f"SELECT LENGTH(v) FROM {table}" if kind in ("BYTE", "TEXT")
                        else f"SELECT id FROM {table}")
            got = cur.fetchall()
            assert got == [(size,)] if kind in ("BYTE", "TEXT") else got == [(1,)], got
        return _Dropping(conn, table), run
    consumer.__doc__ = (f"One {kind} of n * {LOB_BYTES_PER_ROW} bytes written from a "
                        f"generator with {'executemany' if many else 'execute'}.")
    return consumer


def _lob_readinto(kind: str) -> Callable[[Target, str, tuple, int], Prepared]:
    def consumer(t: Target, sql: str, params: tuple, n: int) -> Prepared:
        conn, table = _lob_table(t, n, kind)
        cur = conn.cursor(lob="stream")
        buf = bytearray(_PIECE)                # the caller's buffer, before the baseline

        def run(s: RssSampler) -> None:
            cur.execute(f"SELECT v FROM {table}")
            (reader,) = cur.fetchone()
            got = 0
            while k := reader.readinto(buf):
                got += k
            cur.close()
            assert got == n * LOB_BYTES_PER_ROW, got
            s.rows = n
        return _Dropping(conn, table), run
    consumer.__doc__ = (f"One {kind} of n * {LOB_BYTES_PER_ROW} bytes read with readinto "
                        "into one 1 MiB buffer.")
    return consumer


class _Dropping:
    """Closes the connection after dropping the table the consumer filled."""

    def __init__(self, conn, table: str) -> None:
        self.conn, self.table = conn, table

    def close(self) -> None:
        self.conn.cursor().execute(f"DROP TABLE {self.table}")
        self.conn.commit()
        self.conn.close()


CONSUMERS: dict[str, Callable[[Target, str, tuple, int], Prepared]] = {
    "stream-iterate": stream_iterate,
    "stream-fetchmany": stream_fetchmany,
    "arrow-batches": arrow_batches,
    "materialize": materialize,
    "informix-driver": informix_driver,
    "executemany": executemany,
    "load-sales": load_sales,
    "load-sales-arrow": load_sales_arrow,
    "floor": floor,
    "pooled-sync": pooled_sync,
    "async-stream": async_stream,
    "async-fanout": async_fanout,
    "blob-stream": _lob_stream("BLOB"),
    "text-stream": _lob_stream("TEXT"),
    "blob-readinto": _lob_readinto("BLOB"),
    "blob-write": _lob_write("BLOB", many=False),
    "text-write": _lob_write("TEXT", many=True),
}


def measure(name: str, n: int, t: Target, sql: str, params: tuple, wait_go: bool) -> dict:
    closer, run = CONSUMERS[name](t, sql, params, n)
    gc.collect()
    if wait_go:
        print("ready", flush=True)
        sys.stdin.readline()
    sampler = RssSampler()
    baseline = sampler.rss()
    start = time.time()
    t0 = time.perf_counter()
    with sampler:
        run(sampler)
    seconds = time.perf_counter() - t0
    end = time.time()
    closer.close()
    peak = sampler.peak
    return {
        "consumer": name, "n": n, "rows": sampler.rows, "seconds": seconds,
        "rows_per_s": sampler.rows / seconds if seconds else 0.0,
        "start": start, "end": end,
        "baseline": baseline, "peak": peak, "growth": peak - baseline,
        "sample_count": sampler.count,
        "mean_interval_ms": 1000 * seconds / sampler.count,
        "samples": sampler.samples,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("consumer", choices=CONSUMERS)
    ap.add_argument("n", type=int, help="rows in the table (names the table, bench_rows_<n>)")
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("--range", nargs=2, type=int, metavar=("LO", "HI"),
                    help="stream-iterate only ids LO <= id < HI (one worker of a fan-out)")
    ap.add_argument("--wait-go", action="store_true")
    args = ap.parse_args()
    if args.range and args.consumer != "stream-iterate":
        ap.error("--range is for stream-iterate")
    sql, params = select_for(args.n), ()
    if args.range:
        sql, params = sql + " WHERE id >= ? AND id < ?", tuple(args.range)
    result = measure(args.consumer, args.n, target_at(args.host, args.port), sql, params,
                     args.wait_go)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
