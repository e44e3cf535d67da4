"""Read rate of one large BYTE, TEXT, BLOB and CLOB value through the
driver, as a value and as a stream (``cursor(lob="stream")``, read in
chunks), beside a raw socket copy of the same number of bytes over loopback
in the same run (issue 12: no less than half the raw rate).

    PYTHONPATH=src python bench/lobs/read_rate.py [MB]

The raw client reads from a thread that sends the bytes as fast as
``sendall`` can; the driver reads from the emulator in a child process
(its SQ_FETCHBLOB reply is built whole before it is sent, so the
emulator's own time -- reading SQLite, framing -- is in the driver's
figure).  Each figure is the best of three.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time

import informix_stream as ifx
from informix_stream.emulator.process import spawned


def raw_rate(size: int) -> float:
    listener = socket.create_server(("127.0.0.1", 0))
    payload = os.urandom(1 << 20)

    def serve() -> None:
        conn, _ = listener.accept()
        left = size
        while left > 0:
            chunk = payload[:min(left, len(payload))]
            conn.sendall(chunk)
            left -= len(chunk)
        conn.close()

    t = threading.Thread(target=serve)
    t.start()
    start = time.perf_counter()
    sock = socket.create_connection(listener.getsockname())
    buf = bytearray(256 * 1024)
    got = 0
    while n := sock.recv_into(buf):
        got += n
    elapsed = time.perf_counter() - start
    sock.close()
    t.join()
    listener.close()
    assert got == size
    return size / elapsed


def driver_rate(conn, table: str, column: str, size: int, lob: str) -> float:
    cur = conn.cursor(lob=lob)
    start = time.perf_counter()
    cur.execute(f"SELECT {column} FROM {table}")
    (value,) = cur.fetchone()
    if lob == "stream":
        got = sum(len(chunk) for chunk in value)
    else:
        got = len(value)
    elapsed = time.perf_counter() - start
    cur.close()
    assert got == size, (column, got, size)
    return size / elapsed


def main() -> None:
    size = int(sys.argv[1] if len(sys.argv) > 1 else 50) << 20
    mb = 1 << 20
    with spawned("--database", "bench") as (host, port):
        conn = ifx.connect(host=host, port=port, user="informix", password="in4mix",
                           database="bench", autocommit=True)
        cur = conn.cursor()
        cur.execute("CREATE TABLE big (b BYTE, t TEXT, bl BLOB, cl CLOB)")
        start = time.perf_counter()
        cur.execute("INSERT INTO big (b, t) VALUES (?, ?)",
                    (iter([os.urandom(1 << 20)] * (size >> 20)),
                     ifx.Text(iter([b"x" * (1 << 20)] * (size >> 20)))))
        write = 2 * size / (time.perf_counter() - start)
        # the smart LOBs take the same values, written by the emulator's SQL
        cur.execute("UPDATE big SET bl = b, cl = t")
        rates = {}
        for column, kind in (("b", "BYTE"), ("t", "TEXT"), ("bl", "BLOB"), ("cl", "CLOB")):
            for lob in ("value", "stream"):
                rates[kind, lob] = max(driver_rate(conn, "big", column, size, lob)
                                       for _ in range(3))
        r = max(raw_rate(size) for _ in range(3))
        conn.close()
    print(f"{size // mb} MB values; raw socket {r / mb:.0f} MB/s; "
          f"driver write (iterators, streamed) {write / mb:.0f} MB/s")
    for (kind, lob), d in rates.items():
        print(f"  {kind:4} {lob:6} read {d / mb:6.0f} MB/s  ratio {d / r:.2f}")


if __name__ == "__main__":
    main()
