"""A DATE (and INTERVAL, DECIMAL) expression written to a character column
or concatenated is its text, not SQLite's stored form.

IBM/HCL Guide to SQL: Reference, "Using Built-in Casts": a DATE converted to
a character type is written in the session's DBDATE format.  HCL Guide to
SQL: Syntax, "Concatenation Operator" (ids_sqs_0185): ``||`` takes operands
of character or numeric types, e.g. ``'Date:' || TODAY``, whose value is
concatenated as text.  The text forms are the ones CAST to a character type
already writes (casts.py): DATE in DBDATE, DATETIME its literal for its
qualifier, INTERVAL its fields, DECIMAL its scale's digits.

Before this, ``UPDATE t SET c = d``, ``INSERT INTO t (c) SELECT d ...``,
``INSERT INTO t (c) VALUES (TODAY)`` stored the day number '45417' and
``d || 'x'`` gave '45417x'; an INTERVAL gave its microseconds and a
DECIMAL(8,2) 1.50 gave '1.5'.
"""

from __future__ import annotations

import datetime as dt
import itertools

import pytest

import informix_stream as ifx
from informix_stream.emulator.server import EmulatorServer

# DBDATE, 6 May 2024 in it (Y4MD- is the driver's default)
STYLES = [(None, "2024-05-06"), ("DMY4/", "06/05/2024")]
_names = itertools.count()


@pytest.fixture(scope="module")
def server():
    s = EmulatorServer(databases={"dt": "en_US.8859-1"}).start()
    yield s
    s.stop()


def _connect(server, dbdate):
    env = {"DBDATE": dbdate} if dbdate else {}
    return ifx.connect(host="127.0.0.1", port=server.port, password="in4mix", database="dt",
                       env=env, autocommit=True, read_timeout=30)


@pytest.fixture
def tables(server):
    """(source, target): one row of typed values; character columns."""
    n = next(_names)
    src, dst = f"src_{n}", f"dst_{n}"
    with _connect(server, None) as c:
        cur = c.cursor()
        cur.execute(f"CREATE TABLE {src} (d DATE, dtm DATETIME YEAR TO MINUTE, "
                    f"iv INTERVAL DAY(3) TO SECOND, n DECIMAL(8,2))")
        cur.execute(f"INSERT INTO {src} VALUES (?, DATETIME(2024-05-06 10:30) YEAR TO MINUTE, "
                    f"INTERVAL(3 04:05:06) DAY(3) TO SECOND, 1.5)", (dt.date(2024, 5, 6),))
        cur.execute(f"CREATE TABLE {dst} (id INTEGER, d DATE, c CHAR(20), v VARCHAR(20), "
                    f"l LVARCHAR(40))")
    yield src, dst
    with _connect(server, None) as c:
        c.cursor().execute(f"DROP TABLE {src}")
        c.cursor().execute(f"DROP TABLE {dst}")


def _texts(cur, dst):
    cur.execute(f"SELECT c, v, l FROM {dst} ORDER BY id")
    return [tuple(x.rstrip() if x is not None else None for x in row) for row in cur.fetchall()]


@pytest.mark.parametrize("dbdate, text", STYLES)
def test_update_set_char_column_to_a_date_column(server, tables, dbdate, text):
    _, dst = tables
    with _connect(server, dbdate) as c:
        cur = c.cursor()
        cur.execute(f"INSERT INTO {dst} (id, d) VALUES (1, ?)", (dt.date(2024, 5, 6),))
        cur.execute(f"UPDATE {dst} SET c = d, v = d, l = d")
        assert _texts(cur, dst) == [(text, text, text)]


@pytest.mark.parametrize("dbdate, text", STYLES)
def test_insert_select_a_date_into_char_columns(server, tables, dbdate, text):
    src, dst = tables
    with _connect(server, dbdate) as c:
        cur = c.cursor()
        cur.execute(f"INSERT INTO {dst} (id, c, v, l) SELECT 1, d, d, d FROM {src}")
        cur.execute(f"INSERT INTO {dst} (id, c, v, l) SELECT 2, d + 1, DATE(d), d FROM {src}")
        day7 = text.replace("06", "07", 1) if text.startswith("06") else text[:-2] + "07"
        assert _texts(cur, dst) == [(text, text, text), (day7, text, text)]


@pytest.mark.parametrize("dbdate, text", STYLES)
def test_insert_values_today_into_char_columns(server, tables, dbdate, text):
    _, dst = tables
    with _connect(server, dbdate) as c:
        cur = c.cursor()
        cur.execute(f"INSERT INTO {dst} (id, c, v, l) VALUES (1, TODAY, TODAY, TODAY)")
        rows = _texts(cur, dst)
        cur.execute(f"SELECT CAST(TODAY AS CHAR(10)) FROM {dst}")
        today = cur.fetchone()[0]
    assert len(today) == len(text) and today != text
    assert rows == [(today, today, today)]


@pytest.mark.parametrize("dbdate, text", STYLES)
def test_a_date_concatenated_is_its_dbdate_text(server, tables, dbdate, text):
    src, dst = tables
    with _connect(server, dbdate) as c:
        cur = c.cursor()
        cur.execute(f"SELECT d || 'x', 'x' || d, 'a' || d || 'b' FROM {src}")
        assert cur.fetchall() == [(text + "x", "x" + text, "a" + text + "b")]
        cur.execute(f"INSERT INTO {dst} (id, c, v, l) SELECT 1, d || 'x', 'x' || d, d || d "
                    f"FROM {src}")
        assert _texts(cur, dst) == [(text + "x", "x" + text, text + text)]
        cur.execute(f"INSERT INTO {dst} (id, d) VALUES (2, ?)", (dt.date(2024, 5, 6),))
        cur.execute(f"UPDATE {dst} SET c = 'on ' || d WHERE id = 2")
        cur.execute(f"SELECT c FROM {dst} WHERE id = 2")
        assert cur.fetchone()[0].rstrip() == "on " + text


@pytest.mark.parametrize("column, text", [
    ("dtm", "2024-05-06 10:30"),
    ("iv", "  3 04:05:06"),
    ("n", "1.50"),
])
def test_other_typed_values_into_char_columns_and_concatenated(server, tables, column, text):
    src, dst = tables
    with _connect(server, None) as c:
        cur = c.cursor()
        cur.execute(f"SELECT CAST({column} AS VARCHAR(20)) FROM {src}")
        assert cur.fetchone()[0] == text          # the CAST path's text, which writes follow
        cur.execute(f"INSERT INTO {dst} (id, c, v, l) SELECT 1, {column}, {column}, "
                    f"{column} || '|' FROM {src}")
        cur.execute(f"SELECT c, v, l FROM {dst}")
        assert cur.fetchall() == [(text.ljust(20), text, text + "|")]
        cur.execute(f"SELECT '<' || {column} FROM {src}")
        assert cur.fetchall() == [("<" + text,)]


@pytest.mark.parametrize("dbdate, text", STYLES)
def test_a_concatenated_date_compared_by_in_is_its_text(server, tables, dbdate, text):
    """``x || y IN (...)`` ends its span at the list, a path of its own: it
    compared '45417x' (no row for IN, the row for NOT IN)."""
    src, _ = tables
    with _connect(server, dbdate) as c:
        cur = c.cursor()
        cur.execute(f"SELECT 1 FROM {src} WHERE d || 'x' IN (?, 'y')", (text + "x",))
        assert cur.fetchall() == [(1,)]
        cur.execute(f"SELECT 1 FROM {src} WHERE 'x' || d NOT IN ('x' || ?)", (text,))
        assert cur.fetchall() == []
        cur.execute(f"SELECT 1 FROM {src} WHERE 'x' || d NOT IN ('y')")
        assert cur.fetchall() == [(1,)]
        cur.execute(f"SELECT 1 FROM {src} WHERE '<' || iv IN ('<  3 04:05:06')")
        assert cur.fetchall() == [(1,)]
