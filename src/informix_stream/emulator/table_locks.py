"""LOCK TABLE and UNLOCK TABLE in a session, and what other sessions meet.

What the server does (IBM Informix Guide to SQL: Syntax, "LOCK TABLE
statement", ids_sqs_0889, with "Databases with transaction logging",
ids_sqs_0892, and "Databases without transaction logging", ids_sqs_0893;
"UNLOCK TABLE statement", ids_sqs_1253; codes and texts from IBM JDBC
15.0.1.0 message catalog, sql_en_US.properties / isam_en_US.properties):

* SHARE lets other sessions read the table and not change it; EXCLUSIVE
  lets them neither, except Dirty Read readers, which table locks do not
  stop ("Concurrent Access to Tables with Exclusive Locks", Guide to SQL:
  Syntax 11.50: an exclusive lock "cannot prevent them from opening the
  table for ... Dirty Read operations").  Their statements get the lock
  error of their kind (-244 read, -271 insert, -346 update, -240 delete,
  -242 DDL; sqlite_errors.LOCK_CODES) with ISAM -113 "the file is locked"
  (IBM finderr -113: a table "locked explicitly using the LOCK TABLE
  statement"), at once under SET LOCK MODE TO NOT WAIT, after the wait
  under WAIT [n]; two sessions that would each wait for the other's table
  lock get ISAM -143 "deadlock detected" instead (the one that would close
  the circle), rather than both waiting forever under WAIT;
* LOCK TABLE itself fails with -289 "Cannot lock table in requested mode"
  when another session holds the table EXCLUSIVE, or holds it SHARE and
  EXCLUSIVE is asked (ids_sqs_0889), or holds rows of it in an open
  transaction (ISAM -107); it waits under SET LOCK MODE TO WAIT as well;
* in a database with logging it succeeds only inside a transaction: -524
  "Lock table can only be used within a transaction"; the locks go at
  COMMIT WORK / ROLLBACK WORK; the mode cannot be switched within the
  transaction: -291 "Cannot change lock mode of table";
* UNLOCK TABLE is for databases without logging: inside a transaction it is
  -327 "Cannot unlock table within a transaction", and a table the session
  did not lock is -288 "Table not locked by current user"; there the locks
  last until UNLOCK TABLE, CLOSE DATABASE or the end of the session, and a
  new mode needs an UNLOCK first (-291);
* system catalog tables cannot be locked (ids_sqs_0892) and LOCK TABLE
  names a table, not a view (ids_sqs_1253); the server's codes for these
  are not known here, so the translator refuses them as not supported
  (translate_ddl.lock_table).

A TEMP table is the session's own: no other session can reach it, so its
lock is recorded nowhere.  What the emulator does not model: a table lock
taken while another session has a Cursor Stability or Repeatable Read
cursor open (shared row locks) goes through, and a cursor another session
opened before the lock goes on fetching (the check is made when a statement
starts, not at each row).

A mixin of ``engine.Session``: it uses ``_db``, ``_id``, ``_in_tx``,
``_temps``, ``_conn``, ``_readers``, ``isolation``, ``lock_wait_ms``, ``_wait_ms``
and ``_should_stop``.
"""

from __future__ import annotations

import time

from .sqlite_errors import LOCK_CODES
from .statements import SqlError, StatementKind
from .table_use import DEADLOCK, TABLE_LOCKED

# Wait for SQLite's database-wide write lock under NOT WAIT.  Informix locks
# rows, so two sessions writing different rows never conflict there; a short
# wait here stands in for that finer granularity before reporting a lock error.
DEFAULT_LOCK_WAIT_MS = 1000

_WRITES = frozenset({StatementKind.INSERT, StatementKind.UPDATE, StatementKind.DELETE,
                     StatementKind.MERGE, StatementKind.DDL})
_READS = frozenset({StatementKind.SELECT})


class TableLocks:
    """The LOCK TABLE half of a session (see engine.Session)."""

    def _table_lock_option(self, option: tuple) -> None:
        """("LOCK", name, mode) or ("UNLOCK", name), from the translator, or
        SET LOCK MODE."""
        if option[0] == "SET":
            self._set_lock_mode(option[3:])
            return
        name = option[1]
        if name in self._temps.tables:
            return                   # the session's own: nobody else can reach it
        if option[0] == "LOCK":
            self._lock_table(name, option[2])
        else:
            self._unlock_table(name)

    def _set_lock_mode(self, words: tuple) -> None:
        """SET LOCK MODE TO WAIT [n] | NOT WAIT: how long a statement waits
        for a lock (here, for SQLite's write lock too) before its error."""
        if words[:2] == ("TO", "WAIT"):
            wait = int(words[2]) * 1000 if len(words) > 2 else 2**31 - 1
        else:
            wait = DEFAULT_LOCK_WAIT_MS
        self._wait_ms = wait
        self.lock_wait_ms = wait if words[:2] == ("TO", "WAIT") else 0
        for conn in [self._conn] + [r[0] for r in self._readers]:
            if conn is not None:
                conn.execute(f"PRAGMA busy_timeout = {wait}")

    def _lock_table(self, name: str, mode: str) -> None:
        use = self._db.table_use
        if self._db.logging.logged and not self._in_tx:
            raise SqlError(-524, 0, name, "lock table can only be used within a transaction")
        held = use.lock_mode(self._id, name)
        if held == mode:
            return
        if held is not None:
            raise SqlError(-291, 0, name, f"cannot change lock mode of table {name}")
        deadline = time.monotonic() + self.lock_wait_ms / 1000
        try:
            while (hit := use.try_lock(self._id, name, mode)) is not None:
                isam, blockers = hit
                if time.monotonic() >= deadline:
                    raise SqlError(-289, isam, name,
                                   f"cannot lock table ({name}) in requested mode")
                if not use.waiting(self._id, blockers):
                    raise SqlError(-289, DEADLOCK, name, f"cannot lock table ({name}): "
                                   "deadlock detected")
                self._lock_pause()
        finally:
            use.done_waiting(self._id)

    def _unlock_table(self, name: str) -> None:
        if self._in_tx:
            raise SqlError(-327, 0, name, f"cannot unlock table ({name}) within a transaction")
        if not self._db.table_use.unlock(self._id, name):
            raise SqlError(-288, 0, name, f"table ({name}) not locked by current user")

    def _check_table_locks(self, stmt) -> None:
        """Before a statement runs: wait (as SET LOCK MODE says) while
        another session's LOCK TABLE keeps it off one of its tables, then
        the lock error of its kind with ISAM -113."""
        use = self._db.table_use
        kind = stmt.kind
        if not use.any_locks or kind not in _WRITES and (
                kind not in _READS or self.isolation == "DIRTY"):
            return
        names = [n for n in stmt.depends if n not in self._temps.tables]
        deadline = time.monotonic() + self.lock_wait_ms / 1000
        try:
            while (hit := use.locked_by_other(self._id, names, kind in _READS)) is not None:
                name, blockers = hit
                isam = TABLE_LOCKED if time.monotonic() >= deadline else (
                    None if use.waiting(self._id, blockers) else DEADLOCK)
                if isam is not None:
                    raise SqlError(LOCK_CODES.get(kind, -244), isam, name,
                                   f"table {name} is locked by another session's LOCK TABLE")
                self._lock_pause()
        finally:
            use.done_waiting(self._id)

    def _lock_pause(self) -> None:
        if self._should_stop():
            raise SqlError(-213, 0, "", "statement interrupted by user")
        time.sleep(0.002)
