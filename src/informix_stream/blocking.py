"""Blocking I/O for the client core: a socket, and the loop that runs operations.

``BlockingIO.run(op)`` drives one generator operation (``core``) to its end:
whenever the operation waits for a reply, the queued request bytes go out and
received bytes go into the ``ClientSession`` until that reply is complete.
Sending never blocks while replies may be arriving (poll() on both
directions once the output is large), so a pipelined burst cannot deadlock
with a server whose replies fill our receive buffer.

Whatever interrupts a run (KeyboardInterrupt, a signal handler's exception,
SystemExit, a timeout) leaves the session either at a point it can account
for or marked broken (``ClientSession.end_op``): the next call then fails
clearly instead of reading an earlier statement's reply.
"""

from __future__ import annotations

import os
import socket
import ssl
from collections.abc import Generator
from typing import Any

from .core.session import FLUSH, ClientSession
from .errors import OperationalError
from .sockready import ready

RECV_SIZE = 256 * 1024
# Output up to this size is sent with a plain blocking send: a socket buffer
# takes it at once, so it cannot deadlock against incoming replies.
_SMALL_SEND = 64 * 1024
# SQLI's cancel: one byte of TCP urgent data (IBM JDBC asf.Connection.sOOBSocket).
CANCEL_BYTE = b"\x42"


def open_socket(host: str, port: int, *, connect_timeout: float | None,
                tls: ssl.SSLContext | None, server_hostname: str | None,
                keepalive: bool) -> socket.socket:
    """Connect, and wrap in TLS when asked."""
    try:
        raw = socket.create_connection((host, port), timeout=connect_timeout)
    except OSError as exc:
        raise OperationalError(f"cannot connect to {host}:{port}: {exc}") from exc
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if keepalive:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    if tls is None:
        return raw
    try:
        sock = tls.wrap_socket(raw, server_hostname=server_hostname or host)
    except (OSError, ssl.SSLError, ValueError) as exc:
        raw.close()
        raise OperationalError(f"TLS handshake with {host}:{port} failed: {exc}") from exc
    return sock


def transport_failure(session: ClientSession, exc: BaseException) -> OperationalError:
    """A socket failure or timeout: the stream's position is lost, so the
    session is broken; the error to raise says which it was."""
    if isinstance(exc, (TimeoutError, socket.timeout)):
        why = f"timed out waiting for the server: {exc}"
    else:
        why = f"connection to the server failed: {exc}"
    session.mark_broken(why)
    return OperationalError(why)


def close_quietly(op: Generator[Any, None, Any]) -> None:
    """Close an operation cut short; what its cleanup raises cannot replace
    the exception that cut it."""
    try:
        op.close()
    except BaseException:  # noqa: BLE001 - the original exception is the one to raise
        pass


def send_cancel(sock: socket.socket) -> None:
    """Send the urgent byte on the TCP connection beneath any TLS layer: on a
    duplicate of the descriptor, so the TLS object's state is not touched."""
    dup = socket.socket(fileno=os.dup(sock.fileno()))
    try:
        dup.send(CANCEL_BYTE, socket.MSG_OOB)
    finally:
        dup.close()




class BlockingIO:
    """Moves bytes between one socket and one ClientSession."""

    def __init__(self, sock: socket.socket, session: ClientSession) -> None:
        self.sock = sock
        self.session = session
        self.timeout = sock.gettimeout()
        self._scratch = bytearray(RECV_SIZE)
        self._view = memoryview(self._scratch)

    def run(self, op: Generator[Any, None, Any]) -> Any:
        """Drive ``op`` to its end and return its value (see module docstring)."""
        session = self.session
        session.check()
        session.begin_op()
        step = None
        try:
            try:
                step = next(op)
                while True:
                    self._until(step)
                    step = op.send(None)
            except StopIteration as stop:
                if session.data_to_send():
                    self._flush()
                result = stop.value
        except BaseException as exc:
            close_quietly(op)       # the operation's own cleanup runs now, not at GC
            session.end_op(exc, step)
            if session.broken is not None:
                self.close()
            raise
        session.end_op(None)
        return result

    def _until(self, step) -> None:
        """Do I/O until ``step`` (an Expect) is done, or all is sent (FLUSH)."""
        session = self.session
        if step is FLUSH:
            self._flush()
            return
        if session.data_to_send():
            self._flush()
        while not step.done:
            self._recv()

    def _flush(self) -> None:
        session = self.session
        out = session.data_to_send()
        while out:
            if len(out) <= _SMALL_SEND or not session.awaiting_reply:
                self._send(out)
            else:
                self._pump(out)

    def _send(self, out: bytearray) -> None:
        self.session.handing(len(out))
        try:
            n = self.sock.send(out)
        except (OSError, ValueError) as exc:
            raise self._fail(exc) from exc
        self.session.sent(n)

    def _pump(self, out: bytearray) -> None:
        """One poll round: send what fits, receive what arrived."""
        sock = self.sock
        pending = getattr(sock, "pending", None)
        if pending is not None and pending():
            self._recv()
            return
        try:
            r, w = ready(sock, True, sock.gettimeout())
        except (OSError, ValueError) as exc:
            raise self._fail(exc) from exc
        if not r and not w:
            raise self._fail(TimeoutError("no progress sending the pipelined requests"))
        if w:
            sock.setblocking(False)
            try:
                # a view, not a copy of up to 1 MiB (released before sent()
                # trims the buffer)
                with memoryview(out) as whole, whole[:1 << 20] as part:
                    self.session.handing(len(part))
                    n = sock.send(part)
            except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                n = 0
            except OSError as exc:
                raise self._fail(exc) from exc
            finally:
                if self.session.broken is None:
                    sock.settimeout(self.timeout)
            self.session.sent(n)
        if r:
            self._recv()

    def set_timeout(self, timeout: float | None) -> None:
        self.timeout = timeout
        self.sock.settimeout(timeout)

    def _recv(self) -> None:
        try:
            n = self.sock.recv_into(self._scratch)
        except (OSError, ValueError) as exc:
            raise self._fail(exc) from exc
        if not n:
            raise self._fail(ConnectionResetError("the server closed the connection"))
        self.session.receive(self._view[:n])

    def check_idle(self) -> None:
        """Bytes waiting when no reply is owed are a server out of step: refuse
        to send a statement into that stream."""
        session = self.session
        if session.awaiting_reply or session.broken is not None or session.closed:
            return
        sock = self.sock
        pending = getattr(sock, "pending", None)
        try:
            waiting = (pending is not None and pending()) or ready(sock, False, 0)[0]
        except (OSError, ValueError) as exc:
            raise self._fail(exc) from exc
        if not waiting:
            return
        sock.setblocking(False)
        try:
            data = sock.recv(RECV_SIZE)
        except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
            return                    # TLS records only (e.g. a session ticket)
        except OSError as exc:
            raise self._fail(exc) from exc
        finally:
            if self.session.broken is None:
                sock.settimeout(self.timeout)
        try:
            session.receive(data)
        except OperationalError:
            self.close()
            raise

    def _fail(self, exc: BaseException) -> OperationalError:
        error = transport_failure(self.session, exc)
        self.close()
        return error

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
