"""Pipelined inserts of one prepared statement answered as SQLite batches.

``answer(session, requests, out)`` is how Session.handle_many answers a
burst of requests that arrived together:

* a run of requests ``SQ_ID k, SQ_BIND, SQ_EXECUTE`` on the same plain
  ``INSERT ... VALUES`` (our driver's and informix-driver's pipelined
  executemany) goes to the engine as one batch: same rows, same order, the
  same reply per request, one SQLite call.  A lone such request whose row
  bind_rows.py read from its bytes goes the same way;
* one request ``SQ_ID k, (SQ_BIND, SQ_EXECUTE)...`` as bind_rows read it
  (IBM's JDBC executeBatch) likewise, answered with an SQ_DONE per EXECUTE
  and one SQ_EOT;
* everything else request by request (Session.handle).

A batch is all or nothing: it runs in a savepoint inside the session's
transaction (engine.execute_many), and if any of it fails -- a value a
column refuses, a duplicate key, a lock, an interrupt, an emulator bug --
it was undone as a whole and its requests are answered one by one exactly
as if each had come alone, which alone decides errors, row counts, serial
values and what stays in the table (tests/test_emulator_bind_ingest.py).
Except when the first EXECUTE's own answer is already known: the statement
may not run now (check_current: stale, locked, read-only), or the client's
cancel stopped the batch (its one interrupt: the first EXECUTE answers -213,
nothing of the batch went in); then the rest are answered as they would be
after that error.
"""

from __future__ import annotations

from ..framing import Writer
from ..messages import Bind, StmtId, Tag, write_cost, write_done
from . import bind_rows, slobs
from .statements import SqlError

# "statement interrupted by user" (sqlite_errors: a cancel stops SQLite)
INTERRUPTED = -213

_RawBind = bind_rows.RawBind
_BINDS = (Bind, _RawBind)


def _one_row_executed() -> bytes:
    """What an EXECUTE inserting one row answers: SQ_DONE, then SQ_COST
    (as Session's own ``_done`` writes them)."""
    w = Writer()
    write_done(w, 1)
    write_cost(w, 0, 0)
    return w.getvalue()


_ONE_ROW_EXECUTED = _one_row_executed()
_EOT = Writer().short(Tag.EOT).getvalue()
_ONE_ROW_REQUEST = _ONE_ROW_EXECUTED + _EOT     # a whole one-row insert request's reply


def answer(session, requests: list[list], out: bytearray) -> None:
    """Append the replies to ``requests`` to ``out`` (see the module's doc)."""
    i, n = 0, len(requests)
    while i < n:
        request = requests[i]
        if len(request) > 3 and type(request[1]) is _RawBind:
            _pairs_batch(session, request, out)
            i += 1
            continue
        j = _run_end(session, requests, i)
        if j - i > 1 or (j > i and type(request[1]) is _RawBind):
            done = _run_batch(session, requests[i:j], out, _ONE_ROW_REQUEST)
            if done is not True:
                # Undone: answer this run request by request, once each
                # (retrying a batch from every later index would cost the
                # square of the run); or the first of them failed alone.
                rest = requests[i:j]
                if isinstance(done, SqlError):
                    _first_failed(session, rest[0], done, out)
                    out += _EOT
                    rest = rest[1:]
                for one in rest:
                    session._answer(out, one)
            i = j
            continue
        session._answer(out, request)
        i += 1


def _run_end(session, requests: list[list], i: int) -> int:
    """End of the run of batchable insert requests starting at ``i``."""
    first = requests[i]
    if len(first) != 3 or type(first[0]) is not StmtId:
        return i
    st = session.statements.get(first[0].id)
    if st is None or session.db is None or not session.db.can_batch(st.prepared):
        return i
    sid = first[0].id
    j = i
    while j < len(requests):
        req = requests[j]
        if (len(req) != 3 or type(req[0]) is not StmtId or req[0].id != sid
                or type(req[1]) not in _BINDS or req[2] is not Tag.EXECUTE):
            break
        j += 1
    return j


def _pairs_batch(session, request: list, out: bytearray) -> None:
    """``SQ_ID k, (SQ_BIND, SQ_EXECUTE)...``: one batch answered as the
    request would be; if it fails, undone and answered message by message."""
    st = session.statements.get(request[0].id)
    if st is not None and session.db is not None and session.db.can_batch(st.prepared):
        run = [[request[0], request[k], request[k + 1]] for k in range(1, len(request), 2)]
        done = _run_batch(session, run, out, _ONE_ROW_EXECUTED)
        if done is True:
            out += _EOT
            return
        if isinstance(done, SqlError):       # the rest of the request is skipped
            _first_failed(session, run[0], done, out)
            out += _EOT
            return
    session._answer(out, request)


def _run_batch(session, run: list[list], out: bytearray, reply: bytes) -> bool | SqlError:
    """The run's rows as one SQLite batch, ``reply`` for each: True.  False,
    with nothing done, if any part of it fails.  An SqlError, with nothing
    done, that is the first EXECUTE's own answer: the statement may not run
    now (stale, another session's LOCK TABLE after its wait, a read-only
    transaction: what ``check_current`` says before any EXECUTE of it), or
    the client's cancel interrupted the batch (the client's one interrupt:
    a replay would run what it asked to stop)."""
    if session.invalid_text:
        return False                 # one by one: Session._bind refuses the bad value
    st = session.statements[run[0][0].id]
    slobs.before_request(session, run[0])     # as ``handle`` does: an INSERT closes it
    db = session.db
    try:
        db.check_current(st.prepared)
    except SqlError as err:
        return err                   # not waited for again by a replay
    try:
        result = db.execute_many(st.prepared, _stored_rows(session, st, run), stored=True)
    except SqlError as err:
        return err if err.sqlcode == INTERRUPTED else False
    except Exception:  # noqa: BLE001 - undone as a whole; the replay answers each
        # request alone, an internal error included, instead of this
        # thread dying and the client seeing its connection dropped.
        return False
    if result.rowcount != len(run):
        raise AssertionError("a batched INSERT ... VALUES did not insert one row each")
    db.last_rowcount = 1        # DBINFO('sqlca.sqlerrd2'): the last EXECUTE's rows
    st.params = run[-1][1].values
    session.current = st
    out += reply * len(run)
    return True


def _first_failed(session, first: list, err: SqlError, out: bytearray) -> None:
    """The reply (without SQ_EOT) of ``first`` -- SQ_ID, SQ_BIND, SQ_EXECUTE
    -- when its EXECUTE failed with ``err``: what ``handle`` would answer."""
    st = session.statements[first[0].id]
    session.current = st
    st.params = first[1].values
    w = Writer()
    session._fail(w, err)
    out += w.getvalue()


def _stored_rows(session, st, run: list[list]) -> list[list]:
    """The run's rows as stored values: as bind_rows read them when the
    statement still has the shape they were read for, else from the bound
    values (SqlError for a value a column refuses)."""
    shape = bind_rows.statement_converter(session, st)
    stored = session.db.stored_values
    return [m[0] if type(m) is _RawBind and m[1] is shape
            else stored(st.prepared, m.values) for m in (req[1] for req in run)]
