"""Adversary: real fetch replies of a table of many column types, mutated
(bytes flipped, cut short, spliced with foreign bytes, a piece repeated),
read through the tuple path (fetchall, fetchmany, a scroll cursor) and the
Arrow bulk path (fetch_arrow_table), blocking and asyncio.

Rules (issue 9 item 3): only PEP 249 exceptions escape (never struct.error,
UnicodeError, IndexError, ValueError, OverflowError...), within bounded
time; a failure that is not the server's own SQ_ERR (or a DataError for a
value that frames but is no value of its type) leaves the connection
closed.  The mutation is chosen by hypothesis from the real reply, so every
column type's decoder is reached at every offset.
"""

from __future__ import annotations

import datetime as dt
import time
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import informix_stream as ifx
from both_drivers import SyncDriver
from faults.hostile import SILENCE, HostileServer, is_later_fetch
from test_hostile_replies import connect

pytestmark = pytest.mark.timeout(300)
COLUMNS = ("i INTEGER, s SMALLINT, b BIGINT, f FLOAT, sf SMALLFLOAT, d DECIMAL(10,2), "
           "m MONEY(8,2), dd DATE, ts DATETIME YEAR TO FRACTION(3), "
           "iv INTERVAL DAY(3) TO SECOND, c CHAR(5), v VARCHAR(20), lv LVARCHAR(100), "
           "bo BOOLEAN")
N = 200


def _row(i: int) -> tuple:
    return (i, i % 300, i * 10**12, i / 7, float(i % 50), Decimal(i) / 4, Decimal(i % 999),
            dt.date(2000, 1, 1) + dt.timedelta(days=i),
            dt.datetime(2020, 5, 17, 3, 4, 5, 123000) + dt.timedelta(minutes=i),
            dt.timedelta(days=i % 900, seconds=i), f"c{i % 9}", f"vé{i}" * (i % 4),
            "l" * (i % 90), bool(i % 2))


@pytest.fixture(scope="module")
def server():
    with HostileServer() as h:
        h.drv = SyncDriver()
        conn = connect(h, autocommit=True, read_timeout=10)
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE m ({COLUMNS})")
        cur.executemany(f"INSERT INTO m VALUES ({', '.join('?' * 14)})",
                        [_row(i) if i % 17 else (None,) * 14 for i in range(N)])
        conn.close()
        yield h


@st.composite
def mutations(draw):
    """A function of the real reply bytes."""
    kind = draw(st.sampled_from(["flip", "cut", "splice", "repeat"]))
    where = draw(st.floats(0, 1))
    data = draw(st.binary(min_size=1, max_size=12))

    def mutate(reply: bytes) -> bytes:
        at = min(int(where * len(reply)), len(reply) - 1)
        if kind == "flip":
            return reply[:at] + bytes(b ^ 0xFF if k == 0 else b ^ data[0]
                                      for k, b in enumerate(reply[at:at + len(data)])) \
                + reply[at + len(data):]
        if kind == "cut":
            return reply[:at]
        if kind == "splice":
            return reply[:at] + data + reply[at:]
        return reply[:at] + reply[at:at + 64] + reply[at:]
    mutate.__name__ = f"{kind}@{where:.3f}:{data.hex()}"
    return mutate


READS = {
    "fetchall": lambda cur: cur.fetchall(),
    "fetchmany": lambda cur: [r for _ in range(N) for r in cur.fetchmany(7)],
    "arrow": lambda cur: cur.fetch_arrow_table(batch_rows=64),
}


def _tamper(mutate):
    state = {"done": False}

    def tamper(messages, reply):
        if state["done"] or not is_later_fetch(messages):
            return None
        state["done"] = True
        return [mutate(reply), SILENCE]
    return tamper


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutate=mutations(), how=st.sampled_from(sorted(READS)),
       scroll=st.booleans())
def test_a_mutated_reply_ends_in_rows_or_a_pep249_error(server, mutate, how, scroll):
    if how == "arrow":
        pytest.importorskip("pyarrow", reason="the Arrow path needs the arrow extra")
        scroll = False
    conn = connect(server, autocommit=True, read_timeout=1.5)
    server.tamper = _tamper(mutate)
    start = time.monotonic()
    try:
        cur = conn.cursor(fetch_buffer_size=512, scrollable=scroll)
        cur.execute("SELECT * FROM m ORDER BY i")
        READS[how](cur)
    except ifx.Error as exc:
        if not conn.closed:
            assert isinstance(exc, ifx.DataError) or getattr(exc, "sqlcode", None), repr(exc)
    finally:
        server.tamper = None
        conn.close()
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("how", sorted(READS))
def test_the_unmutated_reply_reads_every_row(server, how):
    """The baseline: the same reads through the same tamper, bytes untouched."""
    if how == "arrow":
        pytest.importorskip("pyarrow", reason="the Arrow path needs the arrow extra")
    conn = connect(server, autocommit=True, read_timeout=5)
    server.tamper = None
    cur = conn.cursor(fetch_buffer_size=512)
    cur.execute("SELECT * FROM m ORDER BY i")
    got = READS[how](cur)
    conn.close()
    assert len(got) == N
    if how != "arrow":
        values = [r for r in got if r[0] is not None]
        assert got.count((None,) * 14) == N - len(values)
        assert values == [_row(i)[:10] + (_row(i)[10].ljust(5),) + _row(i)[11:]
                          for i in range(N) if i % 17]
