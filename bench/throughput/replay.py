"""The replay floor: a server that answers a client from replies recorded from
the emulator, at memory speed, so a client faster than the emulator can
still be measured against something that is not the client's bottleneck.

* ``record(run_client, host, port)`` puts a recording proxy between a
  client and the emulator and keeps every request with its reply, cut at
  the protocol's own boundaries (the login PDU, then one request up to its
  SQ_EOT and one reply up to its SQ_EOT).
* ``replay_server(recording)`` runs a server in a child process (its CPU
  is not the client's) that, for each connection, expects the recorded
  requests byte for byte, in order, and answers each with its recorded
  reply.  A request that differs (another client, another query, another
  fetch size) ends the connection and is reported on stderr, so a client
  cannot be timed against answers meant for a different conversation.  The
  login request is compared by its fields (user, database), not its bytes:
  it carries the client's process id.

One recording per client strategy: each client's conversation is its own.
Run this file as ``python replay.py serve FILE`` to serve a saved recording.
"""

from __future__ import annotations

import os
import pickle
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent.parent / "src"
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from informix_stream import codecs  # noqa: E402
from informix_stream.framing import Incomplete  # noqa: E402
from informix_stream.login import parse_login_request, read_sl_pdu  # noqa: E402
from informix_stream.messages import Reply, parse_reply, parse_request  # noqa: E402

Recording = list[tuple[bytes, bytes]]       # (request, reply), login first


def _skip_row(buf, start: int, stop: int):
    return None, stop


class _Cutter:
    """Cuts one direction of the stream into protocol units as bytes arrive."""

    def __init__(self, cut: Callable[[bytearray], int | None]) -> None:
        self.buf = bytearray()
        self.units: list[bytes] = []
        self._cut = cut
        self._login = True

    def feed(self, data: bytes) -> None:
        self.buf += data
        while self.buf:
            if self._login:
                try:
                    used = read_sl_pdu(self.buf)[2]
                except Incomplete:
                    return
                self._login = False
            else:
                used = self._cut(self.buf)
                if used is None:
                    return
            self.units.append(bytes(self.buf[:used]))
            del self.buf[:used]


def _cut_request(buf: bytearray) -> int | None:
    try:
        return parse_request(buf, 0, codecs.read_param)[1]
    except Incomplete:
        return None


class _Sink:
    """Counts a recorded reply's SQ_BLOB bytes without keeping them."""

    __slots__ = ("size",)

    def __init__(self) -> None:
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def __iadd__(self, data) -> _Sink:
        self.size += len(data)
        return self


class _ReplyCutter:
    """Cuts replies where their SQ_EOT is, resuming where the last piece
    stopped: a 200 MB SQ_FETCHBLOB reply arrives in hundreds of pieces and
    must not be parsed again from its start for each (bench/lobs)."""

    def __init__(self) -> None:
        self._start()

    def _start(self) -> None:
        self.reply = Reply()
        # any SQ_BLOB chunks or SQ_LODATA read a recorded reply may carry
        self.reply.blob, self.reply.blob_limit, self.reply.lo_wanted = _Sink(), 1 << 62, 1 << 62
        self.pos = 0

    def __call__(self, buf: bytearray) -> int | None:
        pos, done = parse_reply(buf, self.pos, self.reply, _skip_row, 1 << 30)
        if done or self.reply.exited:
            self._start()
            return pos
        self.pos = pos
        return None


def _pump(src: socket.socket, dst: socket.socket, cutter: _Cutter) -> None:
    try:
        while True:
            data = src.recv(1 << 20)
            if not data:
                break
            cutter.feed(data)
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def record(run_client: Callable[[str, int], object], host: str, port: int) -> Recording:
    """Run ``run_client(proxy_host, proxy_port)`` through a recording proxy to
    the server at (host, port); the client must use one connection."""
    listener = socket.create_server(("127.0.0.1", 0))
    requests, replies = _Cutter(_cut_request), _Cutter(_ReplyCutter())
    threads: list[threading.Thread] = []

    def accept() -> None:
        client, _ = listener.accept()
        upstream = socket.create_connection((host, port))
        for s in (client, upstream):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pumps = [threading.Thread(target=_pump, args=(client, upstream, requests)),
                 threading.Thread(target=_pump, args=(upstream, client, replies))]
        for t in pumps:
            t.start()
        for t in pumps:
            t.join(600)
        client.close()
        upstream.close()

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    threads.append(acceptor)
    try:
        run_client(*listener.getsockname()[:2])
    finally:
        acceptor.join(60)
        listener.close()
    if acceptor.is_alive():
        raise RuntimeError("the recording proxy did not finish")
    if requests.buf or replies.buf or len(requests.units) != len(replies.units):
        raise RuntimeError(f"recording out of step: {len(requests.units)} requests, "
                           f"{len(replies.units)} replies, {len(requests.buf)}/"
                           f"{len(replies.buf)} bytes left over")
    return list(zip(requests.units, replies.units))


def _login_fields(pdu: bytes) -> tuple:
    req = parse_login_request(read_sl_pdu(pdu)[1])
    return req.user, req.password, req.database


class Mismatch(Exception):
    """The client sent something other than the recorded request."""


def serve_one(conn: socket.socket, recording: Recording) -> None:
    """Answer one connection from ``recording``; Mismatch if it strays."""
    buf = bytearray()
    recv = conn.recv_into
    chunk = bytearray(1 << 20)
    view = memoryview(chunk)

    def need(n: int) -> None:
        while len(buf) < n:
            got = recv(view)
            if not got:
                raise Mismatch(f"the client closed after {len(buf)} of {n} bytes")
            buf.extend(view[:got])

    login_req, login_reply = recording[0]
    while True:
        try:
            used = read_sl_pdu(buf)[2]
            break
        except Incomplete:
            need(len(buf) + 1)
    if _login_fields(bytes(buf[:used])) != _login_fields(login_req):
        raise Mismatch("the login request differs from the recorded one")
    del buf[:used]
    conn.sendall(login_reply)
    for i, (request, reply) in enumerate(recording[1:], 1):
        need(len(request))
        if buf[:len(request)] != request:
            raise Mismatch(f"request {i} differs from the recorded one: "
                           f"got {bytes(buf[:60]).hex()}, recorded {request[:60].hex()}")
        del buf[:len(request)]
        conn.sendall(reply)
    if buf:
        raise Mismatch(f"{len(buf)} bytes beyond the recorded conversation")


def serve_forever(recording: Recording, listener: socket.socket) -> None:
    while True:
        conn, _ = listener.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            serve_one(conn, recording)
        except Mismatch as exc:
            print(f"REPLAY MISMATCH: {exc}", file=sys.stderr, flush=True)
        except OSError as exc:
            print(f"replay: connection ended: {exc}", file=sys.stderr, flush=True)
        finally:
            conn.close()


@contextmanager
def replay_server(recording: Recording) -> Iterator[tuple[str, int]]:
    """A replay server for ``recording`` in a child process; yields (host, port)."""
    with tempfile.NamedTemporaryFile(suffix=".replay", delete=False) as f:
        pickle.dump(recording, f, protocol=pickle.HIGHEST_PROTOCOL)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.Popen([sys.executable, __file__, "serve", f.name],
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        if not line.startswith("listening on "):
            raise RuntimeError(f"the replay server did not start ({line!r})")
        host, port = line.split()[-1].rsplit(":", 1)
        yield host, int(port)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        os.unlink(f.name)


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] != "serve":
        sys.exit("usage: replay.py serve RECORDING")
    with open(sys.argv[2], "rb") as f:
        recording = pickle.load(f)
    listener = socket.create_server(("127.0.0.1", 0))
    host, port = listener.getsockname()[:2]
    print(f"listening on {host}:{port}", flush=True)
    serve_forever(recording, listener)


if __name__ == "__main__":
    main()
