"""The block path of the tuple decoder for shapes with one or two VARCHAR/
NVARCHAR cells (``[length byte][text]``) among fixed-width columns -- the
realistic tables (issue 13's sales table) that rowblock.py,
fixed strides only, leaves to the per-row decoder.

A block is a run of complete, clean SQ_TUPLEs (tag 14, no warning flags,
size <= max_size, all in the buffer).  Its tuples differ in size, so a
generated per-shape loop (``walk``) steps through them: it checks the head,
reads each VARCHAR's length byte (at a fixed offset plus the lengths
before it), compares the
row's length (fixed part + lengths) with the tuple's size -- so every cell
lies inside its tuple -- and reads all the row's fields with one struct made
for those lengths (cached).  That is the only per-row Python work.  The
fields are then transposed (``zip``) and each column converted at once:
fixed-width cells by rowblock.py's column converters (``map`` over
constructors, the per-row cell code when a column is not clean), text cells
by ``map(bytes.decode, ...)`` with the VARCHAR NULL form (length 1, byte 0)
found by C-level ``in``/``index``.

Measured (bench/README.md): the gain is the per-row decoder's call, its
inline conversions and parse_reply's per-tuple checks; the fields' Python
objects and the walk remain, so a VARCHAR shape gains less than a fixed
one (narrow table ~1.35x, sales table ~1.1x in parse_reply over fetch
buffers).  Measured slower, so left to the per-row path: shapes with more
than two VARCHARs (a struct per combination of lengths misses its cache),
LVARCHAR and BOOLEAN envelopes (8 BOOLEAN columns: ~200 vs ~92 ns a cell),
and cutting every row's fixed runs and texts out by slices into a
fixed-stride buffer (a slice costs ~80 ns, more than the struct read it
saves).

The per-row decoder (rowdecode.py) stays the reference: anything raised
while converting a block hands the block to it row by row up to the first
row it rejects, and the walk stops at the first tuple it does not frame;
parse_reply's per-row path then decodes that one and records or raises as
without this module (tests/unit/test_varblock_differential.py feeds both
the same bytes).  Blocks are capped at rowblock's 8192 tuples, so
temporaries stay bounded.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat

from .codegen import STRUCT_CACHE_SIZE, FixedCell, compile_function, indent
from .rowblock import BLOCK_SIZES, blockable, fixed_plan
from .typeinfo import VARCHAR_CODES, ColumnType

__all__ = ["var_block_hook"]

_FIRST_BLOCK, _GROWTH, _MOST_BLOCK = BLOCK_SIZES
# A tuple's head read as one number: tag 14 and no warning flags leave its
# size when this is subtracted, anything else a number out of [0, max_size].
_HEAD = struct.Struct("!Q").unpack_from
_TAG = 14 << 48
_NUL = b"\x00"
# Measured (see the module docstring): up to two VARCHARs a row the block is
# faster than the per-row decoder; with more, or with LVARCHAR/BOOLEAN
# envelopes, it was not, so those shapes keep the per-row path.
_MOST_VARIABLE = 2

# The per-tuple step, generated per shape: the tuple's head checked, the
# lengths of its variable cells read (each at a fixed offset plus the
# lengths before it; bytes, so none is negative), their sum
# with the fixed part compared with the tuple's size (so every cell lies in
# its tuple), then one struct read of the row's fields, made per lengths.
_WALK = """\
def walk(buf, pos, end, take, max_size, raws):
    append = raws.append
    for _ in range(take):
        if pos + 8 > end:
            break
        size = _head(buf, pos)[0] - _TAG
        if not 0 <= size <= max_size:
            break
        after = pos + 8 + size + (size & 1)
        if after > end:
            break
        try:
{lengths}        except (IndexError, StructError):
            break
        if {total} != size:
            break
        append((_cache.get({key}) or _new({key}))(buf, pos))
        pos = after
    return pos
"""


def var_block_hook(columns: Sequence[ColumnType], cells: Sequence[FixedCell | None], ns: dict,
                   decode_row: Callable, encoding: str, utf8: bool) -> Callable | None:
    """The ``bulk`` hook of ``decode_row`` for a shape of fixed-width and
    one or two VARCHAR/NVARCHAR columns, or None for other shapes (``cells`` as rowblock.block_hook)."""
    if not columns or not blockable(columns) or None not in cells:
        return None
    variable_codes = [c.code for c, cell in zip(columns, cells) if cell is None]
    if len(variable_codes) > _MOST_VARIABLE or any(c not in VARCHAR_CODES for c in variable_codes):
        return None
    fmt, lengths, offset, names = "8x", [], 8, []
    fields, fixed, variable = 0, [], []
    for k, (ctype, cell) in enumerate(zip(columns, cells)):
        if cell is not None:
            size = struct.calcsize("!" + cell.fmt)
            fixed.append((k, ctype, cell, list(range(fields, fields + len(cell.raws)))))
            fmt, offset, fields = fmt + cell.fmt, offset + size, fields + len(cell.raws)
            continue
        n, at = f"n{len(names)}", " + ".join([f"pos + {offset}", *names])
        lengths.append(f"{n} = buf[{at}]")
        fmt, offset = fmt + "x{}s", offset + 1
        variable.append((k, fields))
        fields += 1
        names.append(n)
    # the length bytes in one int key the struct (no tuple per row)
    key = " | ".join(f"{n} << {8 * (len(names) - 1 - i)}" for i, n in enumerate(names))
    total = " + ".join([str(offset - 8), *names])
    cache: dict = {}
    walk_ns = {"_head": _HEAD, "_TAG": _TAG,
               "_cache": cache, "_new": _struct_maker("!" + fmt, cache, len(names))}
    walk = compile_function(_WALK.format(lengths=indent(lengths, 12), total=total, key=key),
                            walk_ns, "walk")
    plan = fixed_plan([c for _, c, _, _ in fixed], [c for _, _, c, _ in fixed],
                      [k for k, *_ in fixed], ns, utf8, 0)
    converters = [(k, convert, at) for (k, *_, at), (convert, _) in zip(fixed, plan)]
    return _VarBlock(walk, converters, variable, len(columns), decode_row,
                     None if utf8 else encoding).bulk


def _struct_maker(fmt: str, cache: dict, count: int) -> Callable:
    """The row struct for one key (``count`` VARCHAR length bytes packed in
    an int), made on first use (the cache cleared when it reaches
    STRUCT_CACHE_SIZE entries)."""
    def make(key: int) -> Callable:
        if len(cache) >= STRUCT_CACHE_SIZE:
            cache.clear()
        lengths = [key >> 8 * (count - 1 - i) & 0xFF for i in range(count)]
        cache[key] = read = struct.Struct(fmt.format(*lengths)).unpack_from
        return read
    return make


class _VarBlock:
    """The hook of one shape: framing of runs, conversion of blocks."""

    def __init__(self, walk: Callable, converters: list, variable: list, ncols: int,
                 decode_row: Callable, encoding: str | None) -> None:
        self.walk, self.converters, self.variable = walk, converters, variable
        self.ncols, self.decode_row, self.encoding = ncols, decode_row, encoding

    def bulk(self, buf, pos: int, end: int, reply, max_size: int) -> int:
        """Take the run of complete, well-framed tuples at ``pos`` into
        ``reply.rows``; the offset after the rows taken (``pos``: none)."""
        take, rows = _FIRST_BLOCK, reply.rows
        while True:
            raws: list = []
            after = self.walk(buf, pos, end, take, max_size, raws)
            if not raws:
                return pos
            before = len(rows)
            try:
                rows.extend(zip(*self._columns(raws)))
            except Exception:
                # some cell is no value of its type, or one the fast forms
                # leave: the per-row decoder answers for this block
                del rows[before:]
                return self._per_row(buf, pos, len(raws), rows)
            if len(raws) < take:
                return after
            pos, take = after, min(take * _GROWTH, _MOST_BLOCK)

    def _columns(self, raws: list) -> list:
        """Every column's values over a block's rows (their fields ``raws``)."""
        n, fields = len(raws), list(zip(*raws))
        out: list = [None] * self.ncols
        for k, convert, at in self.converters:
            out[k] = convert([fields[i] for i in at], n)
        for k, texts in self.variable:
            out[k] = self._values(fields[texts])
        return out

    def _values(self, texts: Sequence[bytes]) -> Iterable:
        """A VARCHAR column's values, as the per-row decoder's cell code."""
        decode, enc = bytes.decode, self.encoding
        values = list(map(decode, texts) if enc is None else map(decode, texts, repeat(enc)))
        if _NUL in texts:                  # VARCHAR NULL: length 1, byte 0
            i = texts.index(_NUL)
            while True:
                values[i] = None
                try:
                    i = texts.index(_NUL, i + 1)
                except ValueError:
                    break
        return values

    def _per_row(self, buf, pos: int, count: int, rows: list) -> int:
        """Up to ``count`` tuples from ``pos`` through the per-row decoder, up
        to the first row it rejects (parse_reply's per-row path then takes
        that one); the offset where it stopped."""
        decode, append = self.decode_row, rows.append
        for _ in range(count):
            size = _HEAD(buf, pos)[0] - _TAG
            stop = pos + 8 + size
            try:
                row, at = decode(buf, pos + 8, stop)
            except Exception:
                return pos
            if at != stop:
                return pos
            append(row)
            pos = stop + (size & 1)
        return pos
