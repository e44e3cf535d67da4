"""IBM's JDBC driver meets a transaction the server aborts as too long (-458).

The emulator is started with a small opt-in limit (emulator/long_tx.py,
``long_transaction_rows``); a real server aborts at its LTXHWM share of the
logical log, which a test cannot make small, so this runs on the emulator
only.  What the real server does after -458 (the session is in no
transaction: COMMIT WORK is -255, the next statement a singleton) is
documented in docs/protocol.md, "Long transaction aborted".

What IBM's driver does with it (IfxSqliConnect.commit/rollback, decompiled):
it keeps its own transaction state, which -458 does not change.  So
commit() still sends COMMIT WORK and raises -255; rollback() after that
sends nothing (the failed commit ended JDBC's transaction); and a statement
run after -458 without commit/rollback is sent without SQ_BEGIN, so the
server runs it as a committed singleton and the rollback() that follows
raises -255.  The caller is told in every case (an SQLException), never
handed success for rows that are gone.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

import informix_stream
from informix_stream.emulator import EmulatorServer

from .jdbc_runner import JdbcClient

LIMIT = 5
_tables = itertools.count(1)

Records = list[tuple[str | None, ...]]


@pytest.fixture(scope="module")
def limited() -> Iterator[SimpleNamespace]:
    """An emulator whose logged database aborts a transaction past LIMIT rows."""
    with EmulatorServer(databases=("testdb",), long_transaction_rows=LIMIT) as srv:
        yield SimpleNamespace(host=srv.host, port=srv.port, user="informix",
                              password="in4mix", database="testdb", server="informix")


@pytest.fixture
def table(limited: SimpleNamespace) -> str:
    name = f"jltx{next(_tables)}"
    with informix_stream.connect(host=limited.host, port=limited.port, password="in4mix",
                                 database=limited.database, autocommit=True) as conn:
        conn.cursor().execute(f"CREATE TABLE {name} (a INTEGER)")
    return name


def _steps(records: Records) -> dict[str, str]:
    """Each STEP label -> "ok" or the error code it raised."""
    out: dict[str, str] = {}
    label = None
    for rec in records:
        if rec[0] == "STEP":
            label = rec[1]
        elif label is not None and rec[0] in ("NO_ERROR", "ERROR"):
            out[label] = "ok" if rec[0] == "NO_ERROR" else str(rec[1])
            label = None
    return out


def _fresh_rows(records: Records) -> list[str | None]:
    return [r[1] for r in records if r[0] == "row"]


def _errors_before_steps(records: Records) -> list[str | None]:
    """Errors of the inserts themselves (before the first STEP)."""
    head = list(itertools.takewhile(lambda r: r[0] != "STEP", records))
    return [r[1] for r in head if r[0] == "ERROR"]


@pytest.mark.interop
def test_jdbc_statement_crossing_the_limit_gets_458_and_commit_raises_255(
        jdbc: JdbcClient, limited: SimpleNamespace, table: str) -> None:
    records = jdbc.run(limited, "long_tx", "statements", table, str(LIMIT + 4)).check().records
    assert ("failed_at", str(LIMIT)) in records          # rows 0..LIMIT-1 fit, the next crosses
    assert _errors_before_steps(records) == ["-458"]
    assert _steps(records) == {"commit": "-255", "rollback": "ok", "new_tx": "ok"}
    assert _fresh_rows(records) == ["-1"]                 # none of the aborted rows


@pytest.mark.interop
def test_jdbc_statement_after_458_runs_as_a_singleton_and_rollback_raises_255(
        jdbc: JdbcClient, limited: SimpleNamespace, table: str) -> None:
    """JDBC does not send SQ_BEGIN again after -458 (its TxState still says
    "in a transaction"), so the server commits the next INSERT on its own, as
    a real server does outside a transaction; rollback() then raises -255, the
    caller's only sign that row 100 was not rolled back."""
    records = jdbc.run(limited, "long_tx", "continue", table, str(LIMIT + 4)).check().records
    assert ("failed_at", str(LIMIT)) in records
    assert _errors_before_steps(records) == ["-458"]
    assert _steps(records) == {"insert_after_abort": "ok", "rollback": "-255",
                               "commit": "ok", "new_tx": "ok"}
    assert _fresh_rows(records) == ["-1", "100"]


@pytest.mark.interop
@pytest.mark.parametrize("mode", ["batch", "putbatch"])
@pytest.mark.parametrize("rows", [LIMIT + 4, 300])
def test_jdbc_execute_batch_crossing_the_limit(
        jdbc: JdbcClient, limited: SimpleNamespace, table: str, mode: str, rows: int) -> None:
    """executeBatch of a prepared INSERT, as executed statements ("batch") and
    through an insert cursor's PUT blocks ("putbatch", IFX_USEPUT=1): the
    emulator replays a batch that would cross row by row (long_tx.py), so
    JDBC gets BatchUpdateException -458 whose update counts are the LIMIT
    rows before the crossing one -- rows then rolled back with the
    transaction, so the counts describe work undone; commit() raising -255
    is what tells the caller.  With 300 rows, far more follow the crossing
    one, and none of them lands."""
    records = jdbc.run(limited, "long_tx", mode, table, str(rows)).check().records
    assert _errors_before_steps(records) == ["-458"]
    assert ("batch_counts", str([1] * LIMIT)) in records
    assert _steps(records) == {"commit": "-255", "rollback": "ok", "new_tx": "ok"}
    assert _fresh_rows(records) == ["-1"]
