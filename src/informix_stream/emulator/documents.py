"""JSON and BSON columns in the emulator (the built-in opaque types of
Informix 12.10+; IBM Informix Guide to SQL: Syntax, "BSON and JSON built-in
opaque data types").

A JSON value is stored as its text, checked to be a JSON document; a BSON
value as its bytes, checked to be framed as one (little-endian int32 total
length, ending with a NUL byte: bsonspec.org).  Either is sent in the
opaque-type envelope (codec/rowencode_ref.py), JSON as text in the
session's code set and BSON as its bytes, which is how IBM's JDBC reads them
(it decodes a JSON value's bytes with the database's code set, as for
LVARCHAR: tests/interop/test_document_interop.py).  What a real server sends
for them is not known to us beyond that: docs/protocol.md section 10.8.

Errors: -9660 "invalid JSON document" (IBM JDBC 15.0.1.0 message catalog,
sql_en_US.properties).  Text into a BSON column without a cast is refused
with -9634 (no cast): IBM's documentation has such text cast to JSON first.
The JSON <-> BSON casts and the BSON functions (bson_get, genBSON, ...) are
not supported by the emulator.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from informix_stream.codec.typeinfo import DOCUMENT_CODES, TypeCode

from .statements import SqlError

__all__ = ["DOCUMENT_CODES", "writer", "reader"]

INVALID_JSON = -9660
NO_CAST = -9634


def writer(code: TypeCode) -> Callable[[object], object]:
    """Client value -> stored value of a JSON or BSON column."""
    return _write_json if code == TypeCode.JSON else _write_bson


def reader(code: TypeCode) -> Callable[[object], object] | None:
    """SQLite's value -> the column's Python value (BSON kept as bytes)."""
    if code == TypeCode.BSON:
        return lambda v: None if v is None else bytes(v)
    return None


def _write_json(v: object) -> object:
    if v is None:
        return None
    if isinstance(v, (bytes, bytearray, memoryview)):
        raise SqlError(NO_CAST, 0, "byte to json", "a byte string cannot be stored in JSON")
    text = v if isinstance(v, str) else str(v)
    try:
        document = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except ValueError as exc:
        raise SqlError(INVALID_JSON, 0, "", f"invalid JSON document: {exc}") from None
    if not isinstance(document, dict):
        raise SqlError(INVALID_JSON, 0, "", "invalid JSON document: a document is an object "
                                            f"of fields, not a {type(document).__name__}")
    return text


# What the server's JSON type takes is a document: "JSON and BSON documents
# contain one or more fields ... Documents can be nested within documents"
# (IBM Informix Guide to SQL: Syntax, "BSON and JSON built-in opaque data
# types"), the text form of a BSON document, whose top level is always a
# document (bsonspec.org: document ::= int32 e_list "\x00").  So a top-level
# scalar or array is no document.  Its numbers are those of JSON (RFC 8259
# has no NaN or Infinity: Python's json module takes them as an extension)
# and of BSON, whose floating number is a 64-bit IEEE 754 double: 1e400 has
# no value there.  All of these get the server's -9660 "invalid JSON
# document" (IBM JDBC 15.0.1.0 message catalog, sql_en_US.properties).  Not
# observed on a server: that an array or 1e400 is refused is read from the
# documents above, and the server's own message for each is not known.
def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text} does not fit in a double")
    return value


def _write_bson(v: object) -> object:
    if v is None:
        return None
    if not isinstance(v, (bytes, bytearray, memoryview)):
        raise SqlError(NO_CAST, 0, f"{type(v).__name__} to bson",
                       "text cannot be stored in BSON without a cast to JSON")
    data = bytes(v)
    if len(data) < 5 or int.from_bytes(data[:4], "little") != len(data) or data[-1] != 0:
        raise SqlError(INVALID_JSON, 0, "", "the value is not a BSON document")
    return data
