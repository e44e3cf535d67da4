"""Insert cursors: OPEN of a prepared INSERT, SQ_PUT blocks of rows, CLOSE.

What a real server does, and where it was learned (docs/protocol.md,
"Insert cursors", has the byte layouts):

* DESCRIBE of ``INSERT ... VALUES (?, ...)`` reports the inserted columns
  (ESQL/C "Initialize the sqlda structure": DESCRIBE of an INSERT describes
  its column list; informix-driver's cursors.py: "That INSERT reports 6 with
  one field").  IBM's JDBC driver uses PUT only when every value is a marker
  and that column count equals the marker count (IfxPreparedStatement
  setupExecutePrepare), and builds each row image from those columns.
* A client's SQ_PUT is a flushed insert buffer: the server inserts its rows
  in order; when one fails, the rows before it stay inserted, the rest of the
  block is discarded, and the reply says how many went in (SQ_PUTERR's count,
  ESQL/C's sqlerrd[2]; IBM "Error Checking FLUSH Statements").  A block that
  went in whole answers SQ_DONE with its row count (JDBC executeBatch sums the
  SQ_DONE counts into the batch's row count).
* In a logged database that is not ANSI, OPEN, PUT and CLOSE must run in a
  transaction (IBM "Inserting Rows with a Cursor"); -255 otherwise.  COMMIT
  and ROLLBACK close the cursor (cursors.close_unheld); CLOSE of a closed
  cursor is no error outside ANSI databases (CLOSE statement).

Rows go to the engine as one SQLite batch per block (Session.execute_many,
undone as a whole on failure); only a failing block is replayed row by row
to find how many rows precede the failing one.  A row whose cells are
canonical goes from its bytes to its stored values and image without Python
values (put_rows.py); any other row takes the reference path (row decoder,
column writers, image encoder), which alone decides conversions and errors.
"""

from __future__ import annotations

import functools

from ..codec.rowdecode import make_row_decoder
from ..errors import Error
from ..messages import Put
from . import long_tx, put_rows
from .gls import ILLEGAL_CHARACTER
from .logmode import Logging
from .statements import ResultColumn, SqlError, StatementKind
from .tokens import ident, tokenize


class PutFailed(SqlError):
    """A row of an SQ_PUT block failed: ``inserted`` rows before it went in."""

    def __init__(self, inserted: int, cause: SqlError) -> None:
        super().__init__(cause.sqlcode, cause.isam, cause.near, cause.message)
        self.inserted = inserted


class InsertCursor:
    """An open insert cursor: how to read its rows, nothing buffered (each
    SQ_PUT is inserted when it arrives, as the client flushed it)."""

    hold = False
    rows = ()       # not a fetch cursor: NFETCH on it is -400

    def __init__(self, columns: list[ResultColumn], encoding: str,
                 fast: put_rows.RowConverter | None = None) -> None:
        self.decode = make_row_decoder([c.type for c in columns], encoding)
        self.width = len(columns)
        self.fast = fast

    def close(self) -> None:
        """Nothing is buffered server-side, so there is nothing to flush."""


def put_columns(db, prepared) -> list[ResultColumn] | None:
    """The columns an ``INSERT INTO t [(cols)] VALUES (?, ...)`` inserts, when
    every value is a bare marker; None for every other statement."""
    if getattr(prepared, "kind", None) is not StatementKind.INSERT or not prepared.param_count:
        return None
    toks = tokenize(prepared.sql, getattr(db, "delimident", False))
    words = [t.text if t.kind == "word" else t.kind if t.kind == "param" else t.text
             for t in toks]
    if len(words) < 6 or words[0] != "INSERT" or words[1] != "INTO" or "VALUES" not in words:
        return None
    at = words.index("VALUES")
    values = words[at + 1:]
    markers = prepared.param_count
    expected = ["("] + ["param", ","] * (markers - 1) + ["param", ")"]
    if values not in (expected, expected + [";"]):
        return None
    tdef = db.table_def(prepared.table) if prepared.table else None
    if tdef is None:
        return None
    head = toks[2:at]
    if any(t.text == "(" for t in head):
        opened = next(i for i, t in enumerate(head) if t.text == "(")
        names = [ident(t) for t in head[opened + 1:-1] if t.text != ","]
    else:
        names = [c.name for c in tdef.columns]
    if len(names) != markers:
        return None
    columns = []
    for name in names:
        col = tdef.column(name)
        if col is None:
            return None
        columns.append(ResultColumn(name, col.type))
    return columns


def open_insert(session, st) -> None:
    """OPEN of an insert cursor (the statement's describe columns)."""
    db = session._need_db()
    if not st.columns:
        raise SqlError(-481, message="invalid statement to open as a cursor")
    if db.database.logging in (Logging.UNBUFFERED, Logging.BUFFERED) and not db.in_transaction:
        raise SqlError(-255, message="not in transaction")
    db.check_current(st.prepared)
    if st.cursor is not None:
        st.cursor.close()
    st.cursor = InsertCursor(st.columns, session.encoding,
                             _fast_converter(db, st.prepared, st.columns, session.encoding))


def _fast_converter(db, prepared, columns: list[ResultColumn], encoding: str
                    ) -> put_rows.RowConverter | None:
    """put_rows' converter when a PUT row is exactly a stored row image
    (``fast_types``); None otherwise (every row then takes the reference path)."""
    types = fast_types(db, prepared, columns, encoding)
    return _converter(types, encoding) if types is not None else None


def fast_types(db, prepared, columns: list[ResultColumn], encoding: str) -> tuple | None:
    """The table's column types when a row of the statement's values is
    exactly a stored row: the statement binds every column of the table in
    the table's order, the table keeps images made by its image maker, in
    the code set the rows arrive in.  None otherwise.  (bind_rows.py asks
    the same of a BIND+EXECUTE run.)"""
    tdef = db.table_def(prepared.table) if prepared.table else None
    database = db.database
    if (tdef is None or not prepared.direct or prepared.image is None
            or prepared.translation.image_binds != list(range(len(tdef.columns)))
            or prepared.image is not database.images.get(prepared.table)
            or [c.name for c in columns] != [c.name for c in tdef.columns]
            or encoding != database.codec):
        return None
    types = tuple(c.type for c in tdef.columns)
    # The types the statement was translated for, which its SQL and image
    # maker use: a table the name means now (a TEMP table made since the
    # PREPARE shadows it) with other types is the reference path's to refuse.
    if types != tuple(b.type for b in prepared.translation.binds):
        return None
    return types


@functools.lru_cache(maxsize=64)
def _converter(types: tuple, codec: str) -> put_rows.RowConverter | None:
    return put_rows.row_converter(types, codec)


def put_run(session, puts: list[Put], w) -> None:
    """Consecutive SQ_PUT messages of one request: one SQLite batch when
    every block converts and the batch goes in whole (each block still gets
    its own SQ_DONE); otherwise, the batch undone, block by block exactly as
    if each came alone (the first failing one ends the request)."""
    if len(puts) > 1:
        st, cursor, db = _open_cursor(session)
        counts: list[int] = []

        def rows():
            # converted block by block as SQLite takes them (the rows of a
            # block stay in the CPU's caches); any refusal undoes the batch
            for msg in puts:
                block, failed = _stored_rows(db, st.prepared, cursor, msg.rows)
                if failed is not None:
                    raise _Fallback
                counts.append(len(block))
                yield from block
        try:
            db.execute_many(st.prepared, rows(), stored=True)
        except (SqlError, _Fallback):
            pass
        else:
            for count in counts:
                session.put_done(w, count)
            return
    for msg in puts:
        put(session, msg, w)


class _Fallback(Exception):
    """A block of a run does not go in whole: the run goes block by block."""


def _open_cursor(session) -> tuple:
    """(statement, its open insert cursor, database session)."""
    st = session._need_current()
    cursor = st.cursor
    if not isinstance(cursor, InsertCursor):
        # IBM Informix Error Messages: -404 "The cursor or statement is not
        # available."
        raise SqlError(-404, message="the insert cursor is not open")
    db = session._need_db()
    # An ALTER/RENAME since OPEN: the prepared INSERT (and the row images it
    # computes) has the old shape, so -710 as for any stale statement.
    db.check_current(st.prepared)
    return st, cursor, db


def put(session, msg: Put, w) -> None:
    """SQ_PUT: insert the block's rows; SQ_DONE with their count, or
    SQ_PUTERR (raised as PutFailed) with the count before the failing row."""
    st, cursor, db = _open_cursor(session)
    rows, failed = _stored_rows(db, st.prepared, cursor, msg.rows)
    try:
        db.execute_many(st.prepared, rows, stored=True)
    except SqlError:
        # The block was undone as a whole: insert row by row up to the
        # failure (a transient failure -- lock, interrupt -- may not recur:
        # then every row went in this time).
        for done, row in enumerate(rows):
            try:
                db.execute_many(st.prepared, [row], stored=True)
            except long_tx.BatchCrosses:
                # this row passes the long-transaction limit: all is undone
                raise PutFailed(done, long_tx.abort(db)) from None
            except SqlError as err:
                raise PutFailed(done, err) from None
    if failed is not None:
        raise PutFailed(len(rows), failed)
    session.put_done(w, len(rows))


def _stored_rows(db, prepared, cursor: InsertCursor, images: list
                 ) -> tuple[list[list], SqlError | None]:
    """The block's rows as stored values, up to the first row whose value
    a column refuses (that row's error is returned with them).  Every image
    is decoded first, so one that does not match the columns fails the whole
    block (-1260) before anything is inserted."""
    fast = cursor.fast
    rows: list = [fast(image) for image in images] if fast is not None else [None] * len(images)
    slow = {k: _decode(cursor, images[k]) for k, row in enumerate(rows) if row is None}
    for k, values in slow.items():
        try:
            rows[k] = db.stored_values(prepared, values)
        except SqlError as err:
            return rows[:k], err
    return rows, None


def _decode(cursor: InsertCursor, image: bytes) -> list:
    try:
        row, end = cursor.decode(image, 0, len(image))
    except Error as exc:
        if isinstance(exc.__cause__, UnicodeDecodeError):
            # text that is no text in the code set (gls.ILLEGAL_CHARACTER)
            raise SqlError(ILLEGAL_CHARACTER, message="an SQ_PUT row holds bytes that are "
                                                      "not characters of the code set") from None
        row, end = None, -1
    if end != len(image):
        # IBM Informix Error Messages: -1260 "It is not possible to convert
        # between the specified types."
        raise SqlError(-1260, message="an SQ_PUT row does not match the insert's columns")
    return list(row)
