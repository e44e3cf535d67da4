"""The two wire forms of UDT columns, and the binary form of ROW and
collection values.

Every extended-type column -- ROW and collections, and the built-in opaque
types BOOLEAN, BLOB and CLOB -- goes to a client in its text (external,
output-function) form unless the statement's SQ_RET_TYPE asked its binary
(internal, send-function) form (docs/protocol.md 8a and 10.7): BOOLEAN as
``'t'``/``'f'`` or 1/0, a BLOB/CLOB locator as 144 hex characters or 72 raw
bytes, a composite as its literal text or the layout below.

A real server sends a composite column in one of two forms (docs/protocol.md
10.7): its text form in the opaque-type envelope, to a client that names no
wanted type (informix-driver, which never sends SQ_RET_TYPE), or its binary
form, to a client whose SQ_RET_TYPE asks type 44 (SQLSENDRECV) for the
column -- what IBM's JDBC driver does for every variable-length extended
type whose extended id is not 1, 3, 4 or 5 (*JDBC ``IfxSqli.sendType``*),
since its ``IfxRowColumn``/``IfxComplex.fromIfx`` read only that form.

The layout is learned from JDBC's reader and writer (``IfxComplex.fromIfx``
and ``toIfx``, ``IfxComplexInput``, ``IfxComplexOutput.getNestedHeader``,
``getElementOffset``, ``getUDToffset``); no server capture confirms it:

    cell    = [int n][int 0][short 0][128 bytes 0][short count]
              [count x 414-byte type entries][int 0][int data length]
              [int flags: 0x80000000 NULL, else 1][data]      n = bytes after it
    entry   = type tree in pre-order, ``level`` 0 for the column itself
    data    = elements (collection) or fields (ROW) in their row-image form,
              then, for a ROW or a collection of ROW/collection/VARCHAR/
              opaque elements, the element offsets: [int -1][offsets, last first]
    nested  = NULL: [short 1][byte 1]; else [short len][pad][int flags 1]
              [int 0][data], the pad making the flags word 8-aligned
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from informix_stream.codec import composite as cc
from informix_stream.codec.rowencode import make_tuple_encoder
from informix_stream.codec.rowencode_ref import CELL_ENCODERS, TUPLE_HEADER
from informix_stream.codec.typeinfo import (COMPOSITE_CODES, NAMED_ROW_FLAG, NOT_NULL_FLAG,
                                            XID_BOOLEAN, ColumnType, TypeCode)
from informix_stream.errors import DataError

from .statements import NOT_SUPPORTED, SqlError

SENDRECV = 44                  # SQ_RET_TYPE code asking for the binary form
# SQ_RET_TYPE codes asking an opaque column's binary form: 44 (SQLSENDRECV,
# what JDBC's sendType asks for BLOB/CLOB), 40/41 (var/fixed binary, ESQL/C's
# host variables for the internal form) and, for BOOLEAN, 45 (SQLBOOL, what
# sendType asks for extended id 5).  43 (SQLLVARCHAR) asks the text form.
_OPAQUE_BINARY = {TypeCode.BOOLEAN: frozenset({SENDRECV, 40, 41, 45}),
                  TypeCode.BLOB: frozenset({SENDRECV, 40, 41}),
                  TypeCode.CLOB: frozenset({SENDRECV, 40, 41})}
UDT_CODES = frozenset(_OPAQUE_BINARY) | COMPOSITE_CODES   # columns with two forms
_NULL_FLAG = -0x80000000       # IfxComplex.IFX_CT_NULL
_IDENT = 128                   # identifier slots in the header and entries
_INT = struct.Struct("!i")
_SHORT = struct.Struct("!h")
# Element kinds JDBC reads through the offset table (IfxComplexInput's
# constructor: a ROW, a UDT, a composite element, or VARCHAR).
_OFFSET_CODES = frozenset({TypeCode.VARCHAR, TypeCode.UDTVAR, TypeCode.UDTFIXED})
_KIND_CODE = {"SET": TypeCode.SET, "MULTISET": TypeCode.MULTISET, "LIST": TypeCode.LIST,
              "ROW": TypeCode.ROW}
# Scalars this form carries (JDBC's IfxComplexInput.readElement reads them
# in their row-image width); LVARCHAR (read as an opaque type) is not done.
_SCALARS = frozenset({TypeCode.SMALLINT, TypeCode.INTEGER, TypeCode.INT8, TypeCode.BIGINT,
                      TypeCode.FLOAT, TypeCode.SMALLFLOAT, TypeCode.DECIMAL, TypeCode.MONEY,
                      TypeCode.CHAR, TypeCode.NCHAR, TypeCode.VARCHAR, TypeCode.NVARCHAR,
                      TypeCode.BOOLEAN, TypeCode.DATE})

CellEncoder = Callable[[object], bytes]


def wants_binary(ctype: ColumnType, ret_code: int) -> bool:
    """Does an SQ_RET_TYPE code for this column ask for the binary form?"""
    if ctype.code in COMPOSITE_CODES:
        return ret_code == SENDRECV
    return ret_code in _OPAQUE_BINARY.get(ctype.code, ())


# The text form of an opaque value is an LVARCHAR's envelope (IBM: "the
# database server uses the LVARCHAR data type to transfer the external text
# representation of an opaque data type"), so rows without composite columns
# go through the compiled encoder with those columns typed as LVARCHAR.
_AS_TEXT = {TypeCode.BOOLEAN: (1, lambda v: None if v is None else ("t" if v else "f")),
            TypeCode.BLOB: (144, lambda v: None if v is None else bytes(v).hex()),
            TypeCode.CLOB: (144, lambda v: None if v is None else bytes(v).hex())}


def _text_cell(ctype: ColumnType, _encoding: str) -> CellEncoder:
    """An opaque column's text-form cell: BOOLEAN 't'/'f' (informix-driver's
    real-server capture ``00 00 00 00 01 74``, *ifxdrv
    ``_legacy_dispatch_one_column``*), a BLOB/CLOB locator as 144 hex
    characters (*ifxdrv ``_decode_lob_locator``*, measured on Informix 15)."""
    text = _AS_TEXT[ctype.code][1]

    def encode(v: object) -> bytes:
        if v is None:
            return b"\x01\x00\x00\x00\x00"
        data = text(v).encode("ascii")
        return b"\x00" + _INT.pack(len(data)) + data
    return encode


def _ident(text: str, encoding: str) -> bytes:
    raw = text.encode(encoding)[:_IDENT]
    return _SHORT.pack(len(raw)) + raw.ljust(_IDENT, b"\x00")


def _entry(level: int, name: str, code: int, length: int, xid: int, xname: str,
           encoding: str) -> bytes:
    """One 414-byte type entry (field order of IfxComplex.fromIfx)."""
    return b"".join((
        _SHORT.pack(0), _SHORT.pack(level), _SHORT.pack(0), _ident(name, encoding),
        _SHORT.pack(0), _SHORT.pack(code), _SHORT.pack(length & 0xFFFF), _INT.pack(xid),
        _SHORT.pack(0), _ident(xname, encoding), _ident("", encoding),
        _SHORT.pack(_alignment(code)), _INT.pack(0)))


def _alignment(code: int) -> int:
    """The type's alignment word (recorded by JDBC, used by nobody we know of)."""
    base = code & 0xFF
    if base in (TypeCode.FLOAT, TypeCode.INT8, TypeCode.BIGINT, *COMPOSITE_CODES):
        return 8
    if base in (TypeCode.INTEGER, TypeCode.SMALLFLOAT, TypeCode.DATE):
        return 4
    return 2 if base == TypeCode.SMALLINT else 1


def _entries(shape: cc.Shape, level: int, name: str, nullable: bool, named: str,
             encoding: str) -> list[bytes]:
    flags = 0 if nullable else NOT_NULL_FLAG
    if shape.kind == "SCALAR":
        s = shape.scalar
        if s.code not in _SCALARS:
            raise SqlError(NOT_SUPPORTED, message=f"{s.sql()} inside a ROW or collection sent "
                           "in binary form is not supported by the emulator")
        if s.code == TypeCode.BOOLEAN:
            return [_entry(level, name, TypeCode.UDTFIXED | flags, 1, XID_BOOLEAN, "boolean",
                           encoding)]
        return [_entry(level, name, s.code | flags, s.length, 0, "", encoding)]
    code = _KIND_CODE[shape.kind] | flags | (NAMED_ROW_FLAG if named else 0)
    out = [_entry(level, name, code, 0, 0, named, encoding)]
    if shape.kind == "ROW":
        for fname, sub in shape.fields:
            out += _entries(sub, level + 1, fname, sub.nullable, "", encoding)
    else:
        out += _entries(shape.element, level + 1, "", False, "", encoding)
    return out


def _uses_offsets(shape: cc.Shape) -> bool:
    """Does JDBC read this value's data through an offset table?"""
    if shape.kind == "ROW":
        return True
    element = shape.element
    if element.kind != "SCALAR":
        return True
    return element.scalar.code in _OFFSET_CODES or element.scalar.code == TypeCode.BOOLEAN


class _DataWriter:
    """Python value of a shape -> the binary data of it (without header)."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.cells: dict[ColumnType, CellEncoder] = {}

    def data(self, shape: cc.Shape, value: object) -> bytes:
        if shape.kind == "ROW":
            parts = [(sub, v) for (_, sub), v in zip(shape.fields, value, strict=True)]
        else:
            parts = [(shape.element, v) for v in value]
        out = bytearray()
        offsets = []
        for sub, v in parts:
            offsets.append(len(out))
            out += self.element(sub, v, len(out))
        if offsets and _uses_offsets(shape):
            out += _INT.pack(-1) + b"".join(_INT.pack(o) for o in reversed(offsets))
        return bytes(out)

    def element(self, shape: cc.Shape, value: object, start: int) -> bytes:
        if shape.kind == "SCALAR":
            enc = self.cells.get(shape.scalar)
            if enc is None:
                enc = self.cells[shape.scalar] = CELL_ENCODERS[shape.scalar.code](
                    shape.scalar, self.encoding)
            return enc(value)
        if value is None:
            return _SHORT.pack(1) + b"\x01"
        inner = self.data(shape, value)
        pad = 3 if (start + 3) % 8 == 0 else 11 - (start + 3) % 8   # getUDToffset
        header = bytearray(pad + 8)
        header[0:2] = _SHORT.pack(len(inner) + pad + 6)
        header[pad:pad + 4] = _INT.pack(1)
        return bytes(header) + inner


def cell_encoder(ctype: ColumnType, encoding: str) -> CellEncoder:
    """Stored canonical text (or None) -> the column's binary row-image cell.
    SqlError (not supported by the emulator) now for element types not done."""
    shape = cc.shape_of(ctype)
    named = ctype.xname if ctype.named else ""
    entries = b"".join(_entries(shape, 0, "", ctype.nullable, named, encoding))
    count = len(entries) // 414
    writer = _DataWriter(encoding)
    prefix = _INT.pack(0) + _SHORT.pack(0) + bytes(_IDENT) + _SHORT.pack(count) + entries

    def encode(text: object) -> bytes:
        if text is None:
            data, flags = b"", _NULL_FLAG
        else:
            value = cc.parse_value(shape, str(text), ordered=True)
            data, flags = writer.data(shape, value), 1
        body = prefix + _INT.pack(0) + _INT.pack(len(data)) + _INT.pack(flags) + data
        return _INT.pack(len(body)) + body
    return encode


def _column_encoder(ctype: ColumnType, binary: bool, encoding: str) -> CellEncoder:
    """One column's cell encoder in the form asked (see the module doc)."""
    if binary and ctype.code in COMPOSITE_CODES:
        return cell_encoder(ctype, encoding)
    if not binary and ctype.code in _AS_TEXT:
        return _text_cell(ctype, encoding)
    return CELL_ENCODERS[ctype.code](ctype, encoding)


def _compiled_text_encoder(columns: Sequence[ColumnType], binary: frozenset[int],
                           encoding: str) -> Callable[[Sequence[object]], bytes]:
    """tuple_encoder's fast path for rows without composite columns."""
    types, convert = list(columns), []
    for i, c in enumerate(columns):
        if c.code in _AS_TEXT and i not in binary:
            width, text = _AS_TEXT[c.code]
            types[i] = ColumnType(TypeCode.LVARCHAR, width)
            convert.append((i, text))
    fast = make_tuple_encoder(types, encoding)

    def encode(values: Sequence[object]) -> bytes:
        row = list(values)
        for i, text in convert:
            row[i] = text(row[i])
        return fast(row)
    return encode


def tuple_encoder(columns: Sequence[ColumnType], binary: frozenset[int], encoding: str
                  ) -> Callable[[Sequence[object]], bytes]:
    """One row of stored values -> its SQ_TUPLE message, the UDT columns
    whose index is in ``binary`` in the binary form, the others in the text
    form, the rest as usual."""
    if not any(c.code in COMPOSITE_CODES for c in columns):
        return _compiled_text_encoder(columns, binary, encoding)
    encoders = [_column_encoder(c, i in binary, encoding) for i, c in enumerate(columns)]
    head = TUPLE_HEADER.pack

    def encode(values: Sequence[object]) -> bytes:
        try:
            image = b"".join([enc(v) for enc, v in zip(encoders, values, strict=True)])
        except DataError:
            raise
        except (TypeError, ValueError, OverflowError, struct.error) as exc:
            raise DataError(f"row cannot be sent in binary form: {exc}") from exc
        n = len(image)
        return head(14, 0, n) + image + (b"\x00" if n & 1 else b"")
    return encode
