"""Adversary round 6: Arrow INT8 decode (arrow/word_cells.int8_usual and the
general path of arrow/columnar.py, branch s23g) on whole columns where one
cell breaks the usual form: a sign word other than 1, -1, 0 (2, -2,
0x7FFF, -0x8000, 0x0100), a zero magnitude under sign -1, a NULL carrying
a magnitude, magnitudes of 2**63 and 2**64 - 1, at the first, a middle
and the last row of 1-, 2-, 1,000- and 5,000-row columns of each usual
shape (one sign, mixed, with NULLs).  The batch is the reference
decoder's (values, NULLs and errors alike), and the values buffer under
a valid row is the value itself.
"""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason="the Arrow decoder needs numpy")
pytest.importorskip("pyarrow", reason="the Arrow decoder needs pyarrow")

from informix_stream.arrow.columnar import decode_batch  # noqa: E402
from informix_stream.arrow.reference import reference_batch  # noqa: E402
from informix_stream.codecs import parse_type  # noqa: E402
from informix_stream.errors import DataError, ProtocolError  # noqa: E402

_INT8 = [parse_type("int8")]


def _cell(sign: int, mag: int) -> bytes:
    return (sign.to_bytes(2, "big", signed=True) + (mag & 0xFFFFFFFF).to_bytes(4, "big")
            + (mag >> 32).to_bytes(4, "big"))


def _outcome(decode, images):
    try:
        batch = decode(images, _INT8, ["i"])
    except (DataError, ProtocolError) as exc:
        # the class and the column named; the wording of why may differ
        return ("error", type(exc).__name__, str(exc).split(":")[0])
    column = batch.column(0)
    return ("ok", column.type, column.to_pylist())


def _shape(kind: str, n: int) -> list[tuple[int, int]]:
    mags = [(i * 7919 + 1) * (1 << (i % 40)) % (2 ** 63) for i in range(n)]
    if kind == "positive":
        return [(1, m) for m in mags]
    if kind == "negative":
        return [(-1, m) for m in mags]
    if kind == "negative-nulls":
        return [(0, 0) if i % 5 == 0 else (-1, m) for i, m in enumerate(mags)]
    return [(0, m) if i % 7 == 0 else ((-1) ** i, m) for i, m in enumerate(mags)]


_ODD = [(2, 5), (-2, 5), (0x7FFF, 1), (-0x8000, 9), (0x100, 2 ** 40), (-1, 0), (0, 12345),
        (1, 2 ** 63), (-1, 2 ** 63), (-1, 2 ** 64 - 1), (1, 2 ** 63 - 1), (-1, 2 ** 63 - 1)]


@pytest.mark.parametrize("kind", ["positive", "negative", "negative-nulls", "mixed"])
@pytest.mark.parametrize("n", [1, 2, 1000, 5000])
def test_one_odd_cell_in_a_usual_column(kind, n):
    cells = _shape(kind, n)
    for odd in _ODD:
        for where in sorted({0, n // 2, n - 1}):
            column = list(cells)
            column[where] = odd
            images = [_cell(*c) for c in column]
            got = _outcome(decode_batch, images)
            assert got == _outcome(reference_batch, images), (kind, n, odd, where)


def test_valid_rows_hold_their_value_in_the_buffer():
    cells = [(1, 5), (0, 77), (-1, 0), (2, 9), (-1, 2 ** 63 - 1), (0, 0)]
    batch = decode_batch([_cell(*c) for c in cells], _INT8, ["i"])
    column = batch.column(0)
    values = np.frombuffer(column.buffers()[1], "<i8")[:len(cells)]
    assert column.to_pylist() == [5, None, 0, 9, -(2 ** 63 - 1), None]
    assert [int(values[i]) for i in (0, 2, 3, 4)] == [5, 0, 9, -(2 ** 63 - 1)]
