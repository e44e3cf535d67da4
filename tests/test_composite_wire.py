"""The emulator's binary (send/receive) form of ROW and collection cells
(emulator/composite_wire.py), sent to a client whose SQ_RET_TYPE asks type
44 for the column, as IBM's JDBC does.  Layout facts from JDBC's
IfxComplex.fromIfx/toIfx and IfxComplexInput (docs/protocol.md 10.7);
tests/interop/test_composite_interop.py has JDBC itself read them."""

from __future__ import annotations

import struct

import pytest

from informix_stream.codec import composite as cc
from informix_stream.emulator import composite_wire as cw
from informix_stream.emulator.statements import NOT_SUPPORTED, SqlError

pytestmark = pytest.mark.timeout(30)

HEAD = 4 + 4 + 2 + 128 + 2          # length word .. type count
ENTRY = 414


def _split(cell: bytes) -> tuple[int, list[bytes], int, bytes]:
    """(type count, entries, flags, data) of one binary cell, checking its lengths."""
    (n,) = struct.unpack_from("!i", cell)
    assert n == len(cell) - 4
    (count,) = struct.unpack_from("!h", cell, HEAD - 2)
    entries = [cell[HEAD + k * ENTRY:HEAD + (k + 1) * ENTRY] for k in range(count)]
    tail = HEAD + count * ENTRY
    zero, size, flags = struct.unpack_from("!iii", cell, tail)
    assert zero == 0
    data = cell[tail + 12:]
    assert len(data) == size
    return count, entries, flags, data


def _entry_fields(entry: bytes) -> tuple[int, str, int, int]:
    """(level, name, type code, length) of a type entry."""
    level, = struct.unpack_from("!h", entry, 2)
    nlen, = struct.unpack_from("!h", entry, 6)
    code, length = struct.unpack_from("!hh", entry, 138)
    return level, entry[8:8 + nlen].decode(), code, length


def test_null_cell_keeps_its_type_entries() -> None:
    enc = cw.cell_encoder(cc.composite_type("SET(INT NOT NULL)"), "iso-8859-1")
    count, entries, flags, data = _split(enc(None))
    assert (count, flags, data) == (2, -0x80000000, b"")
    assert [_entry_fields(e) for e in entries] == [(0, "", 19, 0), (1, "", 2 | 0x100, 4)]


def test_int_set_has_no_offset_table() -> None:
    enc = cw.cell_encoder(cc.composite_type("SET(INT NOT NULL)"), "iso-8859-1")
    _, _, flags, data = _split(enc("SET{3,1}"))
    assert flags == 1
    assert data == struct.pack("!ii", 3, 1)


def test_varchar_list_ends_with_offsets_last_first() -> None:
    enc = cw.cell_encoder(cc.composite_type("LIST(VARCHAR(8) NOT NULL)"), "iso-8859-1")
    _, _, _, data = _split(enc("LIST{'x','yy'}"))
    assert data == b"\x01x\x02yy" + struct.pack("!iii", -1, 2, 0)


def test_row_fields_named_and_null_field_in_row_image_form() -> None:
    enc = cw.cell_encoder(cc.composite_type("ROW(a INT, b VARCHAR(5))"), "iso-8859-1")
    count, entries, _, data = _split(enc("ROW(NULL,'hi')"))
    assert [_entry_fields(e)[:3] for e in entries] == [(0, "", 22), (1, "a", 2), (1, "b", 13)]
    assert data == struct.pack("!i", -0x80000000) + b"\x02hi" + struct.pack("!iii", -1, 4, 0)


def test_nested_value_header_aligns_its_flags_word() -> None:
    enc = cw.cell_encoder(cc.composite_type("LIST(SET(INT NOT NULL) NOT NULL)"), "iso-8859-1")
    _, _, _, data = _split(enc("LIST{SET{5}}"))
    pad = 8          # JDBC getUDToffset(0): (0 + 3) % 8 != 0 -> 11 - 3
    inner = struct.pack("!i", 5)
    assert struct.unpack_from("!h", data)[0] == len(inner) + pad + 6
    assert struct.unpack_from("!i", data, pad)[0] == 1
    assert data[pad + 8:pad + 8 + 4] == inner
    assert data[pad + 12:] == struct.pack("!ii", -1, 0)


def test_null_nested_value_is_short_one_byte_one() -> None:
    enc = cw.cell_encoder(cc.composite_type("ROW(a SET(INT NOT NULL))"), "iso-8859-1")
    _, _, _, data = _split(enc("ROW(NULL)"))
    assert data == b"\x00\x01\x01" + struct.pack("!ii", -1, 0)


def test_element_type_without_a_binary_form_is_refused_loudly() -> None:
    with pytest.raises(SqlError) as info:
        cw.cell_encoder(cc.composite_type("SET(LVARCHAR NOT NULL)"), "iso-8859-1")
    assert info.value.sqlcode == NOT_SUPPORTED
    assert "not supported by the emulator" in str(info.value)


def test_only_sendrecv_asks_the_binary_form() -> None:
    ctype = cc.composite_type("SET(INT NOT NULL)")
    assert cw.wants_binary(ctype, 44)
    assert not cw.wants_binary(ctype, 19)
    assert not cw.wants_binary(ctype, 43)
