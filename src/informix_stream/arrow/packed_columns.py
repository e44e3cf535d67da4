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
from ..codec.typeinfo import TU_DAY, TU_HOUR, TU_MINUTE, TU_MONTH, TU_SECOND, TU_YEAR
from . import base100, civil
from .types import UNIT_TICKS, temporal_kind, time_unit

_EXACT_POWERS = tuple(10.0 ** e for e in range(23))   # exact doubles
_INT32 = 2 ** 31
# scaleb in the default 28-digit context would round a 32-digit value
_EXACT = decimal.Context(prec=100, Emax=999, Emin=-999)


def _decimal_parts(col, raw):
    """NULL, sign, base-100 exponent, the number of pairs k read, the pairs'
    number as 16-digit limbs high (None for k <= 8) and low, complemented
    back when negative, and the cells with a bad pair.  A 17th pair
    (DECIMAL(32,s) with s odd, floating DECIMAL(32)) is read only when zero,
    as it is but for a full 33-digit value: else the cell goes to the
    reference."""
    np = col.np
    head = raw[:, 0]
    null = _null_cells(np, raw)
    negative = (head < 0x80) & ~null
    exp = _exponents(np).take(head.astype(np.intp))
    high, low, bad = base100.limbs(np, raw[:, :17])
    for j in range(17, raw.shape[1]):
        bad = bad | (raw[:, j] != 0)
    k = min(raw.shape[1] - 1, 16)
    if negative.any():
        # the complement of N is 100**k - N (scalars.complement), N != 0
        if high is None:
            low = np.where(negative & (low != 0), 10 ** (2 * k) - low, low)
        else:
            flip = negative & ((high | low) != 0)
            borrow = low != 0
            high = np.where(flip, 10 ** (2 * k - 16) - high - borrow, high)
            low = np.where(flip & borrow, 10 ** 16 - low, low)
    return null, negative, exp, k, high, low, bad & ~null


_EXPONENTS = None


def _null_cells(np, raw):
    """An all-zero head and first pair: one uint16 compare a cell."""
    if not len(raw):
        return np.zeros(0, bool)
    return np.ndarray((len(raw),), "<u2", raw, 0, (raw.shape[1],)) == 0


def _exponents(np):
    """head byte -> base-100 exponent (bit 7 clear: complemented)."""
    global _EXPONENTS
    if _EXPONENTS is None:
        heads = np.arange(256)
        _EXPONENTS = (np.where(heads < 0x80, heads ^ 0x7F, heads) & 0x7F) - 64
    return _EXPONENTS


def decimal_array(col):
    """DECIMAL(p,s)/MONEY -> decimal128(p,s): the pairs' number N = high *
    10**16 + low loses the d digits finer than the scale (which must be
    zeros), and what is left must have at most p digits; any other cell goes
    to the reference.  A cell whose last pair is coarser than the scale
    (d < 0) is either wider than p or not normalised: the reference too.

    Temporaries are freed as soon as they are spent and the 32-digit path
    works in place: a 20,000-row column's int64 temporaries are 160 KB
    each, and the 27 of them the wide path once held at its peak (4.3 MB)
    crossed the heap's trim threshold whenever an earlier allocation had
    raised it to only a few MB, so every batch page-faulted them in afresh
    (~800 faults a call; DECIMAL(32,10) 93 ns a value against 35 in a
    process whose history left the threshold higher)."""
    np, ctype = col.np, col.ctype
    p, s = ctype.precision, ctype.scale
    raw = col.raw()
    null, negative, exp, k, high, low, bad = _decimal_parts(col, raw)
    pow10 = base100.pow10(np)
    drop = np.subtract(2 * k - s, 2 * exp, out=exp)
    low_cut = np.clip(drop, 0, 16)
    low_div = pow10.take(low_cut)
    low_q = base100.checked_quotient(np, low, low_div)   # checked below: q * div == low
    wrong = drop < 0
    np.multiply(low_div, low_q, out=low_div)
    wrong |= low_div != low
    del low_div, low
    words = np.empty((len(raw), 2), "<i8")
    if high is None:                      # N < 10**16: so p <= 18 (k <= 8)
        wrong |= low_q >= 10 ** p
        bad |= wrong & ~null
        unscaled = np.where(negative, -low_q, low_q)   # (a where= ufunc is 5x slower)
        words[:, 0] = unscaled
        words[:, 1] = unscaled >> 63
    else:
        _wide_words(np, p, drop, low_cut, low_q, high, wrong, null, negative, bad, words)
    if bad.any():
        _patch_decimals(col, raw, bad, words, null)
    if null.any():
        words[null] = 0
    return col.from_buffer(words, null)


def _wide_words(np, p, drop, low_cut, low_q, high, wrong, null, negative, bad,
                words) -> None:
    """The words of cells of more than eight pairs (k > 8): high_q, the high
    limb without its dropped digits, joins low_q as ``high_q * 10**(16 -
    low_cut) + low_q``; ``wrong`` gains the cells whose dropped digits are
    not zeros or whose value has more than p digits, and ``bad`` those of
    them that are not NULL.  ``drop`` and ``low_cut`` are spent (reused)."""
    pow10 = base100.pow10(np)
    np.subtract(drop, 16, out=drop)
    high_div = pow10.take(np.clip(drop, 0, 16, out=drop))
    high_q = base100.checked_quotient(np, high, high_div)
    np.multiply(high_div, high_q, out=high_div)
    wrong |= high_div != high
    del high_div, high
    room = np.add(low_cut, p - 16, out=drop)          # digits high_q may have
    # a negative room allows no high digit, and low_q at most p digits
    fits = np.where(room >= 0, high_q < pow10.take(np.clip(room, 0, 18)),
                    (high_q == 0) & (low_q < pow10[min(p, 18)]))
    wrong |= ~fits
    del fits
    mult = pow10.take(np.subtract(16, low_cut, out=low_cut))
    del room, low_cut
    np.bitwise_and(wrong, ~null, out=wrong)
    bad |= wrong
    keep = ~bad
    np.multiply(high_q, keep, out=high_q)
    np.multiply(low_q, keep, out=low_q)
    del keep, wrong
    if p <= 18:
        np.multiply(high_q, mult, out=high_q)
        high_q += low_q
        words[:, 0] = np.where(negative, -high_q, high_q)
        words[:, 1] = words[:, 0] >> 63
    else:
        base100.int128_words(np, high_q, mult, low_q, negative, out=words.view("<u8"))


def _patch_decimals(col, raw, bad, words, null) -> None:
    """The reference's value of each ``bad`` cell into ``words`` (or NULL),
    or the DataError of a value decimal128(p,s) cannot hold."""
    p, s = col.ctype.precision, col.ctype.scale
    idx, values = col.patch(bad, raw, lambda d: None if d is None else
                            int(d.scaleb(s, _EXACT)))
    for i, v in zip(idx, values):
        if v is None:
            null[i] = True
        elif abs(v) >= 10 ** p:
            raise col.fail(f"{v} does not fit decimal128({p},{s})")
        else:
            words[i] = ((v & 0xFFFFFFFFFFFFFFFF) - ((v & (1 << 63)) << 1), v >> 64)


def floating_array(col):
    """Floating DECIMAL(p) -> float64: N = high * 10**16 + low at 10**e,
    its trailing zero pairs taken off, then Clinger's fast path where
    N <= 2**53 and |e| <= 22 (module docstring)."""
    np = col.np
    raw = col.raw()
    null, negative, exp, k, high, low, bad = _decimal_parts(col, raw)
    # N without its trailing zero pairs (t of them): N // 100**t, from the
    # low limb alone while t < 8, from the high limb when low is all zeros
    tail = base100.zero_tail(np, raw[:, :k + 1])
    pow10 = base100.pow10(np)
    low_tail = np.minimum(tail, 8)
    number = low // pow10.take(2 * low_tail)
    exact = np.ones(len(raw), bool)
    if high is not None:
        whole = tail >= 8                      # N is high * 10**16
        high_cut = pow10.take(2 * np.clip(tail - 8, 0, 8))
        scale = pow10.take(16 - 2 * low_tail)
        room = np.maximum(2 ** 53 - number, 0) // scale
        mixed = ~whole & (high != 0)
        exact = whole | ~mixed | (high <= room)
        number = np.where(whole, high // high_cut,
                          np.where(mixed & exact, high * np.where(exact, scale, 0) + number,
                                   number))
    exp10 = 2 * exp - 2 * k + 2 * tail
    exact &= (number <= 2 ** 53) & (np.abs(exp10) <= 22)
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


def _temporal_cells(col, raw):
    """NULLs, signs (None when no cell is negative), the pairs at the
    qualifier's exponent and the cells the reference must decide.  The
    usual column (every cell positive with the qualifier's exponent) is
    read as it is; otherwise every cell is split and shifted as
    scalars._walk_fields shifts it (a lower exponent means leading zero
    pairs left out; a higher one the reference refuses)."""
    np = col.np
    head = raw[:, 0]
    if len(raw):                   # head and first pair both 0, as one uint16
        null = np.ndarray((len(raw),), "<u2", raw, 0, (raw.shape[1],)) == 0
    else:
        null = np.zeros(0, bool)
    texp = temporal_exponent(col.ctype.length)
    if ((head == (0x80 | (texp + 64))) | null).all():
        return null, None, raw[:, 1:], np.zeros(len(raw), bool)
    parts = base100.split(np, raw)
    shift = texp - parts.exp
    pairs = parts.pairs
    if (shift != 0).any():
        pairs = base100.window(np, pairs, -shift, pairs.shape[1])
    return null, parts.negative & ~null, pairs, parts.bad | (shift < 0)


def _fields(col, pairs, every: bool):
    """The qualifier's whole fields from aligned pairs (the leading one from
    its (digits + 1) // 2 pairs), the microseconds of its fraction, and the
    cells with a pair over 99 among the leading and fraction pairs (and the
    others when ``every``: a DATETIME's range checks cover those)."""
    np, ctype = col.np, col.ctype
    lead = (ctype.leading_digits + 1) // 2
    over = np.zeros(len(pairs), bool)
    first = np.zeros(len(pairs), np.int64)
    for j in range(lead):
        over |= pairs[:, j] > 99
        first = first * 100 + pairs[:, j]
    fields = {ctype.start: first}
    at = lead
    for unit in range(ctype.start + 2, min(ctype.end, TU_SECOND) + 1, 2):
        fields[unit] = pairs[:, at].astype(np.int64)
        if every:
            over |= pairs[:, at] > 99
        at += 1
    micro = 0
    if ctype.end > TU_SECOND:
        nfrac = (ctype.end - TU_SECOND + 1) // 2
        micro = np.zeros(len(pairs), np.int64)
        for j in range(at, at + nfrac):
            over |= pairs[:, j] > 99
            micro = micro * 100 + pairs[:, j]
        micro = micro * 10 ** (6 - 2 * nfrac)
    return fields, micro, over


def datetime_array(col):
    """DATETIME of any qualifier -> date32 / time / timestamp (types.py)."""
    np, ctype = col.np, col.ctype
    raw = col.raw()
    n = len(raw)
    if n and ctype.start == TU_HOUR and ctype.end == TU_MINUTE:
        array = _hour_to_minute(col, raw)
        if array is not None:
            return array
    if n and _by_pair_tables(ctype):
        usual = _usual_nulls(col, raw)
        if usual is not None:
            return _datetime_by_tables(col, raw, *usual)
    null, signs, pairs, bad = _temporal_cells(col, raw)
    fields, micro, over = _fields(col, pairs, every=False)
    unit, kind = time_unit(ctype), temporal_kind(ctype)
    hour, minute, second = (fields.get(u) for u in (6, 8, 10))
    clean = ~(bad | over)
    for field, limit in ((hour, 24), (minute, 60), (second, 60)):
        if field is not None:
            clean &= field < limit
    days = 0
    if kind != "time":
        # fields before the qualifier's first read as 2000-01-01 (types.py)
        year, month, day = (fields.get(u) for u in (TU_YEAR, TU_MONTH, TU_DAY))
        year = np.full(n, 2000, np.int64) if year is None else year
        month = np.ones(n, np.int64) if month is None else month
        day = np.ones(n, np.int64) if day is None else day
        before, month_days = civil.month_tables(np)
        key = np.clip(year, 0, 9999) * 16 + np.clip(month, 0, 15)
        clean &= (day >= 1) & (day <= month_days.take(key)) & (year <= 9999)
        days = before.take(key) + day
    if kind == "date":
        ticks = days
    else:
        per = 1_000_000 // UNIT_TICKS[unit]
        if per > 1 and ctype.end > TU_SECOND:
            clean &= micro % per == 0
        ticks = days * 86400
        for field, size in ((hour, 3600), (minute, 60), (second, 1)):
            if field is not None:
                ticks = ticks + field * size
        ticks = ticks * UNIT_TICKS[unit]
        if ctype.end > TU_SECOND:
            ticks = ticks + micro // per
    narrow = kind == "date" or (kind == "time" and unit != "us")   # date32, time32
    return _finish_ticks(col, raw, ticks, null, clean, "<i4" if narrow else "<i8")


def _hour_to_minute(col, raw):
    """DATETIME HOUR TO MINUTE -> time32[s] when every cell is the usual
    [head][hour][minute] with hour <= 23 and minute <= 59, or NULL (None
    otherwise: the general paths decide).  Each cell is read as one
    little-endian uint32 of the byte before it and its three (the first
    cell's alone), one strided pass: the minute is the word's top byte and
    ``hour + 256 * minute`` its top half, so the seconds are ``top * 3600 -
    minute * (256 * 3600 - 60)``, and minute <= 59 with seconds <= 86399
    is hour <= 23.  A NULL as the server sends it is all three bytes zero,
    a word under 256, whose seconds come out 0 with no zeroing pass (the
    validity bitmap is the usual cells' mask, packed as it is); a NULL with
    a stray minute byte is masked and zeroed first.  The field path (split,
    shift, check each pair) is the plain form."""
    np = col.np
    n = len(raw)
    u = np.uint32
    word = np.empty(n, u)
    word[1:] = np.ndarray((n - 1,), "<u4", raw, 2, (3,))
    word[0] = int.from_bytes(bytes(1) + bytes(raw[0]), "little")
    usual = (word & u(0xFF00)) == u((0x80 | (temporal_exponent(col.ctype.length) + 64)) << 8)
    valid = None                       # every cell usual: no validity bitmap
    present = np.count_nonzero(usual)
    if present != n:
        valid = usual                  # the others NULL, as their counts show
        if present + np.count_nonzero(word < u(256)) != n:
            null = (word & u(0xFFFF00)) == 0      # all-zero head and first pair
            if not (usual | null).all():
                return None
            np.multiply(word, usual, out=word)    # a stray minute under a NULL
    minute = word >> u(24)
    if minute.max() > 59:
        return None                              # the general paths refuse or patch it
    word >>= u(16)                               # hour + 256 * minute
    word *= u(3600)
    minute *= u(256 * 3600 - 60)
    word -= minute
    if word.max() > 86399:                       # an hour past 23
        return None
    return col.from_valid(word, valid)


def _hour_minute(np, raw, first):
    """Seconds of the day (int32) of HOUR TO .. cells and whether hour and
    minute are in range (None: every cell is): the hour is ``first``'s
    high byte, the minute one strided read, both by arithmetic on int32
    columns (a gather from civil.pair_tables' 65,536 entries and the
    strided uint16 read of its index cost twice as much); the range checks
    are two maxima unless one is out of range."""
    hour = (first >> np.uint16(8)).astype(np.int32)
    minute = raw[:, 2].astype(np.int32)
    clean = None
    if hour.max() > 23 or minute.max() > 59:
        clean = (hour < 24) & (minute < 60)
    hour *= 3600
    minute *= 60
    hour += minute
    return hour, clean


def _usual_nulls(col, raw):
    """(NULLs, each cell's head and first pair as one little-endian uint16)
    of a column whose every cell has the qualifier's head or is NULL
    (all-zero head and first pair), else None: _temporal_cells' first test
    with one strided pass (the uint16s copied out) and the rest on that
    contiguous copy, which the hour of HOUR TO .. qualifiers reuses."""
    np = col.np
    head = 0x80 | (temporal_exponent(col.ctype.length) + 64)
    pair = np.ndarray((len(raw),), "<u2", raw, 0, (raw.shape[1],)).copy()
    usual = (pair & np.uint16(0xFF)) == np.uint16(head)
    if usual.all():
        return np.zeros(len(raw), bool), pair
    null = pair == 0
    return (null, pair) if (usual | null).all() else None


def _by_pair_tables(ctype) -> bool:
    """The qualifiers _datetime_by_tables reads: YEAR TO DAY and beyond,
    and HOUR TO MINUTE and beyond (the others keep the field path)."""
    return ((ctype.start == TU_YEAR and ctype.end >= TU_DAY and ctype.end != TU_HOUR)
            or (ctype.start == TU_HOUR and ctype.end >= TU_MINUTE))


def _datetime_by_tables(col, raw, null, first):
    """A column whose every cell has the qualifier's exponent (the usual
    one): the year's two pairs and each (hour, minute) as one uint16 looked
    up in civil.pair_tables, month and day by month_tables, second and
    fraction pairs compared; what any check refuses goes to the reference
    as in the field path.  ``first``: each cell's head and first pair as a
    little-endian uint16 (_usual_nulls)."""
    np, ctype = col.np, col.ctype
    n, width = raw.shape
    year16, hour_minute = civil.pair_tables(np)
    unit, kind = time_unit(ctype), temporal_kind(ctype)

    def pair16(at):
        # pairs at..at+1 of every cell as one big-endian uint16, as an index
        # (take from a strided uint16 view is twice as slow)
        return np.ndarray((n,), ">u2", raw, at, (width,)).astype(np.intp)

    clean = None
    at = 1
    days = None
    if ctype.start == TU_YEAR:
        before, month_days = civil.month_tables(np)
        key = year16.take(pair16(1)) + np.minimum(raw[:, 3], 15)
        # 1 <= day <= the month's days as one compare: day 0 wraps to 255
        clean = (raw[:, 4] - np.uint8(1)) < month_days.view(np.uint8).take(key)
        days = before.take(key) + raw[:, 4]
        at = 5
    if kind == "date":
        return _finish_ticks(col, raw, days, null, clean, "<i4")
    ticks = None
    # a time of day in seconds or milliseconds stays in int32 (time32)
    store = "<i4" if kind == "time" and unit != "us" else "<i8"
    if ctype.start == TU_HOUR:
        seconds, clean = _hour_minute(np, raw, first)
        at += 2
    elif ctype.end >= TU_MINUTE:
        seconds = hour_minute.take(pair16(at))
        clean &= seconds >= 0
        at += 2
    if ctype.end >= TU_MINUTE:
        if ctype.end >= TU_SECOND:
            second = raw[:, at]
            clean = _and(second < 60, clean)
            seconds = seconds + second
            at += 1
        if days is None:
            ticks = seconds
        else:
            ticks = days * 86400
            ticks += seconds
    ticks = ticks.astype(store, copy=False)
    if UNIT_TICKS[unit] != 1:
        ticks *= UNIT_TICKS[unit]
    if ctype.end > TU_SECOND:
        micro = np.zeros(n, np.int64)
        nfrac = (ctype.end - TU_SECOND + 1) // 2
        for j in range(at, at + nfrac):
            clean = _and(raw[:, j] <= 99, clean)
            micro = micro * 100 + raw[:, j]
        micro = micro * 10 ** (6 - 2 * nfrac)
        per = 1_000_000 // UNIT_TICKS[unit]
        if per > 1:
            clean = _and(micro % per == 0, clean)
        ticks = ticks + micro // per
    return _finish_ticks(col, raw, ticks, null, clean, store)


def _and(check, clean):
    """``check & clean``, where a ``clean`` of None passes every cell."""
    return check if clean is None else check & clean


def interval_array(col):
    """INTERVAL DAY..FRACTION -> duration; YEAR/MONTH -> month_day_nano."""
    np, ctype = col.np, col.ctype
    raw = col.raw()
    null, negative, pairs, bad = _temporal_cells(col, raw)
    fields, micro, over = _fields(col, pairs, every=True)
    clean = ~(bad | over)
    if ctype.is_year_month:
        return _months(col, raw, fields, null, negative, clean)
    secs = np.zeros(len(raw), np.int64)
    for unit, value in fields.items():
        secs = secs + value * _UNIT_SECONDS[unit]
    ticks_per = UNIT_TICKS[time_unit(ctype)]
    per = 1_000_000 // ticks_per
    clean &= (micro % per == 0) & (secs < (2 ** 62) // ticks_per)
    ticks = secs * ticks_per + micro // per
    if negative is not None:
        ticks = np.where(negative, -ticks, ticks)
    return _finish_ticks(col, raw, ticks, null, clean, "<i8")


def _months(col, raw, fields, null, negative, clean):
    """YEAR/MONTH qualifiers: months in Arrow's 16-byte month_day_nano
    (int32 months, int32 days, int64 nanoseconds)."""
    np, ctype = col.np, col.ctype
    first = fields[ctype.start]
    months = first if ctype.start == TU_MONTH else first * 12 + fields.get(TU_MONTH, 0)
    if negative is not None:
        months = np.where(negative, -months, months)
    bad = ~null & ~clean
    clean_months = months[~null & clean]
    if len(clean_months) and ((clean_months < -_INT32) | (clean_months >= _INT32)).any():
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
    """Ticks of the clean cells (``clean`` None: every cell); the others by
    the reference (value, NULL, or its DataError)."""
    np = col.np
    if clean is not None and not (bad := (~null) & ~clean).any():
        clean = None
    if clean is not None:
        from .reference import _plain
        plain = _plain(col.ctype)
        idx, values = col.patch(bad, raw, lambda v: None if v is None else plain(v))
        for i, v in zip(idx, values):
            if v is None:
                null[i] = True
            elif not -(1 << 63) <= v < 1 << 63:
                raise col.fail(f"{v} ticks do not fit int64")
            else:
                ticks[i] = v
    if null.any():
        # zero under NULL, by a multiply (a masked store costs twice as much)
        np.multiply(ticks, ~null, out=ticks)
    return col.array(ticks.astype(store, copy=False), null)
