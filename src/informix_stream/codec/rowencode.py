"""Generated per-shape row encoders: a row of Python values -> its row image.

The emulator's serve loop runs these once per row.  Each shape's encoder is
one struct call per text length (see ``_packer_source``) with NULLs written
inline; any value it is not sure of (a NULL with no inline form, an odd
type, an out-of-range number) makes it hand the whole row to the reference
encoder in rowencode_ref.py, which alone decides conversions and errors.
bench/throughput/test_codec_speed.py measures them;
tests/unit/test_codec_differential.py holds them to the reference.
"""

from __future__ import annotations

import datetime
import functools
import struct
from collections.abc import Callable, Sequence

from .codegen import SHAPE_CACHE_SIZE, compile_function, indent, struct_maker
from .fastcells import fast_cell_encoder
from .rowencode_ref import CELL_ENCODERS, cellwise_encoder, cellwise_tuple_encoder
from .scalars import EPOCH_ORDINAL, FLOAT_STRUCT, INT_NULL, INT_STRUCT, _UTF8_NAMES, fit_encoded
from .typeinfo import COMPOSITE_CODES, VARCHAR_CODES, ColumnType, TypeCode
# Cells of variable width: the opaque-type envelope carries their length.
_VARIABLE = frozenset({TypeCode.LVARCHAR, TypeCode.BOOLEAN, TypeCode.BLOB, TypeCode.CLOB,
                       TypeCode.JSON, TypeCode.BSON,
                       *COMPOSITE_CODES})

__all__ = ["cell_width", "make_row_encoder", "make_tuple_encoder"]


def make_row_encoder(columns: Sequence[ColumnType], encoding: str = "iso-8859-1"
                     ) -> Callable[[Sequence[object]], bytes]:
    """Server side: a function turning one row of Python values into the
    SQ_TUPLE row image (without the tag and size header).

    Values are converted as the column requires (int, float, Decimal, str,
    bool, date, datetime, time, timedelta, IntervalYM); None is NULL.  Values
    that cannot be stored raise DataError; CHAR/VARCHAR text longer than the
    column is cut, as Informix does on assignment.  A BYTE or TEXT cell is
    the server's 56-byte blob descriptor (codec.lob); its contents travel
    through the blob messages.
    """
    return _compiled_encoder(tuple(columns), encoding, False)


def make_tuple_encoder(columns: Sequence[ColumnType], encoding: str = "iso-8859-1"
                       ) -> Callable[[Sequence[object]], bytes]:
    """Server side: one row as a complete SQ_TUPLE message.

    ``[short 14][short 0 warnings][int size][row image][pad to even]`` --
    what a fetch reply is made of, so a server can also keep rows in this
    form and send them without re-encoding.
    """
    return _compiled_encoder(tuple(columns), encoding, True)


_ENCODER = """\
def encode(values):
    if len(values) != {count}:
        raise ValueError(f"row has {{len(values)}} values for {count} columns")
{unpack}    try:
        if {guard}:
{body}            return {image}
    except Exception:
        pass  # an odd value: the cell-by-cell encoder decides
    return cellwise(values)
"""


class _EncoderPlan:
    """The row image as struct fields (format, argument expression).  A text
    of variable length has the format ``{0}s``, and its length is named in
    ``lengths``."""

    def __init__(self) -> None:
        self.fields: list[tuple[str, str]] = []
        self.prelude: list[str] = []
        self.guards: list[str] = []
        self.lengths: list[str] = []

    def text(self, var: str, make: str) -> None:
        self.prelude += [f"{var} = {make}", f"n{var} = len({var})"]
        self.fields.append(("{0}s", var))
        self.lengths.append(f"n{var}")


def cell_width(ctype: ColumnType) -> int | None:
    """Bytes one cell of ``ctype`` takes in the images these encoders make
    (the layout ``_plan_cell`` writes), so a server keeping images can cut
    cells out of them; None for a VARCHAR/NVARCHAR cell, whose first byte is
    its length.  ValueError for a cell of any other variable length."""
    code = ctype.code
    if code == TypeCode.DATE:
        return 4
    if code in INT_STRUCT:
        return INT_STRUCT[code].size
    if code in FLOAT_STRUCT:
        return FLOAT_STRUCT[code].size
    if code in (TypeCode.CHAR, TypeCode.NCHAR):
        return ctype.length
    if code in VARCHAR_CODES:
        return None
    if code in CELL_ENCODERS and code not in _VARIABLE:
        return 10 if code in (TypeCode.INT8, TypeCode.SERIAL8) else ctype.wire_width
    raise ValueError(f"no fixed cell layout for {code.name}")


def _float_null(packer: struct.Struct) -> float | None:
    """The NaN that packs back to FLOAT's all-ones NULL bytes, or None where
    the platform does not keep NaN payloads (then NULL takes the slow way)."""
    null_bytes = b"\xff" * packer.size
    value = packer.unpack(null_bytes)[0]
    return value if packer.pack(value) == null_bytes else None


def _plan_cell(plan: _EncoderPlan, ctype: ColumnType, k: int, ns: dict, encoding: str) -> None:
    """Add one column; NULL is written inline wherever its bytes are a
    value the struct can pack."""
    code, v = ctype.code, f"v{k}"
    if code == TypeCode.DATE:
        plan.fields.append(("i", f"-2147483648 if {v} is None else _toord({v}) - {EPOCH_ORDINAL}"))
    elif code in INT_STRUCT:
        null = INT_NULL[code]
        plan.fields.append((INT_STRUCT[code].format[1:], f"{null} if {v} is None else {v}"))
        plan.guards.append(f"{v} != {null}")
    elif code in FLOAT_STRUCT:
        packer = FLOAT_STRUCT[code]
        ns[f"_n{k}"] = _float_null(packer)
        if ns[f"_n{k}"] is None:
            plan.guards.append(f"{v} is not None")
        plan.fields.append((packer.format[1:], f"_n{k} if {v} is None else {v}"))
    elif code in (TypeCode.CHAR, TypeCode.NCHAR):
        n = ctype.length
        ns[f"_n{k}"] = b"\x00" + b" " * (n - 1)
        plan.fields.append((f"{n}s", f"_n{k} if {v} is None else "
                                     f"{_cut(f'_encode({v}, _enc)', n, encoding)}.ljust({n}, b' ')"))
    elif code in VARCHAR_CODES:
        plan.fields.append(("B", f"nt{k}"))
        cut = _cut(f"_encode({v}, _enc)", ctype.length & 0xFF, encoding)
        plan.text(f"t{k}", f"b'\\x00' if {v} is None else {cut}")
    else:
        # INT8, DECIMAL, DATETIME, ... : the cell encoder, whole.
        slow = CELL_ENCODERS[code](ctype, encoding)
        ns[f"_e{k}"] = fast_cell_encoder(ctype, slow) or slow
        if code in _VARIABLE:
            plan.text(f"t{k}", f"_e{k}({v})")
        else:
            width = 10 if code in (TypeCode.INT8, TypeCode.SERIAL8) else ctype.wire_width
            plan.fields.append((f"{width}s", f"_e{k}({v})"))


def _pack_call(fields: list[tuple[str, str]], ns: dict, name: str, length: str | None,
               fixed: int = 0, pad: bool = False) -> str:
    """Source packing ``fields``; ``length`` names the one text length they
    hold, if any.  ``pad`` appends the SQ_TUPLE even-length pad byte."""
    fmt = "!" + "".join(f for f, _ in fields)
    args = ", ".join(e for _, e in fields)
    if length is None:
        ns[name] = struct.Struct(fmt + ("x" if pad and fixed & 1 else "")).pack
        return f"{name}({args})"
    cache: dict = {}
    ns[name], ns[f"{name}_new"] = cache, struct_maker(fmt, cache, fixed, pad)
    return f"({name}.get({length}) or {name}_new({length}))({args})"


def _packer_source(plan: _EncoderPlan, ns: dict, as_tuple: bool) -> tuple[list[str], str]:
    """(statements, expression) making the row image, or the SQ_TUPLE message.

    With one text at most, the whole row is one struct per text length.
    More texts would multiply the structs, so each gets a struct of its own
    (with the fields before it), the fields after the last one another.
    """
    fixed = struct.calcsize("!" + "".join(f for f, _ in plan.fields).replace("{0}s", ""))
    lines, fields = list(plan.prelude), plan.fields
    if as_tuple:
        fields = [("hhi", "14, 0, size"), *fields]
        lines.append(f"size = {' + '.join([str(fixed), *plan.lengths])}")
    if len(plan.lengths) <= 1:
        length = plan.lengths[0] if plan.lengths else None
        return lines, _pack_call(fields, ns, "_p", length, fixed, as_tuple)
    exprs, segment, texts = [], [], iter(plan.lengths)
    for field in fields:
        segment.append(field)
        if field[0] == "{0}s":
            length = next(texts)
            # an opaque-type envelope alone is already its bytes
            alone = len(segment) == 1
            exprs.append(field[1] if alone else _pack_call(segment, ns, f"_p{len(exprs)}", length))
            segment = []
    if as_tuple:
        fmt = "!" + "".join(f for f, _ in segment)
        ns["_tail"] = (struct.Struct(fmt).pack, struct.Struct(fmt + "x").pack)
        exprs.append(f"_tail[size & 1]({', '.join(e for _, e in segment)})")
    elif segment:
        exprs.append(_pack_call(segment, ns, "_tail", None))
    return lines, " + ".join(exprs)


def _cut(expr: str, n: int, encoding: str) -> str:
    """Encoded text cut to a column's n bytes: a slice in a single-byte code
    set, at a character boundary in UTF-8."""
    return f"_fit({expr}, {n}, _enc)" if encoding in _UTF8_NAMES else f"{expr}[:{n}]"


@functools.lru_cache(maxsize=SHAPE_CACHE_SIZE)
def _compiled_encoder(columns: tuple[ColumnType, ...], encoding: str, as_tuple: bool
                      ) -> Callable[[Sequence[object]], bytes]:
    cellwise = (cellwise_tuple_encoder if as_tuple else cellwise_encoder)(columns, encoding)
    ns: dict = {"_enc": encoding, "_encode": str.encode, "_fit": fit_encoded,
                "_toord": datetime.date.toordinal, "cellwise": cellwise}
    plan = _EncoderPlan()
    for k, ctype in enumerate(columns):
        _plan_cell(plan, ctype, k, ns, encoding)
    lines, image = _packer_source(plan, ns, as_tuple)
    names = [f"v{k}" for k in range(len(columns))]
    source = _ENCODER.format(
        count=len(columns), unpack=f"    {', '.join(names)}, = values\n" if names else "",
        guard=" and ".join(plan.guards) or "True", body=indent(lines, 12), image=image)
    return compile_function(source, ns, "encode")

