"""SQ_BIND rows of a prepared INSERT straight to what a table stores.

A pipelining client loads a table as a run of requests ``SQ_ID k, SQ_BIND,
SQ_EXECUTE, SQ_EOT`` on one prepared ``INSERT ... VALUES (?, ...)``: our
driver's executemany, informix-driver's executemany and IBM's JDBC batches
(without IFX_USEPUT) all send that shape.  The reference path parses each
parameter into a Python value (codec.params.read_param), the column writers
turn it into the stored value and the image maker into a row image.

Most parameter blocks carry a column's cell in (almost) its row-image bytes:
an INTEGER block's data is the INTEGER cell, a DATETIME YEAR TO SECOND
block's data is the cell, a DECIMAL block's data is the cell without its
trailing zero pairs, a text block's data is a VARCHAR cell with a 2-byte
instead of a 1-byte length.  ``bind_converter(types, codec)`` generates one
function per table shape that cuts each block's cell out of the request and
reads it with put_rows' cell readers (the same generated lines an SQ_PUT row
goes through), so a clean row never becomes Python objects and its image is
its cells joined.  A block it is not sure of -- a type that is not the
column's own, NULL sent in-band, a NaN, text as long as the column or not
in the code set, a DECIMAL wider than the column, a DATETIME with a
fraction, anything malformed -- makes it decline (None), and the request is
parsed and executed the reference way, which alone decides conversions,
errors and protocol errors (tests/unit/test_bind_rows.py checks that
differentially).

``RequestReader`` is what the socket layer asks first for each request of a
burst: the messages of a BIND+EXECUTE request, its binds ``RawBind``s
holding the stored rows, or None (then messages.parse_request reads it).
Session.handle_many runs consecutive such requests as one SQLite batch, and
the pairs of a JDBC batch request (``SQ_ID k, (SQ_BIND, SQ_EXECUTE)...``).
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable, Sequence

from ..codec.rowencode import make_row_encoder
from ..codec.typeinfo import TU_SECOND, TU_YEAR, ColumnType, TypeCode
from ..messages import Bind, StmtId, Tag, parse_message
from . import put_rows
from .insert_cursor import fast_types

BindConverter = Callable[["bytes | bytearray", int], "tuple[list, int] | None"]

_STMT_BIND = struct.Struct("!hhh")          # SQ_ID, statement id, SQ_BIND
_EXECUTE_EOT = struct.pack("!hh", Tag.EXECUTE, Tag.EOT)
_EXECUTE_BIND = struct.pack("!hh", Tag.EXECUTE, Tag.BIND)
_TEXT_CODES = (TypeCode.CHAR, TypeCode.VARCHAR, TypeCode.NCHAR, TypeCode.NVARCHAR)
_FIXED_CODES = {TypeCode.SMALLINT: 2, TypeCode.INTEGER: 4, TypeCode.BIGINT: 8,
                TypeCode.DATE: 4, TypeCode.FLOAT: 8, TypeCode.SMALLFLOAT: 4}
_DECIMAL_CODES = (TypeCode.DECIMAL, TypeCode.MONEY)
# Type shorts whose NULL block is the 6-byte head alone (no extended names):
# NULL in any of them is read as None by read_param.  Our driver sends NULL
# as CHAR, JDBC and informix-driver with the column's type.
_NULL_CODES = frozenset(int(c) for c in (*_TEXT_CODES, *_FIXED_CODES, *_DECIMAL_CODES,
                                         TypeCode.DATETIME))
_B1 = tuple(bytes((n,)) for n in range(256))
_ZEROS = tuple(bytes(n) for n in range(64))
_LINE = "    "

_SOURCE = """\
def convert(b, q):
    try:
        if b[q:q + 2] != _count: return None
        q += 2
{body}
    except Exception:
        return None     # not a clean block: the reference path decides
    if q > len(b):
        return None     # a text block's pad byte is missing: truncated
    img = _join(({cells},))
    return [{values}, _head(14, 0, len(img)) + img + _pad[len(img) & 1]], q
"""


def _datetime_widths() -> dict[int, int]:
    """Qualifier short -> block length of the DATETIME blocks a YEAR TO
    SECOND cell is cut from: YEAR TO SECOND itself, and YEAR TO FRACTION(n)
    (JDBC's setTimestamp) whose fraction pairs must then all be zero."""
    widths = {}
    for end in range(TU_SECOND, TU_SECOND + 6):
        qualifier = ((14 + end - TU_SECOND) << 8) | (TU_YEAR << 4) | end
        widths[qualifier] = ColumnType(TypeCode.DATETIME, qualifier).wire_width
    return widths


_DT_WIDTHS = _datetime_widths()


# An INTEGER block our driver sends for any int that fits 32 bits also fills
# a SMALLINT (when it fits: out of range is -1214 on the reference path) or
# a BIGINT column; its NULL bit pattern is the reference's (-2**31 excluded).
_WIDENED = {TypeCode.SMALLINT: (-(2 ** 15) + 1, 2 ** 15 - 1),
            TypeCode.BIGINT: (-(2 ** 31) + 1, 2 ** 31 - 1)}


def _cell(k: int, ctype: ColumnType, codec: str, ns: dict, src: str, base: str,
          offset: int) -> list[str]:
    """put_rows' lines reading column ``k``'s cell at ``base + offset`` of
    ``src`` into ``v{k}`` (every type here has them: see ``_cutter``)."""
    plan = put_rows.Plan.at_offset(src, base, offset)
    if not put_rows.add_cell(plan, k, ctype, codec, ns):
        raise AssertionError(f"no put_rows cell for {ctype.sql()}")
    return plan.lines


def _fixed(k: int, ctype: ColumnType, codec: str, ns: dict) -> list[str]:
    """A fixed-width block's data is the cell: read where it lies."""
    size = _FIXED_CODES[ctype.code]
    lines = [f"if code == {int(ctype.code)}:",
             *_indent(_cell(k, ctype, codec, ns, "b", "q", 6)),
             f"    c{k} = b[q + 6:q + {6 + size}]",
             f"    q += {6 + size}"]
    if ctype.code in _WIDENED:
        low, high = _WIDENED[ctype.code]
        ns[f"_pack{k}"] = struct.Struct("!h" if size == 2 else "!q").pack
        lines += [f"elif code == {int(TypeCode.INTEGER)}:",
                  "    w, = _int(b, q + 6)",
                  f"    if not {low} <= w <= {high}: return None",
                  f"    c{k} = _pack{k}(w)",
                  *_indent(_cell(k, ctype, codec, ns, f"c{k}", "0", 0)),
                  "    q += 10"]
    return lines + ["else: return None"]


def _text(k: int, ctype: ColumnType, codec: str, ns: dict) -> list[str]:
    """A text block ``[short n][n bytes][pad]`` with n < 256 holds the
    VARCHAR cell ``[byte n][n bytes]`` one byte in."""
    return ["if code not in _TEXT or b[q + 6]: return None",
            *_cell(k, ctype, codec, ns, "b", "q", 7),
            f"c{k} = b[q + 7:pos]",
            "q = pos + (n & 1)"]


def _decimal(k: int, ctype: ColumnType, codec: str, ns: dict) -> list[str]:
    """A DECIMAL block is the cell without its trailing zero pairs."""
    width = ctype.wire_width
    return ["if code not in _DECIMAL: return None",
            "n, = _short(b, q + 6)",
            f"if not 2 <= n <= {width}: return None",
            f"c{k} = b[q + 8:q + 8 + n] + _Z[{width} - n]",
            f"if len(c{k}) != {width}: return None",
            *_cell(k, ctype, codec, ns, f"c{k}", "0", 0),
            "q += 8 + n + (n & 1)"]


def _datetime(k: int, ctype: ColumnType, codec: str, ns: dict) -> list[str]:
    """A YEAR TO SECOND block is the cell; YEAR TO FRACTION(n) with a zero
    fraction, the cell and zero pairs."""
    return [f"if code != {int(TypeCode.DATETIME)}: return None",
            "n, = _short(b, q + 6)",
            "if _DT.get(prec & 0xFFFF) != n: return None",
            "if n > 8 and b[q + 16:q + 8 + n] != _Z[n - 8]: return None",
            *_cell(k, ctype, codec, ns, "b", "q", 8),
            f"c{k} = b[q + 8:q + 16]",
            "q += 8 + n + (n & 1)"]


def _cutter(ctype: ColumnType, codec: str):
    """The line maker for a non-NULL block of this column, or None."""
    code = ctype.code
    if code in _FIXED_CODES:
        return _fixed
    if code in (TypeCode.VARCHAR, TypeCode.NVARCHAR) and codec in put_rows.ROUND_TRIP_CODECS:
        return _text
    if code in _DECIMAL_CODES and ctype.scale is not None and ctype.precision >= ctype.scale:
        return _decimal
    if put_rows.is_year_to_second(ctype):
        return _datetime
    return None


def _indent(lines: list[str]) -> list[str]:
    return [_LINE + line for line in lines]


def _column_lines(k: int, ctype: ColumnType, codec: str, ns: dict) -> list[str] | None:
    """Read block ``k``: NULL, or its cell (``c{k}``, the image's piece)
    read by put_rows' lines.  A non-NULL block whose cell reads as NULL (an
    in-band NULL, a NaN of the NULL bits) is the reference's to read."""
    cut = _cutter(ctype, codec)
    if cut is None:
        return None
    ns[f"_N{k}"] = make_row_encoder([ctype], codec)([None])
    return (["code, ind, prec = _head6(b, q)",
             "if ind:",
             "    if ind != -1 or code not in _NULLS: return None",
             f"    c{k}, v{k} = _N{k}, None",
             "    q += 6",
             "else:"]
            + _indent(cut(k, ctype, codec, ns))
            + [f"    if v{k} is None: return None"])


def bind_converter(types: Sequence[ColumnType], codec: str) -> BindConverter | None:
    """``convert(buf, at) -> ([stored values..., image], end) | None`` for an
    SQ_BIND body (its count first) binding these column types in order; None
    when a column has no fast cell (every row then takes the reference way)."""
    if not types:
        return None
    ns = put_rows.namespace(codec)
    ns.update(_count=struct.pack("!h", len(types)), _head6=struct.Struct("!hhh").unpack_from,
              _short=struct.Struct("!h").unpack_from, _int=struct.Struct("!i").unpack_from,
              _TEXT=frozenset(map(int, _TEXT_CODES)),
              _DECIMAL=frozenset(map(int, _DECIMAL_CODES)), _NULLS=_NULL_CODES, _B1=_B1,
              _Z=_ZEROS, _DT=_DT_WIDTHS, _join=b"".join)
    lines: list[str] = []
    for k, ctype in enumerate(types):
        column = _column_lines(k, ctype, codec, ns)
        if column is None:
            return None
        lines += column
    body = "\n".join(2 * _LINE + line for line in lines)
    names = range(len(types))
    exec(_SOURCE.format(body=body, cells=", ".join(f"c{k}" for k in names),  # noqa: S102
                        values=", ".join(f"v{k}" for k in names)), ns)
    return ns["convert"]  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=64)
def cached_converter(types: tuple, codec: str) -> BindConverter | None:
    """One converter per shape, shared by every statement of that shape."""
    return bind_converter(types, codec)


class RawBind(tuple):
    """An SQ_BIND whose row the fast converter read: ``stored`` (values and
    image) for the statement shape ``shape``; ``values`` parses the message
    the reference way, only when something needs the Python values.  A
    tuple (stored, shape, the message's bytes, read_param): one is made per
    row of a load, so it is as cheap to make as Python allows."""

    __slots__ = ()

    @property
    def stored(self) -> list:
        return self[0]

    @property
    def shape(self) -> BindConverter:
        return self[1]

    @property
    def values(self) -> list:
        msg, _ = parse_message(self[2], 0, self[3])
        assert isinstance(msg, Bind)
        return msg.values


_ID, _BIND = int(Tag.ID), int(Tag.BIND)


class RequestReader:
    """Reads the clean BIND+EXECUTE requests of one burst (the session's
    statements and code set do not change while a burst is parsed; whether
    a statement still has the shape its RawBinds were read for is checked
    again when they are executed, see ``statement_converter``)."""

    def __init__(self, session, read_param) -> None:
        self._session = session
        self._read_param = read_param
        self._shapes: dict[int, tuple[BindConverter, StmtId] | None] = {}

    def read(self, buf: bytes | bytearray, pos: int) -> tuple[list, int] | None:
        """(messages, end) of the request at ``pos``, or None (then the
        request is parsed the reference way; this never raises)."""
        try:
            tag, sid, bind = _STMT_BIND.unpack_from(buf, pos)
            if tag != _ID or bind != _BIND:
                return None
            known = self._shapes.get(sid, _UNSEEN)
            if known is _UNSEEN:
                known = self._shapes[sid] = self._shape(sid)
            if known is None:
                return None
            shape, stmt_id = known
            got = shape(buf, pos + 6)
            if got is None:
                return None
            stored, end = got
            tail = buf[end:end + 4]
            messages = [stmt_id, _new_tuple(RawBind, (stored, shape, bytes(buf[pos + 4:end]),
                                                      self._read_param)), _EXECUTE]
            if tail == _EXECUTE_EOT:
                return messages, end + 4
            if tail != _EXECUTE_BIND:
                return None
            return self._more_pairs(buf, end + 2, shape, messages)
        except Exception:  # noqa: BLE001 - short or odd bytes: the reference reads them
            return None

    def _more_pairs(self, buf: bytes | bytearray, at: int, shape: BindConverter,
                    messages: list) -> tuple[list, int] | None:
        """The rest of a request of several BIND+EXECUTE pairs (IBM's JDBC
        executeBatch: SQ_ID once, then pairs up to about 32 KB, then SQ_EOT
        -- IfxSqli.sendExecute).  A pair the converter declines is parsed
        the reference way (a Bind of Python values), in its place."""
        read_param = self._read_param
        while True:
            got = shape(buf, at + 2)
            if got is None:
                msg, end = parse_message(buf, at, read_param)
                if type(msg) is not Bind:
                    return None
            else:
                stored, end = got
                msg = _new_tuple(RawBind, (stored, shape, bytes(buf[at:end]), read_param))
            messages += (msg, _EXECUTE)
            tail = buf[end:end + 4]
            if tail == _EXECUTE_EOT:
                return messages, end + 4
            if tail != _EXECUTE_BIND:
                return None
            at = end + 2

    def _shape(self, sid: int) -> tuple[BindConverter, StmtId] | None:
        st = self._session.statements.get(sid)
        shape = statement_converter(self._session, st) if st is not None else None
        return (shape, StmtId(sid)) if shape is not None else None


_UNSEEN: object = object()
_EXECUTE = Tag.EXECUTE
_new_tuple = tuple.__new__


def statement_converter(session, st) -> BindConverter | None:
    """The converter a statement's binds are read with now: its INSERT binds
    every column of a table that keeps row images made by its image maker,
    in the code set the session's text travels in (insert_cursor.fast_types);
    None otherwise.  Cached on the statement with what it depends on."""
    db = session.db
    if db is None:
        return None
    encoding = session.encoding
    key = (db, encoding)
    if st.fast_key != key:
        types = fast_types(db, st.prepared, st.columns, encoding) \
            if db.can_batch(st.prepared) else None
        st.fast_key = key
        st.fast_bind = cached_converter(types, encoding) if types is not None else None
    return st.fast_bind
