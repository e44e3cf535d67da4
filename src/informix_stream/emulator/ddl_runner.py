"""Running DDL statements in a session: permanent tables and indexes (through
the catalog), the session's TEMP tables, and sequences.

A mixin of ``engine.Session`` (it uses the session's connection, database,
transaction flags and savepoint helper), kept apart so each job has a module
of its own size.
"""

from __future__ import annotations

from collections.abc import Sequence

from .catalog import OWNER, create_index, create_table, drop
from .sequences import CreateSequence
from .spl_session import CreateRoutine, DropRoutine
from . import row_types, views
from .statements import CreateIndex, CreateTable, Drop, SqlError, StatementKind, Translation


class DdlRunner:
    """The DDL half of a session (see engine.Session)."""

    def _ddl(self, t: Translation, values: Sequence[object] = ()) -> int:
        ddl = t.ddl
        if isinstance(ddl, CreateTable):
            row_types.resolve_columns(ddl.columns, self._db.row_types)
        if self._temp_ddl(ddl):
            with self._atomic(StatementKind.DDL):
                count = self._run_temp_ddl(ddl, values)
            if self._in_tx:
                self._ddl_in_tx = True
            return count
        with self._db.lock, self._atomic(StatementKind.DDL):
            if isinstance(ddl, CreateSequence) or getattr(ddl, "what", "") == "SEQUENCE":
                self._sequence_ddl(ddl)
            elif isinstance(ddl, row_types.CreateRowType) or (
                    isinstance(ddl, Drop) and ddl.what == "ROW TYPE"):
                self._row_type_ddl(ddl)
            elif isinstance(ddl, CreateTable):
                create_table(self._db, self._conn, ddl)
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
        if isinstance(ddl, (CreateTable, views.CreateView)) or (
                isinstance(ddl, Drop) and ddl.what in ("TABLE", "VIEW")):
            versions = self._db.table_versions
            versions[ddl.name] = versions.get(ddl.name, 0) + 1
        self._db.schema_changed()
        if self._in_tx:
            self._ddl_in_tx = True
        return 0

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
            row_types.create(conn, ddl, OWNER, db.row_types)
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
