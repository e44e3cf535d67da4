"""arrow/base100.py's numpy tricks, each against its plain per-cell form
(codec/scalars.py or plain integer arithmetic) on hypothesis-drawn cells,
bad pair bytes (over 99) included."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason="the arrow extra (numpy, pyarrow) is not installed")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from informix_stream.arrow import base100  # noqa: E402
from informix_stream.codec.scalars import complement  # noqa: E402

_PAIR = st.integers(0, 99) | st.sampled_from([0, 0, 99, 100, 0x63, 0x80, 0xFF])


@st.composite
def _cells(draw, most: int = 16):
    k = draw(st.integers(1, most))
    rows = draw(st.lists(st.lists(_PAIR, min_size=k, max_size=k), min_size=1, max_size=8))
    for row in rows:
        if draw(st.booleans()):                 # trailing zero pairs, as values have
            cut = draw(st.integers(0, k))
            row[k - cut:] = [0] * cut
    heads = draw(st.lists(st.integers(0, 255), min_size=len(rows), max_size=len(rows)))
    return np.array([[h, *row] for h, row in zip(heads, rows)], np.uint8)


def _number(pairs) -> int:
    out = 0
    for p in pairs:
        out = out * 100 + p
    return out


@settings(max_examples=300, deadline=None)
@given(_cells())
def test_limbs_are_the_pairs_number(raw):
    high, low, bad = base100.limbs(np, raw)
    k = raw.shape[1] - 1
    for r, row in enumerate(raw.tolist()):
        pairs = row[1:]
        assert bool(bad[r]) == (max(pairs) > 99)
        if max(pairs) <= 99:
            n = _number(pairs)
            assert (0 if high is None else int(high[r])) * 10 ** 16 + int(low[r]) == n
            assert high is not None or k <= 8


@settings(max_examples=300, deadline=None)
@given(_cells())
def test_zero_tail_counts_the_trailing_zero_pairs(raw):
    tail = base100.zero_tail(np, raw)
    for r, row in enumerate(raw.tolist()):
        pairs = row[1:]
        assert int(tail[r]) == len(pairs) - len(bytes(pairs).rstrip(b"\0"))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 9).flatmap(lambda k: st.tuples(
    st.just(k), st.lists(st.integers(0, 100 ** k - 1), min_size=1, max_size=8))))
def test_pair_bytes_invert_the_number(case):
    k, values = case
    got = base100.pair_bytes(np, np.array(values, np.uint64), k)
    assert [_number(row) for row in got.tolist()] == values


@settings(max_examples=300, deadline=None)
@given(_cells(), st.data())
def test_complement_is_the_scalar_complement(raw, data):
    pairs = np.minimum(raw[:, 1:], 99).astype(np.int16)
    negative = np.array(data.draw(st.lists(st.booleans(), min_size=len(pairs),
                                           max_size=len(pairs))))
    expected = []
    for row, neg in zip(pairs.tolist(), negative.tolist()):
        body = bytearray(row)
        if neg:
            complement(body)
        expected.append(list(body))
    base100.complement(np, pairs, negative)
    assert pairs.tolist() == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10 ** 16 - 1), st.integers(0, 16),
                          st.integers(0, 10 ** 16 - 1), st.booleans()),
                min_size=1, max_size=8))
def test_int128_words_are_the_plain_product(rows):
    """The in-place 32-bit-halves product against Python's integers: words
    of ``±(high * 10**j + low)`` in two's complement, carries between the
    halves and the negation's borrow (low word 0) included."""
    high = np.array([r[0] for r in rows], np.int64)
    mult = np.array([10 ** r[1] for r in rows], np.int64)
    low = np.array([r[2] for r in rows], np.int64)
    negative = np.array([r[3] for r in rows])
    words = base100.int128_words(np, high.copy(), mult, low.copy(), negative)
    for (h, j, lo, neg), (w0, w1) in zip(rows, words.tolist()):
        value = (h * 10 ** j + lo) * (-1 if neg else 1)
        assert w0 | (w1 << 64) == value % (1 << 128)


def test_int128_words_fill_the_given_buffer():
    out = np.zeros((2, 2), "<u8")
    got = base100.int128_words(np, np.array([1, 0], np.int64), np.array([10 ** 16, 1]),
                               np.array([5, 0], np.int64), np.array([True, True]), out=out)
    assert got is out
    assert [w0 | (w1 << 64) for w0, w1 in out.tolist()] == [
        -(10 ** 16 + 5) % (1 << 128), 0]
