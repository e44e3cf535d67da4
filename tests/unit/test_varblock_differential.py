"""The tuple path's block decoder for shapes with variable-width cells
(codec/varblock.py: one or two VARCHAR/NVARCHAR among fixed-width
columns) against the per-row decoder it speeds up: the same fetch reply
bytes, fed to ``messages.parse_reply`` in the same pieces, give the same
rows, stop offsets, recorded decode errors, warnings and raised errors --
for generated values with NULLs, for hostile lengths (a VARCHAR length
running past its tuple, rows ending before or after the tuple's
size), the VARCHAR NULL form, multibyte and invalid UTF-8, and damaged
framing split across receives."""

from __future__ import annotations

import struct

import pytest
from codec_harness import cells, column_types
from hypothesis import given
from hypothesis import strategies as st
from test_rowblock_differential import _SETTINGS, _VARIABLE, PerRow, feed, tail, tuple_msg

from informix_stream.codecs import make_row_decoder, make_row_encoder, parse_type
from informix_stream.framing import MAX_FIELD
from informix_stream.messages import Reply


def same(types, data: bytes, cuts=(), max_size: int = MAX_FIELD,
         encoding: str = "iso-8859-1") -> tuple:
    """Both paths over the same pieces; their results, which must agree."""
    cuts = sorted({c for c in cuts if 0 < c < len(data)})
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
    decode = make_row_decoder(types, encoding)
    assert hasattr(decode, "bulk")
    want = feed(PerRow(decode), pieces, max_size)
    got = feed(decode, pieces, max_size)
    assert got == want
    return got


def _variable_types() -> st.SearchStrategy:
    return st.builds(lambda kind, n: parse_type(f"{kind}({n})"),
                     st.sampled_from(["varchar", "nvarchar"]), st.integers(1, 255))


@st.composite
def variable_rows(draw, max_columns: int = 5, max_rows: int = 80):
    """(columns, stored rows): one or two VARCHAR columns among others."""
    fixed = column_types().filter(lambda c: c.code not in _VARIABLE)
    columns = draw(st.lists(fixed, min_size=0, max_size=max_columns - 2))
    for _ in range(draw(st.integers(1, 2))):
        columns.insert(draw(st.integers(0, len(columns))), draw(_variable_types()))
    rows = [tuple(draw(cells(c))[0] for c in columns)
            for _ in range(draw(st.integers(1, max_rows)))]
    return columns, rows


@_SETTINGS
@given(variable_rows(), st.lists(st.integers(0, 8000), max_size=3))
def test_generated_replies_give_the_same_rows(case, cuts):
    columns, rows = case
    encode = make_row_encoder(columns)
    data = b"".join(tuple_msg(encode(r)) for r in rows) + tail(len(rows))
    stops, raised, _, error, got = same(columns, data, cuts)
    assert raised is None and error is None and stops[-1][1] is True and len(got) == len(rows)


@_SETTINGS
@given(variable_rows(max_rows=60), st.data())
def test_hostile_bytes_give_the_same_rows_and_errors(case, data):
    """Bytes of some rows overwritten (length bytes among them: a length
    running past the tuple, rows ending before or after its size), some
    tuple sizes changed, tags and flags damaged, in either encoding."""
    columns, rows = case
    encode = make_row_encoder(columns)
    msgs = [bytearray(tuple_msg(encode(r))) for r in rows]
    for _ in range(data.draw(st.integers(1, 6))):
        m = msgs[data.draw(st.integers(0, len(msgs) - 1))]
        action = data.draw(st.sampled_from(["byte", "byte", "byte", "size", "head", "cut"]))
        if action == "byte" and len(m) > 8:
            m[data.draw(st.integers(8, len(m) - 1))] = data.draw(
                st.sampled_from([0, 1, 2, 0x7F, 0x80, 0xC3, 0xFF, data.draw(st.integers(0, 255))]))
        elif action == "size" and len(m) >= 8:
            size = struct.unpack_from("!I", m, 4)[0]
            m[4:8] = struct.pack("!I", data.draw(st.sampled_from(
                [size - 1, size + 1, size + 2, size - 2, 0, 0xFFFFFFF0])) % 2**32)
        elif action == "head" and len(m) >= 4:
            m[data.draw(st.integers(0, 3))] = data.draw(st.integers(0, 255))
        elif action == "cut":
            at = data.draw(st.integers(0, len(m) - 1))
            del m[at:at + data.draw(st.integers(1, 4))]
    blob = b"".join(msgs) + tail(len(msgs))
    cuts = data.draw(st.lists(st.integers(0, len(blob)), max_size=2))
    encoding = data.draw(st.sampled_from(["iso-8859-1", "utf-8"]))
    max_size = data.draw(st.sampled_from([MAX_FIELD, 64]))
    same(columns, blob, cuts, max_size, encoding)


_SALES = [parse_type(t) for t in ("integer", "varchar(32)", "decimal(12,2)",
                                  "datetime year to second", "date", "varchar(64)")]


def _sales_images(count: int, encoding: str = "utf-8") -> list[bytearray]:
    import datetime as dt
    from decimal import Decimal
    encode = make_row_encoder(_SALES, encoding)
    return [bytearray(encode((i, f"SKU-{i:06d}", Decimal(i * 7 + 1) / 100,
                              dt.datetime(2020, 1, 1) + dt.timedelta(seconds=i * 37),
                              dt.date(2020, 1, 1) + dt.timedelta(days=i),
                              None if i % 10 == 0 else f"note {i} \u00e9\u4e2d")))
            for i in range(count)]


def test_block_takes_whole_runs_with_nulls_and_multibyte_text():
    """The hook itself consumes every clean tuple (so the block path, not
    the per-row fallback, is what the cursor runs) and equals the per-row
    decoder, VARCHAR NULLs and multibyte UTF-8 included."""
    images = _sales_images(500)
    data = bytearray(b"".join(tuple_msg(bytes(i)) for i in images))
    decode = make_row_decoder(_SALES, "utf-8")
    reply = Reply()
    assert decode.bulk(data, 0, len(data), reply, MAX_FIELD) == len(data)
    assert len(reply.rows) == 500
    assert reply.rows[0][5] is None and reply.rows[1][5] == "note 1 \u00e9\u4e2d"
    assert reply.rows[7][1] == "SKU-000007" and reply.rows[10][5] is None
    *_, want = same(_SALES, bytes(data) + tail(500), encoding="utf-8")
    assert len(want) == 500


def _first_varchar_at() -> int:
    return 4                                     # after the INTEGER


@pytest.mark.parametrize("length", [0, 9, 11, 40, 255])
def test_a_varchar_length_that_misframes_its_row_fails_alike(length):
    """SKU's length byte (10) changed: the row ends before or after the
    tuple's size, or the text runs past the tuple -- the per-row error."""
    images = _sales_images(100)
    images[57][_first_varchar_at()] = length
    data = b"".join(tuple_msg(bytes(i)) for i in images) + tail(100)
    stops, raised, _, error, rows = same(_SALES, data, encoding="utf-8")
    assert raised is not None and raised[0] == "ProtocolError" and len(rows) == 57


def test_the_varchar_null_form_and_a_lone_nul_text():
    """Length 1 and byte 0 is NULL; two NULs are text."""
    types = [parse_type("integer"), parse_type("varchar(10)")]
    data = b"".join(tuple_msg(struct.pack("!i", i) + (b"\x01\x00" if i % 3 else b"\x02\x00\x00"))
                    for i in range(90)) + tail(90)
    *_, rows = same(types, data)
    assert rows[1][1] == ("NoneType", "None") and rows[0][1] == ("str", repr("\x00\x00"))


@pytest.mark.parametrize("bad", [b"\xff", b"\xc3", b"\xe4\xb8"])
def test_invalid_utf8_mid_block_is_the_per_row_data_error(bad):
    images = _sales_images(120)
    at = 4 + 1                                   # SKU's first text byte
    images[77][at:at + len(bad)] = bad
    data = b"".join(tuple_msg(bytes(i)) for i in images) + tail(120)
    stops, raised, _, error, rows = same(_SALES, data, encoding="utf-8")
    assert raised is None and error[0] == "DataError" and len(rows) == 119


@pytest.mark.parametrize("specs", [
    ["boolean"], ["integer", "lvarchar(50)"], ["varchar(9)", "varchar(9)", "varchar(9)"],
    ["integer", "varchar(9)", "blob"]])
def test_shapes_measured_slower_keep_the_per_row_path(specs):
    """LVARCHAR/BOOLEAN envelopes and more than two VARCHARs: no hook."""
    assert not hasattr(make_row_decoder([parse_type(s) for s in specs]), "bulk")


def test_struct_cache_is_bounded():
    """Many distinct length pairs: the per-lengths struct cache is cleared
    at its bound, rows still right."""
    types = [parse_type("varchar(255)"), parse_type("varchar(255)")]
    encode = make_row_encoder(types)
    rows = [("a" * (i % 251), "b" * (i * 7 % 253)) for i in range(5000)]
    data = b"".join(tuple_msg(encode(r)) for r in rows) + tail(5000)
    *_, got = same(types, data)
    assert got[4999] == (("str", repr(rows[4999][0])), ("str", repr(rows[4999][1])))
