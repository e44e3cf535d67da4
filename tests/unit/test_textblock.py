"""CHAR/NCHAR columns of the block decoder cut by one regular expression a
row (codec/textblock.py), held to the plain reference decoder
(codec/rowdecode_ref.py): the same fetch reply bytes through
``parse_reply`` with the shape's block hook and through the reference a
row at a time give the same rows, the same recorded errors and the same
raised errors, in every code set the driver supports (locales.CODE_SETS),
for blank-only cells, NULL cells (a first byte 0 and anything after it),
text cut inside a multibyte character at the cell's end, and bytes the
code set has no character for."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rowblock_differential import PerRow, feed, tail, tuple_msg

from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codec.textblock import ASCII, DEFINED, EVERY, _byte_chars, text_group
from informix_stream.codecs import make_row_decoder, parse_type
from informix_stream.framing import MAX_FIELD
from informix_stream.locales import CODE_SETS

ENCODINGS = sorted({codec for _, codec in CODE_SETS.values()})
_SETTINGS = settings(max_examples=150, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# Columns a shape mixes with its CHARs: other offsets, odd widths (a pad byte).
_OTHERS = ["integer", "smallint", "date"]


@st.composite
def char_cell(draw, width: int, encoding: str) -> bytes:
    """One CHAR(width) cell: text of the code set blank-padded (cut inside
    a multibyte character when it runs over), blanks only, a NULL with any
    bytes after its NUL, or any bytes at all."""
    kind = draw(st.sampled_from(["text", "text", "text", "ascii", "blanks", "null", "bytes"]))
    if kind == "blanks":
        return b" " * width
    if kind == "null":
        return b"\x00" + draw(st.binary(min_size=width - 1, max_size=width - 1))
    if kind == "bytes":
        return draw(st.binary(min_size=width, max_size=width))
    alphabet = st.characters(max_codepoint=127 if kind == "ascii" else 0x3000,
                             blacklist_categories=("Cs",))
    text = draw(st.text(alphabet, max_size=width))
    raw = text.encode(encoding, "replace")[:width]
    return raw.ljust(width, b" ") if raw[:1] != b"\x00" else b"a" + raw[1:].ljust(width - 1)


@st.composite
def replies(draw):
    """(encoding, column types, reply bytes, receive cuts)."""
    encoding = draw(st.sampled_from(ENCODINGS))
    kinds = draw(st.lists(st.one_of(st.integers(1, 12), st.sampled_from(_OTHERS)),
                          min_size=1, max_size=4))
    if not any(isinstance(k, int) for k in kinds):
        kinds.append(draw(st.integers(1, 12)))
    columns = [parse_type(f"char({k})" if isinstance(k, int) else k) for k in kinds]
    clean = draw(st.booleans())     # every cell text: the whole block takes the group
    rows = []
    for _ in range(draw(st.integers(1, 80))):
        image = b""
        for c in columns:
            if c.code.name in ("CHAR", "NCHAR"):
                cell = char_cell(c.length, encoding)
                image += draw(cell.filter(lambda b: b[0] != 0 and b.isascii()) if clean else cell)
            else:
                image += draw(st.binary(min_size=c.wire_width, max_size=c.wire_width))
        rows.append(image)
    data = b"".join(tuple_msg(r) for r in rows) + tail(len(rows))
    cuts = draw(st.lists(st.integers(1, len(data) - 1), max_size=2))
    return encoding, columns, data, cuts


@_SETTINGS
@given(replies())
def test_block_path_reads_char_columns_as_the_reference(case):
    encoding, columns, data, cuts = case
    cuts = sorted(set(cuts))
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
    decode = make_row_decoder(columns, encoding)
    assert hasattr(decode, "bulk")
    want = feed(PerRow(reference_decoder(columns, encoding)), pieces, MAX_FIELD)
    assert feed(decode, pieces, MAX_FIELD) == want


@pytest.mark.parametrize("encoding, expected", [
    ("iso-8859-1", EVERY), ("iso-8859-2", EVERY), ("iso-8859-15", EVERY), ("cp850", EVERY),
    ("cp437", EVERY), ("cp1252", DEFINED), ("utf-8", None), ("gb18030", None),
    ("shift_jis", None), ("utf-16", None), ("iso2022_jp", None)])
def test_code_sets_read_a_character_a_byte_or_not(encoding, expected):
    """A multibyte code set whose lead byte fails alone (gb18030, Shift-JIS)
    is no DEFINED one: its pairs would shift every later cell."""
    assert _byte_chars(encoding) == expected


def _block(cells: list[bytes], other: bytes = b"\x00\x00\x00\x07") -> tuple[bytes, int]:
    """Rows of [INTEGER][CHAR(4)] as one block: (bytes, stride)."""
    data = b"".join(struct.pack("!hhI", 14, 0, 8) + other + c for c in cells)
    return data, 16


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_the_group_takes_clean_blocks_and_nulls_in_every_code_set(encoding):
    """The fast path is really taken (these tests would pass on the cell
    code alone otherwise): clean text and NULLs with anything after the NUL
    come back cut, NULLs as None, blanks kept."""
    cells = [b"ab  ", b"\x00\xff\xfe\xe9", b"    ", b"zz9 "]
    data, stride = _block(cells, other=b"xy\x00\x07")
    group = text_group([(12, 4)], 2, stride, encoding, encoding == "utf-8")
    assert group is not None and group.mode == (ASCII if encoding == "utf-8" else
                                                _byte_chars(encoding))
    assert group.columns(data, 4) == [("ab  ", None, "    ", "zz9 ")]
    whole = text_group([(8, 4), (12, 4)], 2, stride, encoding, encoding == "utf-8")
    other = "xy\x00\x07"
    assert whole.rows(data, 4) == [(other, "ab  "), (other, None), (other, "    "),
                                   (other, "zz9 ")]


def test_blocks_the_group_cannot_vouch_for_go_to_the_cell_code():
    """UTF-8 text beyond ASCII, and a cp1252 byte with no character in any
    column, leave the block to the cell code (None), which reads it as the
    reference does."""
    data, stride = _block([b"ab  ", "é  ".encode()])
    assert text_group([(12, 4)], 2, stride, "utf-8", True).columns(data, 2) is None
    data, stride = _block([b"ab  ", b"cd  "], other=b"\x00\x00\x00\x81")
    assert text_group([(12, 4)], 2, stride, "cp1252", False).columns(data, 2) is None
    columns = [parse_type("integer"), parse_type("char(4)")]
    for encoding, cells in (("utf-8", [b"ab  ", "é  ".encode(), "\u20ac ".encode()]),
                            ("cp1252", [b"ab  ", b"c\x81  "])):
        data = b"".join(tuple_msg(b"\x00\x00\x00\x01" + c) for c in cells) + tail(len(cells))
        want = feed(PerRow(reference_decoder(columns, encoding)), [data], MAX_FIELD)
        assert feed(make_row_decoder(columns, encoding), [data], MAX_FIELD) == want


def test_a_character_cut_at_the_cell_end_is_the_references_error():
    """CHAR(4) in UTF-8 holding 'ab' and the first byte of a 2-byte
    character: the reference's DataError, recorded for that row only."""
    columns = [parse_type("char(4)")] * 2
    cells = [b"abcdefgh", b"ab\xc3\xa9abc\xc3", b"wxyz1234"]
    data = b"".join(tuple_msg(c) for c in cells) + tail(3)
    want = feed(PerRow(reference_decoder(columns, "utf-8")), [data], MAX_FIELD)
    got = feed(make_row_decoder(columns, "utf-8"), [data], MAX_FIELD)
    assert got == want
    assert got[3][0] == "DataError" and len(got[4]) == 2


def test_utf8_blocks_checked_by_their_masked_bytes():
    """A UTF-8 shape of mostly CHAR bytes is checked by one isascii over
    the block with its other bytes zeroed: a NULL with zeros after its NUL
    is taken, one with other bytes after it leaves the block to the cell
    code -- whose rows are still the reference's."""
    columns = [parse_type("char(2)")] * 4
    members = [(8 + 2 * i, 2) for i in range(4)]
    group = text_group(members, 4, 16, "utf-8", True)
    assert group.others is not None
    clean = tuple_msg(b"ab\x00\x00cdef") + tuple_msg(b"gh  \x00\x00ij")
    assert group.rows(clean, 2) == [("ab", None, "cd", "ef"), ("gh", "  ", None, "ij")]
    garbage, accented = tuple_msg(b"gh  \x00\xffij"), tuple_msg(b"\xc3\xa9  klmn")
    assert group.rows(garbage, 1) is None and group.rows(accented, 1) is None
    rows = [clean, garbage, accented, clean]
    data = b"".join(rows)
    data += tail(6)
    want = feed(PerRow(reference_decoder(columns, "utf-8")), [data], MAX_FIELD)
    assert feed(make_row_decoder(columns, "utf-8"), [data], MAX_FIELD) == want
