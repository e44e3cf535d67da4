"""The tuple path's run hooks (the ``bulk`` hook of a row decoder: the block
decoder of codec/rowblock.py for a fixed-width shape, the row code inlined
in a loop, rowdecode._RUN, for any other) against the per-row decoder they
speed up:
the same fetch reply bytes, fed to ``messages.parse_reply`` in the same
pieces, give the same rows (types, Decimal exponents, NaN bits), the same
stop offsets, the same recorded decode errors and warnings, and the same
raised errors (class and message) -- for generated values with NULLs, for
hostile cells (digit pairs over 99, odd heads, bad text) and for damaged
framing (tags, flags, sizes, truncation), split across receives."""

from __future__ import annotations

import datetime as dt
import math
import struct
from decimal import Decimal

import pytest
from codec_harness import cells, column_types, packed_images
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from informix_stream.codecs import make_row_decoder, make_row_encoder, parse_type
from informix_stream.codec.typeinfo import PACKED_CODES, ColumnType, TypeCode
from informix_stream.errors import DataError, ProtocolError
from informix_stream.framing import MAX_FIELD
from informix_stream.messages import Reply, parse_reply

_SETTINGS = settings(max_examples=200, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_VARIABLE = (TypeCode.VARCHAR, TypeCode.NVARCHAR, TypeCode.LVARCHAR, TypeCode.BOOLEAN)


class PerRow:
    """The per-row decoder alone: the same function without its bulk hook."""

    def __init__(self, decode) -> None:
        self.decode = decode

    def __call__(self, buf, start, stop=None):
        return self.decode(buf, start, stop)


def recording(monkeypatch, module, name: str) -> list:
    """The argument tuples of every call of ``module.name`` (still called),
    to prove a path ran."""
    calls: list = []
    real = getattr(module, name)

    def spy(*args):
        calls.append(args)
        return real(*args)
    monkeypatch.setattr(module, name, spy)
    return calls


def tuple_msg(image: bytes, size: int | None = None, warn: int = 0) -> bytes:
    size = len(image) if size is None else size
    return struct.pack("!hhi", 14, warn, size) + image + (b"\x00" if len(image) & 1 else b"")


def tail(rows: int) -> bytes:
    return struct.pack("!hhiii", 15, 0, rows, 0, 0) + struct.pack("!h", 12)


def _value(v: object) -> object:
    if isinstance(v, float):
        return ("float", struct.pack("!d", v).hex())      # NaN bits too
    return (type(v).__name__, repr(v))


def feed(decoder, pieces: list[bytes], max_size: int) -> tuple:
    """parse_reply over the pieces as the session runs it: bytes appended to
    one buffer, parsing resumed where it stopped."""
    reply, buf, pos, stops = Reply(), bytearray(), 0, []
    try:
        for piece in pieces:
            buf += piece
            pos, done = parse_reply(buf, pos, reply, decoder, max_size)
            stops.append((pos, done, len(reply.rows)))
            if done:
                break
        raised = None
    except (DataError, ProtocolError) as exc:
        raised = (type(exc).__name__, str(exc))
    error = reply.decode_error
    return (stops, raised, reply.warnings,
            None if error is None else (type(error).__name__, str(error)),
            [tuple(map(_value, row)) for row in reply.rows])


def same(types, data: bytes, cuts=(), max_size: int = MAX_FIELD) -> tuple:
    cuts = sorted({c for c in cuts if 0 < c < len(data)})
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
    decode = make_row_decoder(types)
    assert hasattr(decode, "bulk")
    want = feed(PerRow(decode), pieces, max_size)
    got = feed(decode, pieces, max_size)
    assert got == want
    return got


def fixed_types() -> st.SearchStrategy[ColumnType]:
    return column_types().filter(lambda c: c.code not in _VARIABLE)


@st.composite
def fixed_rows(draw, max_columns: int = 5, max_rows: int = 90, types=None):
    """(columns, stored rows): enough rows for several growing blocks
    (columns of ``types``, lists of column types; fixed ones by default)."""
    columns = draw(st.lists(fixed_types(), min_size=1, max_size=max_columns)
                   if types is None else types)
    count = draw(st.integers(1, max_rows))
    null_free = draw(st.booleans())          # clean columns take the fast forms
    rows = []
    for _ in range(count):
        row = []
        for c in columns:
            stored, _ = draw(cells(c))
            while null_free and stored is None:
                stored, _ = draw(cells(c))
            row.append(stored)
        rows.append(tuple(row))
    return columns, rows


@_SETTINGS
@given(fixed_rows(), st.lists(st.integers(0, 6000), max_size=3))
def test_generated_replies_give_the_same_rows(case, cuts):
    columns, rows = case
    encode = make_row_encoder(columns)
    data = b"".join(tuple_msg(encode(r)) for r in rows) + tail(len(rows))
    stops, raised, _, error, got = same(columns, data, cuts)
    assert raised is None and error is None and stops[-1][1] is True and len(got) == len(rows)


@_SETTINGS
@given(fixed_rows(max_rows=70), st.data())
def test_hostile_cells_give_the_same_rows_and_errors(case, data):
    """Cells replaced by near-valid and invalid bytes (a pair over 99, any
    head, text with a NUL or bytes no UTF-8 has) in some rows."""
    columns, rows = case
    encode = make_row_encoder(columns)
    images = [bytearray(encode(r)) for r in rows]
    offsets, at = [], 0
    for c in columns:
        offsets.append(at)
        at += c.wire_width
    for _ in range(data.draw(st.integers(1, 6))):
        image = images[data.draw(st.integers(0, len(images) - 1))]
        k = data.draw(st.integers(0, len(columns) - 1))
        c, start = columns[k], offsets[k]
        if c.code in PACKED_CODES:
            cell = data.draw(packed_images(c))
        else:
            cell = data.draw(st.binary(min_size=c.wire_width, max_size=c.wire_width))
        image[start:start + c.wire_width] = cell
    blob = b"".join(tuple_msg(bytes(i)) for i in images) + tail(len(images))
    encoding = data.draw(st.sampled_from(["iso-8859-1", "utf-8"]))
    cuts = data.draw(st.lists(st.integers(0, len(blob)), max_size=2))
    _same_encoding(columns, blob, cuts, encoding)


def _same_encoding(types, data: bytes, cuts, encoding: str) -> None:
    cuts = sorted({c for c in cuts if 0 < c < len(data)})
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
    decode = make_row_decoder(types, encoding)
    assert feed(decode, pieces, MAX_FIELD) == feed(PerRow(decode), pieces, MAX_FIELD)


@_SETTINGS
@given(fixed_rows(max_rows=60), st.data())
def test_damaged_framing_fails_alike(case, data):
    """Tags, warning flags and sizes changed, bytes cut or inserted, a
    smaller max_size: the per-row path's errors, stops and warnings."""
    columns, rows = case
    _same_when_damaged(columns, rows, data)


def _same_when_damaged(columns, rows, data) -> None:
    encode = make_row_encoder(columns)
    msgs = [bytearray(tuple_msg(encode(r))) for r in rows]
    for _ in range(data.draw(st.integers(1, 4))):
        m = msgs[data.draw(st.integers(0, len(msgs) - 1))]
        action = data.draw(st.sampled_from(["tag", "warn", "size", "flip", "cut", "insert"]))
        if action == "tag":
            m[0:2] = struct.pack("!h", data.draw(st.sampled_from([15, 12, 99, -14, 0])))
        elif action == "warn":
            m[2:4] = struct.pack("!H", data.draw(st.integers(1, 0xFFFF)))
        elif action == "size":
            if len(m) < 8:                      # a cut took the size
                continue
            size = struct.unpack_from("!I", m, 4)[0]
            new = data.draw(st.sampled_from([size - 1, size + 1, size + 2, 0, 0x7FFFFFFF,
                                             0xFFFFFFF8]))
            m[4:8] = struct.pack("!I", new % 2**32)
        elif action in ("flip", "cut") and not m:
            continue
        elif action == "flip":
            m[data.draw(st.integers(0, len(m) - 1))] = data.draw(st.integers(0, 255))
        elif action == "cut":
            at = data.draw(st.integers(0, len(m) - 1))
            del m[at:at + data.draw(st.integers(1, 6))]
        else:
            at = data.draw(st.integers(0, len(m)))
            m[at:at] = data.draw(st.binary(min_size=1, max_size=6))
    blob = b"".join(msgs) + tail(len(msgs))
    max_size = data.draw(st.sampled_from([MAX_FIELD, 64, 9]))
    cuts = data.draw(st.lists(st.integers(0, len(blob)), max_size=3))
    same(columns, blob, cuts, max_size)


_TYPES = {
    "integer": lambda i: i * 100_003 - 10**9, "smallint": lambda i: i - 16000,
    "bigint": lambda i: i * 10**13 - 7 * 10**17, "int8": lambda i: i * 10**13 - 7 * 10**17,
    "smallfloat": lambda i: i / 8 + 0.5, "float": lambda i: i / 7 + 0.5,
    "decimal(12,2)": lambda i: Decimal(i * 1_000_003 + 17) / 100 * (-1 if i & 1 else 1),
    "money(16,2)": lambda i: Decimal(i * 7919 + 3) / 100,
    "date": lambda i: dt.date(1900, 1, 1) + dt.timedelta(days=i),
    "datetime year to second": lambda i: dt.datetime(1990, 1, 1) + dt.timedelta(seconds=i * 3601),
    "datetime year to fraction(5)":
        lambda i: dt.datetime(1990, 1, 1) + dt.timedelta(seconds=i * 3601, microseconds=i * 10),
    "datetime hour to minute": lambda i: dt.time((i // 60) % 24, i % 60),
    "datetime year to day": lambda i: dt.date(1990, 1, 1) + dt.timedelta(days=i),
    "interval day(9) to second": lambda i: dt.timedelta(days=i % 90000, seconds=(i * 7) % 86400),
    "interval hour(3) to fraction(3)": lambda i: dt.timedelta(seconds=i * 7, milliseconds=i),
    "char(20)": lambda i: f"c{i:019d}",
}


@pytest.mark.parametrize("null_every", [0, 10])
@pytest.mark.parametrize("spec", list(_TYPES))
def test_block_takes_whole_runs(spec, null_every):
    """The hook itself consumes every clean tuple of a long run (so the
    block path, not the per-row fallback, is what the cursor runs) and its
    rows equal the per-row decoder's."""
    ctype = parse_type(spec)
    values = [None if null_every and i % null_every == 0 else _TYPES[spec](i)
              for i in range(500)]
    encode = make_row_encoder([ctype])
    data = b"".join(tuple_msg(encode((v,))) for v in values)
    decode = make_row_decoder([ctype])
    reply = Reply()
    assert decode.bulk(bytearray(data), 0, len(data), reply, MAX_FIELD) == len(data)
    want = [decode(data, at + 8, at + 8 + size)[0] for at, size in _spans(data)]
    assert [tuple(map(_value, r)) for r in reply.rows] == [tuple(map(_value, r)) for r in want]
    assert [r[0] for r in reply.rows][1:4] == [v if not isinstance(v, float) else
                                               pytest.approx(v) for v in values[1:4]]


def _spans(data: bytes):
    at = 0
    while at < len(data):
        size = struct.unpack_from("!I", data, at + 4)[0]
        yield at, size
        at += 8 + size + (size & 1)


def test_a_bad_value_mid_block_is_recorded_and_the_rest_decoded():
    ctype = parse_type("datetime year to second")
    encode = make_row_encoder([ctype])
    images = [bytearray(encode((dt.datetime(2000, 1, 1) + dt.timedelta(hours=i),))) for i in
              range(100)]
    images[40][3] = 13                        # month 13: no value of the type
    data = b"".join(tuple_msg(bytes(i)) for i in images) + tail(100)
    stops, raised, _, error, rows = same([ctype], data)
    assert raised is None and error[0] == "DataError" and len(rows) == 99


def test_warning_flags_are_recorded_by_the_per_row_path():
    ctype = parse_type("integer")
    encode = make_row_encoder([ctype])
    data = b"".join(tuple_msg(encode((i,)), warn=0x0102 if i == 50 else 0)
                    for i in range(100)) + tail(100)
    stops, raised, warnings, error, rows = same([ctype], data)
    assert warnings == 0x0102 and len(rows) == 100 and stops[-1][1] is True


def test_variable_width_shapes_have_the_run_hook():
    for types in (["integer", "varchar(10)"], ["boolean", "varchar(3)"], ["lvarchar(300)", "date"]):
        decode = make_row_decoder([parse_type(t) for t in types])
        assert decode.bulk.__name__ == "decode_run"
    assert make_row_decoder([parse_type("integer")]).bulk.__name__ != "decode_run"
    # BOOLEANs beside fixed columns alone: the block decoder, then the run hook
    assert make_row_decoder([parse_type("boolean")]).bulk.__name__ == "block_then_run"


def test_nan_that_is_not_null_stays_a_float():
    types = [parse_type("float"), parse_type("smallfloat")]
    nan_f = struct.pack("!d", math.nan)
    image = nan_f + struct.pack("!f", math.nan)
    data = tuple_msg(image) * 40 + tuple_msg(b"\xff" * 12) + tail(41)
    *_, rows = same(types, data)
    assert rows[0][0][0] == "float" and rows[-1] == (("NoneType", "None"),) * 2


# ---------------------------------------------------------------- the run hook

@st.composite
def variable_rows(draw, max_columns: int = 5, max_rows: int = 60):
    """(columns with at least one variable-width column, stored rows)."""
    columns = draw(st.lists(column_types(), min_size=0, max_size=max_columns - 1))
    variable = draw(column_types().filter(lambda c: c.code in _VARIABLE))
    columns.insert(draw(st.integers(0, len(columns))), variable)
    rows = [tuple(draw(cells(c))[0] for c in columns)
            for _ in range(draw(st.integers(1, max_rows)))]
    return columns, rows


@_SETTINGS
@given(variable_rows(), st.lists(st.integers(0, 6000), max_size=3))
def test_run_hook_generated_replies_give_the_same_rows(case, cuts):
    columns, rows = case
    encode = make_row_encoder(columns)
    data = b"".join(tuple_msg(encode(r)) for r in rows) + tail(len(rows))
    stops, raised, _, error, got = same(columns, data, cuts)
    assert raised is None and error is None and stops[-1][1] is True and len(got) == len(rows)


@_SETTINGS
@given(variable_rows(max_rows=40), st.data())
def test_run_hook_hostile_bytes_give_the_same_rows_and_errors(case, data):
    """Bytes of some row images replaced (a text length, a digit pair, a
    NULL flag, a byte no UTF-8 has...): the same rows, errors and stops."""
    columns, rows = case
    encode = make_row_encoder(columns)
    images = [bytearray(encode(r)) for r in rows]
    for _ in range(data.draw(st.integers(1, 6))):
        image = images[data.draw(st.integers(0, len(images) - 1))]
        if image:
            image[data.draw(st.integers(0, len(image) - 1))] = data.draw(st.integers(0, 255))
    blob = b"".join(tuple_msg(bytes(i)) for i in images) + tail(len(images))
    encoding = data.draw(st.sampled_from(["iso-8859-1", "utf-8"]))
    cuts = data.draw(st.lists(st.integers(0, len(blob)), max_size=2))
    _same_encoding(columns, blob, cuts, encoding)


@_SETTINGS
@given(variable_rows(max_rows=40), st.data())
def test_run_hook_damaged_framing_fails_alike(case, data):
    columns, rows = case
    _same_when_damaged(columns, rows, data)


_SALES = ["integer", "varchar(32)", "decimal(12,2)", "datetime year to second", "date",
          "varchar(64)"]


def _sales(i: int) -> tuple:
    return (i, f"SKU-{i % 9973:06d}", Decimal(i % 100000).scaleb(-2),
            dt.datetime(2020, 1, 1, 8) + dt.timedelta(seconds=i * 37),
            dt.date(2020, 1, 1) + dt.timedelta(days=i % 3000),
            None if i % 10 == 0 else f"note {i}")


def test_run_hook_takes_whole_runs():
    """The hook itself consumes every clean tuple of the sales shape (so
    the cursor runs it, not the per-row fallback), with the values stored."""
    types = [parse_type(t) for t in _SALES]
    encode = make_row_encoder(types)
    stored = [_sales(i) for i in range(500)]
    data = b"".join(tuple_msg(encode(r)) for r in stored)
    reply = Reply()
    decode = make_row_decoder(types)
    assert decode.bulk(bytearray(data), 0, len(data), reply, MAX_FIELD) == len(data)
    assert [tuple(map(_value, r)) for r in reply.rows] == \
        [tuple(map(_value, r)) for r in stored]
    assert reply.rows[7][2].as_tuple().exponent == -2


def test_run_hook_stops_before_what_parse_reply_must_see():
    """A bad value, a warning flag and a tuple cut short each end the run
    exactly before that tuple; parse_reply then records, accumulates or
    waits as without the hook, and the rows after it are decoded."""
    types = [parse_type(t) for t in _SALES]
    encode = make_row_encoder(types)
    images = [bytearray(encode(_sales(i))) for i in range(100)]
    images[40][4 + 1 + 10 + 7 + 3] = 13          # row 40's month: 13
    msgs = [tuple_msg(bytes(m), warn=0x0104 if i == 70 else 0) for i, m in enumerate(images)]
    data = b"".join(msgs) + tail(100)
    decode = make_row_decoder(types)
    at = sum(map(len, msgs[:40]))
    assert decode.bulk(bytearray(data), 0, len(data), Reply(), MAX_FIELD) == at
    at70 = sum(map(len, msgs[:70]))
    assert decode.bulk(bytearray(data), at + len(msgs[40]), len(data), Reply(),
                       MAX_FIELD) == at70
    assert decode.bulk(bytearray(data[:at70 - 3]), 0, at70 - 3, Reply(), MAX_FIELD) == at
    stops, raised, warnings, error, rows = same(types, data, cuts=[at70 - 3])
    assert raised is None and error[0] == "DataError" and len(rows) == 99
    assert warnings == 0x0104 and stops[-1][1] is True


# Values whose leading byte is the one a fast form's pre-check looks for
# (0x80: the integers' and DATE's NULL; 0x7f/0xff: a NaN's, FLOAT's and
# SMALLFLOAT's NULL) without being NULL, beside NULLs and plain values.
_PRECHECKED = [
    ("integer", [-2147483647, -2130706433, 2147483647, 0, None]),
    ("smallint", [-32767, -32513, 32767, 1, None]),
    ("bigint", [-2**63 + 1, -2**63 + 2**56 - 1, 2**63 - 1, None]),
    ("serial8", [-2**63 + 1, 5, None]),
    ("date", [dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(1899, 12, 31), None]),
    ("float", [-1.7e308, 1.7e308, math.inf, -math.inf, math.nan, -0.0, None]),
    ("smallfloat", [-3.0e38, 3.0e38, -math.inf, math.nan, 1.5, None]),
]


@pytest.mark.parametrize("ddl, values", _PRECHECKED, ids=[d for d, _ in _PRECHECKED])
@pytest.mark.parametrize("with_null", [False, True])
def test_fast_form_prechecks_keep_the_per_row_values(ddl, values, with_null):
    """A column with a value the pre-check flags, with or without a NULL,
    reads as the per-row decoder reads it (cut at several block sizes)."""
    column = parse_type(ddl)
    present = [v for v in values if v is not None or with_null]
    rows = [tuple(present[(i + k) % len(present)] for k in range(3)) for i in range(150)]
    encode = make_row_encoder([column] * 3)
    data = b"".join(tuple_msg(encode(r)) for r in rows) + tail(len(rows))
    stops, raised, _, error, got = same([column] * 3, data, cuts=[len(data) // 3])
    assert raised is None and error is None and len(got) == len(rows)


@pytest.mark.parametrize("encoding", ["iso-8859-1", "iso-8859-5", "cp437", "cp1252", "utf-8"])
def test_char_columns_in_any_code_set_read_as_per_row(encoding):
    """CHAR cut from the block's decoded text (code sets of one character a
    byte) or decoded a value at a time (others): every byte value, NULLs,
    and bytes the code set lacks (cp1252's 0x81, UTF-8's lone 0xff), which
    fail the row they are in and no other."""
    column = parse_type("char(6)")
    cells = [bytes((b, (b * 7) % 256, 32, 65, 0, 255)) for b in range(1, 256)]
    cells += [bytes(6), b"\x00abcde", "olé ".encode("utf-8").ljust(6)]
    rows = [cells[i % len(cells)] + cells[(i * 5) % len(cells)] for i in range(600)]
    data = b"".join(tuple_msg(r) for r in rows) + tail(len(rows))
    _same_encoding([column, column], data, [len(data) // 2], encoding)


def test_runs_start_at_the_block_size_last_taken_whole():
    """A run of whole replies lets the next run start big (the per-block
    set-up is paid once a reply, not at 32, 128, 512 rows); a run stopped
    by a tuple the hook leaves sends the next one back to 32 rows, so a
    reply alternating such tuples costs no quadratic copying; rows are
    the per-row decoder's whatever size a run starts at."""
    types = [parse_type("integer"), parse_type("date")]
    encode = make_row_encoder(types)
    rows = [(i, dt.date(2000, 1, 1) + dt.timedelta(days=i)) for i in range(700)]
    data = b"".join(tuple_msg(encode(r)) for r in rows) + tail(len(rows))
    decode = make_row_decoder(types)
    block = decode.bulk.__self__
    block.start = 32
    reply = Reply()
    parse_reply(bytearray(data), 0, reply, decode)
    assert reply.rows == rows and block.start == 512      # 32, 128, 512 taken whole
    stride = 8 + 4 + 4                                   # head, INTEGER, DATE
    bad = bytearray(data)
    bad[stride * 300 + 2:stride * 300 + 4] = b"\x01\x00"      # row 300: a warning flag
    reply = Reply()
    parse_reply(bad, 0, reply, decode)
    assert reply.rows == rows and reply.warnings == 0x0100 and block.start >= 32
    stopped = decode.bulk(bad, 0, len(bad), Reply(), MAX_FIELD)
    assert stopped == stride * 300 and block.start == 32
    same(types, bytes(bad), cuts=[len(bad) // 2])


_BOOLEAN_CELLS = [b"\x00\x00\x00\x00\x01\x01", b"\x00\x00\x00\x00\x01\x00",
                  b"\x01\x00\x00\x00\x00",              # NULL, no byte
                  b"\x01\x00\x00\x00\x01\x00",          # NULL with its byte
                  b"\x00\x00\x00\x00\x00",              # no byte at all
                  b"\x00\x00\x00\x00\x02\x01\x00",      # two bytes
                  b"\x00\x00\x00\x00\x01\x74"]          # 't'


@pytest.mark.parametrize("head", [["integer"], [], ["varchar(5)"]], ids=["int", "bare", "text"])
def test_boolean_cells_of_every_length_read_as_per_row(head):
    """The run hook reads BOOLEANs as 6 bytes first and frames a row again
    the careful way when one is not: every length a server may send, in
    rows beside INTEGER, VARCHAR and LVARCHAR, reads as the per-row decoder
    reads it, however the reply is cut."""
    types = [parse_type(t) for t in [*head, "boolean", "varchar(9)", "boolean", "lvarchar"]]
    prefix = make_row_encoder([parse_type(t) for t in head])
    text, lvar = make_row_encoder([types[-3]]), make_row_encoder([types[-1]])
    images = []
    for i in range(200):
        first = prefix(tuple(i if t == "integer" else f"h{i % 7}" for t in head))
        images.append(first + _BOOLEAN_CELLS[i % 7] + text((f"v{i}",))
                      + _BOOLEAN_CELLS[(i * 3) % 7 if i % 5 else 0] + lvar((f"l{i}" * (i % 4),)))
    data = b"".join(tuple_msg(m) for m in images) + tail(len(images))
    for cuts in ([], [len(data) // 3, len(data) // 2]):
        stops, raised, _, error, rows = same(types, data, cuts=cuts)
        assert raised is None and error is None and len(rows) == 200
    reply = Reply()
    tuples = len(data) - len(tail(0))
    assert make_row_decoder(types).bulk(bytearray(data), 0, len(data), reply, MAX_FIELD) \
        == tuples                          # every row framed again inside the hook
    assert [r[len(head)] for r in reply.rows][:7] == [True, False, None, None, False, True, True]


def test_adjacent_booleans_whose_lengths_sum_to_twelve_are_not_misread():
    """A 7-byte BOOLEAN then a 5-byte NULL frame as 12 bytes, like two
    common ones: only the length check tells them apart (the row's end
    would not)."""
    types = [parse_type("boolean"), parse_type("boolean")]
    image = _BOOLEAN_CELLS[5] + _BOOLEAN_CELLS[2]
    data = tuple_msg(_BOOLEAN_CELLS[0] * 2) + tuple_msg(image) + tail(2)
    *_, rows = same(types, data)
    assert rows[1] == (("bool", "True"), ("NoneType", "None"))


@pytest.mark.parametrize("odd", [2, 3, 4, 5, 6], ids=["null", "null-6", "no-byte", "two",
                                                      "t"])
def test_boolean_blocks_leave_other_cells_to_the_row_code(odd):
    """A shape of BOOLEANs and fixed columns is decoded a block at a time
    while every BOOLEAN is its common 6 bytes; a cell of any other form
    mid-block (a 7+5-byte pair the same size as two common cells, a NULL
    flag in 6 bytes, 't') hands the block to the per-row decoder, and a
    tuple of another size to the run hook: the rows are the per-row
    decoder's, however the reply is cut."""
    types = [parse_type(t) for t in ("boolean", "integer", "boolean", "boolean")]
    common = _BOOLEAN_CELLS[:2]
    images = [common[i % 2] + struct.pack("!i", i) + common[(i // 2) % 2] + common[i % 2]
              for i in range(300)]
    images[100] = _BOOLEAN_CELLS[5] + struct.pack("!i", 7) + _BOOLEAN_CELLS[2] + common[0]
    images[150] = common[0] + struct.pack("!i", 8) + common[1] + _BOOLEAN_CELLS[odd]
    data = b"".join(tuple_msg(m) for m in images) + tail(len(images))
    for cuts in ([], [len(data) // 3, len(data) // 2]):
        stops, raised, _, error, rows = same(types, data, cuts=cuts)
        assert raised is None and error is None and len(rows) == 300
    assert rows[100] == (("bool", "True"), ("int", "7"), ("NoneType", "None"),
                         ("bool", "True"))
    reply, clean = Reply(), b"".join(tuple_msg(m) for m in images[:100])
    decode = make_row_decoder(types)
    assert decode.bulk(bytearray(clean), 0, len(clean), reply, MAX_FIELD) == len(clean)
    assert reply.rows[:3] == [(True, 0, True, True), (False, 1, True, False),
                              (True, 2, False, True)]
