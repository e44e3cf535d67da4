"""The two wire forms of BOOLEAN, BLOB and CLOB columns (docs/protocol.md 8a):
the text form (BOOLEAN 't'/'f', a locator as 144 hex characters) to a
statement whose client sent no SQ_RET_TYPE, the binary form (1/0, 72 raw
bytes) to one whose SQ_RET_TYPE asked it (JDBC: 45 for BOOLEAN, 44 for
BLOB/CLOB).  The emulator sends each as asked; our driver reads both and
never takes one for the other."""

from __future__ import annotations

import struct
import uuid

import pytest

import informix_stream as ifx
from faults.emu import connect
from informix_stream.codec import slob
from informix_stream.codec.typeinfo import ColumnType, TypeCode
from informix_stream.codecs import make_row_decoder
from informix_stream.emulator import composite_wire as cw

pytestmark = pytest.mark.timeout(60)

BOOL = ColumnType(TypeCode.BOOLEAN, 1)
BLOB = ColumnType(TypeCode.BLOB, 72)
CLOB = ColumnType(TypeCode.CLOB, 72)
INT = ColumnType(TypeCode.INTEGER, 4)
LOC = slob.locator(7, 10)


def _image(message: bytes) -> bytes:
    """The row image of an SQ_TUPLE message."""
    tag, _warn, size = struct.unpack_from("!hhi", message)
    assert tag == 14
    return message[8:8 + size]


@pytest.mark.parametrize(("ctype", "codes"), [(BOOL, {40, 41, 44, 45}),
                                             (BLOB, {40, 41, 44}), (CLOB, {40, 41, 44})])
def test_which_ret_type_codes_ask_the_binary_form(ctype, codes):
    # 43 (SQLLVARCHAR) asks the output function's text; so does no SQ_RET_TYPE
    for code in range(0, 60):
        assert cw.wants_binary(ctype, code) is (code in codes), code


def test_text_form_cells():
    encode = cw.tuple_encoder([INT, BOOL, BLOB, BOOL, CLOB], frozenset(), "iso-8859-1")
    image = _image(encode((5, True, LOC, False, None)))
    hexed = LOC.hex().encode()
    assert len(hexed) == 144
    assert image == (struct.pack("!i", 5) + b"\x00\x00\x00\x00\x01t"
                     + b"\x00" + struct.pack("!i", 144) + hexed
                     + b"\x00\x00\x00\x00\x01f" + b"\x01\x00\x00\x00\x00")


def test_binary_form_cells():
    encode = cw.tuple_encoder([BOOL, BLOB, BOOL], frozenset({0, 1, 2}), "iso-8859-1")
    image = _image(encode((True, LOC, None)))
    assert image == (b"\x00\x00\x00\x00\x01\x01" + b"\x00" + struct.pack("!i", 72) + LOC
                     + b"\x01\x00\x00\x00\x00")


@pytest.mark.parametrize("binary", [frozenset(), frozenset({0, 1, 2})])
def test_our_row_decoder_reads_both_forms_alike(binary):
    encode = cw.tuple_encoder([BOOL, BLOB, CLOB, BOOL], binary, "iso-8859-1")
    image = _image(encode((True, LOC, LOC, False)))
    row, end = make_row_decoder([BOOL, BLOB, CLOB, BOOL])(image, 0)
    assert end == len(image)
    assert row == (True, LOC, LOC, False)
    assert isinstance(row[1], slob.Locator) and not row[1].text and row[2].text


@pytest.mark.parametrize("body", [LOC.hex().upper().encode(), LOC.hex().encode(), LOC])
def test_a_locator_cell_in_either_form_names_the_same_object(body):
    assert slob.cell_locator(body, False) == LOC
    assert slob.object_id(slob.cell_locator(body, True)) == 7


@pytest.mark.parametrize("body", [b"", LOC[:71], LOC + b"\x00", b"zz" * 72,
                                  ("é" * 72).encode("latin-1") * 2, LOC.hex().encode()[:-2]])
def test_a_cell_that_is_neither_form_is_a_protocol_error(body):
    with pytest.raises(ifx.OperationalError, match="neither"):
        slob.cell_locator(body, False)


def test_our_driver_reads_the_text_form_end_to_end(server):
    """Our driver sends no SQ_RET_TYPE, so the emulator hands it the text
    form (test_text_form_cells); the values come back through it."""
    name = f"forms_{uuid.uuid4().hex[:8]}"
    with connect(server) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {name} (id INT, f BOOLEAN, b BLOB, c CLOB)")
        cur.execute(f"INSERT INTO {name} VALUES (?, ?, ?, ?)", (1, True, b"\x00\x01", "x"))
        cur.execute(f"INSERT INTO {name} VALUES (?, ?, ?, ?)", (2, False, None, None))
        cur.execute(f"SELECT id, f, b, c FROM {name} ORDER BY id")
        assert cur.fetchall() == [(1, True, b"\x00\x01", "x"), (2, False, None, None)]


def test_a_locator_parameter_binds_the_object_it_names(server):
    """A Locator bound in execute() is the opaque blob/clob parameter (the row
    gets its own copy of that object), never its 72 bytes as a new value."""
    name = f"locp_{uuid.uuid4().hex[:8]}"
    with connect(server) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {name} (id INT, b BLOB, c CLOB)")
        cur.execute(f"INSERT INTO {name} VALUES (1, ?, ?)", (b"payload", "clob text"))
        loc_b, loc_c = _locators(conn, name)
        cur.execute(f"INSERT INTO {name} VALUES (2, ?, ?)", (loc_b, loc_c))
        cur.execute(f"SELECT id, b, c FROM {name} ORDER BY id")
        assert cur.fetchall() == [(1, b"payload", "clob text"), (2, b"payload", "clob text")]


def _locators(conn, table: str) -> tuple[slob.Locator, slob.Locator]:
    """The locators of row 1 (private to the stream objects: the driver has
    no public way to hand out a locator it read)."""
    cur = conn.cursor(lob="stream")
    cur.execute(f"SELECT b, c FROM {table} WHERE id = 1")
    b, c = cur.fetchone()
    locators = (b._source.locator, c._source.locator)
    cur.close()
    return locators


def test_rows_with_composite_columns_give_the_same_opaque_cells():
    """Rows with a ROW/collection column take the cell-by-cell path; the
    opaque columns' cells are the same bytes as on the compiled path."""
    from informix_stream.codec import composite as cc
    plain = cw.tuple_encoder([BOOL, BLOB], frozenset(), "iso-8859-1")
    mixed = cw.tuple_encoder([BOOL, BLOB, cc.composite_type("SET(INT NOT NULL)")], frozenset(),
                             "iso-8859-1")
    for values in ((True, LOC), (False, None), (None, LOC)):
        expected = _image(plain(values))
        got = _image(mixed((*values, None)))
        assert got[:len(expected)] == expected
