"""The block path of the tuple decoder: a fetch reply's run of SQ_TUPLE
messages of one fixed-width shape decoded a column at a time.

The generated row decoder (rowdecode.py) costs, besides each value's
constructor, a call, a struct read and a tuple per row, and parse_reply a
header read per tuple: ~30 ns a cell on cheap types, more than the value.
A fixed-width row's tuple is ``[short 14][short flags][uint W][W bytes]``
plus a pad byte when W is odd, so n tuples are n strides of one struct
format holding the header fields and every cell's fields.  Each field of
every row is taken out at once by strided slices of the block's bytes
(``data[at::stride]``: a one-byte field is then its column; the bytes of a
wider number are gathered the same way and read as a big-endian
``array``), with no Python object per value and no transposition of row
tuples; each column is checked and converted with C-level iteration
(``count``, ``min``, ``in``, ``map`` over constructors and table lookups);
``zip`` makes the row tuples again.

Exactness, against the per-row decoder (the reference of this module;
tests/unit/test_rowblock_differential.py feeds both the same values and
hostile bytes):

* a column is converted by its fast form only when the whole column is in
  its clean form (no NULL sentinel, every DATETIME head the qualifier's,
  every DECIMAL head one whose rescaling is exact); otherwise by a loop
  running the per-row decoder's own cell code (FixedCell lines) per cell;
* anything raised while converting a block (a digit pair over 99, a field
  out of range, bad text) hands the block to the per-row decoder, row by
  row; at the first row it rejects (DataError, or a row not ending where its
  size says) the hook stops, so parse_reply's per-row path decodes that row
  itself and records or raises exactly as without this module;
* the hook takes only tuples parse_reply would accept unchanged: tag 14,
  no warning flags, size == W <= max_size, complete in the buffer.  The
  first other one ends the block and is parse_reply's, so framing errors,
  warnings and short buffers keep their one code path.

Blocks grow from 32 tuples by 4x (to 8192) while every tuple is taken, so a
reply whose tuples alternate with ones the hook leaves costs no quadratic
work.
"""

from __future__ import annotations

import datetime
import functools
import math
import re
import struct
import sys
from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, repeat
from operator import add, floordiv, lshift, mod, mul, or_

from .codegen import FixedCell, compile_function, indent
from .packedcells import datetime_args, scaled_divisors, temporal_head, temporal_layout
from .scalars import EPOCH_ORDINAL, INT_NULL, INT_STRUCT
from .typeinfo import TU_DAY, TU_HOUR, TU_MONTH, TU_SECOND, ColumnType, TypeCode

__all__ = ["block_hook"]

# A column converter: the field columns of one cell -> its values (any
# iterable, consumed once), or None when the column is not in its clean form.
Fast = Callable[[list, int], Iterable | None]
Column = Callable[[list, int], Iterable]

_HEAD = struct.Struct("!hhI").unpack_from
# Blocks grow from 32 tuples by 4x up to 8192 (a block's temporaries stay
# a few hundred KB whatever the fetch buffer size).
_FIRST_BLOCK, _GROWTH, _MOST_BLOCK = 32, 4, 8192
_UNIT_SECONDS = {TU_DAY: 86400, TU_HOUR: 3600, TU_SECOND - 2: 60, TU_SECOND: 1}
_NO_BLOCK = (TypeCode.BYTE, TypeCode.TEXT)   # descriptors: their values come later


def block_hook(columns: Sequence[ColumnType], cells: Sequence[FixedCell | None], ns: dict,
               decode_row: Callable, utf8: bool) -> Callable | None:
    """The ``bulk`` hook of ``decode_row`` (see messages.parse_reply) for a
    shape of fixed-width columns, or None for other shapes.  ``cells`` are
    the per-row decoder's cells, ``ns`` the namespace their code runs in."""
    if not columns or None in cells or any(c.code in _NO_BLOCK for c in columns) \
            or not _ARRAYS_FIT:
        return None
    converters = [_column(ctype, cell, k, ns, utf8)
                  for k, (ctype, cell) in enumerate(zip(columns, cells))]
    width = struct.calcsize("!" + "".join(cell.fmt for cell in cells))
    at, plan = 8, []
    for convert, cell in zip(converters, cells):
        fields = []
        for count, letter in _FIELD.findall(cell.fmt):
            size = struct.calcsize(f"!{count}{letter}")
            fields.append((at, letter, size))
            at += size
        plan.append((convert, fields))
    return _Block(width, plan, decode_row).bulk


# struct letters of a cell's format: "B", "H", "20s", ...
_FIELD = re.compile(r"(\d*)([a-zA-Z])")
# Multi-byte fields are gathered big-endian and read as arrays of these.
_ARRAY_CODES = {"h": 2, "H": 2, "i": 4, "I": 4, "q": 8, "d": 8, "f": 4}
_ARRAYS_FIT = all(array(code).itemsize == size for code, size in _ARRAY_CODES.items())
_SWAP = sys.byteorder == "little"


def _field(data: bytes, at: int, letter: str, size: int, stride: int, n: int) -> Sequence:
    """One field of every row of ``data`` (n rows of ``stride`` bytes), as a
    sequence of what struct would give for it: bytes of ints for "B", bytes
    values for "Ns" (one iter_unpack skipping the rest of each row), an
    array for the multi-byte numbers (gathered by strided slice copies, no
    Python object per value)."""
    if letter == "B":
        return data[at::stride]
    if letter == "s":
        return list(chain.from_iterable(_bytes_struct(at, size, stride).iter_unpack(data)))
    gathered = bytearray(n * size)
    for j in range(size):
        gathered[j::size] = data[at + j::stride]
    col = array(letter, gathered)
    if _SWAP:
        col.byteswap()
    return col


@functools.lru_cache(maxsize=1024)
def _bytes_struct(at: int, size: int, stride: int) -> struct.Struct:
    """A row's bytes field at ``at``, the rest of the stride skipped."""
    return struct.Struct(f"{at}x{size}s{stride - at - size}x")


class _Block:
    """The hook of one shape: framing of runs, conversion of blocks."""

    def __init__(self, width: int, plan: list, decode_row: Callable) -> None:
        self.width, self.stride = width, 8 + width + (width & 1)
        self.plan, self.decode_row = plan, decode_row
        self.size_bytes = struct.pack("!I", width)

    def bulk(self, buf, pos: int, end: int, reply, max_size: int) -> int:
        """Take the run of complete, well-framed tuples at ``pos`` into
        ``reply.rows``; the offset after the rows taken (``pos``: none)."""
        width, stride = self.width, self.stride
        if width > max_size or pos + stride > end:
            return pos
        tag, warn, size = _HEAD(buf, pos)
        if tag != 14 or warn or size != width:
            return pos
        take = _FIRST_BLOCK
        while True:
            n = min((end - pos) // stride, take)
            if not n:
                return pos
            got = self._block(buf, pos, n, reply.rows)
            pos += got * stride
            if got < n:
                return pos
            take = min(take * _GROWTH, _MOST_BLOCK)

    def _block(self, buf, pos: int, n: int, rows: list) -> int:
        """Decode up to ``n`` tuples at ``pos`` into ``rows``; how many."""
        stride = self.stride
        with memoryview(buf) as view:
            data = view[pos:pos + n * stride].tobytes()
        heads = zip(range(8), b"\x00\x0e\x00\x00" + self.size_bytes)
        if any(data[at::stride].count(byte) != n for at, byte in heads):
            n = _first_bad(data, n, stride, self.width)
            if not n:
                return 0
            data = data[:n * stride]
        before = len(rows)
        try:
            rows.extend(zip(*[convert([_field(data, *f, stride, n) for f in fields], n)
                              for convert, fields in self.plan]))
        except Exception:
            # some cell is no value of its type, or one the fast forms leave:
            # the per-row decoder answers for this block (extend may have
            # taken the rows before the one that raised)
            del rows[before:]
            return self._per_row(buf, pos, n, rows)
        return n

    def _per_row(self, buf, pos: int, n: int, rows: list) -> int:
        """The block row by row through the per-row decoder, up to the first
        row it rejects (parse_reply's per-row path then takes that one)."""
        decode, stride, width = self.decode_row, self.stride, self.width
        append = rows.append
        for i in range(n):
            start = pos + i * stride + 8
            try:
                row, at = decode(buf, start, start + width)
            except Exception:
                return i
            if at != start + width:
                return i
            append(row)
        return n


def _first_bad(data: bytes, n: int, stride: int, width: int) -> int:
    """The first tuple of ``data`` the hook leaves to parse_reply."""
    for i in range(n):
        tag, warn, size = _HEAD(data, i * stride)
        if tag != 14 or warn or size != width:
            return i
    return n


# ---------------------------------------------------------------- column converters

def _column(ctype: ColumnType, cell: FixedCell, k: int, ns: dict, utf8: bool) -> Column:
    """Column ``k``'s converter: its fast form when the column is clean,
    else the per-row decoder's cell code run over the column."""
    slow = _cell_loop(cell, k, ns)
    fast = _fast(ctype, cell, ns, utf8)
    if fast is None:
        return lambda fields, n: slow(*fields)

    def convert(fields: list, n: int) -> Iterable:
        got = fast(fields, n)
        return slow(*fields) if got is None else got
    return convert


_LOOP = """\
def column({args}):
    out = []
    append = out.append
    for {names} in {source}:
{lines}        append({expr})
    return out
"""


def _cell_loop(cell: FixedCell, k: int, ns: dict) -> Callable:
    """The per-row decoder's code of one cell, run for each row of a column."""
    raws = list(cell.raws)
    args = [f"c{i}" for i in range(len(raws))]
    source = args[0] if len(raws) == 1 else f"zip({', '.join(args)})"
    names = raws[0] if len(raws) == 1 else ", ".join(raws)
    text = _LOOP.format(args=", ".join(args), names=names, source=source,
                        lines=indent(list(cell.lines), 8), expr=cell.expr)
    return compile_function(text, dict(ns), "column")


def _fast(ctype: ColumnType, cell: FixedCell, ns: dict, utf8: bool) -> Fast | None:
    code = ctype.code
    if code == TypeCode.DATE:
        return _date()
    if code in INT_STRUCT:
        return _integer(INT_NULL[code])
    if code == TypeCode.FLOAT:
        return _double
    if code == TypeCode.SMALLFLOAT:
        return _real
    if code in (TypeCode.INT8, TypeCode.SERIAL8):
        return _int8
    if code in (TypeCode.CHAR, TypeCode.NCHAR):
        return _text(None if utf8 else ns["_enc"])
    if cell.fmt.endswith("s"):
        return None                       # a packed cell the plain converter reads
    if code in (TypeCode.DECIMAL, TypeCode.MONEY):
        return None if ctype.scale is None else _decimal(ctype, cell, ns)
    if code in (TypeCode.DATETIME, TypeCode.INTERVAL):
        return _temporal(ctype, ns)
    return None


def _integer(null: int) -> Fast:
    return lambda f, n: None if null in f[0] else f[0]


def _date() -> Fast:
    fromordinal, null = datetime.date.fromordinal, INT_NULL[TypeCode.DATE]

    def convert(f: list, n: int) -> Iterable | None:
        col = f[0]
        return None if null in col else map(fromordinal, map(add, col, repeat(EPOCH_ORDINAL)))
    return convert


def _double(f: list, n: int) -> Iterable | None:
    # FLOAT NULL is a NaN: any NaN takes the cell code, which tells them apart
    return None if any(map(math.isnan, f[0])) else f[0]


_REAL_NULL = b"\xff" * 4


def _real(f: list, n: int) -> Iterable | None:
    col = f[0]
    return None if _REAL_NULL in col else struct.unpack(f"!{n}f", b"".join(col))


def _int8(f: list, n: int) -> Iterable | None:
    sign, low, high = f
    return None if min(sign) <= 0 else map(or_, map(lshift, high, repeat(32)), low)


def _text(encoding: str | None) -> Fast:
    decode = bytes.decode

    def convert(f: list, n: int) -> Iterable | None:
        col = f[0]
        if min(col)[0] == 0:
            return None                   # a NULL (first byte zero) somewhere
        return map(decode, col) if encoding is None else map(decode, col, repeat(encoding))
    return convert


def _number(cols: Sequence, fmt: str, ns: dict) -> Iterable:
    """The base-100 number of each row's pairs (read as ``fmt``), lazily;
    a pair over 99 is None in the tables and raises on arithmetic."""
    acc = None
    for col, letter in zip(cols, fmt):
        table, scale = (ns["_Q"], 10000) if letter == "H" else (ns["_D"], 100)
        term = map(table.__getitem__, col)
        acc = term if acc is None else map(add, map(mul, acc, repeat(scale)), term)
    return acc


def _decimal(ctype: ColumnType, cell: FixedCell, ns: dict) -> Fast:
    """DECIMAL(p,s)/MONEY: the per-row decoder's arithmetic (packedcells.py)
    with its per-head quantities taken from 256-entry tables."""
    fmt = cell.fmt[1:]
    pairs = ctype.wire_width - 1
    width, s = 2 * pairs, ctype.scale
    limit = 10 ** width
    divisor = [d or None for d in scaled_divisors(width, s)]
    unit, offset, sign = [None] * 256, [0] * 256, [1] * 256
    for h in range(1, 256):
        unit[h] = ns["_SCALE"][-s] if h > 127 else ns["_NEG_SCALE"][-s]
        if h < 128:
            offset[h], sign[h] = limit, -1
    multiply = ns["_mul"]

    def convert(f: list, n: int) -> Iterable | None:
        heads = f[0]
        if 0 in heads:
            return None                   # a NULL, or a zero head the cell code reads
        divs = list(map(divisor.__getitem__, heads))
        if None in divs:
            return None
        number = list(_number(f[1:], fmt, ns))
        if min(heads) < 128:              # negatives: 100**pairs - N
            number = list(map(add, map(offset.__getitem__, heads),
                              map(mul, map(sign.__getitem__, heads), number)))
            if limit in number:
                return None               # a negative zero: the cell code's
        if any(map(mod, number, divs)):
            return None                   # digits past the scale: the slow converter's
        return map(multiply, map(floordiv, number, divs),
                   map(unit.__getitem__, heads))
    return convert


def _temporal(ctype: ColumnType, ns: dict) -> Fast | None:
    layout = temporal_layout(ctype)
    if layout is None:
        return None
    lead_fmt, units, frac_fmt, nfrac = layout
    head, is_datetime = temporal_head(ctype), ctype.code == TypeCode.DATETIME
    lead_n, unit_n = len(lead_fmt), len(units)

    def convert(f: list, n: int) -> Iterable | None:
        if f[0].count(head) != n:
            return None                   # a NULL or another exponent: the cell code's
        lead = f[1:1 + lead_n]
        rest = f[1 + lead_n:1 + lead_n + unit_n]
        micro = (map(mul, _number(f[1 + lead_n + unit_n:], frac_fmt, ns),
                     repeat(10 ** (6 - 2 * nfrac))) if nfrac else 0)
        if is_datetime:
            # a 2-digit first field goes to the constructor as is, as per row
            first = _number(lead, lead_fmt, ns) if lead_fmt == "H" else lead[0]
            name, args = datetime_args(ctype.start, ctype.end, [first, *rest], micro)
            return map(ns[name], *[repeat(a) if type(a) is int else a for a in args])
        fields = [_number(lead, lead_fmt, ns), *(map(ns["_D"].__getitem__, c) for c in rest)]
        return _interval(ctype, fields, micro, ns)
    return convert


def _interval(ctype: ColumnType, fields: list, micro: object, ns: dict) -> Iterable:
    """INTERVAL values from their field columns, as packedcells' _interval_call."""
    if ctype.is_year_month:
        if ctype.start == TU_MONTH:
            months = map(add, fields[0], repeat(0))   # None must raise, as per row
        else:
            months = map(mul, fields[0], repeat(12))
            if len(fields) > 1:
                months = map(add, months, fields[1])
        return map(ns["_ym"], months)
    terms = list(zip([_UNIT_SECONDS[u] for u in range(ctype.start, TU_SECOND + 1, 2)],
                     fields))
    days: object = repeat(0)
    if ctype.start == TU_DAY:
        days, terms = terms[0][1], terms[1:]
    secs = None
    for size, col in terms:
        term = col if size == 1 else map(mul, col, repeat(size))
        secs = term if secs is None else map(add, secs, term)
    return map(ns["_td"], days, repeat(0) if secs is None else secs,
               repeat(0) if type(micro) is int else micro)
