"""Adversary: the Arrow encode rules (arrow/put_cells.py, put_images.py)
and the Arrow bulk decode (arrow/bulk.py tuple_run) against the tuple paths.

Encode: the same rows land through ``executemany(insert, pyarrow_table)``
and through Python tuples, both read back; every value (or the error and
its row index) must be the same -- DECIMAL/MONEY needing rounding or not
fitting, DATETIME of many qualifiers from every timestamp unit, text at
and over its byte limit in multibyte UTF-8 as plain, large, dictionary,
sliced and chunked arrays whose chunks start at different offsets.

Decode: VARCHAR/LVARCHAR/BOOLEAN values whose bytes look like SQ_TUPLE
headers (tag 0x000e, zero flags, plausible sizes) at every alignment, read
with tiny and large fetch buffers through fetch_arrow_table(), fetchone,
fetchmany and a scroll cursor, must equal what was inserted.
No mismatch found in this round; these guard the rules against regressions.
"""

from __future__ import annotations

import datetime as dt
import random
import struct
from decimal import Decimal

import pytest

pa = pytest.importorskip("pyarrow", reason="the Arrow paths need the arrow extra")
pytest.importorskip("numpy", reason="the Arrow paths need the arrow extra")

import informix_stream as ifx  # noqa: E402
from faults.emu import DATABASE, connect_kw  # noqa: E402
from informix_stream.emulator import EmulatorServer  # noqa: E402

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def conn():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        with ifx.connect(**connect_kw(srv), autocommit=True) as c:
            yield c


def _land(conn, coltype: str, rows: list, source, insert_cursor: bool):
    """What a table of (id, v) holds after loading ``source``, or the error."""
    cur = conn.cursor()
    try:
        cur.execute("DROP TABLE tz")
    except ifx.ProgrammingError:
        pass
    cur.execute(f"CREATE TABLE tz (id INT, v {coltype})")
    try:
        cur.executemany("INSERT INTO tz VALUES (?, ?)", source, insert_cursor=insert_cursor)
        error = None
    except ifx.Error as exc:
        error = (type(exc).__name__, getattr(exc, "row_index", None))
    cur.execute("SELECT id, v FROM tz ORDER BY id")
    return error, cur.fetchall()


def _same(conn, coltype: str, values: list, array) -> None:
    table = pa.table({"id": pa.array(range(len(values)), pa.int32()), "v": array})
    for ic in (True, False):
        by_arrow = _land(conn, coltype, values, table, ic)
        by_tuple = _land(conn, coltype, values, list(enumerate(values)), ic)
        assert by_arrow == by_tuple, (coltype, array.type, ic)


DECIMALS = ["0", "-0.005", "0.005", "1.235", "-1.245", "99.995", "-99.995",
            "123456.789", "-9.999", "12345678.9", "0.0049", "-0.0051"]


@pytest.mark.parametrize("column", ["DECIMAL(4,2)", "DECIMAL(8,2)", "DECIMAL(3,0)",
                                    "DECIMAL(10,4)", "DECIMAL(18,9)", "DECIMAL(5,4)",
                                    "MONEY(9,1)", "MONEY(6,2)"])
@pytest.mark.parametrize("source", [(12, 3), (18, 4), (10, 0), (38, 10), (9, 2)])
def test_decimal_one_row_at_a_time(conn, column, source):
    precision, scale = source
    for text in DECIMALS:
        value = Decimal(text).quantize(Decimal(1).scaleb(-scale))
        if len(value.as_tuple().digits) > precision:
            continue
        _same(conn, column, [value], pa.array([value], pa.decimal128(precision, scale)))
    _same(conn, column, [None], pa.array([None], pa.decimal128(precision, scale)))


STAMPS = [dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
          dt.datetime(2024, 2, 28, 12, 30, 45, 123456), dt.datetime(1970, 1, 1),
          dt.datetime(1899, 12, 31, 0, 0, 0, 500), None, dt.datetime(2000, 3, 1, 23, 59, 59, 999500)]


@pytest.mark.parametrize("qualifier", ["YEAR TO SECOND", "YEAR TO FRACTION(3)", "YEAR TO FRACTION(5)",
                                       "YEAR TO DAY", "YEAR TO MINUTE", "YEAR TO MONTH",
                                       "MONTH TO DAY", "HOUR TO SECOND", "DAY TO SECOND",
                                       "HOUR TO FRACTION(2)", "SECOND TO FRACTION(4)"])
@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_datetime_qualifiers_from_every_timestamp_unit(conn, qualifier, unit):
    values, kept = [], []
    for stamp in STAMPS:
        try:
            array = pa.array([stamp], pa.timestamp(unit))
            kept.append(array.to_pylist()[0])
        except (OverflowError, pa.ArrowInvalid):
            continue                     # outside what the unit can hold
        values.append(array)
    for value, array in zip(kept, values):
        _same(conn, f"DATETIME {qualifier}", [value], array)


def _texts(rng: random.Random, n: int) -> list:
    alphabet = ["a", "é", "€", "😀", " ", "z", "\u00a0"]
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            if rng.random() > 0.15 else None for _ in range(n)]


def _shapes(values: list) -> dict:
    n = len(values)
    padded = pa.array(["x" * 7] + values + ["y"], pa.string())
    return {"plain": pa.array(values, pa.string()),
            "large": pa.array(values, pa.large_string()),
            "dict": pa.array(values, pa.string()).dictionary_encode(),
            "chunked": pa.chunked_array([padded.slice(1, 11), padded.slice(12, n - 11)]),
            "slice": padded.slice(1, n)}


@pytest.mark.parametrize("column", ["CHAR(8)", "VARCHAR(8)", "NCHAR(8)", "NVARCHAR(8)",
                                    "LVARCHAR(8)", "CHAR(1)", "VARCHAR(10,2)", "CHAR(40)"])
def test_text_at_and_over_the_byte_limit_in_every_array_shape(conn, column):
    rng = random.Random(column)
    for _ in range(3):
        values = _texts(rng, 30)
        for shape, array in _shapes(values).items():
            assert array.to_pylist() == values, shape
            _same(conn, column, values, array)


def _lookalike(rng: random.Random, shift: int) -> str:
    """Text whose bytes hold an SQ_TUPLE header (0x000e, zero flags, a size)."""
    size = rng.choice([0, 2, 4, 6, 8, 12, 20, 255, 256])
    head = b"\x00\x0e\x00\x00" + (struct.pack(">I", size) if rng.random() < 0.5
                                  else struct.pack(">H", size))
    return "a" * (shift % 7) + head.decode("latin-1") + "b" * rng.randint(0, 6)


@pytest.fixture(scope="module")
def lookalikes():
    rng = random.Random(3)
    rows = []
    for i in range(400):
        v = _lookalike(rng, i) if rng.random() < 0.8 else None
        lv = (_lookalike(rng, i + 3) * rng.randint(0, 5))[:200] if rng.random() < 0.8 else None
        w = rng.choice(["", None, "\x0e", "\x00\x0e", "\x00\x0e\x00\x00\x00\x04"])
        rows.append((i, v, rng.choice([True, False, None]), lv, w))
    with EmulatorServer(databases=(DATABASE,)) as srv:
        with ifx.connect(**connect_kw(srv), autocommit=True,
                         client_locale="en_US.8859-1") as c:
            c.cursor().execute("CREATE TABLE h (id INT, v VARCHAR(40), b BOOLEAN, "
                               "l LVARCHAR(200), w VARCHAR(40))")
            c.cursor().executemany("INSERT INTO h VALUES (?, ?, ?, ?, ?)", rows)
        yield srv, rows


SELECTS = {"SELECT * FROM h ORDER BY id": lambda r: r,
           "SELECT v, id FROM h ORDER BY id": lambda r: (r[1], r[0]),
           "SELECT l, b, w FROM h ORDER BY id": lambda r: (r[3], r[2], r[4]),
           "SELECT b, v FROM h ORDER BY id": lambda r: (r[2], r[1])}


@pytest.mark.parametrize("buffer", [64, 256, 1000, 4096, 1 << 20])
def test_tuple_header_lookalikes_through_every_fetch(lookalikes, buffer):
    srv, rows = lookalikes
    with ifx.connect(**connect_kw(srv), autocommit=True, client_locale="en_US.8859-1",
                     fetch_buffer_size=buffer) as c:
        for sql, pick in SELECTS.items():
            want = [pick(r) for r in rows]
            cur = c.cursor()
            cur.execute(sql)
            table = cur.fetch_arrow_table()
            assert list(zip(*[col.to_pylist() for col in table.columns])) == want, sql
            cur.execute(sql)
            got = [cur.fetchone() for _ in range(7)] + cur.fetchmany(33) + cur.fetchall()
            assert got == want, sql
            scroll = c.cursor(scrollable=True)
            scroll.execute(sql)
            scroll.scroll(len(rows) - 1, mode="absolute")
            assert scroll.fetchone() == want[-1]
            scroll.scroll(17, mode="absolute")
            assert scroll.fetchmany(5) == want[17:22]
            scroll.close()
