"""A number bound to an INTERVAL column (issue 11, emulator fidelity).

The server has no implicit number-to-INTERVAL conversion: "explicit casts
with the UNITS operator are required for number-to-INTERVAL conversion"
(IBM Informix Guide to SQL: Reference, "Using Built-in Casts"), so it
refuses the value with -1260 "It is not possible to convert between the
specified types" (IBM JDBC 15.0.1.0 message catalog, rds_en_US.properties;
not observed on a server).  The emulator used to store an int as that many
microseconds.  Checked on the BIND path (execute, UPDATE, a number literal)
and through executemany, with nothing stored and the connection usable
after.  On the insert-cursor path a number cannot reach the emulator: an
SQ_PUT row image carries each cell in its column's own type (an INTERVAL's
digits; insert_cursor.py decodes it so), and our driver sends rows holding
INTERVALs by BIND+EXECUTE, where this refusal applies."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

import informix_stream as ifx
from informix_stream.codecs import IntervalYM
from test_driver import connect, unique

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def table(ifx_target):
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        t = unique("ivn")
        cur.execute(f"CREATE TABLE {t} (id INTEGER, dt_iv INTERVAL DAY(5) TO SECOND, "
                    "ym_iv INTERVAL YEAR(4) TO MONTH)")
        yield cur, t


def _rows(cur, t: str) -> list:
    cur.execute(f"SELECT id, dt_iv, ym_iv FROM {t} ORDER BY id")
    return cur.fetchall()


@pytest.mark.parametrize("column", ["dt_iv", "ym_iv"])
@pytest.mark.parametrize("number", [5, 0, -3, 2.5, Decimal("7"), 10**12])
def test_a_bound_number_is_refused_and_nothing_is_stored(table, column, number):
    cur, t = table
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"INSERT INTO {t} (id, {column}) VALUES (?, ?)", (1, number))
    assert info.value.sqlcode == -1260
    assert _rows(cur, t) == []


@pytest.mark.parametrize("column", ["dt_iv", "ym_iv"])
def test_a_number_literal_is_refused(table, column):
    cur, t = table
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"INSERT INTO {t} (id, {column}) VALUES (1, 5)")
    assert info.value.sqlcode == -1260
    assert _rows(cur, t) == []


def test_update_with_a_number_changes_nothing(table):
    cur, t = table
    cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?)", (1, dt.timedelta(days=2), IntervalYM(14)))
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"UPDATE {t} SET dt_iv = ? WHERE id = 1", (60,))
    assert info.value.sqlcode == -1260
    assert _rows(cur, t) == [(1, dt.timedelta(days=2), IntervalYM(14))]


def test_executemany_refuses_a_number_and_keeps_no_row(table):
    """The insert cursor (SQ_PUT) path: the block fails whole, as the
    executemany contract has it for a failing row in autocommit."""
    cur, t = table
    rows = [(i, dt.timedelta(seconds=i), IntervalYM(i)) for i in range(5)]
    rows[3] = (3, 90, IntervalYM(3))
    with pytest.raises(ifx.DatabaseError) as info:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)", rows)
    assert info.value.sqlcode == -1260
    stored = _rows(cur, t)
    assert all(r[0] != 3 for r in stored)
    assert all(r == rows[r[0]] for r in stored)


def test_the_intervals_a_client_means_are_still_stored(table):
    cur, t = table
    rows = [(1, dt.timedelta(days=3, seconds=7), IntervalYM(-25)),
            (2, "4 05:06:07", "12-03")]
    for r in rows:
        cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?)", r)
    assert _rows(cur, t) == [(1, dt.timedelta(days=3, seconds=7), IntervalYM(-25)),
                             (2, dt.timedelta(days=4, seconds=18367), IntervalYM(147))]


@pytest.mark.parametrize("column, value", [
    ("ym_iv", dt.timedelta(days=40)),
    ("ym_iv", dt.timedelta(0)),
    ("dt_iv", IntervalYM(14)),
    ("dt_iv", IntervalYM(0)),
])
def test_an_interval_of_the_other_class_is_refused(table, column, value):
    """A day-time INTERVAL (timedelta) into a year-month column or the
    reverse: a month has no fixed number of days, so the classes do not
    convert; -1266 "Intervals or datetimes are incompatible for the
    operation" (IBM JDBC 15.0.1.0 message catalog, rds_en_US.properties).
    The emulator once stored the microseconds as months (and the months as
    microseconds)."""
    cur, t = table
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"INSERT INTO {t} (id, {column}) VALUES (?, ?)", (1, value))
    assert info.value.sqlcode == -1266
    assert _rows(cur, t) == []
    with pytest.raises(ifx.DatabaseError) as info:
        cur.executemany(f"INSERT INTO {t} (id, {column}) VALUES (?, ?)", [(2, value)])
    assert info.value.sqlcode == -1266
    assert _rows(cur, t) == []


@pytest.mark.parametrize("column", ["dt_iv", "ym_iv"])
@pytest.mark.parametrize("select", ["SELECT id, n FROM {src}", "SELECT id, n + 1 FROM {src}",
                                    "SELECT id, 5 FROM {src}"])
def test_insert_select_of_a_number_is_refused(table, column, select):
    """A number an INSERT ... SELECT copies: the same -1260 as when bound;
    the emulator stored it raw (an int read back as microseconds/months)."""
    cur, t = table
    src = unique("ivs")
    cur.execute(f"CREATE TABLE {src} (id INTEGER, n INTEGER)")
    try:
        cur.execute(f"INSERT INTO {src} VALUES (1, 90)")
        with pytest.raises(ifx.DatabaseError) as info:
            cur.execute(f"INSERT INTO {t} (id, {column}) " + select.format(src=src))
        assert info.value.sqlcode == -1260
        assert _rows(cur, t) == []
        # an UPDATE from a number column likewise
        cur.execute(f"INSERT INTO {t} (id) VALUES (1)")
        with pytest.raises(ifx.DatabaseError) as info:
            cur.execute(f"UPDATE {t} SET {column} = (SELECT n FROM {src}) WHERE id = 1")
        assert info.value.sqlcode == -1260
        assert _rows(cur, t) == [(1, None, None)]
    finally:
        cur.execute(f"DROP TABLE {src}")


def test_insert_select_of_intervals_and_nulls_still_works(table):
    cur, t = table
    cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?)", (1, dt.timedelta(days=2), IntervalYM(14)))
    cur.execute(f"INSERT INTO {t} (id, dt_iv, ym_iv) SELECT id + 1, dt_iv, ym_iv FROM {t}")
    cur.execute(f"INSERT INTO {t} (id, dt_iv) SELECT 9, NULL FROM {t} WHERE id = 1")
    assert _rows(cur, t) == [(1, dt.timedelta(days=2), IntervalYM(14)),
                             (2, dt.timedelta(days=2), IntervalYM(14)), (9, None, None)]
