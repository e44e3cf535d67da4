"""Tuples holding NULL BOOLEANs (5 bytes, so their sizes vary) decoded by
codec/booleanrun.py -- one ``re.split`` framing a run, then whole columns --
held to the plain reference decoder (codec/rowdecode_ref.py): the same
rows, None, errors (class and message), warnings and stop offsets, for
generated shapes of BOOLEANs beside fixed columns with NULLs anywhere, for
hostile cells and framing, and for every way a reply is cut into receives.
``taken`` proves the split path ran where it should, so these tests fail if
it silently stopped being used."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rowblock_differential import (PerRow, feed, fixed_rows, fixed_types, recording,
                                        tail, tuple_msg)

from informix_stream.codec import booleanrun
from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codecs import make_row_decoder, make_row_encoder, parse_type
from informix_stream.framing import MAX_FIELD

_SETTINGS = settings(max_examples=150, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BOOLEAN = parse_type("boolean")
NULL5 = b"\x01\x00\x00\x00\x00"           # the NULL a server sends: no byte
NULL6 = b"\x01\x00\x00\x00\x01\x00"       # a NULL flag with a byte after it
SEVEN = b"\x00\x00\x00\x00\x02\x01\x00"   # two value bytes
EMPTY = b"\x00\x00\x00\x00\x00"           # not NULL, no byte
FLAG2 = b"\x02\x00\x00\x00\x01\x01"       # flag 2: not NULL


def common(byte: int) -> bytes:
    return b"\x00\x00\x00\x00\x01" + bytes((byte,))


@pytest.fixture
def taken(monkeypatch):
    """The BOOLEAN columns the split path picked (its ``_pick`` calls)."""
    return recording(monkeypatch, booleanrun, "_pick")


def reply(images: list[bytes], extra: bytes = b"") -> bytes:
    return b"".join(tuple_msg(m) for m in images) + extra + tail(len(images))


def same_as_reference(types, data: bytes, cuts=()) -> tuple:
    """parse_reply over ``data`` cut at ``cuts``: the decoder with its bulk
    hooks and the plain reference alone give the same; the result."""
    cuts = sorted({c for c in cuts if 0 < c < len(data)})
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
    want = feed(PerRow(reference_decoder(types)), pieces, MAX_FIELD)
    got = feed(make_row_decoder(types), pieces, MAX_FIELD)
    assert got == want
    return got


def boolean_shapes(max_rows: int = 80):
    """(columns, stored rows): BOOLEANs among fixed columns, NULL now and
    then (a NULL's tuple 1 byte shorter), or never in any column."""
    columns = st.lists(st.one_of(st.just(BOOLEAN), fixed_types()), min_size=1, max_size=6)
    return fixed_rows(max_rows=max_rows, types=columns.filter(lambda c: BOOLEAN in c))


@_SETTINGS
@given(boolean_shapes(), st.lists(st.integers(0, 5000), max_size=3))
def test_generated_replies_give_the_references_rows(case, cuts):
    columns, rows = case
    encode = make_row_encoder(columns)
    data = reply([encode(r) for r in rows])
    stops, raised, _, error, got = same_as_reference(columns, data, cuts)
    assert raised is None and stops[-1][1] is True and len(got) == len(rows)


def eight_booleans(count: int = 40) -> tuple[list, list[tuple]]:
    types = [BOOLEAN] * 8
    values = [None if i % 7 == 0 or i % 11 == 0 else bool(i & 2) for i in range(count * 8)]
    return types, [tuple(values[k:k + 8]) for k in range(0, count * 8, 8)]


def test_every_receive_split_gives_the_references_rows(taken):
    """One reply of 8-BOOLEAN rows with NULLs, cut into two receives at
    every byte offset, and into receives of every size from 1 to 64."""
    types, rows = eight_booleans()
    encode = make_row_encoder(types)
    data = reply([encode(r) for r in rows])
    want = same_as_reference(types, data)
    assert [tuple(v for _, v in r) for r in want[4]] == [tuple(map(repr, r)) for r in rows]
    assert taken
    for cut in range(1, len(data)):
        assert same_as_reference(types, data, [cut])[4] == want[4]
    for size in range(1, 65):
        same_as_reference(types, data, range(size, len(data), size))


@pytest.mark.parametrize("nulls", ["none", "all", "alternate"])
def test_no_null_all_null_and_alternating(nulls, taken):
    types = [BOOLEAN, parse_type("integer"), BOOLEAN, parse_type("char(3)")]
    encode = make_row_encoder(types)
    rows = []
    for i in range(300):
        null = nulls == "all" or nulls == "alternate" and i % 2 == 1
        rows.append((None if null else bool(i % 3), i, None if null else i % 2 == 0, "abc"))
    *_, got = same_as_reference(types, reply([encode(r) for r in rows]))
    assert len(got) == 300
    assert nulls == "none" or taken     # rows of one size are the block decoder's


HOSTILE = {"null6": NULL6, "seven": SEVEN, "empty": EMPTY, "flag2": FLAG2,
           "value-t": common(ord("t")), "value-ff": common(255)}


@pytest.mark.parametrize("cell", HOSTILE.values(), ids=HOSTILE.keys())
@pytest.mark.parametrize("at", [0, 1, 17, 38, 39])
def test_other_cell_forms_at_any_position(cell, at, taken):
    """A BOOLEAN of another form among NULL-bearing rows: the reference's
    value (the split path stops before it and the others read it)."""
    types = [BOOLEAN, parse_type("smallint"), BOOLEAN]
    images = [(NULL5 if i % 3 == 0 else common(i & 1)) + struct.pack("!h", i) + common(1)
              for i in range(40)]
    images[at] = cell + struct.pack("!h", at) + NULL5
    stops, raised, _, error, rows = same_as_reference(types, reply(images))
    assert raised is None and error is None and len(rows) == 40
    assert taken


def framed(images: list[bytes], at: int, size_delta: int = 0, warn: int = 0,
           pad: bytes | None = None) -> bytes:
    """The reply with tuple ``at``'s size, flags or pad byte altered."""
    out = []
    for i, image in enumerate(images):
        if i != at:
            out.append(tuple_msg(image))
            continue
        size = len(image) + size_delta
        msg = struct.pack("!hhi", 14, warn, size) + image
        out.append(msg + (b"\x00" if len(image) & 1 else b"") if pad is None else msg + pad)
    return b"".join(out) + tail(len(images))


def nulls_rows(count: int = 30) -> tuple[list, list[bytes]]:
    types = [BOOLEAN, parse_type("integer"), BOOLEAN]
    images = [(NULL5 if i % 4 == 1 else common(1)) + struct.pack("!i", i)
              + (NULL5 if i % 5 == 2 else common(0)) for i in range(count)]
    return types, images


@pytest.mark.parametrize("delta", [-2, -1, 1, 2])
@pytest.mark.parametrize("at", [0, 1, 2, 15, 29])
def test_a_size_field_not_the_cells_is_the_references_error(delta, at):
    """A tuple whose size says a byte or two more or less than its cells:
    never taken as a row of the cells; the reference's outcome."""
    types, images = nulls_rows()
    got = same_as_reference(types, framed(images, at, size_delta=delta))
    assert got[1] is not None or got[3] is not None or len(got[4]) != len(images)


@pytest.mark.parametrize("at", [0, 1, 2, 15, 29])
def test_warnings_pads_and_missing_pads(at):
    """sqlwarn flags on a tuple (recorded, its row the per-row path's), a
    pad byte that is not zero, a pad missing or one too many."""
    types, images = nulls_rows()
    odd = [i for i, m in enumerate(images) if len(m) & 1]
    assert odd and len(odd) < len(images)
    got = same_as_reference(types, framed(images, at, warn=0x41))
    assert got[2] != 0 and len(got[4]) == len(images)
    near = min(odd, key=lambda i: abs(i - at))
    got = same_as_reference(types, framed(images, near, pad=b"\xff"))
    assert got[1] is None and len(got[4]) == len(images)
    same_as_reference(types, framed(images, near, pad=b""))
    even = next(i for i in range(len(images)) if not len(images[i]) & 1)
    same_as_reference(types, framed(images, even, pad=b"\x00"))


def test_sizes_crossing_a_byte_boundary(taken):
    """A shape whose sizes with and without NULLs differ above their low
    byte (256 bytes down to 253): the size's four bytes are checked."""
    types = [parse_type("char(208)")] + [BOOLEAN] * 8
    encode = make_row_encoder(types)
    rows = [(f"{i:208d}",) + tuple(None if k < i % 4 else bool(k & 1) for k in range(8))
            for i in range(60)]
    data = reply([encode(r) for r in rows])
    *_, got = same_as_reference(types, data, [len(data) // 2])
    assert len(got) == 60 and taken
    sizes = {len(encode(r)) for r in rows}
    assert min(sizes) < 256 <= max(sizes)


def test_a_reply_ending_after_a_tuple_and_rows_after_done():
    """The buffer's end right after a NULL-bearing tuple (the pattern looks
    at the next message: left to parse_reply), and a tuple after SQ_DONE."""
    types, images = nulls_rows()
    data = b"".join(tuple_msg(m) for m in images)
    same_as_reference(types, data)
    same_as_reference(types, data + tail(30) + tuple_msg(images[1]))
