"""The stable import surface of the value codecs.

The driver, the emulator, the benchmarks and users' own code import
``informix_stream.codecs``; the code lives in the ``informix_stream.codec``
package, one module per job (see its docstring).  This module only
re-exports, so that package can be rearranged without breaking anyone.

One package serves both ends of the wire: the driver decodes SQ_TUPLE rows
and encodes SQ_BIND parameters, the emulator does the reverse.  Keeping both
directions together means a layout mistake shows up as a failed round trip
in one place instead of two programs that agree with each other and with
nobody else.  See docs/protocol.md (section "Value encodings") for the byte
tables.
"""

from __future__ import annotations

from .codec.params import BlobParam, encode_param, read_param
from .codec.rowdecode import make_row_decoder
from .codec.rowencode import make_row_encoder, make_tuple_encoder
from .codec.scalars import IntervalYM
from .codec.typeinfo import (NOT_NULL_FLAG, TU_DAY, TU_FRACTION, TU_HOUR, TU_MINUTE, TU_MONTH,
                             TU_SECOND, TU_YEAR, XID_BOOLEAN, XID_LVARCHAR, ColumnType, TypeCode,
                             column_type_from_describe, packed_width, parse_type, qualifier)

__all__ = [
    "TypeCode", "NOT_NULL_FLAG", "ColumnType", "parse_type", "IntervalYM",
    "BlobParam", "make_row_encoder", "make_row_decoder", "make_tuple_encoder",
    "encode_param", "read_param", "qualifier", "packed_width", "column_type_from_describe",
    "XID_BOOLEAN", "XID_LVARCHAR",
    "TU_YEAR", "TU_MONTH", "TU_DAY", "TU_HOUR", "TU_MINUTE", "TU_SECOND", "TU_FRACTION",
]
