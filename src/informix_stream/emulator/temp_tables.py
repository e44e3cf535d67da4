"""A session's TEMP tables, as Informix has them.

IBM's SQL Syntax ("Declaring a name for a temporary table", CREATE TEMP
TABLE): a temporary table belongs to the session that created it, not to the
database; other sessions may create temp tables of the same name; in its
session a temp table takes precedence over a permanent table of the same
name; it cannot be qualified by an owner; it is dropped when the session
ends (or by DROP TABLE).  It does not appear in the database's systables.

The emulator keeps each one as an ordinary table of the database's SQLite
file under a storage name of its own (``_ifx_tmp<session>_<name>``), so the
session's reader connections see it like any table while no other session
can name it: the dialect resolves names through this session's tables first
and emits the storage name (``TableDef.storage``).  Storage tables left by an
emulator that stopped without closing its sessions are dropped when the
database is opened (``drop_orphans``).

A temp table created WITH NO LOG keeps its rows through a ROLLBACK: "DML
operations on the temporary table are not included in the transaction log
records" (IBM Guide to SQL: Syntax, "Using the WITH NO LOG option",
ids_sqs_0575), and without the log "rolling back a transaction on a
temporary table will no longer undo the work in the temporary table"
(Administrator's Reference, "TEMPTAB_NOLOG configuration parameter",
ids_adr_0183).  The CREATE itself is DDL and is logged (ids_sqs_0575), so a
table created in the transaction is gone after its ROLLBACK.  SQLite undoes
every table of the file together, so the session copies such tables' rows
before a rollback and puts them back after it (``keep_unlogged``,
``restore_unlogged``); BYTE/TEXT values are copied as their bytes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence

from . import blobs
from .catalog import column_sql, sqlite_index
from .statements import NOT_SUPPORTED, CreateIndex, CreateTable, SqlError, TableDef, sql_ident

Kept = list[tuple[TableDef, list[tuple]]]     # WITH NO LOG tables' rows over a rollback

PREFIX = "_ifx_tmp"


class TempTables:
    """The TEMP tables of one session, by their Informix names."""

    def __init__(self, session_id: int) -> None:
        self.prefix = f"{PREFIX}{session_id}_"
        self.tables: dict[str, TableDef] = {}
        self.indexes: dict[str, str] = {}       # index name -> storage index name
        self.version = 0                        # moved on by every change
        self.unlogged: set[str] = set()         # names created WITH NO LOG

    def lookup(self, permanent: Mapping[str, TableDef]) -> Callable[[str], TableDef | None]:
        """Name resolution for this session: its temp tables shadow the database's."""
        if not self.tables:
            return permanent.get
        temps = self.tables
        return lambda name: temps.get(name) or permanent.get(name)

    def create(self, conn: sqlite3.Connection, ddl: CreateTable,
               values: Sequence[object] = ()) -> int:
        """CREATE TEMP TABLE, or SELECT ... INTO TEMP (returns the rows it put in)."""
        if ddl.name in self.tables:
            if ddl.if_not_exists:
                return 0
            # -958, not the permanent tables' -310: the catalog has a code of
            # its own for a name the session's temp tables already hold (IBM
            # JDBC 15.0.1.0 message catalog, sql_en_US.properties: "Temp table
            # (%s) already exists in session"; not observed on a server)
            raise SqlError(-958, 0, ddl.name, f"temp table {ddl.name} already exists "
                                              "in this session")
        if ddl.references:
            raise SqlError(NOT_SUPPORTED, 0, ddl.name, "FOREIGN KEY/REFERENCES on a TEMP table "
                           "is not supported by the emulator")
        storage = self.prefix + ddl.name
        body = [column_sql(c) for c in ddl.columns] + [f"CHECK {c}" for c in ddl.checks]
        conn.execute(f'CREATE TABLE {sql_ident(storage)} ({", ".join(body)})')
        for trigger in blobs.triggers(storage, ddl.columns):
            conn.execute(trigger)
        for seq, (_, cols, _) in enumerate(ddl.uniques, start=1):
            names = ", ".join(sql_ident(c) for c in cols)
            conn.execute(f"CREATE UNIQUE INDEX {sql_ident(f'{storage}_u{seq}')}"
                         f" ON {sql_ident(storage)} ({names})")
        tdef = TableDef(ddl.name, list(ddl.columns), False, storage)
        self.tables[ddl.name] = tdef
        if ddl.no_log:
            self.unlogged.add(ddl.name)
        self.version += 1
        if not ddl.as_select:
            return 0
        names = ", ".join(sql_ident(c.name) for c in ddl.columns)
        return conn.execute(f'INSERT INTO {sql_ident(storage)} ({names}) {ddl.as_select}',
                            values).rowcount

    def drop(self, conn: sqlite3.Connection, name: str) -> TableDef:
        tdef = self.tables.pop(name)
        self.unlogged.discard(name)
        self.version += 1
        blobs.free_table(conn, tdef.storage, tdef.columns)
        conn.execute(f'DROP TABLE {sql_ident(tdef.storage)}')
        for index in [k for k, v in self.indexes.items() if v.startswith(tdef.storage + "_")]:
            del self.indexes[index]
        return tdef

    def create_index(self, conn: sqlite3.Connection, ddl: CreateIndex) -> None:
        tdef = self.tables[ddl.table]
        if ddl.name in self.indexes:
            raise SqlError(-316, 0, ddl.name, f"index {ddl.name} already exists")
        for col in ddl.columns:
            if tdef.column(col) is None:
                raise SqlError(-217, 0, col, f"column {col} not found")
        storage = f"{tdef.storage}_{ddl.name}"
        sqlite_index(conn, ddl.name, storage, tdef.storage, ddl.columns, ddl.unique)
        self.indexes[ddl.name] = storage
        self.version += 1

    def drop_index(self, conn: sqlite3.Connection, name: str) -> None:
        conn.execute(f'DROP INDEX {sql_ident(self.indexes.pop(name))}')
        self.version += 1

    def forget_missing(self, conn: sqlite3.Connection) -> None:
        """After a ROLLBACK: a temp table created in the transaction is gone."""
        present = {name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE substr(name, 1, ?) = ?",
            (len(self.prefix), self.prefix))}
        for name in [n for n, t in self.tables.items() if t.storage not in present]:
            del self.tables[name]
            self.unlogged.discard(name)
            self.version += 1
        for name in [n for n, s in self.indexes.items() if s not in present]:
            del self.indexes[name]

    def keep_unlogged(self, conn: sqlite3.Connection) -> Kept:
        """Before a rollback: the rows of every WITH NO LOG table, BYTE/TEXT
        cells as their bytes (the rollback may take back their _ifx_blobs rows)."""
        kept: Kept = []
        for name in sorted(self.unlogged):
            tdef = self.tables[name]
            cells = [f"(SELECT data FROM _ifx_blobs WHERE id = {sql_ident(c.name)} >> 32)"
                     if c.type.code in blobs.STORED_CODES else sql_ident(c.name)
                     for c in tdef.columns]
            rows = conn.execute(f"SELECT {', '.join(cells)} FROM {sql_ident(tdef.storage)}"
                                " ORDER BY rowid").fetchall()
            kept.append((tdef, rows))
        return kept

    def restore_unlogged(self, conn: sqlite3.Connection, kept: Kept) -> None:
        """After a rollback: each kept table that still exists (its CREATE
        was not undone) gets back the rows it had (see the module's notes)."""
        for tdef, rows in kept:
            if self.tables.get(tdef.name) is not tdef:
                continue
            table = sql_ident(tdef.storage)
            names = ", ".join(sql_ident(c.name) for c in tdef.columns)
            marks = ", ".join("?" for _ in tdef.columns)
            conn.execute(f"DELETE FROM {table}")
            conn.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)

    def drop_all(self, conn: sqlite3.Connection) -> None:
        """The session ends: its temp tables go with it."""
        for name in list(self.tables):
            self.drop(conn, name)


def drop_orphans(conn: sqlite3.Connection) -> None:
    """Drop storage tables of sessions that ended without closing."""
    names = [name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ?",
        (len(PREFIX), PREFIX))]
    for name in names:
        conn.execute(f'DROP TABLE IF EXISTS {sql_ident(name)}')
