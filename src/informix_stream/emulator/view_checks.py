"""Running an INSERT/UPDATE through WITH CHECK OPTION views (view_writes.py):
the statement reports the base rowids it wrote (RETURNING), each check query
must show every one of them, else -385 and the caller's savepoint undoes the
statement (IBM Informix Guide to SQL: Tutorial, "Use the WITH CHECK OPTION
keywords": the server tests every inserted or updated row against the
view's WHERE clause and rejects the operation)."""

from __future__ import annotations

import json
import sqlite3
from typing import Callable, Sequence

from informix_stream.codecs import ColumnType

from .statements import SqlError, Translation
from .view_writes import ROWID

# (SQLite text of a check query, its bound constants, the view written)
Check = tuple[str, list[object], str]


def run_checked(conn: sqlite3.Connection, sql: str, values: Sequence[object],
                checks: Sequence[Check]) -> int:
    """Execute ``sql`` and hold its rows to ``checks``; the rowcount."""
    rowids = sorted({r for (r,) in conn.execute(sql + " RETURNING rowid", values)})
    if not rowids:
        return 0
    wanted = json.dumps(rowids)
    for check_sql, check_values, view in checks:
        (shown,) = conn.execute(
            f"SELECT count(*) FROM ({check_sql}) AS _ifx_c WHERE _ifx_c.{ROWID} IN"
            " (SELECT value FROM json_each(?))", [*check_values, wanted]).fetchone()
        if shown != len(rowids):
            raise SqlError(-385, 0, view, f"data value out of range: a row written through "
                                          f"{view} is outside a view WITH CHECK OPTION")
    return len(rowids)


def prepared_checks(t: Translation, validate: Callable[[Translation], None],
                    writer: Callable[[ColumnType], Callable[[object], object]]) -> list[Check]:
    """At PREPARE: the probe of a write through a view prepared (a name the
    view lacks fails here), and its check queries with their constants in
    stored form."""
    if t.view_probe is not None:
        validate(t.view_probe)
    return [(c.sql, [writer(b.type)(b.const) if b.type else b.const for b in c.binds],
             c.table or "") for c in t.view_checks]
