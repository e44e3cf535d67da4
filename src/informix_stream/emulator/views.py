"""Views: CREATE VIEW / DROP VIEW, their catalog rows, reading through them.

What the server does (IBM Informix Guide to SQL: Syntax, "CREATE VIEW" and
"DROP VIEW"; Guide to SQL: Reference, "SYSTABLES" and "SYSVIEWS"): a view
is listed in systables with tabtype 'V', its columns in syscolumns, and the
statement that created it in sysviews, cut into pieces (viewtext CHAR(64))
numbered by seqno.  ``CREATE VIEW name [(columns)] AS SELECT ... [WITH
CHECK OPTION]``; a column list names as many columns as the SELECT returns.
Dropping a table drops the views that depend on it ("DROP TABLE": the
database server also drops the views defined on the table).

The emulator translates the view's SELECT once, when the view is created,
and keeps it as a SQLite view (constants the translation would bind are
written into it as literals), so a query naming the view is an ordinary
table reference and DESCRIBE types its columns from syscolumns.  INSERT,
UPDATE and DELETE through a view are rewritten onto its base table before
translation (view_writes.py); what reaches ``target`` is never a view.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from informix_stream.codecs import ColumnType, TypeCode

from .catalog import register_object
from .statements import NOT_SUPPORTED, Bind, ColumnDef, SqlError, StatementKind, TableDef, \
    Translation, sql_ident
from .tokens import ident
from .values import writer_for

VIEWTEXT_PIECE = 64
# A view's column is a plain number even over a SERIAL column.
_SERIAL_AS = {TypeCode.SERIAL: (TypeCode.INTEGER, 4), TypeCode.SERIAL8: (TypeCode.INT8, 10),
              TypeCode.BIGSERIAL: (TypeCode.BIGINT, 8)}


@dataclass
class CreateView:
    """CREATE VIEW as the dialect parsed it; ``sql`` is the translated SELECT
    with ``binds`` (constants only) still to be written in."""

    name: str
    columns: list[ColumnDef]
    sql: str
    binds: list[Bind]
    text: str                  # the statement, for sysviews


class ViewRules:
    """Methods of the dialect's translator (see dialect._Translator)."""

    def create_view(self, i: int) -> Translation:
        name, i = self.table_name(i)
        names = None
        if self.text(i) == "(":
            close = self.close_paren(i)
            names = [ident(self.toks[a]) for a, _ in self.split_commas(i + 1, close)]
            i = close + 1
        if self.word(i) != "AS" or self.word(i + 1) != "SELECT":
            self.syntax_error(i if self.word(i) != "AS" else i + 1,
                              "AS SELECT expected in CREATE VIEW")
        end = len(self.toks)
        if [t.text for t in self.toks[-3:]] == ["WITH", "CHECK", "OPTION"]:
            end -= 3                 # kept in sysviews, enforced by view_writes.py
        if any(t.kind == "param" for t in self.toks[i:end]):
            raise SqlError(-201, message="a view's SELECT cannot have ? markers")
        self.toks = self.toks[:end]
        self.collect_scope(i + 1, end)
        for _, tdef in self.scope:
            if tdef.storage:
                raise SqlError(NOT_SUPPORTED, message="a view over a TEMP table is not "
                                                      "supported by the emulator")
        pieces = self.rewrite(i + 1, end)
        described = self.describe(i + 1)
        if names is not None and len(names) != len(described):
            raise SqlError(-201, message=f"view {name} names {len(names)} columns for "
                                         f"{len(described)}")
        columns = [ColumnDef(n, _plain(c.type)) for n, c in zip(
            names or [c.name for c in described], described)]
        for col in columns:
            # An unnamed expression is described as "(expression)", "(count)"...;
            # a delimited name may hold any character (DELIMIDENT).
            if not col.name or col.name.startswith("("):
                raise SqlError(-201, message=f"CREATE VIEW needs a column name for "
                                             f"'{col.name}' (give a column list)")
        spec = CreateView(name, columns, " ".join(pieces), list(self.binds), self.sql.strip())
        self.binds = []
        return Translation(StatementKind.DDL, table=name, ddl=spec)

    def target(self, name: str) -> TableDef:
        """The table an INSERT/UPDATE/DELETE writes: never a view here (a
        write through a view was rewritten onto its base table; what is
        left, TRUNCATE or MERGE of a view, is refused)."""
        tdef = self.table(name)
        if tdef.view:
            raise SqlError(NOT_SUPPORTED, message=f"writing through the view {name} is not "
                                                  "supported by the emulator")
        return tdef


def _plain(ctype: ColumnType) -> ColumnType:
    code, length = _SERIAL_AS.get(ctype.code, (ctype.code, ctype.length))
    return ColumnType(code, length, ctype.nullable)


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'"
    return repr(value)


def inline(spec: CreateView, codec: str) -> str:
    """The view's SQLite SELECT with each bound constant written in."""
    parts = spec.sql.split("?")
    if len(parts) != len(spec.binds) + 1:
        raise SqlError(NOT_SUPPORTED, message="this view's SELECT is not supported by the "
                                              "emulator")
    out = [parts[0]]
    for bind, rest in zip(spec.binds, parts[1:]):
        value = writer_for(bind.type, codec, compared=bind.compared)(bind.const) \
            if bind.type else bind.const
        out += [_literal(value), rest]
    return "".join(out)


def create(db, conn: sqlite3.Connection, spec: CreateView, tabid: int) -> None:
    """Make the SQLite view and its catalog rows (systables, syscolumns, sysviews)."""
    if spec.name in db.tables or spec.name in db.sequences.states:
        raise SqlError(-310, 0, spec.name, f"table {spec.name} already exists")
    cols = ", ".join(sql_ident(c.name) for c in spec.columns)
    conn.execute(f'CREATE VIEW {sql_ident(spec.name)} ({cols}) AS {inline(spec, db.codec)}')
    register_object(conn, tabid, spec.name, "V", spec.columns)
    text = spec.text
    conn.executemany("INSERT INTO sysviews (tabid, seqno, viewtext) VALUES (?, ?, ?)",
                     [(tabid, n, text[k:k + VIEWTEXT_PIECE])
                      for n, k in enumerate(range(0, len(text), VIEWTEXT_PIECE))])


def drop(db, conn: sqlite3.Connection, name: str, if_exists: bool) -> bool:
    """DROP VIEW; False (nothing done) for a missing view with IF EXISTS."""
    tdef = db.tables.get(name)
    if tdef is None or not tdef.view:
        if if_exists and tdef is None:
            return False
        raise SqlError(-206, -111, name, f"view {name} not found")
    _forget(conn, name, db.tabids[name])
    return True


def _forget(conn: sqlite3.Connection, name: str, tabid: int) -> None:
    conn.execute(f'DROP VIEW {sql_ident(name)}')
    for meta in ("_ifx_tables", "_ifx_columns", "sysviews", "_ifx_xtypes"):
        conn.execute(f"DELETE FROM {meta} WHERE tabid = ?", (tabid,))


def drop_dependents(conn: sqlite3.Connection) -> None:
    """After DROP TABLE: drop every view that no longer compiles (the views
    on the table, and the views on those), as the server drops them."""
    while True:
        broken = []
        for name, tabid in conn.execute(
                "SELECT tabname, tabid FROM _ifx_tables WHERE tabtype = 'V'").fetchall():
            try:
                conn.execute(f'SELECT * FROM {sql_ident(name)} LIMIT 0').close()
            except sqlite3.Error:
                broken.append((name, tabid))
        if not broken:
            return
        for name, tabid in broken:
            _forget(conn, name, tabid)


_WORD = re.compile(r"[a-z_][a-z0-9_$]*")


def named_tables(sql: str, tables: Mapping[str, TableDef]) -> set[str]:
    """The tables and views ``sql`` names (every word that is one: a
    superset at worst, never a miss)."""
    return {name for name in set(_WORD.findall(sql.lower())) if name in tables}


def with_base_tables(names: Iterable[str], tables: Mapping[str, TableDef]) -> list[str]:
    """``names`` plus, for each view among them, the tables its definition
    reads (through views over views): a cursor on a view reads, and so
    locks, its base tables' rows, so DDL on them must meet it as it meets a
    cursor on the table itself (table_use.py)."""
    out, todo = list(dict.fromkeys(names)), list(names)
    while todo:
        tdef = tables.get(todo.pop())
        if tdef is None or not tdef.view:
            continue
        for base in sorted(named_tables(tdef.definition, tables)):
            if base not in out:
                out.append(base)
                todo.append(base)
    return out
