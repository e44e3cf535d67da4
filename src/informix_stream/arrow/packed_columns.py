"""Column-wise DECIMAL/MONEY, DATETIME and INTERVAL: a batch's (n, width)
matrix of base-100 cells -> one Arrow array, with numpy over the whole
column and no Python work per value.

Every width and qualifier has its vectorised path:

* DECIMAL(p,s)/MONEY: the pairs (un-complemented when negative) as decimal
  digits, and a window of the p digits the unscaled value at scale s has
  (weights 10**0..10**(p-1)) taken at each row's exponent; a cell with a
  non-zero digit outside its window (a fraction finer than s, more integer
  digits than p - s) goes to the reference.  Up to 18 digits the value is
  one int64, beyond that two halves (digits 10**18 and up, and the rest)
  joined into Arrow's 128-bit words.
* floating DECIMAL(p) -> float64 (types.py): the significant digits as an
  int64 N and the power of ten e; ``N * 10.0**e`` (or ``/ 10.0**-e``) is
  the correctly rounded double the reference's ``float(Decimal)`` gives
  whenever N <= 2**53 and |e| <= 22 (both operands exact, one rounding:
  Clinger's fast path).  Other cells go to the reference.
* DATETIME and INTERVAL of any qualifier: the pairs are shifted to the
  qualifier's exponent as scalars._walk_fields shifts them (a lowered
  exponent reads leading zero pairs), then read as fields.

What is not recognised as a clean value is never guessed: ``col.patch``
hands those cells to the reference converter, which returns their value or
raises the tuple path's DataError.  A value the Arrow type cannot hold
(decimal128(p,s) overflow, ticks past int64, months past int32) is a
DataError naming the column.
"""

from __future__ import annotations

import decimal

from ..codec.scalars import _UNIT_SECONDS, temporal_exponent
from ..codec.typeinfo import TU_DAY, TU_MONTH, TU_SECOND, TU_YEAR
from . import base100
from .types import UNIT_TICKS, temporal_kind, time_unit

_MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_EXACT_POWERS = tuple(10.0 ** e for e in range(23))   # exact doubles
_INT32 = 2 ** 31
# scaleb in the default 28-digit context would round a 32-digit value
_EXACT = decimal.Context(prec=100, Emax=999, Emin=-999)


def _decimal_parts(col, raw):
    """NULL, sign, base-100 exponent, the number of pairs k read, the pairs'
    number as two 16-digit limbs (complemented back when negative) and the
    cells with a bad pair.  A 17th pair (DECIMAL(32,s) with s odd, floating
    DECIMAL(32)) is read only when zero, as it is but for a full 33-digit
    value: else the cell goes to the reference."""
    np = col.np
    head = raw[:, 0]
    null = (head == 0) & (raw[:, 1] == 0)
    negative = (head < 0x80) & ~null
    exp = (np.where(negative, head ^ 0x7F, head) & 0x7F).astype(np.int64) - 64
    high, low, bad = base100.limbs(np, raw[:, :17])
    for j in range(17, raw.shape[1]):
        bad = bad | (raw[:, j] != 0)
    k = min(raw.shape[1] - 1, 16)
    if negative.any():
        # the complement of N is 100**k - N (scalars.complement), N != 0
        flip = negative & ((high | low) != 0)
        if k <= 8:
            low = np.where(flip, 10 ** (2 * k) - low, low)
        else:
            borrow = low != 0
            high = np.where(flip, 10 ** (2 * k - 16) - high - borrow, high)
            low = np.where(flip & borrow, 10 ** 16 - low, low)
    return null, negative, exp, k, high, low, bad & ~null


def decimal_array(col):
    """DECIMAL(p,s)/MONEY -> decimal128(p,s): the pairs' number N = high *
    10**16 + low loses the d digits finer than the scale (which must be
    zeros), and what is left must have at most p digits; any other cell goes
    to the reference.  A cell whose last pair is coarser than the scale
    (d < 0) is either wider than p or not normalised: the reference too."""
    np, ctype = col.np, col.ctype
    p, s = ctype.precision, ctype.scale
    raw = col.raw()
    null, negative, exp, k, high, low, bad = _decimal_parts(col, raw)
    pow10 = base100.pow10(np)
    drop = 2 * k - s - 2 * exp
    low_cut = np.clip(drop, 0, 16)
    high_cut = np.clip(drop - 16, 0, 16)
    low_div, high_div = pow10.take(low_cut), pow10.take(high_cut)
    low_q, high_q = low // low_div, high // high_div
    mult = pow10.take(16 - low_cut)
    room = p - 16 + low_cut               # digits high_q may have
    fits = np.where(room >= 0, high_q < pow10.take(np.clip(room, 0, 18)),
                    (high_q == 0) & (low_q < pow10[min(p, 18)]))
    bad |= ~null & ((drop < 0) | (low_q * low_div != low) | (high_q * high_div != high)
                    | ~fits)
    if p <= 18:
        unscaled = np.where(bad, 0, high_q * mult + low_q)
        words = np.empty((len(raw), 2), "<i8")
        words[:, 0] = np.where(negative, -unscaled, unscaled)
        words[:, 1] = words[:, 0] >> 63
    else:
        words = base100.int128_words(np, np.where(bad, 0, high_q), mult,
                                     np.where(bad, 0, low_q), negative).view("<i8")
    if bad.any():
        idx, values = col.patch(bad, raw, lambda d: None if d is None else int(d.scaleb(s, _EXACT)))
        for i, v in zip(idx, values):
            if v is None:
                null[i] = True
            elif abs(v) >= 10 ** p:
                raise col.fail(f"{v} does not fit decimal128({p},{s})")
            else:
                words[i] = ((v & 0xFFFFFFFFFFFFFFFF) - ((v & (1 << 63)) << 1), v >> 64)
    words[null] = 0
    return col.from_buffer(words, null)


def floating_array(col):
    """Floating DECIMAL(p) -> float64: N = high * 10**16 + low at 10**e,
    trailing zeros taken off N (8, 4, 2, 1 digits at a time), then
    Clinger's fast path where N <= 2**53 and |e| <= 22 (module docstring)."""
    np = col.np
    raw = col.raw()
    null, negative, exp, k, high, low, bad = _decimal_parts(col, raw)
    whole = low == 0                       # then N is high * 10**16
    number = np.where(whole, high, low)
    zeros = 16 * whole
    for step in (8, 4, 2, 1):
        unit = 10 ** step
        even = (number % unit == 0) & (number != 0)
        number = np.where(even, number // unit, number)
        zeros = zeros + step * even
    exp10 = 2 * exp - 2 * k + zeros
    # both limbs: N = high * 10**(16 - t) + low / 10**t, t its trailing zeros
    both = ~whole & (high != 0)
    if both.any():
        scale = base100.pow10(np).take(np.clip(16 - zeros, 0, 18))
        room = np.maximum(2 ** 53 - number, 0) // scale
        both_ok = both & (high <= room)
        number = np.where(both_ok, high * np.where(both_ok, scale, 0) + number, number)
        exact = ~both | both_ok
    else:
        exact = True
    exact = exact & (number <= 2 ** 53) & (np.abs(exp10) <= 22)
    power = np.asarray(_EXACT_POWERS)[np.clip(np.abs(exp10), 0, 22)]
    values = np.where(exp10 >= 0, number * power, number / power)
    values = np.where(negative, -values, values)
    bad |= ~null & ~exact
    if bad.any():
        idx, patched = col.patch(bad, raw, lambda d: None if d is None else float(d))
        for i, v in zip(idx, patched):
            if v is None:
                null[i] = True
            else:
                values[i] = v
    return col.array(values, null)


def _aligned(col, parts):
    """The pairs moved to the qualifier's exponent (a lower exponent means
    leading zero pairs left out), and the cells whose exponent is higher
    (which the reference refuses)."""
    np = col.np
    shift = temporal_exponent(col.ctype.length) - parts.exp
    pairs = parts.pairs
    if (shift != 0).any():
        pairs = base100.window(np, pairs, -shift, pairs.shape[1])
    return pairs, shift < 0


def _fields(col, pairs) -> tuple[dict, int]:
    """The qualifier's whole fields from aligned pairs (the leading one
    from its (digits + 1) // 2 pairs), and the first fraction pair."""
    np, ctype = col.np, col.ctype
    lead = (ctype.leading_digits + 1) // 2
    fields = {ctype.start: base100.number(np, pairs[:, :lead].astype(np.int64))}
    col_at = lead
    for unit in range(ctype.start + 2, min(ctype.end, TU_SECOND) + 1, 2):
        fields[unit] = pairs[:, col_at].astype(np.int64)
        col_at += 1
    return fields, col_at


def _micro(col, pairs, at: int):
    """Microseconds from the fraction's pairs (zero without a fraction)."""
    np, ctype = col.np, col.ctype
    if ctype.end <= TU_SECOND:
        return np.zeros(len(pairs), np.int64)
    nfrac = (ctype.end - TU_SECOND + 1) // 2
    return base100.number(np, pairs[:, at:at + nfrac].astype(np.int64)) \
        * 10 ** (6 - 2 * nfrac)


def datetime_array(col):
    """DATETIME of any qualifier -> date32 / time / timestamp (types.py)."""
    np, ctype = col.np, col.ctype
    raw = col.raw()
    n = len(raw)
    parts = base100.split(np, raw)
    pairs, high = _aligned(col, parts)
    fields, at = _fields(col, pairs)
    # fields before the qualifier's first read as 2000-01-01 (types.py)
    year = fields.get(TU_YEAR, np.full(n, 2000, np.int64))
    month = fields.get(TU_MONTH, np.ones(n, np.int64))
    day = fields.get(TU_DAY, np.ones(n, np.int64))
    hour, minute, second = (fields.get(u, np.zeros(n, np.int64)) for u in (6, 8, 10))
    micro = _micro(col, pairs, at)
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    dim = np.asarray(_MONTH_DAYS)[np.clip(month, 0, 12)] + (leap & (month == 2))
    clean = ~parts.bad & ~high & (year >= 1) & (year <= 9999) & (month >= 1) \
        & (month <= 12) & (day >= 1) & (day <= dim) & (hour < 24) & (minute < 60) \
        & (second < 60)
    unit, kind = time_unit(ctype), temporal_kind(ctype)
    if kind == "date":
        ticks = _days_from_civil(np, year, month, day)
    else:
        per = 1_000_000 // UNIT_TICKS[unit]
        clean &= micro % per == 0
        days = 0 if kind == "time" else _days_from_civil(np, year, month, day)
        ticks = (days * 86400 + hour * 3600 + minute * 60 + second) * UNIT_TICKS[unit] \
            + micro // per
    narrow = kind == "date" or (kind == "time" and unit != "us")   # date32, time32
    return _finish_ticks(col, raw, ticks, parts.null, clean, "<i4" if narrow else "<i8")


def interval_array(col):
    """INTERVAL DAY..FRACTION -> duration; YEAR/MONTH -> month_day_nano."""
    np, ctype = col.np, col.ctype
    raw = col.raw()
    parts = base100.split(np, raw)
    pairs, high = _aligned(col, parts)
    fields, at = _fields(col, pairs)
    clean = ~parts.bad & ~high
    if ctype.is_year_month:
        return _months(col, raw, fields, parts, clean)
    secs = np.zeros(len(raw), np.int64)
    for unit, value in fields.items():
        secs = secs + value * _UNIT_SECONDS[unit]
    micro = _micro(col, pairs, at)
    ticks_per = UNIT_TICKS[time_unit(ctype)]
    per = 1_000_000 // ticks_per
    clean &= (micro % per == 0) & (secs < (2 ** 62) // ticks_per)
    ticks = secs * ticks_per + micro // per
    ticks = np.where(parts.negative, -ticks, ticks)
    return _finish_ticks(col, raw, ticks, parts.null, clean, "<i8")


def _months(col, raw, fields, parts, clean):
    """YEAR/MONTH qualifiers: months in Arrow's 16-byte month_day_nano
    (int32 months, int32 days, int64 nanoseconds)."""
    np, ctype = col.np, col.ctype
    first = fields[ctype.start]
    months = first if ctype.start == TU_MONTH else first * 12 + fields.get(TU_MONTH, 0)
    months = np.where(parts.negative, -months, months)
    null = parts.null
    bad = ~null & ~clean
    clean_months = months[~null & clean]
    if len(clean_months) and (np.abs(clean_months) >= _INT32).any():
        raise col.fail("an interval of more months than int32 holds")
    if bad.any():
        idx, values = col.patch(bad, raw, lambda v: None if v is None else v.months)
        for i, v in zip(idx, values):
            if v is None:
                null[i] = True
            elif not -_INT32 <= v < _INT32:
                raise col.fail(f"{v} months do not fit int32")
            else:
                months[i] = v
    out = np.zeros(len(raw), [("months", "<i4"), ("days", "<i4"), ("nanos", "<i8")])
    out["months"] = np.where(null, 0, months)
    return col.from_buffer(out, null)


def _finish_ticks(col, raw, ticks, null, clean, store: str):
    """Ticks of the clean cells; the others by the reference (value,
    NULL, or its DataError)."""
    bad = (~null) & ~clean
    if bad.any():
        from .reference import _plain
        plain = _plain(col.ctype)
        idx, values = col.patch(bad, raw, lambda v: None if v is None else plain(v))
        for i, v in zip(idx, values):
            if v is None:
                null[i] = True
            else:
                ticks[i] = v
    ticks[null] = 0
    return col.array(ticks.astype(store), null)


def _days_from_civil(np, y, m, d):
    """Days since 1970-01-01 of proleptic Gregorian dates (Hinnant's algorithm)."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    mp = (m + 9) % 12
    doy = (153 * mp + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468
