"""What the engine hands the SQLI session: a prepared statement, the result
of executing one, and a lazily stepped row source for a cursor."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Callable

from informix_stream.codecs import ColumnType

from .sqlite_errors import map_error
from .statements import ResultColumn, SqlError, StatementKind, Translation
from .values import Converter


@dataclass
class ExecResult:
    rowcount: int
    serial: int = 0
    serial8: int = 0


@dataclass
class Prepared:
    sql: str
    kind: StatementKind
    columns: list[ResultColumn]
    param_count: int
    param_types: list[ColumnType | None]
    table: str | None
    translation: Translation = field(repr=False, default=None)  # type: ignore[assignment]
    # (client index or None, converted constant, converter) per SQLite '?'
    binds: list[tuple[int | None, object, Converter]] = field(repr=False, default_factory=list)
    direct: bool = field(repr=False, default=False)   # binds are params in order
    convert: Callable[[list], list] | None = field(repr=False, default=None)
    # INSERT: converted bind values -> the row image bound after them
    image: Callable[[list], bytes | None] | None = field(repr=False, default=None)
    # table name -> its version when prepared (see Database.table_versions)
    depends: dict[str, int] = field(repr=False, default_factory=dict)
    # WITH CHECK OPTION queries (view_checks.Check) and the view written
    checks: list[tuple[str, list[object], str]] = field(repr=False, default_factory=list)


def rowcount(cur: sqlite3.Cursor) -> int:
    """Rows a DML statement changed.  Python's sqlite3 reports -1 for one
    that starts with WITH (it looks at the first word); SQLite's changes()
    has the count."""
    if cur.rowcount >= 0:
        return cur.rowcount
    return cur.connection.execute("SELECT changes()").fetchone()[0]


class RowSource:
    """A lazily stepped SQLite cursor; rows are converted one batch at a time.

    When ``encoded`` is True, fetch returns each row as its complete SQ_TUPLE
    message (bytes) instead of a tuple of values.
    """

    def __init__(self, cursor: sqlite3.Cursor, columns: list[ResultColumn],
                 convert: Callable[[list], list] | None, kind: StatementKind,
                 encoded: bool = False, on_close: Callable[[], None] | None = None) -> None:
        self.columns = columns
        self.encoded = encoded
        self._cursor: sqlite3.Cursor | None = cursor
        self._convert = convert
        self._kind = kind
        self._on_close = on_close
        self._rest: list | None = None        # rows read ahead by keep_rest()
        self._error: SqlError | None = None   # what keep_rest() ran into

    def fetch(self, n: int) -> list[tuple]:
        cur = self._cursor
        if cur is None:
            return self._fetch_kept(n)
        try:
            rows = cur.fetchmany(n)
        except sqlite3.Error as exc:
            self.close()
            raise map_error(exc, self._kind) from None
        if not rows:
            self.close()
            return rows
        return self._convert(rows) if self._convert is not None else rows

    def close(self) -> None:
        self._rest = self._error = None
        self._release()

    def _release(self) -> None:
        if self._cursor is not None:
            self._cursor.close()
            self._cursor = None
            if self._on_close is not None:
                self._on_close()

    def keep_rest(self) -> None:
        """Read the remaining rows now and let go of the SQLite statement.

        For a hold cursor reading on the session's main connection when its
        transaction ends: a statement left pending there would pin its WAL
        snapshot, and every later write of the session would then fail with
        SQLITE_BUSY_SNAPSHOT once another session commits.  A failure is
        kept and raised by the next fetch, as the server would answer it.
        """
        cur = self._cursor
        if cur is None:
            return
        try:
            self._rest = cur.fetchall()
        except sqlite3.Error as exc:
            self._rest, self._error = [], map_error(exc, self._kind)
        self._release()

    def _fetch_kept(self, n: int) -> list[tuple]:
        if self._error is not None:
            err, self._error = self._error, None
            raise err
        rows = self._rest
        if not rows:
            self._rest = None
            return []
        batch, self._rest = rows[:n], rows[n:]
        return self._convert(batch) if self._convert is not None else batch


