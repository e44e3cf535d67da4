"""The sysmaster tables clients query when they connect, read through a
``sysmaster:`` prefix from any database.

A real server keeps a ``sysmaster`` database whose tables describe the
instance.  Drivers and tools read a few of them at connect: IBM's JDBC
driver runs ``select is_ansi, is_logging from
sysmaster:informix.sysdatabases where name = ...``
(IfxSqliConnect.xaSetSerWarnFlags), tools probe ``sysmaster:sysdual`` and
list databases and their locales from ``sysdatabases`` and
``sysdbslocale``.  The emulator serves those three, always current: each
session connection has a TEMP view per table over ``ifx_sysmaster(name)``,
a function that describes the engine's databases as they are at the moment
of the query (so CREATE/DROP DATABASE show at once, with nothing to keep
in step).  Any other sysmaster table is "not supported by the emulator"
(dbprefix.py), never read from the current database.

Columns, types and order are IBM's: Administrator's Reference, "The
sysmaster database" (topics ids_adr_0221 sysdatabases, ids_adr_0222
sysdbslocale, ids_adr_0225 sysdual).  Values the emulator does not have
are fixed: owner ``informix`` (the emulator's one user), partnum
0x100000 * n + 1 (the shape of a tblspace number; n is the database's
place in name order), is_nls and is_case_insens 0.  flags carries the
documented logging bits (1 unbuffered, 2 buffered, 4 ANSI).
"""

from __future__ import annotations

import json
import sqlite3
import weakref
from typing import TYPE_CHECKING, Callable, Sequence

from informix_stream.codecs import parse_type

from .logmode import Logging
from .statements import NOT_SUPPORTED, ColumnDef, SqlError, TableDef

if TYPE_CHECKING:
    from .catalog import Database
    from .databases import DatabaseSet

__all__ = ["NAME", "TABLES", "lookup", "install", "check_table", "ensure"]

NAME = "sysmaster"
OWNER = "informix"

_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "sysdatabases": [("name", "CHAR(128)"), ("partnum", "INTEGER"), ("owner", "CHAR(32)"),
                     ("created", "DATE"), ("is_logging", "INTEGER"),
                     ("is_buff_log", "INTEGER"), ("is_ansi", "INTEGER"),
                     ("is_nls", "INTEGER"), ("is_case_insens", "INTEGER"),
                     ("flags", "SMALLINT")],
    "sysdbslocale": [("dbs_dbsname", "CHAR(128)"), ("dbs_collate", "CHAR(32)")],
    "sysdual": [("dummy", "CHAR(1)")],
}

# The lookup key a ``sysmaster:[owner.]table`` reference becomes (dbprefix):
# it holds a colon, so no identifier a user writes can name it.
TABLES: dict[str, TableDef] = {
    f"{NAME}:{name}": TableDef(name, [ColumnDef(c, parse_type(t)) for c, t in cols],
                               storage=f"_ifx_sysmaster_{name}", view=True)
    for name, cols in _COLUMNS.items()}

Databases = Callable[[], Sequence["Database"]]


def check_table(name: str) -> str:
    """The lookup key of sysmaster table ``name``, or "not supported"."""
    key = f"{NAME}:{name}"
    if key not in TABLES:
        raise SqlError(NOT_SUPPORTED,
                       message=f"the sysmaster table {name} is not supported by the emulator "
                       f"(it serves {', '.join(sorted(_COLUMNS))})")
    return key


def lookup(base: Callable[[str], TableDef | None],
           current: str = "") -> Callable[[str], TableDef | None]:
    """Name resolution that also knows the sysmaster keys; in the sysmaster
    database itself (``current``) the served tables answer to their names."""
    if current.lower() == NAME:
        return lambda name: TABLES.get(name) or TABLES.get(f"{NAME}:{name}") or base(name)
    return lambda name: TABLES.get(name) or base(name)


def ensure(databases: "DatabaseSet", opened: str) -> None:
    """The sysmaster database, made when a client first opens it (``opened``
    is the name the client asked for).  IBM
    Administrator's Reference, "The sysmaster Database" (ids_adr_0200): the
    server creates it when it initializes disk space, with unbuffered
    logging; the emulator makes it on first use so that its listing of
    databases shows it only once a client asked for it (tests that count
    databases stay as they were)."""
    if opened.lower() == NAME and databases.get(NAME) is None:
        try:
            databases.create(NAME, Logging.UNBUFFERED)
        except SqlError:            # another session made it in between
            if databases.get(NAME) is None:
                raise


def install(conn: sqlite3.Connection, databases: Databases) -> None:
    """Give a session connection the sysmaster views over ``databases()``."""
    conn.create_function("ifx_sysmaster", 1, lambda name: _rows_json(name, databases),
                         deterministic=False)
    for name, cols in _COLUMNS.items():
        picks = ", ".join(f"json_extract(value, '$[{i}]') AS {col}"
                          for i, (col, _) in enumerate(cols))
        conn.execute(f'CREATE TEMP VIEW IF NOT EXISTS "_ifx_sysmaster_{name}" AS '
                     f"SELECT {picks} FROM json_each(ifx_sysmaster('{name}'))")


def _rows_json(name: str, databases: Databases) -> str:
    if name == "sysdual":
        return '[["X"]]'
    dbs = sorted((db for db in databases() if not db.closed), key=lambda db: db.name)
    if name == "sysdbslocale":
        return json.dumps([[db.name, db.locale.name] for db in dbs])
    return json.dumps([_database_row(n, db) for n, db in enumerate(dbs, start=1)])


def _database_row(n: int, db: "Database") -> list[object]:
    mode = db.logging
    flags = {Logging.NONE: 0, Logging.UNBUFFERED: 1, Logging.BUFFERED: 2,
             Logging.ANSI: 5}[mode]
    return [db.name, 0x100000 * n + 1, OWNER, _created(db), int(mode.logged),
            int(mode is Logging.BUFFERED), int(mode is Logging.ANSI), 0, 0, flags]


_CREATED: "weakref.WeakKeyDictionary[Database, int | None]" = weakref.WeakKeyDictionary()


def _created(db: "Database") -> int | None:
    """The day the database was made: its systables row's ``created`` (a
    day number, as DATE is stored), read once on a connection of its own so
    no other session's lock is taken."""
    if db not in _CREATED:
        conn = sqlite3.connect(f"file:{db.path}?mode=ro", uri=True, timeout=1.0)
        try:
            row = conn.execute("SELECT created FROM _ifx_tables WHERE tabid = 1").fetchone()
        except sqlite3.Error:
            row = None
        finally:
            conn.close()
        _CREATED[db] = row[0] if row else None
    return _CREATED[db]
