"""JSON and BSON columns through the emulator and our driver (issue 12 item
4): CREATE TABLE with them, syscolumns as a server keeps them (UDTVAR 40,
extended id 25 / 26: JDBC IfxTypes), values read back as str / bytes,
bound as parameters, NULLs, and the server's errors (IBM JDBC 15.0.1.0
message catalog: -9660 invalid JSON document, -9634 no cast)."""

from __future__ import annotations

import pytest

import informix_stream as ifx
from faults.emu import connect

pytestmark = pytest.mark.timeout(60)

DOC = bytes.fromhex("0c0000001061000100000000")      # {"a": 1} as BSON


@pytest.fixture()
def cur(server):
    c = connect(server, autocommit=True)
    cur = c.cursor()
    cur.execute("DROP TABLE IF EXISTS d")
    cur.execute("CREATE TABLE d (id INT, j JSON, b BSON, t VARCHAR(5))")
    yield cur
    c.close()


def test_catalog_and_describe(cur):
    cur.execute("SELECT colname, coltype, extended_id FROM syscolumns WHERE colname IN"
                " ('j', 'b') ORDER BY colno")
    assert cur.fetchall() == [("j", 40, 25), ("b", 40, 26)]
    cur.execute("SELECT j, b FROM d")
    assert [d[1] for d in cur.description] == [ifx.codecs.TypeCode.JSON,
                                               ifx.codecs.TypeCode.BSON]


def test_values_literal_bound_and_null(cur):
    cur.execute("""INSERT INTO d VALUES (1, '{"name": "Zoë", "n": [1, 2.5]}', NULL, 'x')""")
    cur.execute("INSERT INTO d VALUES (?, ?, ?, ?)", (2, '{"v": [true, null]}', DOC, "y"))
    cur.execute("INSERT INTO d VALUES (3, NULL, NULL, 'z')")
    cur.execute("SELECT id, j, b, t FROM d ORDER BY id")
    assert cur.fetchall() == [(1, '{"name": "Zoë", "n": [1, 2.5]}', None, "x"),
                              (2, '{"v": [true, null]}', DOC, "y"),
                              (3, None, None, "z")]


@pytest.mark.parametrize("values, code", [
    ("(4, '{bad', NULL, 'q')", -9660),           # not a JSON document
    ("(4, NULL, 'text', 'q')", -9634),           # text into BSON needs a cast
])
def test_errors_are_the_servers_and_the_connection_stays_usable(cur, values, code):
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"INSERT INTO d VALUES {values}")
    assert info.value.sqlcode == code
    cur.execute("SELECT count(*) FROM d")
    assert cur.fetchone() == (0,)


# The JSON type holds documents: objects of fields, the text form of a BSON
# document (IBM Informix Guide to SQL: Syntax, "BSON and JSON built-in opaque
# data types"; bsonspec.org), with JSON's numbers (RFC 8259: no NaN, no
# Infinity) that a BSON double holds: the rest is -9660 (emulator/documents.py).
@pytest.mark.parametrize("text", [
    '{"x": NaN}', '{"x": Infinity}', '{"x": -Infinity}', '{"x": 1e400}', '{"x": -1e400}',
    '"text"', "42", "true", "null", "[1, 2]",
])
def test_json_that_is_no_document_is_refused_bound_and_literal(cur, text):
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute("INSERT INTO d (id, j) VALUES (?, ?)", (9, text))
    assert info.value.sqlcode == -9660
    literal = text.replace("'", "''")
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(f"INSERT INTO d (id, j) VALUES (9, '{literal}')")
    assert info.value.sqlcode == -9660
    cur.execute("SELECT count(*) FROM d")
    assert cur.fetchone() == (0,)


def test_json_numbers_a_double_holds_are_kept_as_sent(cur):
    text = '{"big": 1e308, "small": 5e-324, "int": 123456789012345678901234567890}'
    cur.execute("INSERT INTO d (id, j) VALUES (?, ?)", (1, text))
    cur.execute("SELECT j FROM d")
    assert cur.fetchone() == (text,)


def test_bytes_that_are_no_bson_document_are_refused(cur):
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute("INSERT INTO d VALUES (?, NULL, ?, 'q')", (5, b"\x05\x00\x00\x00\x01"))
    assert info.value.sqlcode == -9660
