"""Referential constraints: FOREIGN KEY / REFERENCES enforced as the server does.

IBM Informix Guide to SQL: Syntax ("REFERENCES clause", "DROP TABLE"): the
referenced columns are the parent's primary key (when none are named) or a
unique or primary-key constraint (-297 otherwise); a child row whose key is
not NULL must match a parent row (-691); a parent row still referenced cannot
be deleted or have its key changed (-692) unless the constraint says ON
DELETE CASCADE, which deletes the children; DROP TABLE (CASCADE mode by
default) drops the constraints that reference the table.  Codes from IBM's
message catalog (JDBC 15.0.1.0, sql_en_US.properties).

Each constraint is a set of SQLite triggers raising ``ifx_fk <code>
<name>`` (sqlite_errors maps it) and a row of ``_ifx_references``; triggers
rather than SQLite's own foreign keys because those cannot be dropped from a
child table when its parent is dropped.  Checks run per row, as the rows are
written, where the server checks at the end of the statement: a statement
that passes through a state violating a constraint (e.g. renumbering keys
in place) is refused here and accepted there.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence

from . import syscatalog
from .statements import SqlError, sql_ident
from .tokens import quote

REFERENCES_DDL = """CREATE TABLE IF NOT EXISTS _ifx_references (
    constrname TEXT PRIMARY KEY, tabname TEXT, cols TEXT, ptabname TEXT, pcols TEXT,
    cascade INTEGER)"""
MISSING_KEY, STILL_REFERENCED, NO_UNIQUE_KEY = -691, -692, -297

Reference = tuple  # (name | None, columns, parent table, parent columns | None, cascade)


def create(conn: sqlite3.Connection, table: str, tabid: int, refs: Sequence[Reference],
           unique_keys: Mapping[str, list[tuple[list[str], bool]]]) -> None:
    """Record and enforce ``table``'s references.  ``unique_keys`` maps a
    table name to its (columns, primary) unique keys, the new table's own
    among them (a table may reference itself)."""
    for name, cols, parent, pcols, cascade in refs:
        constrid = syscatalog.next_constrid(conn)
        name = name or f"r{tabid}_{constrid}"
        keys = unique_keys.get(parent)
        if keys is None:
            raise SqlError(-206, -111, parent, f"table {parent} not found")
        if pcols is None:
            primary = [k for k, is_primary in keys if is_primary]
            if not primary:
                raise SqlError(NO_UNIQUE_KEY, 0, parent, "no primary key on the referenced table")
            pcols = primary[0]
        if list(pcols) not in [list(k) for k, _ in keys]:
            raise SqlError(NO_UNIQUE_KEY, 0, parent, "cannot find unique constraint or "
                           "primary key on the referenced table")
        if len(pcols) != len(cols):
            raise SqlError(-201, message="the referencing and referenced columns differ in number")
        _exists(conn, name)
        conn.execute("INSERT INTO _ifx_references VALUES (?, ?, ?, ?, ?, ?)",
                     (name, table, json.dumps(list(cols)), parent, json.dumps(list(pcols)),
                      int(cascade)))
        _record(conn, name, table, tabid, constrid, cols)
        enforce(conn, name)


def _exists(conn: sqlite3.Connection, name: str) -> None:
    """-625: constraint names are unique in the database."""
    if conn.execute("SELECT 1 FROM sysconstraints WHERE constrname = ?", (name,)).fetchone():
        raise SqlError(-625, 0, name, f"constraint name {name} already exists")


def _record(conn: sqlite3.Connection, name: str, table: str, tabid: int, constrid: int,
            cols: Sequence[str]) -> None:
    """The catalog rows of a referential constraint as the server keeps them
    (Guide to SQL: Reference, SYSCONSTRAINTS, SYSREFERENCES): an 'R' row of
    sysconstraints whose idxname is an index the server builds on the
    referencing columns (named ' <tabid>_<constrid>', with the leading
    space of a system-generated index); sysreferences is a view over
    _ifx_references joined to these rows (syscatalog.py)."""
    index = f" {tabid}_{constrid}"
    conn.execute("INSERT INTO _ifx_constraints VALUES (?, ?, ?, 'R', NULL)",
                 (constrid, name, tabid))
    conn.execute("INSERT INTO _ifx_indexes VALUES (?, ?, 'D', 'R', ?, ?)",
                 (index, tabid, json.dumps(list(cols), separators=(",", ":")), constrid))
    col_list = ", ".join(sql_ident(c) for c in cols)
    conn.execute(f"CREATE INDEX {sql_ident(index)} ON {sql_ident(table)} ({col_list})")


def enforce(conn: sqlite3.Connection, name: str) -> None:
    """(Re)create the triggers of the recorded constraint ``name`` (after
    its tables were rebuilt by ALTER TABLE, alter.py, which drops them)."""
    table, cols, parent, pcols, cascade = conn.execute(
        "SELECT tabname, cols, ptabname, pcols, cascade FROM _ifx_references"
        " WHERE constrname = ?", (name,)).fetchone()
    for suffix in SUFFIXES:
        conn.execute(f'DROP TRIGGER IF EXISTS {sql_ident(f"_ifx_fk_{name}_{suffix}")}')
    for sql in _triggers(name, table, json.loads(cols), parent, json.loads(pcols),
                         bool(cascade)):
        conn.execute(sql)


def check_rows(conn: sqlite3.Connection, name: str) -> None:
    """-525 when rows already in the child break a constraint being added
    (ALTER TABLE ADD CONSTRAINT: existing rows must satisfy it; IBM JDBC
    15.0.1.0 message catalog: -525 "Failure to satisfy referential
    constraint")."""
    table, cols, parent, pcols = conn.execute(
        "SELECT tabname, cols, ptabname, pcols FROM _ifx_references WHERE constrname = ?",
        (name,)).fetchone()
    cols, pcols = json.loads(cols), json.loads(pcols)
    given = " AND ".join(f"c.{sql_ident(c)} IS NOT NULL" for c in cols)
    match = " AND ".join(f"p.{sql_ident(p)} = c.{sql_ident(c)}" for c, p in zip(cols, pcols))
    if conn.execute(f"SELECT 1 FROM {sql_ident(table)} c WHERE {given} AND NOT EXISTS"
                    f" (SELECT 1 FROM {sql_ident(parent)} p WHERE {match}) LIMIT 1").fetchone():
        raise SqlError(-525, 0, name, f"failure to satisfy referential constraint {name}")


SUFFIXES = ("ins", "upd", "pupd", "pdel")


def _triggers(name: str, child: str, cols: Sequence[str], parent: str,
              pcols: Sequence[str], cascade: bool) -> list[str]:
    q = sql_ident
    fail = quote(f"ifx_fk {MISSING_KEY} {name}")
    kept = quote(f"ifx_fk {STILL_REFERENCED} {name}")
    given = " AND ".join(f"NEW.{q(c)} IS NOT NULL" for c in cols)
    match_new = " AND ".join(f"p.{q(p)} = NEW.{q(c)}" for c, p in zip(cols, pcols))
    match_old = " AND ".join(f"c.{q(c)} = OLD.{q(p)}" for c, p in zip(cols, pcols))
    changed = " OR ".join(f"NEW.{q(p)} IS NOT OLD.{q(p)}" for p in pcols)
    missing = (f"WHEN {given} AND NOT EXISTS (SELECT 1 FROM {q(parent)} p WHERE {match_new})"
               f" BEGIN SELECT RAISE(ABORT, {fail}); END")
    referenced = f"EXISTS (SELECT 1 FROM {q(child)} c WHERE {match_old})"
    col_list = ", ".join(q(c) for c in cols)
    pcol_list = ", ".join(q(p) for p in pcols)
    out = [f'CREATE TRIGGER {q(f"_ifx_fk_{name}_ins")} AFTER INSERT ON {q(child)} {missing}',
           f'CREATE TRIGGER {q(f"_ifx_fk_{name}_upd")} AFTER UPDATE OF {col_list} ON {q(child)}'
           f" {missing}",
           f'CREATE TRIGGER {q(f"_ifx_fk_{name}_pupd")} AFTER UPDATE OF {pcol_list} ON {q(parent)}'
           f" WHEN ({changed}) AND {referenced}"
           f" BEGIN SELECT RAISE(ABORT, {kept}); END"]
    if cascade:
        where = " AND ".join(f"{q(c)} = OLD.{q(p)}" for c, p in zip(cols, pcols))
        out.append(f'CREATE TRIGGER {q(f"_ifx_fk_{name}_pdel")} AFTER DELETE ON {q(parent)}'
                   f" BEGIN DELETE FROM {q(child)} WHERE {where}; END")
    else:
        out.append(f'CREATE TRIGGER {q(f"_ifx_fk_{name}_pdel")} AFTER DELETE ON {q(parent)}'
                   f" WHEN {referenced}"
                   f" BEGIN SELECT RAISE(ABORT, {kept}); END")
    return out


def forget_table(conn: sqlite3.Connection, table: str) -> None:
    """Before ``table`` is dropped: its own constraints, and (CASCADE) those
    of other tables that reference it, go with it."""
    names = [n for (n,) in conn.execute(
        "SELECT constrname FROM _ifx_references WHERE tabname = ? OR ptabname = ?",
        (table, table))]
    drop(conn, names)


def drop(conn: sqlite3.Connection, names: Sequence[str]) -> None:
    """Drop referential constraints: triggers, catalog rows, their index."""
    for name in names:
        for suffix in SUFFIXES:
            conn.execute(f'DROP TRIGGER IF EXISTS {sql_ident(f"_ifx_fk_{name}_{suffix}")}')
        row = conn.execute("SELECT constrid FROM _ifx_constraints WHERE constrname = ?"
                           " AND constrtype = 'R'", (name,)).fetchone()
        if row is not None:
            for (index,) in conn.execute("SELECT idxname FROM _ifx_indexes WHERE constrid = ?",
                                         row).fetchall():
                conn.execute(f"DROP INDEX IF EXISTS {sql_ident(index)}")
            conn.execute("DELETE FROM _ifx_indexes WHERE constrid = ?", row)
            conn.execute("DELETE FROM _ifx_constraints WHERE constrid = ?", row)
    conn.executemany("DELETE FROM _ifx_references WHERE constrname = ?", [(n,) for n in names])


def of_table(conn: sqlite3.Connection, table: str) -> list[str]:
    """Names of the constraints in which ``table`` is the child or the parent."""
    return [n for (n,) in conn.execute(
        "SELECT constrname FROM _ifx_references WHERE tabname = ? OR ptabname = ?",
        (table, table))]
