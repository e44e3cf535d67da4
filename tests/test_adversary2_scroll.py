"""Adversary: scroll cursors (``cursor(scrollable=True)``) moved beyond
either end, compared with a Python model of JDBC's ResultSet semantics
(absolute/relative past the end leave the cursor after the last row,
before the start before the first; IBM JDBC's IfxResultSet does the same
over SQ_SFETCH).  A jump past the end once made the cursor believe the
result had ``target - 1`` rows: fetch_last() then said None on a
non-empty result, and fetch_prior() from there skipped rows."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faults.emu import DATABASE, connect, connect_async
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(300)
SIZES = (0, 1, 5)


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        with connect(srv, autocommit=True) as conn:
            cur = conn.cursor()
            for n in SIZES:
                cur.execute(f"CREATE TABLE s{n} (k INT, v VARCHAR(10))")
                cur.executemany(f"INSERT INTO s{n} VALUES (?, ?)",
                                [(i, None if i % 2 else str(i)) for i in range(1, n + 1)])
        yield srv


class Model:
    """Position 0 = before the first row, n + 1 = after the last."""

    def __init__(self, n: int) -> None:
        self.rows = [(i, None if i % 2 else str(i)) for i in range(1, n + 1)]
        self.pos = 0

    def to(self, target: int):
        n = len(self.rows)
        self.pos = min(max(target, 0), n + 1)
        return self.rows[target - 1] if 1 <= target <= n else None

    def do(self, op: str, arg: int):
        n = len(self.rows)
        if op == "absolute":
            return self.to(arg if arg >= 0 else n + 1 + arg)
        if op == "relative":
            return self.to(self.pos + arg)
        if op == "first":
            return self.to(1)
        if op == "last":
            return self.to(n) if n else None
        if op == "prior":
            return self.to(self.pos - 1)
        if op == "one":
            return self.to(self.pos + 1)
        out = []                                        # "many"
        while len(out) < arg and (row := self.to(self.pos + 1)) is not None:
            out.append(row)
        return out


OPS = st.lists(st.tuples(st.sampled_from(("absolute", "relative", "first", "last", "prior",
                                          "one", "many")),
                         st.integers(-9, 9)), max_size=14)


def _call(cur, op: str, arg: int):
    if op in ("absolute", "relative"):
        return getattr(cur, f"fetch_{op}")(arg)
    if op in ("first", "last", "prior"):
        return getattr(cur, f"fetch_{op}")()
    return cur.fetchone() if op == "one" else cur.fetchmany(abs(arg))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.sampled_from(SIZES), ops=OPS)
def test_scroll_moves_match_the_model(server, n, ops):
    model = Model(n)
    with connect(server) as conn:
        cur = conn.cursor(scrollable=True)
        cur.execute(f"SELECT k, v FROM s{n} ORDER BY k")
        for op, arg in ops:
            want = model.do(op, abs(arg) if op == "many" else arg)
            assert _call(cur, op, arg) == want, (n, ops, op, arg)
        model.pos = 0
        cur.scroll(0, "absolute")
        assert cur.fetchall() == model.rows


def test_jump_past_the_end_then_last_and_prior(server):
    with connect(server) as conn:
        cur = conn.cursor(scrollable=True)
        cur.execute("SELECT k, v FROM s5 ORDER BY k")
        assert cur.fetch_absolute(10) is None
        assert cur.fetch_prior() == (5, None)
        assert cur.fetch_absolute(10) is None
        assert cur.fetch_last() == (5, None)
        assert cur.fetch_relative(-10) is None
        assert cur.fetchone() == (1, None)


def test_async_scroll_past_the_end(server):
    async def main():
        conn = await connect_async(server)
        try:
            cur = conn.cursor(scrollable=True)
            await cur.execute("SELECT k, v FROM s5 ORDER BY k")
            assert await cur.fetch_absolute(7) is None
            assert await cur.fetch_last() == (5, None)
            assert await cur.fetch_relative(-9) is None
            assert await cur.fetchall() == Model(5).rows
        finally:
            await conn.close()
    asyncio.run(asyncio.wait_for(main(), 60))
