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



@pytest.mark.parametrize("null_cell", [bytes(3), bytes([0, 0, 42])])
def test_hour_to_minute_nulls_hold_zero_and_a_bitmap_of_the_usual_cells(null_cell):
    # a NULL as the server sends it (all zero) reads as 0 seconds with no
    # zeroing pass; one with a stray minute byte is zeroed; either way the
    # validity bitmap marks exactly the usual cells
    import numpy as np
    cells = [bytes([_HM_HEAD, 1, 2]), null_cell, bytes([_HM_HEAD, 23, 59]), null_cell]
    column = decode_batch(cells, [_HM], ["t"]).column(0)
    assert column.to_pylist() == [dt.time(1, 2), None, dt.time(23, 59), None]
    validity, data = column.buffers()
    assert np.frombuffer(data, "<i4").tolist() == [3720, 0, 86340, 0]
    assert np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")[:4].tolist() \
        == [1, 0, 1, 0]

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
    from informix_stream.arrow.word_cells import boolean_words
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



@st.composite
def _sized_boolean_cells(draw):
    """A BOOLEAN cell as rows with NULLs carry it: mostly the 6-byte cell
    (length 1) or the 5-byte NULL cell (flag 1, length 0), any flag and
    value byte, and now and then a length field its size does not imply
    (a 5-byte cell saying 1, a 6-byte one saying 0, a high byte set)."""
    short = draw(st.booleans())
    flag = 1 if short and draw(st.integers(0, 3)) else draw(_BYTE)
    length = bytearray(4)
    length[3] = 0 if short else 1
    if draw(st.integers(0, 6)) == 0:
        length[draw(st.integers(0, 3))] = draw(_BYTE)
    return bytes([flag]) + bytes(length) + (b"" if short else bytes([draw(_BYTE)]))


@_SETTINGS
@given(st.lists(st.tuples(_sized_boolean_cells(), st.integers(0, 2 ** 32 - 1)),
                min_size=1, max_size=10), st.sampled_from(["alone", "between", "first"]))
def test_boolean_cells_of_both_sizes_decode_as_the_reference(rows, shape):
    # frame._one_boolean: one BOOLEAN among fixed cells, rows of two sizes;
    # cells before it at constant offsets, cells after it shifted by its size
    integer, smallint, boolean = (parse_type(t) for t in ("integer", "smallint", "boolean"))
    if shape == "alone":
        types, images = [boolean], [cell for cell, _ in rows]
    elif shape == "between":
        types = [integer, boolean, smallint]
        images = [n.to_bytes(4, "big") + cell + (n & 0xFFFF).to_bytes(2, "big")
                  for cell, n in rows]
    else:
        types = [boolean, integer]
        images = [cell + n.to_bytes(4, "big") for cell, n in rows]
    _same(images, types)


def test_boolean_columns_with_nulls_are_framed_by_row_size(monkeypatch):
    # the differential test above would pass if every batch took the general
    # framing; a usual column with NULLs, alone or between fixed cells, must not
    from informix_stream.arrow import frame

    def general(*args):
        raise AssertionError("took the general framing")
    monkeypatch.setattr(frame.Frame, "_frame_unchecked", general)
    monkeypatch.setattr(frame.Frame, "_frame_column", general)
    values = [True, None, False, None, True]
    boolean, integer = parse_type("boolean"), parse_type("integer")
    images = [make_row_encoder([boolean])((v,)) for v in values]
    assert [len(i) for i in images] == [6, 5, 6, 5, 6]
    assert decode_batch(images, [boolean], ["b"]).column(0).to_pylist() == values
    encode = make_row_encoder([integer, boolean, integer])
    batch = decode_batch([encode((k, v, -k)) for k, v in enumerate(values)],
                         [integer, boolean, integer], ["a", "b", "c"])
    assert batch.to_pydict() == {"a": [0, 1, 2, 3, 4], "b": values, "c": [0, -1, -2, -3, -4]}

def test_a_boolean_column_alone_is_read_by_three_gathers(monkeypatch):
    # a column of the BOOLEAN alone with NULLs: word_cells.boolean_cells_alone,
    # not the six gathers of boolean_cells_by_row_size (which other shapes keep)
    from informix_stream.arrow import word_cells

    def six(*args):
        raise AssertionError("took the six-gather read")
    boolean = parse_type("boolean")
    values = [None if i % 10 == 0 else i % 3 == 0 for i in range(500)]
    images = [make_row_encoder([boolean])((v,)) for v in values]
    with monkeypatch.context() as patch:
        patch.setattr(word_cells, "boolean_cells_by_row_size", six)
        assert decode_batch(images, [boolean], ["b"]).column(0).to_pylist() == values


@pytest.mark.parametrize("byte", [1, 2, 3, 4])
@pytest.mark.parametrize("at", [0, 1, 7, 8, 9])
def test_every_length_byte_of_a_boolean_alone_is_checked(byte, at):
    """A length byte other than its cell size's, in a 6-byte or a 5-byte
    cell among NULLs: the counts (the bytes not gathered) or the gathered
    low bytes refuse the read, and the general framing gives the
    reference's outcome."""
    from informix_stream.arrow import word_cells
    import numpy as np
    boolean = parse_type("boolean")
    values = [None if i % 3 == 0 else bool(i & 1) for i in range(10)]
    for value in (True, None):
        images = [bytearray(make_row_encoder([boolean])((v,))) for v in values]
        images[at] = bytearray(make_row_encoder([boolean])((value,)))
        images[at][byte] ^= 0x40
        lengths = np.array([len(i) for i in images], np.int64)
        starts = np.cumsum(lengths) - lengths
        buf = np.frombuffer(b"".join(images), np.uint8)
        assert word_cells.boolean_cells_alone(np, buf, starts, lengths == 6) is None
        _same([bytes(i) for i in images], [boolean])


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



def _int8_cell(sign: int, mag: int) -> bytes:
    return (sign.to_bytes(2, "big", signed=True) + (mag & 0xFFFFFFFF).to_bytes(4, "big")
            + (mag >> 32).to_bytes(4, "big"))


_USUAL_SIGNS = st.sampled_from([1, -1, 0])


@_SETTINGS
@given(st.lists(st.tuples(_USUAL_SIGNS, _MAGNITUDES), min_size=1, max_size=12),
       st.sampled_from(["mixed", "positive", "negative"]))
def test_int8_columns_of_the_usual_signs_decode_as_the_reference(cells, signs):
    # word_cells.int8_usual: columns of one sign (left, or negated in
    # place), mixed signs and NULLs (one multiply), magnitudes past int64
    # (-2**63 among them) handed back to the general path
    if signs != "mixed":
        cells = [(1 if signs == "positive" else -1, mag) for _, mag in cells]
    _same([_int8_cell(sign, mag) for sign, mag in cells], [parse_type("int8")])


def test_int8_usual_reads_the_usual_columns_and_declines_the_others():
    import numpy as np
    from informix_stream.arrow.word_cells import int8_usual

    def usual(cells):
        raw = np.frombuffer(b"".join(_int8_cell(s, m) for s, m in cells), np.uint8)
        out = int8_usual(np, raw.reshape(-1, 10))
        return None if out is None else (out[0].tolist(),
                                         None if out[1] is None else out[1].tolist())
    big = 2 ** 63 - 1
    assert usual([(1, 5), (1, big)]) == ([5, big], None)
    assert usual([(-1, 5), (-1, big)]) == ([-5, -big], None)
    assert usual([(1, 5), (-1, 2 ** 40 + 3)]) == ([5, -(2 ** 40 + 3)], None)
    # under a NULL the value is zero, whatever magnitude the cell carries;
    # the mask returned is the valid cells'
    assert usual([(0, 7), (-1, 6), (1, 2 ** 33)]) == ([0, -6, 2 ** 33], [False, True, True])
    assert usual([(0, 7), (0, 8)]) == ([0, 0], [False, False])
    # a column of one sign with NULLs: no multiply; under the NULL lies the
    # cell's magnitude (negated with its column), masked by the bitmap
    assert usual([(-1, 5), (0, 0), (0, 9)]) == ([-5, 0, -9], [True, False, False])
    assert usual([(0, 9), (1, 5)]) == ([9, 5], [False, True])
    for declined in ([(2, 5)], [(1, 5), (-0x8000, 1)], [(1, 2 ** 63)], [(-1, 2 ** 63)],
                     [(0, 2 ** 64 - 1)]):
        assert usual(declined) is None, declined


def test_usual_int8_columns_take_the_word_path_with_small_temporaries(monkeypatch):
    """A usual column does not reach the general path, and its decode holds
    no temporary as large as its values but the result: the general path's
    three int64 columns page-faulted in afresh every batch in some process
    histories (word_cells' docstring).  numpy reports to tracemalloc."""
    import tracemalloc

    import numpy as np
    from informix_stream.arrow import columnar

    n = 20_000
    types = [parse_type("int8")]
    images = [_int8_cell(0 if i % 10 == 0 else (-1) ** i, i * 10 ** 13) for i in range(n)]
    block = columnar.pack_images(np, images, 10)
    columnar.decode_block(block, types, ["i"])          # imports done

    def general(self, data, null):
        raise AssertionError("took the general path")
    monkeypatch.setattr(columnar._Column, "array", general)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        batch = columnar.decode_block(block, types, ["i"])
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    values = batch.column(0).to_pylist()
    assert values[:3] == [None, -(10 ** 13), 2 * 10 ** 13] and values[-1] == -(n - 1) * 10 ** 13
    # the result (8 bytes a row), the int16 signs, the valid mask, its bitmap
    # and numpy's casting buffers (269 KB measured; the general path, three
    # int64 columns at once, 483 KB)
    assert peak <= 8 * n + 2 * n + n + n // 8 + 128 * 1024, peak

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


@pytest.mark.parametrize("row_types", [["integer", "smallint"], ["int8", "date", "boolean"],
                                       ["datetime hour to minute", "char(5)", "bigint"],
                                       ["decimal(12,2)", "int8"]])
def test_matrix_columns_are_copied_contiguous_as_they_lie(row_types):
    # frame.Frame._matrix_cells: a word copy for 1, 2, 4 and 8 bytes, a void
    # copy for other widths, the matrix itself for a whole-row column
    import numpy as np
    from informix_stream.arrow.frame import Frame, ImageBlock, cell_width
    types = [parse_type(t) for t in row_types]
    widths = [6 if t.code.name == "BOOLEAN" else cell_width(t) for t in types]
    n, row = 7, sum(widths)
    blob = bytes(np.random.default_rng(row).integers(0, 256, n * row, dtype=np.uint8))
    lengths = None if "boolean" not in row_types else np.full(n, row, np.int64)
    if lengths is not None:      # BOOLEAN cells of length 1, so the matrix framing takes them
        at = sum(widths[:row_types.index("boolean")])
        blob = bytearray(blob)
        for r in range(n):
            blob[r * row + at:r * row + at + 5] = b"\x00\x00\x00\x00\x01"
        blob = bytes(blob)
    frame = Frame(np, ImageBlock(blob, lengths, n), types)
    matrix = np.frombuffer(blob, np.uint8).reshape(n, row)
    for k, width in enumerate(widths):
        cells = frame.cells(k, width)
        start = sum(widths[:k])
        assert cells.flags.c_contiguous and cells.shape == (n, width)
        assert np.array_equal(cells, matrix[:, start:start + width])
    whole = Frame(np, ImageBlock(blob[:n * widths[0]], None, n), types[:1])
    assert np.shares_memory(whole.cells(0, widths[0]), whole.buf)
