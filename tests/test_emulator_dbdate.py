"""DATE text follows the session's DBDATE (and GL_DATE) in the emulator.

IBM/HCL Guide to SQL: Reference, "DBDATE environment variable" (ids_sqr_212):
the order of month, day and year (MD/DM with Y2/Y4, the year first or last),
then the separator (- . / or 0 for none; anything else, or nothing, is /);
MDY4/ by default for US English; DBDATE wins over GL_DATE.  Input DATE text
must be in that format (JDBC Guide, "The DBDATE variable"); output DATE text
is written in it.  Conversion errors: -1204 year, -1205 month, -1206 day,
-1209 no separators and not 6 or 8 digits, -1218 not a date (ESQL/C
rstrdate; texts in IBM JDBC's rds_en_US.properties).  A two-digit year takes
the current century (DBCENTURY's default R, ESQL/C ifx_strdate).

Before this, the emulator read every DATE text as ISO or mm/dd/yyyy and
wrote mm/dd/yyyy whatever DBDATE said: '06/05/2024' under DMY4/ stored
5 June.
"""

from __future__ import annotations

import datetime as dt
import itertools

import pytest

import informix_stream as ifx
from informix_stream.emulator.server import EmulatorServer

MAY6 = dt.date(2024, 5, 6)
CENTURY = dt.date.today().year // 100 * 100

# DBDATE, 6 May 2024 as text in it
STYLES = [
    ("DMY4/", "06/05/2024"),
    ("MDY4/", "05/06/2024"),
    ("Y4MD-", "2024-05-06"),
    ("Y4DM.", "2024.06.05"),
    ("DMY2-", "06-05-24"),
    ("Y2MD/", "24/05/06"),
    ("MDY40", "05062024"),
    ("MDY4", "05/06/2024"),          # no separator named: slash
    ("DMY4*", "06/05/2024"),         # not a separator DBDATE knows: slash
]
_names = itertools.count()


@pytest.fixture(scope="module")
def server():
    s = EmulatorServer(databases={"dd": "en_US.8859-1"}).start()
    yield s
    s.stop()


def _connect(server, **env):
    return ifx.connect(host="127.0.0.1", port=server.port, password="in4mix", database="dd",
                       env=env, autocommit=True, read_timeout=30)


@pytest.fixture
def table(server):
    name = f"dd_{next(_names)}"
    with _connect(server) as c:
        c.cursor().execute(f"CREATE TABLE {name} (id INTEGER, d DATE, c CHAR(12))")
    yield name
    with _connect(server) as c:
        c.cursor().execute(f"DROP TABLE {name}")


def _stored(server, table):
    with _connect(server) as c:
        cur = c.cursor()
        cur.execute(f"SELECT id, d, c FROM {table} ORDER BY id")
        return cur.fetchall()


@pytest.mark.parametrize("dbdate, text", STYLES)
def test_date_text_is_read_in_dbdate_order(server, table, dbdate, text):
    if dbdate[:2] == "Y2" or dbdate[3:4] == "2":
        expected = dt.date(CENTURY + 24, 5, 6)
    else:
        expected = MAY6
    with _connect(server, DBDATE=dbdate) as c:
        cur = c.cursor()
        cur.execute(f"INSERT INTO {table} (id, d) VALUES (1, '{text}')")
        cur.execute(f"INSERT INTO {table} (id, d) VALUES (2, DATE('{text}'))")
        cur.execute(f"INSERT INTO {table} (id, d) VALUES (3, ?)", (text,))
        cur.execute(f"INSERT INTO {table} (id, d) VALUES (4, CAST('{text}' AS DATE))")
        cur.execute(f"SELECT id FROM {table} WHERE d = '{text}' ORDER BY id")
        assert cur.fetchall() == [(1,), (2,), (3,), (4,)]
        cur.execute(f"SELECT COUNT(*) FROM {table} WHERE d = ?", (text,))
        assert cur.fetchone() == (4,)
    assert _stored(server, table) == [(i, expected, None) for i in (1, 2, 3, 4)]


@pytest.mark.parametrize("dbdate, text", STYLES)
def test_date_text_is_written_in_dbdate_format(server, table, dbdate, text):
    with _connect(server, DBDATE=dbdate) as c:
        cur = c.cursor()
        cur.execute(f"INSERT INTO {table} VALUES (1, ?, ?)", (MAY6, MAY6))
        cur.execute(f"SELECT CAST(d AS CHAR(10)), d::VARCHAR(12), c FROM {table}")
        assert cur.fetchall() == [(text.ljust(10), text, text.ljust(12))]


def test_the_same_statement_in_two_sessions_reads_each_ones_format(server, table):
    """Translations (with their converted literals) are shared by sessions:
    the format is part of what they are filed under."""
    sql = f"INSERT INTO {table} (id, d) VALUES (1, '06/05/2024')"
    with _connect(server, DBDATE="DMY4/") as dmy, _connect(server, DBDATE="MDY4/") as mdy:
        dmy.cursor().execute(sql)
        mdy.cursor().execute(sql)
        dmy.cursor().execute(sql)
    assert [r[1] for r in _stored(server, table)] == [MAY6, dt.date(2024, 6, 5), MAY6]


@pytest.mark.parametrize("dbdate, text, code", [
    ("DMY4/", "2024-05-06", -1206),       # read as day 2024 of May 2006
    ("MDY4/", "2024-05-06", -1205),       # month 2024
    ("MDY4/", "13/05/2024", -1205),
    ("DMY4/", "31/04/2024", -1206),
    ("Y4MD-", "2024-02-30", -1206),
    ("Y4MD-", "0000-01-01", -1204),
    ("Y4MD-", "May 6 2024", -1218),
    ("Y4MD-", "2024-05/06", -1218),       # two different separators
    ("Y4MD-", "2024056", -1209),
])
def test_text_not_in_the_format_is_the_servers_error(server, table, dbdate, text, code):
    with _connect(server, DBDATE=dbdate) as c:
        cur = c.cursor()
        for sql, params in ((f"INSERT INTO {table} (id, d) VALUES (1, '{text}')", None),
                            (f"INSERT INTO {table} (id, d) VALUES (1, ?)", (text,)),
                            (f"SELECT DATE('{text}') FROM systables WHERE tabid = 1", None)):
            with pytest.raises(ifx.DatabaseError) as info:
                cur.execute(sql, params)
                cur.fetchall()
            assert info.value.sqlcode == code, sql
    assert _stored(server, table) == []


def test_gl_date_is_used_without_dbdate(server, table):
    with _connect(server, DBDATE="", GL_DATE="%d.%m.%Y") as c:
        cur = c.cursor()
        cur.execute(f"INSERT INTO {table} VALUES (1, '06.05.2024', NULL)")
        cur.execute(f"SELECT CAST(d AS CHAR(10)) FROM {table}")
        assert cur.fetchall() == [("06.05.2024",)]
    assert _stored(server, table) == [(1, MAY6, None)]


def test_dbdate_wins_over_gl_date(server, table):
    with _connect(server, DBDATE="MDY4/", GL_DATE="%d/%m/%Y") as c:
        c.cursor().execute(f"INSERT INTO {table} VALUES (1, '05/06/2024', NULL)")
    assert _stored(server, table) == [(1, MAY6, None)]


@pytest.mark.parametrize("env", [
    {"DBDATE": "YMD4-"},                     # no year width
    {"DBDATE": "Y4MD--"},
    {"DBDATE": "GY2MD/"},                    # an era-based (East Asian) form
    {"DBDATE": "", "GL_DATE": "%b %d %Y"},   # month names
    {"DBDATE": "", "GL_DATE": "%d/%m"},
    {"DBCENTURY": "P"},
])
def test_a_date_format_the_emulator_lacks_is_refused_at_login(server, env):
    with pytest.raises(ifx.DatabaseError) as info:
        _connect(server, **env)
    assert info.value.sqlcode == -9999
    assert "not supported by the emulator" in str(info.value)


def test_another_locales_own_date_format_is_refused_when_used(server, table):
    with _connect(server, DBDATE="", CLIENT_LOCALE="de_DE.8859-1") as c:
        cur = c.cursor()
        cur.execute(f"INSERT INTO {table} (id, d) VALUES (1, ?)", (MAY6,))   # no text: fine
        with pytest.raises(ifx.NotSupportedError, match="not supported by the emulator"):
            cur.execute(f"INSERT INTO {table} (id, d) VALUES (2, '06.05.2024')")
    assert _stored(server, table) == [(1, MAY6, None)]
