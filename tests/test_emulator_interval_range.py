"""An INTERVAL the column cannot hold is refused where it would be stored
(issue 11, emulator fidelity; issue 9, nothing silently wrong).

The leading field of INTERVAL DAY(p) TO ... holds p digits, so a value's
magnitude is below 10**p days, negative values alike (IBM Informix Guide to
SQL: Reference, "INTERVAL data type").  The emulator used to store 1000 days
in a DAY(2) TO DAY column and then fail every fetch of it with -999.

Codes (IBM JDBC 15.0.1.0 message catalog, rds_en_US.properties; the closest
documented ones, not observed on a server for these statements): a text
whose first field has too many digits is -1261 "Too many digits in the first
field of datetime or interval"; an INTERVAL value converted to a narrower
qualifier (a bound value, another column, a wider INTERVAL literal) is -1265
"Overflow occurred on a datetime or interval operation".

Also the same class for DECIMAL(p,s) and DATETIME: a value of another type
copied from a column is converted as CAST converts it, so a DECIMAL(5,2)
never keeps 12345.678 (-1226) nor 1.234, and a DATETIME YEAR TO DAY never
keeps '2020-01-02 10:30'.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import informix_db
import pytest

import informix_stream as ifx
from informix_stream.codecs import IntervalYM
from test_driver import connect, unique

pytestmark = pytest.mark.timeout(120)

TEXT_TOO_LONG = -1261
VALUE_OVERFLOW = -1265

D = dt.timedelta
# qualifier, wider qualifier of the same class, largest value, one past it,
# the largest value's literal text
FAMILIES = [
    ("YEAR(2) TO MONTH", "YEAR(4) TO MONTH", IntervalYM(99 * 12 + 11), IntervalYM(100 * 12),
     "99-11", "100-00"),
    ("MONTH TO MONTH", "MONTH(4) TO MONTH", IntervalYM(99), IntervalYM(100), "99", "100"),
    ("DAY(2) TO DAY", "DAY(4) TO DAY", D(days=99), D(days=100), "99", "100"),
    ("DAY(3) TO SECOND", "DAY(5) TO SECOND", D(days=999, seconds=86399), D(days=1000),
     "999 23:59:59", "1000 00:00:00"),
    ("HOUR TO MINUTE", "HOUR(4) TO MINUTE", D(hours=99, minutes=59), D(hours=100),
     "99:59", "100:00"),
    ("SECOND(3) TO FRACTION(3)", "SECOND(5) TO FRACTION(3)", D(seconds=999, microseconds=999000),
     D(seconds=1000), "999.999", "1000.000"),
]
IDS = [f[0] for f in FAMILIES]


def _negative(v):
    return IntervalYM(-v.months) if isinstance(v, IntervalYM) else -v


@pytest.fixture
def cur(ifx_target):
    with connect(ifx_target, autocommit=True) as c:
        yield c.cursor()


def _table(cur, qualifier: str, wide: str) -> tuple[str, str]:
    t, s = unique("ivr"), unique("ivs")
    cur.execute(f"CREATE TABLE {t} (id INTEGER, v INTERVAL {qualifier})")
    cur.execute(f"CREATE TABLE {s} (id INTEGER, w INTERVAL {wide})")
    return t, s


def _values(cur, t: str) -> list:
    cur.execute(f"SELECT v FROM {t} ORDER BY id")
    return [r[0] for r in cur.fetchall()]


def _refused(cur, t: str, code: int, sql: str, params=()) -> None:
    before = _values(cur, t)
    with pytest.raises(ifx.DataError) as info:
        cur.execute(sql, params)
    assert info.value.sqlcode == code
    assert _values(cur, t) == before           # nothing stored, the rows still served


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
@pytest.mark.parametrize("sign", [1, -1], ids=["positive", "negative"])
def test_a_bound_value(cur, family, sign):
    qualifier, wide, top, past, _, _ = family
    t, _ = _table(cur, qualifier, wide)
    pick = (lambda v: v) if sign > 0 else _negative
    cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (pick(top),))
    assert _values(cur, t) == [pick(top)]
    _refused(cur, t, VALUE_OVERFLOW, f"INSERT INTO {t} VALUES (2, ?)", (pick(past),))
    _refused(cur, t, VALUE_OVERFLOW, f"UPDATE {t} SET v = ?", (pick(past),))


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
@pytest.mark.parametrize("sign", ["", "-"], ids=["positive", "negative"])
def test_a_quoted_literal_and_a_cast_of_text(cur, family, sign):
    qualifier, wide, top, _, top_text, past_text = family
    t, _ = _table(cur, qualifier, wide)
    cur.execute(f"INSERT INTO {t} VALUES (1, '{sign}{top_text}')")
    cur.execute(f"INSERT INTO {t} VALUES (2, CAST('{sign}{top_text}' AS INTERVAL {qualifier}))")
    want = top if not sign else _negative(top)
    assert _values(cur, t) == [want, want]
    _refused(cur, t, TEXT_TOO_LONG, f"INSERT INTO {t} VALUES (3, '{sign}{past_text}')")
    _refused(cur, t, TEXT_TOO_LONG,
             f"INSERT INTO {t} VALUES (3, CAST('{sign}{past_text}' AS INTERVAL {qualifier}))")


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_a_wider_interval_literal_and_a_cast_to_a_wider_qualifier(cur, family):
    qualifier, wide, top, _, top_text, past_text = family
    t, _ = _table(cur, qualifier, wide)
    cur.execute(f"INSERT INTO {t} VALUES (1, INTERVAL({top_text}) {wide})")
    cur.execute(f"INSERT INTO {t} VALUES (2, INTERVAL(-{top_text}) {wide})")
    assert _values(cur, t) == [top, _negative(top)]
    _refused(cur, t, VALUE_OVERFLOW, f"INSERT INTO {t} VALUES (3, INTERVAL({past_text}) {wide})")
    _refused(cur, t, VALUE_OVERFLOW,
             f"INSERT INTO {t} VALUES (3, CAST('{past_text}' AS INTERVAL {wide}))")
    # the literal's own qualifier is too narrow: its text is refused
    _refused(cur, t, TEXT_TOO_LONG,
             f"INSERT INTO {t} VALUES (3, INTERVAL({past_text}) {qualifier})")


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_insert_select_and_update_from_a_wider_column(cur, family):
    qualifier, wide, top, past, _, _ = family
    t, s = _table(cur, qualifier, wide)
    cur.execute(f"INSERT INTO {s} VALUES (1, ?)", (top,))
    cur.execute(f"INSERT INTO {s} VALUES (2, ?)", (_negative(top),))
    cur.execute(f"INSERT INTO {t} (id, v) SELECT id, w FROM {s}")
    assert _values(cur, t) == [top, _negative(top)]
    cur.execute(f"INSERT INTO {s} VALUES (3, ?)", (past,))
    _refused(cur, t, VALUE_OVERFLOW, f"INSERT INTO {t} SELECT id, w FROM {s}")
    _refused(cur, t, VALUE_OVERFLOW, f"INSERT INTO {t} SELECT * FROM {s} WHERE id = 3")
    _refused(cur, t, VALUE_OVERFLOW, f"UPDATE {t} SET v = (SELECT w FROM {s} WHERE id = 3)")
    cur.execute(f"UPDATE {s} SET w = ? WHERE id = 3", (_negative(past),))
    _refused(cur, t, VALUE_OVERFLOW,
             f"UPDATE {t} SET v = (SELECT w FROM {s} WHERE id = 3) WHERE id = 1")


def test_interval_arithmetic_in_an_update_is_refused_as_not_supported(cur):
    """DATETIME/INTERVAL arithmetic is not implemented (-9999, the README's
    table); the row keeps its value."""
    t, _ = _table(cur, "DAY(2) TO DAY", "DAY(4) TO DAY")
    cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (D(days=99),))
    with pytest.raises(ifx.NotSupportedError):
        cur.execute(f"UPDATE {t} SET v = v * 2")
    assert _values(cur, t) == [D(days=99)]


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
@pytest.mark.parametrize("autocommit", [True, False])
def test_executemany_stops_at_the_row_that_overflows(ifx_target, family, autocommit):
    qualifier, wide, top, past, _, _ = family
    with connect(ifx_target, autocommit=autocommit) as c:
        cur = c.cursor()
        t, _ = _table(cur, qualifier, wide)
        c.commit()
        rows = [(1, top), (2, _negative(top)), (3, past), (4, top)]
        with pytest.raises(ifx.DataError) as info:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows)
        assert info.value.sqlcode == VALUE_OVERFLOW
        assert info.value.row_index == 2
        # the transaction stays usable, as the server's statement rollback leaves it
        cur.execute(f"INSERT INTO {t} VALUES (5, ?)", (top,))
        c.commit()
        assert _values(cur, t) == [top, _negative(top), top]


def test_a_refused_statement_in_a_transaction_leaves_the_rest(ifx_target):
    with connect(ifx_target, autocommit=False) as c:
        cur = c.cursor()
        t, s = _table(cur, "DAY(2) TO DAY", "DAY(4) TO DAY")
        c.commit()
        cur.execute(f"INSERT INTO {s} VALUES (1, ?)", (D(days=5),))
        cur.execute(f"INSERT INTO {s} VALUES (2, ?)", (D(days=500),))
        cur.execute(f"INSERT INTO {t} VALUES (0, ?)", (D(days=1),))
        with pytest.raises(ifx.DataError) as info:
            cur.execute(f"INSERT INTO {t} SELECT id, w FROM {s}")      # row 2 overflows
        assert info.value.sqlcode == VALUE_OVERFLOW
        cur.execute(f"INSERT INTO {t} VALUES (3, ?)", (D(days=3),))
        c.commit()
        assert _values(cur, t) == [D(days=1), D(days=3)]


def test_a_temp_table_refuses_as_a_permanent_one(cur):
    cur.execute("CREATE TEMP TABLE tmp_ivr (id INTEGER, v INTERVAL DAY(2) TO DAY)")
    cur.execute("INSERT INTO tmp_ivr VALUES (1, INTERVAL(99) DAY(4) TO DAY)")
    for sql in ["INSERT INTO tmp_ivr VALUES (2, INTERVAL(100) DAY(4) TO DAY)",
                "INSERT INTO tmp_ivr VALUES (2, '100')"]:
        with pytest.raises(ifx.DataError):
            cur.execute(sql)
    with pytest.raises(ifx.DataError) as info:
        cur.execute("INSERT INTO tmp_ivr VALUES (2, ?)", (D(days=-100),))
    assert info.value.sqlcode == VALUE_OVERFLOW
    assert _values(cur, "tmp_ivr") == [D(days=99)]


def test_a_field_after_the_first_past_its_range_is_refused(cur):
    """MONTH 0-11, HOUR 0-23, MINUTE/SECOND 0-59 after the first field (IBM
    Guide to SQL: Reference, "INTERVAL data type"); -1263, "A field in a
    datetime or interval value is incorrect" (IBM JDBC message catalog)."""
    t, _ = _table(cur, "YEAR(4) TO MONTH", "YEAR(5) TO MONTH")
    _refused(cur, t, -1263, f"INSERT INTO {t} VALUES (1, '1-12')")
    t, _ = _table(cur, "DAY(3) TO SECOND", "DAY(5) TO SECOND")
    _refused(cur, t, -1263, f"INSERT INTO {t} VALUES (1, '1 24:00:00')")
    _refused(cur, t, -1263, f"INSERT INTO {t} VALUES (1, '1 23:60:00')")


def test_a_finer_value_is_cut_to_the_columns_last_field(cur):
    """A DAY TO DAY column keeps whole days, so what it compares is what it
    serves: 36 hours is kept as 1 day (it used to be kept as 1.5 days, read
    back as 1 and matching no ``= INTERVAL(1) DAY TO DAY``)."""
    t, s = _table(cur, "DAY(2) TO DAY", "HOUR(4) TO HOUR")
    cur.execute(f"INSERT INTO {s} VALUES (1, '36')")
    cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (D(hours=36),))
    cur.execute(f"INSERT INTO {t} VALUES (2, INTERVAL(-36) HOUR(4) TO HOUR)")
    cur.execute(f"INSERT INTO {t} SELECT 3, w FROM {s}")
    assert _values(cur, t) == [D(days=1), D(days=-1), D(days=1)]
    cur.execute(f"SELECT COUNT(*) FROM {t} WHERE v = INTERVAL(1) DAY TO DAY")
    assert cur.fetchone() == (2,)


# -- DECIMAL and DATETIME: the same class of bug ------------------------------------

@pytest.mark.parametrize("temp", [True, False])
def test_a_decimal_copied_from_a_wider_column_is_rounded_and_range_checked(cur, temp):
    """-1226 "Decimal or money value exceeds maximum precision" (IBM JDBC
    message catalog), as a bound value gets; a kept 1.234 in a DECIMAL(5,2)
    read back as 1.23 but matched no ``= 1.23``."""
    t, s = unique("dcr"), unique("dcs")
    cur.execute(f"CREATE {'TEMP ' if temp else ''}TABLE {t} (id INTEGER, v DECIMAL(5,2))")
    cur.execute(f"CREATE TABLE {s} (id INTEGER, w DECIMAL(10,3), n INTEGER)")
    for row in [(1, Decimal("999.994"), 999), (2, Decimal("-1.234"), 1),
                (3, Decimal("12345.678"), 100000), (4, Decimal("999.995"), 1)]:
        cur.execute(f"INSERT INTO {s} VALUES (?, ?, ?)", row)
    cur.execute(f"INSERT INTO {t} SELECT id, w FROM {s} WHERE id <= 2")
    assert _values(cur, t) == [Decimal("999.99"), Decimal("-1.23")]
    cur.execute(f"SELECT COUNT(*) FROM {t} WHERE v = -1.23")
    assert cur.fetchone() == (1,)
    for where in ("id = 3", "id = 4"):
        with pytest.raises(ifx.DataError) as info:
            cur.execute(f"INSERT INTO {t} SELECT id, w FROM {s} WHERE {where}")
        assert info.value.sqlcode == -1226
        with pytest.raises(ifx.DataError) as info:
            cur.execute(f"UPDATE {t} SET v = (SELECT w FROM {s} WHERE {where})")
        assert info.value.sqlcode == -1226
    with pytest.raises(ifx.DataError) as info:
        cur.execute(f"INSERT INTO {t} SELECT id, n FROM {s} WHERE id = 3")
    assert info.value.sqlcode == -1226
    with pytest.raises(ifx.DataError) as info:
        cur.execute(f"UPDATE {t} SET v = v * 1000")
    assert info.value.sqlcode == -1226
    assert _values(cur, t) == [Decimal("999.99"), Decimal("-1.23")]


def test_a_decimal_executemany_stops_at_the_overflowing_row(cur):
    t = unique("dce")
    cur.execute(f"CREATE TABLE {t} (id INTEGER, v DECIMAL(5,2))")
    rows = [(1, Decimal("999.99")), (2, Decimal("-999.99")), (3, Decimal("12345.678")),
            (4, Decimal("1"))]
    with pytest.raises(ifx.DataError) as info:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows)
    assert info.value.sqlcode == -1226 and info.value.row_index == 2
    assert _values(cur, t) == [Decimal("999.99"), Decimal("-999.99")]


@pytest.mark.parametrize("temp", [True, False])
def test_a_datetime_of_another_qualifier_is_converted_to_the_columns(cur, temp):
    """A YEAR TO MINUTE value stored in a YEAR TO DAY column kept its time
    and failed every fetch (-999) or was refused as a syntax error (-201)."""
    t, s = unique("dtr"), unique("dts")
    cur.execute(f"CREATE {'TEMP ' if temp else ''}TABLE {t} (id INTEGER, d DATETIME YEAR TO DAY)")
    cur.execute(f"CREATE TABLE {s} (id INTEGER, e DATETIME YEAR TO MINUTE)")
    cur.execute(f"INSERT INTO {s} VALUES (1, '2020-01-02 10:30')")
    cur.execute(f"INSERT INTO {t} VALUES (1, DATETIME(2020-01-02 10:30) YEAR TO MINUTE)")
    cur.execute(f"INSERT INTO {t} SELECT 2, e FROM {s}")
    cur.execute(f"UPDATE {t} SET d = (SELECT e FROM {s}) WHERE id = 1")
    cur.execute(f"SELECT d FROM {t} ORDER BY id")
    assert cur.fetchall() == [(dt.date(2020, 1, 2),), (dt.date(2020, 1, 2),)]


# -- informix-driver as the client ----------------------------------------------------

def test_informix_driver_gets_the_same_refusal(ifx_target, cur):
    t, _ = _table(cur, "DAY(2) TO DAY", "DAY(4) TO DAY")
    c = informix_db.connect(host=ifx_target.host, port=ifx_target.port, user=ifx_target.user,
                            password=ifx_target.password, database=ifx_target.database,
                            server=ifx_target.server, autocommit=True, read_timeout=30,
                            connect_timeout=30)
    try:
        k = c.cursor()
        k.execute(f"INSERT INTO {t} VALUES (1, '99')")
        with pytest.raises(informix_db.Error) as info:
            k.execute(f"INSERT INTO {t} VALUES (2, '100')")
        assert str(TEXT_TOO_LONG) in str(info.value)
        with pytest.raises(informix_db.Error) as info:
            k.execute(f"INSERT INTO {t} VALUES (2, INTERVAL(100) DAY(4) TO DAY)")
        assert str(VALUE_OVERFLOW) in str(info.value)
        k.execute(f"SELECT v FROM {t}")
        assert [tuple(r) for r in k.fetchall()] == [(D(days=99),)]
    finally:
        c.close()
