"""A bound value compared with a DATETIME that is not a column.

A ``?`` beside a column is written in the column's qualifier
(datetime_compare.compared_datetime).  A ``?`` beside CURRENT or a DATETIME
literal was written by the generic writer: Python's text with six fraction
digits, compared as text with the other side's own text, so
``DATETIME(2024-05-06 10:30) YEAR TO MINUTE = ?`` bound with 10:30 compared
'2024-05-06 10:30' with '2024-05-06 10:30:00.000000' and found no row.  For
DATETIME values greater means later in time (IBM Informix Guide to SQL:
Syntax, "Relational Operator", ids_sqs_1621), a value's missing trailing
fields being zero (Guide to SQL: Reference, "Manipulating DATETIME values",
ids_sqr_154).  Where the other side's qualifier cannot be known the emulator
refuses rather than compare texts.

The table holds one row; each case asserts whether ``SELECT 1 ... WHERE
<cond>`` returns it, the expectation computed in Python from the instants.
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
import test_emulator_datetime_qualifier_compare as qualifier_tests

OPS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge}
MIRROR = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
# (literal, the instant it stands for, the smallest step of its qualifier)
LITERALS = [
    ("DATETIME(2024-05-06 10:30) YEAR TO MINUTE", dt.datetime(2024, 5, 6, 10, 30),
     dt.timedelta(minutes=1)),
    ("DATETIME(2024-05-06 10:30:15) YEAR TO SECOND", dt.datetime(2024, 5, 6, 10, 30, 15),
     dt.timedelta(seconds=1)),
    ("DATETIME(2024-05-06 10:30:00.000) YEAR TO FRACTION(3)", dt.datetime(2024, 5, 6, 10, 30),
     dt.timedelta(milliseconds=1)),
    ("DATETIME(2024-05-06) YEAR TO DAY", dt.datetime(2024, 5, 6), dt.timedelta(days=1)),
]
TINY = dt.timedelta(microseconds=10)     # within FRACTION(5), below any qualifier's step
conn = qualifier_tests.conn                 # its connection fixture (the emulator's only)


@pytest.fixture(scope="module")
def table(conn: informix_stream.Connection) -> Iterator[str]:
    name = f"t_dpc_{uuid.uuid4().hex[:8]}"
    cur = conn.cursor()
    # a column named like a qualifier's last field: CURRENT YEAR TO DAY = ?
    # must not type the ? by it
    cur.execute(f"CREATE TABLE {name} (id INT, ts DATETIME YEAR TO SECOND, day INT)")
    cur.execute(f"INSERT INTO {name} VALUES (1, DATETIME(2024-05-06 10:30:00) YEAR TO SECOND, "
                "5)")
    yield name
    cur.execute(f"DROP TABLE {name}")


def hit(conn: informix_stream.Connection, table: str, cond: str, params: tuple) -> bool:
    """Does ``SELECT 1 FROM table WHERE cond`` return the table's one row?"""
    cur = conn.cursor()
    cur.execute(f"SELECT 1 FROM {table} WHERE {cond}", params)
    rows = cur.fetchall()
    assert rows in ([], [(1,)]), rows
    return bool(rows)


@pytest.mark.parametrize("lit,instant,step", LITERALS, ids=[x[0].split()[-1] for x in LITERALS])
@pytest.mark.parametrize("op", list(OPS))
def test_literal_against_bound_datetime(conn, table, lit, instant, step, op):
    """Equal, a step below and above, and a hair below and above (the bound
    value's fields past the literal's last one are not zero)."""
    for value in (instant, instant - step, instant + step, instant - TINY, instant + TINY):
        want = OPS[op](instant, value)
        assert hit(conn, table, f"{lit} {op} ?", (value,)) == want, (lit, op, value)
        assert hit(conn, table, f"? {MIRROR[op]} {lit}", (value,)) == want, (lit, op, value)


@pytest.mark.parametrize("op", list(OPS))
def test_literal_against_bound_date(conn, table, op):
    lit, instant = "DATETIME(2024-05-06 10:30) YEAR TO MINUTE", dt.datetime(2024, 5, 6, 10, 30)
    for day in (dt.date(2024, 5, 6), dt.date(2024, 5, 5), dt.date(2024, 5, 7)):
        want = OPS[op](instant, dt.datetime.combine(day, dt.time()))
        assert hit(conn, table, f"{lit} {op} ?", (day,)) == want, (op, day)
    lit = "DATETIME(2024-05-06) YEAR TO DAY"
    for day in (dt.date(2024, 5, 6), dt.date(2024, 5, 5), dt.date(2024, 5, 7)):
        assert hit(conn, table, f"{lit} {op} ?", (day,)) == OPS[op](dt.date(2024, 5, 6), day)


def test_literal_between_and_in_bound_values(conn, table):
    lit = "DATETIME(2024-05-06 10:30) YEAR TO MINUTE"
    at, before = dt.datetime(2024, 5, 6, 10, 30), dt.datetime(2024, 5, 6, 10, 29)
    after = dt.datetime(2024, 5, 6, 10, 31)
    assert hit(conn, table, f"{lit} BETWEEN ? AND ?", (at, after))
    assert hit(conn, table, f"{lit} BETWEEN ? AND ?", (before, at))
    assert not hit(conn, table, f"{lit} BETWEEN ? AND ?", (after, after))
    assert not hit(conn, table, f"{lit} NOT BETWEEN ? AND ?", (before, at))
    assert hit(conn, table, f"? BETWEEN {lit} AND ?", (at, after))
    assert not hit(conn, table, f"? BETWEEN {lit} AND ?", (before, after))
    assert hit(conn, table, f"{lit} IN (?, ?)", (before, at))
    assert not hit(conn, table, f"{lit} IN (?, ?)", (before, after))
    assert hit(conn, table, f"{lit} NOT IN (?, ?)", (before, after))
    assert hit(conn, table, f"? IN ({lit}, CURRENT)", (at,))
    assert not hit(conn, table, f"? IN ({lit}, CURRENT)", (after,))
    assert hit(conn, table, f"{lit} = (?)", (at,))
    assert not hit(conn, table, f"{lit} < (?)", (at,))


def test_current_against_bound_values(conn, table):
    """Values far from now on either side, and CURRENT YEAR TO DAY against
    today (the test retries once if the day changed while it ran)."""
    past, future = dt.datetime(2000, 1, 1), dt.datetime(2099, 1, 1)
    for q in ("", " YEAR TO SECOND", " YEAR TO FRACTION(3)", " YEAR TO MINUTE"):
        assert hit(conn, table, f"CURRENT{q} > ?", (past,))
        assert not hit(conn, table, f"CURRENT{q} > ?", (future,))
        assert hit(conn, table, f"? < CURRENT{q}", (past,))
        assert not hit(conn, table, f"? > CURRENT{q}", (past,))
        assert hit(conn, table, f"CURRENT{q} BETWEEN ? AND ?", (past, future))
    for _ in range(2):
        today = dt.date.today()
        midnight = dt.datetime.combine(today, dt.time())
        got = [hit(conn, table, "CURRENT YEAR TO DAY = ?", (today,)),
               hit(conn, table, "CURRENT YEAR TO DAY = ?", (midnight,)),
               hit(conn, table, "? = CURRENT YEAR TO DAY", (midnight,)),
               hit(conn, table, "CURRENT YEAR TO DAY >= ?", (midnight,)),
               hit(conn, table, "CURRENT YEAR TO DAY = ?", (midnight + TINY,)),
               hit(conn, table, "CURRENT YEAR TO DAY < ?", (midnight + TINY,)),
               hit(conn, table, "CURRENT YEAR TO DAY = ?", (today + dt.timedelta(days=1),))]
        if dt.date.today() == today:
            break
    assert got == [True, True, True, True, False, True, False]


@pytest.mark.parametrize("cond", [
    "CURRENT - INTERVAL(1) DAY TO DAY < ?",         # DATETIME arithmetic
    "EXTEND(ts, YEAR TO DAY) = ?",                  # EXTEND
])
def test_unknown_qualifier_is_refused(conn, table, cond):
    with pytest.raises(NotSupportedError, match="not supported by the emulator"):
        hit(conn, table, cond, (dt.datetime(2024, 5, 6),))
