"""Generated per-shape row decoders: one SQ_TUPLE row image -> a Python tuple.

The driver's fetch loop runs these once per row, so each result-set shape
gets its own straight-line function: one struct call covers a run of
fixed-width columns together with the VARCHAR that opens or interrupts it
(a struct per text length, made on first use), NULL sentinels are compared
inline, DECIMAL/MONEY/DATETIME/INTERVAL cells are built straight from their
digit pairs by the code packedcells.py writes, and only BYTE/TEXT and
uncommon forms of a value call the converters of scalars.py.  No value is
cached: every cell costs its own decoding, whatever the data repeats.

The contract, which rowdecode_ref.py states plainly and
tests/unit/test_codec_differential.py checks on generated shapes, values and
arbitrary bytes:

* ``decode_row(buf, start)`` returns ``(row, end)`` where ``end`` is the
  offset just past the last byte the row's columns used -- the caller
  compares it with the tuple's declared end, since a decoder reading one
  byte too few or too many would shift every later column silently;
* nothing past ``len(buf)`` is ever read: a row that does not fit raises
  ProtocolError (the framing is wrong, so is the stream);
* bytes that frame correctly but are no value of the column's type (text
  invalid in the code set, a base-100 digit over 99, February 30th) raise
  DataError -- the reference's, since any value the generated code cannot
  vouch for is handed with its row to the reference decoder, which then
  answers for the row (value or error; ``slow_rows`` counts such rows);
* framing is checked for the whole row before any value is converted, so a
  row that is both cut short and holds a bad value is a ProtocolError.
"""

from __future__ import annotations

import codecs
import datetime
import functools
import struct
from collections.abc import Callable, Sequence

from .codegen import SHAPE_CACHE_SIZE, FixedCell, compile_function, indent, struct_maker
from .composite import value_decoder
from .lob import DESCRIPTOR_SIZE, cell_decoder
from .packedcells import packed_cell, packed_namespace
from .booleanrun import boolean_run
from .rowblock import block_hook
from .rowdecode_ref import RowDecoder, check_encoding, reference_decoder
from .slob import cell_locator
from .scalars import (EPOCH_ORDINAL, FLOAT_STRUCT, INT, INT_NULL, INT_STRUCT, REAL, TRUE_BYTES,
                      packed_converter)
from .typeinfo import (COMPOSITE_CODES, PACKED_CODES, VARCHAR_CODES, ColumnType, TypeCode,
                       check_decodable)

__all__ = ["make_row_decoder", "RowDecoder"]

def make_row_decoder(columns: Sequence[ColumnType], encoding: str = "iso-8859-1",
                     composite_rows: str = "tuple") -> RowDecoder:
    """Client side: a function decoding one row image at an offset into
    ``(row, end_offset)``.  Build it once per result-set shape.

    Python values: SMALLINT/INTEGER/SERIAL/BIGINT/BIGSERIAL/INT8/SERIAL8 ->
    int; SMALLFLOAT/FLOAT -> float; DECIMAL/MONEY -> Decimal at the column's
    scale (floating DECIMAL(p) -> the exact digits, fraction zeros dropped);
    CHAR/NCHAR -> str blank-padded to the column width; VARCHAR/NVARCHAR/
    LVARCHAR -> str; BOOLEAN -> bool; DATE -> date; DATETIME -> datetime,
    or date for qualifiers ending by DAY, or time for qualifiers starting at
    HOUR or later (missing leading fields read as 2000-01-01); INTERVAL ->
    timedelta, or IntervalYM for YEAR/MONTH qualifiers; ROW/SET/MULTISET/
    LIST as codec/composite.py says (a ROW as a named tuple, or a dict when
    ``composite_rows`` is ``"dict"``); NULL -> None.
    A row that does not fit the buffer raises ProtocolError, a value that
    its bytes cannot be raises DataError (see the module docstring).
    """
    check_encoding(encoding)
    return _compiled_decoder(tuple(columns), encoding, composite_rows)


_FLAG_LEN = struct.Struct("!Bi").unpack_from
# [tag][sqlwarn flags][size] of an SQ_TUPLE, the size unsigned (messages.py)
_TUPLE_HEAD = struct.Struct("!hhI").unpack_from
_SMALLFLOAT_NULL = b"\xff" * 4
_DOUBLE_NULL = b"\xff" * 8
# Bound by assignment: CPython 3.11 calls a method of an imported name
# through a bound-method object, slower on these per-cell paths.
_real_unpack = REAL.unpack
_double_pack = FLOAT_STRUCT[TypeCode.FLOAT].pack
# a BOOLEAN's first byte values that read as true
_TRUE_INTS = frozenset(b[0] for b in TRUE_BYTES)


def _double_nan_or_null(value: float) -> float | None:
    """FLOAT NULL is all-ones bytes, a NaN; a double keeps its bits through
    a Python float, so only NaNs need their bytes compared."""
    return None if _double_pack(value) == _DOUBLE_NULL else value


# Framing runs first (the body), values are converted after it (the
# conversions, then the return expression), so a value error always comes
# after the whole row framed.  A value the fast code cannot vouch for raises
# there (see packedcells.py) and the reference decoder answers for the row:
# the same value, or the error it words, naming the column.
_DECODER = """\
def decode_row(buf, start=0, stop=None):
    pos = start
    try:
{body}        return {row}, pos
    except (StructError, IndexError) as exc:
        raise ProtocolError(f"row image ends early: {{exc}}") from exc
    except (ValueError, ArithmeticError, TypeError, DataError):
        return _slow_row(_reference, buf, start, stop)
    except AttributeError:
        if type(buf) is not memoryview:
            raise
        # A memoryview slice has no decode(): use a bytes copy of the rest.
        row, end = decode_row(bytes(buf[start:]), 0, None if stop is None else stop - start)
        return row, start + end
"""

# How many rows the reference decoded for the generated decoders: only
# rows holding a value the fast code leaves to it (bytes no valid value
# has, a negative INTERVAL, a DATETIME with a shortened exponent) should.
slow_rows = 0


def _slow_row(reference: RowDecoder, buf: object, start: int, stop: int | None
              ) -> tuple[tuple, int]:
    global slow_rows
    slow_rows += 1
    return reference(buf, start, stop)


# The envelope of BOOLEAN and LVARCHAR: [null flag][int length][bytes].  Its
# bytes are kept and converted with the other cells, after all framing.
_ENVELOPE_HEAD = [
    "z = buf[pos]",
    "n = _int_at(buf, pos + 1)[0]",
    "e = pos + 5 + n",
    "if n < 0 or e > len(buf):",
    "    raise ProtocolError('an opaque-type value runs past the row image')",
]
_LVARCHAR_CELL = [*_ENVELOPE_HEAD, "{v} = None if z == 1 else buf[pos + 5:e]", "pos = e"]
# A BOOLEAN's length is 1 but for a server that says otherwise: its first
# byte, or -1 when it has none.
_BOOLEAN_CELL = [
    "z{v}, n = _flag_len(buf, pos)",
    "if n == 1:",
    "    {v} = buf[pos + 5]",
    "    pos += 6",
    "else:",
    *("    " + line for line in _ENVELOPE_HEAD[2:]),
    "    {v} = buf[pos + 5] if n else -1",
    "    pos = e",
]
_ENVELOPE_VALUES = {TypeCode.LVARCHAR: ("None if {v} is None else {v}.decode(_enc)",
                                        _LVARCHAR_CELL),
                    TypeCode.BOOLEAN: ("None if z{v} == 1 else {v} in _TRUE_INTS",
                                       _BOOLEAN_CELL),
                    # BLOB/CLOB: the locator, read through the LO routines later
                    TypeCode.BLOB: ("None if {v} is None else _Locator({v}, False)",
                                    _LVARCHAR_CELL),
                    TypeCode.CLOB: ("None if {v} is None else _Locator({v}, True)",
                                    _LVARCHAR_CELL),
                    TypeCode.JSON: ("None if {v} is None else {v}.decode(_enc)",
                                    _LVARCHAR_CELL),
                    TypeCode.BSON: ("None if {v} is None else bytes({v})", _LVARCHAR_CELL)}


def _fixed_cell(ctype: ColumnType, k: int, ns: dict) -> FixedCell | None:
    """How fixed-width column ``k`` decodes, or None for a variable-width
    column.  Helpers go into ``ns`` under names ending in ``k``."""
    code, r = ctype.code, f"r{k}"
    if code == TypeCode.DATE:
        return FixedCell("i", [r], f"None if {r} == -2147483648 else "
                         f"_fromordinal({r} + {EPOCH_ORDINAL})")
    if code in INT_STRUCT:
        null = INT_NULL[code]
        return FixedCell(INT_STRUCT[code].format[1:], [r], f"None if {r} == {null} else {r}")
    if code == TypeCode.FLOAT:
        return FixedCell("d", [r], f"{r} if {r} == {r} else _double_nan_or_null({r})")
    if code == TypeCode.SMALLFLOAT:
        # NULL by the bytes: a float32 NaN can change its bits as a Python float
        return FixedCell("4s", [r], f"None if {r} == _SMALLFLOAT_NULL else _real_unpack({r})[0]")
    if code in (TypeCode.INT8, TypeCode.SERIAL8):
        sign, low, high = f"{r}_s", f"{r}_l", f"{r}_h"
        return FixedCell("hII", [sign, low, high], f"None if {sign} == 0 else "
                         f"({high} << 32 | {low}) if {sign} > 0 else -({high} << 32 | {low})")
    if code in (TypeCode.CHAR, TypeCode.NCHAR):
        return FixedCell(f"{ctype.length}s", [r], f"None if {r}[0] == 0 else {r}.decode(_enc)")
    if code in PACKED_CODES:
        cell = packed_cell(ctype, k, ns)
        if cell is not None:
            return cell
        ns[f"_f{k}"] = packed_converter(ctype)
        return FixedCell(f"{ctype.wire_width}s", [r], f"_f{k}({r})")
    if code in (TypeCode.BYTE, TypeCode.TEXT):
        ns[f"_f{k}"] = cell_decoder(code)
        return FixedCell(f"{DESCRIPTOR_SIZE}s", [r], f"_f{k}({r})")
    return None


class _DecoderPlan:
    """Columns grouped into struct reads.  A read covers fixed-width
    columns and at most one VARCHAR (``B{0}s``, its length byte and text);
    a second VARCHAR or an opaque-type envelope starts a new read.  With
    ``head`` (the run hook) the tuple's head, read at ``at_``, opens the
    first read when the row starts with one (``fused``)."""

    def __init__(self, ns: dict, head: bool = False, prefix: str = "_u") -> None:
        self.ns, self.body, self.cells, self.conversions = ns, [], [], []
        self._prefix = prefix       # of the struct readers' names in ns
        self._fmt, self._raws = "", []
        self._varchar: tuple[int, str] | None = None
        self._head, self.fused = head, False

    def fixed(self, fmt: str, raws: list[str]) -> None:
        self._fmt += fmt
        self._raws += raws

    def varchar(self, k: int) -> None:
        if self._varchar is not None:
            self.flush()
        # where the length byte sits in the read, and its name
        self._varchar = (struct.calcsize("!" + self._fmt), f"n{k}")
        self.fixed("B{0}s", [f"n{k}", f"t{k}"])
        self.cells.append(f"None if n{k} == 1 and t{k} == b'\\x00' else t{k}.decode(_enc)")

    def statements(self, lines: list[str]) -> None:
        self.flush()
        self._head = False          # the row opens with an envelope: no read to fuse
        self.body += lines

    def flush(self) -> None:
        if not self._raws:
            return
        head, self._head = self._head, False
        self.fused = self.fused or head
        fmt = "!" + ("hhI" if head else "") + self._fmt
        raws = (["tag_", "warn_", "size_"] if head else []) + self._raws
        base = "at_" if head else "pos"
        advance = f"pos = {base} + " if head else "pos += "
        name, target = f"{self._prefix}{len(self.body)}", ", ".join(raws) + ","
        if self._varchar is None:
            packer = struct.Struct(fmt)
            self.ns[name] = packer.unpack_from
            self.body += [f"{target} = {name}(buf, {base})", f"{advance}{packer.size}"]
        else:
            cache: list = [None] * 256
            self.ns[name], self.ns[f"{name}_new"] = cache, struct_maker(
                fmt, cache, method="unpack_from")
            fixed = struct.calcsize(fmt.replace("{0}s", ""))
            offset, n = self._varchar
            offset += 8 if head else 0
            at = f"{base} + {offset}" if offset else base
            self.body += [f"{n} = buf[{at}]",
                          f"{target} = ({name}[{n}] or {name}_new({n}))(buf, {base})",
                          f"{advance}{fixed} + {n}"]
        self._fmt, self._raws, self._varchar = "", [], None


# The run hook of a shape that has no block hook (variable-width rows): the
# row decoder's own framing and conversion code inlined in one loop over a
# fetch reply's run of tuples, so a row costs no call, no (row, end) pair
# and no second pass through parse_reply's per-tuple checks.  It takes a
# tuple only when parse_reply would (tag 14, no warning flags, size within
# max_size, complete in the buffer), the code ran without raising and the
# columns ended exactly at the tuple's end; any other tuple, or any
# exception at all, ends the run *before* that tuple, so parse_reply's
# per-row path decodes it and words or records the error exactly as
# without this hook (the row is decoded again from its first byte: the
# code here has no effect but the values it builds).  The loop's own names
# end in '_', which no cell's generated code uses.
_RUN = """\
def decode_run(buf, at_, end_, reply_, max_size_):
    append_ = reply_.rows.append
    try:
        while at_ + 8 <= end_:
{body}            if tag_ != 14 or warn_ or size_ > max_size_:
                break
            stop_ = at_ + 8 + size_
            if pos != stop_ or stop_ + (size_ & 1) > end_:
                break
{conversions}            append_({row})
            at_ = stop_ + (size_ & 1)
    except Exception:
        pass
    return at_
"""
# The run's framing reads the tuple's head with the row's first struct read
# (one call a row fewer) and checks it after the row's reads, which are
# bounded by the buffer whatever the head says (a struct read past it
# raises); a row that opens with an envelope reads the head alone first.
_RUN_HEAD = ["tag_, warn_, size_ = _head(buf, at_)", "pos = at_ + 8"]


def _decoder_source(columns: tuple[ColumnType, ...], ns: dict, rows: str) -> str:
    """The row decoder's source (``_DECODER``)."""
    body, conversions, row = _decoder_parts(columns, ns, rows)
    return _DECODER.format(body=indent(body + conversions, 8), row=row)


def _run_source(columns: tuple[ColumnType, ...], ns: dict, rows: str) -> str:
    """The run hook's source (``_RUN``): the same parts in a loop.  A shape
    with BOOLEANs reads each row first as if every BOOLEAN were its common
    6 bytes (null flag, length 1, the byte), fused into the struct reads of
    its neighbours, and only a row where one is not (a NULL, a server's
    other length) is framed again the careful way (``_OPTIMISTIC``): an
    envelope's framing cost ~60 of a BOOLEAN cell's ~90 ns."""
    body, conversions, row = _decoder_parts(columns, ns, rows, head=True)
    if any(c.code == TypeCode.BOOLEAN for c in columns):
        fast, _, fast_row = _decoder_parts(columns, ns, rows, head=True, optimistic=True)
        assert fast_row == row
        checks = " and ".join(f"nb{k} == 1" for k, c in enumerate(columns)
                              if c.code == TypeCode.BOOLEAN)
        body = _OPTIMISTIC.format(fast=indent(fast, 4), checks=checks,
                                  careful=indent(body, 4)).splitlines()
    return _RUN.format(body=indent(body, 12), conversions=indent(conversions, 12), row=row)


# A row read as if every BOOLEAN were 6 bytes; a struct read or an index
# past the buffer (the lengths were not 1, so later offsets are wrong) or
# a length not 1 reads the row again the careful way, from its start.
_OPTIMISTIC = """\
try:
{fast}    fast_ = {checks}
except (StructError, IndexError, ProtocolError):
    fast_ = False
if not fast_:
{careful}"""


def _decoder_parts(columns: tuple[ColumnType, ...], ns: dict, rows: str, head: bool = False,
                   optimistic: bool = False) -> tuple[list[str], list[str], str]:
    """(framing lines, conversion lines, row expression) of a shape; the
    helpers they name go into ``ns``.  ``head``: the lines read the tuple's
    head into ``tag_, warn_, size_`` too (the run hook).  ``optimistic``:
    each BOOLEAN is read as 6 fixed bytes, its length into ``nb{k}``,
    which the caller must check is 1."""
    plan = _DecoderPlan(ns, head, "_v" if optimistic else "_u")
    for k, ctype in enumerate(columns):
        if ctype.code in COMPOSITE_CODES:
            ns[f"_cv{k}"] = value_decoder(ctype, ns["_enc"], rows)
    for k, ctype in enumerate(columns):
        check_decodable(ctype)
        cell = _fixed_cell(ctype, k, ns)
        if cell is not None:
            plan.fixed(cell.fmt, list(cell.raws))
            plan.conversions += cell.lines
            plan.cells.append(cell.expr)
        elif ctype.code in VARCHAR_CODES:
            plan.varchar(k)
        elif optimistic and ctype.code == TypeCode.BOOLEAN:
            plan.fixed("BiB", [f"zc{k}", f"nb{k}", f"c{k}"])
            plan.cells.append(_ENVELOPE_VALUES[TypeCode.BOOLEAN][0].format(v=f"c{k}"))
        elif ctype.code in COMPOSITE_CODES:
            # the text form in the opaque-type envelope (codec/composite.py)
            v = f"c{k}"
            plan.statements([line.format(v=v) for line in _LVARCHAR_CELL])
            plan.cells.append(f"None if {v} is None else _cv{k}({v})")
        elif ctype.code in _ENVELOPE_VALUES:
            value, lines = _ENVELOPE_VALUES[ctype.code]
            v = f"c{k}"
            plan.statements([line.format(v=v) for line in lines])
            plan.cells.append(value.format(v=v))
        else:
            raise ValueError(f"no row decoding for {ctype.code!r}")
    plan.flush()
    row = f"({', '.join(plan.cells)},)" if plan.cells else "()"
    body = plan.body if plan.fused or not head else _RUN_HEAD + plan.body
    return body, plan.conversions, row


@functools.lru_cache(maxsize=SHAPE_CACHE_SIZE)
def _compiled_decoder(columns: tuple[ColumnType, ...], encoding: str, rows: str
                      ) -> RowDecoder:
    ns: dict = {**packed_namespace(), "_enc": encoding, "_int_at": INT.unpack_from,
                "_flag_len": _FLAG_LEN, "_TRUE_INTS": _TRUE_INTS,
                "_fromordinal": datetime.date.fromordinal, "_real_unpack": _real_unpack,
                "_SMALLFLOAT_NULL": _SMALLFLOAT_NULL, "_double_nan_or_null": _double_nan_or_null,
                "_slow_row": _slow_row, "_Locator": cell_locator,
                "_reference": reference_decoder(columns, encoding, rows)}
    block_ns = dict(ns)
    utf8 = codecs.lookup(encoding).name == "utf-8"
    decode_row = compile_function(_for_encoding(_decoder_source(columns, ns, rows), utf8),
                                  ns, "decode_row")
    # parse_reply finds a hook taking whole runs of tuples as decode_row.bulk:
    # fixed-width shapes decode them a column at a time (rowblock.py), the
    # others through the row decoder's code inlined in a loop (_RUN)
    cells = [_block_cell(ctype, k, block_ns) for k, ctype in enumerate(columns)]
    bulk = block_hook(columns, cells, block_ns, decode_row, utf8)
    booleans = any(c.code == TypeCode.BOOLEAN for c in columns)
    if (bulk is None or booleans) and columns:
        run_ns = {**ns, "_head": _TUPLE_HEAD}
        run = compile_function(_for_encoding(_run_source(columns, run_ns, rows), utf8),
                               run_ns, "decode_run")
        # BOOLEANs beside fixed columns: tuples of one size by the block
        # decoder, NULL BOOLEANs' tuples by booleanrun.py, the rest by the run
        bulk = run if bulk is None else _block_then_run(
            bulk, boolean_run(columns, cells, block_ns, utf8), run)
    if bulk is not None:
        decode_row.bulk = bulk
    return decode_row


def _block_cell(ctype: ColumnType, k: int, ns: dict) -> FixedCell | None:
    """How column ``k`` reads in the block decoder: its fixed cell, or for
    a BOOLEAN its common 6 bytes (null flag, length 1, the byte).  A block
    is only tuples of one size, but lengths other than 1 can still sum to
    it (a 5-byte NULL beside a 7-byte cell), so a length not 1 raises and
    the per-row decoder, which frames each envelope, takes the block."""
    if ctype.code != TypeCode.BOOLEAN:
        return _fixed_cell(ctype, k, ns)
    z, n, c = f"zc{k}", f"nb{k}", f"c{k}"
    return FixedCell("BiB", [z, n, c], _ENVELOPE_VALUES[TypeCode.BOOLEAN][0].format(v=c),
                     (f"if {n} != 1:", "    raise ValueError('a BOOLEAN of another length')"))


def _block_then_run(block: Callable, boolean: Callable | None, run: Callable) -> Callable:
    """The bulk hook of a shape with BOOLEANs: the block decoder takes the
    run of tuples whose BOOLEANs all have their common 6 bytes; from the
    first other one (a NULL BOOLEAN is 5 bytes, so its tuple's size
    differs) booleanrun.py takes the tuples its pattern frames; the run
    hook takes the one tuple neither took (a BOOLEAN of another form, a
    tuple at the buffer's end) and the others are tried again after it, so
    one odd tuple does not leave the rest of the reply to the run hook."""
    def block_then_run(buf, pos: int, end: int, reply, max_size: int) -> int:
        while True:
            start = pos
            pos = block(buf, pos, end, reply, max_size)
            if boolean is not None:
                pos = boolean(buf, pos, end, reply, max_size)
            pos = run(buf, pos, _one_tuple(buf, pos, end), reply, max_size)
            if pos == start:
                return pos
    return block_then_run


def _one_tuple(buf, pos: int, end: int) -> int:
    """Where the tuple at ``pos`` ends (``end`` if it does not in the buffer)."""
    if pos + 8 > end:
        return end
    size = _TUPLE_HEAD(buf, pos)[2]
    return min(end, pos + 8 + size + (size & 1))


def _for_encoding(source: str, utf8: bool) -> str:
    """bytes.decode() without arguments is CPython's UTF-8 fast path: no
    codec-name lookup per cell (15-25 ns of a 150-byte VARCHAR's ~120)."""
    return source.replace(".decode(_enc)", ".decode()") if utf8 else source
