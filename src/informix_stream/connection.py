"""PEP 249 connections: one socket, one SQLI session.

The connection owns the wire.  Every exchange is ``request(bytes)`` -> one
reply read to its SQ_EOT under the connection's lock, so a server error never
leaves unread bytes behind: the reply is consumed whole before the error is
raised.  A socket failure or timeout, on the other hand, leaves the stream in
an unknown place, so it closes the connection for good.
"""

from __future__ import annotations

import os
import select
from collections import deque
import socket
import ssl
import threading
from collections.abc import Callable

from .errors import (InterfaceError, OperationalError, ProtocolError,
                     server_error)
from .errtext import message_for
from .framing import Incomplete, Writer
from .login import (LoginRequest, build_login_request, parse_login_reply,
                    read_sl_pdu)
from .messages import Reply, Tag, parse_reply

DEFAULT_PORT = 9088
# Tuple buffer asked for in each NFETCH.  Chosen by bench/throughput: past
# 64 KiB the per-fetch round trip is already amortised and a larger buffer
# only raises the memory a cursor holds.
DEFAULT_FETCH_BUFFER = 64 * 1024
MAX_FETCH_BUFFER = 2 * 1024 * 1024 * 1024 - 1
RECV_SIZE = 256 * 1024
_NOTHING = memoryview(b"")

# SQ_DONE warning bit after a database is opened: the database is logged.
DB_LOGGED = 0x01

# What we offer in SQ_PROTOCOLS: the same feature set IBM's clients offer.
CLIENT_PROTOCOLS = bytes.fromhex("fffc7ffc3c8caa97")

_ENV = {"CLIENT_LOCALE": "en_US.8859-1", "DBDATE": "Y4MD-", "DBPATH": ".",
        "IFX_UPDDESC": "1", "NODEFDAC": "no"}


class Wire:
    """A socket with a receive buffer; parses replies as bytes arrive."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = bytearray()
        # recv_into one reused buffer: a fresh 256 KiB bytes per recv() was
        # most of a long stream's allocation churn (memray).
        self._scratch = bytearray(RECV_SIZE)
        self._scratch_view = memoryview(self._scratch)
        self.pos = 0
        self.broken: BaseException | None = None

    def send(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except (OSError, ValueError) as exc:
            raise self._break(exc) from exc

    def _recv(self) -> None:
        """Append what the socket has; in non-blocking mode, possibly nothing."""
        if self.pos:
            del self.buf[:self.pos]
            self.pos = 0
        try:
            n = self.sock.recv_into(self._scratch)
        except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
            return
        except (OSError, ValueError) as exc:
            raise self._break(exc) from exc
        if not n:
            raise self._break(ConnectionResetError("server closed the connection"))
        self.buf += self._scratch_view[:n]

    def _break(self, exc: BaseException) -> OperationalError:
        self.broken = exc
        self.close()
        if isinstance(exc, TimeoutError | socket.timeout):
            return OperationalError(f"timed out waiting for the server: {exc}")
        return OperationalError(f"connection to the server failed: {exc}")

    def read_sl_pdu(self) -> tuple[int, bytes]:
        while True:
            try:
                sl_type, body, used = read_sl_pdu(self.buf[self.pos:])
            except Incomplete:
                self._recv()
                continue
            self.pos += used
            return sl_type, body

    def read_reply(self, reply: Reply, decode_row: Callable | None = None) -> Reply:
        """Read messages until SQ_EOT into ``reply``."""
        while True:
            try:
                self.pos, done = parse_reply(self.buf, self.pos, reply, decode_row)
            except ProtocolError as exc:
                self.broken = exc
                self.close()
                raise
            if done:
                return reply
            self._recv()

    def pipeline(self, payload: bytes, count: int,
                 meanwhile: Callable[[], None] | None = None) -> list[Reply]:
        """Send ``count`` requests while reading their replies as they come.

        Sending everything before reading anything deadlocks once the
        server's replies fill our receive buffer: the server stops reading,
        our send blocks, both wait forever.  So the socket is driven with
        select(): write when it can take bytes, read whenever replies are
        there, until every request is out and every reply is in.
        ``meanwhile`` runs once, when everything is sent: client work that
        overlaps with the server's (it must not raise).
        """
        sock = self.sock
        timeout = sock.gettimeout()
        view = memoryview(payload)
        del payload      # once sent, the bytes can go (``_pump`` drops the view)
        replies: list[Reply] = []
        current = Reply()
        sock.setblocking(False)
        try:
            while True:
                while len(replies) < count:
                    self.pos, done = parse_reply(self.buf, self.pos, current)
                    if not done:
                        break
                    replies.append(current)
                    current = Reply()
                if not view and meanwhile is not None:
                    meanwhile()
                    meanwhile = None
                    continue
                if len(replies) == count and not view:
                    return replies
                view = self._pump(view, timeout)
        except ProtocolError as exc:
            self.broken = exc
            self.close()
            raise
        finally:
            if self.broken is None:
                sock.settimeout(timeout)

    def _pump(self, view: memoryview, timeout: float | None) -> memoryview:
        """One select() round: send what fits, receive what arrived."""
        sock = self.sock
        pending = getattr(sock, "pending", None)
        if pending is not None and pending():
            readable, writable = True, False
        else:
            try:
                r, w, _ = select.select([sock], [sock] if view else [], [], timeout)
            except (OSError, ValueError) as exc:
                raise self._break(exc) from exc
            if not r and not w:
                raise self._break(TimeoutError("no progress on the pipelined requests"))
            readable, writable = bool(r), bool(w)
        if writable:
            try:
                sent = sock.send(view[:1 << 20])
            except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                sent = 0
            except OSError as exc:
                raise self._break(exc) from exc
            # An empty slice would still hold the whole payload alive.
            view = view[sent:] if sent < len(view) else _NOTHING
        if readable:
            self._recv()
        return view

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def raise_for(reply: Reply) -> None:
    """Turn an SQ_ERR in a finished reply into the right PEP 249 exception."""
    err = reply.error
    if err is not None:
        raise server_error(err.sqlcode, err.isam, message_for(err.sqlcode),
                           err.offset, err.message)


class Connection:
    """A logged-in SQLI session (create with ``informix_stream.connect``)."""

    def __init__(self, wire: Wire, *, autocommit: bool, fetch_buffer_size: int,
                 database: str | None) -> None:
        self._wire = wire
        self._lock = threading.RLock()
        self._autocommit = autocommit
        self._in_transaction = False
        # Statement cleanup owed to the server.  ``_piggyback`` items cannot
        # fail (a known-open cursor's CLOSE+RELEASE) and ride in front of the
        # next request; ``_owed`` items follow a failure, may draw an error of
        # their own, and so are each sent alone with errors ignored.
        self._piggyback: list[bytes] = []
        self._owed: list[bytes] = []
        self._inflight: deque = deque()   # (cursor, row decoder) per reply not yet read
        self.fetch_buffer_size = fetch_buffer_size
        self.database = database
        # Transactions exist only in a logged database (DBOPEN's DONE says so);
        # an unlogged one would reject every implicit SQ_BEGIN.
        self.logged = False
        self.server_version = ""
        self._cursor_seq = 0

    # -- PEP 249 ---------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """True once closed, and as soon as the socket failed: it cannot be reused."""
        return self._wire is None or self._wire.broken is not None

    @property
    def autocommit(self) -> bool:
        return self._autocommit

    @autocommit.setter
    def autocommit(self, value: bool) -> None:
        if value and self._in_transaction:
            self.commit()
        self._autocommit = bool(value)

    def cursor(self, *, materialize: bool = False, scrollable: bool = False,
               fetch_buffer_size: int | None = None, read_ahead: bool = True):
        """A streaming cursor by default; see ``informix_stream.cursors``."""
        from .cursors import Cursor
        self._check()
        size = fetch_buffer_size or self.fetch_buffer_size
        if not 1 <= size <= MAX_FETCH_BUFFER:
            raise InterfaceError(f"fetch_buffer_size must be 1..{MAX_FETCH_BUFFER}")
        return Cursor(self, materialize=materialize, scrollable=scrollable,
                      fetch_buffer_size=size, read_ahead=read_ahead)

    def commit(self) -> None:
        self._check()
        if self._in_transaction:
            self._end_transaction(Writer().short(Tag.CMMTWORK))

    def rollback(self) -> None:
        self._check()
        if self._in_transaction:
            self._end_transaction(Writer().short(Tag.RBWORK).short(0))

    def _end_transaction(self, w: Writer) -> None:
        try:
            self.request(w)
        finally:
            self._in_transaction = False

    def close(self) -> None:
        """Roll back uncommitted work (as PEP 249 asks), say goodbye, close."""
        wire = self._wire
        if wire is None:
            return
        try:
            if wire.broken is None:
                with self._lock:
                    self._absorb_inflight(wire)
                    w = Writer()
                    if self._in_transaction:
                        w.short(Tag.RBWORK).short(0).short(Tag.EOT)
                        wire.send(w.getvalue())
                        wire.read_reply(Reply())
                    wire.send(Writer().short(Tag.EXIT).getvalue())
                    wire.read_reply(Reply())
        except Exception:  # noqa: BLE001 - closing must not fail
            pass
        finally:
            self._in_transaction = False
            wire.close()
            self._wire = None

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._wire is not None and self._wire.broken is None:
            if exc_type is None:
                self.commit()
            else:
                self.rollback()
        self.close()

    # -- the wire ---------------------------------------------------------------
    def _check(self) -> Wire:
        wire = self._wire
        if wire is None:
            raise InterfaceError("connection is closed")
        if wire.broken is not None:
            self._wire = None
            raise OperationalError(f"connection is unusable: {wire.broken}")
        return wire

    def request(self, w: Writer, *, decode_row: Callable | None = None,
                rows: list | None = None, begin: bool = False,
                ahead: tuple | None = None) -> Reply:
        """Send one request (``w`` without its EOT) and read the whole reply.

        ``begin`` marks statements that start a transaction when autocommit
        is off: the SQ_BEGIN travels in the same request.  ``ahead`` is
        ``(owner, request, decode_row)``: a further request sent in the same
        write, whose reply is left for later (see ``send_ahead``).
        """
        with self._lock:
            wire = self._check()
            self._absorb_inflight(wire)
            self._settle_owed(wire)
            data = self._take_piggyback()
            opens = (begin and self.logged and not self._autocommit
                     and not self._in_transaction)
            if opens:
                data += Writer().short(Tag.BEGIN).getvalue()
            data += w.getvalue() + b"\x00\x0c"
            if ahead is not None:
                owner, later, later_decode = ahead
                data += later.getvalue() + b"\x00\x0c"
            wire.send(data)
            reply = wire.read_reply(Reply(rows), decode_row)
            if ahead is not None:
                self._inflight.append((owner, later_decode))
            if opens and not (reply.error and reply.error.sqlcode == -535):
                self._in_transaction = True
            raise_for(reply)
            return reply

    def pipeline(self, requests: list[bytes],
                 meanwhile: Callable[[], None] | None = None) -> list[Reply]:
        """Send several requests (each without EOT) back to back; return every reply.

        Server errors are not raised here: each reply carries its own, so the
        caller can tell which request failed while the wire stays aligned.
        ``meanwhile`` runs once all requests are sent (see ``Wire.pipeline``);
        ``requests`` is emptied, so that by then the chunk is no longer held.
        """
        with self._lock:
            wire = self._check()
            self._absorb_inflight(wire)
            self._settle_owed(wire)
            eot = b"\x00\x0c"
            count = len(requests)
            payload = [self._take_piggyback() + eot.join(requests) + eot]
            requests.clear()     # the caller's chunk is now in the payload only
            return wire.pipeline(payload.pop(), count, meanwhile)

    # -- read-ahead: requests whose replies are read later ------------------------
    def send_ahead(self, owner, w: Writer, decode_row: Callable) -> None:
        """Send a request now and read its reply later (a cursor's next fetch).

        Replies come back in request order, so nothing has to be read before
        sending: the server works on this request while the caller decodes
        the reply before it.  Whoever needs the wire for a new exchange first
        reads every outstanding reply (``_absorb_inflight``) and hands each to
        its owner; the owner itself reads its own with ``read_ahead``.
        """
        with self._lock:
            self._check().send(w.getvalue() + b"\x00\x0c")
            self._inflight.append((owner, decode_row))

    def read_ahead(self, owner) -> Reply | None:
        """The oldest reply in flight for ``owner``, or None if none is left."""
        with self._lock:
            wire = self._check()
            while self._inflight:
                who, decode_row = self._inflight.popleft()
                reply = wire.read_reply(Reply(), decode_row)
                if who is owner:
                    raise_for(reply)
                    return reply
                who.absorb(reply)
            return None

    def _absorb_inflight(self, wire: Wire) -> None:
        while self._inflight:
            owner, decode_row = self._inflight.popleft()
            owner.absorb(wire.read_reply(Reply(), decode_row))

    def _take_piggyback(self) -> bytes:
        if not self._piggyback:
            return b""
        owed, self._piggyback = self._piggyback, []
        return b"".join(owed)

    def _settle_owed(self, wire: Wire) -> None:
        """Cleanup after a failure: each alone, since any of them may fail."""
        while self._owed:
            wire.send(self._owed.pop(0) + b"\x00\x0c")
            wire.read_reply(Reply())

    def defer_cleanup(self, data: bytes) -> None:
        """Queue cleanup that cannot fail, to ride on the next request."""
        self._piggyback.append(data)

    def owe_cleanup(self, *items: bytes) -> None:
        """Queue cleanup after a failed statement, to be sent before the next request."""
        self._owed.extend(items)

    def next_cursor_name(self) -> bytes:
        self._cursor_seq += 1
        return f"_ifxs{os.getpid() % 100000}_{self._cursor_seq}".encode()


def connect(host: str = "127.0.0.1", port: int = DEFAULT_PORT, user: str = "informix",
            password: str | None = None, database: str | None = None,
            server: str = "informix", *, autocommit: bool = False,
            fetch_buffer_size: int = DEFAULT_FETCH_BUFFER,
            connect_timeout: float | None = 10.0, read_timeout: float | None = None,
            tls: ssl.SSLContext | bool | None = None) -> Connection:
    """Open a session; keyword names match informix-driver's ``connect``."""
    if not 1 <= fetch_buffer_size <= MAX_FETCH_BUFFER:
        raise InterfaceError(f"fetch_buffer_size must be 1..{MAX_FETCH_BUFFER}")
    try:
        sock = socket.create_connection((host, port), timeout=connect_timeout)
    except OSError as exc:
        raise OperationalError(f"cannot connect to {host}:{port}: {exc}") from exc
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if tls:
        ctx = tls if isinstance(tls, ssl.SSLContext) else _unverified_context()
        try:
            sock = ctx.wrap_socket(sock, server_hostname=host)
        except (OSError, ssl.SSLError) as exc:
            sock.close()
            raise OperationalError(f"TLS handshake with {host}:{port} failed: {exc}") from exc
    wire = Wire(sock)
    try:
        conn = _login(wire, user, password, server, database, autocommit, fetch_buffer_size)
    except BaseException:
        wire.close()
        raise
    sock.settimeout(read_timeout)
    return conn


def _unverified_context() -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def _login(wire: Wire, user: str, password: str | None, server: str,
           database: str | None, autocommit: bool, fetch_buffer_size: int) -> Connection:
    wire.send(build_login_request(LoginRequest(user, password, server, env=dict(_ENV))))
    reply = parse_login_reply(*wire.read_sl_pdu())
    if not reply.accepted:
        text = reply.message or message_for(reply.error)
        raise OperationalError(f"[{reply.error}] login rejected: {text}", sqlcode=reply.error)
    conn = Connection(wire, autocommit=autocommit, fetch_buffer_size=fetch_buffer_size,
                      database=database)
    conn.server_version = reply.version
    conn.request(Writer().short(Tag.PROTOCOLS).short_string(CLIENT_PROTOCOLS))
    if database is not None:
        # An unknown database fails here with -329 (an OperationalError).
        reply = conn.request(Writer().short(Tag.DBOPEN)
                             .short_string(database.encode("iso-8859-1")).short(0))
        conn.logged = bool(reply.warnings & DB_LOGGED)
    return conn
