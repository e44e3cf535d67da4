"""The long-transaction limit: -458 and the whole transaction rolled back.

A real server rolls back a transaction that grows past its long-transaction
high-watermark (the LTXHWM configuration parameter, a share of the logical
log): "When the logical-log space reaches the LTXHWM threshold, the database
server starts rolling back the transaction" (IBM/HCL Informix Administrator's
Reference, LTXHWM configuration parameter; Administrator's Guide,
"Controlling long transactions").  The statement that was running gets -458
("Long transaction aborted.", IBM JDBC 15.0.1.0 message catalog,
sql_en_US.properties) and the session is then in no transaction: a COMMIT
WORK gets -255, and statements without BEGIN WORK run as the database runs
them outside one (singleton transactions in a logged database, a new
implicit transaction in an ANSI one).

The emulator has no logical log, so the limit is counted in rows: opt-in
(``EmulatorServer(long_transaction_rows=N)``, ``--long-transaction-rows``),
the statement whose rows take the transaction past N rows fails with -458
and everything the transaction did is undone exactly as ROLLBACK WORK undoes
it (temp-table rules, savepoints, table locks; cursors not declared WITH
HOLD are closed first by ``Session.on_tx_abort``, which the protocol
session sets).  Rows counted
are those INSERT, UPDATE, DELETE and MERGE report, by statement, by batch of
pipelined inserts and by PUT block; what an SPL routine writes is not
counted.  A database without logging has no transaction and no limit.

A batch run as one SQLite statement (``Session.execute_many``: pipelined
EXECUTEs of one INSERT, PUT blocks) never aborts the transaction itself:
one that would cross the limit is undone whole by its savepoint and refused
with ``BatchCrosses``, and its callers replay it row by row, so the row that
crosses is found exactly, the rows before it are in the transaction when it
is rolled back, and no row is ever replayed after the transaction is gone
(it would run as a committed singleton).  The protocol session replays
EXECUTEs through ``execute``; an SQ_PUT block replays its rows and calls
``abort`` at the crossing one (insert_cursor.put).
"""

from __future__ import annotations

from .statements import SqlError

LONG_TRANSACTION_ABORTED = -458


class BatchCrosses(SqlError):
    """A multi-row batch would take its transaction past the limit."""


def crosses(session, rows: int) -> bool:
    """Would ``rows`` more written rows pass ``session``'s limit?"""
    limit = session.long_transaction_rows
    return limit is not None and session.in_transaction and session._tx_rows + rows > limit


def batch_crosses() -> BatchCrosses:
    return BatchCrosses(LONG_TRANSACTION_ABORTED, message=(
        "a batch would pass the long-transaction limit: replayed row by row"))


def wrote(session, result):
    """Count a statement's rows (``result``: its ExecResult, returned)
    against the limit of an open transaction."""
    if session.long_transaction_rows is not None and session.in_transaction:
        count(session, result.rowcount)
    return result


def count(session, rows: int) -> None:
    """Add a statement's ``rows`` (it has run, in the open transaction);
    past the limit, roll the whole transaction back and fail with -458."""
    session._tx_rows += rows
    if session._tx_rows > session.long_transaction_rows:
        raise abort(session)


def abort(session) -> SqlError:
    """Roll the whole transaction back as ROLLBACK WORK does (cursors
    without HOLD closed first, by the protocol session's hook); the -458
    error for the statement that crossed the limit."""
    hook = session.on_tx_abort
    if hook is not None:
        hook()
    session.rollback()
    return SqlError(LONG_TRANSACTION_ABORTED, message=(
        f"long transaction aborted: the transaction passed the emulator's "
        f"long-transaction limit of {session.long_transaction_rows} rows and was "
        "rolled back"))
