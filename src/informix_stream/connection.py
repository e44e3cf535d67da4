"""PEP 249 connections with blocking I/O: one socket, one SQLI session.

A connection may be shared by threads (``threadsafety = 2``): every run of
an operation holds the connection's lock, and replies are matched to their
requests by the session, so each thread gets exactly its own rows.  A
cursor is used by one thread at a time.
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from typing import Any

from .blocking import BlockingIO, open_socket, send_cancel
from .connect_params import DEFAULT_FETCH_BUFFER, DEFAULT_PORT, ConnectParams, resolve  # noqa: F401
from .connection_base import ConnectionBase, log, login_gen
from .core.session import ClientSession
from .errors import InterfaceError, OperationalError


class Connection(ConnectionBase):
    """A logged-in SQLI session (create with ``informix_stream.connect``)."""

    def __init__(self, io: BlockingIO, params: ConnectParams) -> None:
        super().__init__(io.session, params)
        self._io = io
        self._lock = threading.RLock()

    # -- running operations --------------------------------------------------
    def _wait(self, op: Generator[Any, None, Any], timeout: float | None = None) -> Any:
        """Run one operation under the connection's lock.

        ``timeout`` (or the connection's ``statement_timeout``) cancels the
        statement on the server when it runs longer, as ``cancel()`` does.
        """
        self._check_process()
        limit = timeout if timeout is not None else self.statement_timeout
        with self._lock:
            self._io.check_idle()
            if not limit:
                return self._io.run(op)
            timer = threading.Timer(limit, self._cancel_quietly)
            timer.daemon = True
            timer.start()
            try:
                return self._io.run(op)
            finally:
                timer.cancel()

    def cancel(self) -> None:
        """Interrupt the statement running on this connection, from any thread.

        The server ends it with an error (-213) that the waiting call raises;
        the connection stays usable.  Without a running statement it does
        nothing harmful: the server ignores an interrupt between statements.
        """
        if self.closed:
            return
        try:
            send_cancel(self._io.sock)
        except OSError as exc:
            raise OperationalError(f"could not send the cancel request: {exc}") from exc

    # -- PEP 249 ---------------------------------------------------------------
    @property
    def server_version(self) -> str:
        """The server's release, e.g. 'IBM Informix Dynamic Server Version
        14.10.FC10'; one query on first use (the protocol version string when
        the server cannot answer it, e.g. with no database open)."""
        return self._wait(self._release_gen())

    @property
    def autocommit(self) -> bool:
        return self._session.autocommit

    @autocommit.setter
    def autocommit(self, value: bool) -> None:
        # after a -458, commit() raises: nothing was committed
        if value and self._session.owes_rollback:
            self.commit()
        self._session.autocommit = bool(value)

    @staticmethod
    def _cursor_class(materialize: bool, scrollable: bool) -> type:
        from .cursors import cursor_class
        return cursor_class(materialize, scrollable)

    def execute(self, operation: str, parameters=None):
        """Shortcut: a new cursor, executed (psycopg 3's ``Connection.execute``)."""
        return self.cursor().execute(operation, parameters)

    def fast_path_call(self, signature: str, *params: object) -> list:
        """Call server routine ``signature`` (e.g. ``"function
        informix.ifx_lo_close(integer)"``) through the fast-path messages;
        returns its values.  The routine handle is cached per connection."""
        return self._wait(self._fast_path_gen(signature, params))

    def commit(self) -> None:
        self._wait(self._commit_gen())

    def rollback(self) -> None:
        self._wait(self._rollback_gen())

    def close(self) -> None:
        """Roll back uncommitted work (as PEP 249 asks), say goodbye, close."""
        session = self._session
        if session.closed:
            return
        try:
            if session.broken is None and self._pid_ok():
                with self._lock:
                    self._io.run(self._goodbye_gen())
        except Exception:  # noqa: BLE001 - closing must not fail
            pass
        finally:
            session.in_transaction = False
            session.close()
            self._io.close()

    def _pid_ok(self) -> bool:
        try:
            self._check_process()
        except InterfaceError:
            return False
        return True

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if not self.closed:
                if exc_type is None:
                    self.commit()
                else:
                    self.rollback()
        finally:
            self.close()

    def __del__(self) -> None:
        io = self.__dict__.get("_io")
        if io is not None and not self._session.closed:
            io.close()


def connect(host: str | None = None, port: int | None = None, *, dsn: str | None = None,
            **kwargs: Any) -> Connection:
    """Open a session; keyword names match informix-driver's ``connect``.

    ``host`` may also be a connection string
    ``informix://user:password@host:port/database?server=...`` (or pass it as
    ``dsn=``); missing values come from ``IFX_HOST``/``IFX_PORT``/... variables.
    """
    return open_connection(connect_params(host, port, dsn, kwargs))


def connect_params(host: str | None, port: int | None, dsn: str | None,
                   kwargs: dict[str, Any]) -> ConnectParams:
    """The one reading of connect()'s arguments, shared with connect_async()."""
    if host is not None and "://" in str(host):
        if dsn is not None:
            raise InterfaceError("give the connection string once")
        host, dsn = None, host
    return resolve(dsn, dict(kwargs, host=host, port=port))


def open_connection(params: ConnectParams) -> Connection:
    ctx = params.tls_context()
    sock = open_socket(params.host, params.port, connect_timeout=params.connect_timeout,
                            tls=ctx, server_hostname=params.tls_server_hostname,
                            keepalive=params.keepalive)
    io = BlockingIO(sock, ClientSession(max_message_size=params.max_message_size))
    conn = Connection(io, params)
    try:
        conn.server_version_internal = io.run(login_gen(io.session, params))
    except BaseException:
        io.close()
        raise
    io.set_timeout(params.read_timeout)
    log.debug("connected to %s:%s database %s", params.host, params.port, params.database)
    return conn
