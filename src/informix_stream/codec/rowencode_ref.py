"""Reference row encoder: one converter per cell, plainly written.

Turns a row of Python values into the SQ_TUPLE row image the emulator
serves.  The generated encoders in rowencode.py fall back to these cell
encoders for NULLs and anything unusual, so this module alone decides
conversions and errors, and the differential tests hold the generated code
to it byte for byte.

Row image layouts: fixed-width numbers use an out-of-range value as NULL;
CHAR a leading NUL; VARCHAR a one-byte length then the bytes (NULL is
length 1 holding NUL); BOOLEAN and LVARCHAR the opaque-type envelope
[null flag][int length][bytes]; DECIMAL/MONEY/DATETIME/INTERVAL the
base-100 bytes padded with zeros to the column width (all zeros is NULL).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from ..errors import DataError
from .scalars import (FLOAT_STRUCT, INT, INT_NULL, INT_STRUCT, bcd_bytes, datetime_bytes,
                      days_since_epoch, decimal_pairs, fit_decimal, fit_encoded, int8_bytes,
                      interval_bytes, text_bytes)
from .lob import cell_encoder
from . import slob
from .typeinfo import ColumnType, TypeCode

__all__ = ["CellEncoder", "CELL_ENCODERS", "cellwise_encoder", "cellwise_tuple_encoder",
           "TUPLE_HEADER"]

CellEncoder = Callable[[object], bytes]


def _enc_int(ctype: ColumnType, encoding: str) -> CellEncoder:
    packer, null = INT_STRUCT[ctype.code], INT_NULL[ctype.code]
    null_bytes = packer.pack(null)
    to_int: Callable[[object], int] = days_since_epoch if ctype.code == TypeCode.DATE else int

    def enc(value: object) -> bytes:
        if value is None:
            return null_bytes
        try:
            n = to_int(value)
            if n == null:
                raise ValueError(n)
            return packer.pack(n)
        except (struct.error, TypeError, ValueError) as exc:
            raise DataError(f"{value!r} is out of range for {ctype.sql()}") from exc
    return enc


def _enc_int8(ctype: ColumnType, encoding: str) -> CellEncoder:
    return lambda v: bytes(10) if v is None else int8_bytes(int(v))  # type: ignore[call-overload]


def _enc_float(ctype: ColumnType, encoding: str) -> CellEncoder:
    packer = FLOAT_STRUCT[ctype.code]
    null_bytes = b"\xff" * packer.size
    return lambda v: null_bytes if v is None else packer.pack(float(v))  # type: ignore[arg-type]


def _enc_char(ctype: ColumnType, encoding: str) -> CellEncoder:
    n = ctype.length
    null_bytes = b"\x00" + b" " * (n - 1)
    return lambda v: (null_bytes if v is None
                      else fit_encoded(text_bytes(v, encoding), n, encoding).ljust(n, b" "))


def _enc_varchar(ctype: ColumnType, encoding: str) -> CellEncoder:
    n = ctype.length & 0xFF

    def enc(value: object) -> bytes:
        if value is None:
            return b"\x01\x00"
        data = fit_encoded(text_bytes(value, encoding), n, encoding)
        return bytes((len(data),)) + data
    return enc


_int_pack = INT.pack  # a plain global: see rowdecode._real_unpack


def _envelope(data: bytes | None) -> bytes:
    if data is None:
        return b"\x01\x00\x00\x00\x00"
    return b"\x00" + _int_pack(len(data)) + data


def _enc_lvarchar(ctype: ColumnType, encoding: str) -> CellEncoder:
    n = ctype.length
    return lambda v: _envelope(None if v is None
                               else fit_encoded(text_bytes(v, encoding), n, encoding))


def _enc_composite(ctype: ColumnType, encoding: str) -> CellEncoder:
    # the stored canonical text form (codec/composite.py), whole: never cut
    return lambda v: _envelope(None if v is None else text_bytes(v, encoding))


def _enc_json(ctype: ColumnType, encoding: str) -> CellEncoder:
    # a JSON document's text in the session's code set: IBM's JDBC decodes
    # a JSON column's bytes with the database's (tests/interop/test_document_interop.py)
    return lambda v: _envelope(None if v is None else text_bytes(v, encoding))


def _enc_bson(ctype: ColumnType, encoding: str) -> CellEncoder:
    return lambda v: _envelope(None if v is None else bytes(v))


def _enc_boolean(ctype: ColumnType, encoding: str) -> CellEncoder:
    # 1/0, not 't'/'f': JDBC's boolean reader only knows 1 and 0, and
    # informix-driver accepts 1 as true as well as 't'.
    return lambda v: _envelope(None if v is None else (b"\x01" if v else b"\x00"))


def _packed_encoder(ctype: ColumnType,
                    body: Callable[[object], bytes]) -> CellEncoder:
    width = ctype.wire_width
    null_bytes = bytes(width)

    def enc(value: object) -> bytes:
        if value is None:
            return null_bytes
        data = body(value)
        if len(data) > width:
            raise DataError(f"{value!r} does not fit {ctype.sql()}")
        return data.ljust(width, b"\x00")
    return enc


def _decimal_row_bytes(value: object, ctype: ColumnType) -> bytes:
    fitted = fit_decimal(value, ctype)
    if not fitted:
        return b"\xc0"  # zero: exponent 0, no significant pairs
    return bcd_bytes(*decimal_pairs(fitted))


def _enc_decimal(ctype: ColumnType, encoding: str) -> CellEncoder:
    return _packed_encoder(ctype, lambda v: _decimal_row_bytes(v, ctype))


def _enc_datetime(ctype: ColumnType, encoding: str) -> CellEncoder:
    return _packed_encoder(ctype, lambda v: datetime_bytes(v, ctype))


def _enc_interval(ctype: ColumnType, encoding: str) -> CellEncoder:
    return _packed_encoder(ctype, lambda v: interval_bytes(v, ctype))


CELL_ENCODERS: dict[TypeCode, Callable[[ColumnType, str], CellEncoder]] = {
    TypeCode.SMALLINT: _enc_int, TypeCode.INTEGER: _enc_int,
    TypeCode.SERIAL: _enc_int, TypeCode.BIGINT: _enc_int,
    TypeCode.BIGSERIAL: _enc_int, TypeCode.DATE: _enc_int,
    TypeCode.INT8: _enc_int8, TypeCode.SERIAL8: _enc_int8,
    TypeCode.FLOAT: _enc_float, TypeCode.SMALLFLOAT: _enc_float,
    TypeCode.CHAR: _enc_char, TypeCode.NCHAR: _enc_char,
    TypeCode.VARCHAR: _enc_varchar, TypeCode.NVARCHAR: _enc_varchar,
    TypeCode.LVARCHAR: _enc_lvarchar, TypeCode.BOOLEAN: _enc_boolean,
    TypeCode.DECIMAL: _enc_decimal, TypeCode.MONEY: _enc_decimal,
    TypeCode.DATETIME: _enc_datetime, TypeCode.INTERVAL: _enc_interval,
    TypeCode.BYTE: cell_encoder, TypeCode.TEXT: cell_encoder,
    TypeCode.BLOB: slob.cell_encoder, TypeCode.CLOB: slob.cell_encoder,
    TypeCode.SET: _enc_composite, TypeCode.MULTISET: _enc_composite,
    TypeCode.LIST: _enc_composite, TypeCode.ROW: _enc_composite,
    TypeCode.JSON: _enc_json, TypeCode.BSON: _enc_bson,
}


def cellwise_encoder(columns: Sequence[ColumnType], encoding: str
                     ) -> Callable[[Sequence[object]], bytes]:
    """The reference row encoder: one converter per cell.  The compiled
    encoders fall back to it for NULLs and anything unusual, so it alone
    decides conversions and errors."""
    try:
        encoders = [CELL_ENCODERS[c.code](c, encoding) for c in columns]
        columns = tuple(columns)
    except KeyError as exc:
        raise ValueError(f"no row encoding for type {exc.args[0]!r}") from None
    count = len(encoders)

    def encode_row(values: Sequence[object]) -> bytes:
        if len(values) != count:
            raise ValueError(f"row has {len(values)} values for {count} columns")
        try:
            return b"".join([enc(v) for enc, v in zip(encoders, values)])
        except _VALUE_ERRORS:
            _raise_cell_error(columns, encoders, values)
            raise
    return encode_row


# What a cell encoder's int()/float()/struct calls raise for a value of the
# wrong kind or size; they reach nobody as themselves, only as DataError.
_VALUE_ERRORS = (TypeError, ValueError, OverflowError, struct.error)


def _raise_cell_error(columns: Sequence[ColumnType], encoders: Sequence[CellEncoder],
                      values: Sequence[object]) -> None:
    """Find the cell that failed and raise DataError naming its column."""
    for k, (enc, value) in enumerate(zip(encoders, values)):
        try:
            enc(value)
        except _VALUE_ERRORS as exc:
            raise DataError(f"column {k + 1} ({columns[k].sql()}) cannot hold {value!r}: "
                            f"{exc}") from exc


TUPLE_HEADER = struct.Struct("!hhi")


def cellwise_tuple_encoder(columns: Sequence[ColumnType], encoding: str
                           ) -> Callable[[Sequence[object]], bytes]:
    encode_row = cellwise_encoder(columns, encoding)
    head = TUPLE_HEADER.pack

    def encode_tuple(values: Sequence[object]) -> bytes:
        image = encode_row(values)
        n = len(image)
        return head(14, 0, n) + image + (b"\x00" if n & 1 else b"")
    return encode_tuple


