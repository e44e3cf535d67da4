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

TRUNCATE is stricter: IBM's "Restrictions on the TRUNCATE statement"
(Guide to SQL: Syntax, ids_sqs_1242) lists "one or more cursors are open on
the table" beside Dirty Read readers and existing locks, so any other
session's open cursor refuses it, a COMMITTED READ one too.

SQLite lets a connection drop a table another connection is reading (the
reader keeps its snapshot), so the emulator keeps this record itself: a
transaction holds the tables it wrote until it ends; a protocol cursor
holds the tables its statement names from OPEN to its close (SQ_CLOSE,
release, end of transaction, end of session), not just while SQLite is
reading: against TRUNCATE always, against the other DDL when opened under
an isolation that keeps DDL out (ddl_runner._set_isolation).  ddl_runner
consults it before such DDL.

It also keeps the table locks LOCK TABLE takes (table_locks.py has the
server's rules): which sessions hold each table SHARE or EXCLUSIVE, until the
transaction ends (a logged database) or UNLOCK TABLE / the end of the
session (an unlogged one).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

NON_EXCLUSIVE = -106
"""ISAM -106 "non-exclusive access" (IBM JDBC 15.0.1.0 message catalog,
isam_en_US.properties), under sqlcode -242."""
ROW_LOCKED = -107
"""ISAM -107 "record is locked": rows another open transaction holds."""
TABLE_LOCKED = -113
"""ISAM -113 "the file is locked": a table another session locked with LOCK
TABLE (IBM finderr -113: "when a user attempts to access a table that has
been locked ... tables are locked explicitly using the LOCK TABLE
statement"; IBM JDBC 15.0.1.0 message catalog, isam_en_US.properties)."""
DEADLOCK = -143
"""ISAM -143 "deadlock detected" (IBM JDBC 15.0.1.0 message catalog)."""
SHARE, EXCLUSIVE = "SHARE", "EXCLUSIVE"


class TableUse:
    """Per database: table name -> sessions that have it open (with a count
    of their open cursors on it), kept twice: every cursor (TRUNCATE is
    refused by any, IBM's "Restrictions on the TRUNCATE statement") and the
    cursors whose isolation locks (the rest of the DDL); and the tables each
    open transaction wrote."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._locking: dict[str, dict[int, int]] = {}
        self._reading: dict[str, dict[int, int]] = {}
        self._written: dict[int, set[str]] = {}
        self._locks: dict[str, dict[int, str]] = {}     # LOCK TABLE: name -> {session: mode}
        self._waits: dict[int, frozenset[int]] = {}     # session -> lock holders it waits for

    def hold(self, session: int, names: Iterable[str], *,
             locking: bool) -> Callable[[], None]:
        """A cursor of ``session`` opened on ``names`` (``locking``: under an
        isolation that keeps DDL out); the function that lets them go (once,
        however often it is called)."""
        held = tuple(names)
        maps = (self._reading, self._locking) if locking else (self._reading,)
        with self._lock:
            for users in maps:
                _count(users, session, held, 1)
        done = False

        def release() -> None:
            nonlocal done
            if done:
                return
            done = True
            with self._lock:
                for users in maps:
                    _count(users, session, held, -1)
        return release

    def wrote(self, session: int, name: str) -> None:
        """``session``'s open transaction locks rows of ``name`` until it
        ends: it wrote them, or read them under REPEATABLE READ."""
        with self._lock:
            self._written.setdefault(session, set()).add(name)

    def tx_ended(self, session: int) -> None:
        """``session``'s transaction ended: its row and table locks go
        (COMMIT WORK and ROLLBACK WORK release "all row and table locks",
        IBM Guide to SQL: Syntax, ids_sqs_0340, ids_sqs_0892)."""
        with self._lock:
            self._written.pop(session, None)
            self._drop_locks(session)

    def session_ended(self, session: int) -> None:
        """``session`` closed its database: its table locks go (ids_sqs_0893)."""
        with self._lock:
            self._drop_locks(session)

    def _drop_locks(self, session: int) -> None:
        for name in [n for n, owners in self._locks.items() if session in owners]:
            del self._locks[name][session]
            if not self._locks[name]:
                del self._locks[name]

    def holder(self, session: int, names: Iterable[str], *,
               any_cursor: bool = False) -> str | None:
        """The first of ``names`` another session has open or wrote, if any
        (``any_cursor``: a cursor under any isolation counts, as for TRUNCATE),
        or holds with LOCK TABLE."""
        cursors = self._reading if any_cursor else self._locking
        with self._lock:
            for name in names:
                if any(s != session for s in cursors.get(name, ())):
                    return name
                if any(name in tables for s, tables in self._written.items() if s != session):
                    return name
                if any(s != session for s in self._locks.get(name, ())):
                    return name
        return None

    # -- LOCK TABLE ------------------------------------------------------------
    def try_lock(self, session: int, name: str,
                 mode: str) -> tuple[int, frozenset[int]] | None:
        """LOCK TABLE ``name`` IN ``mode`` MODE for ``session``: None when it
        now holds it, else the ISAM code of what stands in the way and the
        sessions that hold it: another session's table lock that the mode
        cannot share (-113), or rows another open transaction holds (-107)."""
        with self._lock:
            others = {s: m for s, m in self._locks.get(name, {}).items() if s != session}
            if others and (mode == EXCLUSIVE or EXCLUSIVE in others.values()):
                return TABLE_LOCKED, frozenset(others)
            writers = frozenset(s for s, tables in self._written.items()
                                if s != session and name in tables)
            if writers:
                return ROW_LOCKED, writers
            self._locks.setdefault(name, {})[session] = mode
        return None

    def unlock(self, session: int, name: str) -> bool:
        """UNLOCK TABLE: False when ``session`` holds no lock on ``name``."""
        with self._lock:
            owners = self._locks.get(name, {})
            if session not in owners:
                return False
            del owners[session]
            if not owners:
                del self._locks[name]
        return True

    @property
    def any_locks(self) -> bool:
        """Does any session hold a LOCK TABLE lock (the cheap test before
        every statement)?"""
        return bool(self._locks)

    def lock_mode(self, session: int, name: str) -> str | None:
        """The mode ``session`` holds ``name`` in, if it locked it."""
        return self._locks.get(name, {}).get(session)

    def locked_by_other(self, session: int, names: Iterable[str],
                        exclusive_only: bool) -> tuple[str, frozenset[int]] | None:
        """The first of ``names`` another session holds a table lock on (one
        in EXCLUSIVE mode when ``exclusive_only``: what keeps a reader out),
        with the sessions that hold it."""
        if not self._locks:
            return None
        with self._lock:
            for name in names:
                others = {s: m for s, m in self._locks.get(name, {}).items() if s != session}
                if others and (not exclusive_only or EXCLUSIVE in others.values()):
                    return name, frozenset(others)
        return None

    def waiting(self, session: int, blockers: Iterable[int]) -> bool:
        """``session`` waits for a table lock ``blockers`` hold: False, and
        nothing recorded, when one of them already waits (directly or through
        others) for ``session``, a deadlock the server reports with ISAM
        -143 "deadlock detected" rather than let both wait forever."""
        blockers = frozenset(blockers)
        with self._lock:
            todo, seen = list(blockers), set()
            while todo:
                other = todo.pop()
                if other == session:
                    return False
                if other not in seen:
                    seen.add(other)
                    todo.extend(self._waits.get(other, ()))
            self._waits[session] = blockers
        return True

    def done_waiting(self, session: int) -> None:
        with self._lock:
            self._waits.pop(session, None)


def _count(users_of: dict[str, dict[int, int]], session: int,
           names: tuple[str, ...], step: int) -> None:
    """Add ``step`` to ``session``'s count of cursors on each of ``names``,
    forgetting counts that reach zero."""
    for name in names:
        users = users_of.setdefault(name, {})
        users[session] = users.get(session, 0) + step
        if users[session] <= 0:
            del users[session]
        if not users:
            del users_of[name]
