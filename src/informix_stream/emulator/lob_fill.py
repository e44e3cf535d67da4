"""Large LOB parameters stored a chunk at a time, never held whole.

A BYTE/TEXT/BLOB/CLOB value whose request was spooled to disk
(emulator.spool) used to be read into one ``bytes`` and bound to the
INSERT/UPDATE; SQLite then copied it again and again (the bound value, the
row's record, the trigger's copy into ``_ifx_blobs`` and that row's record):
some 8x the value in RSS for one 200 MB write.  Here instead:

1. the statement runs with a small marker in place of the value (16 random
   bytes after a fixed prefix, so unique per value), and blobs.py's triggers
   store that marker as a new ``_ifx_blobs`` row for each row written and
   point the row's cell at it (``id << 32 | len(marker)``);
2. each marker row (an id above the largest before the statement, contents
   equal to the marker) is grown to the value's size with ``zeroblob`` --
   which SQLite writes without materializing it -- and filled by SQLite's
   incremental blob I/O (``Connection.blobopen``) a chunk at a time from the
   spool file;
3. the cells that point at it get the value's size.

The three steps are one savepoint: a failure anywhere (the spool file, an
SQLite error, the check below) rolls all of them back, so no marker and no
half-written value is ever seen by anyone, and a later ROLLBACK WORK undoes
the value like any other write.  The check: every marker row is pointed at
by exactly one cell of a table (the triggers make one per row written); if
not, the statement is refused with "not supported by the emulator" rather
than leave a marker where a value belongs.

Only a parameter whose every use in the statement is to be stored in a
BYTE/TEXT/BLOB/CLOB column of an INSERT or UPDATE is handled so; any other
use (a comparison, a cast, an SPL argument) is given the value's bytes as
before.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence

from .blobs import STORED_CODES
from .spool import SpooledValue
from .statements import NOT_SUPPORTED, SqlError, StatementKind, sql_ident

_MARK = b"\0ifx-lob-fill\0"
# What one blob write hands SQLite: bounded memory, few calls.
FILL_CHUNK = 1024 * 1024
_KINDS = (StatementKind.INSERT, StatementKind.UPDATE)


def has_spooled(params: Sequence[object]) -> bool:
    """Does this parameter list carry a value spooled to disk?"""
    return any(isinstance(p, SpooledValue) for p in params)


def execute(db, stmt, params: list):
    """Run ``stmt`` (a Prepared) with ``params``, some of them spooled
    values; the ExecResult.  See the module docstring."""
    deferrable = _stored_params(stmt)
    marks: dict[bytes, SpooledValue] = {}
    values: list[object] = []
    for i, p in enumerate(params):
        if isinstance(p, SpooledValue):
            if i in deferrable:
                mark = _MARK + os.urandom(16)
                marks[mark] = p
                p = mark
            else:
                p = p.read()
        values.append(p)
    if not marks:
        return db.execute(stmt, values)
    conn: sqlite3.Connection = db._conn  # noqa: SLF001 - the session's SQLite connection
    before = conn.execute("SELECT coalesce(max(id), 0) FROM _ifx_blobs").fetchone()[0]
    with db._atomic(stmt.kind):  # noqa: SLF001 - one unit with the statement
        result = db.execute(stmt, values)
        _fill(db, conn, before, marks)
    return result


def _stored_params(stmt) -> set[int]:
    """Client parameter indexes used only as values stored in a LOB column."""
    if getattr(stmt, "kind", None) not in _KINDS or stmt.translation is None:
        return set()
    stored: set[int] = set()
    other: set[int] = set()
    for b in stmt.translation.binds:
        if b.index is None:
            continue
        if b.type is not None and b.type.code in STORED_CODES and not b.compared:
            stored.add(b.index)
        else:
            other.add(b.index)
    return stored - other


def _fill(db, conn: sqlite3.Connection, before: int, marks: dict[bytes, SpooledValue]) -> None:
    """Steps 2 and 3 of the module docstring, for every marker row."""
    cells = _lob_cells(db)
    for mark, value in marks.items():
        rows = conn.execute("SELECT id FROM _ifx_blobs WHERE id > ? AND length(data) = ?"
                            " AND data = ?", (before, len(mark), mark)).fetchall()
        for (blob_id,) in rows:
            _write(conn, blob_id, value)
            old, new = blob_id << 32 | len(mark), blob_id << 32 | value.size
            pointed = sum(conn.execute(f"UPDATE {table} SET {col} = ? WHERE {col} = ?",
                                       (new, old)).rowcount for table, col in cells)
            if pointed != 1:
                raise SqlError(NOT_SUPPORTED, 0, "", "this use of a large BYTE/TEXT/BLOB/CLOB"
                                                     " parameter is not supported by the emulator")


def _lob_cells(db) -> list[tuple[str, str]]:
    """(table, column) in SQLite text for every LOB column of the database
    and of the session's temp tables."""
    tables = [*db._db.tables.values(), *db._temps.tables.values()]  # noqa: SLF001
    return [(t.sql_name, sql_ident(c.name)) for t in tables if not t.view
            for c in t.columns if c.type.code in STORED_CODES]


def _write(conn: sqlite3.Connection, blob_id: int, value: SpooledValue) -> None:
    """The contents of row ``blob_id`` become ``value``, a chunk at a time."""
    conn.execute("UPDATE _ifx_blobs SET data = zeroblob(?) WHERE id = ?", (value.size, blob_id))
    if not value.size:
        return
    with conn.blobopen("_ifx_blobs", "data", blob_id) as blob:
        for piece in value.chunks(FILL_CHUNK):
            blob.write(piece)


def materialized(params: list) -> list:
    """``params`` with every spooled value read whole (the uses, such as a
    cursor's parameters, that need the bytes themselves)."""
    if not has_spooled(params):
        return params
    return [p.read() if isinstance(p, SpooledValue) else p for p in params]
