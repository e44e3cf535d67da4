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
(``count``, ``in`` over a byte column, ``map`` over constructors and table
lookups; every CHAR column of a row cut from the block's decoded text by
one regular expression match, textblock.py); ``zip`` makes the row tuples
again (a shape of CHAR columns alone takes the regex's tuples as rows).

Exactness, against the per-row decoder (the reference of this module;
tests/unit/test_rowblock_differential.py feeds both the same values and
hostile bytes):

* a column is converted by its fast form only when the whole column is in
  its clean form (no NULL sentinel; for DATE and DATETIME, civilblock.py,
  every cell proven a value or a NULL, every DATETIME head the
  qualifier's; for DECIMAL/MONEY of even scale, floating DECIMAL and
  INTERVAL, packedcolumns.py, every cell one its column form vouches for);
  otherwise, and always for the types with no fast form (odd-scale
  DECIMAL, INT8: see ``_fast``), by a loop running the per-row decoder's
  own cell code (FixedCell lines) per cell;
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
work; the next run starts at the size last taken whole (a shape's runs are
usually whole replies), back at 32 after a run stopped by such a tuple.
"""

from __future__ import annotations

import functools
import math
import re
import struct
import sys
from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, repeat

from .civilblock import CivilColumn, date_column, datetime_column
from .codegen import FixedCell, compile_function, indent
from .packedcells import temporal_head, temporal_layout
from .packedcolumns import packed_column
from .scalars import INT_NULL, INT_STRUCT, TRUE_BYTES
from .textblock import TextGroup, text_group
from .typeinfo import ColumnType, TypeCode

__all__ = ["block_hook", "block_columns"]

# A column converter: the field columns of one cell -> its values (any
# iterable, consumed once), or None when the column is not in its clean form.
Fast = Callable[[list, int], Iterable | None]
Column = Callable[[list, int], Iterable]

_HEAD = struct.Struct("!hhI").unpack_from
# Blocks grow from 32 tuples by 4x up to 8192 (a block's temporaries stay
# a few hundred KB whatever the fetch buffer size).
_FIRST_BLOCK, _GROWTH, _MOST_BLOCK = 32, 4, 8192
_NO_BLOCK = (TypeCode.BYTE, TypeCode.TEXT)   # descriptors: their values come later


def block_hook(columns: Sequence[ColumnType], cells: Sequence[FixedCell | None], ns: dict,
               decode_row: Callable, utf8: bool) -> Callable | None:
    """The ``bulk`` hook of ``decode_row`` (see messages.parse_reply) for a
    shape of fixed-width columns, or None for other shapes.  ``cells`` are
    the per-row decoder's cells, ``ns`` the namespace their code runs in."""
    if not columns or None in cells or any(c.code in _NO_BLOCK for c in columns) \
            or not _ARRAYS_FIT:
        return None
    width = struct.calcsize("!" + "".join(cell.fmt for cell in cells))
    return _Block(width, *block_plan(columns, cells, ns, utf8, 8, 8 + width + (width & 1)),
                  decode_row=decode_row).bulk


def block_plan(columns: Sequence[ColumnType], cells: Sequence[FixedCell], ns: dict,
               utf8: bool, at: int, stride: int) -> tuple[list, TextGroup | None, list[int]]:
    """(column converters, CHAR text group, its column indexes) of rows of
    ``stride`` bytes whose cells start at offset ``at``: a tuple's (at 8,
    after its head), or booleanrun.py's fixed cells joined (at 0)."""
    plan, texts = [], []
    for k, (ctype, cell) in enumerate(zip(columns, cells)):
        fields = []
        for count, letter in _FIELD.findall(cell.fmt):
            size = struct.calcsize(f"!{count}{letter}")
            fields.append((at, letter, size))
            at += size
        whole = _civil(ctype, cell) or _packed(ctype, fields[0][0], stride) or \
            _boolean(ctype)
        if whole is not None:
            plan.append(_whole_column(whole, cell, k, ns, fields, stride))
        else:
            plan.append((_column(ctype, cell, k, ns, utf8, fields, stride), fields))
        if ctype.code in (TypeCode.CHAR, TypeCode.NCHAR):
            texts.append((k, fields[0][0], fields[0][2]))
    group = text_group([(at, size) for _, at, size in texts], len(columns), stride,
                       ns["_enc"], utf8)
    members = [k for k, _, _ in texts] if group is not None else []
    return plan, group, members


def block_columns(columns: Sequence[ColumnType], cells: Sequence[FixedCell], ns: dict,
                  utf8: bool, stride: int) -> Callable[[bytes, int], list]:
    """``columns(data, n)``: the value columns (iterables) of n rows of
    ``stride`` bytes holding these cells and nothing else (booleanrun.py's
    fixed cells, cut out of their tuples); raising on a cell no form reads."""
    plan, group, members = block_plan(columns, cells, ns, utf8, 0, stride)
    return _Block(stride, plan, group, members, stride=stride).columns


# struct letters of a cell's format: "B", "H", "20s", ...
_FIELD = re.compile(r"(\d*)([a-zA-Z])")
# Multi-byte fields are gathered big-endian and read as arrays of these.
_ARRAY_CODES = {"h": 2, "H": 2, "i": 4, "I": 4, "q": 8, "d": 8, "f": 4}
_ARRAYS_FIT = all(array(code).itemsize == size for code, size in _ARRAY_CODES.items())
_SWAP = sys.byteorder == "little"


def _field(data: bytes, at: int, letter: str, size: int, stride: int, n: int) -> object:
    """One field of every row of ``data`` (n rows of ``stride`` bytes): bytes
    of ints for "B"; for "Ns" a ``_BytesField`` (its values as the per-row
    struct read gives them, or the block's bytes, as the converter needs);
    an array for the multi-byte numbers, gathered by strided slice copies
    and read big-endian: no Python object per value."""
    if letter == "B":
        return data[at::stride]
    if letter == "s":
        return _BytesField(data, at, size, stride)
    col = array(letter, _gather(data, at, size, stride, n))
    if _SWAP:
        col.byteswap()
    return col


def _gather(data: bytes, at: int, size: int, stride: int, n: int) -> bytearray:
    """The ``size`` bytes at ``at`` of each of n rows, end to end, by one
    strided slice copy per byte of the field."""
    gathered = bytearray(n * size)
    for j in range(size):
        gathered[j::size] = data[at + j::stride]
    return gathered


class _BytesField:
    """A bytes field of a block, taken out only in the form asked for."""

    __slots__ = ("data", "at", "size", "stride")

    def __init__(self, data: bytes, at: int, size: int, stride: int) -> None:
        self.data, self.at, self.size, self.stride = data, at, size, stride

    def values(self) -> list[bytes]:
        """Each row's bytes (one iter_unpack skipping the rest of the row)."""
        unpack = _bytes_struct(self.at, self.size, self.stride).iter_unpack
        return list(chain.from_iterable(unpack(self.data)))

    def first_bytes(self) -> bytes:
        return self.data[self.at::self.stride]

    def joined(self) -> bytearray:
        """The rows' bytes end to end (for narrow fields: a copy per byte)."""
        return _gather(self.data, self.at, self.size, self.stride,
                       len(self.data) // self.stride)


@functools.lru_cache(maxsize=1024)
def _bytes_struct(at: int, size: int, stride: int) -> struct.Struct:
    """A row's bytes field at ``at``, the rest of the stride skipped."""
    return struct.Struct(f"{at}x{size}s{stride - at - size}x")


class _Block:
    """The hook of one shape: framing of runs, conversion of blocks."""

    def __init__(self, width: int, plan: list, group: TextGroup | None = None,
                 members: Sequence[int] = (), decode_row: Callable | None = None,
                 stride: int | None = None) -> None:
        self.width = width
        self.stride = 8 + width + (width & 1) if stride is None else stride
        self.plan, self.decode_row = plan, decode_row
        # the CHAR columns cut by one regex a row (textblock.py), their indexes
        self.group, self.members = group, list(members)
        self.size_bytes = struct.pack("!I", width)
        # The block size a run starts with: the last one taken whole, back
        # to _FIRST_BLOCK when a block stops at a tuple this hook leaves.
        # Each block costs ~1-2 us a column to set up, so runs of whole
        # replies that restarted at 32 rows paid it 3-5 times a reply
        # (~5-25 ns a cell).  Shared by the threads using the shape: any
        # value is correct, only the speed depends on it.
        self.start = _FIRST_BLOCK

    def bulk(self, buf, pos: int, end: int, reply, max_size: int) -> int:
        """Take the run of complete, well-framed tuples at ``pos`` into
        ``reply.rows``; the offset after the rows taken (``pos``: none)."""
        width, stride = self.width, self.stride
        if width > max_size or pos + stride > end:
            return pos
        tag, warn, size = _HEAD(buf, pos)
        if tag != 14 or warn or size != width:
            return pos
        take = self.start
        while True:
            n = min((end - pos) // stride, take)
            if not n:
                return pos
            got = self._block(buf, pos, n, reply.rows)
            pos += got * stride
            if got < n:
                # a run ending at another message keeps its size; one ending
                # at a tuple left to parse_reply starts small again, so a
                # reply of alternating tuples costs no quadratic copying
                if pos + 2 <= end and buf[pos] == 0 and buf[pos + 1] == 14:
                    self.start = _FIRST_BLOCK
                return pos
            self.start = take
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
            rows.extend(self._rows(data, n))
            if len(rows) - before != n:
                # zip stops at the shortest column: a converter that lost a
                # row must not lose it silently
                raise ValueError("a column converter gave the wrong row count")
        except Exception:
            # some cell is no value of its type, or one the fast forms leave:
            # the per-row decoder answers for this block (extend may have
            # taken the rows before the one that raised)
            del rows[before:]
            return self._per_row(buf, pos, n, rows)
        return n

    def _rows(self, data: bytes, n: int) -> Iterable[tuple]:
        """The row tuples of a block's n rows (raising on a cell neither
        the fast forms nor the cell code can read).  A shape of CHARs alone
        takes its rows as the text group's regex gives them."""
        group = self.group
        if group is not None and group.whole:
            found = group.rows(data, n)
            if found is not None:
                return found
        return zip(*self.columns(data, n))

    def columns(self, data: bytes, n: int) -> list:
        """The value columns of a block's n rows: CHAR columns from the
        text group when it can cut the block (a group of every column is
        tried by ``_rows`` alone), each other column from its converter."""
        stride, group = self.stride, self.group
        cols: list = [None] * len(self.plan)
        if group is not None and not group.whole:
            texts = group.columns(data, n)
            for k, col in zip(self.members, texts or ()):
                cols[k] = col
        for k, (convert, fields) in enumerate(self.plan):
            if cols[k] is None:
                cols[k] = convert([_field(data, *f, stride, n) for f in fields], n)
        return cols

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

def _column(ctype: ColumnType, cell: FixedCell, k: int, ns: dict, utf8: bool,
            fields: list[tuple[int, str, int]], stride: int) -> Column:
    """Column ``k``'s converter: its fast form when the column is clean,
    else the per-row decoder's cell code run over the column."""
    loop = _cell_loop(cell, k, ns)
    if any(letter == "s" for _, letter, _ in fields):
        def slow(*cols: object) -> list:
            return loop(*[c.values() if type(c) is _BytesField else c for c in cols])
    else:
        slow = loop
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


def _cell_loop(cell: FixedCell, k: int, ns: dict, tuples: bool = False) -> Callable:
    """The per-row decoder's code of one cell, run for each row of a column
    (given as one column per struct field, or with ``tuples`` as one
    iterable of each row's field tuples)."""
    raws = list(cell.raws)
    args = ["rows"] if tuples else [f"c{i}" for i in range(len(raws))]
    source = args[0] if tuples or len(raws) == 1 else f"zip({', '.join(args)})"
    names = ", ".join(raws) + "," if tuples else raws[0] if len(raws) == 1 else ", ".join(raws)
    text = _LOOP.format(args=", ".join(args), names=names, source=source,
                        lines=indent(list(cell.lines), 8), expr=cell.expr)
    return compile_function(text, dict(ns), "column")


def _civil(ctype: ColumnType, cell: FixedCell) -> CivilColumn | None:
    """DATE's and DATETIME's column-at-a-time form (civilblock.py), which
    reads the block's bytes itself, or None."""
    if ctype.code == TypeCode.DATE:
        return date_column()
    if ctype.code != TypeCode.DATETIME or cell.fmt.endswith("s"):
        return None
    layout = temporal_layout(ctype)
    if layout is None:
        return None
    return datetime_column(ctype, temporal_head(ctype), layout[3])


def _packed(ctype: ColumnType, at: int, stride: int) -> CivilColumn | None:
    """DECIMAL/MONEY's and INTERVAL's column-at-a-time form
    (packedcolumns.py), taken whole like DATE's and DATETIME's, or None."""
    packed = packed_column(ctype, at, stride)
    if packed is None:
        return None
    return lambda data, at, stride, n: packed(data, n)


def _boolean(ctype: ColumnType) -> CivilColumn | None:
    """BOOLEAN's column form: when every cell of the column is its common
    6 bytes ``00 00000001 b`` (five strided byte columns counted), each
    value is ``b in TRUE`` by one map; else None (the cell code: a NULL
    flag, or a length that is not 1, which it refuses)."""
    if ctype.code != TypeCode.BOOLEAN:
        return None

    def column(data: bytes, at: int, stride: int, n: int) -> Iterable | None:
        if any(data[at + j::stride].count(byte) != n for j, byte in _COMMON_BOOLEAN):
            return None
        return map(_IS_TRUE, data[at + 5::stride])
    return column


# (offset, byte) of a BOOLEAN cell's common head: null flag 0, length 1
_COMMON_BOOLEAN = tuple(enumerate(b"\x00\x00\x00\x00\x01"))
_IS_TRUE = frozenset(b[0] for b in TRUE_BYTES).__contains__


def _whole_column(whole: CivilColumn, cell: FixedCell, k: int, ns: dict,
                  fields: list[tuple[int, str, int]], stride: int) -> tuple[Column, list]:
    """(converter, fields) of a column taken whole (DATE/DATETIME,
    DECIMAL/MONEY, INTERVAL, BOOLEAN): the cell's bytes as one field; a column
    ``whole`` does not prove clean runs the per-row decoder's cell code over
    each row's fields, read by one struct."""
    at = fields[0][0]
    width = sum(size for _, _, size in fields)
    loop = _cell_loop(cell, k, ns, tuples=True)
    rows = struct.Struct(f"!{at}x{cell.fmt}{stride - at - width}x").iter_unpack

    def convert(f: list, n: int) -> Iterable:
        data = f[0].data
        got = whole(data, at, stride, n)
        return loop(rows(data)) if got is None else got
    return convert, [(at, "s", width)]


def _fast(ctype: ColumnType, cell: FixedCell, ns: dict, utf8: bool) -> Fast | None:
    """The column-at-a-time form of a type, where one measured faster than
    the cell code in a loop (DATE and DATETIME: ``_civil``; DECIMAL/MONEY
    and INTERVAL: packedcolumns.py).  INT8 has none: its chain of ``map``
    over ``operator`` functions (one intermediate int per stage) measured
    10-50% slower than the per-row decoder's own arithmetic run over the
    column (bench per_type.py, "tuple path, block")."""
    code = ctype.code
    if code in INT_STRUCT:
        return _integer(INT_NULL[code], INT_STRUCT[code].size)
    if code == TypeCode.FLOAT:
        return _double
    if code == TypeCode.SMALLFLOAT:
        return _real
    if code in (TypeCode.CHAR, TypeCode.NCHAR):
        return _text(ns["_enc"], utf8)
    return None


def _top_bytes(col: array, size: int) -> bytes:
    """The most significant byte of each number of ``col`` (native order)."""
    return col.tobytes()[size - 1::size] if _SWAP else col.tobytes()[::size]


def _integer(null: int, size: int) -> Fast:
    # NULL is the most negative number, top byte 0x80: only a column with
    # such a byte pays the exact test (an iteration making every int)
    return lambda f, n: None if 0x80 in _top_bytes(f[0], size) and null in f[0] else f[0]


def _double(f: list, n: int) -> Iterable | None:
    # FLOAT NULL is a NaN: any NaN takes the cell code, which tells them
    # apart.  A NaN's top byte is 0x7f or 0xff; only then the exact test.
    col = f[0]
    top = _top_bytes(col, 8)
    if (0x7F in top or 0xFF in top) and any(map(math.isnan, col)):
        return None
    return col


def _real(f: list, n: int) -> Iterable | None:
    # NULL is all-ones bytes; a first byte 0xff (NaN, or below -2**127)
    # sends the column to the cell code, which tells NULL from the rest
    field = f[0]
    return None if 0xFF in field.first_bytes() else struct.unpack(f"!{n}f", field.joined())


def _text(encoding: str, utf8: bool) -> Fast:
    """CHAR where the text group (textblock.py) does not take the block:
    NULL is a first byte zero; else each cell's bytes decoded."""
    decode = bytes.decode

    def convert(f: list, n: int) -> Iterable | None:
        field = f[0]
        if 0 in field.first_bytes():
            return None
        return map(decode, field.values()) if utf8 else \
            map(decode, field.values(), repeat(encoding))
    return convert
