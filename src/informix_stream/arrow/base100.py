"""numpy helpers for base-100 cells (DECIMAL/MONEY, DATETIME, INTERVAL),
shared by the columnar decoder (packed_columns.py) and the Arrow encoder
(put_images.py) so each trick lives in one place.

A cell is ``[head][pair]...`` (codec/scalars.py has the plain form): head
bit 7 set is positive with the base-100 exponent + 64 in the low 7 bits; a
negative value stores ``head ^ 0x7F`` and its pairs complemented from the
right.  All-zero head and first pair is NULL.

The plain reference of every function here is the per-cell code of
codec/scalars.py (``complement``, ``split_bcd``); tests/unit/
test_arrow_differential.py holds the decoders built on them to it.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Split(NamedTuple):
    """The parts of an (n, width) matrix of base-100 cells."""

    null: Any       # bool: all-zero head and first pair
    negative: Any   # bool: head bit 7 clear (NULL rows included; mask them)
    exp: Any        # int64: the base-100 exponent
    pairs: Any      # int16 (n, width - 1): the pairs, un-complemented
    bad: Any        # bool: a pair byte over 99 (the reference decides the cell)


def complement(np, pairs, negative) -> None:
    """scalars.complement in place on the ``negative`` rows of ``pairs``
    (its own inverse): from the right, zero pairs stay, the last non-zero
    pair becomes 100 - d and every pair before it 99 - d."""
    if not negative.any():
        return
    cols = pairs.shape[1]
    nonzero = pairs != 0
    negative = negative & nonzero.any(axis=1)      # all zeros stay zeros
    last = cols - 1 - np.argmax(nonzero[:, ::-1], axis=1)
    index = np.arange(cols)[None, :]
    before = negative[:, None] & (index < last[:, None])
    at = negative[:, None] & (index == last[:, None])
    pairs[before] = 99 - pairs[before]
    pairs[at] = 100 - pairs[at]


def split(np, raw) -> Split:
    """Head and pairs of every cell (scalars.split_bcd, column-wise).  The
    pairs of a cell with a byte over 99 are left as they came."""
    head = raw[:, 0]
    pairs = raw[:, 1:].astype(np.int16)
    null = (head == 0) & (raw[:, 1] == 0)
    negative = head < 0x80
    exp = (np.where(negative, head ^ 0x7F, head) & 0x7F).astype(np.int64) - 64
    bad = (raw[:, 1:] > 99).any(axis=1)
    complement(np, pairs, negative & ~bad & ~null)
    return Split(null, negative, exp, pairs, bad)


def window(np, cells, start, size: int):
    """``cells[r, start[r]:start[r] + size]`` for every row r, reading zeros
    outside the row (start may be negative or past the end): one gather
    through a strided view, with no (n, size) index array."""
    n, width = cells.shape
    padded = np.zeros((n, width + 2 * size), cells.dtype)
    padded[:, size:size + width] = cells
    start = np.clip(start, -size, width) + size
    views = np.lib.stride_tricks.sliding_window_view(padded, size, axis=1)
    return views[np.arange(n), start]


_M8 = 0x00FF00FF00FF00FF
_M16 = 0x0000FFFF0000FFFF
_M32 = 0xFFFFFFFF
_HIGH_BITS = 0x8080808080808080
_LOW7 = 0x7F7F7F7F7F7F7F7F
_PLUS28 = 0x1C1C1C1C1C1C1C1C     # a 7-bit byte + 28 reaches 128 exactly when it is > 99


def limbs(np, raw):
    """The pairs of (n, 1 + k) cells (k <= 16) as N = high * 10**16 + low,
    both int64 < 10**16 (high None when k <= 8), and which cells have a
    pair byte over 99.

    Eight pairs are one little-endian uint64 (the first pair its lowest
    byte), read straight from the cells with a strided view (a read may run
    into the next cell; the shift drops those bytes), and are joined in
    three SWAR steps, pairs into 0..9999, those into 0..10**8 - 1, those
    into one number: a few passes over n, where a per-pair loop (or a
    reduction over each row's few bytes, which numpy runs slowly) would
    take many."""
    n, width = raw.shape
    k = width - 1
    flat = np.zeros(n * width + 8, np.uint8)
    flat[:n * width] = raw.reshape(-1)
    high = None
    if k > 8:
        high, bad = _swar(np, _u64(np, flat, 1, width, n) << np.uint64(8 * (16 - k)))
        low, bad_low = _swar(np, _u64(np, flat, 1 + k - 8, width, n))
        return high, low, bad | bad_low
    low, bad = _swar(np, _u64(np, flat, 1, width, n) << np.uint64(8 * (8 - k)))
    return high, low, bad


def zero_tail(np, raw):
    """How many of the k pairs (k <= 16) of each (n, 1 + k) cell end it as
    zeros (k for an all-zero cell): counted on the raw bytes, as a
    complement leaves trailing zero pairs zero.  The pairs are read as a
    uint64 whose top bytes are the last pairs; its bit length (exact from a
    float64's exponent, as a pair byte is at most 0x63 for a clean cell and
    no rounding can then reach the next byte) gives the zero bytes on top."""
    n, width = raw.shape
    k = width - 1
    flat = np.zeros(n * width + 8, np.uint8)
    flat[:n * width] = raw.reshape(-1)
    if k <= 8:
        last = _u64(np, flat, 1, width, n) << np.uint64(8 * (8 - k))
        return np.minimum(_zero_top_bytes(np, last), k)
    last = _u64(np, flat, 1 + k - 8, width, n)
    first = _u64(np, flat, 1, width, n) << np.uint64(8 * (16 - k))
    count = _zero_top_bytes(np, last)
    return np.where(count == 8, 8 + np.minimum(_zero_top_bytes(np, first), k - 8), count)


def _zero_top_bytes(np, words):
    """Zero bytes above the highest set bit of each uint64 (8 for zero)."""
    _, bits = np.frexp(words.astype(np.float64))
    return (64 - bits.astype(np.int64)) // 8


def _u64(np, flat, offset: int, stride: int, n: int):
    """The little-endian uint64 at ``offset + r * stride`` of each row r."""
    if not n:
        return np.zeros(0, "<u8")
    return np.ndarray((n,), "<u8", flat, offset, (stride,)).copy()


def _swar(np, x):
    """Eight pairs in a uint64 -> (their 16-digit number, a pair > 99)."""
    over = ((x & np.uint64(_LOW7)) + np.uint64(_PLUS28) | x) & np.uint64(_HIGH_BITS)
    x = (x & np.uint64(_M8)) * np.uint64(100) + ((x >> np.uint64(8)) & np.uint64(_M8))
    x = (x & np.uint64(_M16)) * np.uint64(10000) + ((x >> np.uint64(16)) & np.uint64(_M16))
    x = (x & np.uint64(_M32)) * np.uint64(10 ** 8) + (x >> np.uint64(32))
    return x.view(np.int64), over != 0


_QUADS: dict[int, Any] = {}


def quad_table(np, shift: int = 0):
    """uint64 of each 0..9999 as its two pairs in memory order (the high
    pair the lower byte), shifted left by ``shift`` bits: a 80 KB table
    that turns four digits into two cell bytes by one gather.  A table per
    shift (0, 16, 32, 48) saves pair_word a shift pass per quad."""
    if shift not in _QUADS:
        if 0 not in _QUADS:
            high, low = np.divmod(np.arange(10_000, dtype=np.uint64), np.uint64(100))
            _QUADS[0] = high | (low << np.uint64(8))
        _QUADS[shift] = _QUADS[0] << np.uint64(shift)
    return _QUADS[shift]


def pair_word(np, value, pairs: int = 8):
    """(n,) uint64 numbers < 100**pairs (pairs <= 8) -> uint64 words whose
    little-endian bytes are the number's eight base-100 pairs, most
    significant first: the number cut into 0..9999 quads by divisions by a
    constant (numpy divides by a scalar with a multiply; below 10**8 in
    uint32, half the cost of uint64), each quad two bytes by one gather
    from quad_table's table for its place, ORed in place; quads the number
    cannot reach (``pairs`` <= 6, <= 4) are neither cut nor gathered.
    The plain form is scalars' pairs of the number (test_arrow_put_cells
    holds the two equal)."""
    u4, ten4 = np.uint32, np.uint32(10 ** 4)
    if pairs <= 4:
        high, low = None, value.astype(u4)
    else:
        high = value // np.uint64(10 ** 8)
        low = (value - high * np.uint64(10 ** 8)).astype(u4)
    q_low = low // ten4
    low -= q_low * ten4
    word = quad_table(np, 48).take(low)
    word |= quad_table(np, 32).take(q_low)
    if high is None:
        return word
    if pairs <= 6:
        word |= quad_table(np, 16).take(high)
        return word
    high = high.astype(u4)
    q_high = high // ten4
    high -= q_high * ten4
    word |= quad_table(np, 16).take(high)
    word |= quad_table(np).take(q_high)
    return word


def pair_bytes(np, value, k: int):
    """(n,) uint64 numbers < 100**k (k <= 9) -> their k base-100 pairs,
    (n, k) uint8, most significant first: the inverse of ``limbs``, by
    pair_word (a ninth pair apart)."""
    u = np.uint64
    top = None
    if k > 8:
        top = value // u(10 ** 16)
        value = value - top * u(10 ** 16)
    out = pair_word(np, value).astype("<u8", copy=False).view(np.uint8).reshape(-1, 8)
    if top is None:
        return out[:, 8 - k:]
    return np.concatenate([top.astype(np.uint8)[:, None], out], axis=1)


def number(np, pairs):
    """(n, m) pairs 0..99, m <= 9 -> int64 numbers, a column at a time."""
    out = np.zeros(len(pairs), np.int64)
    for j in range(pairs.shape[1]):
        out = out * 100 + pairs[:, j]
    return out


POW10 = POW100 = None


def pow10(np):
    """int64 10**0 .. 10**18, for ``take`` with a per-row exponent."""
    global POW10
    if POW10 is None:
        POW10 = 10 ** np.arange(19, dtype=np.int64)
    return POW10


def pow100(np):
    """uint64 100**0 .. 100**9."""
    global POW100
    if POW100 is None:
        POW100 = np.array([100 ** j for j in range(10)], dtype=np.uint64)
    return POW100


def checked_quotient(np, value, divisor):
    """``value // divisor`` (int64, |value| <= 2**62, divisor >= 1) for
    the rows whose divisor divides ``value`` below 2**53, through one
    float64 division (a vector instruction; numpy divides int64 by a
    per-row divisor in a scalar loop, 1.5x the cost here).  Any other row
    may be off by one, so the caller must check ``q * divisor == value``
    and refuse the rows that fail (decimal_array does): exact whenever the
    check passes, as the check is in int64.  The plain form is ``//``."""
    quotient = value / divisor
    return quotient.astype(np.int64)


def int128_words(np, high, mult, low, negative, out=None):
    """(n, 2) little-endian uint64 words of ``±(high * mult + low)`` (high,
    mult < 2**54, the sum < 2**127): Arrow's decimal128 storage, into
    ``out`` when given.  ``high`` and ``low`` are int64 or uint64 arrays the
    function may overwrite (the caller's spent temporaries): the 64 x 64-bit
    product is built from 32-bit halves in place, so at its peak it holds
    six columns besides its arguments, not a dozen."""
    u = np.uint64
    half, mask = u(32), u(0xFFFFFFFF)
    h, m = high.view(u), mult.astype(u, copy=False)
    m_lo = m & mask
    m_hi = m >> half
    h_hi = h >> half
    mid = h_hi * m_lo                                 # h_hi, m_hi < 2**22
    np.bitwise_and(h, mask, out=h)                    # h_lo
    np.multiply(h_hi, m_hi, out=h_hi)                 # the high word's product
    np.multiply(m_hi, h, out=m_hi)
    mid += m_hi                                       # < 2**55
    np.multiply(h, m_lo, out=h)                       # the low word's product
    del m_hi, m_lo
    word0 = mid << half
    word0 += h
    h_hi += word0 < h                                 # carries
    np.right_shift(mid, half, out=mid)
    h_hi += mid
    del mid
    word0 += low.view(u)
    h_hi += word0 < low.view(u)
    # negated where negative: (lo ^ f) - f and (hi ^ f) + (lo == 0), f all ones
    flip = negative.astype(u)
    np.negative(flip, out=flip)
    carry = (word0 == 0) & negative
    np.bitwise_xor(word0, flip, out=word0)
    np.subtract(word0, flip, out=word0)
    np.bitwise_xor(h_hi, flip, out=h_hi)
    h_hi += carry
    if out is None:
        out = np.empty((len(h), 2), "<u8")
    out[:, 0], out[:, 1] = word0, h_hi
    return out
