"""SQLite-backed SQL engine that behaves like an Informix logged database.

Storage choices, made so fetch stays cheap and comparisons stay right:

* integers, floats, VARCHAR-family text: SQLite's native classes, returned
  without any per-value work;
* DATE: INTEGER Informix day numbers (day 0 = 1899-12-31), so arithmetic and
  ordering work in SQL and fetch is one dict lookup;
* DECIMAL/MONEY of precision <= 15: a column without affinity holding REAL
  (a double round-trips 15 significant digits exactly, and SQLite compares,
  sorts and sums them natively);
* wider DECIMAL/MONEY: exact canonical TEXT in a column collated by
  ``ifx_decimal``, which compares values as numbers.  A compared literal
  takes the column's TEXT affinity and then that collation, so ``<``, ``=``,
  ORDER BY, MIN/MAX, GROUP BY and indexes are numeric and exact;
* DECIMAL/MONEY arithmetic (arith.py) and SUM/AVG (``ifx_exact_*``) of any
  width are computed in decimal, never through doubles;
* DATETIME: TEXT in Informix literal form for exactly its qualifier fields,
  which sorts correctly and compares with Informix literals;
* INTERVAL: INTEGER microseconds (day-time) or months (year-month);
* BOOLEAN: INTEGER 0/1.

Every user table whose column types all have a row encoding also keeps each
row's complete SQ_TUPLE message in a hidden column (statements.IMAGE_COLUMN),
so a SELECT of whole rows is served without encoding a value: INSERTs that
bind every column supply the image themselves, triggers compute it for every
other INSERT and for UPDATEs from the stored values, inside the same
statement and so under the same transaction.

Each database is a SQLite file in WAL mode (in memory: a temporary directory,
on /dev/shm when available).  WAL gives what shared-cache in-memory SQLite
cannot: readers never block, each connection sees only committed data, and a
writer waits a bounded time for the write lock instead of failing at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import operator
import os
import shutil
import sqlite3
import tempfile
import weakref
from typing import Callable, Iterable, Mapping, Sequence

from informix_stream.codecs import ColumnType
from informix_stream.errors import DataError
from informix_stream.locales import DEFAULT_LOCALE, parse_locale

from .catalog import Database
from .databases import DatabaseSet
from .dialect import translate
from .ddl_runner import DdlRunner
from .session_functions import SessionFunctions
from .spl_session import SplRunner
from .savepoints import StatementSavepoint, UserSavepoints
from .results import ExecResult, Prepared, RowSource, rowcount
from .sqlfunctions import register_builtins
from .sqlite_errors import map_error, with_offset
from .statements import ResultColumn, SqlError, StatementKind, Translation
from .temp_tables import TempTables
from .table_locks import DEFAULT_LOCK_WAIT_MS, TableLocks
from .tx_modes import TransactionModes
from .image_slice import make_slicer
from .logmode import Logging
from . import dbdate, long_tx, sysmaster
from .datetime_compare import bind_writer
from .values import image_failure, row_converter, writer_for
from .view_checks import prepared_checks, run_checked
from .views import named_tables

__all__ = ["Engine", "Session", "Prepared", "ExecResult", "RowSource", "ResultColumn",
           "StatementKind", "SqlError"]

# SQLite virtual-machine steps between two looks for a cancel (~a millisecond).
_PROGRESS_STEPS = 20_000
# Idle reader connections a session keeps (it opens one per concurrently
# open cursor outside a transaction, never sharing a busy one).
_IDLE_READERS = 4
# Translations a database keeps (all forgotten at once when full).
_TRANSLATIONS_KEPT = 1024
_SAVEPOINT_ACTIONS = ("SAVEPOINT", "ROLLBACK TO SAVEPOINT", "RELEASE SAVEPOINT")


# ---------------------------------------------------------------------------
# Engine and sessions
# ---------------------------------------------------------------------------

class Engine:
    """The set of named databases one emulator serves (see databases.py)."""

    def __init__(self, databases: Iterable[str] | Mapping[str, str],
                 data_dir: str | os.PathLike | None = None, *,
                 long_transaction_rows: int | None = None) -> None:
        """``databases``: names (each in the default locale, en_US.819) or a
        mapping of name to locale (``{"utf8db": "en_US.utf8"}``)."""
        self.long_transaction_rows = long_transaction_rows    # the protocol session's
        self._tempdir: str | None = None
        if data_dir is None:
            shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
            self._tempdir = tempfile.mkdtemp(prefix="ifx-emulator-", dir=shm)
            root = self._tempdir
        else:
            root = os.fspath(data_dir)
            os.makedirs(root, exist_ok=True)
        if not isinstance(databases, Mapping):
            databases = {name: None for name in databases}
        self.databases = DatabaseSet(root, durable=data_dir is not None)
        if data_dir is not None:
            self.databases.discover()
        for name, locale in databases.items():
            self.databases.open_existing(name, parse_locale(locale) if locale
                                         else DEFAULT_LOCALE)
        self._ids = itertools.count(1)

    def has_database(self, name: str) -> bool:
        return name.lower() == sysmaster.NAME or self.databases.get(name) is not None

    def connect(self, database: str) -> "Session":
        sysmaster.ensure(self.databases, database)
        return self.databases.open_session(
            database, lambda db: Session(db, next(self._ids), self.databases.all))

    def close(self) -> None:
        for session in self.databases.sessions():
            session.close()
        self.databases.close()
        self.remove_tempdir()

    def remove_tempdir(self) -> None:
        """Delete the in-memory databases' directory (safe while a session
        has files open: they live on, unreachable, until it closes them)."""
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)


class Session(DdlRunner, TransactionModes, TableLocks, SessionFunctions, SplRunner,
              UserSavepoints):
    """One client's connection to one database; one thread at a time."""

    def __init__(self, db: Database, session_id: int,
                 server: sysmaster.Databases = tuple) -> None:
        """``server``: every database the engine serves now (for the
        sysmaster tables; none for a session made outside an engine)."""
        self._db = db
        self._id = session_id
        self._server = server
        # Set by the socket layer: True when the statement must stop now.
        self.interrupt_requested: Callable[[], bool] | None = None
        self._wait_ms = DEFAULT_LOCK_WAIT_MS
        self._conn = self._open()
        # Connections for reads outside a transaction, each with its count of
        # open cursors: a cursor gets a reader with none open, so it reads a
        # fresh snapshot (one left open would pin an old one).
        self._readers: list[list] = []
        self._dml = self._conn.cursor()
        self._in_tx = False
        self._ddl_in_tx = False
        self._tx_changes = 0                   # total_changes at BEGIN
        self.long_transaction_rows, self._tx_rows = None, 0    # long_tx.py (opt-in)
        self.on_tx_abort: Callable[[], None] | None = None    # long_tx.abort
        # Row sources reading on the main connection, kept until their
        # transaction ends (see RowSource.keep_rest).
        self._main_sources: list[RowSource] = []
        # Every open row source, so close() can close their SQLite cursors.
        self._sources: weakref.WeakSet[RowSource] = weakref.WeakSet()
        self._savepoints: dict[str, bool] = {}    # name -> declared UNIQUE
        self._temps = TempTables(session_id)
        # The login's DELIMIDENT (set by the protocol session): "x" is then
        # an identifier, so it is part of every translation's cache key.
        self.delimident = False
        self._currvals: dict[str, int] = {}     # sequence -> this session's last NEXTVAL
        self.last_serial = 0
        self.last_serial8 = 0
        self.last_rowcount = 0

    def _open(self) -> sqlite3.Connection:
        conn = self._db.connect(self._wait_ms)
        # Every so many SQLite steps: has the client asked to cancel (its
        # urgent byte), or is the server shutting down?  Non-zero aborts the
        # statement with "interrupted", which becomes -213.
        conn.set_progress_handler(self._should_stop, _PROGRESS_STEPS)
        conn.create_function("ifx_serial", 3, self._serial)
        conn.create_function("ifx_dbinfo", -1, self._dbinfo)
        register_builtins(conn, self._db.codec)
        conn.create_function("ifx_nextval", 1, self._nextval)
        conn.create_function("ifx_currval", 1, self._currval)
        self._spl_register(conn)
        sysmaster.install(conn, self._server)
        return conn

    @property
    def locale(self):
        """The database's locale (fixed when it was created)."""
        return self._db.locale

    # -- transactions ---------------------------------------------------------------
    @property
    def in_transaction(self) -> bool:
        return self._in_tx

    @property
    def closed(self) -> bool:
        return self._conn is None

    @property
    def database(self) -> Database:
        return self._db

    def table_def(self, name: str):
        """The table a name means in this session (temp tables shadow)."""
        return sysmaster.lookup(self._temps.lookup(self._db.tables), self._db.name)(name)

    def _need_log(self) -> None:
        """-256: a database without logging has no transactions (logmode.py)."""
        if not self._db.logging.logged:
            raise SqlError(-256, message="transaction not available: the database has no logging")

    @property
    def ansi(self) -> bool:
        """An ANSI-compliant database: implicit transactions, -1279 for a
        value too long for its column (logmode.py)."""
        return self._db.logging is Logging.ANSI

    def begin(self) -> None:
        """BEGIN WORK.  In an ANSI database a transaction is already open
        once any statement ran since DATABASE/COMMIT/ROLLBACK WORK: -535
        then, as in a logged one (IBM Guide to SQL: Syntax, "BEGIN WORK and
        ANSI-Compliant Databases": an error after any other statement)."""
        self._need_log()
        if self._in_tx:
            raise SqlError(-535, message="already in transaction")
        self._conn.execute("BEGIN")
        self._in_tx = True
        self._tx_changes, self._tx_rows = self._conn.total_changes, 0

    def commit(self) -> None:
        self._need_log()
        if not self._in_tx:
            if self.ansi:       # nothing ran since the last end: nothing to end
                return
            raise SqlError(-255, message="not in transaction")
        self.refuse_lost_tx(ending=True)
        try:
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise map_error(exc, StatementKind.COMMIT, self._db) from None
        if self._ddl_in_tx:
            # What the transaction created is now every session's: routines
            # other sessions looked up before this commit are looked up again.
            self._db.schema_changed()
            self._ddl_ended(undone=False)
        self._end_tx()

    def rollback(self) -> None:
        self._need_log()
        if not self._in_tx:
            if self.ansi:
                return
            raise SqlError(-255, message="not in transaction")
        kept = self._temps.keep_unlogged(self._conn)     # WITH NO LOG rows stay
        try:
            self._conn.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            # A transaction that never wrote has nothing for SQLite to undo;
            # the Informix transaction still ends here.
            if "no transaction is active" not in str(exc):
                raise
        if self._ddl_in_tx:
            self._db.reload(self._conn)
            self._temps.forget_missing(self._conn)
            self._ddl_ended(undone=True)
        self._temps.restore_unlogged(self._conn, kept)
        self._end_tx()

    def _end_tx(self) -> None:
        self._db.table_use.tx_ended(self._id)     # its row locks are gone
        self._tx_modes_ended()
        self._in_tx = False
        self._ddl_in_tx = False
        self._savepoints.clear()
        sources, self._main_sources = self._main_sources, []
        for source in sources:       # only hold cursors are still open here
            source.keep_rest()

    def close(self) -> None:
        """Roll back open work and close every SQLite connection and cursor.

        Each cursor is closed before its connection: Python's ``close()`` of
        a connection whose statement some live cursor still holds only makes
        it a zombie (sqlite3_close_v2), and the functions registered on it
        hold this session, which holds ``_dml``: a cycle through C that the
        garbage collector cannot see, keeping the file's descriptors open for
        the process's life.  The rest runs even if the rollback fails."""
        if self._conn is None:
            return
        self.interrupt_requested = None      # a stopping server must not cut the rollback
        try:
            if self._in_tx:
                self.rollback()
        finally:
            self._release_connections()

    def _release_connections(self) -> None:
        try:
            self._db.table_use.session_ended(self._id)    # its LOCK TABLEs (unlogged)
            for source in list(self._sources):
                source.close()
            if self._temps.tables:   # else left for drop_orphans when the database next opens
                with contextlib.suppress(sqlite3.Error):
                    self._temps.drop_all(self._conn)
        finally:
            for conn in [r[0] for r in self._readers]:
                conn.close()
            self._readers = []
            self._dml.close()
            self._conn.close()
            self._conn = None  # type: ignore[assignment]

    # -- prepare ---------------------------------------------------------------------
    def prepare(self, sql: str) -> Prepared:
        """Translate and validate now, as Informix's PREPARE does.

        Translations are shared by every session of the database, keyed by
        the SQL text and the catalog's generation (read before translating,
        so a translation that raced a DDL statement is filed under a
        generation nobody asks for again): a test suite's thousands of
        repeated small statements pay for translation once.
        """
        db = self._db
        self._spl_sync()
        key = (sql, db.generation, self.delimident, dbdate.current())   # literals: DBDATE
        if self._temps.tables:      # this session's names resolve differently
            key += (self._id, self._temps.version)
        cached = db.prepared.get(key)
        if cached is None:
            cached = self._translate(sql)
            if len(db.prepared) >= _TRANSLATIONS_KEPT:
                db.prepared.clear()
            db.prepared[key] = cached
        return dataclasses.replace(cached)

    def _translate(self, sql: str) -> Prepared:
        routine = self._spl_translate(sql)
        if routine is not None:
            return routine
        t = translate(sql, sysmaster.lookup(self._temps.lookup(self._db.tables), self._db.name),
                      self._db.sequences.states,
                      self.spl_function_types(), database=self._db.name,
                      delimident=self.delimident, ansi=self.ansi)
        if t.sql:
            self._validate(t, sql)
        binds = []
        for b in t.binds:
            conv = bind_writer(b.type, self._db.codec, ansi=self.ansi, compared=b.compared)
            binds.append((b.index, None if b.index is not None else conv(b.const), conv))
        param_types: list[ColumnType | None] = [None] * t.param_count
        for b in t.binds:
            if b.index is not None and param_types[b.index] is None:
                param_types[b.index] = b.type
        direct = [b.index for b in t.binds] == list(range(t.param_count))
        versions = self._db.table_versions
        depends = {name: versions.get(name, 0)
                   for name in named_tables(sql, self._db.tables)}
        if t.table:
            depends.setdefault(t.table, versions.get(t.table, 0))   # a view's base table
        convert = _row_maker(t) if t.kind is StatementKind.SELECT and t.columns else None
        checks = prepared_checks(t, lambda probe: self._validate(probe, sql),
                                 lambda ctype: writer_for(ctype, self._db.codec, ansi=self.ansi))
        return Prepared(sql, t.kind, t.columns, t.param_count, param_types, t.table, t,
                        binds, direct, convert, image=self._image_binder(t), depends=depends,
                        checks=checks)

    def _image_binder(self, t: Translation) -> Callable[[list], bytes | None] | None:
        """For an INSERT binding every column: bind values -> row image."""
        picks = t.image_binds
        if picks is None:
            return None
        make = self._db.images.get(t.table or "")
        if make is None:           # the trigger computes it instead
            return lambda values: None
        if picks == list(range(len(t.binds))):
            return make
        return lambda values: make([values[p] for p in picks])

    def _validate(self, t: Translation, sql: str) -> None:
        slots = len(t.binds) + (t.image_binds is not None)
        try:
            self._conn.execute("EXPLAIN " + t.sql, [None] * slots).close()
        except sqlite3.Error as exc:
            raise with_offset(map_error(exc, t.kind, self._db), sql, exc) from None

    def _values(self, stmt: Prepared, params: Sequence[object]) -> list[object]:
        if len(params) != stmt.param_count:
            raise SqlError(-254, message=f"{len(params)} values for {stmt.param_count} "
                           "placeholders")
        if stmt.direct:
            values = [conv(v) for (_, _, conv), v in zip(stmt.binds, params)]
        else:
            values = [conv(params[i]) if i is not None else const
                      for i, const, conv in stmt.binds]
        if stmt.image is not None:
            try:
                values.append(stmt.image(values))
            except DataError as exc:
                raise image_failure(exc) from None
        return values

    # -- execute ----------------------------------------------------------------------
    def execute(self, stmt: Prepared, params: Sequence[object] = ()) -> ExecResult:
        kind = stmt.kind
        if kind in (StatementKind.INSERT, StatementKind.UPDATE, StatementKind.DELETE):
            return long_tx.wrote(self, self._dml_execute(stmt, params))
        if kind is StatementKind.EXECUTE:
            return self._spl_execute(stmt, params)
        if kind is StatementKind.BEGIN:
            self.begin()
        elif kind is StatementKind.COMMIT:
            self.commit()
        elif kind is StatementKind.ROLLBACK:
            self.rollback()
        elif kind is StatementKind.DDL:
            return ExecResult(self._ddl(stmt.translation, self._values(stmt, params)))
        elif kind is StatementKind.OTHER:
            self._option(stmt.translation.option)
        elif kind is StatementKind.SELECT:
            self.open_cursor(stmt, params).close()
        elif kind is StatementKind.MERGE:
            return long_tx.wrote(self, self._merge(stmt, self._values(stmt, params)))
        return ExecResult(0)

    def can_batch(self, stmt: object) -> bool:
        """True for an INSERT ... VALUES binding every column of a table without
        SERIAL columns: one row per execution, nothing generated to report."""
        return isinstance(stmt, Prepared) and stmt.kind is StatementKind.INSERT \
            and stmt.image is not None and not stmt.checks

    def stored_values(self, stmt: Prepared, params: Sequence[object]) -> list[object]:
        """What SQLite is given for one row of ``stmt``: the bound values in
        stored form, and the row image when the table keeps one."""
        return self._values(stmt, params)

    def execute_many(self, stmt: Prepared, rows: Iterable[Sequence[object]], *,
                     stored: bool = False) -> ExecResult:
        """Run one DML statement for many parameter rows as a single unit
        (``stored``: the rows are already ``stored_values``)."""
        self.refuse_lost_tx()     # a replay after an interrupt: never in autocommit
        total = 0
        self.last_serial = self.last_serial8 = 0
        with self._atomic(stmt.kind):
            if stmt.checks or stmt.translation.sql.startswith("WITH"):
                for row in rows:
                    total += self._checked(stmt, row if stored else self._values(stmt, row))
            else:
                cur = self._conn.cursor()
                cur.executemany(stmt.translation.sql,
                                rows if stored else (self._values(stmt, r) for r in rows))
                total = cur.rowcount
            if long_tx.crosses(self, total):
                raise long_tx.batch_crosses()     # undone here: its callers replay it
        self.last_rowcount = total
        return long_tx.wrote(self, ExecResult(total, self.last_serial, self.last_serial8))

    def _dml_execute(self, stmt: Prepared, params: Sequence[object]) -> ExecResult:
        self.truncating(stmt)             # ddl_runner: TRUNCATE needs the table alone
        values = self._values(stmt, params)
        self.last_serial = self.last_serial8 = 0
        if stmt.kind is StatementKind.DELETE and stmt.table in self._db.tables and \
                self._db.tables[stmt.table].serial_columns:
            with self._atomic(stmt.kind):
                self._db.save_counters(self._conn, stmt.table)
                count = rowcount(self._conn.execute(stmt.translation.sql, values))
        elif stmt.checks:
            with self._atomic(stmt.kind):
                count = self._checked(stmt, values)
        else:
            try:
                count = rowcount(self._dml.execute(stmt.translation.sql, values))
            except sqlite3.Error as exc:
                raise map_error(exc, stmt.kind, self._db) from None
        self.last_rowcount = count
        return ExecResult(count, self.last_serial, self.last_serial8)

    def _checked(self, stmt: Prepared, values: Sequence[object]) -> int:
        if not stmt.checks:     # WITH ...: sqlite3 counts no rows of an executemany of it
            return rowcount(self._conn.execute(stmt.translation.sql, values))
        return run_checked(self._conn, stmt.translation.sql, values, stmt.checks)

    def _atomic(self, kind: StatementKind) -> StatementSavepoint:
        return StatementSavepoint(self._conn, kind, self._db)

    def open_cursor(self, stmt: Prepared, params: Sequence[object] = (), *,
                    hold: bool = False) -> RowSource:
        """``hold``: the cursor outlives its transaction (WITH HOLD)."""
        if stmt.kind is StatementKind.EXECUTE:
            return self._spl_open(stmt, params)
        if stmt.kind is not StatementKind.SELECT:
            raise SqlError(-481, message="statement is not a SELECT")
        values = self._values(stmt, params)
        reader = None if self._reads_on_main(hold) else self._reading_connection()
        conn = self._conn if reader is None else reader[0]
        try:
            cursor = conn.execute(stmt.translation.sql, values)
        except sqlite3.Error as exc:
            raise map_error(exc, stmt.kind, self._db) from None
        encoded = stmt.translation.encoded
        if stmt.convert is None and stmt.columns:
            stmt.convert = _row_maker(stmt.translation)
        convert = None if stmt.convert is _identity else stmt.convert
        source = RowSource(cursor, stmt.columns, convert, stmt.kind, encoded)
        self._sources.add(source)
        if reader is not None:
            reader[1] += 1
            source._on_close = functools.partial(_release_reader, reader)
        else:
            self._main_sources.append(source)
            source._on_close = functools.partial(_forget_source, self._main_sources, source)
        return source

    def _reads_on_main(self, hold: bool) -> bool:
        """Inside a transaction a cursor reads on the main connection, to see
        the transaction's own writes.  A hold cursor opened before the
        transaction wrote anything reads on a reader instead: it sees the
        same rows, and its snapshot does not pin the main connection after
        COMMIT (RowSource.keep_rest covers one opened after writes)."""
        if not self._in_tx:
            return False
        return not hold or self._ddl_in_tx or self._conn.total_changes != self._tx_changes

    def _should_stop(self) -> int:
        check = self.interrupt_requested
        return 1 if check is not None and check() else 0

    def _reading_connection(self) -> list:
        """A reader connection with no cursor open on it, as ``[conn, open]``.

        Cursors outside a transaction read on connections of their own: an
        open read on the main connection would hold back the commit of later
        autocommit writes on it (SQLite commits when the last statement of a
        connection finishes); Informix commits those at once.  And a reader
        with a cursor still open would give a new cursor that cursor's old
        snapshot, hiding this session's own later commits.
        """
        idle = [r for r in self._readers if r[1] == 0]
        for extra in idle[_IDLE_READERS:]:
            extra[0].close()
            self._readers.remove(extra)
        if idle:
            return idle[0]
        reader = [self._open(), 0]
        self._readers.append(reader)
        return reader

    # -- DDL and session options ---------------------------------------------------
    def _option(self, option: tuple) -> None:
        if option and option[0] in _SAVEPOINT_ACTIONS:
            self._savepoint(option)
            return
        if option[:1] in (("LOCK",), ("UNLOCK",)) or option[:3] == ("SET", "LOCK", "MODE"):
            self._table_lock_option(option)       # table_locks: LOCK TABLE, SET LOCK MODE
            return
        self._isolation_option(option)            # tx_modes: SET ISOLATION/TRANSACTION


def _release_reader(reader: list) -> None:
    reader[1] -= 1


def _forget_source(sources: list, source: RowSource) -> None:
    if source in sources:
        sources.remove(source)


def _identity(rows: list) -> list:
    return rows


_first = operator.itemgetter(0)


def _images(rows: list) -> list:
    return list(map(_first, rows))


def _row_maker(t: Translation) -> Callable[[list], list]:
    """What turns a SELECT's SQLite rows into what its cursor serves: whole
    stored images as they are, cells cut out of them for a projection
    (image_slice.py), or values converted for the row encoder."""
    if not t.encoded:
        return row_converter(t.columns) or _identity
    if t.image_cells is None:
        return _images
    cut = make_slicer(*t.image_cells)
    if cut is None:     # the translator only picks cells with a layout
        raise AssertionError(f"no cell layout for {t.image_cells}")
    return cut
