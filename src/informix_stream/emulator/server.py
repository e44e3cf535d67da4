"""The emulator's socket layer: accept clients, move bytes, nothing else.

Each client gets a thread.  The thread reads the login PDU, then loops:
receive bytes, cut complete requests out of the buffer (a client may pipeline
many), hand each to its ``Session`` and send the reply.  Bad bytes end only
that client's connection; the listener and other sessions carry on.
"""

from __future__ import annotations

import logging
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import NoReturn


from .. import codecs
from ..errors import ProtocolError
from ..framing import Incomplete, Writer
from ..login import (SL_CONREQ, build_login_reply, parse_login_request,
                     read_sl_pdu)
from ..messages import parse_request, write_error, Tag
from ..sockready import ready, urgent
from .dbdate import login_style
from .engine import Engine
from .gls import INVALID_TEXT, LOCALE_NOT_LOADED, session_locales
from .session import Session
from .session_functions import SERVER_VERSION
from . import bind_rows, lob_serve
from .spool import SPOOL_AT, RequestSpool
from .statements import NOT_SUPPORTED

log = logging.getLogger("informix_stream.emulator")

# Announced in the login reply after SERVER_VERSION.
SERVER_SERIAL = "Software Serial Number AAA#B000000"

# Unparsed client bytes we are willing to hold: bounds a client that sends
# an endless request without an SQ_EOT.
MAX_PENDING = 256 * 1024 * 1024
RECV_SIZE = 256 * 1024
# Requests answered as one burst at most (bounds the reply held in memory).
MAX_BURST = 2048
LOGIN_TIMEOUT = 30.0
# How long stop() waits for sessions once their sockets are cut both ways.
CUT_GRACE = 1.0
# A client quiet this long has sent all of its request for now.
IDLE = 0.05


class EmulatorServer:
    """An SQLI server on a TCP port, backed by SQLite.

    Usable as a context manager (starts on enter, stops on exit) or with
    ``start()``/``stop()``; ``serve_forever()`` blocks for the command line.
    ``on_request`` receives every raw request (bytes up to and including its
    SQ_EOT) for wire-conformance recording; ``tls`` makes it a TLS listener.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *,
                 databases: Iterable[str] | Mapping[str, str] = ("testdb",),
                 data_dir: str | None = None,
                 user: str = "informix", password: str = "in4mix",
                 server_name: str = "informix",
                 on_request: Callable[[bytes], None] | None = None,
                 tls: ssl.SSLContext | None = None,
                 long_transaction_rows: int | None = None) -> None:
        """``long_transaction_rows``: opt-in long-transaction limit in rows
        (emulator/long_tx.py): the statement that takes a transaction past
        it fails with -458 and the whole transaction is rolled back."""
        self.engine = Engine(databases if isinstance(databases, Mapping) else list(databases),
                             data_dir, long_transaction_rows=long_transaction_rows)
        self.tls = tls
        self.users = {user: password}
        self.server_name = server_name
        self.on_request = on_request
        self._listener = socket.create_server((host, port), reuse_port=False)
        self._listener.settimeout(0.5)
        self.host, self.port = self._listener.getsockname()[:2]
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._clients: set[socket.socket] = set()
        self._workers: set[threading.Thread] = set()
        # Logged-in clients: their socket, SQLI session and thread.
        self._served: dict[socket.socket, tuple[Session, threading.Thread]] = {}
        self._lock = threading.Lock()
        # stop() has run: the last session thread to end closes the engine.
        self._close_when_idle = False
        self._engine_closed = False

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> EmulatorServer:
        self._thread = threading.Thread(target=self.serve_forever, name="ifx-emulator",
                                        daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                conn, _addr = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            worker = threading.Thread(target=self._serve_client, args=(conn,),
                                      name="ifx-session", daemon=True)
            with self._lock:
                if self._stopping.is_set():
                    _shutdown(conn)
                    break
                self._clients.add(conn)
                self._workers.add(worker)
            worker.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop so that exactly the committed rows remain; return within
        about ``timeout`` + ``CUT_GRACE`` seconds.

        Stop accepting; interrupt running statements and lock waits (-213);
        let each session finish the request it is in (no new one starts),
        see its client's end of input, roll back its open transaction and
        close its database connections in its own thread; then close the
        databases and remove the in-memory directory.  A session still busy
        after ``timeout`` (its client not reading a reply, or a wait that
        ends only when another session lets go) has its socket cut both
        ways, which ends a blocked send and lets the lock holders roll back;
        one still busy ``CUT_GRACE`` later is left to finish, and the last
        session thread to end closes the databases then: never closed under
        a session that is still using them.  An in-memory server's directory
        is removed in every case (its busy session's open files live on,
        unreachable, until it closes them).
        """
        self._stopping.set()
        self._listener.close()
        for conn in self._client_sockets():
            _shut(conn, socket.SHUT_RD)   # wakes a recv; replies may still go out
        deadline = time.monotonic() + timeout
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=timeout)
        if not self._join_workers(deadline):
            for conn in self._client_sockets():
                _shut(conn, socket.SHUT_RDWR)
            if not self._join_workers(time.monotonic() + CUT_GRACE):
                log.warning("%d session(s) still busy %.1f s after stop(); the last to "
                            "end closes the databases", len(self._workers),
                            timeout + CUT_GRACE)
                # nobody can reach an in-memory database any more
                self.engine.remove_tempdir()
        with self._lock:
            self._close_when_idle = True
            idle = not self._workers
        if idle:
            self._close_engine()

    def _client_sockets(self) -> list[socket.socket]:
        with self._lock:
            return list(self._clients)

    def _join_workers(self, deadline: float) -> bool:
        """Wait (until ``deadline``) for every session thread; True if none is left."""
        with self._lock:
            workers = list(self._workers)
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
        return not any(w.is_alive() for w in workers)

    def _close_engine(self) -> None:
        """Close the databases once (stop(), or the last session thread after it)."""
        with self._lock:
            if self._engine_closed:
                return
            self._engine_closed = True
        self.engine.close()

    def drop_database(self, name: str, *, force: bool = False, timeout: float = 5.0) -> None:
        """Drop a database from outside SQL (the pytest harness does, after each test).

        Without ``force`` a database some session has open is refused with
        -425, as DROP DATABASE is.  With ``force`` those sessions are first
        cut off, as an administrator's ``onmode -z`` would: their sockets are
        shut, each session rolls back its open work in its own thread, and
        their clients see a broken connection on their next request rather
        than carrying on against a database that no longer exists.
        """
        if force:
            self._disconnect_users(name.lower(), timeout)
        self.engine.databases.drop(name)

    def _disconnect_users(self, name: str, timeout: float) -> None:
        with self._lock:
            users = [(conn, thread) for conn, (session, thread) in self._served.items()
                     if session.db is not None and session.db.database.name == name]
        for conn, _thread in users:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + timeout
        for _conn, thread in users:
            thread.join(max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> EmulatorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- one client ----------------------------------------------------------
    def _serve_client(self, conn: socket.socket) -> None:
        session = None
        try:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            buf = bytearray()
            conn.settimeout(LOGIN_TIMEOUT)
            if self.tls is not None:
                # Like an Informix SSL listener: TLS from the first byte.
                plain = conn
                conn = self.tls.wrap_socket(conn, server_side=True)
                with self._lock:          # stop() must reach the wrapped socket
                    self._clients.discard(plain)
                    self._clients.add(conn)
            session = self._login(conn, buf)
            conn.settimeout(None)
            if session is not None:
                with self._lock:
                    self._served[conn] = (session, threading.current_thread())
                self._serve_requests(conn, buf, session)
        except (OSError, ProtocolError, ssl.SSLError) as exc:
            log.debug("client connection ended: %s", exc)
        finally:
            try:
                if session is not None:
                    session.close()          # rolls back what was not committed
            except Exception:  # noqa: BLE001 - reported; the connections are closed anyway
                log.exception("closing a session failed")
            finally:
                with self._lock:
                    self._clients.discard(conn)
                    self._served.pop(conn, None)
                    self._workers.discard(threading.current_thread())
                    last = self._close_when_idle and not self._workers
                _shutdown(conn)
                if last:
                    self._close_engine()

    def _login(self, conn: socket.socket, buf: bytearray) -> Session | None:
        while True:
            try:
                sl_type, body, used = read_sl_pdu(buf)
                break
            except Incomplete:
                if not _recv_into(conn, buf):
                    return None
        del buf[:used]
        if sl_type != SL_CONREQ:
            raise ProtocolError(f"expected a connection request, got SL type {sl_type}")
        req = parse_login_request(body)
        error, message = 0, ""
        locales, bad_locale = session_locales(req.env)
        date_style, bad_date = login_style(req.env)
        if bad_locale:
            error, message = LOCALE_NOT_LOADED, f"Unable to load locale categories for locale {bad_locale}."
        elif bad_date:
            error, message = NOT_SUPPORTED, bad_date
        elif req.password is None or self.users.get(req.user) != req.password:
            error = -951
            message = f"Incorrect password or user {req.user} is not known on the database server."
        elif req.database and not self.engine.has_database(req.database):
            error, message = -329, f"Database not found or no system permission: {req.database}"
        conn.sendall(build_login_reply(accepted=not error, version=SERVER_VERSION,
                                       serial=SERVER_SERIAL, caps=req.caps,
                                       error=error, message=message))
        if error:
            return None
        session = Session(self.engine, version=SERVER_VERSION, db_locale=locales.get("DB_LOCALE"),
                          delimident=_env_on(req.env.get("DELIMIDENT")), date_style=date_style)
        session.interrupt_requested = _interrupt_check(conn, self._stopping)
        session.stream_lobs = True        # large LOB contents go out in pieces
        if req.database:
            session.db = self.engine.connect(req.database)
        return session

    def _serve_requests(self, conn: socket.socket, buf: bytearray, session: Session) -> None:
        """Answer requests in order; a pipelined burst is answered together.

        Every complete request already in the buffer is parsed, then the
        whole burst goes to the session (which may batch runs of inserts) and
        the replies go out in one send.  Replies are always sent before the
        server blocks on reading again, so a client reading its replies
        never waits on one we are holding.

        An unfinished request is not parsed again for every byte that
        arrives (a client sending a byte at a time would make that
        quadratic): only once the unparsed bytes have grown by a quarter, or
        when the client has paused (``IDLE`` seconds) -- linear work overall.
        An unfinished request past ``SPOOL_AT`` bytes (a large BYTE/TEXT or
        smart LOB write) is received in pieces instead (``_serve_spooled``).
        """
        pos = 0
        retry_at = 0
        while not session.finished:
            burst: list[list] = []
            if len(buf) - pos >= retry_at:
                pos = self._parse_burst(conn, buf, pos, session, burst)
                pending = len(buf) - pos
                if not burst and pending >= SPOOL_AT:
                    pos = self._serve_spooled(conn, buf, pos, session)
                    retry_at = 0
                    continue
                retry_at = 0 if burst or not pending else pending + max(1, pending // 4)
            if burst:
                if self._stopping.is_set():
                    return                # stop(): no new request starts
                _take_urgent(conn)        # a cancel between statements cancels nothing
                _answer(conn, session, burst)
                continue
            if pos:
                del buf[:pos]
                retry_at -= pos
                pos = 0
            if len(buf) > MAX_PENDING:
                raise ProtocolError("request exceeds the emulator's size limit")
            if retry_at > len(buf) and not _readable(conn, IDLE):
                retry_at = 0              # the client paused: try the request now
                continue
            if not _recv_into(conn, buf):
                return

    def _parse_burst(self, conn: socket.socket, buf: bytearray, pos: int, session: Session,
                     burst: list[list]) -> int:
        """Cut complete requests off ``buf[pos:]`` into ``burst``; the new pos."""
        read_param = _param_reader(session)
        # A clean BIND+EXECUTE request is read straight to its stored row
        read_fast = bind_rows.RequestReader(session, read_param).read
        try:
            # pos < len(buf): no Incomplete raised and caught after every burst
            while len(burst) < MAX_BURST and pos < len(buf):
                parsed = read_fast(buf, pos)
                messages, end = parsed or parse_request(buf, pos, read_param)
                if self.on_request is not None:
                    self.on_request(bytes(buf[pos:end]))
                pos = end
                burst.append(messages)
                if messages and messages[-1] is Tag.EXIT:
                    break
        except Incomplete:
            pass
        except Exception as exc:  # noqa: BLE001 - a codec bug on hostile bytes
            _refuse(conn, session, burst, exc)
        return pos

    def _serve_spooled(self, conn: socket.socket, buf: bytearray, pos: int,
                       session: Session) -> int:
        """Receive the request at ``buf[pos:]`` in pieces, its LOB contents
        spooled to disk (emulator.spool), then answer it; the position after
        it.  The receive buffer holds at most a chunk and one recv beyond the
        request's other messages.  A client that leaves first has nothing
        executed; the spool files go in every case."""
        spool = RequestSpool(_param_reader(session), record=self.on_request is not None)
        try:
            while True:
                try:
                    pos = spool.feed(buf, pos)
                except Exception as exc:  # noqa: BLE001 - as in _parse_burst
                    _refuse(conn, session, [], exc)
                if spool.done:
                    break
                del buf[:pos]
                pos = 0
                if len(buf) > MAX_PENDING:
                    raise ProtocolError("request exceeds the emulator's size limit")
                if not _recv_into(conn, buf):
                    raise ConnectionError("the client left in the middle of a request")
            if spool.recorded is not None and self.on_request is not None:
                self.on_request(bytes(spool.recorded))
            if self._stopping.is_set():
                raise ConnectionError("the server is stopping")
            _take_urgent(conn)
            _answer(conn, session, [spool.messages])
        finally:
            spool.close()
        return pos


def _param_reader(session: Session) -> Callable:
    """SQ_BIND values decoded with the session's code set.  A text whose
    bytes do not decode is read past (its framing does not depend on its
    bytes: read again as ISO 8859-1, which decodes any) and stands as
    gls.INVALID_TEXT, refused with -202 when bound; the session is told one
    arrived so that its batched path leaves the request to that check."""
    encoding = session.encoding

    def read_param(reader) -> object:
        start = reader.pos
        try:
            return codecs.read_param(reader, encoding)
        except ProtocolError as exc:
            if not isinstance(exc.__cause__, UnicodeDecodeError):
                raise
        reader.pos = start
        codecs.read_param(reader, "iso-8859-1")
        session.invalid_text = True
        return INVALID_TEXT
    return read_param


def _refuse(conn: socket.socket, session: Session, burst: list[list],
            exc: Exception) -> NoReturn:
    """A request that cannot be parsed: the requests before it are answered,
    then -408, and the connection ends (its wire position is lost)."""
    if isinstance(exc, ProtocolError):
        _answer(conn, session, burst, _protocol_error_reply(str(exc)))
        raise exc
    log.exception("cannot parse a request")
    _answer(conn, session, burst, _protocol_error_reply(f"unparsable request: {exc}"))
    raise ProtocolError(str(exc)) from exc


def _answer(conn: socket.socket, session: Session, burst: list[list], tail: bytes = b"") -> None:
    """Send the replies to ``burst`` (then ``tail``), large LOB contents in
    pieces (lob_serve.py)."""
    reply = session.handle_many(burst)
    if tail:
        reply += tail
    streams = session.take_streams()
    if streams:
        lob_serve.send(conn, reply, streams)
    else:
        conn.sendall(reply)


def _readable(conn: socket.socket, timeout: float) -> bool:
    pending = getattr(conn, "pending", None)
    if pending is not None and pending():
        return True
    try:
        return ready(conn, False, timeout)[0]
    except (OSError, ValueError):
        return True                       # let recv report it


def _interrupt_check(conn: socket.socket, stopping: threading.Event):
    """True (once per cancel) when the client sent its urgent byte -- IBM's
    JDBC cancels with one byte of TCP urgent data (asf.Connection.sOOBSocket)
    -- or when the server is shutting down."""
    def check() -> bool:
        return stopping.is_set() or _take_urgent(conn)
    return check


def _take_urgent(conn: socket.socket) -> bool:
    """Consume a pending urgent byte; True if there was one.  Read on a
    duplicate of the descriptor, beneath any TLS layer."""
    try:
        if not urgent(conn):
            return False
        dup = socket.socket(fileno=os.dup(conn.fileno()))
        try:
            # MSG_DONTWAIT, not setblocking(): the flag would be shared with
            # the client's own descriptor through the duplicate.
            dup.recv(1, socket.MSG_OOB | socket.MSG_DONTWAIT)
        finally:
            dup.close()
    except (OSError, ValueError):
        return False
    return True


def _protocol_error_reply(text: str) -> bytes:
    """-408 (unknown message) tells the client why its connection is dropped."""
    w = Writer()
    write_error(w, -408, 0, 0, text.encode("iso-8859-1", "replace")[:200])
    return w.short(Tag.EOT).getvalue()


class _Scratch(threading.local):
    """Each session thread's receive area.  ``recv(n)`` allocates n bytes
    per call: at 256 KiB that is an mmap and munmap for every request, about
    13 us of a small statement's cost; ``recv_into`` a kept buffer is not."""

    def __init__(self) -> None:
        self.area = bytearray(RECV_SIZE)
        self.view = memoryview(self.area)


_SCRATCH = _Scratch()


def _recv_into(conn: socket.socket, buf: bytearray) -> bool:
    scratch = _SCRATCH
    n = conn.recv_into(scratch.area)
    if not n:
        return False
    buf += scratch.view[:n]
    return True


def _shut(conn: socket.socket, how: int) -> None:
    """Shut one or both directions; the socket stays open (its session
    thread closes it: closing it under a blocked recv could hand the number
    to another file)."""
    try:
        conn.shutdown(how)
    except OSError:
        pass


def _shutdown(conn: socket.socket) -> None:
    """Shut both directions and close (by the session thread that owns it)."""
    _shut(conn, socket.SHUT_RDWR)
    conn.close()


def _env_on(value: str | None) -> bool:
    """An environment flag the client sent: set unless absent or a "no"."""
    return value is not None and value.strip().lower() not in ("n", "no", "0", "false", "off")
