"""A private in-process emulator whose server-side statements can be counted,
and the one way these suites connect to it.

Statement counting uses ``EmulatorServer.open_statements()`` when the
emulator has it; until then it counts the ``Session`` objects' statement
tables directly.  Either way ``sessions`` holds every session (= accepted
login) of this server: a tracking subclass patched in for this server only.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import informix_stream as ifx
from informix_stream.emulator import EmulatorServer
from informix_stream.emulator import server as server_module

USER, PASSWORD, DATABASE, SERVER = "informix", "in4mix", "testdb", "informix"


class TrackedEmulator:
    """An EmulatorServer (``srv``) plus ``open_statements()``; a context manager.

    ``monkeypatch`` (pytest's) installs the session tracker for as long as
    the fixture that owns it lives.
    """

    def __init__(self, monkeypatch, **kw: Any) -> None:
        kw.setdefault("databases", (DATABASE, "otherdb"))
        self.srv = EmulatorServer(**kw)
        self.host, self.port = self.srv.host, self.srv.port
        self.sessions: weakref.WeakSet = weakref.WeakSet()     # every login it accepted
        self._order: list[weakref.ref] = []
        self._track(monkeypatch)

    def _track(self, monkeypatch) -> None:
        base = server_module.Session
        engine, sessions, order = self.srv.engine, self.sessions, self._order

        class TrackedSession(base):  # type: ignore[misc, valid-type]
            def __init__(self, eng, *a: Any, **kw: Any) -> None:
                super().__init__(eng, *a, **kw)
                self.ended = False
                if eng is engine:
                    sessions.add(self)
                    order.append(weakref.ref(self))

            def close(self) -> None:
                self.ended = True          # the server let the client go
                super().close()

        monkeypatch.setattr(server_module, "Session", TrackedSession)

    def latest_session(self):
        """The server side of the connection opened last."""
        return self._order[-1]()

    def open_statements(self) -> int:
        """Statements (prepared or with an open cursor) all live sessions hold."""
        if hasattr(self.srv, "open_statements"):
            return self.srv.open_statements()
        return sum(len(s.statements) for s in list(self.sessions))

    def unkept(self, *conns: Any) -> int:
        """Statements held beyond what the connections keep on purpose
        (their prepared-statement caches): a leak shows up here."""
        return self.open_statements() - sum(c.kept_statements for c in conns)

    def __enter__(self) -> TrackedEmulator:
        self.srv.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.srv.stop()


def connect_kw(where, **kw: Any) -> dict[str, Any]:
    """The keyword arguments of a connection (or a pool) to ``where``
    (anything with ``host`` and ``port``), every wait bounded."""
    kw.setdefault("read_timeout", 30)
    kw.setdefault("connect_timeout", 10)
    kw.setdefault("database", DATABASE)
    return dict(host=where.host, port=where.port, user=USER, password=PASSWORD,
                server=SERVER, **kw)


def connect(where, **kw: Any) -> ifx.Connection:
    """A connection to ``where`` (anything with ``host`` and ``port``)."""
    return ifx.connect(**connect_kw(where, **kw))


async def connect_async(where, **kw: Any) -> ifx.AsyncConnection:
    return await ifx.connect_async(**connect_kw(where, **kw))


def has_table(conn: ifx.Connection, table: str) -> bool:
    """Whether this session can read ``table`` (a temp table a pool's last
    user may have left): -206, "no such table", is the only other answer."""
    cur = conn.cursor()
    try:
        cur.execute(f"SELECT * FROM {table}")
    except ifx.ProgrammingError as exc:
        assert exc.sqlcode == -206
        return False
    cur.fetchall()
    return True


def flush(*conns: ifx.Connection) -> None:
    """Send one statement that leaves nothing behind, so that cleanup the
    driver queued to ride on its next request reaches the server."""
    for conn in conns:
        conn.cursor().execute("SET ISOLATION TO COMMITTED READ")


def rows(conn: ifx.Connection, sql: str, params=None) -> list[tuple]:
    """All rows of one query, on a cursor of its own."""
    cur = conn.cursor()
    try:
        cur.execute(sql, params)
        return cur.fetchall()
    finally:
        cur.close()


@contextmanager
def log_mode_server() -> Iterator[EmulatorServer]:
    """An emulator with one database of each log mode: ``testdb`` (as the
    emulator creates it), ``nolog`` (no logging), ``ldb`` (logged) and
    ``adb`` (ANSI), for tests of what a session does in each."""
    with EmulatorServer(databases=(DATABASE,)) as srv:
        with connect(srv, autocommit=True) as conn:
            cur = conn.cursor()
            cur.execute("CREATE DATABASE nolog")
            cur.execute("CREATE DATABASE ldb WITH LOG")
            cur.execute("CREATE DATABASE adb WITH LOG MODE ANSI")
        yield srv
