"""Column-at-a-time DECIMAL(p,s)/MONEY (even scales), floating DECIMAL(p)
and INTERVAL cells for the block decoder (rowblock.py), taken whole from
the block's bytes.

DECIMAL/MONEY: a block's column of base-100 cells is turned into one text of
every cell's digits by C-level byte operations, cut by one ``split``, and
built by ``int`` and the private context's ``multiply`` (steps below).
Floating DECIMAL: the same text with the decimal point placed by each
cell's head and trailing fraction zeros as blanks, read by ``Decimal()``
(``_floating_decimal``).  INTERVAL: the numbers its value is built from
are computed for the whole column in the lanes of big integers
(``_interval``).

The per-row cell code (packedcells.py) pays, per cell, three or more
65,536-entry lookups joined by multiply-adds, a ``divmod`` rescaling the
number to the column's scale and the bytecode of a loop around them (~150
ns beside the value's ~90 ns ``multiply``).  What varies between cells is
where the column's scale cuts the digits: the head byte's exponent says how
many pairs lie above the scale, and those below must be zeros.  Here the
cut is made for the whole block at once:

1. the pairs are gathered behind one guard byte per cell (strided slice
   copies) and checked to be base-100 digits (``translate`` deleting 0..99
   must leave nothing: a negative cell's byte 200 would otherwise read as
   the complement of 55);
2. negative cells are un-complemented for the whole column by one big
   integer: each negative cell's pairs XOR 0xFF (99 - d shifted up by 156,
   so a 99 becomes 0xFF), plus one at its last byte: the carry runs through
   the trailing (former zero) pairs exactly as base-100's does and stops at
   the last non-zero pair.  A negative cell of zero pairs (a negative zero)
   carries into its own guard byte, which then reads as no text (step 3).
   Bytes 0..99 and 156..255 read back as pairs by one table;
3. each cell's roles (from its head byte, one ``translate`` of the heads
   per byte position: the guard is the separator and sign, a pair is kept
   or dropped below the scale; a head this form does not handle makes every
   byte unreadable) are OR'd onto its bytes (one big integer), and two ``translate`` calls write
   the text: kept pairs as their digits, a dropped zero pair as blanks
   (which ``int`` ignores), anything else as ``x`` or a separator where no
   cell's text may have one, which ``int`` refuses;
4. ``split`` gives each cell's text, ``int`` its coefficient at the scale,
   and ``_CTX.multiply(int, 1E-s)`` the Decimal, as the cell code makes it.

Exactness: any cell this cannot vouch for (a pair over 99, a head whose
exponent puts the scale outside the pairs, a negative zero, a non-zero
digit below the scale, a NULL head followed by a non-zero pair) makes the
converter answer None, and the block decoder runs the per-row decoder's cell
code over the column: the reference's values and errors, as before.  Odd
scales (a pair split by the scale) and DATETIME keep the cell code.  tests/unit/test_packedcolumns.py holds this to
the reference converter on generated values and bent cells; rowblock's
differential tests hold the block path to the per-row decoder.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import operator
import sys
from array import array
from collections.abc import Callable, Iterable
from itertools import repeat, starmap

from .civilblock import PAIR_BYTES, nulls_at_zero_heads
from .packedcells import _CTX, _SCALE, temporal_head, temporal_layout
from .scalars import interval_ym_many, packed_converter
from .typeinfo import TU_DAY, TU_HOUR, TU_MONTH, TU_SECOND, ColumnType, TypeCode

__all__ = ["PackedColumn", "packed_column"]

# converter(block bytes, rows) -> the column's values, or None: the cell code's
PackedColumn = Callable[[bytes, int], Iterable | None]

_mul = _CTX.multiply
# A byte of the un-complemented column -> its pair value: 0..99 as read,
# 156..255 from a negative cell (99 - d + 156).  100..155 never occurs.
_PAIR = bytes(v if v < 100 else v - 156 if v >= 156 else 0 for v in range(256))
# head -> 0xFF / 1 for a negative cell's pairs / last pair, 0 otherwise (NULL
# too); the heads of no negative cell
_FLIP = bytes(0xFF if 0 < h < 128 else 0 for h in range(256))
_ONE = bytes(1 if 0 < h < 128 else 0 for h in range(256))
_NON_NEGATIVE = bytes((0, *range(128, 256)))
# A cell's role bytes, OR'd onto its guard byte and pairs (values 0..99).
_DROP = 0x80                      # a pair below the scale: it must be zero
_PLUS, _MINUS, _NULL = 0xF0, 0xF8, 0xFC   # the guard byte: separator and sign
_UNHANDLED = 0xFF


def _digit_tables() -> tuple[bytes, bytes]:
    """role | pair -> its first and its second text byte: a kept pair's
    digits, a dropped zero's blanks (which ``int`` ignores), ``x`` (which
    it refuses) for a dropped non-zero pair or an unhandled head; the
    guard as the cell's separator and sign."""
    tens, units = bytearray(b"x" * 256), bytearray(b"x" * 256)
    for v in range(100):
        tens[v], units[v] = 0x30 + v // 10, 0x30 + v % 10
    tens[_DROP], units[_DROP] = 0x20, 0x20
    for role, sign in ((_PLUS, "+"), (_MINUS, "-"), (_NULL, "0")):
        tens[role], units[role] = ord(","), ord(sign)
    return bytes(tens), bytes(units)


_TENS, _UNITS = _digit_tables()


def packed_column(ctype: ColumnType, at: int, stride: int) -> PackedColumn | None:
    """The column converter of a packed type at offset ``at`` of rows of
    ``stride`` bytes, or None where the cell code serves."""
    if ctype.code in (TypeCode.DECIMAL, TypeCode.MONEY):
        if ctype.scale is None:
            return _floating_decimal(ctype, at, stride)
        if not ctype.scale & 1:
            return _scaled_decimal(ctype.wire_width - 1, ctype.scale, at, stride)
        return None
    if ctype.code == TypeCode.INTERVAL and _LANES_FIT:
        return _interval(ctype, at, stride)
    return None


def _exponent(head: int) -> int:
    """The base-100 exponent a head byte gives, either sign."""
    return (head & 0x7F) - 64 if head & 0x80 else (head ^ 0x7F) - 64


def _by_position(by_head: list[bytes]) -> tuple[bytes, ...]:
    """Role tables per head -> per byte position of a cell: head -> role,
    one ``translate`` of the heads each (a ``join`` of the heads' role
    bytes measured ~15 ns a cell slower)."""
    return tuple(bytes(roles[q] for roles in by_head) for q in range(len(by_head[0])))


def _role_bytes(heads: bytes, tables: tuple[bytes, ...], n: int) -> int:
    """The roles of every cell's bytes, as the big integer they are OR'd by."""
    width = len(tables)
    roles = bytearray(n * width)
    for q, table in enumerate(tables):
        roles[q::width] = heads.translate(table)
    return int.from_bytes(roles, "big")


@functools.lru_cache(maxsize=64)
def _roles(pairs: int, scale: int) -> tuple[bytes, ...]:
    """The role bytes of a cell by head (per position): the guard's (sign), then
    each pair kept (its digits lie above the scale) or dropped.  A head
    keeping no pair or more pairs than the cell has is unhandled."""
    table = []
    for head in range(256):
        keep = _exponent(head) + scale // 2
        if head == 0 or keep == 0:
            # NULL, its pairs all zero here; or a zero whose pairs all lie
            # below the scale: "0" (a negative zero carried: cell code)
            table.append(bytes((_NULL,)) + bytes((_DROP,)) * pairs)
        elif 1 <= keep <= pairs:
            sign = _MINUS if head < 128 else _PLUS
            table.append(bytes((sign,)) + bytes(keep) + bytes((_DROP,)) * (pairs - keep))
        else:
            table.append(bytes((_UNHANDLED,)) * (1 + pairs))
    return _by_position(table)


def _scaled_decimal(pairs: int, scale: int, at: int, stride: int) -> PackedColumn:
    roles = _roles(pairs, scale)
    unit = _SCALE[-scale]
    width = 1 + pairs                     # guard byte + pairs per cell

    def convert(data: bytes, n: int) -> Iterable | None:
        heads = data[at::stride]
        cells = bytearray(n * width)
        for j in range(1, width):
            cells[j::width] = data[at + j::stride]
        if cells.translate(None, PAIR_BYTES):
            return None                   # a pair over 99: the cell code words it
        if heads.translate(None, _NON_NEGATIVE):
            cells = _uncomplement(cells, heads, width, 1, width, n)
        text = _text(cells, heads, roles)
        pieces = text.split(",", n - 1)
        if len(pieces) != n:
            return None                   # never, by the roles: rows are not lost
        try:
            numbers = list(map(int, pieces))
        except ValueError:
            return None                   # a digit below the scale, an odd head
        values = map(_mul, numbers, repeat(unit))
        # a zero head is a NULL: the rest of the cell was checked by its role
        return values if 0 not in heads else nulls_at_zero_heads(list(values), heads)
    return convert


def _uncomplement(cells: bytearray, heads: bytes, width: int, first: int, end: int,
                  n: int) -> bytes:
    """Undo the negative cells' complement for the whole column (module
    docstring, step 2): the pairs at ``first``..``end`` - 1 of each cell of
    ``width`` bytes, returned as pair values 0..99 (the bytes before them 0,
    or 1 where a negative zero carried into them)."""
    mask, one = bytearray(n * width), bytearray(n * width)
    flip = heads.translate(_FLIP)
    for j in range(first, end):
        mask[j::width] = flip
    one[end - 1::width] = heads.translate(_ONE)
    number = (int.from_bytes(cells, "big") ^ int.from_bytes(mask, "big")) \
        + int.from_bytes(one, "big")
    return number.to_bytes(n * width, "big").translate(_PAIR)


def _text(cells: bytes, heads: bytes, roles: tuple[bytes, ...]) -> str:
    """Every cell's separator, sign and digits (module docstring, step 3),
    the first separator left off."""
    merged = (int.from_bytes(cells, "big") | _role_bytes(heads, roles, len(heads))).to_bytes(
        len(cells), "big")
    text = bytearray(2 * len(cells))
    text[0::2], text[1::2] = merged.translate(_TENS), merged.translate(_UNITS)
    return text[1:].decode("latin-1")


# ---------------------------------------------------------------- floating DECIMAL

# Rows converted at a time: its text is three bytes a byte of a cell, and
# past ~2,048 rows the temporaries (~400 KB at 8,192) cost more in fresh
# pages than they save in calls (decimal(16): 380 ns a cell at 8,192 rows,
# 329 at 2,048, 344 at 512; the other forms measured flat).
_FLOATING_ROWS = 2048
# Zero bytes before a floating DECIMAL's pairs: values down to
# 100**-(_LEADING - 1) (1E-12 and up) have their leading zeros and the decimal
# point there; smaller ones take the cell code.
_LEADING = 6
# A cell's text, three characters a byte: the first two from its digits
# byte (the byte's value with a role OR'd on), the third from its separator
# byte (the role alone).  A pair writes its digits and "_" (which Decimal()
# skips between digits), "." after the pair the point follows; a pair past
# the point with nothing but zero pairs after it (the last non-zero one or a
# trailing zero, _trim_marks) writes its digits without trailing zeros and
# a blank, so the fraction's trailing zeros are blanks Decimal() strips
# itself (an rstrip("0_") of the text cost ~4 ns a character it walked, ~80
# a cell, ~100 a NULL).  Digits codes: a pair 0..99, trimmed 0x80 | 0..99
# (up to 0xE3).  Separator codes of a pair: _UNDER, _POINT, a pair past the
# point _PAST, trimmed _PAST | _CUT.  The bytes before the pairs have even
# codes above those in both; one more than each in the digits byte (where a
# negative zero's carry would leave it) reads as no text.
_UNDER, _POINT, _PAST, _CUT, _TRIM = 0x00, 0x80, 0x20, 0x40, 0x80
_F_SEP = 0xE4                             # ",  ": the cell's separator
_F_BLANK = 0xE6                           # "   ": leading zeros not needed
_F_ZEROS = 0xE8                           # "00_": leading zeros needed
_F_PLUS, _F_MINUS = 0xEA, 0xEC            # "  +" / "  -" before the pairs
_F_PLUS_POINT, _F_MINUS_POINT = 0xEE, 0xF0   # "+0." / "-0.": a value below 1
_F_NULL = 0xF2                            # " 0.": a NULL's text (not kept)


def _floating_tables() -> tuple[bytes, bytes, bytes]:
    """Digits code -> first and second character, separator code -> third
    ("x" for no role's)."""
    tables = [bytearray(b"x" * 256) for _ in range(3)]
    texts = {_F_SEP: ",  ", _F_BLANK: "   ", _F_ZEROS: "00_", _F_PLUS: "  +",
             _F_MINUS: "  -", _F_PLUS_POINT: "+0.", _F_MINUS_POINT: "-0.", _F_NULL: " 0."}
    for code, text in texts.items():
        for table, char in zip(tables, text.encode("ascii")):
            table[code] = char
    for v in range(100):
        tens, units = f"{v:02d}"
        tables[0][v], tables[1][v] = ord(tens), ord(units)
        tables[0][_TRIM | v] = ord(" " if v == 0 else tens)
        tables[1][_TRIM | v] = ord(" " if v % 10 == 0 else units)
    for code, char in ((_UNDER, "_"), (_POINT, "."), (_PAST, "_"), (_PAST | _CUT, " ")):
        tables[2][code] = ord(char)
    return tuple(bytes(t) for t in tables)  # type: ignore[return-value]


_F_TABLES = _floating_tables()


@functools.lru_cache(maxsize=32)
def _floating_roles(pairs: int) -> tuple[bytes, ...]:
    """The roles of a cell's bytes by head (per position): the separator,
    the zero bytes before the pairs (blank, or the sign, the "0." of a
    value below 1 and the zeros after its point), then the pairs: before
    the point, the one it follows, past it.  Leading zeros a value does not
    need are blanks (which Decimal() skips before the sign), not digits to
    parse (~30 ns a cell).  A head putting the point before the zero bytes
    or past the pairs (a positive exponent of ten) is unhandled."""
    size = 1 + _LEADING + pairs
    table = []
    for head in range(256):
        # the byte the decimal point follows
        point = _LEADING + _exponent(head)
        body = bytearray(size)
        body[0] = _F_SEP
        body[1:1 + _LEADING] = bytes((_F_BLANK,)) * _LEADING
        negative = 0 < head < 128
        if head == 0:
            body[_LEADING] = _F_NULL                 # " 0." + zero pairs: 0
            point = _LEADING
        elif _LEADING < point <= _LEADING + pairs:   # a value of 1 or more
            body[_LEADING] = _F_MINUS if negative else _F_PLUS
            body[point] = _POINT
        elif 1 <= point <= _LEADING:                 # below 1: "+0." "00_"...
            body[point] = _F_MINUS_POINT if negative else _F_PLUS_POINT
            body[point + 1:1 + _LEADING] = bytes((_F_ZEROS,)) * (_LEADING - point)
        else:
            table.append(bytes((0xFF,)) * size)
            continue
        body[max(point + 1, 1 + _LEADING):] = bytes((_PAST,)) * (size - max(point + 1,
                                                                          1 + _LEADING))
        table.append(bytes(body))
    return _by_position(table)


@functools.lru_cache(maxsize=8)
def _trim_masks(n: int, lead: int, width: int) -> tuple[int, ...]:
    """Big integers of n cells of ``width`` bytes (``lead`` before the
    pairs) for _trim_marks: 0x7F every byte, 0x80 every byte, 0x80 at
    each cell's first byte, 1 at its last, _PAST at its pairs, 0xFF at the
    bytes before its pairs."""
    def every(cell: bytes) -> int:
        return int.from_bytes(cell * n, "big")
    pairs = width - lead
    return (every(b"\x7f" * width), every(b"\x80" * width),
            every(b"\x80" + bytes(width - 1)), every(bytes(width - 1) + b"\x01"),
            every(bytes(lead) + bytes((_PAST,)) * pairs), every(b"\xff" * lead + bytes(pairs)))


def _trim_marks(cells: int, roles: int, n: int, lead: int, width: int) -> tuple[int, int]:
    """The digits and separator bytes of every cell (as big integers): a
    pair past the point with only zero pairs after it is marked trimmed
    (_TRIM on its digits byte, _CUT on its separator).  For the whole column
    at once: each byte's non-zero flag (0x80: adding 0x7F to a byte 0..99
    carries into that bit and never out of the byte), a guard flag at each
    cell's first byte, then minus one at each cell's last byte: the borrow
    runs back through the trailing zero bytes to the last non-zero pair
    (or the guard), so flags ^ (flags - 1) is 0xFF from that pair on and 0
    before it; kept where the roles say the pair is past the point."""
    k7f, k80, guard, last, past, before = _trim_masks(n, lead, width)
    flags = ((cells + k7f) & k80) | guard
    tail = flags ^ (flags - last)
    cut = tail & roles & past              # _PAST where trimmed
    return cells | (cut << 2) | (roles & before), roles | (cut << 1)


def _floating_decimal(ctype: ColumnType, at: int, stride: int) -> PackedColumn:
    """Floating DECIMAL(p): the exact digits, fraction zeros dropped but
    never the integer's.  Each cell's text puts the decimal point among its
    digits (``_floating_roles``), its trailing fraction zeros are blanks
    (``_trim_marks``), and Decimal() reads it (exponent 0 for an integer:
    "12_00." is 1200).  A cell whose first pair is zero (NULL, zero, whose
    exponent the reference derives from its head, or a value not
    normalised) is then taken from the reference converter by itself."""
    pairs = ctype.wire_width - 1
    roles, reference = _floating_roles(pairs), packed_converter(ctype)
    lead = 1 + _LEADING                    # bytes before the pairs
    width = lead + pairs

    def convert(data: bytes, n: int) -> Iterable | None:
        if n <= _FLOATING_ROWS:
            return part(data, n)
        values = []
        for first in range(0, n, _FLOATING_ROWS):
            rows = min(_FLOATING_ROWS, n - first)
            got = part(data[first * stride:(first + rows) * stride], rows)
            if got is None:
                return None
            values += got
        return values

    def part(data: bytes, n: int) -> list | None:
        cells = bytearray(n * width)
        for j in range(pairs):
            cells[lead + j::width] = data[at + 1 + j::stride]
        if cells.translate(None, PAIR_BYTES):
            return None
        heads = data[at::stride]
        if heads.translate(None, _NON_NEGATIVE):
            cells = _uncomplement(cells, heads, width, lead, lead + pairs, n)
        digits, seps = _trim_marks(int.from_bytes(cells, "big"),
                                   _role_bytes(heads, roles, n), n, lead, width)
        digits_b, seps_b = digits.to_bytes(len(cells), "big"), seps.to_bytes(len(cells), "big")
        text = bytearray(3 * len(cells))
        text[0::3] = digits_b.translate(_F_TABLES[0])
        text[1::3] = digits_b.translate(_F_TABLES[1])
        text[2::3] = seps_b.translate(_F_TABLES[2])
        cut = text[1:].decode("latin-1").split(",", n - 1)
        if len(cut) != n:
            return None                   # never, by the roles: rows are not lost
        try:
            # Decimal() signals bad text by the thread's context: ours traps it
            with decimal.localcontext(_CTX):
                values = list(map(decimal.Decimal, cut))
        except decimal.InvalidOperation:
            return None                   # an unhandled head
        firsts = data[at + 1::stride]
        if 0 in heads and not _zero_heads_are_null(heads, firsts):
            return None                   # a zero head before a pair: no NULL
        return values if 0 not in firsts else _by_reference(
            values, heads, firsts, data, at, stride, ctype.wire_width, reference)
    return convert


def _by_reference(values: list, heads: bytes, firsts: bytes, data: bytes, at: int, stride: int,
                  width: int, reference: Callable) -> list | None:
    """The cells whose first pair is zero: None for NULL (a zero head too),
    the others as the reference converter reads them; None when it refuses
    one (the cell code words it)."""
    row = firsts.find(0)
    while row >= 0:
        if heads[row]:
            start = at + row * stride
            try:
                values[row] = reference(data[start:start + width])
            except Exception:
                return None
        else:
            values[row] = None
        row = firsts.find(0, row + 1)
    return values


# ---------------------------------------------------------------- INTERVAL

# Lanes of a big integer read back as arrays of these (rowblock's test too).
_LANES_FIT = array("I").itemsize == 4 and array("Q").itemsize == 8
_SWAP = sys.byteorder == "little"
_UNIT_SECONDS = {TU_DAY: 86400, TU_HOUR: 3600, TU_SECOND - 2: 60, TU_SECOND: 1}


def _interval(ctype: ColumnType, at: int, stride: int) -> PackedColumn | None:
    """INTERVAL in its qualifier's positive form (the cell code's fast
    form; a negative one, whose head differs, takes the cell code): each
    field's pairs are its columns, checked by ``translate``, and the
    numbers the value is built from are computed for the whole column at
    once in the lanes of big integers (``_number``): a count of the
    smallest unit times that unit's timedelta (``_unit_multiples``; or
    ``timedelta(days, seconds, microseconds)`` where the count can pass 8
    bytes) or ``IntervalYM(months)``.  The cell code's per-cell table
    lookups and sums cost ~90 ns beside the constructor; these ~30."""
    layout = temporal_layout(ctype)
    if layout is None:
        return None
    _, units, _, nfrac = layout
    lead = (ctype.leading_digits + 1) // 2
    offsets = range(at + 1, at + ctype.wire_width)
    head = temporal_head(ctype)
    if ctype.is_year_month:
        # months: YEAR's pairs * 12 + MONTH's, or MONTH's alone
        terms = [(lead, 12 if ctype.start < TU_MONTH else 1)] + [(1, 1)] * len(units)
        build = _year_month(terms)
    else:
        build = _day_time(ctype.start, lead, units, nfrac)

    def convert(data: bytes, n: int) -> Iterable | None:
        heads = data[at::stride]
        if heads.count(head) + heads.count(0) != n:
            return None                   # a negative value, an odd exponent
        columns = [data[o::stride] for o in offsets]
        if any(c.translate(None, PAIR_BYTES) for c in columns):
            return None
        if 0 not in heads:
            return build(columns, n)      # a bad value raises as it is built
        try:
            values = build(columns, n)
            values = values if type(values) is list else list(values)
        except (OverflowError, ValueError):
            return None                   # the cell code words it
        return _temporal_nulls(values, heads, columns[0])
    return convert


def _year_month(terms: list[tuple[int, int]]) -> Callable[[list, int], Iterable]:
    size = _lane_size(terms)

    def build(columns: list, n: int) -> Iterable:
        return interval_ym_many(_number(columns, terms, n, size), n)
    return build


def _lane_size(terms: list[tuple[int, int]]) -> int:
    """4-byte lanes where every row's sum fits them (YEAR(4) TO MONTH,
    HOUR TO SECOND: half the big integers' bytes, ~3-5 ns a row less),
    else 8."""
    return 4 if _bound(terms) < 1 << 32 else 8


def _day_time(start: int, lead: int, units: list[int], nfrac: int
              ) -> Callable[[list, int], Iterable]:
    """The timedeltas of a day-time qualifier: where every row's whole
    count of its smallest unit fits one 8-byte lane, that count times the
    unit's timedelta (``_unit_multiples``); else timedelta(days, seconds,
    micro), DAY's pairs the days, the later fields' (with a leading
    HOUR/MINUTE/SECOND's) the seconds."""
    fields = [(1, _UNIT_SECONDS[u]) for u in units]
    whole = lead + len(units)              # columns before the fraction's
    leading = [(lead, _UNIT_SECONDS[start])]
    micro = [(nfrac, 10 ** (6 - 2 * nfrac))]
    if not nfrac:
        return _unit_multiples(leading + fields, datetime.timedelta(seconds=1))
    counted = [(pairs, weight * 10 ** 6) for pairs, weight in leading + fields] + micro
    if _bound(counted) < 1 << 64:
        return _unit_multiples(counted, datetime.timedelta(microseconds=1))
    td = datetime.timedelta
    if start == TU_DAY:
        day_terms, second_terms, first = [(lead, 1)], fields, lead
    else:
        day_terms, second_terms, first = [], leading + fields, 0

    def build(columns: list, n: int) -> Iterable:
        days = _number(columns, day_terms, n, 8) if day_terms else repeat(0)
        secs = _number(columns[first:whole], second_terms, n, 8) if second_terms \
            else repeat(0)
        return starmap(td, zip(days, secs, _number(columns[whole:], micro, n, 4)))
    return build


def _bound(terms: list[tuple[int, int]]) -> int:
    """The largest sum of terms (pairs, weight) any row's pairs can spell
    (every pair 99)."""
    return sum((100 ** pairs - 1) * weight for pairs, weight in terms)


def _unit_multiples(terms: list[tuple[int, int]], unit: datetime.timedelta
                    ) -> Callable[[list, int], Iterable]:
    """timedelta ``unit`` times each row's count: ``unit * count`` builds
    the same timedelta as ``timedelta(days, seconds)`` for ~114 against
    ~168 ns (the three-argument constructor normalises each argument; the
    product converts one microsecond count), and the count is one lane.  A
    count past timedelta's range raises OverflowError as the constructor
    does."""
    assert _bound(terms) < 1 << 64, "one 8-byte lane a row"
    size = _lane_size(terms)

    def build(columns: list, n: int) -> Iterable:
        return map(operator.mul, repeat(unit), _number(columns, terms, n, size))
    return build


def _number(columns: list[bytes], terms: list[tuple[int, int]], n: int, size: int) -> array:
    """Each row's sum of terms (pairs, weight): a term's ``pairs`` columns
    read as one base-100 number, times ``weight``, summed.  Computed in
    ``size``-byte lanes of one big integer, one lane a row, which no row's
    number can overflow (INTERVAL's 9 leading digits times 86,400 fit 8
    bytes; YEAR TO MONTH's months and a fraction's microseconds 4)."""
    total, at = 0, 0
    for pairs, weight in terms:
        number = 0
        for column in columns[at:at + pairs]:
            number = number * 100 + _lanes(column, n, size)
        total += number * weight if weight != 1 else number
        at += pairs
    out = array("Q" if size == 8 else "I", total.to_bytes(n * size, "big"))
    if _SWAP:
        out.byteswap()
    return out


def _lanes(column: bytes, n: int, size: int) -> int:
    """A column of bytes as the big integer of ``size``-byte lanes holding
    one each."""
    lanes = bytearray(n * size)
    lanes[size - 1::size] = column
    return int.from_bytes(lanes, "big")


def _temporal_nulls(values: list, heads: bytes, first: bytes) -> list | None:
    """The rows whose head is zero as None, all NULL (first pair zero too);
    None when one is not (a zero head before another pair: the cell
    code's).  One pass: the rows' values were built, and are dropped."""
    at = heads.find(0)
    while at >= 0:
        if first[at]:
            return None
        values[at] = None
        at = heads.find(0, at + 1)
    return values


def _zero_heads_are_null(heads: bytes, first: bytes) -> bool:
    """Whether every row whose head is zero is NULL (its first pair zero
    too), not a value whose head happens to be zero."""
    at = heads.find(0)
    while at >= 0:
        if first[at]:
            return False
        at = heads.find(0, at + 1)
    return True
