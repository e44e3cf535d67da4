"""A bound value compared with a text column is compared whole (issue 15,
SQLAlchemy's StringTest.test_dont_truncate_rightside).

Only a value stored into a CHAR(n)/VARCHAR(n) is cut to n bytes (non-ANSI
database; HCL Informix ESQL/C Guide, "Insert CHAR data"); a value compared
with one is not: the shorter side is blank-padded (Guide to SQL: Reference,
"CHAR(n) data type"), and a LIKE/MATCHES pattern is a pattern, whatever the
width of the column it is matched against.
"""

from __future__ import annotations

import pytest

from test_driver import connect, theirs, unique


@pytest.fixture
def table(ifx_target):
    con = connect(ifx_target, autocommit=True)
    cur = con.cursor()
    t = unique("cmp")
    cur.execute(f"CREATE TABLE {t} (v VARCHAR(2), c CHAR(2))")
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                    [("AB", "AB"), ("BC", "BC"), ("AC", "AC")])
    yield cur, t
    con.close()


def names(cur, sql, params):
    cur.execute(sql, params)
    return sorted(r[0] for r in cur.fetchall())


@pytest.mark.parametrize("col", ["v", "c"])
@pytest.mark.parametrize("pattern, expected", [
    ("%B%", ["AB", "BC"]), ("A%C", ["AC"]), ("A%C%Z", []), ("AB%", ["AB"])])
def test_like_pattern_longer_than_the_column(table, col, pattern, expected):
    cur, t = table
    assert names(cur, f"SELECT v FROM {t} WHERE {col} LIKE ?", (pattern,)) == expected


@pytest.mark.parametrize("col", ["v", "c"])
def test_matches_pattern_longer_than_the_column(table, col):
    cur, t = table
    assert names(cur, f"SELECT v FROM {t} WHERE {col} MATCHES ?", ("*B*",)) == ["AB", "BC"]


@pytest.mark.parametrize("col", ["v", "c"])
def test_equality_with_a_longer_value_matches_nothing(table, col):
    """'ABC' is not 'AB': cutting the value to the column would say it is."""
    cur, t = table
    assert names(cur, f"SELECT v FROM {t} WHERE {col} = ?", ("ABC",)) == []
    assert names(cur, f"SELECT v FROM {t} WHERE ? = {col}", ("ABC",)) == []
    assert names(cur, f"SELECT v FROM {t} WHERE {col} IN (?, ?)", ("ABC", "BC")) == ["BC"]


def test_char_compares_blank_padded(table):
    cur, t = table
    assert names(cur, f"SELECT v FROM {t} WHERE c = ?", ("AB   ",)) == ["AB"]
    assert names(cur, f"SELECT v FROM {t} WHERE c = ?", ("A",)) == []


def test_stored_values_are_still_cut(table):
    """INSERT and UPDATE keep cutting a too-long text in a non-ANSI database."""
    cur, t = table
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", ("XYZ", "XYZ"))
    cur.execute(f"UPDATE {t} SET c = ? WHERE v = ?", ("QRS", "XY"))
    assert names(cur, f"SELECT v || c FROM {t} WHERE v LIKE ?", ("X%",)) == ["XYQR"]


def test_informix_driver_sees_the_same_rows(ifx_target, table):
    _, t = table
    con = theirs(ifx_target)
    try:
        c = con.cursor()
        c.execute(f"SELECT v FROM {t} WHERE v LIKE ? ORDER BY v", ("%B%",))
        assert c.fetchall() == [("AB",), ("BC",)]
    finally:
        con.close()
