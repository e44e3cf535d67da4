"""ALTER TABLE run against a database's SQLite file and catalog (RENAME: rename.py).

What the server does (IBM Informix Guide to SQL: Syntax, "ALTER TABLE"):
the clauses run in the order written and the statement fails as a whole;
ADD puts a column last or BEFORE a named one, DROP removes columns (and the
constraints and indexes on them; views that no longer compile go too, as
DROP TABLE drops them), MODIFY gives a column a new type and converts the
rows, failing without change when a value does not convert; "When you
modify a column, all attributes previously associated with the column
(default value, single-column check constraint, or referential constraint)
are dropped" (MODIFY clause) and are stated again in the new definition;
syscolumns.colno stays the column's position (renumbered after ADD BEFORE
and DROP, Guide to SQL: Reference, SYSCOLUMNS); ADD CONSTRAINT checks the
rows already there.  SQLite cannot change most of a table in place, so the
table is rebuilt (a new table, the rows copied with their rowids, the old
one dropped, the new one renamed) inside the session's transaction or
savepoint: a ROLLBACK undoes all of it.  Errors are the server's codes from
IBM's message catalog (JDBC 15.0.1.0, sql_en_US.properties): -328 column
already exists, -217 column not found, -623 constraint not found, -625
constraint name exists, -532 a TEMP table, -322 a view, -312 a system table.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field, replace

from informix_stream.codecs import ColumnType, TypeCode

from . import blobs, references, syscatalog, views
from .catalog import (Database, _add_index, _image_triggers, _Index, _record_column_rules,
                      add_column, column_sql, sqlite_index)
from .statements import (IMAGE_COLUMN, NOT_SUPPORTED, SERIAL_CODES, ColumnDef, CreateTable,
                         SqlError, StatementKind, sql_ident)
from .sqlite_errors import map_error
from .tokens import ident, tokenize
from .translate_alter import AlterAction, AlterTable
from .values import image_maker


@dataclass
class _Column:
    """A column of the table being rebuilt: its definition, where its value
    comes from (SQLite expression over the old table, None: its default),
    and its SQLite default clause when it keeps the old one."""

    col: ColumnDef
    source: str | None
    old_default: str | None = None
    old_colno: int | None = None


@dataclass
class _Check:
    name: str
    sql: str
    text: str
    constrid: int | None = None     # kept through the rebuild; None: a new one


@dataclass
class _Plan:
    columns: list[_Column]
    checks: list[_Check]
    rebuild: bool = False
    new_uniques: list[tuple] = field(default_factory=list)
    new_refs: list[tuple] = field(default_factory=list)
    dropped_constraints: set[str] = field(default_factory=set)


def alter_table(db: Database, conn: sqlite3.Connection, spec: AlterTable) -> None:
    name = spec.name
    tdef = db.tables.get(name)
    if tdef is None:
        raise SqlError(-206, -111, name, f"table {name} not found")
    tabid = db.tabids[name]
    if tdef.view:
        raise SqlError(-322, 0, name, f"cannot alter the view {name}")
    if tabid < 100:
        raise SqlError(-312, 0, name, f"cannot update system catalog ({name})")
    plan = _current(db, conn, name, tabid)
    for action in spec.actions:
        _apply(db, conn, name, plan, action)
    if plan.rebuild:
        _rebuild(db, conn, name, tabid, plan)
    else:
        _drop_gone_constraints(db, conn, name, tabid, plan)
    for cname, cols, primary in plan.new_uniques:
        _add_unique(db, conn, name, tabid, cname, cols, primary)
    db.reload(conn)
    if plan.new_refs:
        keys: dict[str, list[tuple[list[str], bool]]] = {t: [] for t in db.tables}
        for idx in db.indexes.values():
            if idx.constraint in ("P", "U"):
                keys.setdefault(idx.table, []).append((idx.columns, idx.constraint == "P"))
        before = set(references.of_table(conn, name))
        references.create(conn, name, tabid, plan.new_refs, keys)
        for ref in set(references.of_table(conn, name)) - before:
            references.check_rows(conn, ref)
    views.drop_dependents(conn)
    db.reload(conn)


# -- the table as it is --------------------------------------------------------

def _current(db: Database, conn: sqlite3.Connection, name: str, tabid: int) -> _Plan:
    defaults = {row[1]: row[4] for row in conn.execute(f'PRAGMA table_info({sql_ident(name)})')}
    columns = [_Column(replace(c), sql_ident(c.name), defaults.get(c.name), colno)
               for colno, c in enumerate(db.tables[name].columns, start=1)]
    rows = conn.execute("SELECT constrname, constrid FROM _ifx_constraints WHERE tabid = ?"
                        " AND constrtype = 'C' ORDER BY constrid", (tabid,)).fetchall()
    names = [n for n, _ in rows]
    texts = [_check_text(conn, n) for n in names]
    sqls = _check_sql(conn, name)
    if len(sqls) != len(names):
        raise SqlError(NOT_SUPPORTED, message=f"the CHECK constraints of {name} "
                       "cannot be matched to their catalog rows; ALTER TABLE of it is not "
                       "supported by the emulator")
    return _Plan(columns, [_Check(n, s, t, i) for (n, i), s, t in zip(rows, sqls, texts)])


def _check_text(conn: sqlite3.Connection, name: str) -> str:
    return "".join(t for (t,) in conn.execute(
        "SELECT k.checktext FROM _ifx_checks k JOIN _ifx_constraints c"
        " ON c.constrid = k.constrid WHERE c.constrname = ? ORDER BY k.seqno", (name,)))


def _check_sql(conn: sqlite3.Connection, table: str) -> list[str]:
    """The SQLite CHECK clauses of ``table`` in the order they were written
    (catalog.create_table puts them after the columns)."""
    (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                          (table,)).fetchone()
    body = sql[sql.index("(") + 1:sql.rindex(")")]
    return [part.strip()[len("CHECK"):].strip() for part in _top_level(body)
            if part.strip().upper().startswith("CHECK")]


def _top_level(body: str) -> list[str]:
    """Split SQLite DDL text at commas outside parentheses and quotes."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in body:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return parts


# -- the clauses ----------------------------------------------------------------

def _find(plan: _Plan, col: str) -> int:
    for k, c in enumerate(plan.columns):
        if c.col.name == col:
            return k
    raise SqlError(-217, 0, col, f"column {col} not found")


def _apply(db: Database, conn: sqlite3.Connection, table: str, plan: _Plan,
           action: AlterAction) -> None:
    if action.verb == "ADD":
        _add(conn, table, plan, action)
    elif action.verb == "DROP":
        for col in action.names:
            _drop_column(db, conn, table, plan, col)
    elif action.verb == "MODIFY":
        _modify(db, conn, table, plan, action)
    elif action.verb == "CONSTRAINT":
        _constraints(plan, action.extra)
    elif action.verb == "DROP CONSTRAINT":
        for cname in action.names:
            _drop_constraint(db, conn, table, plan, cname)


def _add(conn: sqlite3.Connection, table: str, plan: _Plan, action: AlterAction) -> None:
    col = action.column
    if any(c.col.name == col.name for c in plan.columns):
        raise SqlError(-328, 0, col.name, f"column {col.name} already exists in the table")
    if col.type.code in SERIAL_CODES and conn.execute(
            f'SELECT 1 FROM {sql_ident(table)} LIMIT 1').fetchone():
        # Guide to SQL: Syntax, ADD clause: "You cannot add a SERIAL column if
        # the table contains data" (-287, IBM JDBC 15.0.1.0 message catalog).
        raise SqlError(-287, 0, col.name, f"cannot add serial column ({col.name}) to table")
    if col.type.code in SERIAL_CODES and any(
            _serial_family(c.col.type.code) == _serial_family(col.type.code)
            for c in plan.columns):
        # IBM JDBC 15.0.1.0 message catalog: -362 "Can have only one column of
        # serial/(serial8 or bigserial) type".
        raise SqlError(-362, 0, col.name, "a table has one SERIAL and one SERIAL8/BIGSERIAL")
    at = len(plan.columns) if action.before is None else _find(plan, action.before)
    plan.columns.insert(at, _Column(col, None))
    plan.rebuild = True
    _constraints(plan, action.extra)


def _serial_family(code: int) -> int:
    """SERIAL is one family, SERIAL8 and BIGSERIAL the other; 0: not serial."""
    if code not in SERIAL_CODES:
        return 0
    return 1 if code == TypeCode.SERIAL else 2


def _drop_column(db: Database, conn: sqlite3.Connection, table: str, plan: _Plan,
                 col: str) -> None:
    k = _find(plan, col)
    if len(plan.columns) == 1:
        raise SqlError(-370, 0, col, "cannot drop last column")
    del plan.columns[k]
    plan.rebuild = True
    for idx in _indexes(db, table):
        if col in idx.columns and idx.constraint != "R":     # R: with its reference below
            plan.dropped_constraints.add(idx.name)
    plan.new_uniques = [u for u in plan.new_uniques if col not in u[1]]
    for ref in references.of_table(conn, table):
        child, cols, parent, pcols = _reference(conn, ref)
        if (child == table and col in cols) or (parent == table and col in pcols):
            plan.dropped_constraints.add(ref)
    plan.checks = [c for c in plan.checks if not _mentions(c.text, col)]


def _modify(db: Database, conn: sqlite3.Connection, table: str, plan: _Plan,
            action: AlterAction) -> None:
    new = action.column
    k = _find(plan, new.name)
    old = plan.columns[k]
    source = old.source
    if source is not None and _changed(old.col.type, new.type):
        source = (f"ifx_cast({source}, {int(old.col.type.code)}, {old.col.type.length},"
                  f" {int(new.type.code)}, {new.type.length})")
    if old.col.type.code in SERIAL_CODES and new.type.code in SERIAL_CODES:
        new.serial_start = old.col.serial_start
    plan.columns[k] = _Column(new, source, None, old.old_colno)
    plan.rebuild = True
    # Single-column checks and the column's own references go (see the docstring).
    plan.checks = [c for c in plan.checks if not _mentions(c.text, new.name)
                   or _mentions_other(c.text, new.name, plan)]
    for ref in references.of_table(conn, table):
        child, cols, _, _ = _reference(conn, ref)
        if child == table and cols == [new.name]:
            plan.dropped_constraints.add(ref)
    _constraints(plan, action.extra)


def _changed(a: ColumnType, b: ColumnType) -> bool:
    return (a.code, a.length) != (b.code, b.length)


def _constraints(plan: _Plan, extra: CreateTable | None) -> None:
    if extra is None:
        return
    names = [c.col.name for c in plan.columns]
    for cname, cols, primary in extra.uniques:
        for col in cols:
            if col not in names:
                raise SqlError(-537, 0, col, f"constraint column {col} not found in table")
        plan.new_uniques.append((cname, cols, primary))
    for sql, (cname, text) in zip(extra.checks, extra.check_sources):
        plan.checks.append(_Check(cname or "", sql, text))
        plan.rebuild = True
    for ref in extra.references:
        for col in ref[1]:
            if col not in names:
                raise SqlError(-537, 0, col, f"constraint column {col} not found in table")
        plan.new_refs.append(ref)


def _drop_constraint(db: Database, conn: sqlite3.Connection, table: str, plan: _Plan,
                     cname: str) -> None:
    tabid = db.tabids[table]
    if any(idx.name == cname and idx.constraint for idx in _indexes(db, table)):
        plan.dropped_constraints.add(cname)
        # Guide to SQL: Syntax, DROP CONSTRAINT: dropping a primary-key or
        # unique constraint drops the referential constraints on it.
        cols = db.indexes[cname].columns
        for ref in references.of_table(conn, table):
            _, _, parent, pcols = _reference(conn, ref)
            if parent == table and pcols == cols:
                plan.dropped_constraints.add(ref)
        return
    if cname in references.of_table(conn, table) and _reference(conn, cname)[0] == table:
        plan.dropped_constraints.add(cname)
        return
    for k, check in enumerate(plan.checks):
        if check.name == cname:
            del plan.checks[k]
            plan.rebuild = True
            return
    row = conn.execute("SELECT colno FROM _ifx_constraints WHERE constrname = ? AND tabid = ?"
                       " AND constrtype = 'N'", (cname, tabid)).fetchone()
    if row is not None:
        for c in plan.columns:
            if c.old_colno == row[0]:
                c.col = replace(c.col, type=ColumnType(c.col.type.code, c.col.type.length))
                plan.rebuild = True
                return
    raise SqlError(-623, 0, cname, f"unable to find constraint {cname}")


# -- helpers over the catalog -------------------------------------------------------

def _indexes(db: Database, table: str) -> list[_Index]:
    return [idx for idx in db.indexes.values() if idx.table == table]


def _reference(conn: sqlite3.Connection, name: str) -> tuple[str, list, str, list]:
    child, cols, parent, pcols = conn.execute(
        "SELECT tabname, cols, ptabname, pcols FROM _ifx_references WHERE constrname = ?",
        (name,)).fetchone()
    return child, json.loads(cols), parent, json.loads(pcols)


def _mentions(text: str, col: str) -> bool:
    return any(t.kind == "word" and ident(t) == col for t in tokenize(text))


def _mentions_other(text: str, col: str, plan: _Plan) -> bool:
    others = {c.col.name for c in plan.columns} - {col}
    return any(_mentions(text, o) for o in others)


def _drop_gone_constraints(db: Database, conn: sqlite3.Connection, table: str, tabid: int,
                           plan: _Plan) -> None:
    """DROP CONSTRAINT of unique/primary/referential ones: no rebuild needed."""
    refs = [n for n in plan.dropped_constraints if n not in db.indexes]
    references.drop(conn, refs)
    for name in plan.dropped_constraints - set(refs):
        conn.execute(f'DROP INDEX IF EXISTS {sql_ident(name)}')
        conn.execute("DELETE FROM _ifx_indexes WHERE idxname = ?", (name,))


def _add_unique(db: Database, conn: sqlite3.Connection, table: str, tabid: int,
                cname: str | None, cols: list[str], primary: bool) -> None:
    kind = "P" if primary else "U"
    for idx in _indexes(db, table):
        if idx.constraint == "P" and primary:
            raise SqlError(-577, 0, idx.name, "a primary key already exists on the table")
        if idx.constraint in ("P", "U") and idx.columns == cols:
            raise SqlError(-577, 0, idx.name, "a constraint of the same type already exists "
                           "on the column set")
    name = cname or f"u{tabid}_{syscatalog.next_constrid(conn)}"
    if conn.execute("SELECT 1 FROM sysconstraints WHERE constrname = ?", (name,)).fetchone():
        raise SqlError(-625, 0, name, f"constraint name {name} already exists")
    if primary:
        nulls = " OR ".join(f'{sql_ident(c)} IS NULL' for c in cols)
        if conn.execute(f'SELECT 1 FROM {sql_ident(table)} WHERE {nulls} LIMIT 1').fetchone():
            raise SqlError(-391, 0, cols[0], f"cannot insert a null into column {cols[0]}")
    _add_index(db, conn, _Index(name, table, cols, True, kind), tabid)


# -- the rebuild ---------------------------------------------------------------------

def _rebuild(db: Database, conn: sqlite3.Connection, table: str, tabid: int,
             plan: _Plan) -> None:
    """New table, rows copied (rowids kept, values converted), swap; then the
    indexes, triggers and catalog rows of the new shape."""
    old = db.tables[table]
    if old.serial_columns:
        db.save_counters(conn, table)
    for col in old.columns:
        if col.type.code in blobs.BLOB_CODES and all(c.col.name != col.name
                                                     for c in plan.columns):
            blobs.free_table(conn, table, [col])
    _drop_gone_constraints(db, conn, table, tabid, plan)
    kept_refs = references.of_table(conn, table)
    columns = [c.col for c in plan.columns]
    imaged = image_maker(columns) is not None
    scratch = f"_ifx_alter_{table}"
    body = [_column_sql(db, c) for c in plan.columns]
    if imaged:
        body.append(f"{IMAGE_COLUMN} BLOB")
    body += [f"CHECK {c.sql}" for c in plan.checks]
    conn.execute(f'DROP TABLE IF EXISTS {sql_ident(scratch)}')
    conn.execute(f'CREATE TABLE {sql_ident(scratch)} ({", ".join(body)})')
    moved = [c for c in plan.columns if c.source is not None]
    targets = ", ".join(["rowid"] + [sql_ident(c.col.name) for c in moved])
    sources = ", ".join(["rowid"] + [c.source for c in moved])
    try:
        conn.execute(f"INSERT INTO {sql_ident(scratch)} ({targets})"
                     f" SELECT {sources} FROM {sql_ident(table)}"
                     " ORDER BY rowid")
    except sqlite3.Error as exc:
        raise _copy_error(exc, db, table) from None
    if imaged:
        db.images[table] = image_maker(columns, db.codec)
        args = ", ".join(sql_ident(c.name) for c in columns)
        conn.execute(f"UPDATE {sql_ident(scratch)} SET {IMAGE_COLUMN} = ifx_image(?, {args})",
                     (table,))
    conn.execute(f'DROP TABLE {sql_ident(table)}')
    _rename_sqlite_table(conn, scratch, table)
    for trigger in (_image_triggers(table, columns) if imaged else []) + \
            blobs.triggers(table, columns):
        conn.execute(trigger)
    _rewrite_catalog(db, conn, table, tabid, plan)
    for (idxname, cols, idxtype) in conn.execute(
            "SELECT idxname, cols, idxtype FROM _ifx_indexes WHERE tabid = ?",
            (tabid,)).fetchall():
        sqlite_index(conn, idxname, idxname, table, json.loads(cols), idxtype == "U")
    for ref in kept_refs:
        references.enforce(conn, ref)


def _column_sql(db: Database, c: _Column) -> str:
    if c.source is not None and c.col.default is None and c.old_default is not None \
            and c.old_colno is not None and c.source.startswith('"'):
        return f"{column_sql(c.col, db.codec)} DEFAULT {c.old_default}"
    return column_sql(c.col, db.codec)


def _copy_error(exc: sqlite3.Error, db: Database, table: str) -> SqlError:
    err = map_error(exc, StatementKind.DDL, db)
    if err.sqlcode == -530:
        err.near = ""        # a CHECK the existing rows break
    return err


def _rename_sqlite_table(conn: sqlite3.Connection, old: str, new: str) -> None:
    """Rename without SQLite rewriting (or re-checking) other objects'
    references: the triggers and views naming ``new`` keep naming it."""
    conn.execute("PRAGMA legacy_alter_table = ON")
    try:
        conn.execute(f'ALTER TABLE {sql_ident(old)} RENAME TO {sql_ident(new)}')
    finally:
        conn.execute("PRAGMA legacy_alter_table = OFF")


def _rewrite_catalog(db: Database, conn: sqlite3.Connection, table: str, tabid: int,
                     plan: _Plan) -> None:
    """syscolumns renumbered by position, systables' ncols/rowsize, the 'N'
    and 'C' constraints and sysdefaults of the new shape."""
    columns = [c.col for c in plan.columns]
    renumber = {c.old_colno: k for k, c in enumerate(plan.columns, start=1)
                if c.old_colno is not None and c.source is not None
                and c.source.startswith('"')}
    conn.execute("DELETE FROM _ifx_columns WHERE tabid = ?", (tabid,))
    for colno, col in enumerate(columns, start=1):
        add_column(conn, tabid, colno, col)
    conn.execute("UPDATE _ifx_tables SET ncols = ?, rowsize = ? WHERE tabid = ?",
                 (len(columns), sum(c.type.wire_width for c in columns), tabid))
    defaults = conn.execute("SELECT colno, type, deftext FROM _ifx_defaults WHERE tabid = ?",
                            (tabid,)).fetchall()
    conn.execute("DELETE FROM _ifx_defaults WHERE tabid = ?", (tabid,))
    conn.executemany("INSERT INTO _ifx_defaults VALUES (?, ?, ?, ?)",
                     [(tabid, renumber[colno], kind, text) for colno, kind, text in defaults
                      if colno in renumber])
    nulls = dict(conn.execute("SELECT colno, constrid FROM _ifx_constraints WHERE tabid = ?"
                              " AND constrtype = 'N'", (tabid,)).fetchall())
    conn.execute("DELETE FROM _ifx_checks WHERE constrid IN (SELECT constrid FROM"
                 " _ifx_constraints WHERE tabid = ? AND constrtype = 'C')", (tabid,))
    conn.execute("DELETE FROM _ifx_constraints WHERE tabid = ? AND constrtype IN ('N', 'C')",
                 (tabid,))
    for colno, c in enumerate(plan.columns, start=1):
        kept = c.old_colno in renumber and renumber.get(c.old_colno) == colno
        if kept and c.old_colno in nulls and not c.col.type.nullable:
            conn.execute("INSERT INTO _ifx_constraints VALUES (?, ?, ?, 'N', ?)",
                         (nulls[c.old_colno], f"n{tabid}_{nulls[c.old_colno]}", tabid, colno))
        elif not kept:
            _record_column_rules(conn, tabid, colno, c.col)
    for check in plan.checks:
        syscatalog.record_check(conn, tabid, check.name or None, check.text, check.constrid)
