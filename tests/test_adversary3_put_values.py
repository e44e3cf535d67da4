"""Adversary: one value, three ways in -- the insert cursor's row images
(``executemany(..., insert_cursor=True)``: codec/colencode.py column-wise,
falling back per row to ``insert_cursor.InsertCursor.item``), the prepared
BIND path (``cur.execute(insert, params)``) and informix-driver -- must
store the same thing or refuse alike.  Never a silent rounding one path
does and another refuses.

Found here: a DECIMAL value below Informix's exponent range (1E-200) in a
floating ``DECIMAL(p)`` column was stored as 0 through the insert cursor
(the row encoder's ``fit_decimal`` let its context underflow to zero) where
the bind path refuses it with DataError.
"""

from __future__ import annotations

import decimal
from decimal import Decimal as D

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import informix_stream as ifx
from faults.emu import PASSWORD, USER
from informix_stream.emulator import EmulatorServer

informix_db = pytest.importorskip("informix_db", reason="informix-driver is the second judge")

pytestmark = pytest.mark.timeout(300)

EDGES = [D("NaN"), D("sNaN"), D("Infinity"), D("-Infinity"), D("-0"), D("-0.00"), D("0E+5"),
         D("0E-50"), D("1E+200"), D("1E-200"), D("-1E-200"), D("1E-140"), D("-1E-135"),
         D("123.455"), D("-123.455"), D("999.995"), D("-999.99"), D("-0.01"), D("-100.5"),
         D("0.001"), D("-0.001"), D("1E+125"), D("1E+130"), D("1234567890123"),
         D("-1234567890.5"), D("12345678901234567890123456789.123"),
         D("-12345678901234567890123456789.1235"), D("9.5"), D("-9.5")]
COLUMNS = ["DECIMAL(5,2)", "DECIMAL(32,3)", "DECIMAL(32,31)", "DECIMAL(10)", "DECIMAL(16)",
           "MONEY(8,2)", "DECIMAL(1,0)", "DECIMAL(2,1)"]


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases={"u8": "en_US.utf8"}) as srv:
        yield srv


def _connect(server) -> ifx.Connection:
    return ifx.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD,
                       database="u8", autocommit=True, read_timeout=60, connect_timeout=10)


def _idb(server):
    return informix_db.connect(host="127.0.0.1", port=server.port, user=USER,
                               password=PASSWORD, database="u8", server="informix",
                               autocommit=True, read_timeout=60, connect_timeout=10)


_TABLES = iter(range(10**6))


def _table(cur, column: str) -> str:
    name = f"pv{next(_TABLES)}"
    cur.execute(f"CREATE TABLE {name} (k INT, v {column})")
    return name


def _stored(cur, table: str, count: int, errors: set[int]) -> list:
    """Per row: its stored value, or "ERR" where the path refused it."""
    cur.execute(f"SELECT k, v FROM {table}")
    got = dict(cur.fetchall())
    assert not errors & set(got), "a row both refused and stored"
    return ["ERR" if i in errors else got.get(i, "MISSING") for i in range(count)]


def by_put(cur, column: str, values: list) -> list:
    """Through the insert cursor, resuming after each row the driver refuses
    (README: rows[:e.row_index] landed, rows[e.row_index:] is what to retry)."""
    table, errors, start = _table(cur, column), set(), 0
    rows = list(enumerate(values))
    while start < len(rows):
        try:
            cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows[start:],
                            insert_cursor=True, batch_errors=True)
        except ifx.DataError as exc:
            errors |= {start + e.row_index for e in cur.batch_errors or ()}
            errors.add(start + exc.row_index)
            start += exc.row_index + 1
            continue
        errors |= {start + e.row_index for e in cur.batch_errors}
        break
    return _stored(cur, table, len(values), errors)


def by_bind(cur, column: str, values: list) -> list:
    table, errors = _table(cur, column), set()
    for i, v in enumerate(values):
        try:
            cur.execute(f"INSERT INTO {table} VALUES (?, ?)", (i, v))
        except ifx.DataError:
            errors.add(i)
    return _stored(cur, table, len(values), errors)


def by_informix_db(server, cur, column: str, values: list) -> list:
    table, errors = _table(cur, column), set()
    with _idb(server) as conn:
        other = conn.cursor()
        for i, v in enumerate(values):
            try:
                other.execute(f"INSERT INTO {table} VALUES (?, ?)", (i, v))
            except Exception:  # noqa: BLE001 - its refusals are its own types
                errors.add(i)
    return _stored(cur, table, len(values), errors)


@pytest.mark.parametrize("column", COLUMNS)
def test_decimal_edges_store_alike_on_put_and_bind(server, column):
    with _connect(server) as conn:
        cur = conn.cursor()
        put, bind = by_put(cur, column, EDGES), by_bind(cur, column, EDGES)
        for value, p, b in zip(EDGES, put, bind):
            assert (value, p) == (value, b)
            if isinstance(p, D):
                assert str(p) == str(b)


@pytest.mark.parametrize("column", COLUMNS)
def test_what_informix_driver_stores_our_paths_store_too(server, column):
    """informix-driver (verified against real servers) stores a value in
    range the way our paths do.  Where it stores something for a value our
    paths refuse, it is out of the wire format's range (its encoder wraps
    the exponent: 1E+200 lands as 0 or 1E-56, a bug of its own) or has
    more than 32 digits (it lets the server round; we refuse client-side)."""
    with _connect(server) as conn:
        cur = conn.cursor()
        ours, theirs = by_put(cur, column, EDGES), by_informix_db(server, cur, column, EDGES)
        for value, o, t in zip(EDGES, ours, theirs):
            if o == "ERR" and t != "ERR":
                assert value.is_finite() and (abs(value.adjusted()) > 125
                                              or len(value.as_tuple().digits) > 32), value
            elif t != "ERR":
                assert (value, o) == (value, t)


def model(value: D | None, precision: int, scale: int) -> object:
    """Informix's assignment to DECIMAL(p,s): round half up at the scale,
    refused (-1226) when more than p digits remain."""
    if value is None:
        return None
    q = value.quantize(D(1).scaleb(-scale), rounding=decimal.ROUND_HALF_UP,
                       context=decimal.Context(prec=200))
    if not q:
        return q.copy_abs()                 # Informix has no negative zero
    return "ERR" if q.adjusted() + 1 > precision - scale else q


@st.composite
def decimals_for(draw, precision: int, scale: int) -> D | None:
    if draw(st.integers(0, 19)) == 0:
        return None
    digits = draw(st.integers(1, precision))
    mantissa = draw(st.integers(-(10 ** digits - 1), 10 ** digits - 1))
    exponent = draw(st.integers(-scale - 3, precision - scale - digits + 1))
    return D(mantissa).scaleb(exponent)


@pytest.mark.parametrize("precision,scale", [(32, 31), (32, 1), (31, 0), (2, 1), (16, 5),
                                             (9, 3), (5, 5)])
def test_random_decimals_match_the_model_on_both_paths(server, precision, scale):
    """Negative and positive DECIMAL/MONEY values of every length, some
    needing rounding, some too wide: a batch of them through the insert
    cursor, each through bind, both against ``model``."""
    column = f"DECIMAL({precision},{scale})"

    @settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(decimals_for(precision, scale), min_size=1, max_size=400))
    def run(values):
        with _connect(server) as conn:
            cur = conn.cursor()
            expected = [model(v, precision, scale) for v in values]
            put = by_put(cur, column, values)
            assert put == expected
            assert [str(p) for p in put] == [str(e) for e in expected]
            sample = values[:40]
            assert by_bind(cur, column, sample) == expected[:40]
    run()
