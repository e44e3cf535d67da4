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
to find how many rows precede the failing one.
"""

from __future__ import annotations

from ..codec.rowdecode import make_row_decoder
from ..errors import Error
from ..messages import Put
from .logmode import Logging
from .statements import ResultColumn, SqlError, StatementKind
from .tokens import tokenize


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

    def __init__(self, columns: list[ResultColumn], encoding: str) -> None:
        self.decode = make_row_decoder([c.type for c in columns], encoding)
        self.width = len(columns)

    def close(self) -> None:
        """Nothing is buffered server-side, so there is nothing to flush."""


def put_columns(db, prepared) -> list[ResultColumn] | None:
    """The columns an ``INSERT INTO t [(cols)] VALUES (?, ...)`` inserts, when
    every value is a bare marker; None for every other statement."""
    if getattr(prepared, "kind", None) is not StatementKind.INSERT or not prepared.param_count:
        return None
    toks = tokenize(prepared.sql)
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
        names = [t.raw.lower() for t in head[opened + 1:-1] if t.text != ","]
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
    st.cursor = InsertCursor(st.columns, session.encoding)


def put(session, msg: Put, w) -> None:
    """SQ_PUT: insert the block's rows; SQ_DONE with their count, or
    SQ_PUTERR (raised as PutFailed) with the count before the failing row."""
    st = session._need_current()
    cursor = st.cursor
    if not isinstance(cursor, InsertCursor):
        # IBM Informix Error Messages: -404 "The cursor or statement is not
        # available."
        raise SqlError(-404, message="the insert cursor is not open")
    rows = [_decode(cursor, image) for image in msg.rows]
    db = session._need_db()
    # An ALTER/RENAME since OPEN: the prepared INSERT (and the row images it
    # computes) has the old shape, so -710 as for any stale statement.
    db.check_current(st.prepared)
    try:
        db.execute_many(st.prepared, rows)
    except SqlError:
        # The block was undone as a whole: insert row by row up to the
        # failure (a transient failure -- lock, interrupt -- may not recur:
        # then every row went in this time).
        for done, row in enumerate(rows):
            try:
                db.execute(st.prepared, row)
            except SqlError as err:
                raise PutFailed(done, err) from None
    session.put_done(w, len(rows))


def _decode(cursor: InsertCursor, image: bytes) -> list:
    try:
        row, end = cursor.decode(image, 0, len(image))
    except Error:
        row, end = None, -1
    if end != len(image):
        # IBM Informix Error Messages: -1260 "It is not possible to convert
        # between the specified types."
        raise SqlError(-1260, message="an SQ_PUT row does not match the insert's columns")
    return list(row)
