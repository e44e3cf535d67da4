"""Read rate of one large BYTE, TEXT, BLOB and CLOB value through the driver,
as a value and as a stream (``cursor(lob="stream")``, read in chunks),
against a fair floor measured in the same run (issue 12: the driver reaches
no less than half the floor's rate).

    PYTHONPATH=src python bench/lobs/read_rate.py [MB] [--repeat N]

The floor (as bench/throughput/replay_compare.py does for rows): each
client's conversation is recorded once from the emulator, then replayed
from memory by a server in another process (bench/throughput/replay.py),
so what is timed is the client's own cost, not the emulator's.  The floor
client (``RawLobClient``) is a minimal SQLI client: it logs in, prepares,
opens and fetches the one row, and then sends the same requests the driver
sends for the value (SQ_FETCHBLOB for BYTE/TEXT; ``ifx_lo_open``,
``ifx_lo_stat``, SQ_LODATA reads, ``ifx_lo_close`` for BLOB/CLOB), draining
each reply into one reused buffer: it walks the SQ_BLOB/SQ_LODATA framing
to find the reply's end and keeps no byte of the value.  It sends them one
at a time, where a value read by the driver sends ``ifx_lo_stat`` with its
first read and its ``ifx_lo_close`` with the next statement: two round
trips fewer, some 0.2 ms of a 200 MB read, in the driver's favour.  Each client is timed from its SELECT to its last byte (the login is
not timed), against the replay of its own recording; the figure is the best
of ``--repeat`` runs.

Two more columns: the end-to-end rate from the emulator (what a user of the
emulator sees; the emulator's reading SQLite and framing is in it), and a
raw socket copy of the same number of bytes over loopback (``sendall`` from
a thread, ``recv_into`` a 256 KiB buffer): a reference for the machine, not
a target (a copy that parses nothing is not an SQLI client).

For value mode, two more floors.  ``keeping``: the same client copying
the value's bytes into one buffer of its size.  ``same value`` (the
comparator for a value: what the user gets is ``bytes`` or a ``str``):
the same requests, each reply received straight into one buffer of the
value's size (learnt from the descriptor or ``ifx_lo_stat``, as the driver
learns it), chunk bytes moved down over the framing in cache, handed out
as ``bytes`` without a copy and, for TEXT/CLOB, decoded once into the
``str``.  Handing out a value means writing it into fresh memory, and on
this machine the page faults of that (about 0.4 ms per MB, tens of times a
warm copy) cost more than the whole no-keep floor, so against that floor
no client that returns a value reaches 0.5; TEXT/CLOB pay them twice
(bytes, then the str: lobsinks.py says why a str cannot be built in one
pass reliably, and the floor does not try either).
"""

from __future__ import annotations

import argparse
import io
import os
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "throughput"))
sys.path.insert(0, str(HERE.parent.parent / "src"))

import informix_stream as ifx  # noqa: E402
from informix_stream import fastpath, smartlobs  # noqa: E402
from informix_stream.codec import lob, slob  # noqa: E402
from informix_stream.core import requests as rq  # noqa: E402
from informix_stream.core.session import EOT  # noqa: E402
from informix_stream.emulator.process import spawned  # noqa: E402
from informix_stream.login import LoginRequest, build_login_request, read_sl_pdu  # noqa: E402
from informix_stream.messages import Reply, Tag, parse_reply  # noqa: E402
from replay import record, replay_server  # noqa: E402

DATABASE = "bench"
KINDS = (("b", "BYTE"), ("t", "TEXT"), ("bl", "BLOB"), ("cl", "CLOB"))
_SHORT = struct.Struct("!h")
_LO_HEAD = struct.Struct("!hi")
# Room beyond a value's size in floor_value's buffer, for the reply's framing.
_SLACK = 4096
# client(host, port, column, lob mode) -> (bytes of the value, seconds)
Client = Callable[[str, int, str, str], tuple[int, float]]


def driver(host: str, port: int, column: str, lob: str) -> tuple[int, float]:
    """Our driver, value mode (bytes/str) or stream mode (the reader's chunks)."""
    conn = ifx.connect(host=host, port=port, user="informix", password="in4mix",
                       database=DATABASE, autocommit=True)
    try:
        cur = conn.cursor(lob=lob)
        start = time.perf_counter()
        cur.execute(f"SELECT {column} FROM big")
        (value,) = cur.fetchone()
        got = sum(len(chunk) for chunk in value) if lob == "stream" else len(value)
        seconds = time.perf_counter() - start
        cur.close()
        return got, seconds
    finally:
        conn.close()


class RawLobClient:
    """The floor: the same requests as the driver, no value kept or decoded."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_connection((host, port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.view = memoryview(bytearray(1 << 20))
        self.keep: memoryview | None = None     # where the value goes (floor_keep)
        self.kept = 0
        self.receive_value = False              # floor_value: receive into the value
        self.value: memoryview | None = None
        self.size = 0
        self.handles: dict[str, tuple[bytes, int]] = {}
        self.sock.sendall(build_login_request(LoginRequest("informix", "in4mix", "informix")))
        buf = bytearray()
        while True:
            buf += self._recv()
            try:
                read_sl_pdu(buf)
                break
            except Exception:  # noqa: BLE001 - incomplete until the PDU is whole
                continue
        self.small(rq.protocols(bytes(8)))
        self.small(rq.dbopen(DATABASE.encode()))

    def _recv(self) -> memoryview:
        n = self.sock.recv_into(self.view)
        if not n:
            raise ConnectionError("the server closed the connection")
        return self.view[:n]

    def small(self, body: bytes) -> Reply:
        """A request with a short reply, parsed (row images kept raw)."""
        self.sock.sendall(body + EOT)
        reply, buf, pos = Reply(), bytearray(), 0
        while True:
            buf += self._recv()
            pos, done = parse_reply(buf, pos, reply, lambda b, s, e: (bytes(b[s:e]), e))
            if done:
                if reply.error is not None:
                    raise RuntimeError(f"server error {reply.error}")
                return reply

    def drain(self, body: bytes) -> int:
        """Send ``body``; walk its reply's SQ_BLOB / SQ_LODATA framing to the
        SQ_EOT, keeping nothing (or, with ``keep``, copying the value's bytes
        there); the value bytes it carried."""
        self.sock.sendall(body + EOT)
        head, need, state = bytearray(), 2, "tag"
        skip = payload = lo_left = copy = 0
        keep = self.keep
        while True:
            data = self._recv()
            n, pos = len(data), 0
            while pos < n:
                if skip:
                    k = min(skip, n - pos)
                    if copy:
                        c, at = min(k, copy), self.kept
                        keep[at:at + c] = data[pos:pos + c]
                        self.kept, copy = at + c, copy - c
                    skip -= k
                    pos += k
                    continue
                k = min(need - len(head), n - pos)
                head += data[pos:pos + k]
                pos += k
                if len(head) < need:
                    break
                if state == "tag":
                    tag = _SHORT.unpack(head)[0]
                    if tag == Tag.EOT:
                        if pos != n:
                            raise RuntimeError("bytes after the SQ_EOT")
                        return payload
                    state, need = {Tag.BLOB: ("blob", 2), fastpath.LODATA: ("lohead", 6)}[tag]
                elif state == "lohead":
                    lo_left = _LO_HEAD.unpack(head)[1]
                    state, need = ("chunk", 2) if lo_left > 0 else ("zero", 2)
                else:
                    size = _SHORT.unpack(head)[0]
                    skip, payload = size + (size & 1), payload + size
                    copy = size if keep is not None else 0
                    lo_left -= size
                    state = "chunk" if state == "chunk" and lo_left > 0 else "tag"
                    need = 2
                head.clear()

    def fill(self, body: bytes) -> int:
        """Send ``body``; receive its reply straight into the value's buffer
        ``self.value`` (from ``self.kept`` on), each chunk's bytes moved
        down over the framing received before them: in memory just written,
        so in cache, where receiving each chunk's bytes on their own costs
        two system calls a chunk.  The bytes of the value it carried."""
        self.sock.sendall(body + EOT)
        value, cap = self.value, len(self.value)
        w = q = p = self.kept         # value bytes end, parse position, received end
        state, need, left, skip, lo_left, payload = "tag", 2, 0, 0, 0, 0
        while True:
            if cap - p < 64:          # the framing used up the room: move it down
                value[w:w + p - q] = value[q:p]
                p, q = w + p - q, w
            n = self.sock.recv_into(value[p:])
            if not n:
                raise ConnectionError("the server closed the connection")
            p += n
            while q < p:
                if left or skip:
                    k = min(left, p - q)
                    if k:
                        if q != w:
                            value[w:w + k] = value[q:q + k]
                        w, q, left = w + k, q + k, left - k
                        continue
                    k = min(skip, p - q)
                    q, skip = q + k, skip - k
                    continue
                if p - q < need:
                    break
                if state == "tag":
                    tag = _SHORT.unpack_from(value, q)[0]
                    q += 2
                    if tag == Tag.EOT:
                        if q != p:
                            raise RuntimeError("bytes after the SQ_EOT")
                        self.kept = w
                        return payload
                    state, need = {Tag.BLOB: ("blob", 2), fastpath.LODATA: ("lohead", 6)}[tag]
                elif state == "lohead":
                    lo_left = _LO_HEAD.unpack_from(value, q)[1]
                    q += 6
                    state, need = ("chunk", 2) if lo_left > 0 else ("zero", 2)
                else:
                    size = _SHORT.unpack_from(value, q)[0]
                    q += 2
                    if w + size > self.size:
                        raise RuntimeError("more bytes than the value's size")
                    left, skip, payload = size, size & 1, payload + size
                    lo_left -= size
                    state = "chunk" if state == "chunk" and lo_left > 0 else "tag"
                    need = 2

    def read(self, column: str, stream: bool) -> int:
        reply = self.small(rq.prepare(f"SELECT {column} FROM big".encode(), 0))
        stmt = reply.describe.stmt_id
        reply = self.small(rq.open_cursor(stmt, b"rawcur", [], scroll=False, hold=False,
                                          first_fetch=65536))
        (image,) = reply.rows
        if len(image) == 56:                     # BYTE/TEXT: the blob descriptor
            self.sized(lob.declared_size(image))
            got = self.reply(rq.fetch_blob(stmt, image))
        else:                                    # BLOB/CLOB: the locator, after its envelope
            got = self.read_smart(slob.cell_locator(image[5:], False), stream)
        self.small(rq.release(stmt, True))
        return got

    def sized(self, size: int | None) -> None:
        """For ``floor_value``: the value's buffer, once its size is known
        (calloc'd, as the driver's; ``_SLACK`` more for the reply's framing)."""
        if self.receive_value:
            if size is None:
                raise RuntimeError("the value's size is not known")
            self.out, self.size = io.BytesIO(bytes(size + _SLACK)), size
            self.value = self.out.getbuffer()

    def reply(self, body: bytes) -> int:
        return self.drain(body) if self.value is None else self.fill(body)

    def take_value(self, text: bool) -> bytes | str:
        """The value received by ``fill``: bytes, or for TEXT/CLOB its str
        (one decode of the whole buffer, the cheapest way Python has to make
        a str of it)."""
        self.value.release()
        self.value = None
        if self.kept != self.size:
            raise RuntimeError(f"received {self.kept} of {self.size} bytes")
        self.out.truncate(self.size)
        data = self.out.getvalue()       # no copy: BytesIO hands out its buffer
        self.out = None
        return data.decode("iso-8859-1") if text else data

    def handle(self, signature: str) -> tuple[bytes, int]:
        """A routine's handle, asked once per signature (the driver caches it)."""
        if signature not in self.handles:
            self.handles[signature] = self.small(fastpath.get_routine(signature.encode())).routine
        return self.handles[signature]

    def call(self, signature: str, params: list) -> list:
        db, handle = self.handle(signature)
        blocks = [smartlobs.param_block(p, "iso-8859-1") for p in params]
        return self.small(fastpath.ex_fp_routine(db, handle, blocks)).routine

    def read_smart(self, locator: slob.Locator, stream: bool) -> int:
        if stream:                               # a reader has the close handle first
            self.handle(smartlobs.CLOSE)
        fd = self.call(smartlobs.OPEN, [locator, slob.LO_RDONLY])[0].value
        stat = self.call(smartlobs.STAT, [fd, smartlobs.StatBuffer()])   # the size, as the driver
        self.sized(smartlobs.stat_size([v.value for v in stat]))
        got, ask = 0, smartlobs.READ_SIZE
        while True:
            n = self.reply(fastpath.lo_read(fd, ask))
            got += n
            if n < ask:
                break
            if not stream:                       # a value: 1 MiB first, then larger
                ask = smartlobs.VALUE_READ
        self.call(smartlobs.CLOSE, [fd])
        return got

    def close(self) -> None:
        self.sock.close()


def floor(host: str, port: int, column: str, lob: str) -> tuple[int, float]:
    client = RawLobClient(host, port)
    try:
        start = time.perf_counter()
        got = client.read(column, lob == "stream")
        return got, time.perf_counter() - start
    finally:
        client.close()


def keeping(size: int) -> Client:
    """The floor that also keeps the value: its bytes copied into one buffer
    of the value's size, allocated in the timed part (calloc'd, as the
    driver's): the least any client handing out a value does (no decoding)."""
    def floor_keep(host: str, port: int, column: str, lob: str) -> tuple[int, float]:
        client = RawLobClient(host, port)
        try:
            start = time.perf_counter()
            value = io.BytesIO(bytes(size))
            with value.getbuffer() as client.keep:
                got = client.read(column, lob == "stream")
            client.keep = None
            if client.kept != got:
                raise RuntimeError(f"kept {client.kept} of {got} bytes")
            return got, time.perf_counter() - start
        finally:
            client.close()
    return floor_keep


def floor_value(host: str, port: int, column: str, lob: str) -> tuple[int, float]:
    """The floor that hands out the same value as the driver (bytes, or
    str for TEXT/CLOB) with the least work: the same requests, each reply
    received straight into one buffer of the value's size (learnt as the
    driver learns it: the blob descriptor, ``ifx_lo_stat``), then, for
    TEXT/CLOB, decoded once."""
    client = RawLobClient(host, port)
    client.receive_value = True
    try:
        start = time.perf_counter()
        client.read(column, False)
        value = client.take_value(column in ("t", "cl"))
        got = len(value)
        seconds = time.perf_counter() - start
        del value
        return got, seconds
    finally:
        client.close()


def socket_copy(size: int) -> float:
    """Bytes/s of a plain loopback copy of ``size`` bytes (reference column)."""
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


def best(client: Client, host: str, port: int, column: str, lob: str, size: int,
         repeat: int) -> float:
    rates = []
    for _ in range(repeat):
        got, seconds = client(host, port, column, lob)
        if got != size:
            raise RuntimeError(f"{client.__name__} read {got} bytes of {column}, not {size}")
        rates.append(size / seconds)
    return max(rates)


def load(host: str, port: int, size: int) -> float:
    """The table with one value of each kind; returns the write rate."""
    conn = ifx.connect(host=host, port=port, user="informix", password="in4mix",
                       database=DATABASE, autocommit=True)
    cur = conn.cursor()
    cur.execute("CREATE TABLE big (b BYTE, t TEXT, bl BLOB, cl CLOB)")
    start = time.perf_counter()
    # two statements: the emulator holds a whole request before parsing it,
    # and refuses one over 256 MB (emulator/server.py MAX_PENDING)
    cur.execute("INSERT INTO big (b) VALUES (?)", (iter([os.urandom(1 << 20)] * (size >> 20)),))
    cur.execute("UPDATE big SET t = ?", (ifx.Text(iter([b"x" * (1 << 20)] * (size >> 20))),))
    write = 2 * size / (time.perf_counter() - start)
    cur.execute("UPDATE big SET bl = b, cl = t")    # the smart LOBs: the same values
    conn.close()
    return write


def measure(size: int, repeat: int, kinds: list[str]) -> tuple[float, dict]:
    """(write rate, {(kind, mode): {column name: bytes/s}})."""
    rates: dict = {}
    with spawned("--database", DATABASE) as (host, port):
        write = load(host, port, size)
        for column, kind in KINDS:
            if kind not in kinds:
                continue
            for lob in ("value", "stream"):
                row = rates[kind, lob] = {}
                row["end to end"] = best(driver, host, port, column, lob, size, repeat)
                clients = [("driver", driver), ("floor", floor)]
                if lob == "value":
                    clients += [("keep", keeping(size)), ("same value", floor_value)]
                for name, client in clients:
                    recording = record(lambda h, p, c=client: c(h, p, column, lob), host, port)
                    with replay_server(recording) as (rh, rp):
                        row[name] = best(client, rh, rp, column, lob, size, repeat)
                    del recording
    return write, rates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mb", nargs="?", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--kinds", nargs="*", default=[k for _, k in KINDS],
                    choices=[k for _, k in KINDS])
    args = ap.parse_args()
    size, mb = args.mb << 20, 1 << 20
    write, rates = measure(size, args.repeat, args.kinds)
    copy = max(socket_copy(size) for _ in range(args.repeat))
    print(f"{args.mb} MB values, best of {args.repeat}; driver write (iterators, "
          f"streamed) {write / mb:.0f} MB/s; socket copy {copy / mb:.0f} MB/s")
    print("  kind mode    driver(replay)  floor(replay)  ratio  end-to-end  /socket copy"
          "  keep-floor  ratio  same-value floor  ratio")
    for (kind, lob), row in rates.items():
        extra = "".join(f"  {row[name] / mb:{w}.0f} MB/s  {row['driver'] / row[name]:5.2f}"
                        for name, w in (("keep", 5), ("same value", 11)) if name in row)
        print(f"  {kind:4} {lob:6} {row['driver'] / mb:9.0f} MB/s {row['floor'] / mb:9.0f} MB/s"
              f"  {row['driver'] / row['floor']:5.2f} {row['end to end'] / mb:6.0f} MB/s"
              f"  {row['driver'] / copy:6.2f}{extra}")

if __name__ == "__main__":
    main()
