"""SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE SAVEPOINT statements.

A mixin of the engine's Session (IBM Informix Guide to SQL: Syntax,
"SAVEPOINT statement", 11.50 and later): a savepoint exists only inside a
transaction; reusing a name replaces the earlier savepoint; rolling back to
one forgets the savepoints set after it, and undoes the DDL they covered
(the catalog is reloaded).  The statement-level savepoints the engine sets
itself around each statement are engine._Savepoint, not these.
"""

from __future__ import annotations

from .statements import NOT_SUPPORTED, SqlError


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

