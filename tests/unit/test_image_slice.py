"""A projection served by cutting cells out of stored row images
(emulator/image_slice.py) must be byte for byte what the reference path
makes: the stored values read back (values.row_converter) and encoded
(codec.make_tuple_encoder).  Hypothesis rows with NULLs, DECIMAL precision
and scale edges, DATETIME qualifiers, text of every length."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from informix_stream.codecs import make_tuple_encoder
from informix_stream.emulator.engine import Engine
from informix_stream.emulator.values import row_converter

COLUMNS = [
    ("a_int", "INTEGER", st.integers(-2**31 + 1, 2**31 - 1)),
    ("b_text", "VARCHAR(12)", st.text(st.characters(min_codepoint=32, max_codepoint=255),
                                      max_size=12)),
    ("c_dec", "DECIMAL(12,2)", st.decimals(min_value=-10**10 + 1, max_value=10**10 - 1,
                                           places=2, allow_nan=False)),
    ("d_wide", "DECIMAL(32,6)", st.decimals(min_value=-10**26 + 1, max_value=10**26 - 1,
                                            places=6, allow_nan=False)),
    ("e_float_dec", "DECIMAL(8)", st.decimals(min_value=-10**6, max_value=10**6, places=3,
                                              allow_nan=False)),
    ("f_money", "MONEY(16,2)", st.decimals(min_value=-10**13, max_value=10**13, places=2,
                                           allow_nan=False)),
    ("g_dt", "DATETIME YEAR TO SECOND",
     st.datetimes(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59)).map(
         lambda v: v.replace(microsecond=0))),
    ("h_frac", "DATETIME YEAR TO FRACTION(5)",
     st.datetimes(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59)).map(
         lambda v: v.replace(microsecond=v.microsecond // 10 * 10))),
    ("i_hm", "DATETIME HOUR TO MINUTE", st.times().map(lambda v: v.replace(second=0,
                                                                             microsecond=0))),
    ("j_day", "DATE", st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31))),
    ("k_note", "VARCHAR(64)", st.text(st.characters(min_codepoint=32, max_codepoint=255),
                                      max_size=64)),
    ("l_char", "CHAR(5)", st.text(st.characters(min_codepoint=33, max_codepoint=126),
                                  max_size=5)),
    ("m_small", "SMALLINT", st.integers(-32767, 32767)),
    ("n_big", "BIGINT", st.integers(-2**63 + 1, 2**63 - 1)),
    ("o_float", "FLOAT", st.floats(allow_nan=False, allow_infinity=False)),
    ("p_ivl", "INTERVAL DAY(5) TO SECOND",
     st.timedeltas(dt.timedelta(days=-99999), dt.timedelta(days=99999)).map(
         lambda v: dt.timedelta(seconds=int(v.total_seconds())))),
    ("q_int8", "INT8", st.integers(-2**63 + 1, 2**63 - 1)),
]
NAMES = [c[0] for c in COLUMNS]
ROW = st.tuples(*[st.one_of(st.none(), strat) for _, _, strat in COLUMNS])
PICKS = st.lists(st.sampled_from(NAMES), min_size=1, max_size=8)


@pytest.fixture(scope="module")
def session():
    engine = Engine(["testdb"])
    s = engine.connect("testdb")
    s.execute(s.prepare("CREATE TABLE t ("
                        + ", ".join(f"{n} {t}" for n, t, _ in COLUMNS) + ")"))
    yield s
    engine.close()


def served(s, sql: str) -> tuple[object, list[bytes]]:
    stmt = s.prepare(sql)
    source = s.open_cursor(stmt)
    out: list[bytes] = []
    while batch := source.fetch(100):
        out += batch
    return stmt, out if source.encoded else None


def reference(s, stmt, names: list[str]) -> list[bytes]:
    """The values stored, read back and encoded: the path a projection took
    before it was served from images."""
    rows = s._conn.execute(f"SELECT {', '.join(names)} FROM t").fetchall()
    convert = row_converter(stmt.columns)
    values = convert(rows) if convert is not None else rows
    encode = make_tuple_encoder([c.type for c in stmt.columns], s.database.codec)
    return [encode(v) for v in values]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(ROW, min_size=1, max_size=6), picks=st.lists(PICKS, min_size=1, max_size=4))
def test_projection_cells_equal_the_encoded_values(session, rows, picks):
    s = session
    s.execute(s.prepare("DELETE FROM t"))
    insert = s.prepare(f"INSERT INTO t VALUES ({', '.join('?' * len(COLUMNS))})")
    for row in rows:
        s.execute(insert, list(row))
    for names in picks:
        stmt, fast = served(s, f"SELECT {', '.join(names)} FROM t")
        assert stmt.translation.image_cells is not None, names
        assert fast == reference(s, stmt, names)


def test_whole_rows_and_expressions_keep_their_paths(session):
    s = session
    stmt = s.prepare("SELECT * FROM t")
    assert stmt.translation.encoded and stmt.translation.image_cells is None
    for sql in ("SELECT a_int + 1 FROM t", "SELECT DISTINCT a_int FROM t",
                "SELECT a_int AS x FROM t", "SELECT COUNT(*) FROM t",
                "SELECT a_int FROM t ORDER BY 1"):
        assert not s.prepare(sql).translation.encoded, sql


def test_projection_with_where_order_and_update(session):
    """Rows come from the images kept current by UPDATE; WHERE and ORDER BY
    by name still read the values."""
    s = session
    s.execute(s.prepare("DELETE FROM t"))
    insert = s.prepare("INSERT INTO t (a_int, c_dec, b_text, g_dt) VALUES (?, ?, ?, ?)")
    for i in range(5):
        s.execute(insert, [i, Decimal(i) / 4, "x" * i, dt.datetime(2020, 1, 1 + i, 8)])
    s.execute(s.prepare("UPDATE t SET c_dec = c_dec * 2, b_text = 'long text' WHERE a_int = 3"))
    names = ["g_dt", "c_dec", "b_text", "a_int"]
    stmt, fast = served(s, "SELECT g_dt, c_dec, b_text, a_int FROM t WHERE a_int > 1 "
                           "ORDER BY a_int DESC")
    assert stmt.translation.image_cells is not None
    rows = s._conn.execute("SELECT g_dt, c_dec, b_text, a_int FROM t WHERE a_int > 1 "
                           "ORDER BY a_int DESC").fetchall()
    encode = make_tuple_encoder([c.type for c in stmt.columns])
    assert fast == [encode(v) for v in row_converter(stmt.columns)(rows)]
    assert len(fast) == 3 and names
