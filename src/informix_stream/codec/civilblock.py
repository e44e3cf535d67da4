"""DATE and DATETIME columns of the block decoder (rowblock.py), built
without a Python step per value.

DATETIME.  CPython's ``datetime``, ``date`` and ``time`` take their pickle
state as their only argument: ``datetime(b"\\x07\\xe8\\x0b\\x18\\x0c\\x22\\x38"
b"\\x00\\x00\\x00")`` (year in 2 big-endian bytes, month, day, hour, minute,
second, microsecond in 3), ``date(b"YYMD")``, ``time(b"hms" + 3 bytes)``.
That is how pickling rebuilds them, so the pure-Python datetime of PyPy
(and CPython's own _pydatetime) has the same path; checked here on
CPython 3.10, 3.11, 3.12 and 3.13 and 3.12/3.13's _pydatetime.  Measured here
(CPython 3.11.7, 20,000 distinct values kept, ns a value): ``datetime``
called by ``starmap`` over ``zip(states)`` 19, by ``map`` 32 (a type called
by map gets a fresh argument tuple per value; zip's 1-tuple is reused),
the field constructor ``starmap(datetime, fields)`` 61; ``time`` 21 against
38, ``date`` 24 against ``date.fromordinal`` 32.  An Informix DATETIME cell
is a head byte and base-100 pairs (century, year, month, day, hour,
minute, second, fraction pairs), and from month on a pair IS the state's
byte, so a block's states are assembled by strided slice copies of the
block's bytes into a template, the year and the microseconds by
big-integer arithmetic on whole columns (a column's bytes read as one int
whose 2- or 3-byte lanes never carry into each other), and the block is
cut into states by one struct call.

THE CATCH: the state path checks nothing but the month byte (February 31st,
hour 99, year 0 would build an invalid object) where the field constructor
raises.  So a column is built this way only when C-level checks over whole
columns prove every cell valid (``_valid``): each byte inside its field's
range (``bytes.translate`` deleting the allowed bytes leaves nothing), and
month, day and year together by a class byte per row (small codes of the
month, the day and whether the century and year pairs are zero, added
lane-wise with every sum under 256 so no lane carries, then one translate),
February 29th checked against the year of just those rows.  A column with
any other cell returns None: the per-row decoder's own cell code then runs
over it (rowblock.py), and a cell that code cannot vouch for goes to the
reference converter, which raises the error it always raised (DataError
"column k (DATETIME ...): cannot decode ...: invalid DATETIME ... value").

A NULL (head and first pair zero; the reference ignores the rest) stays on
this path when its date pairs are zero and its other fields in range: its
state is made a valid date (year 2048 + the year pair, month and day 1) by
the same column operations and its value replaced by None afterwards, one
step per NULL.

DATE.  A day count has no C-level route to (year, month, day) bytes in the
standard library: the civil calendar needs divisions by 146097, 36524, 1461
and 365 and nothing divides a column at once.  Big-integer lanes can
multiply, add, shift and mask (a division by a constant is a multiply, a
shift and a mask), but each pass over a column of 8-byte lanes costs 1-3 ns
a value here (int.from_bytes/to_bytes ~0.4 ns a byte, arithmetic ~0.12), so
the ~25 passes of a civil-from-days would cost about what ``fromordinal``
does; not built.  A table of every day would be a cache of values.  What is
done instead is the ordinal: ``days + EPOCH_ORDINAL`` for a whole column by
one big-integer subtraction (the sign bit flipped by a translate, so a lane
borrows only for an ordinal below 1, which is then rejected), read as an
unsigned array and passed to ``date.fromordinal`` (which checks the range)
by ``starmap`` over ``zip``: no per-value ``add`` (14 ns) and no argument
tuple per call (11 ns).  tests/unit/test_civilblock.py holds both to the
per-row decoder on generated and hostile cells.
"""

from __future__ import annotations

import datetime
import functools
import struct
import sys
from array import array
from collections.abc import Callable, Iterable
from itertools import starmap

from .scalars import EPOCH_ORDINAL
from .typeinfo import TU_DAY, TU_HOUR, TU_MONTH, TU_SECOND, TU_YEAR, ColumnType

__all__ = ["date_column", "datetime_column"]

# convert(data, at, stride, n) -> the column's values, or None (not proven clean)
CivilColumn = Callable[[bytes, int, int, int], Iterable | None]

_SWAP = sys.byteorder == "little"
_DAYS_IN = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)   # [month], Feb as leap


def _allowed(values: Iterable[int]) -> bytes:
    """A ``translate`` delete-set: bytes of ``values``."""
    return bytes(sorted(set(values)))


def _table(mapping: Callable[[int], int]) -> bytes:
    return bytes(mapping(b) for b in range(256))


def _only(column: bytes, allowed: bytes) -> bool:
    """Whether every byte of ``column`` is one of ``allowed`` (C-level)."""
    return not column.translate(None, allowed)


def _lanes(*columns: bytes) -> int:
    """The columns added byte by byte, as one int: each of their bytes
    must be small enough that no sum reaches 256 (no lane carries)."""
    total = 0
    for col in columns:
        total += int.from_bytes(col, "big")
    return total


def _summed(n: int, *columns: bytes) -> bytes:
    return _lanes(*columns).to_bytes(n, "big")


def _spread(column: bytes, width: int, n: int, high: bytes | None = None) -> bytes:
    """``column`` as the last byte of ``width``-byte lanes (``high``, if
    given, as the byte before it), for lane arithmetic."""
    out = bytearray(width * n)
    out[width - 1::width] = column
    if high is not None:
        out[width - 2::width] = high
    return out


@functools.lru_cache(maxsize=8)
def _cutter(size: int, n: int) -> Callable[[bytes], tuple[bytes, ...]]:
    """One struct call cutting n states of ``size`` bytes (made once per
    block size; blocks are 32, 128, 512, 2048, 8192 rows and a reply's
    tail).  Such a struct holds 32 bytes a field (262 KB for 8,192 rows),
    so few are kept: at most ~2 MB."""
    return struct.Struct(f"{size}s" * n).unpack


# --------------------------------------------------------------- DATETIME

PAIR_BYTES = _allowed(range(100))     # a base-100 digit pair's bytes (packedcolumns too)
_IN_RANGE = {TU_HOUR: _allowed(range(24)), TU_SECOND - 2: _allowed(range(60)),
             TU_SECOND: _allowed(range(60))}
_ZERO_TO_ONE = _table(lambda b: 1 if b == 0 else b)
_NULL_YEAR = _table(lambda b: 0x08 if b == 0 else 0)   # high byte: year + 2048 on NULL rows
_NONZERO = _table(lambda b: 1 if b else 0)
# month -> 0 (zero: a NULL's), 8 (31 days), 16 (30), 24 (February), 32 (none)
_MONTH_CODE = _table(lambda m: 0 if m == 0 else 32 if m > 12
                     else 24 if m == 2 else 16 if _DAYS_IN[m] == 30 else 8)
# day -> 0 (zero), 1 (1..28), 2 (29), 3 (30), 4 (31), 5 (none)
_DAY_CODE = _table(lambda d: 0 if d == 0 else 5 if d > 31 else 1 if d <= 28 else d - 27)


def _month_day(key: int) -> int:
    """month code + day code -> 0 (both zero), 1 (a day of the month),
    2 (February 29th, the year to check), 0x40 (no such day)."""
    if key == 0:
        return 0
    month, day = key >> 3, key & 7
    limit = {1: 31, 2: 30, 3: 29}.get(month)
    value = {1: 28, 2: 29, 3: 30, 4: 31}.get(day)
    if limit is None or value is None or value > limit:
        return 0x40
    return 2 if month == 3 and value == 29 else 1


# month code + day code + 64 (century pair not zero) + 128 (year pair not
# zero) -> the row's class: 1 (a date: year not zero, a day of its month),
# 2 (the same on February 29th: its year to check), 0 (month, day and
# century zero: a NULL's pairs), 0x40 (neither).  The largest sum, 229,
# carries into no lane.
def _date_class(key: int) -> int:
    month_day = _month_day(key & 63)
    if month_day == 0:
        return 0 if not key & 64 else 0x40
    return month_day if key & 0xC0 and month_day != 0x40 else 0x40


_DATE_CLASS = _table(_date_class)
_CENTURY_CODE = _table(lambda b: 64 if b else 0)
_YEAR_CODE = _table(lambda b: 128 if b else 0)
_DATES = bytes((1, 2))
_DATES_OR_NULL = bytes((0, 1, 2))
# time qualifiers: head code + first pair nonzero; a NULL's first pair is 0
_TIME_KEY_OK = bytes((0, 0x80, 0x81))


@functools.lru_cache(maxsize=64)
def _head_codes(head: int, value: int) -> bytes:
    """head byte -> ``value`` for the qualifier's head, 0 for a NULL's."""
    return _table(lambda b: value if b == head else 0)


class _Layout:
    """Where a DATETIME qualifier's fields sit in its cell and its state."""

    def __init__(self, ctype: ColumnType, head: int, nfrac: int) -> None:
        start, end = ctype.start, ctype.end
        self.head, self.nfrac = head, nfrac
        self.units = list(range(start, min(end, TU_SECOND) + 1, 2))
        offset, self.cell = 1, {}
        for unit in self.units:
            self.cell[unit] = offset + (1 if unit == TU_YEAR else 0)   # the year pair
            offset += 2 if unit == TU_YEAR else 1
        self.frac_at = offset
        self.kind = "time" if start >= TU_HOUR else "date" if end <= TU_DAY else "datetime"
        if self.kind == "time":
            self.size, self.place = 6, {TU_HOUR: 0, TU_SECOND - 2: 1, TU_SECOND: 2}
            self.template = bytes(6)
        else:
            self.size = 4 if self.kind == "date" else 10
            self.place = {TU_YEAR: 0, TU_MONTH: 2, TU_DAY: 3, TU_HOUR: 4,
                          TU_SECOND - 2: 5, TU_SECOND: 6}
            # the fields a qualifier lacks: 2000-01-01 00:00, as datetime_value
            self.template = bytes((2000 >> 8, 2000 & 0xFF, 1, 1)).ljust(self.size, b"\0")
        self.ctor = {"time": datetime.time, "date": datetime.date,
                     "datetime": datetime.datetime}[self.kind]
        # microseconds = the fraction pairs as one number * this
        self.scale = 10 ** (6 - 2 * nfrac) if nfrac else 0


def datetime_column(ctype: ColumnType, head: int, nfrac: int) -> CivilColumn:
    """The block converter of a DATETIME column whose cells are ``head``
    and the qualifier's pairs (``nfrac`` of them for the fraction)."""
    layout = _Layout(ctype, head, nfrac)

    def convert(data: bytes, at: int, stride: int, n: int) -> Iterable | None:
        heads = data[at::stride]
        clean = heads.count(head)
        if clean != n and clean + heads.count(0) != n:
            return None                     # another head: the cell code's
        cols = {u: data[at + o::stride] for u, o in layout.cell.items()}
        century = data[at + 1::stride] if TU_YEAR in cols else b""
        fracs = [data[at + layout.frac_at + j::stride] for j in range(nfrac)]
        if not _valid(layout, cols, century, fracs, heads, clean < n, n):
            return None
        states = _states(layout, cols, century, fracs, heads, clean < n, n)
        # starmap over zip, not map: a type (or classmethod) called by map
        # gets a fresh argument tuple per value, zip's 1-tuple is reused
        # (datetime(state) 19 ns a value against 32; measured here)
        values = starmap(layout.ctor, zip(_cutter(layout.size, n)(states)))
        return values if clean == n else nulls_at_zero_heads(list(values), heads)
    return convert


def _valid(layout: _Layout, cols: dict, century: bytes, fracs: list[bytes], heads: bytes,
           nulls: bool, n: int) -> bool:
    """Whether every cell is provably a value the field constructor would
    accept (or a NULL with zero date pairs), by whole-column checks."""
    if not all(_only(f, PAIR_BYTES) for f in fracs):
        return False
    if not all(_only(cols[u], ok) for u, ok in _IN_RANGE.items() if u in cols):
        return False
    if layout.kind == "time":
        if not nulls:
            return True
        # a NULL's first pair is zero (else the cell is no NULL: the cell code's)
        first = cols[layout.units[0]]
        key = _summed(n, heads.translate(_head_codes(layout.head, 0x80)),
                      first.translate(_NONZERO))
        return _only(key, _TIME_KEY_OK)
    return _dates_valid(layout, cols, century, heads, nulls, n)


def _dates_valid(layout: _Layout, cols: dict, century: bytes, heads: bytes, nulls: bool,
                 n: int) -> bool:
    """Month and day of every row (and a February 29th's year), a NULL's
    date pairs zero, by one class byte a row (_DATE_CLASS).  A field the
    qualifier lacks counts as 1 (a year as 2000) on a value's row and as 0
    on a NULL's."""
    month = cols.get(TU_MONTH)
    day = cols.get(TU_DAY)
    parts = [(month if month is not None else heads.translate(_head_codes(layout.head, 1)))
             .translate(_MONTH_CODE),
             (day if day is not None else heads.translate(_head_codes(layout.head, 1)))
             .translate(_DAY_CODE)]
    if TU_YEAR in cols:
        if not (_only(century, PAIR_BYTES) and _only(cols[TU_YEAR], PAIR_BYTES)):
            return False
        parts += [century.translate(_CENTURY_CODE), cols[TU_YEAR].translate(_YEAR_CODE)]
    else:
        parts.append(heads.translate(_head_codes(layout.head, 64)))
    classes = _summed(n, *parts).translate(_DATE_CLASS)
    if nulls:
        # class 0 (zero pairs) on exactly the NULL rows, a date on the others
        if not _only(classes, _DATES_OR_NULL) or \
                classes.translate(_NONZERO) != heads.translate(_head_codes(layout.head, 1)):
            return False
    elif not _only(classes, _DATES):
        return False
    if TU_YEAR not in cols or 2 not in classes:
        return True                         # 2000 is a leap year
    return _leap_days(classes, century, cols[TU_YEAR])


def _leap_days(classes: bytes, century: bytes, year: bytes) -> bool:
    """Whether every February 29th (class 2) falls in a leap year (a step
    per February 29th)."""
    feb29 = 2
    i = classes.find(feb29)
    while i >= 0:
        y = century[i] * 100 + year[i]
        if y % 4 or (y % 100 == 0 and y % 400):
            return False
        i = classes.find(feb29, i + 1)
    return True


def _states(layout: _Layout, cols: dict, century: bytes, fracs: list[bytes], heads: bytes,
            nulls: bool, n: int) -> bytearray:
    """The n pickle states end to end; a NULL row's is a valid dummy."""
    size = layout.size
    states = bytearray(layout.template * n)
    for unit, col in cols.items():
        at = layout.place[unit]
        if unit == TU_YEAR:
            fix = heads.translate(_NULL_YEAR) if nulls else None
            years = (100 * int.from_bytes(_spread(century, 2, n), "big")
                     + int.from_bytes(_spread(col, 2, n, fix), "big")).to_bytes(2 * n, "big")
            states[0::size] = years[0::2]
            states[1::size] = years[1::2]
        elif nulls and unit in (TU_MONTH, TU_DAY):
            states[at::size] = col.translate(_ZERO_TO_ONE)
        else:
            states[at::size] = col
    if fracs:
        words = _micro(fracs, layout.scale, n)
        for j in range(3):
            states[size - 3 + j::size] = words[j::3]
    return states


def _micro(fracs: list[bytes], scale: int, n: int) -> bytes:
    """Each row's microseconds as 3 big-endian bytes: the fraction pairs
    read as one number in 3-byte lanes (base 256), each pair's excess over
    base 100 taken off (a pair's column is the lanes shifted and masked),
    times ``scale``.  Under 10**6 < 2**24, so no lane borrows or carries."""
    lanes = bytearray(3 * n)
    k = len(fracs)
    for j, col in enumerate(fracs):
        lanes[3 - k + j::3] = col
    whole = int.from_bytes(lanes, "big")
    number = whole
    mask = _low_bytes(n)
    for j in range(k - 1):
        shift = 8 * (k - 1 - j)
        number -= ((whole >> shift) & mask) * (256 ** (k - 1 - j) - 100 ** (k - 1 - j))
    return (number * scale).to_bytes(3 * n, "big")


@functools.lru_cache(maxsize=32)
def _low_bytes(n: int) -> int:
    """The low byte of each of n 3-byte lanes set."""
    return int.from_bytes(b"\0\0\xff" * n, "big")


def nulls_at_zero_heads(values: list, heads: bytes) -> list:
    """``values`` with None on the NULL rows (head byte 0): a step per NULL.
    Shared with packedcolumns.py, whose NULL cells have a zero head too."""
    i = heads.find(0)
    while i >= 0:
        values[i] = None
        i = heads.find(0, i + 1)
    return values


# --------------------------------------------------------------- DATE

# a DATE's top byte -> its sign bit flipped, but a NULL's 0x80 -> day 0's
_FLIP_NULL = _table(lambda b: 0x80 if b == 0x80 else b ^ 0x80)
_NOT_0X80 = _table(lambda b: b != 0x80)
# days + 2**31 (sign bit flipped) - this = days + EPOCH_ORDINAL, the ordinal
_BIAS = 2 ** 31 - EPOCH_ORDINAL


@functools.lru_cache(maxsize=32)
def _bias(n: int) -> int:
    """_BIAS in each of n 32-bit lanes."""
    return int.from_bytes(_BIAS.to_bytes(4, "big") * n, "big")


def date_column() -> CivilColumn:
    """The block converter of a DATE column (4-byte big-endian day counts
    from 1899-12-31, NULL the most negative)."""
    fromordinal = datetime.date.fromordinal

    def convert(data: bytes, at: int, stride: int, n: int) -> Iterable | None:
        days = bytearray(4 * n)
        for j in range(4):
            days[j::4] = data[at + j::stride]
        tops = days[0::4]
        # the sign bit flipped, a top byte 0x80 (a NULL, 80 00 00 00, or a
        # day count no date has) made 0x80: day 0 when its other bytes are 0
        days[0::4] = tops.translate(_FLIP_NULL)
        # a lane below the bias (an ordinal < 1) borrows from the row before:
        # its own top byte is then >= 0x80, and the column is refused
        ordinals = int.from_bytes(days, "big") - _bias(n)
        if ordinals < 0:
            return None
        lanes = ordinals.to_bytes(4 * n, "big")
        if lanes[0::4].count(0) != n:
            return None                     # an ordinal past 2**24: no date
        words = array("I", lanes)
        if _SWAP:
            words.byteswap()
        # raises on 0 and past 9999-12-31; starmap over zip as for DATETIME
        values = starmap(fromordinal, zip(words))
        if 0x80 not in tops:
            return values
        return _date_nones(list(values), words, tops.translate(_NOT_0X80))
    return convert


def _date_nones(values: list, words: array, nulls: bytes) -> list | None:
    """``values`` with None on the NULL rows (0 in ``nulls``: top byte
    0x80), each proven 80 00 00 00 by its ordinal, which only a NULL's
    lane (day 0) gives: a top byte 0x80 with another bit set is a day
    count no date has, and the column is refused (the cell code raises).
    One ``find`` a NULL on the one-byte flags (it was a ``find`` of the
    4-byte pattern in the day counts, its alignment tested, then a second
    loop; the whole-column check by big integers cost more: ~1.5 ns a byte
    to read each column into an int)."""
    i = nulls.find(0)
    while i >= 0:
        if words[i] != EPOCH_ORDINAL:
            return None
        values[i] = None
        i = nulls.find(0, i + 1)
    return values
