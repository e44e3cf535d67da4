"""Issue 12 item 4 / issue 11 item 2: ROW, SET, MULTISET and LIST columns,
driver and emulator together, and hostile composite bytes.

Wire form: the opaque-type envelope holding the value's text form, as
informix-driver recorded it from a real Informix 15 (its _resultset.py:
``00 00 00 08 | 01 | 00 00 00 00 | 03 78 79 7a`` for INT 8, a NULL SET,
VARCHAR 'xyz'; ``ROW('Alice',30)`` / ``LIST{10,20,30}`` as text).
Error codes: IBM JDBC 15.0.1.0 message catalog (sql_en_US.properties).
"""

from __future__ import annotations

import datetime
import decimal
import struct

import pytest

import informix_stream as ifx
from faults.emu import connect
from informix_stream.codec import composite as cc
from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codecs import ColumnType, TypeCode, make_row_decoder, make_row_encoder
from informix_stream.errtext import message_for

pytestmark = pytest.mark.timeout(60)

DDL = ("CREATE TABLE comp (id INT, s SET(INT NOT NULL), m MULTISET(VARCHAR(10) NOT NULL),"
       " l LIST(DECIMAL(6,2) NOT NULL), r ROW(a INT, b VARCHAR(10)),"
       " n ROW(x INT, y LIST(ROW(p DATE, q BOOLEAN) NOT NULL)))")
ROW1 = ("INSERT INTO comp VALUES (1, SET{3,1,3}, MULTISET{'a','a','b'}, LIST{1.5,2},"
        " ROW(7,'it''s'), ROW(1, LIST{ROW('01/02/2024','t'), ROW(NULL, NULL)}))")


@pytest.fixture()
def conn(server):
    c = connect(server)
    cur = c.cursor()
    cur.execute("DROP TABLE IF EXISTS comp")
    cur.execute(DDL)
    c.commit()
    yield c
    c.close()


def test_values_nulls_and_nesting_round_trip(conn):
    cur = conn.cursor()
    cur.execute(ROW1)
    cur.execute("INSERT INTO comp VALUES (2, NULL, NULL, NULL, NULL, NULL)")
    cur.execute("SELECT * FROM comp ORDER BY id")
    one, two = cur.fetchall()
    assert one[1] == {1, 3} and isinstance(one[1], set)      # SET drops duplicates
    assert one[2] == cc.Multiset(["b", "a", "a"]) and one[2] != cc.Multiset(["a", "b"])
    assert one[3] == [decimal.Decimal("1.50"), decimal.Decimal("2.00")]
    assert one[4] == (7, "it's") and one[4].a == 7 and one[4].b == "it's"
    assert one[5].y[0] == (datetime.date(2024, 1, 2), True)
    assert one[5].y[1] == (None, None)
    assert two == (2, None, None, None, None, None)


def test_described_with_type_codes(conn):
    cur = conn.cursor()
    cur.execute("SELECT s, m, l, r FROM comp")
    assert [d[1] for d in cur.description] == [19, 20, 21, 22]
    cur.execute("SELECT colname, coltype FROM syscolumns WHERE tabid ="
                " (SELECT tabid FROM systables WHERE tabname = 'comp') AND colno > 1")
    assert [t for _, t in cur.fetchall()] == [19, 20, 21, 22, 22]


def test_rows_as_dicts_by_choice(server, conn):
    conn.cursor().execute(ROW1)
    conn.commit()
    cur = conn.cursor()
    cur.composite_rows = "dict"
    cur.execute("SELECT r, n FROM comp")
    r, n = cur.fetchone()
    assert r == {"a": 7, "b": "it's"}
    assert n["y"][1] == {"p": None, "q": None}
    with connect(server, composite_rows="dict") as c2:
        c2cur = c2.cursor()
        c2cur.execute("SELECT r FROM comp")
        assert c2cur.fetchone()[0] == {"a": 7, "b": "it's"}


def test_python_values_bind_as_parameters(conn):
    cur = conn.cursor()
    cur.execute("INSERT INTO comp VALUES (?, ?, ?, ?, ?, ?)",
                (3, {5, 6}, cc.Multiset(["z", "z"]), [decimal.Decimal("1.25")],
                 cc.Row(None, "q"), None))
    cur.execute("INSERT INTO comp (id, r) VALUES (?, ?)", (4, {"a": 1, "b": "d"}))
    cur.execute("SELECT s, m, l, r FROM comp WHERE id = 3")
    assert cur.fetchone() == ({5, 6}, ["z", "z"], [decimal.Decimal("1.25")], (None, "q"))
    cur.execute("SELECT r FROM comp WHERE id = 4")
    assert cur.fetchone()[0] == (1, "d")


@pytest.mark.parametrize("sql, code", [
    ("INSERT INTO comp (id, s) VALUES (9, SET{NULL})", -9978),      # NULL element
    ("INSERT INTO comp (id, r) VALUES (9, ROW(1))", -9989),         # field count
    ("INSERT INTO comp (id, s) VALUES (9, LIST{1})", -9602),        # other kind
    ("INSERT INTO comp (id, s) VALUES (9, SET{'x'})", -9634),       # no cast
    ("CREATE TABLE bad1 (s SET(INT))", -201),                       # elements NOT NULL
    ("CREATE TABLE bad2 (s SET(INT NOT NULL) DEFAULT NULL)", -9911),
    ("CREATE TABLE bad3 (s SET(INT NOT NULL) UNIQUE)", -9912),
    ("CREATE TABLE bad4 (r ROW(a INT, a INT))", -201),
    ("CREATE TABLE bad5 (r ROW(a TEXT))", -201),
])
def test_bad_values_and_definitions_are_the_servers_errors(conn, sql, code):
    with pytest.raises(ifx.DatabaseError) as info:
        conn.cursor().execute(sql)
    assert info.value.sqlcode == code
    # the text of IBM's message catalog for the code, %s filled with the name sent
    assert str(info.value).startswith(f"[{code}] {message_for(code, info.value.near)}")
    assert "Informix error" not in str(info.value)
    cur = conn.cursor()
    cur.execute("SELECT count(*) FROM comp")
    assert cur.fetchone() == (0,)


@pytest.mark.parametrize("sql", [
    "SELECT r.a FROM comp",                       # field access
    "SELECT comp.r.b FROM comp",
    "SELECT n.y FROM comp WHERE id = 1",
    "SELECT r.* FROM comp",
    "SELECT id FROM comp WHERE 3 IN s",           # IN over a collection column
    "SELECT id FROM comp WHERE s = SET{1,3}",     # collection literal in an expression
    "SELECT id FROM comp WHERE r = ROW(7, 'x')",  # ROW constructor in an expression
    "SELECT LIST{1,2} FROM comp",
])
def test_valid_composite_expressions_are_not_supported_not_wrong_sql(conn, sql):
    """Valid Informix SQL the emulator cannot compute is refused as not
    supported by the emulator, never blamed on the user (-201/-206/-217)."""
    conn.cursor().execute(ROW1)
    with pytest.raises(ifx.DatabaseError, match="not supported by the emulator") as info:
        conn.cursor().execute(sql)
    assert info.value.sqlcode == -9999
    cur = conn.cursor()                          # the connection stays usable
    cur.execute("SELECT id FROM comp")
    assert cur.fetchall() == [(1,)]


def test_a_missing_column_is_still_217(conn):
    with pytest.raises(ifx.DatabaseError) as info:
        conn.cursor().execute("SELECT comp.nosuch FROM comp")
    assert info.value.sqlcode == -217


def test_constructor_with_marker_is_not_supported_by_the_emulator(conn):
    with pytest.raises(ifx.DatabaseError, match="not supported by the emulator"):
        conn.cursor().execute("INSERT INTO comp (id, r) VALUES (1, ROW(?, 'x'))", (1,))


# -- codec level: the bytes a real server sends, and hostile ones ------------

SET_INT = cc.composite_type("SET(INT NOT NULL)")
ROW_T = cc.composite_type("ROW(a INT, b VARCHAR(10))")
COLS = [ColumnType(TypeCode.INTEGER, 4), SET_INT, ColumnType(TypeCode.VARCHAR, 10)]


def test_null_set_has_the_layout_a_real_server_sends():
    image = make_row_encoder(COLS)([8, None, "xyz"])
    assert image == bytes.fromhex("00000008" "01" "00000000" "03" "78797a")
    assert make_row_decoder(COLS)(image) == ((8, None, "xyz"), len(image))


def _cell(text: bytes) -> bytes:
    return b"\x00\x00\x00\x08" + b"\x00" + struct.pack("!i", len(text)) + text + b"\x03xyz"


@pytest.mark.parametrize("body", [b"SET{1,", b"SET{1,x}", b"LIST{1}", b"SET{1}}", b"\xff\xfe",
                                  b"SET{NULL}", b"ROW(1)", b"SET{'1}", b"", b"SET{99999999999999999999999}x"])
def test_malformed_composite_bytes_are_data_errors(body):
    buf = _cell(body)
    for decoder in (make_row_decoder(COLS), reference_decoder(COLS)):
        with pytest.raises(ifx.DataError):
            decoder(buf, 0, len(buf))


@pytest.mark.parametrize("buf", [b"\x00\x00\x00\x08\x00\x7f\xff\xff\xff",   # length past the end
                                 b"\x00\x00\x00\x08\x00\xff\xff\xff\xfe",   # negative length
                                 b"\x00\x00\x00\x08\x00\x00"])              # header cut short
def test_composite_framing_faults_are_protocol_errors(buf):
    for decoder in (make_row_decoder(COLS), reference_decoder(COLS)):
        with pytest.raises(ifx.OperationalError):
            decoder(buf, 0, len(buf))


def test_unsupported_element_type_refused_when_described():
    ctype = ColumnType(TypeCode.LIST, 2048, True, "list(datetime year to day not null)")
    with pytest.raises(ifx.NotSupportedError):
        make_row_decoder([ctype])


def test_literal_and_canonical_agree():
    assert cc.literal({1}) == "SET{1}"
    assert cc.literal(cc.Multiset([1, 1])) == "MULTISET{1,1}"
    assert cc.literal([cc.Row(1, "a'b"), (2, None)]) == "LIST{ROW(1,'a''b'),ROW(2,NULL)}"
    assert cc.canonical(SET_INT, "SET{ 2, '1', 2 }") == "SET{2,1}"
    assert cc.canonical(ROW_T, "ROW(1.0,'abcdefghijkl')") == "ROW(1,'abcdefghij')"
    with pytest.raises(ifx.DataError):
        cc.canonical(ROW_T, "ROW(1.5,'x')")
