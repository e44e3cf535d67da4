"""Fast cell encoders for DECIMAL/MONEY and DATETIME: Python value -> cell.

The reference cell encoders (rowencode_ref: fit_decimal, decimal_pairs,
datetime_bytes) go through a quantize in a fresh context, a digits tuple and
per-pair text; several microseconds a cell, most of a load of a realistic
table.  These take the common form only and hand anything else, value and
error alike, to the reference encoder of the same column:

* DECIMAL(p,s)/MONEY: a ``Decimal`` with at most s digits after the point
  (``Decimal(n) / 100`` drops trailing zeros) and at most p digits at the
  column's scale, so the quantize only appends zeros.  Its text gives the
  digits; ``bytes.fromhex`` reads each two decimal digits as one BCD byte,
  and a 256-entry table turns BCD into the 0..99 pair; a negative value's
  complement is 100^k minus the pairs read as one number.
* DATETIME whose qualifier starts at YEAR..SECOND (leading field of 4 or 2
  digits) and ends at SECOND or FRACTION(1..5): one struct call over the
  value's attributes.

tests/unit/test_codec_differential.py holds both to the reference on
hypothesis-generated values; bench/throughput/encode_per_type.py measures.
"""

from __future__ import annotations

import decimal
import struct
from collections.abc import Callable

from .codegen import compile_function
from .scalars import bcd_head, temporal_exponent
from .typeinfo import TU_SECOND, TU_YEAR, ColumnType, TypeCode

__all__ = ["fast_cell_encoder"]

CellEncoder = Callable[[object], bytes]
# BCD byte 0xXY -> the base-100 pair 10*X + Y (only 0..9 nibbles occur).
_BCD = bytes((b >> 4) * 10 + (b & 0xF) if (b >> 4) < 10 and (b & 0xF) < 10 else 0
             for b in range(256))
# 99 - d for 0..99, and 100 - d as a one-byte string: a negative value's
# pairs, all but the last non-zero one and that one.
_NINETY_NINE = bytes(99 - d if d < 100 else 0 for d in range(256))
_HUNDRED = [bytes((100 - d,)) if 0 < d < 100 else b"" for d in range(256)]
_ATTRS = ("year", "month", "day", "hour", "minute", "second")


def fast_cell_encoder(ctype: ColumnType, slow: CellEncoder) -> CellEncoder | None:
    """A fast encoder for ``ctype`` falling back to ``slow`` (the column's
    reference cell encoder), or None where no fast form is worth having."""
    code = ctype.code
    if code in (TypeCode.DECIMAL, TypeCode.MONEY) and ctype.scale is not None:
        return _decimal_encoder(ctype, slow)
    if code is TypeCode.DATETIME and TU_YEAR <= ctype.start <= TU_SECOND \
            and TU_SECOND <= ctype.end <= TU_SECOND + 5:
        return _datetime_encoder(ctype, slow)
    return None


def _decimal_encoder(ctype: ColumnType, slow: CellEncoder) -> CellEncoder:
    precision, scale, width = ctype.precision, ctype.scale or 0, ctype.wire_width
    null = bytes(width)
    zero = b"\xc0".ljust(width, b"\x00")
    dec = decimal.Decimal
    # head byte by (exponent + 64) * 2 + negative
    heads = [bytes((bcd_head(e, bool(n)),)) for e in range(-64, 64) for n in (0, 1)]
    translate = bytes.translate

    def encode(value: object) -> bytes:
        if value is None:
            return null
        if type(value) is not dec:
            return slow(value)
        text = str(value)
        if "E" in text or text[-1] > "9":
            return slow(value)            # E-notation, NaN, Infinity
        negative = text[0] == "-"
        whole, _, fraction = text.partition(".")
        if len(fraction) != scale:
            if len(fraction) > scale:
                return slow(value)        # more digits than the scale: the reference rounds
            fraction = fraction.ljust(scale, "0")     # fewer: the quantize is exact
        body = whole[1:] if negative else whole       # never a leading zero but "0"
        digits = fraction.lstrip("0") if body == "0" else body + fraction
        count = len(digits)
        if count > precision:
            return slow(value)
        if not count:
            return zero
        before = count - scale             # digits before the decimal point
        if before & 1:
            digits = "0" + digits
            before += 1
            count += 1
        if count & 1:
            digits += "0"
            count += 1
        pairs = translate(bytes.fromhex(digits), _BCD)
        if negative:                       # scalars.complement, by tables
            core = pairs.rstrip(b"\x00")
            pairs = (translate(core[:-1], _NINETY_NINE) + _HUNDRED[core[-1]]
                     + pairs[len(core):])
        cell = heads[before + 128 + negative] + pairs
        return cell.ljust(width, b"\x00") if len(cell) <= width else slow(value)
    return encode


def _datetime_encoder(ctype: ColumnType, slow: CellEncoder) -> CellEncoder:
    start, end, width = ctype.start, ctype.end, ctype.wire_width
    head = bcd_head(temporal_exponent(ctype.length), False)
    names = _ATTRS[start // 2:TU_SECOND // 2 + 1]
    fraction = end - TU_SECOND
    pairs = (2 if start == TU_YEAR else 1) + len(names) - 1 + (fraction + 1) // 2
    pack = struct.Struct(f"!{1 + pairs}B{width - 1 - pairs}x").pack
    null = bytes(width)
    source = _datetime_source(names, fraction)
    return compile_function(source, {"pack": pack, "head": head, "null": null, "slow": slow},
                            "encode")


def _datetime_source(names: tuple[str, ...], fraction: int) -> str:
    """``encode(v)``: the pairs of each field, then of the fraction's digits."""
    fields = []
    for name in names:
        if name == "year":
            fields += ["v.year // 100", "v.year % 100"]
        else:
            fields.append(f"v.{name}")
    if fraction:
        digits = fraction + (fraction & 1)               # padded to whole pairs
        fields.append(f"*_frac(v.microsecond // {10 ** (6 - fraction)}"
                      f"{' * 10' if fraction & 1 else ''}, {digits // 2})")
    return (
        "def _frac(n, count):\n"
        "    out = []\n"
        "    for _ in range(count):\n"
        "        n, d = divmod(n, 100)\n"
        "        out.append(d)\n"
        "    return reversed(out)\n"
        "def encode(v):\n"
        "    if v is None:\n"
        "        return null\n"
        "    if getattr(v, 'tzinfo', None) is not None:\n"
        "        return slow(v)\n"        # the reference refuses it (scalars.refuse_zone)
        "    try:\n"
        f"        return pack(head, {', '.join(fields)})\n"
        "    except Exception:\n"
        "        return slow(v)\n")
