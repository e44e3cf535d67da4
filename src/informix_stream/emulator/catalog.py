"""Each database's catalog: its SQLite file, the Informix system tables
(systables, syscolumns, ...) as views over the emulator's meta tables,
SERIAL counters, and the DDL that changes them (CREATE/DROP TABLE/INDEX)."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import threading
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

from informix_stream.codecs import ColumnType, TypeCode, parse_type
from informix_stream.errors import DataError
from informix_stream.locales import DEFAULT_LOCALE, Locale, parse_locale

from .statements import (IMAGE_COLUMN, SERIAL_CODES, Bind, ColumnDef, CreateIndex, CreateTable,
                         Drop, SqlError, TableDef, exact_decimal, sql_ident)
from . import blobs, composite, intervals, references, row_types, syscatalog
from .sequences import SEQUENCE_DDL, Sequences
from .spl_catalog import ROUTINE_DDL, SYSTEM_TABLES as SPL_SYSTEM_TABLES
from .table_use import TableUse
from .logmode import read_logging
from .typerules import TODAY_SQL
from .decimal_sql import ExactAvg, ExactSum, decimal_order
from .values import DAY0, TEXT_CODES, image_maker, writer_for

OWNER = syscatalog.OWNER
_STORAGE = {TypeCode.FLOAT: "REAL", TypeCode.SMALLFLOAT: "REAL", TypeCode.DECIMAL: "BLOB",
            TypeCode.MONEY: "BLOB", TypeCode.DATETIME: "TEXT", TypeCode.BYTE: "BLOB",
            TypeCode.TEXT: "BLOB",     # BYTE/TEXT: a reference into _ifx_blobs (blobs.py)
            TypeCode.BLOB: "BLOB", TypeCode.CLOB: "BLOB",    # so are BLOB/CLOB (slobs.py)
            TypeCode.JSON: "TEXT", TypeCode.BSON: "BLOB"}    # documents.py


# ---------------------------------------------------------------------------
# Catalog
# ---------------------------------------------------------------------------

@dataclass
class _Index:
    name: str
    table: str
    columns: list[str]
    unique: bool
    constraint: str | None      # 'P', 'U' or None for a plain index


# The locale rows of systables (tabids 90 and 91, tabtype 'L', the locale in
# ``site`` as the server names it: en_US.819, en_US.57372).
_LOCALE_DDL = """CREATE TABLE IF NOT EXISTS _ifx_locale (
    tabid INTEGER PRIMARY KEY, tabname TEXT NOT NULL, site TEXT NOT NULL)"""

_META_DDL = f"""
{_LOCALE_DDL};
CREATE TABLE IF NOT EXISTS _ifx_tables (
    tabid INTEGER PRIMARY KEY, tabname TEXT UNIQUE NOT NULL, owner TEXT, created INTEGER,
    tabtype TEXT, ncols INTEGER, rowsize INTEGER, serial_hw INTEGER DEFAULT 0,
    serial8_hw INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS _ifx_columns (
    tabid INTEGER, colno INTEGER, colname TEXT, coltype INTEGER, collength INTEGER,
    defsql TEXT, serial_start INTEGER DEFAULT 1, syscoltype INTEGER,
    extended_id INTEGER DEFAULT 0, PRIMARY KEY (tabid, colno));
CREATE TABLE IF NOT EXISTS _ifx_indexes (
    idxname TEXT PRIMARY KEY, tabid INTEGER, idxtype TEXT, constrtype TEXT, cols TEXT,
    constrid INTEGER);
{composite.META_DDL};
{row_types.META_DDL};
"""


class Database:
    """One named database: its SQLite file, catalog and SERIAL counters."""

    def __init__(self, name: str, path: str, durable: bool,
                 locale: Locale = DEFAULT_LOCALE) -> None:
        self.name = name
        # Fixed when the database is created (a stored database keeps the
        # locale it was created with, whatever the constructor says now).
        self.locale = locale
        self.path = path
        self.durable = durable
        self.lock = threading.RLock()
        self.tables: dict[str, TableDef] = {}
        self.row_types: dict[str, ColumnType] = {}    # named ROW types (row_types.py)
        self.xids = row_types.XidCounter()            # their ids, never reused
        self.tabids: dict[str, int] = {}
        self.indexes: dict[str, _Index] = {}
        self.counters: dict[tuple[str, int], int] = {}
        self.images: dict[str, Callable[[Sequence[object]], bytes]] = {}
        self.failures = threading.local()     # why ifx_image last failed, per thread
        # Bumped when a table is created or dropped: a statement prepared
        # against an earlier version gets -710 at OPEN/EXECUTE, as Informix
        # answers a prepared statement whose table was dropped or altered.
        self.table_versions: dict[str, int] = {}
        # Tables an open transaction has ALTERed or RENAMEd -> that session's
        # id: the server holds an exclusive lock on them until it ends, and
        # here other sessions' rows (an older snapshot) no longer match the
        # shared catalog, so their statements on them fail as locked.
        self.ddl_locks: dict[str, int] = {}
        # Sessions between a statement's currency check and the end of the
        # request running it (engine.check_current, session.handle): an
        # ALTER waits for them, so none writes with a statement checked
        # before the ALTER began (ddl_runner._quiesce).
        self.busy: set[int] = set()
        # Sessions' open cursors and written tables: DDL needs exclusive
        # access (table_use.py, ddl_runner._exclusive).
        self.table_use = TableUse()
        # Statements already translated, keyed by (SQL text, generation):
        # translation depends only on the catalog, and every catalog change
        # moves the generation on, so a stale entry can never be found.
        self.generation = 0
        self.prepared: dict[tuple[str, int], object] = {}
        self.closed = False
        self.keeper = self.connect(0)
        self.keeper.execute("PRAGMA journal_mode=WAL")
        if not self.keeper.execute(
                "SELECT 1 FROM sqlite_master WHERE name = '_ifx_tables'").fetchone():
            self.keeper.executescript(_META_DDL)
        self.keeper.executescript(SEQUENCE_DDL)      # databases made before sequences too
        self.keeper.execute(blobs.SIDE_TABLE_DDL)   # databases made before BYTE/TEXT too
        self.keeper.executescript(ROUTINE_DDL)      # SPL routines (spl_session.py)
        self.keeper.execute(references.REFERENCES_DDL)
        syscatalog.install(self.keeper, dt.date.today().toordinal() - DAY0,
                           lambda name, typ: column_sql(ColumnDef(name, parse_type(typ))),
                           lambda conn, tabid, colno, name, typ: add_column(
                               conn, tabid, colno, ColumnDef(name, parse_type(typ))),
                           SPL_SYSTEM_TABLES)
        self.sequences = Sequences()
        self._settle_locale()
        self.logging = read_logging(self.keeper)
        self.reload(self.keeper)

    @property
    def codec(self) -> str:
        """The Python codec of the database's code set."""
        return self.locale.codec

    def _settle_locale(self) -> None:
        """The locale rows of systables (' GL_COLLATE', ' GL_CTYPE'), where
        clients read the database's locale (IBM JDBC's setDatabaseLocale
        selects the site of ' GL_COLLATE'); an existing database keeps the
        locale it has."""
        self.keeper.execute(_LOCALE_DDL)
        row = self.keeper.execute("SELECT site FROM _ifx_locale WHERE tabid = 90").fetchone()
        if row is not None:
            self.locale = parse_locale(row[0])
            return
        with self.keeper:
            self.keeper.executemany(
                "INSERT INTO _ifx_locale (tabid, tabname, site) VALUES (?, ?, ?)",
                [(90, " GL_COLLATE", self.locale.name), (91, " GL_CTYPE", self.locale.name)])

    def connect(self, wait_ms: int) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=wait_ms / 1000, isolation_level=None,
                               check_same_thread=False, cached_statements=256)
        conn.execute(f"PRAGMA synchronous={'NORMAL' if self.durable else 'OFF'}")
        conn.execute("PRAGMA case_sensitive_like=ON")
        # A batch of inserts runs in a savepoint inside the client's
        # transaction; its statement journal went to a temporary file past
        # 64 KiB, which cost a third of an insert cursor's load rate.
        conn.execute("PRAGMA temp_store=MEMORY")
        # Every connection: the schema names the collation and the triggers
        # call ifx_image, so no connection may lack them.
        conn.create_collation("ifx_decimal", decimal_order)
        conn.create_aggregate("ifx_exact_sum", 1, ExactSum)
        conn.create_aggregate("ifx_exact_avg", 1, ExactAvg)
        conn.create_function("ifx_image", -1, self._image)
        return conn

    def _image(self, table: str, *values: object) -> bytes:
        try:
            return self.images[table](values)
        except DataError as exc:
            self.failures.error = exc
            raise

    def schema_changed(self) -> None:
        """Forget every translation: the catalog they were made against changed."""
        self.generation += 1
        self.prepared.clear()

    def reload(self, conn: sqlite3.Connection) -> None:
        """Rebuild the in-memory catalog from the meta tables."""
        with self.lock:
            self.schema_changed()
            tables: dict[str, TableDef] = {}
            tabids: dict[str, int] = {}
            names = {}
            imaged = {name for (name,) in conn.execute(
                "SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) p"
                " WHERE m.type = 'table' AND p.name = ?", (IMAGE_COLUMN,))}
            for tabid, tabname, tabtype in conn.execute(
                    "SELECT tabid, tabname, tabtype FROM _ifx_tables WHERE tabtype <> 'Q'"):
                tables[tabname] = TableDef(tabname, [], tabname in imaged,
                                           view=tabtype == "V")
                tabids[tabname] = tabid
                names[tabid] = tabname
            for tabid, text in conn.execute(
                    "SELECT tabid, viewtext FROM sysviews ORDER BY tabid, seqno"):
                if tabid in names:                   # a view's text, piece by piece
                    tables[names[tabid]].definition += text
            xtypes = composite.load(conn)
            self.row_types = row_types.load(conn)
            for tabid, colno, colname, coltype, collength, defsql, start in conn.execute(
                    "SELECT tabid, colno, colname, coltype, collength, defsql, serial_start"
                    " FROM _ifx_columns ORDER BY tabid, colno"):
                ctype = ColumnType(TypeCode(coltype & 0xFF), collength, not coltype & 0x100,
                                   xtypes.get((tabid, colno), ""))
                if ctype.xname in self.row_types:      # a named ROW type's column
                    ctype = row_types.resolve(replace(ctype, named=True), self.row_types,
                                              colname)
                tables[names[tabid]].columns.append(
                    ColumnDef(colname, ctype, defsql, start or 1))
            self.indexes = {
                idxname: _Index(idxname, names[tabid], _json_list(cols), idxtype == "U",
                                constrtype)
                for idxname, tabid, idxtype, constrtype, cols in conn.execute(
                    "SELECT idxname, tabid, idxtype, constrtype, cols FROM _ifx_indexes")}
            self.tables, self.tabids = tables, tabids
            self.images = {name: image_maker(t.columns, self.codec) for name, t in tables.items()
                           if t.image}
            self._load_counters(conn)
            self.sequences.load(conn)

    def next_tabid(self, conn: sqlite3.Connection) -> int:
        """The tabid a new table or sequence gets: user objects from 100 on."""
        top = conn.execute("SELECT max(tabid) FROM _ifx_tables").fetchone()[0]
        return max(99, top or 0) + 1

    def _load_counters(self, conn: sqlite3.Connection) -> None:
        counters: dict[tuple[str, int], int] = {}
        for name, tdef in self.tables.items():
            for col in tdef.serial_columns:
                hw_col = "serial_hw" if col.type.code == TypeCode.SERIAL else "serial8_hw"
                hw = conn.execute(f"SELECT {hw_col} FROM _ifx_tables WHERE tabname = ?",
                                  (name,)).fetchone()[0] or 0
                top = conn.execute(f"SELECT max({sql_ident(col.name)})"
                                   f" FROM {sql_ident(name)}").fetchone()[0]
                counters[(name, int(col.type.code))] = max(hw, top or 0,
                                                           col.serial_start - 1)
        self.counters = {**self.counters, **counters}

    def next_serial(self, table: str, code: int, value: object) -> int:
        """Informix SERIAL rule: 0/NULL takes the next number, others move it on.

        A negative value is stored as given and leaves the counter alone: the
        serial types store negative values a user supplies, while the
        numbers the server generates are always positive (IBM Informix 12.10
        Guide to SQL: Reference, "BIGSERIAL data type", ids_sqr_097).
        """
        key = (table, code)
        with self.lock:
            current = self.counters.get(key, 0)
            if value is None or value == 0:
                value = current + 1
                self.counters[key] = value
                return value
            if not isinstance(value, int):
                value = int(value)
            if value > current:
                self.counters[key] = value
            return value

    def save_counters(self, conn: sqlite3.Connection, table: str) -> None:
        """Persist a table's high-water marks so deleted numbers stay unused."""
        serial = self.counters.get((table, int(TypeCode.SERIAL)), 0)
        serial8 = max(self.counters.get((table, int(TypeCode.SERIAL8)), 0),
                      self.counters.get((table, int(TypeCode.BIGSERIAL)), 0))
        conn.execute("UPDATE _ifx_tables SET serial_hw = ?, serial8_hw = ? WHERE tabname = ?",
                     (serial, serial8, table))

    def flush(self) -> None:
        """Write SERIAL high-water marks and sequence positions to the file
        (before it is closed, or copied as a clone's starting point)."""
        with self.lock:
            for table in list(self.tables):
                if self.tables[table].serial_columns:
                    self.save_counters(self.keeper, table)
            self.sequences.save(self.keeper)

    def close(self) -> None:
        """Write counters back and close; a second call does nothing."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
            self.flush()
            self.keeper.close()


def _json_list(text: str) -> list[str]:
    """Column names kept as JSON (a name may hold quotes and backslashes)."""
    return list(json.loads(text)) if text else []


def _json_text(items: Iterable[str]) -> str:
    return json.dumps(list(items), ensure_ascii=False, separators=(",", ":"))


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def _storage(ctype: ColumnType) -> str:
    """SQLite declared type, which fixes the column's affinity and collation."""
    if exact_decimal(ctype):
        return "TEXT COLLATE ifx_decimal"
    return _STORAGE.get(ctype.code, "TEXT" if ctype.code in TEXT_CODES else "INTEGER")


def column_sql(col: ColumnDef, codec: str = "iso-8859-1") -> str:
    parts = [sql_ident(col.name), _storage(col.type)]
    if not col.type.nullable:
        parts.append("NOT NULL")
    if isinstance(col.default, Bind):
        parts.append("DEFAULT " + _literal(writer_for(col.type, codec)(col.default.const)))
    elif isinstance(col.default, str):
        parts.append(f"DEFAULT ({col.default})")
    if col.type.code == TypeCode.INTERVAL:
        check = intervals.check_sql(col.name, col.type)
        if check:
            parts.append(check)
    return " ".join(parts)


def create_table(db: Database, conn: sqlite3.Connection, ddl: CreateTable) -> None:
    if ddl.name in db.tables:
        if ddl.if_not_exists:
            return
        raise SqlError(-310, 0, ddl.name, f"table {ddl.name} already exists")
    names = [c.name for c in ddl.columns]
    for _, cols, _ in ddl.uniques:
        for col in cols:
            if col not in names:
                raise SqlError(-217, 0, col, f"column {col} not found")
    if ddl.name in db.sequences.states:
        raise SqlError(-310, 0, ddl.name, f"{ddl.name} already exists as a sequence")
    tabid = db.next_tabid(conn)
    body = [column_sql(c, db.codec) for c in ddl.columns]
    imaged = image_maker(ddl.columns) is not None
    if imaged:
        body.append(f"{IMAGE_COLUMN} BLOB")
    body += [f"CHECK {c}" for c in ddl.checks]
    conn.execute(f'CREATE TABLE {sql_ident(ddl.name)} ({", ".join(body)})')
    if imaged:
        for trigger in _image_triggers(ddl.name, ddl.columns):
            conn.execute(trigger)
    for trigger in blobs.triggers(ddl.name, ddl.columns):
        conn.execute(trigger)
    register_object(conn, tabid, ddl.name, "T", ddl.columns)
    for colno, col in enumerate(ddl.columns, start=1):
        _record_column_rules(conn, tabid, colno, col)
    for seq, (cname, cols, primary) in enumerate(ddl.uniques, start=1):
        name = cname or f"u{tabid}_{seq}"
        _add_index(db, conn, _Index(name, ddl.name, cols, True, "P" if primary else "U"),
                   tabid)
    for name, text in ddl.check_sources:
        syscatalog.record_check(conn, tabid, name, text)
    if ddl.references:
        keys: dict[str, list[tuple[list[str], bool]]] = {t: [] for t in db.tables}
        for idx in db.indexes.values():
            if idx.constraint in ("P", "U"):
                keys.setdefault(idx.table, []).append((idx.columns, idx.constraint == "P"))
        keys[ddl.name] = [(cols, primary) for _, cols, primary in ddl.uniques]
        references.create(conn, ddl.name, tabid, ddl.references, keys)
    db.reload(conn)


def register_object(conn: sqlite3.Connection, tabid: int, name: str, tabtype: str,
                    columns: Sequence[ColumnDef]) -> None:
    """The catalog rows of a new table or view: systables, then syscolumns."""
    conn.execute("INSERT INTO _ifx_tables (tabid, tabname, owner, created, tabtype, ncols,"
                 " rowsize) VALUES (?, ?, ?, ?, ?, ?, ?)",
                 (tabid, name, OWNER, dt.date.today().toordinal() - DAY0, tabtype,
                  len(columns), sum(c.type.wire_width for c in columns)))
    for colno, col in enumerate(columns, start=1):
        add_column(conn, tabid, colno, col)


def _record_column_rules(conn: sqlite3.Connection, tabid: int, colno: int,
                         col: ColumnDef) -> None:
    """sysconstraints/sysdefaults rows of one column: an 'N' constraint for
    NOT NULL (not for SERIAL, whose NOT NULL is implied), its DEFAULT."""
    if not col.type.nullable and col.type.code not in SERIAL_CODES:
        syscatalog.record_not_null(conn, tabid, colno)
    default = col.default
    if isinstance(default, Bind):
        syscatalog.record_default(conn, tabid, colno, "L", str(default.const))
    elif isinstance(default, str):
        # The dialect hands TODAY/CURRENT/USER over as SQLite SQL.
        kind = "U" if default == "'informix'" else "T" if TODAY_SQL in default else "C"
        syscatalog.record_default(conn, tabid, colno, kind, None)


def _image_triggers(table: str, columns: Sequence[ColumnDef]) -> list[str]:
    """Triggers recomputing a row's image from what was actually stored, so
    defaults, SERIAL numbers, INSERT ... SELECT and UPDATE expressions are all
    covered.  An INSERT that supplied the image itself skips the work."""
    names = ", ".join(sql_ident(c.name) for c in columns)
    args = ", ".join(f'new.{sql_ident(c.name)}' for c in columns)
    refresh = (f"UPDATE {sql_ident(table)} SET {IMAGE_COLUMN} ="
               f" ifx_image({_literal(table)}, {args})"
               " WHERE rowid = new.rowid;")
    ins, upd = sql_ident(f"_ifx_image_ins_{table}"), sql_ident(f"_ifx_image_upd_{table}")
    return [f"CREATE TRIGGER {ins} AFTER INSERT ON {sql_ident(table)}"
            f" WHEN new.{IMAGE_COLUMN} IS NULL BEGIN {refresh} END",
            f"CREATE TRIGGER {upd} AFTER UPDATE OF {names} ON {sql_ident(table)}"
            f" BEGIN {refresh} END"]


def add_column(conn: sqlite3.Connection, tabid: int, colno: int, col: ColumnDef) -> None:
    """Record a column: ``coltype`` is the type the engine stores, while
    syscolumns shows ``syscoltype``/``extended_id`` as Informix does, with
    LVARCHAR and BOOLEAN as built-in opaque types."""
    ctype = col.type
    conn.execute("INSERT INTO _ifx_columns (tabid, colno, colname, coltype, collength,"
                 " serial_start, syscoltype, extended_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (tabid, colno, col.name, ctype.wire_code, ctype.length, col.serial_start,
                  ctype.describe_code, ctype.extended_id))
    composite.record(conn, tabid, colno, ctype)


def sqlite_index(conn: sqlite3.Connection, name: str, storage: str, table: str,
                 columns: Sequence[str], unique: bool) -> None:
    """The SQLite index behind an Informix one (``name``; ``storage`` is the
    SQLite name): existing duplicates refuse a UNIQUE one with -371."""
    cols = ", ".join(sql_ident(c) for c in columns)
    kind = "UNIQUE " if unique else ""
    try:
        conn.execute(f'CREATE {kind}INDEX {sql_ident(storage)} ON {sql_ident(table)} ({cols})')
    except sqlite3.IntegrityError:
        raise SqlError(-371, -100, name, "duplicate values for unique index") from None


def _add_index(db: Database, conn: sqlite3.Connection, idx: _Index, tabid: int,
               descending: Sequence[int] = ()) -> None:
    """Record an index; ``descending``: the key positions written DESC."""
    if idx.name in db.indexes:
        raise SqlError(-316, 0, idx.name, f"index {idx.name} already exists")
    # Rows of an index of this name dropped earlier must not make this one DESC.
    conn.execute("DELETE FROM _ifx_index_desc WHERE idxname = ?", (idx.name,))
    conn.executemany("INSERT INTO _ifx_index_desc VALUES (?, ?)",
                     [(idx.name, k) for k in descending])
    sqlite_index(conn, idx.name, idx.name, idx.table, idx.columns, idx.unique)
    conn.execute("INSERT INTO _ifx_indexes VALUES (?, ?, ?, ?, ?, ?)",
                 (idx.name, tabid, "U" if idx.unique else "D", idx.constraint,
                  _json_text(idx.columns),
                  syscatalog.next_constrid(conn) if idx.constraint else None))
    db.indexes[idx.name] = idx


def create_index(db: Database, conn: sqlite3.Connection, ddl: CreateIndex) -> None:
    tdef = db.tables.get(ddl.table)
    if tdef is None:
        raise SqlError(-206, -111, ddl.table, f"table {ddl.table} not found")
    for col in ddl.columns:
        if tdef.column(col) is None:
            raise SqlError(-217, 0, col, f"column {col} not found")
    _add_index(db, conn, _Index(ddl.name, ddl.table, ddl.columns, ddl.unique, None),
               db.tabids[ddl.table], ddl.descending)


def drop(db: Database, conn: sqlite3.Connection, ddl: Drop) -> None:
    if ddl.what == "INDEX":
        if ddl.name not in db.indexes:
            if ddl.if_exists:
                return
            raise SqlError(-319, 0, ddl.name, f"index {ddl.name} does not exist")
        conn.execute(f'DROP INDEX {sql_ident(ddl.name)}')
        conn.execute("DELETE FROM _ifx_indexes WHERE idxname = ?", (ddl.name,))
        del db.indexes[ddl.name]
        return
    tabid = db.tabids.get(ddl.name)
    if tabid is None:
        if ddl.if_exists:
            return
        raise SqlError(-206, -111, ddl.name, f"table {ddl.name} not found")
    if tabid < 100:
        raise SqlError(-201, 0, ddl.name, "system catalog tables cannot be dropped")
    blobs.free_table(conn, ddl.name, db.tables[ddl.name].columns)
    references.forget_table(conn, ddl.name)
    conn.execute(f'DROP TABLE {sql_ident(ddl.name)}')
    syscatalog.forget_table(conn, tabid)
    for meta in ("_ifx_tables", "_ifx_columns", "_ifx_indexes", "_ifx_xtypes"):
        conn.execute(f"DELETE FROM {meta} WHERE tabid = ?", (tabid,))
    for key in [k for k in db.counters if k[0] == ddl.name]:
        del db.counters[key]
    db.reload(conn)
