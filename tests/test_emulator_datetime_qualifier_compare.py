"""Comparisons between DATETIME values of different qualifiers.

The emulator stores a DATETIME as its literal text, so SQLite compared
``s = DATETIME(2024-05-06) YEAR TO DAY`` (s YEAR TO SECOND) as
'2024-05-06 00:00:00' against '2024-05-06': never equal, and 0 rows where the
server returns the row.  For DATETIME values "greater than means later in
time" (IBM Informix Guide to SQL: Syntax, "Relational Operator",
ids_sqs_1621); a value of fewer trailing fields is the instant its missing
HOUR..FRACTION fields set to zero (Guide to SQL: Syntax, "EXTEND Function",
ids_sqs_1540; Guide to SQL: Reference, "Manipulating DATETIME values",
ids_sqr_154).  Shapes the documentation leaves open (qualifiers of another
first field, a missing MONTH or DAY) are refused.

Every expectation is computed in Python from the instants the values stand
for, and each case asserts the exact ids it selects.
"""

from __future__ import annotations

import datetime as dt
import operator
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import informix_stream
from informix_stream.errors import NotSupportedError
from test_driver import connect

DAY = dt.date(2024, 5, 6)
OPS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "<>": operator.ne, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge}
# Instants held by the rows (id -> instant); each column keeps what its
# qualifier holds of the instant.
INSTANTS = {
    1: dt.datetime(2024, 5, 6, 0, 0, 0),
    2: dt.datetime(2024, 5, 6, 10, 30, 0),
    3: dt.datetime(2024, 5, 6, 10, 30, 15, 250000),
    4: dt.datetime(2024, 5, 5, 23, 59, 59, 999000),
    5: dt.datetime(2024, 5, 7, 0, 0, 0),
}
# column -> (qualifier, how many leading characters of the instant's
# 'YYYY-MM-DD hh:mm:ss.ffffff' text it keeps)
COLUMNS = {"d": ("YEAR TO DAY", 10), "m": ("YEAR TO MINUTE", 16),
           "s": ("YEAR TO SECOND", 19), "f": ("YEAR TO FRACTION(3)", 23)}


def held(instant: dt.datetime, column: str) -> dt.datetime:
    """The instant a column of that qualifier holds: later fields zero."""
    keep = COLUMNS[column][1]
    text = instant.isoformat(" ", "microseconds")[:keep]
    full = "0000-01-01 00:00:00.000000"
    return dt.datetime.fromisoformat(text + full[keep:])


def literal(instant: dt.datetime, column: str) -> str:
    """A DATETIME literal of that column's qualifier for the instant."""
    qual, keep = COLUMNS[column]
    return f"DATETIME({instant.isoformat(' ', 'microseconds')[:keep]}) {qual}"


@pytest.fixture(scope="module")
def conn(ifx_target: Any) -> Iterator[informix_stream.Connection]:
    if ifx_target.kind != "emulator":
        pytest.skip("the matrix is the emulator's; a real server is its reference")
    with connect(ifx_target, autocommit=True) as c:
        yield c


@pytest.fixture(scope="module")
def table(conn: informix_stream.Connection) -> Iterator[str]:
    name = f"t_dq_{uuid.uuid4().hex[:8]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {name} (id INT, d DATETIME YEAR TO DAY, "
                "m DATETIME YEAR TO MINUTE, s DATETIME YEAR TO SECOND, "
                "f DATETIME YEAR TO FRACTION(3), ym DATETIME YEAR TO MONTH, "
                "hs DATETIME HOUR TO SECOND)")
    for k, instant in INSTANTS.items():
        cur.execute(f"INSERT INTO {name} VALUES ({k}, {literal(instant, 'd')}, "
                    f"{literal(instant, 'm')}, {literal(instant, 's')}, "
                    f"{literal(instant, 'f')}, DATETIME(2024-05) YEAR TO MONTH, "
                    "DATETIME(10:30:00) HOUR TO SECOND)")
    yield name
    cur.execute(f"DROP TABLE {name}")


def ids(conn: informix_stream.Connection, sql: str, params: tuple = ()) -> list[int]:
    cur = conn.cursor()
    cur.execute(sql, params or None)
    return sorted(r[0] for r in cur.fetchall())


def want(column: str, op: str, other: dt.datetime) -> list[int]:
    return sorted(k for k, v in INSTANTS.items() if OPS[op](held(v, column), other))


POINTS = [dt.datetime(2024, 5, 6), dt.datetime(2024, 5, 6, 10, 30),
          dt.datetime(2024, 5, 6, 10, 30, 15, 250000), dt.datetime(2024, 5, 5, 23, 59, 59)]


@pytest.mark.parametrize("column", list(COLUMNS))
@pytest.mark.parametrize("op", list(OPS))
def test_column_against_literals_of_every_qualifier(conn, table, column, op):
    for point in POINTS:
        for other in COLUMNS:
            value = held(point, other)
            lit = literal(point, other)
            sql = f"SELECT id FROM {table} WHERE {column} {op} {lit}"
            assert ids(conn, sql) == want(column, op, value), sql
            mirrored = f"SELECT id FROM {table} WHERE {lit} {op} {column}"
            assert ids(conn, mirrored) == sorted(
                k for k, v in INSTANTS.items() if OPS[op](value, held(v, column))), mirrored


@pytest.mark.parametrize("column", list(COLUMNS))
@pytest.mark.parametrize("op", list(OPS))
def test_column_against_bound_parameters(conn, table, column, op):
    for point in POINTS:
        # a datetime is bound as DATETIME YEAR TO SECOND / FRACTION(5), a
        # date as DATE: the column's value is compared with all of it
        sql = f"SELECT id FROM {table} WHERE {column} {op} ?"
        assert ids(conn, sql, (point,)) == want(column, op, point), (sql, point)
        day = point.date()
        assert ids(conn, sql, (day,)) == want(column, op, dt.datetime.combine(day, dt.time())), \
            (sql, day)
        cast = f"SELECT id FROM {table} WHERE {column} {op} CAST(? AS DATETIME YEAR TO MINUTE)"
        assert ids(conn, cast, (point,)) == want(column, op, held(point, "m")), (cast, point)


@pytest.mark.parametrize("left,right", [(a, b) for a in COLUMNS for b in COLUMNS if a != b])
@pytest.mark.parametrize("op", list(OPS))
def test_columns_of_two_qualifiers(conn, table, left, right, op):
    got = ids(conn, f"SELECT id FROM {table} WHERE {left} {op} {right}")
    assert got == sorted(k for k, v in INSTANTS.items()
                         if OPS[op](held(v, left), held(v, right)))


def test_between_and_in(conn, table):
    lo, hi = literal(POINTS[0], "d"), literal(POINTS[1], "m")
    assert ids(conn, f"SELECT id FROM {table} WHERE s BETWEEN {lo} AND {hi}") == [1, 2]
    assert ids(conn, f"SELECT id FROM {table} WHERE f NOT BETWEEN {lo} AND {hi}") == [3, 4, 5]
    assert ids(conn, f"SELECT id FROM {table} WHERE d BETWEEN {lo} AND ?",
               (POINTS[1],)) == [1, 2, 3]
    assert ids(conn, f"SELECT id FROM {table} WHERE s BETWEEN m AND f") == [1, 2, 3, 4, 5]
    assert ids(conn, f"SELECT id FROM {table} WHERE f BETWEEN d AND s") == [1, 2, 5]
    assert ids(conn, f"SELECT id FROM {table} WHERE s IN ({lo}, {hi})") == [1, 2]
    assert ids(conn, f"SELECT id FROM {table} WHERE s NOT IN ({lo}, {hi})") == [3, 4, 5]
    assert ids(conn, f"SELECT id FROM {table} WHERE d IN (?, ?)",
               (POINTS[0], POINTS[1])) == [1, 2, 3]
    assert ids(conn, f"SELECT id FROM {table} WHERE f IN (SELECT d FROM {table})") == [1, 5]


def test_join_having_and_case(conn, table):
    other = f"t_dq2_{uuid.uuid4().hex[:8]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {other} (k INT, day DATETIME YEAR TO DAY)")
    try:
        cur.execute(f"INSERT INTO {other} VALUES (1, DATETIME(2024-05-06) YEAR TO DAY)")
        cur.execute(f"INSERT INTO {other} VALUES (2, DATETIME(2024-05-07) YEAR TO DAY)")
        cur.execute(f"SELECT t.id, o.k FROM {table} t JOIN {other} o ON t.s = o.day "
                    "ORDER BY 1")
        assert cur.fetchall() == [(1, 1), (5, 2)]
        cur.execute(f"SELECT t.id FROM {table} t LEFT JOIN {other} o ON o.day = t.f "
                    "WHERE o.k IS NULL ORDER BY 1")
        assert cur.fetchall() == [(2,), (3,), (4,)]
        cur.execute(f"SELECT id, CASE WHEN s = d THEN 'midnight' WHEN s > d THEN 'later' "
                    f"ELSE 'earlier' END FROM {table} ORDER BY 1")
        assert [(k, v.rstrip()) for k, v in cur.fetchall()] == [
            (1, "midnight"), (2, "later"), (3, "later"), (4, "later"), (5, "midnight")]
        cur.execute(f"SELECT d FROM {table} GROUP BY d HAVING MAX(s) = "
                    "DATETIME(2024-05-07) YEAR TO DAY ORDER BY 1")
        assert cur.fetchall() == [(dt.date(2024, 5, 7),)]
        cur.execute(f"SELECT d FROM {table} GROUP BY d HAVING MIN(f) = d ORDER BY 1")
        assert cur.fetchall() == [(dt.date(2024, 5, 6),), (dt.date(2024, 5, 7),)]
    finally:
        cur.execute(f"DROP TABLE {other}")


def test_current_of_other_qualifiers(conn):
    """Rows placed around now: today at midnight in YEAR TO SECOND and
    FRACTION(3) columns equals CURRENT YEAR TO DAY; a day before and after
    are earlier and later than CURRENT of any qualifier."""
    name = f"t_dqc_{uuid.uuid4().hex[:8]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {name} (id INT, s DATETIME YEAR TO SECOND, "
                "f DATETIME YEAR TO FRACTION(3), d DATETIME YEAR TO DAY)")
    try:
        today = dt.datetime.combine(dt.date.today(), dt.time())
        for k, when in ((1, today - dt.timedelta(days=1)), (2, today),
                        (3, today + dt.timedelta(days=2))):
            cur.execute(f"INSERT INTO {name} VALUES (?, ?, ?, ?)", (k, when, when, when.date()))
        for col in ("s", "f"):
            assert ids(conn, f"SELECT id FROM {name} WHERE {col} = CURRENT YEAR TO DAY") == [2]
            assert ids(conn, f"SELECT id FROM {name} WHERE {col} >= CURRENT YEAR TO DAY") \
                == [2, 3]
            assert ids(conn, f"SELECT id FROM {name} WHERE {col} < CURRENT YEAR TO DAY") == [1]
        for cur_q in ("", " YEAR TO SECOND", " YEAR TO FRACTION(3)", " YEAR TO MINUTE"):
            for col in ("s", "f", "d"):
                assert ids(conn, f"SELECT id FROM {name} WHERE {col} < CURRENT{cur_q}") \
                    in ([1, 2], [1]), (col, cur_q)   # [1] only at midnight itself
                assert ids(conn, f"SELECT id FROM {name} WHERE {col} > CURRENT{cur_q}") == [3]
        assert ids(conn, f"SELECT id FROM {name} WHERE CURRENT YEAR TO DAY = s") == [2]
        assert ids(conn, f"SELECT id FROM {name} WHERE CURRENT YEAR TO DAY = d") == [2]
    finally:
        cur.execute(f"DROP TABLE {name}")


@pytest.mark.parametrize("sql", [
    # another first field: the documentation fills it from CURRENT for
    # EXTEND and subtraction, but does not say a comparison does
    "hs = s",
    "s > DATETIME(10:30:00) HOUR TO SECOND",
    # a missing MONTH or DAY: EXTEND fills 1, a plain extension 0
    "ym = d",
    "d > DATETIME(2024-05) YEAR TO MONTH",
    "ym IN (d, s)",
])
def test_unsettled_shapes_are_refused(conn, table, sql):
    with pytest.raises(NotSupportedError, match="not supported by the emulator"):
        ids(conn, f"SELECT id FROM {table} WHERE {sql}")


@pytest.mark.parametrize("column,value", [
    ("hs", dt.datetime(2024, 5, 6, 10, 30)),     # a datetime against HOUR TO SECOND
    ("s", dt.time(10, 30)),                       # a time against YEAR TO SECOND
    ("ym", dt.datetime(2024, 5, 6, 10, 30)),      # a datetime against YEAR TO MONTH
    ("ym", dt.date(2024, 5, 6)),                  # a DATE against YEAR TO MONTH
])
def test_unsettled_bound_parameters_are_refused(conn, table, column, value):
    with pytest.raises(NotSupportedError, match="not supported by the emulator"):
        ids(conn, f"SELECT id FROM {table} WHERE {column} = ?", (value,))


def test_same_qualifier_still_compares(conn, table):
    assert ids(conn, f"SELECT id FROM {table} WHERE ym = DATETIME(2024-05) YEAR TO MONTH") \
        == [1, 2, 3, 4, 5]
    assert ids(conn, f"SELECT id FROM {table} WHERE hs = DATETIME(10:30:00) HOUR TO SECOND") \
        == [1, 2, 3, 4, 5]
    assert ids(conn, f"SELECT id FROM {table} WHERE hs = ?", (dt.time(10, 30),)) \
        == [1, 2, 3, 4, 5]
