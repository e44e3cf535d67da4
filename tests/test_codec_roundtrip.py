"""Values through a whole round trip -- bind, INSERT, SELECT, decode -- for
the silent-loss bugs other Informix drivers shipped (issue 9 item 9, issue
12 item 4).  Runs against whichever server the suite targets."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal

import pytest

import informix_stream as ifx


@pytest.fixture
def cur(ifx_target, request) -> Iterator[ifx.Cursor]:
    conn = ifx.connect(host=ifx_target.host, port=ifx_target.port, user=ifx_target.user,
                       password=ifx_target.password, database=ifx_target.database,
                       server=ifx_target.server, autocommit=True, read_timeout=60)
    table = f"codec_rt_{request.node.name.split('[')[0][5:]}"[:60]
    cursor = conn.cursor()
    cursor.table = table  # type: ignore[attr-defined]
    try:
        yield cursor
    finally:
        try:
            cursor.execute(f"DROP TABLE {table}")
        except ifx.Error:
            pass
        conn.close()


def test_null_char_comes_back_as_none_not_empty(cur) -> None:
    """A NULL CHAR read back as '' cannot be told from an empty value."""
    t = cur.table
    cur.execute(f"CREATE TABLE {t} (k INTEGER, c CHAR(6), n NCHAR(2), v VARCHAR(6))")
    cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?, ?)", (1, None, None, None))
    cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?, ?)", (2, "", "", ""))
    cur.execute(f"INSERT INTO {t} (k) VALUES (3)")
    cur.execute(f"SELECT c, n, v FROM {t} ORDER BY k")
    assert cur.fetchall() == [(None, None, None), ("      ", "  ", ""), (None, None, None)]
    cur.execute(f"SELECT k FROM {t} WHERE c IS NULL ORDER BY k")
    assert cur.fetchall() == [(1,), (3,)]


def test_datetime_fraction_survives_insert(cur) -> None:
    """DATETIME fractions dropped on insert: a bound datetime keeps the
    fraction digits each column's qualifier holds."""
    t = cur.table
    cur.execute(f"CREATE TABLE {t} (k INTEGER, f5 DATETIME YEAR TO FRACTION(5), "
                "f3 DATETIME YEAR TO FRACTION(3), f1 DATETIME HOUR TO FRACTION(1))")
    rows = [(1, dt.datetime(2024, 5, 6, 7, 8, 9, 123456)),
            (2, dt.datetime(1, 1, 1, 0, 0, 0, 10)),
            (3, dt.datetime(9999, 12, 31, 23, 59, 59, 999999))]
    for k, value in rows:
        cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?, ?)", (k, value, value, value.time()))
    cur.execute(f"SELECT f5, f3, f1 FROM {t} ORDER BY k")
    assert cur.fetchall() == [
        (dt.datetime(2024, 5, 6, 7, 8, 9, 123450), dt.datetime(2024, 5, 6, 7, 8, 9, 123000),
         dt.time(7, 8, 9, 100000)),
        (dt.datetime(1, 1, 1, 0, 0, 0, 10), dt.datetime(1, 1, 1), dt.time(0, 0, 0)),
        (dt.datetime(9999, 12, 31, 23, 59, 59, 999990),
         dt.datetime(9999, 12, 31, 23, 59, 59, 999000), dt.time(23, 59, 59, 900000)),
    ]


def test_decimal_with_many_trailing_zeros_binds_and_reads_back(cur) -> None:
    """Issue 12 item 4: 17 significant digits and many trailing zeros is a
    valid floating DECIMAL value (refused once as "more than 32 digits")."""
    t = cur.table
    value = Decimal("4939368971576805600000000000000000000000000000")
    cur.execute(f"CREATE TABLE {t} (k INTEGER, d DECIMAL(32))")
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (1, value))
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (2, -value))
    cur.execute(f"SELECT d FROM {t} ORDER BY k")
    assert cur.fetchall() == [(value,), (-value,)]


def test_unbindable_value_names_its_parameter(cur) -> None:
    t = cur.table
    cur.execute(f"CREATE TABLE {t} (k INTEGER, v VARCHAR(10))")
    with pytest.raises(ifx.DataError, match="parameter 2"):
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (1, "x" * 40000))
    with pytest.raises(ifx.DataError, match="parameter 2"):
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (1, Decimal("1" * 33)))
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (1, "ok"))  # the connection is fine
    cur.execute(f"SELECT v FROM {t}")
    assert cur.fetchall() == [("ok",)]
