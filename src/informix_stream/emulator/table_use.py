"""Which sessions have a table open: the exclusive access DDL needs.

Informix's DROP TABLE, ALTER TABLE, RENAME and CREATE INDEX need exclusive
access to their table.  While another session has a cursor open on it, or
holds locks on it (rows an open transaction wrote), the server refuses the
DDL with -242 "Could not open database table" and ISAM -106 "non-exclusive
access": IBM's finderr for -106 ("the database server returns this error
when an exclusive lock is required on a table ... when a second user tries
to alter a table that the first user has locked"); IBM technote 1674115
(TRUNCATE: -242/-106 when "one or more cursors are open on the table" or a
lock on it exists); IBM technote 1648816 (DDL -242/-106; the workaround is
SET LOCK MODE TO WAIT for the session running the DDL, which then waits).

SQLite lets a connection drop a table another connection is reading (the
reader keeps its snapshot), so the emulator keeps this record itself: a
transaction holds the tables it wrote until it ends; a protocol cursor
opened under an isolation that keeps DDL out (ddl_runner._set_isolation)
holds the tables its statement names from OPEN to its close (SQ_CLOSE,
release, end of transaction, end of session), not just while SQLite is
reading.  ddl_runner consults it before such DDL.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

NON_EXCLUSIVE = -106
"""ISAM -106 "non-exclusive access" (IBM JDBC 15.0.1.0 message catalog,
isam_en_US.properties), under sqlcode -242."""


class TableUse:
    """Per database: table name -> sessions that have it open (with a count
    of their open cursors on it), and the tables each open transaction wrote."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, dict[int, int]] = {}
        self._written: dict[int, set[str]] = {}

    def hold(self, session: int, names: Iterable[str]) -> Callable[[], None]:
        """A cursor of ``session`` opened on ``names``; the function that
        lets them go (once, however often it is called)."""
        held = tuple(names)
        with self._lock:
            for name in held:
                users = self._open.setdefault(name, {})
                users[session] = users.get(session, 0) + 1
        done = False

        def release() -> None:
            nonlocal done
            if done:
                return
            done = True
            with self._lock:
                for name in held:
                    users = self._open.get(name, {})
                    users[session] = users.get(session, 1) - 1
                    if users[session] <= 0:
                        users.pop(session, None)
                    if not users:
                        self._open.pop(name, None)
        return release

    def wrote(self, session: int, name: str) -> None:
        """``session``'s open transaction writes ``name`` (locks rows of it)."""
        with self._lock:
            self._written.setdefault(session, set()).add(name)

    def tx_ended(self, session: int) -> None:
        with self._lock:
            self._written.pop(session, None)

    def holder(self, session: int, names: Iterable[str]) -> str | None:
        """The first of ``names`` another session has open or wrote, if any."""
        with self._lock:
            for name in names:
                if any(s != session for s in self._open.get(name, ())):
                    return name
                if any(name in tables for s, tables in self._written.items() if s != session):
                    return name
        return None
