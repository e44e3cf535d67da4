"""BYTE/TEXT columns where Informix refuses them: an error, never wrong rows.

The emulator stores a BYTE/TEXT column as a reference number; before this
rule ``WHERE t = 'hello'`` compared that number and silently found no row.
Codes from IBM JDBC 15.0.1.0 message catalog (sql_en_US.properties); the
rules from IBM's "TEXT data type" page (see emulator/blob_use.py).
"""

from __future__ import annotations

import uuid

import pytest

import informix_stream as ifx
from faults.emu import connect

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def cur(server):
    conn = connect(server, autocommit=True)
    c = conn.cursor()
    c.table = f"bu_{uuid.uuid4().hex[:8]}"
    c.execute(f"CREATE TABLE {c.table} (id INTEGER, t TEXT, b BYTE)")
    c.execute(f"INSERT INTO {c.table} VALUES (1, ?, ?)", ("hello  ", b"\x00x"))
    c.execute(f"INSERT INTO {c.table} (id) VALUES (2)")
    yield c
    conn.close()


@pytest.mark.parametrize("sql, params, code", [
    ("SELECT id FROM {t} WHERE t = 'hello  '", (), -615),
    ("SELECT id FROM {t} WHERE t = ?", ("hello  ",), -615),
    ("SELECT id FROM {t} WHERE 'hello  ' = {t}.t", (), -615),
    ("SELECT id FROM {t} WHERE (b = ?)", (b"\x00x",), -615),
    ("SELECT id FROM {t} WHERE t LIKE 'h%'", (), -615),
    ("SELECT id FROM {t} WHERE t MATCHES 'h*'", (), -615),
    ("SELECT id FROM {t} WHERE t IN ('hello  ')", (), -615),
    ("SELECT t || 'x' FROM {t}", (), -615),
    ("SELECT MAX(t) FROM {t}", (), -615),
    ("SELECT a.id FROM {t} a JOIN {t} c ON a.t = c.t", (), -615),
    ("UPDATE {t} SET id = 3 WHERE t = 'hello  '", (), -615),
    ("DELETE FROM {t} WHERE b = ?", (b"\x00x",), -615),
    ("SELECT t FROM {t} GROUP BY t", (), -612),
    ("SELECT DISTINCT t FROM {t}", (), -613),
    ("SELECT id FROM {t} ORDER BY b", (), -614),
])
def test_refused_where_the_server_refuses(cur, sql, params, code):
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(sql.format(t=cur.table), params)
    assert info.value.sqlcode == code
    cur.execute(f"SELECT id FROM {cur.table} ORDER BY id")    # connection still usable
    assert cur.fetchall() == [(1,), (2,)]


def test_update_refused_changes_nothing(cur):
    with pytest.raises(ifx.DatabaseError):
        cur.execute(f"UPDATE {cur.table} SET id = 9 WHERE t = 'hello  '")
    cur.execute(f"SELECT COUNT(*) FROM {cur.table} WHERE id = 9")
    assert cur.fetchone()[0] == 0


def test_allowed_uses(cur):
    t = cur.table
    cur.execute(f"SELECT id, t, {t}.b AS bb FROM {t} WHERE t IS NOT NULL AND b IS NOT NULL")
    assert cur.fetchall() == [(1, "hello  ", b"\x00x")]
    cur.execute(f"SELECT id FROM {t} WHERE {t}.t IS NULL")
    assert cur.fetchall() == [(2,)]
    # LENGTH of BYTE/TEXT counts every byte, trailing blanks included.
    cur.execute(f"SELECT LENGTH(t), LENGTH({t}.b) FROM {t} WHERE id = 1")
    assert cur.fetchall() == [(7, 2)]
    cur.execute(f"SELECT id FROM {t} WHERE LENGTH(t) = 7")
    assert cur.fetchall() == [(1,)]
    cur.execute(f"SELECT id AS t FROM {t} ORDER BY t")      # an alias named like the column
    assert cur.fetchall() == [(1,), (2,)]
    cur.execute(f"UPDATE {t} SET t = NULL, id = 5 WHERE id = 1")
    cur.execute(f"INSERT INTO {t} (id, b) SELECT id + 10, b FROM {t} WHERE id = 5")
    cur.execute(f"SELECT id, t, b FROM {t} WHERE id > 2 ORDER BY id")
    assert cur.fetchall() == [(5, None, b"\x00x"), (15, None, b"\x00x")]


def test_subscript_is_an_emulator_gap(cur):
    with pytest.raises(ifx.NotSupportedError, match="not supported by the emulator"):
        cur.execute(f"SELECT t[1,2] FROM {cur.table}")


@pytest.mark.parametrize("column", ["CHAR(10)", "VARCHAR(10)", "LVARCHAR(100)", "BOOLEAN"])
@pytest.mark.parametrize("value", [b"ab", ifx.Text("tf")], ids=["byte", "text"])
def test_a_byte_or_text_parameter_into_another_type_is_608(cur, column, value):
    """-608 "Illegal attempt to convert Text/Byte blob type." (IBM JDBC
    15.0.1.0 message catalog): no built-in cast converts BYTE/TEXT to another
    built-in type (HCL OneDB Guide to SQL: Reference, "Using Built-in
    Casts").  The emulator stored b"ab" as the text 'ab', and any non-empty
    bytes as TRUE."""
    t = f"{cur.table}_x"
    cur.execute(f"CREATE TABLE {t} (id INTEGER, v {column})")
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"INSERT INTO {t} VALUES (1, ?)", (value,))
    assert info.value.sqlcode == -608
    cur.execute(f"INSERT INTO {t} VALUES (2, ?)", ("t",))   # a character value converts
    cur.execute(f"SELECT id FROM {t}")
    assert cur.fetchall() == [(2,)]
