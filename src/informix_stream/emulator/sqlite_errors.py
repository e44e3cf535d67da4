"""SQLite failures -> the sqlcode, ISAM code and text Informix gives."""

from __future__ import annotations

import re
import sqlite3
from typing import Callable

from . import composite, intervals
from .catalog import OWNER, Database
from .statements import SqlError, StatementKind
from .sqlfunctions import take_raised
from .values import image_failure


# ---------------------------------------------------------------------------
# SQLite error mapping
# ---------------------------------------------------------------------------

_TEMP_STORAGE = re.compile(r"_ifx_tmp\d+_")
LOCK_CODES = {StatementKind.INSERT: -271, StatementKind.UPDATE: -346,
               StatementKind.DELETE: -240, StatementKind.SELECT: -244,
               StatementKind.DDL: -242}


def map_error(exc: sqlite3.Error, kind: StatementKind,
               db: "Database | None" = None) -> SqlError:
    """Informix's sqlcode/ISAM/near for a SQLite failure."""
    msg = str(exc)
    if "user-defined" in msg:
        # An ifx_* function raised the server's error (division by zero, a
        # conversion failure...): that, not SQLite's wrapper, is the answer.
        raised = take_raised()
        if raised is not None:
            return raised
    failed = getattr(db.failures, "error", None) if db is not None else None
    if failed is not None and "user-defined function raised exception" in msg:
        db.failures.error = None             # a row image the codec refused
        return image_failure(failed)
    name = getattr(exc, "sqlite_errorname", "")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in msg:
        return SqlError(LOCK_CODES.get(kind, -244), -107, "", "record is locked")
    if msg == "interrupted":
        # A cancel (or the server stopping) ended the statement.
        return SqlError(-213, 0, "", "statement interrupted by user")
    m = re.search(r"ifx_fk (-\d+) (.+)$", msg)      # the name may hold blanks
    if m:                                   # a referential constraint (references.py)
        return SqlError(int(m[1]), 0, m[2], msg)
    composite_use = _composite_use(msg, db)
    if composite_use is not None:
        return composite_use
    patterns: list[tuple[str, Callable[[re.Match[str]], SqlError]]] = [
        (r"no such table: (?:\w+\.)?(\w+)", lambda m: SqlError(-206, -111, m[1])),
        (r"no such column: (?:\w+\.)?(\w+)", lambda m: SqlError(-217, 0, m[1])),
        (r"ambiguous column name: (?:\w+\.)?(\w+)", lambda m: SqlError(-324, 0, m[1])),
        (r"UNIQUE constraint failed: (.*)", lambda m: _unique_error(m[1], db)),
        (r"NOT NULL constraint failed: (\S+)", lambda m: SqlError(-391, 0, m[1])),
        (r"CHECK constraint failed: " + intervals.RANGE_CHECK + "(.*)",
         lambda m: SqlError(intervals.VALUE_OVERFLOW, 0, "",
                            f"a value overflows the leading field of {m[1].strip()}")),
        (r"CHECK constraint failed: (.*)", lambda m: SqlError(-530, 0, m[1].strip())),
        (r"table (\S+) already exists", lambda m: SqlError(-310, 0, m[1])),
        (r"index (\S+) already exists", lambda m: SqlError(-316, 0, m[1])),
        (r"no such function: (\w+)", lambda m: SqlError(-674, 0, m[1])),
        (r"Incorrect number of bindings", lambda m: SqlError(-254)),
    ]
    # A TEMP table's storage name is the emulator's business: say its own name.
    msg = _TEMP_STORAGE.sub("", msg)
    for pattern, build in patterns:
        m = re.search(pattern, msg)
        if m:
            err = build(m)
            err.args = (f"{msg}",)
            err.message = msg
            return err
    return SqlError(-201, 0, "", msg)


def _composite_use(msg: str, db: "Database | None") -> SqlError | None:
    """A name SQLite could not resolve that names a ROW/collection column
    (field access, IN over a collection), or a ROW(...) constructor in an
    expression: not supported by the emulator, never -217/-206/-674."""
    m = re.search(r"no such (?:column|table): ([\w.]+)", msg)
    if m and db is not None:
        return composite.misread_reference(m[1], composite.column_names(db.tables.values()))
    if re.search(r"no such function: ROW\b", msg, re.IGNORECASE):
        return composite.refuse_expression("a ROW(...) constructor in an expression")
    return None


def _unique_error(columns: str, db: "Database | None") -> SqlError:
    """-268 when a constraint's index fired, -239 for a plain unique index."""
    pairs = [c.strip().split(".", 1) for c in columns.split(",")]
    table = pairs[0][0] if pairs and len(pairs[0]) == 2 else ""
    cols = [p[-1] for p in pairs]
    if db is not None:
        for idx in db.indexes.values():
            if idx.table == table and idx.columns == cols and idx.unique:
                if idx.constraint:
                    return SqlError(-268, -100, f"{OWNER}.{idx.name}")
                return SqlError(-239, -100, idx.name)
    return SqlError(-239, -100, "")


def with_offset(err: SqlError, sql: str, exc: sqlite3.Error) -> SqlError:
    """A -201 SQLite found while checking a translation gets the place in
    the client's text (SQ_ERR's offset: dialect._Translator.syntax_error):
    the end of the text when it was incomplete, else the end of the token
    SQLite stopped at when the client's text has that token exactly once
    (the translation may have moved or added tokens: otherwise 0, unknown)."""
    if err.sqlcode != -201 or err.offset:
        return err
    msg = str(exc)
    end = len(sql.rstrip().rstrip(";").rstrip())
    if "incomplete input" in msg:
        err.offset = end
        return err
    m = re.search(r'near "([^"]+)": syntax error', msg)
    if m:
        found = [x.end() for x in re.finditer(r"(?<!\w)" + re.escape(m[1]) + r"(?!\w)", sql,
                                              re.IGNORECASE)]
        if len(found) == 1:
            err.offset = found[0]
    return err
