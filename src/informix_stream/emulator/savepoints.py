"""SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE SAVEPOINT in a session.

Mixed into engine.Session, which provides ``_in_tx``, ``_conn`` (the
session's SQLite connection), ``_savepoints`` (name -> declared UNIQUE, in
declaration order), ``_ddl_in_tx`` and ``_db``.
"""

from __future__ import annotations

from .statements import NOT_SUPPORTED, SqlError


class Savepoints:
    """The savepoint statements of one database session."""

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
            self._conn.execute(f"ROLLBACK TO SAVEPOINT sp_{name}")
            later = list(names)[list(names).index(name) + 1:]
            for other in later:
                del names[other]
            if self._ddl_in_tx:
                self._db.reload(self._conn)
        else:
            self._conn.execute(f"RELEASE SAVEPOINT sp_{name}")
            later = list(names)[list(names).index(name):]
            for other in later:
                del names[other]
