"""A DATETIME's day must be one its month has (issue 11, emulator fidelity).

IBM's Guide to SQL: Reference ("DATETIME data type", ids_sqr_110) numbers
DAY "from 1 to 31, as appropriate for the month"; the Literal DATETIME
segment (Guide to SQL: Syntax, ids_sqs_1600) restricts dd to "1 <= dd <= 28,
29, 30, or 31".  A value out of range is -1263, "A field in a datetime or
interval value is incorrect ..." (IBM JDBC 15.0.1.0 message catalog,
sql_en_US.properties).  A MONTH TO DAY value has no year: February 29th is
a day February has in leap years, so '02-29' is a value and '02-30' is not.
The emulator used to fill the missing year with 1900 and fail internally
(-999) on '02-29', and let '02-30' into the table to fail at every read.
"""

from __future__ import annotations

import datetime as dt

import informix_db
import pytest

import informix_stream as ifx
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("testdb",)) as srv:
        yield srv


@pytest.fixture
def cur(server):
    conn = ifx.connect(host=server.host, port=server.port, password="in4mix",
                       database="testdb", autocommit=True, read_timeout=30)
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS md")
    cur.execute("CREATE TABLE md (id INTEGER, m DATETIME MONTH TO DAY, "
                "y DATETIME YEAR TO DAY, mm DATETIME MONTH TO MINUTE)")
    yield cur
    conn.close()


@pytest.mark.parametrize("sql, params", [
    ("INSERT INTO md (id, m) VALUES (1, '02-29')", ()),
    ("INSERT INTO md (id, m) VALUES (1, DATETIME(02-29) MONTH TO DAY)", ()),
    ("INSERT INTO md (id, m) VALUES (1, ?)", ("02-29",)),
])
def test_february_29th_is_a_month_to_day_value(cur, sql, params):
    cur.execute(sql, params)
    cur.execute("SELECT m, CAST(m AS VARCHAR(10)) FROM md WHERE id = 1")
    value, text = cur.fetchone()
    assert (value.month, value.day, text) == (2, 29, "02-29")


def test_a_month_to_minute_value_on_february_29th(cur):
    cur.execute("INSERT INTO md (id, mm) VALUES (2, '02-29 13:45')")
    cur.execute("SELECT CAST(mm AS VARCHAR(20)) FROM md WHERE id = 2")
    assert cur.fetchone() == ("02-29 13:45",)


@pytest.mark.parametrize("column, text", [
    ("m", "02-30"), ("m", "04-31"), ("m", "11-31"), ("mm", "06-31 10:00"),
    ("y", "2023-02-29"), ("y", "1900-02-29"),
])
def test_a_day_its_month_never_has_is_1263(cur, column, text):
    with pytest.raises(ifx.DataError) as info:
        cur.execute(f"INSERT INTO md (id, {column}) VALUES (3, ?)", (text,))
    assert info.value.sqlcode == -1263
    with pytest.raises(ifx.DataError) as info:
        cur.execute(f"INSERT INTO md (id, {column}) VALUES (3, '{text}')")
    assert info.value.sqlcode == -1263
    cur.execute("SELECT COUNT(*) FROM md")
    assert cur.fetchone() == (0,)        # nothing stored, nothing to fail a later read


def test_a_leap_year_keeps_february_29th(cur):
    cur.execute("INSERT INTO md (id, y) VALUES (4, '2024-02-29')")
    cur.execute("SELECT y FROM md WHERE id = 4")
    assert cur.fetchone() == (dt.date(2024, 2, 29),)


def test_informix_driver_reads_february_29th(server, cur):
    cur.execute("INSERT INTO md (id, m) VALUES (5, '02-29')")
    conn = informix_db.connect(host="127.0.0.1", port=server.port, user="informix",
                               password="in4mix", database="testdb", read_timeout=10,
                               autocommit=True)
    try:
        c = conn.cursor()
        # its text: informix-driver's own decoder fills a MONTH TO DAY value's
        # year with one that has no February 29th and raises ValueError
        # (informix_db/converters.py), a limit of that driver, not the value's
        c.execute("SELECT CAST(m AS VARCHAR(10)) FROM md WHERE id = 5")
        assert c.fetchall() == [("02-29",)]
    finally:
        conn.close()
