"""Servers that lie: a scripted SQLI server and a TLS impostor.

``HostileServer`` logs a client in and answers every request with the
emulator's own ``Session`` (so statements, cursors and descriptions are
real), except that ``tamper(messages, reply)`` may replace a reply with a
script of crafted bytes, pauses, a close, or silence.  Reply layouts are
those of docs/protocol.md (``tuple``, ``done`` and ``eot`` build them).

``Impostor`` is a TLS listener with a self-signed certificate that records
every decrypted byte a client sends it: a client that verifies certificates
must never let the login PDU, and with it the password, reach it.
"""

from __future__ import annotations

import socket
import ssl
import struct
import threading
from collections.abc import Callable
from typing import Any

from informix_stream import codecs
from informix_stream.emulator.engine import Engine
from informix_stream.emulator.server import SERVER_SERIAL, SERVER_VERSION
from informix_stream.emulator.session import Session
from informix_stream.errors import ProtocolError
from informix_stream.framing import Incomplete, Writer
from informix_stream.login import build_login_reply, parse_login_request, read_sl_pdu
from informix_stream.messages import NFetch, Tag, parse_request, write_done

CLOSE, SILENCE = "close", "silence"
Script = list  # of bytes (send), float (sleep), CLOSE or SILENCE

# -- reply pieces --------------------------------------------------------------


def tuple_msg(size: int, payload: bytes) -> bytes:
    """SQ_TUPLE with a declared ``size`` that need not match ``payload``."""
    data = struct.pack("!hhi", Tag.TUPLE, 0, size) + payload
    return data + (b"\x00" if len(payload) & 1 else b"")


def done(rows: int = 0) -> bytes:
    w = Writer()
    write_done(w, rows)
    return w.getvalue()


def eot() -> bytes:
    return struct.pack("!h", Tag.EOT)


def is_fetch(messages: list) -> bool:
    return any(isinstance(m, NFetch) for m in messages)


def is_later_fetch(messages: list) -> bool:
    """A fetch that is not an OPEN's first one: its rows are read the way the
    cursor reads by then (an Arrow cursor's bulk path, say), not at execute."""
    return is_fetch(messages) and Tag.OPEN not in messages


# -- the scripted server ------------------------------------------------------------


class HostileServer:
    """See the module docstring.  ``tamper`` may be set (or reset) at any time;
    ``requests`` lists every request's messages, in arrival order."""

    def __init__(self, login_reply: Script | None = None) -> None:
        """``login_reply``: a script to answer the login with instead of an accept."""
        self.login_reply = login_reply
        self.engine = Engine(["testdb"], None)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self.host, self.port = self._listener.getsockname()[:2]
        self.tamper: Callable[[list, bytes], Script | None] | None = None
        self.requests: list[list] = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._socks: list[socket.socket] = []

    def __enter__(self) -> HostileServer:
        t = threading.Thread(target=self._accept, name="hostile", daemon=True)
        t.start()
        self._threads.append(t)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._listener.close()
        for s in list(self._socks):
            _close(s)
        for t in self._threads:
            t.join(timeout=5)
        self.engine.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._socks.append(sock)
            t = threading.Thread(target=self._serve, args=(sock,), daemon=True)
            t.start()
            self._threads.append(t)

    def _serve(self, sock: socket.socket) -> None:
        session = Session(self.engine, version=SERVER_VERSION)
        try:
            buf = self._login(sock)
            self._loop(sock, buf, session)
        except (OSError, ProtocolError, Incomplete):
            pass
        finally:
            session.close()
            _close(sock)

    def _login(self, sock: socket.socket) -> bytearray:
        buf = bytearray()
        while True:
            try:
                _, body, used = read_sl_pdu(buf)
                break
            except Incomplete:
                if not _recv(sock, buf):
                    raise OSError("client left during login")
        req = parse_login_request(body)
        if self.login_reply is not None:
            self._play(sock, self.login_reply)
            raise OSError("scripted login reply played")
        sock.sendall(build_login_reply(accepted=True, version=SERVER_VERSION,
                                       serial=SERVER_SERIAL, caps=req.caps))
        del buf[:used]
        return buf

    def _loop(self, sock: socket.socket, buf: bytearray, session: Session) -> None:
        while not self._stop.is_set():
            try:
                messages, end = parse_request(buf, 0, codecs.read_param)
            except Incomplete:
                if not _recv(sock, buf):
                    return
                continue
            del buf[:end]
            self.requests.append(messages)
            reply = session.handle(messages)
            script = self.tamper(messages, reply) if self.tamper is not None else None
            if script is None:
                sock.sendall(reply)
                continue
            if not self._play(sock, script):
                return
            if session.finished:
                return

    def _play(self, sock: socket.socket, script: Script) -> bool:
        for step in script:
            if step == CLOSE:
                return False
            if step == SILENCE:
                self._stop.wait()
                return False
            if isinstance(step, float):
                self._stop.wait(step)
            else:
                sock.sendall(step)
        return True


def _recv(sock: socket.socket, buf: bytearray) -> bool:
    data = sock.recv(65536)
    buf += data
    return bool(data)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


# -- the TLS impostor ---------------------------------------------------------------


class Impostor:
    """A TLS server that answers nothing and keeps what clients send it."""

    def __init__(self, cert: str, key: str) -> None:
        self.ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ctx.load_cert_chain(cert, key)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self.host, self.port = self._listener.getsockname()[:2]
        self.received = bytearray()
        self.handshakes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> Impostor:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._listener.close()
        self._thread.join(timeout=5)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                raw, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            raw.settimeout(2)
            try:
                with self.ctx.wrap_socket(raw, server_side=True) as tls:
                    self.handshakes += 1
                    while data := tls.recv(65536):
                        self.received += data
            except (OSError, ssl.SSLError):
                pass
            finally:
                raw.close()
