"""Runs of SQ_TUPLEs of a shape with BOOLEANs whose NULLs vary their size,
decoded a column at a time after one regular expression framed them.

A BOOLEAN cell is an opaque-type envelope: ``00 00000001 b`` (null flag,
length 1, the byte), a NULL ``01 00000000`` (5 bytes, as the emulator and
rowencode_ref send it; the reference decoder reads any cell flagged 1 as
NULL).  The block decoder (rowblock.py) needs tuples of one size, so a
tuple holding a NULL BOOLEAN used to end its block and the run hook
(rowdecode._RUN) framed the rest of the reply row by row, twice for a row
with a NULL: ~120 ns a cell of 8-BOOLEAN rows with 10% NULLs against ~20
without.

Here one ``re.split`` walks a run of tuples: the pattern is one tuple of
the shape (tag 14, no warning flags, the size's varying bytes as a group,
the row's body as a group, inside it each run of fixed cells a group and
each BOOLEAN an alternation of its two accepted forms with the value byte
a group, then the pad byte's presence as a group), so ``split`` gives one
flat list, a row's groups between the gaps before and after it, with no
tuple or match object per row.  The run is the rows before the first
non-empty gap.  Each column is then a slice of that list: BOOLEANs picked
from a table by one ``itemgetter`` call a column (the value byte, or None
where the NULL form matched), the fixed cells joined into rows of one
stride which rowblock.block_columns decodes as it does a fixed shape's
block.  8-BOOLEAN rows with 10% NULLs, CPU time a cell: ~160 -> ~84 ns
(bench/README.md, branch s25c), of which the split is ~40 and the table
picks ~20; two always-present 1-byte groups a BOOLEAN (flag, then value
or the NULL's length byte), joined into fixed-width rows, would avoid the
table but each group costs split ~10 ns a row.

Exactness (tests/unit/test_booleanrun.py holds it to rowdecode_ref on
generated rows and hostile bytes):

* a cell of any other form (a NULL with a byte, a length not 1, a flag
  other than 0 or 1) matches no alternative, so its tuple does not match:
  a gap, and the run stops before it;
* every row taken is checked, for the whole region at once: its size is
  its body's length (the body is its cells, so that is what the per-row
  decoder's framing check compares), and a pad was taken exactly when the
  size is odd (the pad's group: a byte followed by a message's first two
  bytes ``00 0e``/``00 0f``; no pad: the message follows at once); the
  first row failing either ends the run there;
* a tuple followed by anything else (the buffer's end) does not match, and
  any exception while converting takes nothing from the region:
  parse_reply's per-row path or the run hook then decodes those tuples as
  without this module.
"""

from __future__ import annotations

import re
import struct
import sys
from array import array
from itertools import chain
from collections.abc import Callable, Sequence
from operator import itemgetter

from .codegen import FixedCell
from .rowblock import block_columns
from .scalars import TRUE_BYTES
from .typeinfo import ColumnType, TypeCode

__all__ = ["boolean_run"]

# a tuple's head before its size: tag 14, no sqlwarn flags
_HEAD = b"\x00\x0e\x00\x00"
# a BOOLEAN: 00 00000001 (value), or the 5-byte NULL (the group is None)
_BOOLEAN = rb"(?:\x00\x00\x00\x00\x01(.)|\x01\x00\x00\x00\x00)"
# after the body: a pad byte then a message (group: its first byte, 00),
# or a message at once (no group); its tag's low byte 0e (SQ_TUPLE) or 0f
# (SQ_DONE).  A tuple followed by anything else is left to the others.
_PAD = rb"(?:.(?=(\x00)[\x0e\x0f])|(?=\x00[\x0e\x0f]))"
# a BOOLEAN's group -> its value
_VALUES = {None: None, **{bytes((b,)): bytes((b,)) in TRUE_BYTES for b in range(256)}}
_SWAP = sys.byteorder == "little"
# Regions grow from 32 tuples by 4x up to 8192, as rowblock's blocks do.
_FIRST, _GROWTH, _MOST = 32, 4, 8192


def boolean_run(columns: Sequence[ColumnType], cells: Sequence[FixedCell], ns: dict,
                utf8: bool) -> Callable | None:
    """The bulk hook part for a shape of fixed columns and BOOLEANs
    (``cells``: rowblock's cells, a BOOLEAN's as its 6-byte ``BiB``), or
    None for other shapes."""
    if not any(c.code == TypeCode.BOOLEAN for c in columns) or None in cells:
        return None
    return _Run(columns, cells, ns, utf8).bulk


class _Run:
    """The pattern and the column slices of one shape."""

    def __init__(self, columns: Sequence[ColumnType], cells: Sequence[FixedCell], ns: dict,
                 utf8: bool) -> None:
        width = struct.calcsize("!" + "".join(cell.fmt for cell in cells))
        booleans = sum(c.code == TypeCode.BOOLEAN for c in columns)
        self.width, self.longest = width, 8 + width + 1
        sizes = {(width - z).to_bytes(4, "big")[:3] for z in range(booleans + 1)}
        # the size's bytes that may differ between rows are its group
        self.kept = 1 if len(sizes) == 1 else 4
        head = _HEAD + (width.to_bytes(4, "big")[:3] if self.kept == 1 else b"")
        body, fixed, pending = [], [], 0
        for ctype, cell in zip(columns, cells):
            if ctype.code == TypeCode.BOOLEAN:
                if pending:
                    body.append(b"(.{%d})" % pending)
                    pending = 0
                body.append(_BOOLEAN)
            else:
                pending += struct.calcsize("!" + cell.fmt)
                fixed.append((ctype, cell))
        if pending:
            body.append(b"(.{%d})" % pending)
        pattern = re.escape(head) + b"(.{%d})(" % self.kept + b"".join(body) + b")" + _PAD
        self.split = re.compile(pattern, re.S).split
        # a row's slots in split's list: gap, size, body, its groups, pad
        self.slots = 4 + len(body)
        groups = range(3, 3 + len(body))
        self.booleans = [g for g, part in zip(groups, body) if part is _BOOLEAN]
        self.segments = [g for g, part in zip(groups, body) if part is not _BOOLEAN]
        # where each column's values come from: a BOOLEAN's slot, or -1 - the
        # index of a fixed column among the fixed ones
        self.order, f, slot = [], 0, iter(self.booleans)
        for ctype in columns:
            if ctype.code == TypeCode.BOOLEAN:
                self.order.append(next(slot))
            else:
                self.order.append(-1 - f)
                f += 1
        self.fixed = block_columns([c for c, _ in fixed], [cell for _, cell in fixed], ns,
                                   utf8, width - 6 * booleans) if fixed else None
        self.start = _FIRST

    def bulk(self, buf, pos: int, end: int, reply, max_size: int) -> int:
        """Take the run of tuples at ``pos`` this shape's pattern frames into
        ``reply.rows``; the offset after them (``pos``: none)."""
        if self.width > max_size:
            return pos
        take = self.start
        while pos < end:
            stop = min(end, pos + take * self.longest)
            pos = self._region(buf, pos, stop, reply.rows)
            if stop - pos >= self.longest + 2:
                # a tuple not taken though it and the 2 bytes its pad's
                # check looks at were in the region: the run ends here
                self.start = _FIRST
                return pos
            if stop == end:
                return pos
            self.start = take
            take = min(take * _GROWTH, _MOST)
        return pos

    def _region(self, buf, pos: int, stop: int, rows: list) -> int:
        """Take the tuples of buf[pos:stop] into rows; the offset after them."""
        with memoryview(buf) as view:
            flat = self.split(view[pos:stop].tobytes())
        slots = self.slots
        gaps = flat[::slots]
        n = bytes(map(bool, gaps[:-1])).find(1)
        n = len(gaps) - 1 if n < 0 else n
        if not n:
            return pos
        lens = array("I", map(len, flat[2:n * slots:slots]))
        big = array("I", lens)
        if _SWAP:
            big.byteswap()
        sizes = big.tobytes()
        want = [sizes if self.kept == 4 else sizes[3::4],
                sizes[3::4].translate(_ODD)]
        got = [b"".join(flat[1:n * slots:slots]),
               bytes(map(bool, flat[slots - 1:n * slots:slots]))]
        if got != want:
            n = min(_first_difference(a, b, self.kept if k == 0 else 1)
                    for k, (a, b) in enumerate(zip(got, want)))
            if not n:
                return pos
        before = len(rows)
        try:
            rows.extend(zip(*self._columns(flat, n)))
            if len(rows) - before != n:
                raise ValueError("a column converter gave the wrong row count")
        except Exception:
            del rows[before:]
            return pos
        return pos + 8 * n + sum(lens[:n]) + got[1][:n].count(1)

    def _columns(self, flat: list, n: int) -> list:
        """The value columns of the first n rows of split's list."""
        slots, end = self.slots, n * self.slots
        values = [_pick(flat[g:end:slots]) for g in self.booleans]
        fixed = []
        if self.fixed is not None:
            parts = [flat[g:end:slots] for g in self.segments]
            data = b"".join(parts[0] if len(parts) == 1 else chain.from_iterable(zip(*parts)))
            fixed = self.fixed(data, n)
        by_slot = dict(zip(self.booleans, values))
        return [by_slot[k] if k >= 0 else fixed[-1 - k] for k in self.order]


# a size's low byte -> 1 if odd (its tuple has a pad byte)
_ODD = bytes(b & 1 for b in range(256))


def _pick(groups: list) -> tuple | list:
    """A BOOLEAN column's values from its groups (None: the NULL form)."""
    if len(groups) == 1:
        return [_VALUES[groups[0]]]
    return itemgetter(*groups)(_VALUES)


def _first_difference(a: bytes, b: bytes, width: int) -> int:
    """The first row (of ``width`` bytes each) where a and b differ."""
    if a == b:
        return len(a) // width
    lo, hi = 0, len(a)
    while hi - lo > 1:               # a[:lo] == b[:lo], a[:hi] != b[:hi]
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid
    return lo // width
