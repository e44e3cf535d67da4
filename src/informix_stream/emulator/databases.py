"""The databases one emulator serves, and their life: create, clone, drop.

Each database is a SQLite file named after it in the engine's root
directory.  Databases named when the server is built exist from the start
(logged, as before); ``CREATE DATABASE``/``DROP DATABASE`` and the pytest
harness add and remove others while it runs.  Cloning copies a database
file as it stands (SQLite's backup API, so a consistent committed state
even while others use the source): the pytest harness gives every test a
fresh database this way, with the session's schema already in it, in about
a millisecond instead of a schema load per test.

Rules are the server's: a database in use by another session cannot be
dropped (-425), the current one cannot (-359, checked by the SQLI session),
a name already taken cannot be created again (-330), a missing one is -329
(IBM, "DROP DATABASE statement" and "CREATE DATABASE statement", SQL
Syntax; the codes and texts are in the IBM JDBC 15.0.1.0 message catalog,
sql_en_US.properties).
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import weakref
from typing import Callable, Protocol, TypeVar

from informix_stream.locales import DEFAULT_LOCALE, Locale

from .catalog import Database
from .logmode import Logging, write_logging
from .statements import SqlError
from .temp_tables import drop_orphans

# Informix database names: an identifier of at most 128 bytes.  Anything
# else is refused before it becomes part of a file name.
_NAME = re.compile(r"[a-z_][a-z0-9_$]{0,127}\Z")


class _User(Protocol):
    """What the set needs of a session using one of its databases."""

    @property
    def closed(self) -> bool: ...


_U = TypeVar("_U", bound=_User)


def check_name(name: str) -> str:
    """The database name as the server keys it (lower case), or -354."""
    key = name.lower()
    if not _NAME.match(key):
        raise SqlError(-354, 0, name[:128], f"incorrect database name format: {name!r}")
    return key


class DatabaseSet:
    """Named databases under one directory, with who is using each."""

    def __init__(self, root: str, durable: bool) -> None:
        self._root = root
        self._durable = durable
        self._dbs: dict[str, Database] = {}
        self._users: dict[str, weakref.WeakSet[_User]] = {}
        self._lock = threading.RLock()

    def _path(self, key: str) -> str:
        return os.path.join(self._root, f"{key}.db")

    def _open(self, key: str, locale: Locale = DEFAULT_LOCALE) -> Database:
        """Open (or make) the file; a stored database keeps its own locale."""
        db = Database(key, self._path(key), durable=self._durable, locale=locale)
        drop_orphans(db.keeper)
        self._dbs[key] = db
        self._users[key] = weakref.WeakSet()
        return db

    # -- lookup ------------------------------------------------------------------
    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._dbs)

    def all(self) -> list[Database]:
        """Every database served now (sysmaster.py lists them)."""
        with self._lock:
            return list(self._dbs.values())

    def get(self, name: str) -> Database | None:
        return self._dbs.get(name.lower())

    def open_session(self, name: str, make: Callable[[Database], _U]) -> _U:
        """``make(db)`` for the named database, recorded as using it until it
        reports closed; under the set's lock, so a drop cannot slip between
        finding the database and using it (-329 if there is none)."""
        with self._lock:
            db = self._dbs.get(name.lower())
            if db is None:
                raise SqlError(-329, -111, name, f"database {name} not found")
            user = make(db)
            self._users[db.name].add(user)
            return user

    def sessions(self, name: str | None = None) -> list:
        """Sessions that have a database (``name``, or any) open now."""
        with self._lock:
            groups = (self._users.values() if name is None
                      else [self._users.get(name.lower(), ())])
            return [u for users in groups for u in list(users) if not u.closed]

    def in_use(self, name: str) -> int:
        """How many sessions have the database open now."""
        return len(self.sessions(name))

    # -- life --------------------------------------------------------------------
    def open_existing(self, name: str, locale: Locale = DEFAULT_LOCALE) -> Database:
        """A database named at server construction: opened, or made logged
        (in ``locale`` when it is new)."""
        key = check_name(name)
        with self._lock:
            return self._dbs.get(key) or self._open(key, locale)

    def discover(self) -> None:
        """Open every database file already in the directory (a data directory
        keeps what CREATE DATABASE made in an earlier run)."""
        for entry in sorted(os.listdir(self._root)):
            stem, ext = os.path.splitext(entry)
            if ext == ".db" and _NAME.match(stem):
                self.open_existing(stem)

    def create(self, name: str, logging: Logging = Logging.UNBUFFERED,
               locale: Locale = DEFAULT_LOCALE) -> Database:
        """A new empty database with the given logging mode and locale (-330
        if taken): CREATE DATABASE makes it in the creating session's
        DB_LOCALE (IBM GLS User's Guide)."""
        key = check_name(name)
        with self._lock:
            self._refuse_taken(key)
            conn = sqlite3.connect(self._path(key))
            try:
                write_logging(conn, logging)
            finally:
                conn.close()
            return self._open(key, locale)

    def clone(self, source: str, name: str) -> Database:
        """A new database holding what ``source`` has committed, same mode."""
        key = check_name(name)
        with self._lock:
            src = self._dbs.get(source.lower())
            if src is None:
                raise SqlError(-329, -111, source, f"database {source} not found")
            self._refuse_taken(key)
            with src.lock:
                src.flush()
                dst = sqlite3.connect(self._path(key))
                try:
                    src.keeper.backup(dst)
                finally:
                    dst.close()
            return self._open(key)

    def drop(self, name: str) -> None:
        """Close and delete a database no session is using (-425 otherwise)."""
        key = name.lower()
        with self._lock:
            db = self._dbs.get(key)
            if db is None:
                raise SqlError(-329, -111, name, f"database {name} not found")
            if self.in_use(key):
                raise SqlError(-425, -107, name, "database is currently opened by another user")
            del self._dbs[key]
            del self._users[key]
            db.close()
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(db.path + suffix)
                except FileNotFoundError:
                    pass

    def close(self) -> None:
        with self._lock:
            for db in self._dbs.values():
                db.close()

    def _refuse_taken(self, key: str) -> None:
        if key in self._dbs or os.path.exists(self._path(key)):
            raise SqlError(-330, -100, key, f"cannot create database {key}: it exists")
