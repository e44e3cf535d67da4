"""Running DDL statements in a session: permanent tables and indexes (through
the catalog), the session's TEMP tables, and sequences.

A mixin of ``engine.Session`` (it uses the session's connection, database,
transaction flags and savepoint helper), kept apart so each job has a module
of its own size.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence

from . import alter, merge, rename
from .catalog import OWNER, create_index, create_table, drop
from .results import ExecResult
from .sqlite_errors import LOCK_CODES
from .logmode import Logging
from .table_use import NON_EXCLUSIVE
from .translate_alter import AlterTable, Rename
from .sequences import CreateSequence
from .spl_session import CreateRoutine, DropRoutine
from . import row_types, views
from .statements import (NOT_SUPPORTED, CreateIndex, CreateTable, Drop, SqlError,
                         StatementKind, Translation, sql_ident)


class DdlRunner:
    """The DDL half of a session (see engine.Session)."""

    lock_wait_ms = 0             # SET LOCK MODE: NOT WAIT (0), WAIT n (ms)
    _isolation: str | None = None  # SET ISOLATION's level (first word); None: the default

    def _ddl(self, t: Translation, values: Sequence[object] = ()) -> int:
        ddl = t.ddl
        if isinstance(ddl, (AlterTable, Rename)):
            self._refuse_temp(ddl)
            return self._alter(ddl)
        if isinstance(ddl, CreateTable):
            row_types.resolve_columns(ddl.columns, self._db.row_types)
        if self._temp_ddl(ddl):
            with self._atomic(StatementKind.DDL):
                count = self._run_temp_ddl(ddl, values)
            if self._in_tx:
                self._ddl_in_tx = True
            return count
        self._exclusive(self._needs_exclusive(ddl))
        with self._db.lock, self._atomic(StatementKind.DDL):
            if isinstance(ddl, CreateSequence) or getattr(ddl, "what", "") == "SEQUENCE":
                self._sequence_ddl(ddl)
            elif isinstance(ddl, row_types.CreateRowType) or (
                    isinstance(ddl, Drop) and ddl.what == "ROW TYPE"):
                self._row_type_ddl(ddl)
            elif isinstance(ddl, CreateTable):
                return self._create_table(ddl, values)
            elif isinstance(ddl, CreateIndex):
                create_index(self._db, self._conn, ddl)
            elif isinstance(ddl, views.CreateView):
                views.create(self._db, self._conn, ddl, self._db.next_tabid(self._conn))
                self._db.reload(self._conn)
            elif isinstance(ddl, Drop) and ddl.what == "VIEW":
                if views.drop(self._db, self._conn, ddl.name, ddl.if_exists):
                    self._db.reload(self._conn)
            elif isinstance(ddl, Drop):
                drop(self._db, self._conn, ddl)
                if ddl.what == "TABLE":
                    views.drop_dependents(self._conn)
                    self._db.reload(self._conn)
            elif isinstance(ddl, (CreateRoutine, DropRoutine)):
                self._routine_ddl(ddl)
        self._finish_ddl(ddl)
        return 0

    def _finish_ddl(self, ddl: object) -> None:
        """What every DDL on the database leaves behind: the versions that
        invalidate cached translations, and the transaction's DDL mark."""
        if isinstance(ddl, (CreateTable, views.CreateView)) or (
                isinstance(ddl, Drop) and ddl.what in ("TABLE", "VIEW")):
            versions = self._db.table_versions
            versions[ddl.name] = versions.get(ddl.name, 0) + 1
            if self._in_tx:
                # As for ALTER (see _alter): the server holds the table (and
                # its catalog rows) locked until the transaction ends; other
                # sessions would otherwise translate against this shape and
                # read their snapshot's rows in the old one.
                self._db.ddl_locks.setdefault(ddl.name, self._id)
        self._db.schema_changed()
        if self._in_tx:
            self._ddl_in_tx = True

    def _create_table(self, ddl: CreateTable, values: Sequence[object]) -> int:
        """CREATE TABLE, and for CREATE TABLE ... AS SELECT the rows it puts
        in (none when IF NOT EXISTS found the table there)."""
        exists = ddl.name in self._db.tables
        create_table(self._db, self._conn, ddl)
        count = 0
        if ddl.as_select and not exists:
            names = ", ".join(sql_ident(c.name) for c in ddl.columns)
            count = self._conn.execute(f"INSERT INTO {sql_ident(ddl.name)} ({names}) "
                                       f"{ddl.as_select}", values).rowcount
        self._finish_ddl(ddl)
        return count

    def _refuse_temp(self, ddl: AlterTable | Rename) -> None:
        """The server refuses these on a TEMP table (IBM JDBC 15.0.1.0 message
        catalog: -532 cannot alter, -508 cannot rename a temporary table,
        -509 cannot rename a column in one)."""
        temps = self._temps.tables
        if isinstance(ddl, AlterTable) and ddl.name in temps:
            raise SqlError(-532, 0, ddl.name, f"cannot alter temporary table ({ddl.name})")
        if isinstance(ddl, Rename) and ddl.what == "TABLE" and ddl.old in temps:
            raise SqlError(-508, 0, ddl.old, "cannot rename a temporary table")
        if isinstance(ddl, Rename) and ddl.what == "COLUMN" and ddl.table in temps:
            raise SqlError(-509, 0, ddl.table, "cannot rename a column in a temporary table")

    def _alter(self, ddl: AlterTable | Rename) -> int:
        """ALTER TABLE / RENAME (alter.py, rename.py) as one unit.

        The server locks the table exclusively for it; here: the tables are
        marked (other sessions' statements on them get a lock error, as with
        the server's default LOCK MODE NOT WAIT), their versions move on
        (statements prepared earlier get -710), and statements other sessions
        had already checked are waited for, so none of them writes rows of
        the old shape into the new table.  The versions move on again at the
        end for statements prepared while the work ran."""
        db = self._db
        names = _changing(ddl)
        self._exclusive(names)
        held = {n for n, owner in db.ddl_locks.items() if owner == self._id}
        for name in names:
            if db.ddl_locks.get(name, self._id) != self._id:
                raise SqlError(LOCK_CODES[StatementKind.DDL], -107, name,
                               f"table {name} is locked by another session's ALTER")
        db.ddl_locks.update((name, self._id) for name in names)
        _bump(db.table_versions, names)
        done = False
        try:
            self._quiesce(names)
            with db.lock, self._atomic(StatementKind.DDL):
                if isinstance(ddl, AlterTable):
                    alter.alter_table(db, self._conn, ddl)
                else:
                    rename.rename(db, self._conn, ddl)
                db.reload(self._conn)
            done = True
        except BaseException:
            db.reload(self._conn)       # the in-memory catalog follows the rollback
            raise
        finally:
            _bump(db.table_versions, names)
            if not (done and self._in_tx):
                for name in set(names) - held:
                    db.ddl_locks.pop(name, None)
        db.schema_changed()
        if self._in_tx:
            self._ddl_in_tx = True
        return 0

    def _needs_exclusive(self, ddl: object) -> list[str]:
        """The permanent tables a DDL statement needs exclusive access to:
        CREATE INDEX's, DROP INDEX's and DROP TABLE's (IBM's finderr -106:
        adding or dropping an index, altering a table)."""
        if isinstance(ddl, CreateIndex):
            return [ddl.table]
        if isinstance(ddl, Drop) and ddl.what == "TABLE":
            return [ddl.name]
        if isinstance(ddl, Drop) and ddl.what == "INDEX" and ddl.name in self._db.indexes:
            return [self._db.indexes[ddl.name].table]
        return []

    def truncating(self, stmt) -> None:
        """Before a TRUNCATE of a permanent table: exclusive access, as for
        DROP TABLE, and a cursor another session has open on the table under
        any isolation also refuses it (IBM, Guide to SQL: Syntax,
        "Restrictions on the TRUNCATE statement", ids_sqs_1242: it fails
        when "one or more cursors are open on the table", when a Dirty Read
        session is reading it, or when a lock on it exists; "The Table
        Specification", ids_sqs_1238: an RSAM -106 error; IBM technote
        1674115: -242 with ISAM -106).  A TEMP table is the session's own."""
        t = stmt.translation
        if t.truncate and t.table not in self._temps.tables:
            self._exclusive([t.table], any_cursor=True)

    def _exclusive(self, names: list[str], *, any_cursor: bool = False) -> None:
        """Wait until no other session has ``names`` open (a cursor on them,
        or rows its open transaction wrote): at once under SET LOCK MODE TO
        NOT WAIT, up to the wait under WAIT [n]; then the server's -242 with
        ISAM -106 "non-exclusive access" (table_use.py has the sources).
        ``any_cursor``: a COMMITTED READ cursor counts too (TRUNCATE)."""
        use = self._db.table_use
        deadline = time.monotonic() + self.lock_wait_ms / 1000
        while (name := use.holder(self._id, names, any_cursor=any_cursor)) is not None:
            if time.monotonic() >= deadline:
                raise SqlError(LOCK_CODES[StatementKind.DDL], NON_EXCLUSIVE, name,
                               f"could not open database table ({name}): another "
                               "session has it open")
            if self._should_stop():
                raise SqlError(-213, 0, "", "statement interrupted by user")
            time.sleep(0.002)

    def hold_tables(self, stmt) -> Callable[[], None]:
        """A protocol cursor opened on ``stmt``: the tables it names are held
        open until the returned function is called (table_use.py): against
        TRUNCATE always, against the other DDL when the session's isolation
        makes a cursor keep DDL out.  Its TEMP tables are its own.  Under
        REPEATABLE READ in a transaction the rows read stay locked until it
        ends, the cursor's close notwithstanding (IBM Performance Guide,
        "Repeatable Read isolation", ids_prf_429: "for the duration of the
        transaction"), as rows the transaction wrote do."""
        temps = self._temps.tables
        names = [n for n in views.with_base_tables(stmt.depends, self._db.tables)
                 if n not in temps]
        use = self._db.table_use
        if self._in_tx and self.isolation == "REPEATABLE":
            for name in names:
                use.wrote(self._id, name)
        return use.hold(self._id, names, locking=self.cursors_hold_tables)

    @property
    def isolation(self) -> str:
        """The level this session's cursors read at (the first word of its
        name: DIRTY, COMMITTED, CURSOR, REPEATABLE).

        Until a SET ISOLATION, the database's default: Dirty Read without
        logging, Committed Read in a logged database, Repeatable Read in an
        ANSI one (IBM, Guide to SQL: Syntax, SET ISOLATION, "Default
        Isolation Levels", ids_sqs_1168; Database Design and Implementation
        Guide, "Default isolation level", ids_ddi_153; IBM's JDBC driver
        assumes the same: IfxSqliConnect.OpenDbInit sets READ_COMMITTED for
        a logged database and SERIALIZABLE for an ANSI one).  An unlogged
        database reads at Dirty Read whatever SET ISOLATION said: "you
        cannot change the default isolation level or the current isolation
        level of an unlogged database" (ids_ddi_153, 15.0).  A DATABASE
        statement starts a new engine session, at the new database's
        default, as ids_sqs_1168 has it for a database of another default."""
        logging = self._db.logging
        if not logging.logged:
            return "DIRTY"
        if self._tx_level is not None:       # tx_modes: SET TRANSACTION's, for now
            return self._tx_level
        if self._isolation is not None:
            return self._isolation
        return "REPEATABLE" if logging is Logging.ANSI else "COMMITTED"

    @property
    def cursors_hold_tables(self) -> bool:
        """Do this session's cursors keep DDL out (see _set_isolation)?"""
        return self.isolation in _LOCKING_LEVELS

    def _set_isolation(self, option: tuple) -> None:
        """SET ISOLATION: whether this session's cursors keep DDL out.

        DIRTY READ: the DDL "checks if the table's partition is not used by
        any other sessions in DIRTY READ mode" (IBM technotes 1648816,
        1174239: -106).  CURSOR STABILITY and REPEATABLE READ hold shared
        locks on rows read, which the DDL's exclusive lock cannot pass
        (finderr -106).  COMMITTED READ [LAST COMMITTED] holds no lock once a
        row is read, and no IBM text says such a cursor refuses DDL (the
        OPEN statement's "DDL Operations on Tables Referenced by Cursors"
        has the DDL go through and later OPENs fail with -710): it does not.
        Without a SET ISOLATION the database's default counts (isolation)."""
        if option[:2] == ("SET", "ISOLATION"):
            level = option[3:] if option[2:3] == ("TO",) else option[2:]
            self._isolation = level[0]

    def _quiesce(self, names: list[str]) -> None:
        """Wait (as long as a lock wait) until no other session is running a
        statement it checked before the ALTER began."""
        db = self._db
        deadline = time.monotonic() + self._wait_ms / 1000
        while db.busy - {self._id}:
            if time.monotonic() > deadline:
                raise SqlError(LOCK_CODES[StatementKind.DDL], -107, names[0] if names else "",
                               "another session is still running a statement")
            time.sleep(0.0005)

    def settle(self) -> None:
        """The end of a request: no statement of this session is in flight."""
        self._db.busy.discard(self._id)

    def refuse_lost_tx(self, ending: bool = False) -> None:
        """NotSupportedError while SQLite has undone this session's open
        transaction behind its back, until the transaction ends.

        An interrupted write (a cancel, a statement time limit, a server
        shutdown) makes SQLite roll the WHOLE transaction back (sqlite3_interrupt:
        "the entire transaction will be rolled back automatically"); Informix
        undoes only the statement and keeps the transaction open (ESQL/C
        sqlbreak(): "Any open databases, cursors, and transactions remain
        open").  The emulator cannot keep it, so it says so instead of
        running the client's next statements in autocommit.  ``ending``: a
        COMMIT WORK, which ends the transaction as rolled back and fails."""
        if not self._in_tx or self._conn is None or self._conn.in_transaction:
            return
        if ending:
            self.rollback()
        raise SqlError(NOT_SUPPORTED, message=(
            "this transaction was rolled back when a write in it was interrupted: keeping "
            "the transaction open past an interrupted write is not supported by the "
            "emulator" + ("" if ending else "; ROLLBACK WORK ends it")))

    def _fresh_snapshot(self) -> None:
        """Let a transaction that has written nothing read what is committed now.

        SQLite reads one snapshot from a transaction's first read to its end;
        Committed Read, Dirty Read and Cursor Stability see each row as it is
        committed when it is fetched, the non-repeatable read and the phantom
        being allowed (IBM Guide to SQL: Syntax, SET ISOLATION, ids_sqs_1161,
        ids_sqs_1164).  So before each statement of such a transaction the
        read-only SQLite transaction is ended and begun again (and its first
        write then waits for the write lock as SET LOCK MODE says, instead of
        failing on a stale snapshot).  Not under Repeatable Read, nor with a
        cursor or savepoint open on the connection, nor once it wrote: from
        its first write it holds SQLite's write lock, and nobody else can
        commit under it."""
        conn = self._conn
        if (not self._in_tx or self._ddl_in_tx or self._savepoints or self._main_sources
                or conn.total_changes != self._tx_changes or self.isolation == "REPEATABLE"):
            return
        try:
            conn.execute("COMMIT")      # nothing written: ends the read snapshot only
        except sqlite3.OperationalError:
            return                      # a statement of it still reads: keep it whole
        conn.execute("BEGIN")

    def check_current(self, stmt) -> None:
        """Called before a statement runs: -710 when a table it was prepared
        against changed since; in an ANSI database a statement other than
        BEGIN WORK opens the implicit transaction it runs in ("every SQL
        statement occurs within a transaction", IBM Guide to SQL: Syntax,
        BEGIN WORK; Database Design Guide, "Transactions")."""
        if not self._in_tx and self.ansi and stmt.kind is not StatementKind.BEGIN:
            self.begin()
        work = stmt.kind not in _ENDS_WORK
        if work:
            self.refuse_lost_tx()
        self._tx_statement(stmt.kind)            # tx_modes: read-only, SET TRANSACTION's window
        self._check_table_locks(stmt)            # table_locks: other sessions' LOCK TABLE
        if work:
            self._fresh_snapshot()
        self._db.busy.add(self._id)
        if self._in_tx and stmt.kind in _WRITES and getattr(stmt, "table", None):
            self._db.table_use.wrote(self._id, stmt.table)      # its rows are locked
        if self._db.ddl_locks:
            self._ddl_locked(stmt)
        versions = self._db.table_versions
        for name, version in stmt.depends.items():
            if versions.get(name, 0) != version:
                raise SqlError(-710, message=f"table {name} has been dropped, altered, "
                                             "or renamed since the statement was prepared")

    def _ddl_locked(self, stmt) -> None:
        """A statement on a table another session's open transaction has
        ALTERed or RENAMEd: the lock error the server's exclusive table lock
        gives (-244 family with ISAM -107, sqlite_errors.LOCK_CODES)."""
        locks = self._db.ddl_locks
        for name in stmt.depends:
            owner = locks.get(name)
            if owner is not None and owner != self._id:
                raise SqlError(LOCK_CODES.get(stmt.kind, -244), -107, name,
                               f"table {name} is locked by another session's ALTER")

    def _ddl_undone(self) -> None:
        """ROLLBACK [TO SAVEPOINT] may have undone an ALTER/RENAME or a
        CREATE/DROP TABLE or VIEW (each holds its table in ddl_locks):
        statements prepared after it (against the shape now gone) get -710
        rather than rows read or written in a shape their description does
        not have (a SELECT prepared on a table created and rolled back sent
        tuples the client could not frame)."""
        mine = [n for n, owner in self._db.ddl_locks.items() if owner == self._id]
        _bump(self._db.table_versions, mine)

    def _ddl_ended(self, undone: bool) -> None:
        if undone:
            self._ddl_undone()
        locks = self._db.ddl_locks
        for name in [n for n, owner in locks.items() if owner == self._id]:
            del locks[name]

    def _merge(self, stmt, values: Sequence[object]) -> ExecResult:
        """MERGE (merge.py): all its statements succeed or none has happened."""
        self.last_serial = self.last_serial8 = 0
        with self._atomic(StatementKind.UPDATE):
            count = merge.run(self._conn, stmt.translation.ddl, values)
        self.last_rowcount = count
        return ExecResult(count, self.last_serial, self.last_serial8)

    def _sequence_ddl(self, ddl: CreateSequence | Drop) -> None:
        db, conn = self._db, self._conn
        exists = ddl.name in db.sequences.states
        if isinstance(ddl, CreateSequence):
            if exists and ddl.if_not_exists:
                return
            if exists:
                raise SqlError(-8301, 0, ddl.name, f"sequence {ddl.name} already exists")
            if ddl.name in db.tables:
                raise SqlError(-310, 0, ddl.name, f"table {ddl.name} already exists")
            db.sequences.save(conn)
            db.sequences.create(conn, ddl, db.next_tabid(conn), OWNER)
        elif exists:
            db.sequences.save(conn)
            db.sequences.drop(conn, ddl.name)
        elif not ddl.if_exists:
            raise SqlError(-8300, 0, ddl.name, f"sequence {ddl.name} is not in the database")
        db.reload(conn)

    def _row_type_ddl(self, ddl: row_types.CreateRowType | Drop) -> None:
        db, conn = self._db, self._conn
        if isinstance(ddl, Drop):
            row_types.drop(conn, ddl.name, ddl.if_exists,
                           [*db.tables.values(), *self._temps.tables.values()], db.row_types)
        else:
            row_types.create(conn, ddl, OWNER, db.row_types, db.xids)
        db.reload(conn)

    def _temp_ddl(self, ddl: object) -> bool:
        """Is this DDL about one of the session's TEMP tables (or makes one)?"""
        temps = self._temps
        if isinstance(ddl, CreateTable):
            return ddl.temp
        if isinstance(ddl, CreateIndex):
            return ddl.table in temps.tables
        if isinstance(ddl, Drop):
            names = temps.tables if ddl.what == "TABLE" else temps.indexes
            return ddl.name in names
        return False

    def _run_temp_ddl(self, ddl: object, values: Sequence[object]) -> int:
        temps, conn = self._temps, self._conn
        if isinstance(ddl, CreateTable):
            return temps.create(conn, ddl, values)
        if isinstance(ddl, CreateIndex):
            temps.create_index(conn, ddl)
        elif ddl.what == "TABLE":
            tdef = temps.drop(conn, ddl.name)
            for key in [k for k in self._db.counters if k[0] == tdef.storage]:
                del self._db.counters[key]
        else:
            temps.drop_index(conn, ddl.name)
        return 0


_LOCKING_LEVELS = frozenset({"DIRTY", "CURSOR", "REPEATABLE"})

_ENDS_WORK = frozenset({StatementKind.COMMIT, StatementKind.ROLLBACK})
_WRITES = frozenset({StatementKind.INSERT, StatementKind.UPDATE, StatementKind.DELETE,
                     StatementKind.MERGE})


def _bump(versions: dict[str, int], names: list[str]) -> None:
    for name in names:
        versions[name] = versions.get(name, 0) + 1


def _changing(ddl: AlterTable | Rename) -> list[str]:
    """The names whose statements an ALTER/RENAME makes stale."""
    if isinstance(ddl, AlterTable):
        return [ddl.name]
    if ddl.what == "COLUMN":
        return [ddl.table or ""]
    if ddl.what == "INDEX":
        return []
    return [ddl.old, ddl.new]
