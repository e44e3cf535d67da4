"""Adversary round 7c (issue 9): the CHAR columns of the block decoder cut
by one regular expression a row (codec/textblock.py), attacked with the
bytes a regex or a code-set shortcut could get wrong, each held to the
plain reference decoder (codec/rowdecode_ref.py): the same rows, the same
None for NULL, the same recorded or raised error (class and message), the
same number of rows, in every code set the driver supports.

Where a case is meant to run the fast path (not only the per-cell code it
falls back to), ``taken`` proves the regex cut the block, so the test
fails if the fast path silently stopped being used."""

from __future__ import annotations

import struct
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rowblock_differential import PerRow, feed, tail, tuple_msg

from informix_stream.codec import textblock
from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codecs import make_row_decoder, make_row_encoder, parse_type
from informix_stream.framing import MAX_FIELD
from informix_stream.locales import CODE_SETS

ENCODINGS = sorted({codec for _, codec in CODE_SETS.values()})
# bytes a regex or a code set's shortcut may treat specially: NUL, line
# ends (\n, \r, latin-1 NEL 0x85), cp1252's undefined bytes, UTF-8 lead and
# continuation bytes (e2 80 a8 is U+2028), regex metacharacters
SPECIAL = b"\x00\n\r\x85\x81\x8d\x8f\x90\x9d\xc3\xa9\xe2\x80\xa8 .*\\$^()[]{}|?+\xff"


@pytest.fixture
def taken(monkeypatch):
    """The number of blocks the text group cut (its ``_found`` answered)."""
    hits = []
    found = textblock.TextGroup._found

    def spy(self, data, n):
        got = found(self, data, n)
        if got is not None:
            hits.append(n)
        return got
    monkeypatch.setattr(textblock.TextGroup, "_found", spy)
    return hits


def _types(*specs: str) -> list:
    return [parse_type(s) for s in specs]


def same_as_reference(types, images, encoding, cuts=(), extra=b"") -> tuple:
    """The reply of ``images`` through the block path and through the
    reference a row at a time: equal; the block path's result."""
    data = b"".join(tuple_msg(m) for m in images) + extra + tail(len(images))
    cuts = sorted({c for c in cuts if 0 < c < len(data)})
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
    want = feed(PerRow(reference_decoder(types, encoding)), pieces, MAX_FIELD)
    got = feed(make_row_decoder(types, encoding), pieces, MAX_FIELD)
    assert got == want
    return got


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_line_ends_and_metacharacters_are_text(encoding, taken):
    """\\n, \\r and regex metacharacters are characters of a value: the
    cut's ``.`` matches them (DOTALL), so no row shifts or merges."""
    types = _types("char(6)", "integer", "char(1)")
    cells = [b"a\nb\r\n ", b"\n\n\n\n\n\n", b".*$^()", b"\\1(?P<", b"\r     "]
    images = [c + struct.pack("!i", i) + b"\n" for i, c in enumerate(cells * 20)]
    *_, rows = same_as_reference(types, images, encoding)
    assert len(rows) == 100 and rows[0][0] == ("str", repr("a\nb\r\n "))
    assert rows[0][2] == ("str", repr("\n")) and taken


@pytest.mark.parametrize("encoding", [e for e in ENCODINGS if e != "utf-8"])
def test_single_byte_line_ends_beyond_ascii(encoding, taken):
    """0x85 (latin-1's NEL, cp1252's ellipsis) and every other byte the
    code set defines, in CHAR(1) cells of one block: the reference's
    characters, one a row."""
    types = _types("char(1)", "char(3)")
    defined = [b for b in range(1, 256) if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
               or encoding != "cp1252"]
    images = [bytes((b,)) + b"x\x85y" for b in defined]
    *_, rows = same_as_reference(types, images, encoding)
    assert len(rows) == len(defined) and taken
    assert rows[defined.index(0x85)][0] == ("str", repr(bytes((0x85,)).decode(encoding)))


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_nul_inside_a_value_is_a_character(encoding, taken):
    """A NUL not at the cell's first byte is part of the value (only a
    first byte 0 is NULL), in the clean pattern and in the NULL one."""
    types = _types("char(4)", "char(4)")
    images = [b"a\x00\x00b" + b"\x00zzz", b"ab\x00 " + b"    ", b"\x00\x00\x00\x00" + b"x\x00\x00\x00"]
    *_, rows = same_as_reference(types, images * 10, encoding)
    assert rows[:3] == [(("str", repr("a\x00\x00b")), ("NoneType", "None")),
                        (("str", repr("ab\x00 ")), ("str", repr("    "))),
                        (("NoneType", "None"), ("str", repr("x\x00\x00\x00")))]
    assert taken


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("rest", [b"abc", b"\xff\xfe\xfd", b"\x00\x00\x00", b"\xc3\xa9 "],
                         ids=["text", "high", "nuls", "utf8"])
def test_a_first_byte_zero_is_null_whatever_follows(encoding, rest):
    """The reference reads nothing after a NULL's NUL: bytes no code set
    has, or a character cut in two, there give None, not an error."""
    types = _types("integer", "char(4)")
    images = [struct.pack("!i", i) + (b"\x00" + rest if i % 3 == 1 else b"ok  ")
              for i in range(60)]
    *_, rows = same_as_reference(types, images, encoding)
    assert [r[1] for r in rows[:3]] == [("str", "'ok  '"), ("NoneType", "None"),
                                        ("str", "'ok  '")]


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("width", [1, 255, 32767])
def test_widths_from_one_to_the_largest(encoding, width, taken):
    """CHAR(1) (the NULL alternative ``\\x00.{0}``), CHAR(255) and
    CHAR(32767) (a repeat count past 2**15, a stride past 2**16)."""
    types = _types("char(%d)" % width, "smallint", "char(%d)" % width)
    cell = (b"q\n" * width)[:width]
    null = b"\x00" + cell[1:]
    images = [(cell if i % 4 else null) + struct.pack("!h", i) + (null if i % 5 == 2 else cell)
              for i in range(12)]
    *_, rows = same_as_reference(types, images, encoding)
    assert len(rows) == 12 and rows[0][0] == ("NoneType", "None")
    assert rows[1][0] == ("str", repr(cell.decode("ascii"))) and taken


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("count", [99, 100, 101, 120, 300])
def test_many_char_columns_one_group_each(encoding, count, taken):
    """A pattern of 120 or 300 groups (older re modules stopped at 100):
    every column in its place, NULLs in their places."""
    types = _types(*["char(2)"] * count)
    images = [b"".join(b"\x00\x00" if (i + k) % 17 == 0 else b"%02d" % (k % 100)
                       for k in range(count)) for i in range(40)]
    *_, rows = same_as_reference(types, images, encoding)
    assert len(rows) == 40 and rows[0][0] == ("NoneType", "None")
    assert rows[1][count - 1] == ("str", repr("%02d" % ((count - 1) % 100)))
    assert taken


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_char_beside_integer_date_and_decimal(encoding, taken):
    """CHAR columns adjacent to INTEGER, DATE and DECIMAL, whose bytes are
    any bytes (0x81 and 0xc3 among them): the CHAR values are the
    reference's, the other columns too."""
    types = _types("char(3)", "integer", "char(2)", "date", "decimal(10,2)", "char(1)")
    fixed = [struct.pack("!I", v) for v in (0x81C3A90A, 0x7F8D0D85, 0x0000E280)]
    dec = make_row_encoder(types[4:5])((Decimal("-8181.85"),))
    images = [b"abc" + fixed[i % 3] + b"\n\r" + struct.pack("!i", i) + dec + b"z"
              for i in range(90)]
    *_, rows = same_as_reference(types, images, encoding)
    assert len(rows) == 90 and rows[0][0] == ("str", "'abc'")
    assert taken or encoding == "cp1252"    # 0x81 in an INTEGER: the cell code


def test_cp1252_undefined_bytes_outside_char_cells_keep_the_rows():
    """cp1252's undefined bytes inside INTEGER bytes: the integers and the
    CHAR values are read (the block goes to the per-cell code), no error."""
    types = _types("integer", "char(3)")
    images = [bytes((0x81, 0x8D, 0x8F, u)) + b"ab\x80" for u in (0x90, 0x9D, 0x41)] * 30
    stops, raised, _, error, rows = same_as_reference(types, images, "cp1252")
    assert raised is None and error is None and len(rows) == 90
    assert rows[0][1] == ("str", repr("ab\u20ac"))


@pytest.mark.parametrize("undefined", [0x81, 0x8D, 0x8F, 0x90, 0x9D])
@pytest.mark.parametrize("row", [0, 31, 32, 33, 89])
def test_cp1252_undefined_byte_in_a_char_cell_is_the_references_error(undefined, row):
    """An undefined byte in one CHAR cell: the reference's DataError for
    that row, every other row delivered -- never a value."""
    types = _types("integer", "char(3)")
    images = [struct.pack("!i", i) + b"abc" for i in range(90)]
    images[row] = images[row][:5] + bytes((undefined,)) + b"c"
    stops, raised, _, error, rows = same_as_reference(types, images, "cp1252")
    assert error is not None and error[0] == "DataError" and len(rows) == 89


@pytest.mark.parametrize("shape", [("char(4)", "decimal(30,2)"), ("char(40)", "integer")],
                         ids=["mostly-other", "mostly-char"])
def test_utf8_non_ascii_only_outside_char_cells_takes_the_fast_path(shape, taken):
    """UTF-8 whose only non-ASCII bytes are in an INTEGER's or DECIMAL's
    bytes: the ASCII check looks at CHAR bytes only, so the block is cut
    (both ways the check is made: masked block, joined values)."""
    types = _types(*shape)
    other = types[1]
    filler = (b"\xc3\xa9\xff\x80" * 8)[:other.wire_width]
    if other.code.name == "DECIMAL":    # a positive's head byte is 0xc0 and more
        filler = make_row_encoder([other])((Decimal("1234567890123456789012.81"),))
        assert not filler.isascii()
    text = (b"ab\n " * 10)[:types[0].wire_width]
    images = [text + filler] * 50
    stops, raised, _, error, rows = same_as_reference(types, images, "utf-8")
    assert error is None and len(rows) == 50 and taken


@pytest.mark.parametrize("char", ["\u2028", "\x85", "\u00e9", "\u20ac"])
def test_utf8_non_ascii_char_cells_read_as_the_reference(char, taken):
    """U+2028, U+0085 and other non-ASCII text in a UTF-8 CHAR: the cell
    code's characters (the regex never reads UTF-8 bytes as latin-1)."""
    types = _types("char(8)", "integer")
    value = (char + "x").encode().ljust(8)
    images = [(value if i == 40 else b"plain   ") + struct.pack("!i", i) for i in range(80)]
    *_, rows = same_as_reference(types, images, "utf-8")
    assert rows[40][0] == ("str", repr((char + "x").ljust(8 - len(char.encode()) + 1)))


@pytest.mark.parametrize("encoding", ["iso-8859-1", "cp1252", "utf-8"])
@pytest.mark.parametrize("damage", ["short-last", "long-last", "extra-byte", "size+1"])
def test_a_block_whose_last_row_is_off_by_one(encoding, damage):
    """The last tuple a byte short or long (its size says so, or not), or a
    stray byte after the rows: the same rows, stops and errors as the
    reference, however the reply is cut."""
    types = _types("char(5)", "integer", "char(3)")
    images = [b"abcde" + struct.pack("!i", i) + b"xyz" for i in range(70)]
    data = b"".join(tuple_msg(m) for m in images)
    if damage == "short-last":
        data = data[:-2] + data[-1:]
    elif damage == "long-last":
        data = data[:-1] + b"q" + data[-1:]
    elif damage == "extra-byte":
        data += b"\x00"
    else:
        last = len(data) - (8 + 12)
        data = data[:last + 4] + struct.pack("!I", 13) + data[last + 8:]
    data += tail(70)
    for cuts in ([], [len(data) // 2], [len(data) - 15]):
        pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
        want = feed(PerRow(reference_decoder(types, encoding)), pieces, MAX_FIELD)
        assert feed(make_row_decoder(types, encoding), pieces, MAX_FIELD) == want


@st.composite
def special_replies(draw):
    """Shapes of CHAR (widths 1-9) beside INTEGER and BOOLEAN, cells drawn
    from SPECIAL bytes, NULLs and blanks, in any code set."""
    encoding = draw(st.sampled_from(ENCODINGS))
    specs = draw(st.lists(st.sampled_from(["char(1)", "char(2)", "char(5)", "char(9)",
                                           "integer", "boolean"]), min_size=1, max_size=5))
    types = _types(*specs)
    images = []
    for _ in range(draw(st.integers(1, 70))):
        image = b""
        for c in types:
            if c.code.name == "BOOLEAN":
                image += b"\x00\x00\x00\x00\x01" + draw(st.sampled_from([b"\x00", b"\x01", b"t"]))
                continue
            width = c.wire_width
            kind = draw(st.sampled_from(["special", "blank", "null", "ascii"]))
            if kind == "blank":
                image += b" " * width
            elif kind == "ascii":
                image += draw(st.binary(min_size=width, max_size=width)
                              .filter(bytes.isascii).filter(lambda b: b[0] != 0))
            else:
                cell = bytes(draw(st.lists(st.sampled_from(SPECIAL), min_size=width,
                                           max_size=width)))
                image += b"\x00" + cell[1:] if kind == "null" else cell
        images.append(image)
    return encoding, types, images


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(special_replies(), st.lists(st.integers(1, 5000), max_size=2))
def test_special_bytes_in_any_shape_read_as_the_reference(case, cuts):
    encoding, types, images = case
    same_as_reference(types, images, encoding, cuts)
