"""Statement preparation and parameter binding, shared by every cursor kind.

These are generator operations (see ``core.session``): they queue requests
on the session and yield what they wait for; the blocking and asyncio
layers run them.  Failures free what the server already allocated: a
PREPAREd statement whose EXECUTE or OPEN failed is released on the next
request, so a job that hits many errors holds no more statements than one
that hits none.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
from collections.abc import Generator, Mapping, Sequence
from typing import Any

from .. import codecs
from ..codec.lob import lob_block
from ..codec.slob import Locator
from ..errors import (DatabaseError, DataError, Error, NotSupportedError,
                      ProgrammingError, ProtocolError, server_error)
from ..errtext import message_for
from ..fastpath import locator_param
from ..messages import Describe, Reply
from ..placeholders import convert, convert_named
from ..sqllex import leading_words
from . import requests as rq
from .session import ClientSession, Expect

Op = Generator[Any, None, Any]

# Parameter types that are never large objects (the common ones skip the check).
_NEVER_LOB = frozenset({type(None), int, float, bool, decimal.Decimal, datetime.date,
                        datetime.datetime, datetime.time, datetime.timedelta})

# Statements that must not be preceded by an implicit SQ_BEGIN.
_NO_IMPLICIT_BEGIN = {"BEGIN", "COMMIT", "ROLLBACK", "DATABASE", "CLOSE"}


def raise_for(reply: Reply) -> None:
    """Turn an SQ_ERR in a finished reply into the right PEP 249 exception."""
    err = reply.error
    if err is not None:
        if err.sqlstate:     # a routine's error: its own SQLSTATE and text
            raise server_error(err.sqlcode, err.isam, f"{err.message} (SQLSTATE "
                               f"{err.sqlstate})", err.offset)
        raise server_error(err.sqlcode, err.isam, message_for(err.sqlcode, err.message),
                           err.offset, err.message)
    if reply.decode_error is not None:
        raise reply.decode_error


def exchange(session: ClientSession, body: bytes, **kw: Any) -> Op:
    """Send one request, wait for its whole reply, raise its error if any."""
    expect = session.send(body, **kw)
    yield expect
    raise_for(expect.reply)
    return expect.reply


def wait_for(expect: Expect) -> Op:
    if not expect.done:
        yield expect
    return expect.reply


class Prepared:
    """A statement the server has prepared: its id and description."""

    __slots__ = ("stmt_id", "describe", "markers", "epoch", "warnings", "shape", "row_texts",
                 "bulk", "sets_session")

    def __init__(self, describe: Describe, markers: int, epoch: int = 0,
                 warnings: int = 0) -> None:
        self.stmt_id = describe.stmt_id
        self.describe = describe
        self.markers = markers
        self.warnings = warnings     # the PREPARE reply's sqlwarn flags
        self.epoch = epoch          # session.database_changes when prepared
        # whether running it changes the session for later users of the
        # connection (sets_session_state): a pool does not hand it on
        self.sets_session = False
        # what a cursor derives from the description (decoder, PEP 249
        # description), kept for the next execute of a cached statement
        self.shape: tuple | None = None
        # named ROW columns' fields as row(...) text, by column index
        # (core/named_rows.py fills it before the columns are decoded)
        self.row_texts: dict[int, str] = {}
        # what executemany derives (the insert cursor's plan, by code set),
        # kept so a repeated small executemany does not derive it again
        self.bulk: tuple | None = None


def parse_sql(operation: str, named: bool = False
              ) -> tuple[str, list[int] | tuple[str, ...] | None, int]:
    """SQL with ``?`` markers, how arguments map to them, and their count.

    ``named`` (parameters given as a mapping): ``:name`` markers, and the
    mapping's keys in marker order.  Otherwise ``?`` or ``:N`` markers.
    """
    if not isinstance(operation, str):
        raise ProgrammingError("the SQL statement must be a str")
    if named:
        sql, names = convert_named(operation)
        return sql, names, len(names)
    return convert(operation)


def encode_params(params: Sequence[Any] | Mapping[str, Any] | None,
                  order: list[int] | tuple[str, ...] | None, count: int,
                  encoding: str = "iso-8859-1") -> list[bytes]:
    """Encode every bound value before anything is sent, so bad input costs nothing."""
    if params is None:
        params = ()
    if isinstance(order, tuple):
        values = _named_values(params, order)
    else:
        values = _positional_values(params, order, count)
    out = []
    for index, value in enumerate(values):  # noqa: B007 - index names the parameter
        try:
            if type(value) is Locator:
                # a smart-LOB locator names an object; bound as bytes it
                # would store its own 72 bytes as a new value
                out.append(locator_param(value))
                continue
            block = None if type(value) in _NEVER_LOB else lob_block(value, encoding)
            out.append(codecs.encode_param(value, encoding) if block is None else block)
        except Error as exc:
            raise type(exc)(f"parameter {index + 1}: {exc}") from exc
        except (TypeError, ValueError, OverflowError, UnicodeError) as exc:
            cls = ProgrammingError if isinstance(exc, TypeError) else DataError
            raise cls(f"parameter {index + 1}: {exc}") from exc
    return out


def _positional_values(params, order: list[int] | None, count: int) -> Sequence[Any]:
    if isinstance(params, Mapping):
        raise ProgrammingError("a mapping of parameters needs :name markers in the SQL")
    if isinstance(params, (str, bytes)) or not isinstance(params, Sequence):
        raise ProgrammingError("parameters must be a sequence (tuple or list) or a mapping")
    needed = (max(order) + 1) if order else count
    if len(params) != needed:
        raise ProgrammingError(f"statement needs {needed} parameters, {len(params)} given")
    return [params[i] for i in order] if order else params


def _named_values(params, names: tuple[str, ...]) -> list[Any]:
    if not isinstance(params, Mapping):
        raise ProgrammingError("parameters for :name markers must be a mapping")
    missing = [n for n in dict.fromkeys(names) if n not in params]
    if missing:
        raise ProgrammingError(f"no value for parameter(s) {', '.join(missing)}")
    return [params[n] for n in names]


def opens_transaction(sql: str) -> bool:
    """Whether the statement may start a transaction (gets an SQ_BEGIN)."""
    words = leading_words(sql, 2)
    if words == ("CREATE", "DATABASE"):
        return False
    return (words[0] if words else "") not in _NO_IMPLICIT_BEGIN


# SET statements whose effect ends with the transaction (IBM Informix Guide to
# SQL: Syntax, "SET TRANSACTION" lasts for the transaction, "SET CONSTRAINTS"
# modes set to DEFERRED end with it, or change the table's objects for every
# session alike); every other SET (ISOLATION, LOCK MODE, EXPLAIN, PDQPRIORITY,
# ENVIRONMENT, ROLE, ...) lasts for the session.
_TRANSACTION_SETS = frozenset({"TRANSACTION", "CONSTRAINTS"})


def sets_session_state(sql: str) -> bool:
    """Whether the statement leaves state in the session that outlives its
    transaction: a session-wide SET, or a temporary table (CREATE TEMP
    TABLE; SELECT ... INTO TEMP is known by its statement type).  A pool
    closes a connection that ran one instead of handing it to the next
    user, who would otherwise read at another isolation level, wait on
    locks differently, or see the last user's temporary tables.  A routine
    call (EXECUTE PROCEDURE/FUNCTION) counts too, before it runs, by its
    statement type (cursor_base._run_prepared, executemany.Plan._adopt):
    SPL may run SET or create a temp table, unseen, even if it then fails."""
    words = leading_words(sql, 2)
    if words[:1] == ("SET",):
        return not (len(words) > 1 and words[1] in _TRANSACTION_SETS)
    return words == ("CREATE", "TEMP")


def ansi_autocommit(session: ClientSession, sql: str) -> Op:
    """In autocommit mode on an ANSI-compliant database, COMMIT WORK after
    the statement: the server left it in an implicit transaction (IBM
    Database Design Guide, "Transactions": an ANSI database needs only the
    end of a transaction marked).  IBM's JDBC driver does the same: with
    ``SendCommit`` set it sends SQ_CMMTWORK after each statement, after a
    result set ends (IfxSqli.executeCommit, IfxSqliConnect.isCommitNeeded),
    and sends none inside a BEGIN WORK of the user's (setTxBeginState)."""
    if not (session.ansi and session.autocommit and opens_transaction(sql)):
        return
    if session.in_transaction:
        return      # the user's own BEGIN WORK: the user's COMMIT ends it
    try:
        yield from exchange(session, rq.COMMIT)
    finally:
        session.in_transaction = False
    session.transaction_ended()


def encode_sql(sql: str, encoding: str = "iso-8859-1") -> bytes:
    """SQL text (and identifiers in it) in the session's code set."""
    try:
        return sql.encode(encoding)
    except UnicodeEncodeError as exc:
        raise DataError(f"the SQL text cannot be sent in the connection's code set "
                        f"({encoding}): {exc}") from None


def prepare(session: ClientSession, sql: str, markers: int) -> Op:
    """PREPARE (with the implicit SQ_BEGIN when one is due); returns Prepared."""
    reply = yield from exchange(session, rq.prepare(encode_sql(sql, session.encoding), markers),
                                begin=opens_transaction(sql))
    if reply.describe is None:
        # A server answers NDESCRIBE with a DESCRIBE; without one we do not
        # know which statement it allocated: the stream is out of step.
        why = "the server answered PREPARE without describing the statement"
        session.mark_broken(f"protocol error: {why}")
        raise ProtocolError(why)
    prepared = Prepared(reply.describe, markers, session.database_changes, reply.warnings)
    prepared.sets_session = sets_session_state(sql)
    return prepared


def column_types(prepared: Prepared) -> list:
    """The described columns as ColumnTypes (refusing what cannot be decoded)."""
    try:
        types = [codecs.column_type_from_describe(c.wire_type, c.extended_id, c.encoded_length,
                                                  c.extended_name)
                 for c in prepared.describe.columns]
    except NotSupportedError:
        raise
    except (ValueError, DatabaseError) as exc:
        raise NotSupportedError(str(exc)) from exc
    for index, text in prepared.row_texts.items():
        types[index] = dataclasses.replace(types[index], row_text=text)
    return types


def query_first_row(session: ClientSession, sql: str) -> Op:
    """The first row of a catalog query run outside any transaction and any
    cursor object (the login asks the database's locale this way); None when
    the query has no row.  The statement is released before returning."""
    rows = yield from query_rows(session, sql, b"_ifxs_locale", max_rows=1)
    return rows[0] if rows else None


# The fetch buffer of a side query: catalog rows of a few hundred bytes each.
_SIDE_FETCH = 32 * 1024


def query_rows(session: ClientSession, sql: str, cursor_name: bytes, *,
               max_rows: int | None = None, begin: bool = False) -> Op:
    """Every row of a query the driver runs for itself (a catalog look-up),
    on no cursor object: PREPARE, OPEN with the first NFETCH, NFETCH until
    the result ends (or ``max_rows`` are in), then CLOSE and RELEASE ride on
    the next request.  Requests queue behind whatever another cursor has
    outstanding (its read-ahead is parsed into its own reply on the way), so
    an open streaming cursor on the connection is not disturbed.  ``begin``:
    as for a user's statement, the implicit SQ_BEGIN when one is due."""
    reply = yield from exchange(session, rq.prepare(encode_sql(sql, session.encoding), 0),
                                begin=begin)
    if reply.describe is None:
        session.mark_broken("protocol error: PREPARE answered without DESCRIBE")
        raise ProtocolError("the server answered PREPARE without describing the statement")
    prepared = Prepared(reply.describe, 0)
    decode = codecs.make_row_decoder(column_types(prepared), session.encoding)
    stmt_id = prepared.stmt_id
    body = rq.open_cursor(stmt_id, cursor_name, [], scroll=False, hold=False,
                          first_fetch=_SIDE_FETCH)
    rows: list = []
    try:
        while True:
            expect = session.send(body, decode=decode, budget=_SIDE_FETCH)
            yield expect
            raise_for(expect.reply)
            got = expect.reply
            rows += got.rows
            if got.done or got.closed or not got.rows or (
                    max_rows is not None and len(rows) >= max_rows):
                break
            body = rq.nfetch(stmt_id, _SIDE_FETCH)
    except BaseException:
        session.owe(rq.close_only(stmt_id), rq.release_only(stmt_id))
        raise
    session.defer_cleanup(rq.release(stmt_id, True))
    return rows if max_rows is None else rows[:max_rows]
