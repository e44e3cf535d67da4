"""SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE SAVEPOINT statements.

A mixin of the engine's Session (IBM Informix Guide to SQL: Syntax,
"SAVEPOINT statement", 11.50 and later): a savepoint exists only inside a
transaction; reusing a name replaces the earlier savepoint; rolling back to
one forgets the savepoints set after it, and undoes the DDL they covered
(the catalog is reloaded).  The statement-level savepoints the engine sets
itself around each statement are StatementSavepoint, below.
"""

from __future__ import annotations

import itertools
import sqlite3

from .catalog import Database
from .sqlite_errors import map_error
from .statements import NOT_SUPPORTED, SqlError, StatementKind


class UserSavepoints:
    """Needs the Session's _conn, _db, _in_tx, _ddl_in_tx, _savepoints and
    _ddl_undone."""

    def _savepoint(self, option: tuple) -> None:
        """SAVEPOINT / ROLLBACK TO SAVEPOINT / RELEASE SAVEPOINT inside a
        transaction (IBM: "SAVEPOINT statement", Informix 11.50+)."""
        action, name = option[0], option[1]
        if not self._in_tx:
            raise SqlError(-255, message="savepoints exist only inside a transaction")
        names = self._savepoints
        if action == "SAVEPOINT":
            if name in names and names[name]:
                raise SqlError(NOT_SUPPORTED, message=(
                    f"savepoint {name} was declared UNIQUE; the emulator does not know "
                    "the server's error code for reusing it"))
            if name in names:
                # A reused name replaces the earlier savepoint: release it first.
                self._conn.execute(f"RELEASE SAVEPOINT sp_{name}")
                del names[name]
            self._conn.execute(f"SAVEPOINT sp_{name}")
            names[name] = option[2]
            return
        if name is None:
            raise SqlError(NOT_SUPPORTED,
                           message="ROLLBACK TO SAVEPOINT without a name is not supported "
                                   "by the emulator")
        if name not in names:
            raise SqlError(-201, message=f"savepoint {name} does not exist")
        if action == "ROLLBACK TO SAVEPOINT":
            kept = self._temps.keep_unlogged(self._conn)   # temp_tables: WITH NO LOG
            self._conn.execute(f"ROLLBACK TO SAVEPOINT sp_{name}")
            later = list(names)[list(names).index(name) + 1:]
            for other in later:
                del names[other]
            if self._ddl_in_tx:
                self._db.reload(self._conn)
                self._temps.forget_missing(self._conn)
                self._ddl_undone()
            self._temps.restore_unlogged(self._conn, kept)
        else:
            self._conn.execute(f"RELEASE SAVEPOINT sp_{name}")
            later = list(names)[list(names).index(name):]
            for other in later:
                del names[other]


class StatementSavepoint:
    """Make several SQLite statements one unit, inside or outside BEGIN WORK."""

    _names = itertools.count(1)

    def __init__(self, conn: sqlite3.Connection, kind: StatementKind, db: Database) -> None:
        self.conn, self.kind, self.db = conn, kind, db
        self.name = f"ifx_sp{next(self._names)}"

    def __enter__(self) -> "StatementSavepoint":
        self.conn.execute(f"SAVEPOINT {self.name}")
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            try:
                self.conn.execute(f"RELEASE {self.name}")
                return
            except sqlite3.Error as err:
                exc = err
        if self.conn.in_transaction:      # an interrupt undid it all (refuse_lost_tx)
            self.conn.execute(f"ROLLBACK TO {self.name}")
            self.conn.execute(f"RELEASE {self.name}")
        if isinstance(exc, sqlite3.Error):
            raise map_error(exc, self.kind, self.db) from None
