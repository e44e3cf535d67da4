"""The Arrow decoder's per-type fast paths (arrow/packed_columns.py,
arrow/columnar.py) against the reference batch (row decoder -> Python
values -> Arrow): each trick over the values it reads specially -- range
edges, NULL cells with stray bytes after their NULL marker, heads other
than the usual one, columns cut from wider rows (their cells strided in
the batch buffer) and one-row batches (the last cell read alone)."""

from __future__ import annotations

import datetime as dt

import pytest

pytest.importorskip("numpy", reason="the arrow extra (numpy, pyarrow) is not installed")
pytest.importorskip("pyarrow", reason="the arrow extra (numpy, pyarrow) is not installed")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from informix_stream.arrow.columnar import decode_batch  # noqa: E402
from informix_stream.arrow.reference import reference_batch  # noqa: E402
from informix_stream.codecs import make_row_encoder, parse_type  # noqa: E402
from informix_stream.errors import DataError, ProtocolError  # noqa: E402

_SETTINGS = settings(max_examples=400, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


def _outcome(decode, images, types):
    names = [f"c{k}" for k in range(len(types))]
    try:
        batch = decode(images, types, names)
    except (DataError, ProtocolError) as exc:
        return ("error", type(exc).__name__)
    return ("ok", str(batch.schema), [col.to_pylist() for col in batch.columns])


def _same(images, types):
    fast = _outcome(decode_batch, images, types)
    assert fast == _outcome(reference_batch, images, types)
    return fast


# -- DATETIME HOUR TO MINUTE: one uint32 a cell ----------------------------------

_HM = parse_type("datetime hour to minute")
# the usual head, as the encoder writes it
_HM_HEAD = make_row_encoder([_HM])((dt.time(12, 30),))[0]
_PAIR = st.sampled_from([0, 1, 22, 23, 24, 58, 59, 60, 99, 100, 255]) | st.integers(0, 255)


@st.composite
def _hour_minute_cells(draw):
    """Usual cells, NULLs (all zero, or a stray minute after the zero
    pair), and now and then a head that is neither."""
    kind = draw(st.sampled_from(["usual"] * 6 + ["null", "stray null", "odd head"]))
    if kind == "null":
        return bytes(3)
    if kind == "stray null":
        return bytes([0, 0, draw(st.integers(1, 255))])
    head = _HM_HEAD if kind == "usual" else draw(st.integers(0, 255))
    return bytes([head, draw(_PAIR), draw(_PAIR)])


@_SETTINGS
@given(st.lists(_hour_minute_cells(), min_size=1, max_size=12))
def test_hour_to_minute_cells_decode_as_the_reference(cells):
    assert _same(cells, [_HM])[0] in ("ok", "error")


@_SETTINGS
@given(st.lists(_hour_minute_cells(), min_size=1, max_size=12), st.integers(0, 2 ** 31 - 1))
def test_hour_to_minute_cut_from_wider_rows_decodes_as_the_reference(cells, fill):
    # INTEGER, HOUR TO MINUTE, SMALLINT: the cells sit at offset 4 of 9-byte rows
    types = [parse_type("integer"), _HM, parse_type("smallint")]
    images = [fill.to_bytes(4, "big") + cell + (7).to_bytes(2, "big") for cell in cells]
    _same(images, types)


def test_hour_to_minute_values_nulls_and_a_single_row():
    assert _HM_HEAD == 0xC3
    cells = [bytes([_HM_HEAD, 23, 59]), bytes(3), bytes([0, 0, 42]), bytes([_HM_HEAD, 0, 0])]
    outcome = _same(cells, [_HM])
    assert outcome[2][0][0].isoformat() == "23:59:00"
    assert outcome[2][0][1:3] == [None, None]
    assert _same(cells[:1], [_HM])[2] == [[outcome[2][0][0]]]
    # an hour past 23 is the reference's DataError in both
    assert _same([bytes([_HM_HEAD, 24, 0])], [_HM]) == ("error", "DataError")


def test_usual_hour_to_minute_columns_take_the_word_path(monkeypatch):
    # the differential tests above would pass if every column fell back to the
    # general paths; a usual column (with NULLs) must not reach them
    from informix_stream.arrow import packed_columns

    def general(*args):
        raise AssertionError("took the general path")
    monkeypatch.setattr(packed_columns, "_temporal_cells", general)
    monkeypatch.setattr(packed_columns, "_usual_nulls", general)
    cells = [bytes([_HM_HEAD, h, m]) for h in (0, 9, 23) for m in (0, 31, 59)] + [bytes(3)]
    batch = decode_batch(cells, [_HM], ["t"])
    assert batch.column(0).to_pylist() == [dt.time(h, m) for h in (0, 9, 23)
                                           for m in (0, 31, 59)] + [None]


# -- BOOLEAN columns framed as a matrix: two words a cell --------------------------

_BYTE = st.sampled_from([0, 1, 2, 0x74, 0x54, 0x66, 0xFF]) | st.integers(0, 255)


@st.composite
def _six_byte_boolean_cells(draw):
    """[flag][int length][value], six bytes: mostly the usual length 1, now
    and then one length byte other than the usual (a length of 0x101, 2**24
    + 1, 0 ...), so a row keeps its usual size and only the length field
    says it is not a matrix."""
    length = bytearray(b"\x00\x00\x00\x01")
    if draw(st.integers(0, 4)) == 0:
        length[draw(st.integers(0, 3))] = draw(_BYTE)
    return bytes([draw(_BYTE)]) + bytes(length) + bytes([draw(_BYTE)])


@_SETTINGS
@given(st.lists(st.tuples(_six_byte_boolean_cells(), _six_byte_boolean_cells(),
                          st.integers(0, 2 ** 32 - 1)), min_size=1, max_size=10))
def test_boolean_cells_of_the_matrix_shape_decode_as_the_reference(rows):
    # BOOLEAN, INTEGER, BOOLEAN: the second BOOLEAN's cells at odd offsets
    types = [parse_type("boolean"), parse_type("integer"), parse_type("boolean")]
    images = [a + n.to_bytes(4, "big") + b for a, b, n in rows]
    _same(images, types)


def test_usual_boolean_columns_are_read_as_words():
    from informix_stream.arrow.columnar import boolean_words
    import numpy as np
    cells = b"".join(bytes([flag, 0, 0, 0, 1, value])
                     for flag, value in [(0, 1), (0, 0), (1, 0), (0, ord("t")), (0, ord("f"))])
    flag, value = boolean_words(np, np.frombuffer(cells, np.uint8), 0, 6, 5)
    assert flag.tolist() == [0, 0, 1, 0, 0]
    assert value.tolist() == [1, 0, 0, ord("t"), ord("f")]
    for bad in (b"\x00\x00\x00\x01\x01\x01", b"\x00\x01\x00\x00\x01\x01",
                b"\x00\x00\x00\x00\x00\x01"):
        assert boolean_words(np, np.frombuffer(cells + bad, np.uint8), 0, 6, 6) is None
    batch = decode_batch([cells[k:k + 6] for k in range(0, 30, 6)], [parse_type("boolean")],
                         ["b"])
    assert batch.column(0).to_pylist() == [True, False, None, True, False]


# -- INT8: two strided words a cell ---------------------------------------------

_MAGNITUDES = st.sampled_from([0, 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 63 - 1, 2 ** 63,
                               2 ** 63 + 1, 2 ** 64 - 1]) | st.integers(0, 2 ** 64 - 1)


@_SETTINGS
@given(st.lists(st.tuples(st.sampled_from([0, 1, -1, 2, -2, 0x7FFF, -0x8000, 0x100, -0x100]),
                          _MAGNITUDES, st.integers(-2 ** 15, 2 ** 15 - 1)),
                min_size=1, max_size=10))
def test_int8_cut_from_wider_rows_decodes_as_the_reference(cells):
    # SMALLINT then INT8: the INT8 cells at offset 2 of 12-byte rows; NULLs
    # (sign 0) with any magnitude under them, signs other than +-1, and
    # magnitudes either side of 2**63
    images = [small.to_bytes(2, "big", signed=True) + sign.to_bytes(2, "big", signed=True)
              + (mag & 0xFFFFFFFF).to_bytes(4, "big") + (mag >> 32).to_bytes(4, "big")
              for sign, mag, small in cells]
    _same(images, [parse_type("smallint"), parse_type("int8")])


def test_int8_values_and_nulls_read_as_words():
    cells = [(1, 5), (-1, 5), (0, 99), (-1, 2 ** 63), (0x100, 2 ** 40 + 7), (-0x8000, 1)]
    images = [sign.to_bytes(2, "big", signed=True) + (mag & 0xFFFFFFFF).to_bytes(4, "big")
              + (mag >> 32).to_bytes(4, "big") for sign, mag in cells]
    batch = decode_batch(images, [parse_type("int8")], ["i"])
    assert batch.column(0).to_pylist() == [5, -5, None, -(2 ** 63), 2 ** 40 + 7, -1]
    assert batch.column(0).buffers()[1] is not None
    # under the NULL the value is zeroed, not the stray magnitude
    import numpy as np
    assert np.frombuffer(batch.column(0).buffers()[1], "<i8")[2] == 0


# -- DECIMAL's rescale through float64 division -------------------------------------

@_SETTINGS
@given(st.integers(0, 2 ** 62) | st.integers(2 ** 52, 2 ** 54), st.integers(0, 18),
       st.booleans())
def test_checked_quotient_is_exact_or_refused_by_its_check(value, power, divisible):
    import numpy as np
    from informix_stream.arrow.base100 import checked_quotient
    divisor = 10 ** power
    if divisible:
        value = value // divisor * divisor
    q = int(checked_quotient(np, np.array([value], np.int64), np.array([divisor], np.int64))[0])
    if q * divisor == value:               # what decimal_array accepts ...
        assert q == value // divisor       # ... is the exact quotient
    else:                                  # refused: not divisible, or past 2**53
        assert value % divisor or value >= 2 ** 53


@pytest.mark.parametrize("spec", ["decimal(16,0)", "decimal(16,2)", "decimal(15,3)",
                                  "money(16,2)", "decimal(32,10)"])
def test_decimals_either_side_of_two_to_the_53_decode_as_the_reference(spec):
    from decimal import Decimal
    ctype = parse_type(spec)
    encode = make_row_encoder([ctype])
    scale = ctype.scale
    edge = 2 ** 53
    values = [Decimal(f"{sign}{u}E-{scale}") for u in (edge - 1, edge, edge + 1, edge + 10,
                                                       10 ** 15 + 3, 10 ** ctype.precision - 1)
              if u < 10 ** ctype.precision for sign in ("", "-")]
    outcome = _same([encode((v,)) for v in values], [ctype])
    assert outcome[0] == "ok" and outcome[2][0] == values


def test_a_wide_decimal_column_keeps_few_temporaries_alive():
    """DECIMAL(32,10)'s decode holds at most ~16 int64 columns at its peak
    (13.5 measured; it held 27 before its temporaries were freed as spent
    and the 128-bit product worked in place): above a few MB its
    temporaries crossed the heap's trim threshold and page-faulted in
    afresh every batch, 93 ns a value against 35 (packed_columns.
    decimal_array).  numpy reports its buffers to tracemalloc."""
    import tracemalloc
    from decimal import Decimal

    from informix_stream.arrow.columnar import decode_batch
    from informix_stream.codecs import make_row_encoder, parse_type

    n = 20_000
    ctype = parse_type("decimal(32,10)")
    encode = make_row_encoder([ctype])
    images = [encode((None if i % 10 == 0 else Decimal(i * 123_456_789_012_345_678 + 1)
                      .scaleb(-10) * (-1 if i & 1 else 1),)) for i in range(n)]
    decode_batch(images, [ctype], ["c"])            # tables built, imports done
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        batch = decode_batch(images, [ctype], ["c"])
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert batch.column(0)[1].as_py() == -Decimal(123_456_789_012_345_679).scaleb(-10)
    assert peak <= 16 * 8 * n + len(b"".join(images)) * 2, peak
