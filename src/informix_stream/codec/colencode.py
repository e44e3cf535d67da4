"""Column-wise row images for a batch of Python rows (the insert cursor's PUT).

The reference is ``InsertCursor.item``, one row at a time: a row becomes
its row image when every value passes its column's check
(``insert_cursor.value_check``) and the row encoder takes it, else its bind
blocks (or an error).  Here a batch of rows is turned around into columns
and each column is encoded with C-level iteration (``map``, ``%`` over a
whole column, ``str.translate``, ``bytes.fromhex``, one struct for all
cells of a column); the rows' images are one struct call per row over the
columns' fields.  ``encode_rows`` answers None for a row whose image it
does not make; the caller hands that row to the reference, so errors,
bind fallbacks and their row numbers are the reference's by construction.

A column that holds anything unusual (a subclass, a value out of range, a
Decimal needing rounding, a text too long, a character the code set lacks)
is encoded value by value with the column's check and reference cell
encoder (``_generic``), and only its unusual rows are declined.

DECIMAL(p,s)/MONEY: each value is quantized to the scale in a context of
precision p that traps InvalidOperation (so it fits) and flags Rounded (so
no digit was dropped); the column's texts are formatted right-aligned into
one string, sign and point translated away, read as BCD by
``bytes.fromhex``, the BCD bytes translated to base-100 pairs and cut into
fixed-width fields by one struct.  Leading zero pairs are stripped, their
count gives the exponent.  The counts are one ``bytes`` a column (a byte a
row, + 64 for a negative by one big-integer addition), so the fit check
and every row's head byte are one ``translate`` each, and the sign pass
runs only when the column's text has a "-".  A negative value's L pairs
are the complement 100**L - M, the nines' complement of M - 1: one
big-integer subtraction makes M - 1 of every negative field of the
column's BCD at once, and one ``bytes.translate`` complements its pairs
(no pass per negative row).
The other columns: integers and floats go to the struct as they are
(range checked by ``min``/``max``, NaN by one ``sum``); DATE by a map of
``toordinal``; DATETIME YEAR TO SECOND by attribute columns and a cache of
each day's head and pairs; CHAR in a single-byte code set padded by one
format of the whole column and cut by one struct; VARCHAR as its length
byte and its bytes.  NULLs are found by the column's set of types and then
by ``list.index`` or identity (``_nulls``), and written as the row encoder
writes them.

tests/unit/test_colencode_differential.py holds it to the reference;
bench/throughput/encode_per_type.py measures it.
"""

from __future__ import annotations

import codecs
import datetime
import decimal
import functools
import struct
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from itertools import compress, repeat
from operator import attrgetter, getitem, is_, ne, not_, setitem, sub
from typing import Any

from .rowencode import _float_null
from .rowencode_ref import CELL_ENCODERS
from .scalars import EPOCH_ORDINAL, FLOAT_STRUCT, INT_NULL, INT_STRUCT, bcd_head, temporal_exponent
from .typeinfo import VARCHAR_CODES, ColumnType, TypeCode

__all__ = ["make_batch_encoder"]

# A column encoder: the column's values -> (struct format, argument columns,
# declined row indices), or a variable-width piece column (format None).
_Column = tuple["str | None", list, "set[int]"]
_NONE = type(None)
_BCD = bytes((b >> 4) * 10 + (b & 0xF) if (b >> 4) < 10 and (b & 0xF) < 10 else 0
             for b in range(256))
_POS_DIGITS = str.maketrans({" ": "0", "-": "0", ".": None})
_LEN_BYTE = [bytes((n,)) for n in range(256)]
# a BCD byte (a borrowed nibble F read as 9) -> 99 minus its pair
_BCD_NINES = bytes(99 - min(b >> 4, 9) * 10 - min(b & 0xF, 9) for b in range(256))
# a DECIMAL row's key (pair count + 64 if negative) -> 1 if negative with pairs
_NEGATIVE_PAIRS = bytes(int(b > 64) for b in range(256))
_INT_LIMIT = {TypeCode.SMALLINT: 2**15 - 1, TypeCode.INTEGER: 2**31 - 1,
              TypeCode.SERIAL: 2**31 - 1, TypeCode.BIGINT: 2**63 - 1,
              TypeCode.BIGSERIAL: 2**63 - 1}


def make_batch_encoder(types: Sequence[ColumnType], checks: Sequence[Callable[[Any], bool]],
                       encoding: str) -> Callable[[list], list]:
    """``encode_rows(rows)``: each row's image, or None where the row is
    left to the reference (``InsertCursor.item``).  ``rows`` are sequences
    of one value per column (positional parameters)."""
    columns = [_column_encoder(t, c, encoding) for t, c in zip(types, checks)]
    count = len(columns)

    def encode_rows(rows: list) -> list:
        n = len(rows)
        if not n or not set(map(type, rows)) <= {tuple, list} or set(map(len, rows)) != {count}:
            return [None] * n
        declined: set[int] = set()
        parts = []
        for encode, values in zip(columns, zip(*rows)):
            fmt, args, bad = encode(values)
            declined |= bad
            parts.append((fmt, args))
        images = _assemble(parts, n)
        for i in declined:
            images[i] = None
        return images
    return encode_rows


def _assemble(parts: list, n: int) -> list:
    """Row images from the columns' fields: runs of fixed-width fields are
    one struct call per row; variable pieces are joined in between."""
    pieces: list = []
    fmt, args = "", []
    for piece_fmt, piece_args in parts:
        if piece_fmt is None:
            if args:
                pieces.append(list(map(_struct(fmt).pack, *args)))
            pieces.extend(piece_args)
            fmt, args = "", []
        else:
            fmt += piece_fmt
            args.extend(piece_args)
    if args:
        if not pieces:
            return list(map(_struct(fmt).pack, *args))
        pieces.append(list(map(_struct(fmt).pack, *args)))
    return list(map(b"".join, zip(*pieces)))


@functools.lru_cache(maxsize=256)
def _struct(fmt: str) -> struct.Struct:
    return struct.Struct("!" + fmt)


# Exact types whose ``==`` against None is False and runs no Python code,
# so ``list.index(None)`` over a column of them finds exactly the Nones.
_PLAIN_EQ = frozenset((int, float, str, datetime.date, datetime.datetime))


def _nulls(values: list, kind: type) -> list[int] | None:
    """The indices of the Nones, or None when a value is neither None nor
    exactly of type ``kind`` (the column then goes by ``_generic``).

    The values' types are one set (hashing a type is a pointer; not
    ``list.count(kind)``, whose ``==`` a metaclass could answer).  Nones
    among values of a ``_PLAIN_EQ`` kind are found by ``list.index`` from
    one to the next, its scan a C loop; among Decimals, whose ``==`` against
    None costs ten times an identity test, by ``compress`` over
    ``map(is_, ...)``.  bench/README.md ("Finding the Nones") has the
    figures of both and of the alternatives tried."""
    kinds = set(map(type, values))
    if kinds <= {kind}:
        return []
    if not kinds <= {kind, _NONE}:
        return None
    if kind in _PLAIN_EQ:
        return _none_indices(values)
    return list(compress(range(len(values)), map(is_, values, repeat(None))))


def _none_indices(values: list) -> list[int]:
    """Where the Nones are, by ``list.index`` from one to the next (a
    Python step per None, a C comparison per value)."""
    found, find, at = [], values.index, -1
    try:
        while True:
            at = find(None, at + 1)
            found.append(at)
    except ValueError:
        return found


def _scatter(target: list, where: Sequence[int], values: Iterable) -> None:
    """``target[i] = value`` for each pair, by a C-level loop."""
    deque(map(setitem, repeat(target), where, values), maxlen=0)


def _filled(values: Sequence, nulls: list[int], stand_in: object) -> Sequence:
    """The values with a harmless stand-in for each NULL (a list copy)."""
    if not nulls:
        return values
    values = list(values)
    _scatter(values, nulls, repeat(stand_in))
    return values


def _column_encoder(ctype: ColumnType, check: Callable[[Any], bool], encoding: str
                    ) -> Callable[[list], _Column]:
    """The column's fast path, falling back to ``_generic`` for a column it
    does not answer (None) or that makes a C-level pass raise."""
    generic = _generic(ctype, check, encoding)
    fast = fast_column(ctype, check, encoding)
    if fast is None:
        return generic

    def encode(values: list) -> _Column:
        try:
            done = fast(values)
        except (TypeError, ValueError, OverflowError, ArithmeticError, struct.error):
            done = None
        return generic(values) if done is None else done
    return encode


def fast_column(ctype: ColumnType, check: Callable[[Any], bool], encoding: str
                ) -> Callable[[list], _Column | None] | None:
    """The C-level encoder of a column of ``ctype`` (None where there is
    none): values -> fields, or None when the column holds anything it is
    not sure of."""
    code = ctype.code
    if code in _INT_LIMIT:
        return _int_column(ctype)
    if code is TypeCode.FLOAT and _float_null(FLOAT_STRUCT[code]) is not None:
        return _float_column(ctype)
    if code is TypeCode.DATE:
        return _date_column
    if code is TypeCode.DATETIME and ctype.start == 0 and ctype.end == 10:
        return _datetime_column(ctype)
    if code in (TypeCode.DECIMAL, TypeCode.MONEY) and ctype.scale is not None:
        return _decimal_column(ctype, check)
    if code in (TypeCode.CHAR, TypeCode.NCHAR):
        return _char_column(ctype, encoding)
    if code in VARCHAR_CODES:
        return _varchar_column(ctype, encoding)
    return None


def _generic(ctype: ColumnType, check: Callable[[Any], bool], encoding: str
             ) -> Callable[[list], _Column]:
    """Value by value: the column's check, then its reference cell encoder
    (what the row encoder is held to); a value failing either is declined."""
    cell = CELL_ENCODERS[ctype.code](ctype, encoding)
    null = cell(None)

    def encode(values: list) -> _Column:
        cells, bad = [], set()
        for i, v in enumerate(values):
            data = null
            if v is not None:
                try:
                    if check(v):
                        data = cell(v)
                    else:
                        bad.add(i)
                except Exception:  # the reference decides this row, error and all
                    bad.add(i)
            cells.append(data)
        widths = set(map(len, cells))
        if len(widths) == 1:                   # one width: a struct field
            return f"{widths.pop()}s", [cells], bad
        return None, [cells], bad
    return encode


def _int_column(ctype: ColumnType) -> Callable[[list], _Column | None]:
    limit, null = _INT_LIMIT[ctype.code], INT_NULL[ctype.code]
    fmt = INT_STRUCT[ctype.code].format[1:]

    def encode(values: list) -> _Column | None:
        nulls = _nulls(values, int)
        if nulls is None:
            return None
        values = _filled(values, nulls, 0)
        if min(values) < -limit or max(values) > limit:
            return None
        _scatter(values, nulls, repeat(null))
        return fmt, [values], set()
    return encode


def _float_column(ctype: ColumnType) -> Callable[[list], _Column | None]:
    null = _float_null(FLOAT_STRUCT[ctype.code])

    def encode(values: list) -> _Column | None:
        nulls = _nulls(values, float)
        if nulls is None:
            return None
        values = _filled(values, nulls, 0.0)
        total = sum(values)               # NaN if a value is (or +inf meets -inf)
        if total != total and any(map(ne, values, values)):
            return None                   # a NaN goes by bind, as _float_check says
        _scatter(values, nulls, repeat(null))
        return "d", [values], set()
    return encode


_DATE_STAND_IN = datetime.date(2000, 1, 1)


def _date_column(values: list) -> _Column | None:
    nulls = _nulls(values, datetime.date)
    if nulls is None:
        return None
    values = _filled(values, nulls, _DATE_STAND_IN)
    days = list(map(sub, map(datetime.date.toordinal, values), repeat(EPOCH_ORDINAL)))
    _scatter(days, nulls, repeat(INT_NULL[TypeCode.DATE]))
    return "i", [days], set()


_DATETIME_STAND_IN = datetime.datetime(2000, 1, 1)
_TZ = attrgetter("tzinfo")
_HOUR, _MINUTE, _SECOND = attrgetter("hour"), attrgetter("minute"), attrgetter("second")
# head byte -> date ordinal -> the head and the date's four pairs (century,
# year, month, day); bounded
_DAY_PAIRS: dict[int, dict[int, bytes]] = {}
_DAY_PAIRS_MAX = 1 << 16


def _day_pairs(head: int, ordinals: list[int]) -> list[bytes]:
    cache = _DAY_PAIRS.setdefault(head, {})
    try:
        return list(map(cache.__getitem__, ordinals))   # a day seen before: most of them
    except KeyError:
        pass
    days = set(ordinals)
    fresh = {}
    for k in days.difference(cache):
        fresh[k] = _day(head, k)
    if len(cache) + len(fresh) > _DAY_PAIRS_MAX:
        cache.clear()
    cache.update(fresh)
    # read from this batch's own table: another thread may clear the cache
    lookup = {k: fresh[k] if k in fresh else cache.get(k) or _day(head, k) for k in days}
    return list(map(lookup.__getitem__, ordinals))


def _day(head: int, ordinal: int) -> bytes:
    d = datetime.date.fromordinal(ordinal)
    return bytes((head, d.year // 100, d.year % 100, d.month, d.day))


def _datetime_column(ctype: ColumnType) -> Callable[[list], _Column | None]:
    """YEAR TO SECOND (microseconds are dropped, as the row encoder does)."""
    head = bcd_head(temporal_exponent(ctype.length), False)
    fmt = f"5sBBB{ctype.wire_width - 8}x"

    def encode(values: Sequence) -> _Column | None:
        nulls = _nulls(values, datetime.datetime)
        if nulls is None:
            return None
        values = _filled(values, nulls, _DATETIME_STAND_IN)
        if set(map(_TZ, values)) != {None}:
            return None
        days = _day_pairs(head, list(map(datetime.datetime.toordinal, values)))
        hours, minutes = list(map(_HOUR, values)), list(map(_MINUTE, values))
        seconds = list(map(_SECOND, values))
        for column, null in ((hours, 0), (minutes, 0), (seconds, 0), (days, b"")):
            _scatter(column, nulls, repeat(null))
        return fmt, [days, hours, minutes, seconds], set()
    return encode


@functools.lru_cache(maxsize=64)
def _fields(width: int, n: int) -> Callable[[bytes], tuple]:
    """Cuts n consecutive fields of ``width`` bytes apart."""
    return struct.Struct(f"{width}s" * n).unpack


def _decimal_column(ctype: ColumnType, check: Callable[[Any], bool]
                    ) -> Callable[[list], _Column | None]:
    precision, scale, width = ctype.precision, ctype.scale or 0, ctype.wire_width
    odd = scale & 1
    # text: sign, whole digits (at least "0"), point, scale digits
    chars = max(precision - scale, 1) + 1 + (1 if scale else 0) + scale
    digits = chars - (1 if scale else 0) + odd
    chars += digits & 1
    pairs = (digits + (digits & 1)) // 2
    # str() never writes E-notation for an exponent of -6 or more; past it,
    # format's "f" (three times slower) spells the digits out
    spec = f"%{chars}s" if scale <= 6 else f"{{:>{chars}f}}"
    form = spec + ("0" if odd else "")
    texts_of = (lambda n, values: (form * n) % tuple(values)) if scale <= 6 else \
        (lambda n, values: (form * n).format(*values))
    frac_pairs = (scale + 1) // 2
    # a row's key byte is its pair count + 64 if negative (a count is at most
    # 16): the head by one translate of the column's keys
    heads_of = bytearray(256)
    for k in range(1, pairs + 1):
        heads_of[k], heads_of[k + 64] = bcd_head(k - frac_pairs, False), bcd_head(
            k - frac_pairs, True)
    heads_of[0] = heads_of[64] = 0xC0          # zero (and -0) has no pairs
    heads_of = bytes(heads_of)
    fitting = bytes(range(width))              # pair counts that fit the cell
    tail = [slice(pairs - k, None) for k in range(pairs + 1)]
    field_ones = 256**pairs - 1                # a field's worth of 0xFF bytes
    exp = decimal.Decimal(1).scaleb(-scale)
    dec, fmt = decimal.Decimal, f"B{width - 1}s"

    def encode(values: list) -> _Column | None:
        nulls = _nulls(values, dec)
        if nulls is None:
            return None
        # a NULL's stand-in is the column's least unit, which every
        # DECIMAL(p,s) holds: not a zero, so not checked one by one below
        # (its head and pairs are then replaced by the NULL's)
        values = _filled(values, nulls, exp)
        ctx = decimal.Context(prec=precision, traps=[decimal.InvalidOperation])
        quantized = tuple(map(ctx.quantize, values, repeat(exp)))
        n = len(values)
        if ctx.flags[decimal.Rounded]:
            return None                    # a digit beyond the scale: by bind, rounded there
        texts = texts_of(n, quantized)
        # E-notation ("e" under a context with capitals=0), NaN, Infinity
        if "E" in texts or "e" in texts or "N" in texts or "I" in texts \
                or len(texts) != n * (chars + odd):
            return None
        bcd = bytes.fromhex(texts.translate(_POS_DIGITS))
        fields = _fields(pairs, n)(bcd.translate(_BCD))
        sig = list(map(bytes.lstrip, fields, repeat(b"\x00")))
        keys = bytes(map(len, sig))        # each row's pair count
        if keys.translate(None, fitting):
            return None                    # a count the cell has no room for
        bad = set()
        if keys.count(0):
            for i in compress(range(n), map(not_, keys)):
                # a zero's digits say nothing of its exponent (0E+5, 0.000): the check does
                if not check(values[i]):
                    bad.add(i)
        if "-" in texts:                   # str() writes a sign for negatives (-0 too) only
            signs = int.from_bytes(bytes(map(dec.is_signed, quantized)), "big")
            lens, keys = keys, (int.from_bytes(keys, "big") + (signs << 6)).to_bytes(n, "big")
            sig = _complement(bcd, keys.translate(_NEGATIVE_PAIRS), lens, n)
        heads = bytearray(keys.translate(heads_of))
        _scatter(heads, nulls, repeat(0))
        _scatter(sig, nulls, repeat(b""))
        return fmt, [heads, sig], bad

    def _complement(bcd: bytes, flags: bytes, lens: bytes, n: int) -> list:
        """Every row's pairs when some are negative (``flags``: 1 for a
        negative row with pairs).  A negative value's L pairs are 100**L - M,
        the last L pairs of the nines' complement of M - 1.  M - 1 of every
        negative field at once is one subtraction on the column's BCD read as
        a binary number (a field M >= 1 borrows only inside itself; a
        borrowed nibble F is read as 9 by the table); the complement is one
        translate, and each field takes the positive or the complemented
        bytes by a mask (the flags, one at each field's last byte, times a
        field of 0xFF; -0 has no pairs: not negative here).  Then each row's
        last L pairs, one slice a row."""
        ones = bytearray(len(bcd))
        ones[pairs - 1::pairs] = flags
        low = int.from_bytes(ones, "big")
        m = low * field_ones
        less = (int.from_bytes(bcd, "big") - low).to_bytes(len(bcd), "big")
        merged = ((int.from_bytes(bcd.translate(_BCD), "big") & ~m)
                  | (int.from_bytes(less.translate(_BCD_NINES), "big") & m))
        fields = _fields(pairs, n)(merged.to_bytes(len(bcd), "big"))
        return list(map(getitem, fields, map(tail.__getitem__, lens)))
    return encode


def _encoded(values: Sequence, encoding: str, limit: int
             ) -> tuple[list[bytes], list[int]] | None:
    """The texts encoded and their lengths, or None when one cannot be
    encoded or is longer than ``limit`` bytes (the reference decides those)."""
    data = list(map(str.encode, values, repeat(encoding)))
    lengths = list(map(len, data))
    return (data, lengths) if max(lengths) <= limit else None


def _single_byte(encoding: str) -> bool:
    """Whether every character the code set has is one byte (so a text's
    length in characters is its length in bytes)."""
    name = codecs.lookup(encoding).name
    return name in ("latin-1", "ascii") or name.startswith(
        ("iso8859-", "cp12", "cp43", "cp85", "cp86", "koi8", "mac-"))


def _char_column(ctype: ColumnType, encoding: str) -> Callable[[list], _Column | None]:
    n = ctype.length
    null, fmt = b"\x00" + b" " * (n - 1), f"{n}s"
    padded = f"%-{n}s"

    def encode(values: Sequence) -> _Column | None:
        nulls = _nulls(values, str)
        if nulls is None:
            return None
        values = _filled(values, nulls, "")
        count = len(values)
        # every text padded to n characters in one format: n bytes each, or
        # longer in all if one is too long
        data = ((padded * count) % tuple(values)).encode(encoding)
        if len(data) != n * count:
            return None
        cells = list(_fields(n, count)(data))
        _scatter(cells, nulls, repeat(null))
        return fmt, [cells], set()

    def encode_multibyte(values: Sequence) -> _Column | None:
        nulls = _nulls(values, str)
        done = None if nulls is None else _encoded(_filled(values, nulls, ""), encoding, n)
        if done is None:
            return None
        cells = list(map(bytes.ljust, done[0], repeat(n), repeat(b" ")))
        _scatter(cells, nulls, repeat(null))
        return fmt, [cells], set()
    return encode if _single_byte(encoding) else encode_multibyte


def _varchar_column(ctype: ColumnType, encoding: str) -> Callable[[list], _Column | None]:
    n = ctype.length & 0xFF

    def encode(values: Sequence) -> _Column | None:
        nulls = _nulls(values, str)
        done = None if nulls is None else _encoded(_filled(values, nulls, ""), encoding, n)
        if done is None:
            return None
        data, lengths = done
        prefixes = list(map(_LEN_BYTE.__getitem__, lengths))
        _scatter(prefixes, nulls, repeat(b"\x01"))
        _scatter(data, nulls, repeat(b"\x00"))
        return None, [prefixes, data], set()
    return encode
