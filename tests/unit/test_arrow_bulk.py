"""The bulk path of Arrow fetches (arrow/bulk.py) against the per-row path it
replaces (``raw_row_decoder``): the same fetch reply bytes, fed to
``messages.parse_reply`` in the same pieces, give the same rows, the same
stop offsets, the same batch and the same errors (class and message) --
for generated tables and values with NULLs and odd row widths, for damaged
replies, and for every split of a reply into two receives."""

from __future__ import annotations

import math
import struct

import pytest

pytest.importorskip("numpy", reason="the arrow extra (numpy, pyarrow) is not installed")
pytest.importorskip("pyarrow", reason="the arrow extra (numpy, pyarrow) is not installed")

import numpy as np  # noqa: E402
from codec_harness import shape_and_rows  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from informix_stream.arrow.bulk import ImageDecoder, ImageRows  # noqa: E402
from informix_stream.arrow.columnar import decode_block, fixed_row_width, pack_images  # noqa: E402
from informix_stream.arrow.cursor import raw_row_decoder  # noqa: E402
from informix_stream.codecs import make_row_encoder, parse_type  # noqa: E402
from informix_stream.errors import DataError, ProtocolError  # noqa: E402
from informix_stream.framing import MAX_FIELD  # noqa: E402
from informix_stream.messages import Reply, parse_reply  # noqa: E402

_SETTINGS = settings(max_examples=150, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def tuple_msg(image: bytes, size: int | None = None) -> bytes:
    size = len(image) if size is None else size
    return struct.pack("!hhi", 14, 0, size) + image + (b"\x00" if len(image) & 1 else b"")


def tail(rows: int) -> bytes:
    return struct.pack("!hhiii", 15, 0, rows, 0, 0) + struct.pack("!h", 12)


def feed(decoder, pieces: list[bytes], max_size: int):
    """Run parse_reply over the pieces as the session does (bytes appended to
    one buffer, parsing resumed where it stopped); what came of it."""
    reply, buf, pos, done, stops = Reply(), bytearray(), 0, False, []
    try:
        for piece in pieces:
            buf += piece
            pos, done = parse_reply(buf, pos, reply, decoder, max_size)
            stops.append((pos, len(reply.rows)))
            if done:
                break
    except (DataError, ProtocolError) as exc:
        return ("parse error", type(exc).__name__, str(exc), stops, len(reply.rows))
    return ("parsed", done, stops, reply)


def batch_of(reply, types) -> tuple:
    rows = reply.rows
    width = fixed_row_width(types)
    block = rows.block() if isinstance(rows, ImageRows) else pack_images(np, rows, width)
    try:
        batch = decode_block(block, types, [f"c{k}" for k in range(len(types))])
    except (DataError, ProtocolError) as exc:
        return ("error", type(exc).__name__, str(exc))
    return ("ok", str(batch.schema),
            [[("NaN" if isinstance(v, float) and math.isnan(v) else (type(v).__name__, v))
              for v in col.to_pylist()] for col in batch.columns])


def outcome(decoder, pieces, types, max_size):
    got = feed(decoder, pieces, max_size)
    if got[0] != "parsed":
        return got
    _, done, stops, reply = got
    return ("parsed", done, stops, reply.rowcount, len(reply.rows), batch_of(reply, types))


def same(types, data: bytes, cuts: list[int], max_size: int = MAX_FIELD):
    cuts = sorted(set(c for c in cuts if 0 < c < len(data)))
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
    width = fixed_row_width(types)
    ref = outcome(raw_row_decoder(width), pieces, types, max_size)
    bulk = outcome(ImageDecoder(width), pieces, types, max_size)
    assert bulk == ref
    return ref


@_SETTINGS
@given(shape_and_rows(max_rows=8), st.lists(st.integers(0, 2000), max_size=4))
def test_generated_replies_give_the_same_batches(case, cuts):
    columns, rows = case
    encode = make_row_encoder(columns)
    data = b"".join(tuple_msg(encode(stored)) for stored, _ in rows) + tail(len(rows))
    got = same(columns, data, cuts)
    assert got[0] == "parsed" and got[1] is True and got[4] == len(rows)


@_SETTINGS
@given(shape_and_rows(max_rows=5), st.data())
def test_damaged_replies_fail_alike(case, data):
    columns, rows = case
    encode = make_row_encoder(columns)
    msg = bytearray(b"".join(tuple_msg(encode(stored)) for stored, _ in rows)
                    + tail(len(rows)))
    for _ in range(data.draw(st.integers(1, 3))):
        action = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        at = data.draw(st.integers(0, len(msg) - 1))
        if action == "flip":
            msg[at] = data.draw(st.integers(0, 255))
        elif action == "cut":
            del msg[at:at + data.draw(st.integers(1, 6))]
        else:
            msg[at:at] = data.draw(st.binary(min_size=1, max_size=6))
        if not msg:
            msg += b"\x00"
    max_size = data.draw(st.sampled_from([MAX_FIELD, 64, 9]))
    cuts = data.draw(st.lists(st.integers(0, len(msg)), max_size=3))
    same(columns, bytes(msg), cuts, max_size)


_SHAPES = {
    "fixed, odd width": ["integer", "char(3)", "date", "decimal(12,2)"],
    "fixed, even width": ["integer", "bigint", "float", "date",
                          "datetime year to second", "decimal(12,2)"],
    "variable": ["integer", "varchar(32)", "decimal(12,2)", "varchar(64)"],
}


def _rows(spec: str):
    import datetime as dt
    from decimal import Decimal
    types = [parse_type(s) for s in _SHAPES[spec]]
    values = {"integer": lambda i: i, "char(3)": lambda i: f"c{i % 10}",
              "date": lambda i: dt.date(2020, 1, 1) + dt.timedelta(days=i),
              "decimal(12,2)": lambda i: Decimal(i) / 100, "bigint": lambda i: -i * 10**12,
              "float": lambda i: i / 3, "datetime year to second":
              lambda i: dt.datetime(2020, 1, 1) + dt.timedelta(seconds=i * 77),
              "varchar(32)": lambda i: "s" * (i % 7), "varchar(64)": lambda i: f"note {i}"}
    rows = [tuple(None if (i + k) % 5 == 0 else values[s](i) for k, s in
                  enumerate(_SHAPES[spec])) for i in range(7)]
    encode = make_row_encoder(types)
    return types, b"".join(tuple_msg(encode(r)) for r in rows) + tail(len(rows))


@pytest.mark.parametrize("spec", list(_SHAPES))
def test_every_split_point_gives_the_same_batch(spec):
    types, data = _rows(spec)
    for cut in range(1, len(data)):
        got = same(types, data, [cut])
        assert got[0] == "parsed" and got[1] is True and got[4] == 7


@pytest.mark.parametrize("spec", list(_SHAPES))
def test_byte_at_a_time(spec):
    types, data = _rows(spec)
    got = same(types, data, list(range(1, len(data))))
    assert got[1] is True and got[4] == 7


@pytest.mark.parametrize("spec", list(_SHAPES))
def test_framing_faults_raise_the_per_row_paths_errors(spec):
    types, data = _rows(spec)
    first = data.index(b"\x00\x0e", 8)                    # the second tuple's header
    cases = {
        "oversized": data[:first + 4] + struct.pack("!I", 0x7FFFFFF0) + data[first + 8:],
        "negative": data[:first + 4] + struct.pack("!i", -8) + data[first + 8:],
        "unknown tag": data[:first] + b"\x00\x63" + data[first + 2:],
        "size one short": data[:first + 4] + struct.pack(
            "!I", struct.unpack_from("!I", data, first + 4)[0] - 1) + data[first + 8:],
    }
    for name, bad in cases.items():
        got = same(types, bad, [])
        assert got[0] == "parse error" or got[-1][0] == "error", name
    with pytest.raises(ProtocolError, match="SQ_TUPLE declares"):
        parse_reply(bytearray(cases["oversized"]), 0, Reply(),
                    ImageDecoder(fixed_row_width(types)))


def test_rows_are_counted_for_fetch_accounting():
    types, data = _rows("fixed, even width")
    reply = Reply()
    pos, done = parse_reply(bytearray(data), 0, reply, ImageDecoder(fixed_row_width(types)))
    assert done and pos == len(data) and isinstance(reply.rows, ImageRows)
    assert len(reply.rows) == 7 and reply.rowcount == 7
    images = list(reply.rows)
    assert [reply.rows[i] for i in range(7)] == images and reply.rows[-1] == images[-1]
    assert list(reply.rows[2:5]) == images[2:5]
    reply.rows.clear()
    assert not reply.rows


# -- the vectorised header walk (bulk.tuple_run) against its plain loop ------------

from informix_stream.arrow.bulk import tuple_run, walk_tuples  # noqa: E402

_FAKE = st.builds(lambda size, lead: bytes(lead) + struct.pack("!hhI", 14, 0, size),
                  st.sampled_from([0, 1, 2, 3, 6, 7, 40, 2 ** 31, 2 ** 32 - 1])
                  | st.integers(0, 200), st.integers(0, 3))


@st.composite
def _tuple_buffers(draw):
    """Runs of SQ_TUPLEs whose images hold what looks like a tuple header
    (at even and odd offsets, with sizes that point at real headers, at
    other fake ones, or past the buffer), followed by another message, by
    garbage, or by a tuple cut short."""
    out = b""
    for _ in range(draw(st.integers(0, 8))):
        image = b"".join(draw(st.lists(st.binary(max_size=6) | _FAKE, max_size=4)))
        out += tuple_msg(image)
    out += draw(st.sampled_from([b"", tail(3), b"\x00\x0e\x00\x00\x00\x00\x00\x09ab"]))
    out += draw(st.binary(max_size=12))
    cut = draw(st.integers(0, len(out)))
    return out[:cut] if draw(st.booleans()) else out


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tuple_buffers(), st.sampled_from([MAX_FIELD, 0, 5, 40]))
def test_the_vectorised_header_walk_takes_the_plain_loops_run(buf, max_size):
    raw = np.frombuffer(buf, np.uint8)
    offs, sizes = tuple_run(np, raw, max_size)
    plain_offs, plain_sizes = walk_tuples(np, raw, max_size)
    assert offs.tolist() == plain_offs.tolist()
    assert sizes.tolist() == plain_sizes.tolist()


def test_false_headers_inside_images_are_skipped():
    # an INTEGER 14 then a SMALLINT 0 reads as 00 0e 00 00 at an even offset,
    # with a "size" pointing at the next real tuple and one pointing past it
    real = [b"\x00\x00" + b"\x00\x0e\x00\x00" + struct.pack("!I", 2) + b"xyzw",
            b"\x00\x00\x00\x0e\x00\x00\x00\x00\x00\x06ab",
            b"plain"]
    buf = b"".join(tuple_msg(i) for i in real) + tail(3)
    offs, sizes = tuple_run(np, np.frombuffer(buf, np.uint8), MAX_FIELD)
    assert sizes.tolist() == [len(i) for i in real]
    assert offs.tolist() == walk_tuples(np, np.frombuffer(buf, np.uint8), MAX_FIELD)[0].tolist()
