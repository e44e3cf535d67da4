"""Adversary round 7: what the Arrow fetches return against what the tuple
path returns from the same table (issue 9: nothing silently wrong).

For every type of the documented map (arrow/types.py), a 60-row column of
the type's extremes with NULLs at rows 0, 6, 7, 13, 14, ... and 59 is read
through ``fetch_arrow_table``, ``fetch_arrow_batches`` and the C stream
(``pyarrow.table(cursor)``), with fetch buffers holding the whole result
and holding one to three rows (so NULLs fall first and last in many
buffers), batch_rows of 1, 7 and the default; each must give the tuple
path's values (floating DECIMAL(p) reads as float64, as documented).  A
value the Arrow type cannot hold is a DataError naming the column, and the
connection stays usable.

Found here: the column-at-a-time INTERVAL YEAR TO MONTH decoder
(arrow/packed_columns._months) refused -2**31 months, which int32 holds and
the per-row reference and the tuple path both return, so a fetch with more
than a few rows failed where a smaller one succeeded.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal as D

import pytest

pa = pytest.importorskip("pyarrow", reason="Arrow fetches need the arrow extra")
pytest.importorskip("numpy", reason="Arrow fetches need the arrow extra")

import informix_stream as ifx  # noqa: E402
from faults.emu import connect_kw  # noqa: E402
from informix_stream.arrow.columnar import decode_batch  # noqa: E402
from informix_stream.arrow.reference import reference_batch  # noqa: E402
from informix_stream.codec.scalars import IntervalYM  # noqa: E402
from informix_stream.codecs import make_row_encoder, parse_type  # noqa: E402
from informix_stream.emulator import EmulatorServer  # noqa: E402

pytestmark = pytest.mark.timeout(300)

ROWS = 60
EXTREMES = {
    "SMALLINT": [32767, -32767, 0],
    "INTEGER": [2147483647, -2147483647, 0],
    "BIGINT": [2**63 - 1, -(2**63 - 1), 0],
    "INT8": [2**63 - 1, -(2**63 - 1), 0],
    "SMALLFLOAT": [3.4e38, -1.5e-38, 0.0, -0.0, float("inf"), float("nan")],
    "FLOAT": [1.7976931348623157e308, 5e-324, -0.0, -2.5, -float("inf"), float("nan")],
    "DECIMAL(32,0)": [D("9" * 32), D("-" + "9" * 32), D(0)],
    "DECIMAL(32,31)": [D("9." + "9" * 31), D("-0." + "0" * 30 + "1")],
    "DECIMAL(5,2)": [D("999.99"), D("-0.01")],
    "DECIMAL(16)": [D("1E+120"), D("-1.234567890123456E-120"), D("123.456")],
    "MONEY(16,2)": [D("99999999999999.99"), D("-0.01")],
    "DATE": [dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(2000, 2, 29)],
    "DATETIME YEAR TO FRACTION(5)": [dt.datetime(1, 1, 1),
                                     dt.datetime(9999, 12, 31, 23, 59, 59, 999990)],
    "DATETIME YEAR TO SECOND": [dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59)],
    "DATETIME YEAR TO FRACTION(3)": [dt.datetime(1, 1, 1, 0, 0, 0, 1000),
                                     dt.datetime(9999, 12, 31, 23, 59, 59, 999000)],
    "DATETIME YEAR TO DAY": [dt.date(1, 1, 1), dt.date(9999, 12, 31)],
    "DATETIME HOUR TO FRACTION(3)": [dt.time(0, 0), dt.time(23, 59, 59, 999000)],
    "DATETIME HOUR TO SECOND": [dt.time(0, 0), dt.time(23, 59, 59)],
    "DATETIME HOUR TO FRACTION(5)": [dt.time(0, 0), dt.time(23, 59, 59, 999990)],
    # the emulator holds day-time INTERVALs up to timedelta's microsecond int64
    "INTERVAL DAY(9) TO FRACTION(5)": [
        dt.timedelta(days=106751990, seconds=86399, microseconds=999990),
        -dt.timedelta(days=106751990), dt.timedelta(0)],
    "INTERVAL DAY(9) TO SECOND": [dt.timedelta(days=106751990, seconds=86399),
                                  -dt.timedelta(days=106751990)],
    "INTERVAL DAY(9) TO FRACTION(3)": [
        dt.timedelta(days=106751990, seconds=86399, microseconds=999000)],
    "INTERVAL HOUR(9) TO SECOND": [dt.timedelta(hours=999999999),
                                   -dt.timedelta(hours=1, seconds=1)],
    "INTERVAL YEAR(9) TO MONTH": [IntervalYM(2**31 - 1), IntervalYM(-2**31), IntervalYM(0)],
    "CHAR(10)": ["abc", "", "abcdefghij"],
    "VARCHAR(255)": ["x" * 255, "", "a"],
    "NVARCHAR(20)": ["héllo", " "],
    "LVARCHAR(32000)": ["y" * 31000, ""],
    "BOOLEAN": [True, False],
}
FETCH_BUFFERS = [64 * 1024, 37]


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases={"testdb": "en_US.8859-1"}) as srv:
        yield srv


def _is_null(k: int) -> bool:
    return k % 7 in (0, 6) or k == ROWS - 1


def _fill(server, column: str, values: list, prefix: str = "r") -> str:
    table = prefix + "_" + "".join(ch for ch in column.lower() if ch.isalnum())
    with ifx.connect(**connect_kw(server), autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {table} (i INTEGER, v {column})")
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?)",
                        [(k, None if _is_null(k) else values[k % len(values)])
                         for k in range(ROWS)])
    return f"SELECT i, v FROM {table} ORDER BY i"


def _same(value, floating: bool):
    """A value in the form both paths share: IntervalYM as months, a
    floating DECIMAL (float64 in Arrow) by its float."""
    if isinstance(value, IntervalYM):
        return ("months", value.months)
    if type(value).__name__ == "MonthDayNano":
        assert value.days == value.nanoseconds == 0
        return ("months", value.months)
    if floating and value is not None:
        return float(value)
    return value


def _rows(table_rows: list[dict], floating: bool) -> list[tuple]:
    return [(r["i"], _same(r["v"], floating)) for r in table_rows]


@pytest.mark.parametrize("fetch_buffer_size", FETCH_BUFFERS)
@pytest.mark.parametrize("column", list(EXTREMES))
def test_every_arrow_fetch_returns_the_tuple_paths_values(server, column, fetch_buffer_size):
    query = _fill(server, column, EXTREMES[column], f"r{fetch_buffer_size}")
    floating = column == "DECIMAL(16)"
    with ifx.connect(**connect_kw(server, fetch_buffer_size=fetch_buffer_size)) as conn:
        cur = conn.cursor()
        cur.execute(query)
        expected = [(i, _same(v, floating)) for i, v in cur.fetchall()]
        assert sum(v is None for _, v in expected) == 18
        for batch_rows in (1, 7, 65536):
            cur.execute(query)
            table = cur.fetch_arrow_table(batch_rows=batch_rows)
            assert repr(_rows(table.to_pylist(), floating)) == repr(expected), batch_rows
            cur.execute(query)
            got = []
            for batch in cur.fetch_arrow_batches(batch_rows=batch_rows):
                assert 0 < batch.num_rows <= batch_rows
                got += _rows(batch.to_pylist(), floating)
            assert repr(got) == repr(expected), batch_rows
        cur.execute(query)
        assert repr(_rows(pa.table(cur).to_pylist(), floating)) == repr(expected)


def test_asyncio_fetches_return_the_tuple_paths_values(server):
    query = _fill(server, "INTERVAL YEAR(9) TO MONTH", EXTREMES["INTERVAL YEAR(9) TO MONTH"],
                  "a")

    async def read() -> tuple:
        conn = await ifx.connect_async(**connect_kw(server, fetch_buffer_size=37))
        try:
            cur = conn.cursor()
            await cur.execute(query)
            expected = [(i, _same(v, False)) for i, v in await cur.fetchall()]
            await cur.execute(query)
            table = _rows((await cur.fetch_arrow_table(batch_rows=7)).to_pylist(), False)
            await cur.execute(query)
            batches = []
            async for batch in cur.fetch_arrow_batches(batch_rows=3):
                batches += _rows(batch.to_pylist(), False)
            return expected, table, batches
        finally:
            await conn.close()

    expected, table, batches = asyncio.run(asyncio.wait_for(read(), 60))
    assert table == batches == expected


def test_a_value_arrow_cannot_hold_is_a_data_error_and_the_connection_goes_on(server):
    """INTERVAL YEAR(9) TO MONTH past int32 months: DataError naming the
    column, whichever decoder the batch size picks; the next statement on
    the connection reads its own rows."""
    query = _fill(server, "INTERVAL YEAR(9) TO MONTH",
                  [IntervalYM(2**31), IntervalYM(5), IntervalYM(-2**31 - 1)], "big")
    with ifx.connect(**connect_kw(server, fetch_buffer_size=37)) as conn:
        cur = conn.cursor()
        for batch_rows in (1, 65536):
            cur.execute(query)
            with pytest.raises(ifx.DataError, match=r"\(v INTERVAL YEAR\(9\) TO MONTH\)"):
                cur.fetch_arrow_table(batch_rows=batch_rows)
            cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = 1")
            assert cur.fetchall() == [(1,)]


_YEAR_MONTH = [parse_type("interval year(9) to month")]


def _months_outcome(decode, months: list[int | None]):
    encode = make_row_encoder(_YEAR_MONTH, "iso-8859-1")
    images = [encode((None if m is None else IntervalYM(m),)) for m in months]
    try:
        column = decode(images, _YEAR_MONTH, ["v"]).column(0)
    except ifx.DataError as exc:
        return ("error", str(exc).split(":")[0])
    return ("ok", [None if v is None else v.months for v in column.to_pylist()])


@pytest.mark.parametrize("edge", [-2**31, 2**31 - 1, -2**31 - 1, 2**31])
@pytest.mark.parametrize("shape", ["alone", "first", "last", "between-nulls", "many"])
def test_year_month_int32_edges_decode_as_the_reference_does(edge, shape):
    months = {"alone": [edge], "first": [edge, 0, 5], "last": [7, 0, edge],
              "between-nulls": [None, edge, None, 1], "many": [edge, 3] * 20}[shape]
    assert _months_outcome(decode_batch, months) == _months_outcome(reference_batch, months)


BAD_BATCH_ROWS = [0, -1, 1.5, "3", None]


def test_a_batch_size_below_one_row_is_refused_not_read_as_the_end(server):
    """batch_rows=0 returned an empty table, as if the result had no rows
    (and a float or str raised TypeError); the result is still all there."""
    query = _fill(server, "INTEGER", [1, 2, 3], "bad")
    with ifx.connect(**connect_kw(server)) as conn:
        cur = conn.cursor()
        cur.execute(query)
        expected = cur.fetchall()
        for bad in BAD_BATCH_ROWS:
            cur.execute(query)
            for fetch in (cur.fetch_arrow_table, cur.fetch_arrow_batches,
                          cur.fetch_arrow_reader):
                with pytest.raises(ifx.ProgrammingError, match="batch_rows"):
                    fetch(batch_rows=bad)
            assert cur.fetchall() == expected


def test_asyncio_refuses_a_batch_size_below_one_row(server):
    query = _fill(server, "INTEGER", [1, 2, 3], "abad")

    async def read() -> list:
        conn = await ifx.connect_async(**connect_kw(server))
        try:
            cur = conn.cursor()
            await cur.execute(query)
            for bad in BAD_BATCH_ROWS:
                with pytest.raises(ifx.ProgrammingError, match="batch_rows"):
                    await cur.fetch_arrow_table(batch_rows=bad)
                with pytest.raises(ifx.ProgrammingError, match="batch_rows"):
                    async for _ in cur.fetch_arrow_batches(batch_rows=bad):
                        pass
            return await cur.fetchall()
        finally:
            await conn.close()

    assert len(asyncio.run(asyncio.wait_for(read(), 60))) == ROWS


@pytest.fixture(scope="module")
def two_results(server) -> tuple[str, str]:
    """Two queries of the same shape (two INTEGERs), so rows of one decode
    under the other's schema without any error."""
    first = _fill(server, "INTEGER", [-1, -2, -3], "first")
    second = _fill(server, "INTEGER", [1000, 2000], "second")
    return first, second.replace("SELECT i, v", "SELECT v, i")


@pytest.mark.parametrize("kind", ["batches", "reader"])
def test_an_arrow_iterator_kept_past_execute_raises_and_takes_no_rows(server, two_results,
                                                                       kind):
    """It went on reading the next statement's rows under the old schema's
    names, and the rows it took were gone from the cursor's own fetches."""
    first, second = two_results
    with ifx.connect(**connect_kw(server, fetch_buffer_size=64)) as conn:
        cur = conn.cursor()
        cur.execute(second)
        expected = cur.fetchall()
        cur.execute(first)
        batches = cur.fetch_arrow_batches(batch_rows=3) if kind == "batches" else \
            iter(cur.fetch_arrow_reader(batch_rows=3))
        assert next(batches).num_rows == 3
        cur.execute(second)
        with pytest.raises(ifx.InterfaceError, match="executed another statement"):
            next(batches)
        assert cur.fetchall() == expected


def test_an_arrow_iterator_kept_past_close_raises_interface_error(server, two_results):
    """It raised struct.error once the cursor was closed."""
    first, _ = two_results
    with ifx.connect(**connect_kw(server, fetch_buffer_size=64)) as conn:
        cur = conn.cursor()
        cur.execute(first)
        batches = cur.fetch_arrow_batches(batch_rows=3)
        next(batches)
        cur.close()
        with pytest.raises(ifx.InterfaceError, match="closed"):
            next(batches)


def test_asyncio_arrow_iterator_kept_past_execute_raises(server, two_results):
    first, second = two_results

    async def read() -> tuple:
        conn = await ifx.connect_async(**connect_kw(server, fetch_buffer_size=64))
        try:
            cur = conn.cursor()
            await cur.execute(second)
            expected = await cur.fetchall()
            await cur.execute(first)
            batches = cur.fetch_arrow_batches(batch_rows=3)
            await batches.__anext__()
            await cur.execute(second)
            with pytest.raises(ifx.InterfaceError, match="executed another statement"):
                await batches.__anext__()
            return expected, await cur.fetchall()
        finally:
            await conn.close()

    expected, got = asyncio.run(asyncio.wait_for(read(), 60))
    assert got == expected
