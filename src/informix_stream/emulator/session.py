"""One client's SQLI session as a sans-I/O state machine.

``Session.handle(messages)`` takes the parsed messages of one request (all
messages up to an SQ_EOT) and returns the complete reply, EOT included.  The
socket layer in ``server.py`` only moves bytes, so this class can be driven
directly by unit tests and by anything else that has bytes.
The message handlers share the statement table and the request loop; the
large ones live in their own modules (insert runs: insert_runs.py).

Informix semantics kept here, because both outside clients depend on them:

* a request is a script: PREPARE/COMMAND allocate a statement and make it
  current, SQ_ID switches the current statement, later messages act on it;
* the first error ends the request: the remaining messages are skipped (they
  were already parsed, so the wire stays aligned) and the reply is SQ_ERR
  followed by SQ_EOT;
* statement ids are the lowest free small integers, as a real server hands
  them out, so a client that always says "statement 0" works when it runs one
  statement at a time;
* an NFETCH reply holds as many whole tuples as fit in the client's tuple
  buffer (at least one) and the cursor keeps its place between fetches; the
  engine streams rows, so a forward cursor never holds its result set.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import logging

from .. import codecs
from ..framing import Writer
from ..locales import Locale
from ..messages import (Bind, Command, CurName, DbOpen, DescribeColumn, Info,
                        NFetch, Protocols, Put, RetType, Rollback, SFetch, StmtId,
                        StmtType, Tag, write_cost, write_describe, write_done,
                        write_error, write_input_describe, write_insertdone,
                        write_protocols, write_puterr)
from . import bind_rows, blobs, composite_wire, insert_cursor, insert_runs, lob_fill, slobs
from .cursors import ServerCursor, close_unheld
from .dbdate import DEFAULT_STYLE, DateStyle, in_effect
from .dbstatements import DatabaseStatement, DatabaseStatements, parse_database_statement
from .engine import Engine
from .gls import decode_sql, refuse_invalid, wire_codec
from .warnflags import prepare_flags
from .statements import NOT_SUPPORTED, CreateTable, SqlError, StatementKind

# The feature mask a real server answers to SQ_PROTOCOLS (12.10's last byte).
# Its bits fix framing for JDBC: 2-byte tuple size in DESCRIBE (bit 69 clear),
# 4-byte counts in SQ_DONE (bit 70 clear), 4-byte SQL lengths and SQ_ERR
# offsets (bit 62), BIGINT support (bit 54); PAM (bit 44) stays clear.
SERVER_PROTOCOLS = bytes.fromhex("bdbe9ffe7fb7ffeff0")

# Parameter type reported when the engine cannot infer one (e.g. "? + 1").
_UNKNOWN_PARAM = codecs.parse_type("VARCHAR(255)")

log = logging.getLogger("informix_stream.emulator")

# Reported when the emulator itself fails on a request: the request ends
# with an error and the session stays usable, as with any SQL error.
INTERNAL_ERROR = -999

# Informix reserves statement ids per session; more than this is a client bug.
MAX_STATEMENTS = 4096

_STMT_TYPES = {
    StatementKind.SELECT: StmtType.SELECT,
    StatementKind.INSERT: StmtType.INSERT,
    StatementKind.UPDATE: StmtType.UPDATE,
    StatementKind.DELETE: StmtType.DELETE,
    StatementKind.DDL: StmtType.CREATE_TABLE,
    StatementKind.BEGIN: StmtType.BEGIN_WORK,
    StatementKind.COMMIT: StmtType.COMMIT,
    StatementKind.ROLLBACK: StmtType.ROLLBACK,
    StatementKind.DATABASE: StmtType.DATABASE,
    StatementKind.OTHER: StmtType.SET_ISOLATION,
    StatementKind.EXECUTE: StmtType.EXECUTE_PROCEDURE,
    StatementKind.MERGE: StmtType.UPDATE,       # the server's own code: see merge.py
}


# What SQ_OPEN opens: a SELECT, or a routine's rows (EXECUTE FUNCTION).
_CURSOR_KINDS = frozenset({StatementKind.SELECT, StatementKind.EXECUTE})


class _Stop(Exception):
    """Ends the processing of a request after an error was written."""


@dataclass
class _Statement:
    """A prepared statement and, once opened, its cursor."""

    id: int
    prepared: object
    columns: list
    immediate: bool = False          # SQ_COMMAND: released even on error
    params: list = field(default_factory=list)
    cursor_name: bytes = b""
    scroll: bool = False             # SQ_SCROLL before the next OPEN
    hold: bool = False               # SQ_HOLD before the next OPEN
    cursor: ServerCursor | None = None
    binary: frozenset = frozenset()  # composite columns asked in binary form (SQ_RET_TYPE)
    fast_key: tuple | None = None    # (database session, code set) fast_bind is for
    fast_bind: object = None         # bind_rows' converter of this statement's binds


class Session(DatabaseStatements):
    """State of one logged-in client: open database, statements, cursors."""

    def __init__(self, engine: Engine, *, version: str, db_locale: Locale | None = None,
                 delimident: bool = False, date_style: DateStyle = DEFAULT_STYLE) -> None:
        self.engine = engine
        # The login's DBDATE/GL_DATE: how DATE text is read and written in
        # this session's requests (dbdate.py).
        self.date_style = date_style
        # The login's DELIMIDENT: "name" is then an identifier, handed to
        # every database session this login opens (tokens.tokenize).
        self.delimident = delimident
        self.sent_db_locale = db_locale       # None: the login sent none
        self.version = version
        self._db = None
        self.statements: dict[int, _Statement] = {}
        self.current: _Statement | None = None
        self.finished = False
        # Set by the socket layer: has the client sent its cancel byte (or is
        # the server stopping)?  Handed to every database session opened.
        self.interrupt_requested = None
        # Set by the socket layer: large LOB contents may leave a reply to go
        # out in pieces after it (lob_serve.py, ``defer``, ``take_streams``).
        self.stream_lobs = False
        # Set by the socket layer when a bound text of the requests being
        # answered did not decode (gls.INVALID_TEXT); cleared after them.
        self.invalid_text = False
        self._pending: list = []     # (offset in this request's reply, pieces)
        self._streams: list = []     # (offset in handle_many's reply, pieces)

    @property
    def db(self):
        return self._db

    @db.setter
    def db(self, value) -> None:
        if value is not None:
            value.interrupt_requested = self.interrupt_requested
            value.delimident = self.delimident
            # a long transaction rolled back (long_tx.py) ends as ROLLBACK WORK does
            value.on_tx_abort = self._close_unheld
            value.long_transaction_rows = self.engine.long_transaction_rows
        self._db = value

    def _close_unheld(self) -> None:
        close_unheld(self.statements.values())

    @property
    def encoding(self) -> str:
        """The code set text travels in on this session's wire (gls.py)."""
        return wire_codec(self._db, self.sent_db_locale)


    # -- request processing ------------------------------------------------
    def handle(self, messages: list) -> bytes:
        """Run one request and return its whole reply.

        The first error ends the request: it is written as SQ_ERR and the
        remaining (already parsed) messages are skipped.  An unexpected
        exception is an emulator bug; it is reported the same way so that the
        session, and the client's wire, survive it.
        """
        with in_effect(self.date_style):
            return self._handle(messages)

    def _handle(self, messages: list) -> bytes:
        w = Writer()
        handlers = _HANDLERS
        slobs.before_request(self, messages)     # a kept LO read handle goes first
        try:
            i, n = 0, len(messages)
            while i < n:
                msg = messages[i]
                i += 1
                if type(msg) is Put:
                    # a client's insert buffer flushed as several SQ_PUTs
                    j = i
                    while j < n and type(messages[j]) is Put:
                        j += 1
                    insert_cursor.put_run(self, messages[i - 1:j], w)
                    i = j
                    continue
                handler = handlers.get(msg if type(msg) is Tag else type(msg))
                if handler is None:
                    raise SqlError(-408, message=f"message {msg!r} is not supported")
                handler(self, msg, w)
        except _Stop:
            pass
        except SqlError as err:
            self._fail(w, err)
        except Exception as exc:  # noqa: BLE001 - see the docstring
            log.exception("internal error handling a request")
            self._fail(w, SqlError(INTERNAL_ERROR, message=f"emulator internal error: {exc}"))
        finally:
            if self.db is not None:
                self.db.settle()        # no statement of ours is in flight now
        if not self.finished:
            w.short(Tag.EOT)
        return w.getvalue()

    def handle_many(self, requests: list[list]) -> bytes:
        """Answer several requests that arrived together (a pipelining client).

        Runs of inserts of one prepared statement go to the engine as one
        batch, with the same replies and the same outcome as request by
        request (insert_runs.py); everything else goes through ``handle``.
        """
        out = bytearray()
        with in_effect(self.date_style):
            insert_runs.answer(self, requests, out)
        self.invalid_text = False
        if self.db is not None:
            self.db.settle()
        return bytes(out)

    def _answer(self, out: bytearray, request: list) -> None:
        """Append one request's reply to ``out`` (deferred contents by offset)."""
        base = len(out)
        out += self.handle(request)
        if self._pending:
            self._streams += [(base + at, pieces) for at, pieces in self._pending]
            self._pending = []

    def defer(self, w: Writer, pieces) -> None:
        """``pieces`` (framed contents) follow what ``w`` holds so far: sent
        there by the socket layer if it streams LOBs, else written now."""
        if not self.stream_lobs:
            try:
                for piece in pieces:
                    w.raw(piece)
            finally:
                pieces.close()
            return
        self._pending.append((len(w.parts), pieces))

    def take_streams(self) -> list:
        """The deferred contents of the last ``handle_many`` reply, by offset."""
        streams, self._streams = self._streams, []
        return streams

    def close(self) -> None:
        """The client went away: free cursors and roll back open work."""
        for st in self.statements.values():
            if st.cursor is not None:
                st.cursor.close()
        self.statements.clear()
        slobs.end_session(self)
        if self.db is not None:
            self.db.close()
            self.db = None

    def _fail(self, w: Writer, err: SqlError) -> None:
        near = err.near
        if err.sqlcode == NOT_SUPPORTED and not near:
            # The only text SQ_ERR carries: say what the emulator lacks.
            near = err.message[:200]
        if isinstance(err, insert_cursor.PutFailed):
            write_puterr(w, err.inserted, err.sqlcode, err.isam, near.encode(self.encoding, "replace"))
        else:
            write_error(w, err.sqlcode, err.isam, err.offset,
                        near.encode(self.encoding, "replace"))
        st = self.current
        if st is not None and st.immediate:
            self._release(st)

    # -- statements ----------------------------------------------------------
    def _need_db(self):
        if self.db is None:
            raise SqlError(-349, message="database not selected yet")
        return self.db

    def _need_current(self) -> _Statement:
        if self.current is None:
            raise SqlError(-410, message="prepare statement failed or was not executed")
        return self.current

    def _prepare(self, msg: Command, w: Writer) -> None:
        sql = decode_sql(msg.sql, self.encoding)
        prepared = self._prepare_sql(sql)
        sid = next(i for i in range(MAX_STATEMENTS + 1) if i not in self.statements)
        if sid == MAX_STATEMENTS:
            raise SqlError(-404, message="too many prepared statements")
        columns = list(prepared.columns) if prepared else []
        if not columns and not isinstance(prepared, DatabaseStatement):
            # DESCRIBE of INSERT ... VALUES (?, ...) reports its columns
            columns = insert_cursor.put_columns(self.db, prepared) or []
        st = _Statement(sid, prepared, columns, immediate=msg.tag is Tag.COMMAND)
        self.statements[sid] = st
        self.current = st

    def _prepare_sql(self, sql: str):
        """Database statements work without an open database; all else needs one."""
        stmt = parse_database_statement(sql)
        if stmt is not None:
            return stmt
        return self._need_db().prepare(sql)

    def _describe(self, _msg, w: Writer) -> None:
        st = self._need_current()
        cols, start = [], 0
        for c in st.columns:
            t = c.type
            cols.append(DescribeColumn(c.name.encode(self.encoding, "replace"), t.describe_code,
                                       t.length, start, t.extended_id,
                                       t.extended_name.encode("iso-8859-1")))
            start += t.wire_width
        write_describe(w, self._stmt_type(st), st.id, 0, start, cols)

    @staticmethod
    def _stmt_type(st: _Statement) -> int:
        p = st.prepared
        if isinstance(p, DatabaseStatement):
            return p.stmt_type
        ddl = p.translation.ddl if p.translation is not None else None
        if isinstance(ddl, CreateTable) and ddl.as_select and ddl.temp:
            return StmtType.SELECT_INTO     # SELECT ... INTO TEMP, not CREATE TABLE AS
        return _STMT_TYPES[p.kind]

    def _want_done(self, _msg, w: Writer) -> None:
        st = self.current
        p = st.prepared if st is not None else None
        flags = 0 if p is None or isinstance(p, DatabaseStatement) else prepare_flags(p.kind, p.sql)
        _done(w, 0, warnings=flags)

    @staticmethod
    def put_done(w: Writer, rows: int) -> None:
        """An insert cursor's block went in whole."""
        _done(w, rows)

    def _input_describe(self, _msg, w: Writer) -> None:
        st = self._need_current()
        types = getattr(st.prepared, "param_types", ())
        params = []
        for t in types:
            t = t or _UNKNOWN_PARAM
            params.append((t.describe_code, t.extended_id, t.length,
                           t.extended_name.encode("iso-8859-1")))
        write_input_describe(w, params)

    def _stmt_id(self, msg: StmtId, _w: Writer) -> None:
        st = self.statements.get(msg.id)
        if st is None:
            self.current = None
            raise SqlError(-410, message=f"statement {msg.id} is not prepared")
        self.current = st

    def _curname(self, msg: CurName, _w: Writer) -> None:
        self._need_current().cursor_name = msg.name

    def _bind(self, msg: Bind, _w: Writer) -> None:
        if self.invalid_text:
            refuse_invalid(msg.values)
        self._need_current().params = msg.values

    def _scroll(self, _msg, _w: Writer) -> None:
        blobs.check_scroll(self._need_current().columns)   # -611 before the cursor opens
        self._need_current().scroll = True

    def _hold(self, _msg, _w: Writer) -> None:
        self._need_current().hold = True

    def _open(self, _msg, _w: Writer) -> None:
        st = self._need_current()
        # SCROLL and HOLD describe this OPEN only: both clients send them
        # again with every OPEN (JDBC IfxSqli.sendQuery).
        scroll, hold, st.scroll, st.hold = st.scroll, st.hold, False, False
        if not isinstance(st.prepared, DatabaseStatement) and st.prepared.kind is StatementKind.INSERT:
            insert_cursor.open_insert(self, st)
            return
        if isinstance(st.prepared, DatabaseStatement) or st.prepared.kind not in _CURSOR_KINDS:
            raise SqlError(-481, message="invalid statement to open as a cursor")
        if st.cursor is not None:
            # OPEN of an open cursor closes it and opens it again with the
            # new parameters (IBM Informix Guide to SQL: Syntax, OPEN,
            # "Reopening a cursor"); IBM's JDBC driver relies on it when a
            # prepared query is executed again before its result is closed.
            st.cursor.close()
            st.cursor = None
        if scroll and st.prepared.translation.for_update:
            # IBM Informix Error Messages: -526 "Updates are not allowed on a
            # scroll cursor."
            raise SqlError(-526, message="updates are not allowed on a scroll cursor")
        db = self._need_db()
        db.check_current(st.prepared)
        source = db.open_cursor(st.prepared, lob_fill.materialized(st.params), hold=hold)
        st.cursor = ServerCursor(source, st.columns, scroll, hold, self.encoding)
        st.cursor.release_use = db.hold_tables(st.prepared)
        if st.binary:
            st.cursor.send_binary(st.binary)

    def _nfetch(self, msg: NFetch, w: Writer) -> None:
        st = self._need_current()
        cur = st.cursor
        if cur is None or cur.rows is not None:
            # A real 12.10 server's answer (nukedzn/node-informix,
            # test/lib.cursor.test.js: "[-400] Fetch attempted on unopen cursor.").
            raise SqlError(-400, message="fetch attempted on unopen cursor")
        if cur.fetch(max(msg.bufsize, 1), w.parts):
            _done(w, cur.sent)

    def _sfetch(self, msg: SFetch, w: Writer) -> None:
        st = self._need_current()
        cur = st.cursor
        if cur is None or cur.rows is None:
            raise SqlError(-400, message="scroll fetch attempted on a non-scroll cursor")
        target = _scroll_target(msg, cur.position, len(cur.rows))
        if 1 <= target <= len(cur.rows):
            cur.position = target
            # The tuple first, then its row number: JDBC's receiveTupleId only
            # takes the number as the first row's when tuples already arrived.
            w.raw(cur.rows[target - 1])
            w.short(Tag.TUPID).int(target)
        else:
            cur.position = 0 if target < 1 else len(cur.rows) + 1
            write_done(w, 0)

    def _close_cursor(self, _msg, _w: Writer) -> None:
        st = self._need_current()
        if st.cursor is not None:
            st.cursor.close()
            st.cursor = None
        st.scroll = st.hold = False

    def _release(self, st: _Statement) -> None:
        if st.cursor is not None:
            st.cursor.close()
        self.statements.pop(st.id, None)
        if self.current is st:
            self.current = None

    def _release_msg(self, _msg, _w: Writer) -> None:
        self._release(self._need_current())

    def _execute(self, _msg, w: Writer) -> None:
        st = self._need_current()
        p = st.prepared
        if isinstance(p, DatabaseStatement):
            self._run_database_statement(p, w)
            return
        db = self._need_db()
        if p.kind in (StatementKind.COMMIT, StatementKind.ROLLBACK):
            self._end_work(p.kind is StatementKind.COMMIT)
            _done(w, 0)
            return
        db.check_current(p)
        if p.kind is StatementKind.SELECT:
            db.open_cursor(p, lob_fill.materialized(st.params)).close()
            write_done(w, 0)
            return
        if lob_fill.has_spooled(st.params):
            result = lob_fill.execute(db, p, st.params)
        else:
            result = db.execute(p, st.params)
        if p.kind is StatementKind.INSERT and result.serial8:
            write_insertdone(w, result.serial8, result.serial8)
        _done(w, result.rowcount, result.serial)

    # -- transactions ------------------------------------------------------------
    def _begin(self, _msg, _w: Writer) -> None:
        self._need_db().begin()

    def _commit(self, _msg, _w: Writer) -> None:
        self._end_work(commit=True)

    def _rollback(self, _msg: Rollback, _w: Writer) -> None:
        self._end_work(commit=False)

    def _end_work(self, commit: bool) -> None:
        """COMMIT WORK / ROLLBACK WORK, by message or by statement: the end
        of a transaction closes the cursors not declared WITH HOLD (see
        ``cursors.close_unheld``); without a transaction (-255) none."""
        db = self._need_db()
        if db.in_transaction:
            close_unheld(self.statements.values())
        if commit:
            db.commit()
        else:
            db.rollback()

    # -- session-level messages ------------------------------------------------
    def _protocols(self, _msg: Protocols, w: Writer) -> None:
        write_protocols(w, SERVER_PROTOCOLS)

    def _info(self, _msg: Info, _w: Writer) -> None:
        """Environment settings are accepted; the emulator has no use for them."""

    def _ret_type(self, msg: RetType, _w: Writer) -> None:
        """The client's wanted output types.  Only one choice changes what
        is sent: type 44 (SQLSENDRECV) for a ROW/collection column asks its
        binary form (emulator/composite_wire.py, docs/protocol.md 10.7);
        every other column keeps its described form.  The choice stays with
        the statement: JDBC sends SQ_RET_TYPE once per prepared statement
        (*JDBC ``IfxSqli.sendType``*, ``typeSent``)."""
        st = self.current
        if msg.direction != 1 or st is None:
            return
        types = [c.type for c in st.columns]
        st.binary = frozenset(i for i, (code, _len) in enumerate(msg.types)
                              if i < len(types) and composite_wire.wants_binary(types[i], code))
        if st.cursor is not None:
            st.cursor.send_binary(st.binary)

    def _version(self, _msg, w: Writer) -> None:
        w.short(Tag.VERSION).short_string(self.version.encode())

    def _exit(self, _msg, w: Writer) -> None:
        w.short(Tag.EXIT)
        self.finished = True
        raise _Stop

    def _noop(self, _msg, _w: Writer) -> None:
        """Flags such as SQ_AUTOFREE that change nothing here."""


def _done(w: Writer, rows: int, serial: int = 0, warnings: int = 0) -> None:
    """End of a statement's work: SQ_DONE, then SQ_COST as a real server sends it."""
    write_done(w, rows, serial=serial, warnings=warnings)
    write_cost(w, 0, 0)


def _scroll_target(msg: SFetch, position: int, total: int) -> int:
    """Row number an SQ_SFETCH asks for (1-based; out of range means none)."""
    kind = msg.scrolltype
    if kind == 1:
        return position + 1          # NEXT
    if kind == 2:
        return position - 1          # PRIOR
    if kind == 3:
        return 1                     # FIRST
    if kind == 4:
        return total                 # LAST
    if kind == 5:
        return position              # CURRENT
    if kind == 6:
        return msg.target if msg.target >= 0 else total + msg.target + 1
    if kind == 7:
        return position + msg.target
    raise SqlError(-408, message=f"unknown scroll fetch type {kind}")


_HANDLERS = {
    Command: Session._prepare,
    Tag.NDESCRIBE: Session._describe,
    Tag.DESCRIBE: Session._describe,
    Tag.WANTDONE: Session._want_done,
    Tag.CIDESCRIBE: Session._input_describe,
    StmtId: Session._stmt_id,
    CurName: Session._curname,
    Bind: Session._bind,
    bind_rows.RawBind: Session._bind,
    Tag.SCROLL: Session._scroll,
    Tag.OPEN: Session._open,
    **blobs.HANDLERS,
    **slobs.HANDLERS,
    Tag.REOPTOPEN: Session._open,
    NFetch: Session._nfetch,
    SFetch: Session._sfetch,
    Tag.CLOSE: Session._close_cursor,
    Tag.RELEASE: Session._release_msg,
    Tag.EXECUTE: Session._execute,
    DbOpen: Session._dbopen,
    Tag.DBCLOSE: Session._dbclose,
    Tag.BEGIN: Session._begin,
    Tag.CMMTWORK: Session._commit,
    Rollback: Session._rollback,
    Protocols: Session._protocols,
    Info: Session._info,
    RetType: Session._ret_type,
    Tag.VERSION: Session._version,
    Tag.EXIT: Session._exit,
    Tag.HOLD: Session._hold,
    Tag.AUTOFREE: Session._noop,
}

