"""Adversary round 7c (issue 9): BOOLEANs beside fixed columns decoded a
block at a time while every BOOLEAN is its common 6 bytes
(codec/rowblock.py ``_boolean``), attacked with every value byte, NULL
flags inside 6 bytes, 5-byte NULLs and 7+5-byte pairs at every position of
a block, and held to the plain reference decoder (codec/rowdecode_ref.py):
the same values, None, errors (class and message) and number of rows,
however the reply is cut.  ``taken`` proves the block form ran where it
should, so these tests fail if it silently stopped being used."""

from __future__ import annotations

import struct

import pytest
from test_rowblock_differential import PerRow, feed, recording, tail, tuple_msg

from informix_stream.codec import rowblock
from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codecs import make_row_decoder, parse_type
from informix_stream.framing import MAX_FIELD

TYPES = [parse_type(t) for t in ("boolean", "integer", "char(2)", "boolean")]
ROWS = 40


def common(byte: int) -> bytes:
    """A BOOLEAN's common 6 bytes: null flag 0, length 1, its byte."""
    return b"\x00\x00\x00\x00\x01" + bytes((byte,))


NULL5 = b"\x01\x00\x00\x00\x00"           # the NULL a server sends: no byte
NULL6 = b"\x01\x00\x00\x00\x01\x00"       # a NULL flag with a byte after it
SEVEN = b"\x00\x00\x00\x00\x02\x01\x00"   # two value bytes
EMPTY = b"\x00\x00\x00\x00\x00"           # not NULL, no byte


@pytest.fixture
def taken(monkeypatch):
    """The BOOLEAN values the block form read (its ``_IS_TRUE`` calls)."""
    return recording(monkeypatch, rowblock, "_IS_TRUE")


def row(i: int, first: bytes, last: bytes) -> bytes:
    return first + struct.pack("!i", i) + b"ab" + last


def same_as_reference(images: list[bytes], types=TYPES, extra: bytes = b"") -> tuple:
    """The reply of ``images`` through the block path and through the
    reference, whole and cut in three places: equal; the block result."""
    data = b"".join(tuple_msg(m) for m in images) + extra + tail(len(images))
    got = None
    for cuts in ([], [len(data) // 3, len(data) // 2, len(data) - 3]):
        pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
        want = feed(PerRow(reference_decoder(types)), pieces, MAX_FIELD)
        got = feed(make_row_decoder(types), pieces, MAX_FIELD)
        assert got == want
    return got


def test_every_value_byte_reads_as_the_reference(taken):
    """Value bytes 0-255 (0x00, 0x01, 0x02, 0xff, 't', 'T', 'f' among
    them): true only for 0x01, 't' and 'T', in one block."""
    images = [row(b, common(b), common(255 - b)) for b in range(256)]
    stops, raised, _, error, rows = same_as_reference(images)
    assert raised is None and error is None and len(rows) == 256
    trues = [i for i, r in enumerate(rows) if r[0] == ("bool", "True")]
    assert trues == [1, ord("T"), ord("t")] and len(taken) >= 512


@pytest.mark.parametrize("cell", [NULL6, b"\x02\x00\x00\x00\x01\x01", b"\xff\x00\x00\x00\x01\x00"],
                         ids=["null-flag", "flag-2", "flag-ff"])
@pytest.mark.parametrize("at", range(0, ROWS, 3))
def test_a_six_byte_cell_with_another_flag_at_any_position(cell, at):
    """A 6-byte cell whose flag byte is 1 (NULL: its byte is not read) or
    another value (not NULL) mid-block, in either BOOLEAN column."""
    images = [row(i, common(i & 1), common(1)) for i in range(ROWS)]
    images[at] = row(at, cell, common(0))
    images[(at + 7) % ROWS] = row(at, common(0), cell)
    *_, rows = same_as_reference(images)
    assert len(rows) == ROWS
    assert rows[at][0] == (("NoneType", "None") if cell == NULL6 else ("bool", "True"
                                                                       if cell[5] else "False"))


@pytest.mark.parametrize("at", range(ROWS))
def test_null_and_non_null_at_every_position(at):
    """A 5-byte NULL (its tuple a byte shorter) at each position of a
    block, and every row from it on NULL in the other column: the block
    form, then the run hook, give the reference's rows."""
    images = [row(i, common(i % 3 == 0), common(1) if i < at else NULL5) for i in range(ROWS)]
    images[at] = row(at, NULL5, common(0))
    stops, raised, _, error, rows = same_as_reference(images)
    assert raised is None and error is None and len(rows) == ROWS
    assert rows[at][0] == ("NoneType", "None") and rows[at][3] == ("bool", "False")


@pytest.mark.parametrize("at", range(0, ROWS, 2))
@pytest.mark.parametrize("pair", [(SEVEN, NULL5), (NULL5, SEVEN), (EMPTY, SEVEN),
                                  (NULL6, common(1))], ids=["7+5", "5+7", "5+7-empty", "6+6-null"])
def test_pairs_the_size_of_two_common_cells(at, pair):
    """Two BOOLEANs whose lengths sum to twelve like two common cells, at
    each position: only their lengths tell them apart, and the row's
    values are the reference's (never the 6+6 reading)."""
    types = [parse_type(t) for t in ("boolean", "integer", "boolean")]
    images = [common(1) + struct.pack("!i", i) + common(0) for i in range(ROWS)]
    first, second = pair
    images[at] = first + struct.pack("!i", at) + second     # the pair apart
    adjacent = [parse_type(t) for t in ("integer", "boolean", "boolean")]
    side = [struct.pack("!i", i) + common(1) + common(0) for i in range(ROWS)]
    side[at] = struct.pack("!i", at) + first + second
    stops, raised, _, error, rows = same_as_reference(side, adjacent)
    assert len(rows) == ROWS and raised is None
    same_as_reference(images, types)


def test_a_length_past_the_reply_is_the_references_error():
    """The last row's BOOLEAN says a length past everything received: the
    reference's ProtocolError, class and message."""
    types = [parse_type("boolean")]
    images = [common(1)] * 20 + [b"\x00\x7f\xff\xff\xff\x01"]
    data = b"".join(tuple_msg(m) for m in images)
    want = feed(PerRow(reference_decoder(types)), [data], MAX_FIELD)
    assert want[1] is not None and want[1][0] == "ProtocolError"
    assert feed(make_row_decoder(types), [data], MAX_FIELD) == want
