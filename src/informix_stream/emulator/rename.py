"""RENAME TABLE / COLUMN / SEQUENCE / INDEX against a database's SQLite file
and catalog (IBM Informix Guide to SQL: Syntax, the RENAME statements).

SQLite renames tables and columns in place (rewriting the views and
triggers that name them); the emulator's own triggers (row images, BYTE/TEXT,
FOREIGN KEY, alter.py's neighbours) carry the names in their text and
bodies, so they are dropped and made again under the new names.  Codes
from IBM's message catalog (JDBC 15.0.1.0, sql_en_US.properties): -310
name taken, -322 a view, -584/-585 the system catalog, -319 no such index,
-316 index name taken, -948 an index that belongs to a constraint, -8300
no such sequence.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace

from . import blobs, references
from .catalog import Database, _image_triggers, sqlite_index
from .statements import SqlError, sql_ident
from .tokens import ident, tokenize
from .translate_alter import Rename
from .values import image_maker
from .views import VIEWTEXT_PIECE



def rename(db: Database, conn: sqlite3.Connection, spec: Rename) -> list[str]:
    """RENAME TABLE/COLUMN/SEQUENCE/INDEX; returns the table names whose
    prepared statements must now fail with -710."""
    if spec.what == "TABLE":
        return _rename_table(db, conn, spec.old, spec.new)
    if spec.what == "COLUMN":
        return _rename_column(db, conn, spec.table or "", spec.old, spec.new)
    if spec.what == "INDEX":
        return _rename_index(db, conn, spec.old, spec.new)
    return _rename_sequence(db, conn, spec.old, spec.new)


def _taken(db: Database, name: str) -> None:
    if name in db.tables or name in db.sequences.states:
        raise SqlError(-310, 0, name, f"table {name} already exists in database")


def _rename_table(db: Database, conn: sqlite3.Connection, old: str, new: str) -> list[str]:
    """Guide to SQL: Syntax, RENAME TABLE: the views, constraints and
    indexes on the table follow it (a view's text still names the old table
    on the server; here the SQLite view is rewritten to the new name)."""
    tdef = db.tables.get(old)
    if tdef is None or tdef.view:
        if tdef is not None:
            raise SqlError(-322, 0, old, f"cannot rename the view {old}")
        raise SqlError(-206, -111, old, f"table {old} not found")
    if db.tabids[old] < 100:
        raise SqlError(-584, 0, old, "cannot rename a system catalog table")
    _taken(db, new)
    refs = references.of_table(conn, old)
    for ref in refs:
        for suffix in references.SUFFIXES:
            conn.execute(f'DROP TRIGGER IF EXISTS {sql_ident(f"_ifx_fk_{ref}_{suffix}")}')
    conn.execute(f"ALTER TABLE {sql_ident(old)} RENAME TO {sql_ident(new)}")
    for trig, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"
                                  " AND tbl_name = ? AND name LIKE '\\_ifx\\_%' ESCAPE '\\'",
                                  (new,)).fetchall():
        conn.execute(f"DROP TRIGGER {sql_ident(trig)}")
    conn.execute("UPDATE _ifx_tables SET tabname = ? WHERE tabname = ?", (new, old))
    conn.execute("UPDATE _ifx_references SET tabname = ? WHERE tabname = ?", (new, old))
    conn.execute("UPDATE _ifx_references SET ptabname = ? WHERE ptabname = ?", (new, old))
    columns = tdef.columns
    if image_maker(columns) is not None:
        # A row image holds values only: the stored ones stay exact.
        db.images[new] = image_maker(columns, db.codec)
        for trigger in _image_triggers(new, columns):
            conn.execute(trigger)
    for trigger in blobs.triggers(new, columns):
        conn.execute(trigger)
    for ref in refs:
        references.enforce(conn, ref)
    for key in [k for k in db.counters if k[0] == old]:
        db.counters[(new, key[1])] = db.counters.pop(key)
    _rewrite_view_texts(conn, old, new, old)
    return [old, new]


def _rename_column(db: Database, conn: sqlite3.Connection, table: str, old: str,
                   new: str) -> list[str]:
    """Guide to SQL: Syntax, RENAME COLUMN: views, check constraints and
    references on the column follow the new name."""
    tdef = db.tables.get(table)
    if tdef is None:
        raise SqlError(-206, -111, table, f"table {table} not found")
    if tdef.view:
        raise SqlError(-322, 0, table, f"cannot rename a column of the view {table}")
    tabid = db.tabids[table]
    if tabid < 100:
        raise SqlError(-585, 0, table, "cannot rename a column in the system catalog")
    if tdef.column(old) is None:
        raise SqlError(-217, 0, old, f"column {old} not found")
    if tdef.column(new) is not None:
        raise SqlError(-328, 0, new, f"column {new} already exists in the table")
    refs = references.of_table(conn, table)
    for ref in refs:
        for suffix in references.SUFFIXES:
            conn.execute(f'DROP TRIGGER IF EXISTS {sql_ident(f"_ifx_fk_{ref}_{suffix}")}')
    for (trig,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                " AND tbl_name = ? AND name LIKE '\\_ifx\\_%' ESCAPE '\\'",
                                (table,)).fetchall():
        conn.execute(f"DROP TRIGGER {sql_ident(trig)}")
    conn.execute(f"ALTER TABLE {sql_ident(table)} RENAME COLUMN {sql_ident(old)}"
                 f" TO {sql_ident(new)}")
    conn.execute("UPDATE _ifx_columns SET colname = ? WHERE tabid = ? AND colname = ?",
                 (new, tabid, old))
    for meta, cols_field, name_field in (("_ifx_references", "cols", "tabname"),
                                         ("_ifx_references", "pcols", "ptabname")):
        for cname, cols in conn.execute(f"SELECT constrname, {cols_field} FROM {meta}"
                                        f" WHERE {name_field} = ?", (table,)).fetchall():
            renamed = [new if c == old else c for c in json.loads(cols)]
            conn.execute(f"UPDATE {meta} SET {cols_field} = ? WHERE constrname = ?",
                         (json.dumps(renamed), cname))
    for idxname, cols in conn.execute("SELECT idxname, cols FROM _ifx_indexes WHERE tabid = ?",
                                      (tabid,)).fetchall():
        renamed = [new if c == old else c for c in json.loads(cols)]
        conn.execute("UPDATE _ifx_indexes SET cols = ? WHERE idxname = ?",
                     (json.dumps(renamed, separators=(",", ":")), idxname))
    columns = [replace(c, name=new) if c.name == old else c for c in tdef.columns]
    if image_maker(columns) is not None:
        for trigger in _image_triggers(table, columns):
            conn.execute(trigger)
    for trigger in blobs.triggers(table, columns):
        conn.execute(trigger)
    for ref in refs:
        references.enforce(conn, ref)
    _rewrite_view_texts(conn, old, new, table)
    return [table]


def _rename_index(db: Database, conn: sqlite3.Connection, old: str, new: str) -> list[str]:
    idx = db.indexes.get(old)
    if idx is None:
        raise SqlError(-319, 0, old, f"index {old} does not exist")
    if new in db.indexes:
        raise SqlError(-316, 0, new, f"index {new} already exists in database")
    if idx.constraint:
        # IBM JDBC 15.0.1.0 message catalog: -948 "Cannot rename constraint index".
        raise SqlError(-948, 0, old, "cannot rename a constraint's index")
    conn.execute(f"DROP INDEX {sql_ident(old)}")
    sqlite_index(conn, new, new, idx.table, idx.columns, idx.unique)
    conn.execute("UPDATE _ifx_indexes SET idxname = ? WHERE idxname = ?", (new, old))
    return []


def _rename_sequence(db: Database, conn: sqlite3.Connection, old: str, new: str) -> list[str]:
    if old not in db.sequences.states:
        raise SqlError(-8300, 0, old, f"sequence {old} is not in the database")
    _taken(db, new)
    db.sequences.save(conn)
    conn.execute("UPDATE _ifx_tables SET tabname = ? WHERE tabname = ? AND tabtype = 'Q'",
                 (new, old))
    return [old, new]


def _rewrite_view_texts(conn: sqlite3.Connection, old: str, new: str, table: str) -> None:
    """sysviews text of the views on ``table`` with the name ``old`` as
    ``new``: "the database server updates the text of the view in the
    sysviews system catalog table to reflect the new table name" (Guide to
    SQL: Syntax, "Renaming Tables That Views Reference"); the same for a
    renamed column.  (SQLite's own views were already rewritten by its
    RENAME.)  A column of another table with the old column's name in the
    same view is renamed in the text too: the text is matched by words."""
    for (tabid,) in conn.execute("SELECT DISTINCT tabid FROM sysviews").fetchall():
        text = "".join(t for (t,) in conn.execute(
            "SELECT viewtext FROM sysviews WHERE tabid = ? ORDER BY seqno", (tabid,)))
        words = [t for t in tokenize(text) if t.kind == "word"]
        if not any(ident(t) == table for t in words):
            continue
        for t in reversed([t for t in words if ident(t) == old]):
            text = text[:t.pos] + new + text[t.pos + len(t.raw):]
        conn.execute("DELETE FROM sysviews WHERE tabid = ?", (tabid,))
        conn.executemany("INSERT INTO sysviews (tabid, seqno, viewtext) VALUES (?, ?, ?)",
                         [(tabid, n, text[k:k + VIEWTEXT_PIECE])
                          for n, k in enumerate(range(0, len(text), VIEWTEXT_PIECE))])
