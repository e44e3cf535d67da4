"""Informix column types as the wire describes them, and DDL type text.

``ColumnType`` is the one description of a column both ends of the wire
share: the emulator builds it from DDL (``parse_type``) and hands its
``length`` to clients unchanged; the driver builds it from DESCRIBE
(``column_type_from_describe``).  Every codec module sizes and interprets
values from it, so nothing here knows how a value is encoded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

from ..errors import NotSupportedError

__all__ = [
    "TypeCode", "NOT_NULL_FLAG", "NAMED_ROW_FLAG", "COMPOSITE_CODES", "COMPOSITE_LENGTH",
    "XID_LVARCHAR", "XID_BOOLEAN", "ColumnType",
    "XID_BLOB", "XID_CLOB", "XID_JSON", "XID_BSON", "DOCUMENT_CODES", "LOCATOR_SIZE",
    "SLOB_CODES",
    "parse_type", "qualifier", "packed_width", "column_type_from_describe",
    "PACKED_CODES", "VARCHAR_CODES", "TU_NAMES", "check_decodable",
    "TU_YEAR", "TU_MONTH", "TU_DAY", "TU_HOUR", "TU_MINUTE", "TU_SECOND", "TU_FRACTION",
]

class TypeCode(IntEnum):
    """Informix's numeric type codes (syscolumns.coltype low byte)."""

    CHAR = 0
    SMALLINT = 1
    INTEGER = 2
    FLOAT = 3
    SMALLFLOAT = 4
    DECIMAL = 5
    SERIAL = 6
    DATE = 7
    MONEY = 8
    NULL = 9
    DATETIME = 10
    BYTE = 11
    TEXT = 12
    VARCHAR = 13
    INTERVAL = 14
    NCHAR = 15
    NVARCHAR = 16
    INT8 = 17
    SERIAL8 = 18
    SET = 19
    MULTISET = 20
    LIST = 21
    ROW = 22
    UDTVAR = 40
    UDTFIXED = 41
    LVARCHAR = 43
    BOOLEAN = 45
    BIGINT = 52
    BIGSERIAL = 53
    # Smart large objects.  syscolumns says UDTFIXED + extended id; these are
    # the codes IBM's JDBC gives them internally (IfxTypes IFX_TYPE_CLOB /
    # IFX_TYPE_BLOB; IfxSqli.cleanUpFPTypeInfo maps 101/102 to xid 11/10).
    CLOB = 101
    BLOB = 102
    # The built-in opaque JSON and BSON types (Informix 12.10+).  syscolumns
    # and DESCRIBE say UDTVAR + extended id 25 / 26 (JDBC IfxTypes
    # IFX_XID_JSON / IFX_XID_BSON); these two codes are ours alone (100 +
    # the extended id) and never travel on the wire.
    JSON = 125
    BSON = 126


NOT_NULL_FLAG = 0x100
NAMED_ROW_FLAG = 0x1000   # JDBC IfxResultSetMetaData.setTypeBooleanFields: IsNamedRow
# ROW, SET, MULTISET, LIST: their type text rides in ColumnType.xname (codec/composite.py)
COMPOSITE_CODES = frozenset({19, 20, 21, 22})
# The length a composite column is described with: nominal, not a limit (the
# value is variable-length; its envelope says how long it is).
COMPOSITE_LENGTH = 2048

# Extended ids the server uses when it describes built-in "opaque" types.
XID_LVARCHAR = 1
XID_BOOLEAN = 5
XID_BLOB = 10     # informix-driver _resultset: BLOB is UDTFIXED xid 10, CLOB xid 11
XID_CLOB = 11
XID_JSON = 25     # JDBC IfxTypes.IFX_XID_JSON, IfxValue: read as text in the database's code set
XID_BSON = 26     # JDBC IfxTypes.IFX_XID_BSON, IfxValue: read as IfxUDT (its bytes)
# A smart-LOB column's row cell is its 72-byte locator (JDBC IfxLocator.IFX_LOCATOR_SIZE).
LOCATOR_SIZE = 72

# Time units of DATETIME / INTERVAL qualifiers; FRACTION(n) is TU_SECOND + n.
TU_YEAR, TU_MONTH, TU_DAY, TU_HOUR, TU_MINUTE, TU_SECOND = 0, 2, 4, 6, 8, 10
TU_FRACTION = 12  # start code of a qualifier that begins at FRACTION
TU_NAMES = {TU_YEAR: "YEAR", TU_MONTH: "MONTH", TU_DAY: "DAY",
             TU_HOUR: "HOUR", TU_MINUTE: "MINUTE", TU_SECOND: "SECOND"}
_TU_BY_NAME = {v: k for k, v in TU_NAMES.items()}

_FIXED_LENGTH = {
    TypeCode.SMALLINT: 2, TypeCode.INTEGER: 4, TypeCode.SERIAL: 4,
    TypeCode.FLOAT: 8, TypeCode.SMALLFLOAT: 4, TypeCode.DATE: 4,
    TypeCode.INT8: 10, TypeCode.SERIAL8: 10, TypeCode.BIGINT: 8,
    TypeCode.BIGSERIAL: 8, TypeCode.BOOLEAN: 1, TypeCode.BYTE: 56,
    TypeCode.TEXT: 56, TypeCode.NULL: 0, TypeCode.BLOB: 72, TypeCode.CLOB: 72,
    # JSON/BSON: nominal, as an LVARCHAR's maximum; the server keeps documents
    # up to 4 KB in the row (IBM: "BSON and JSON built-in opaque data types").
    # The value a real server describes is not known to us.
    TypeCode.JSON: 4096, TypeCode.BSON: 4096,
}
SLOB_CODES = frozenset({TypeCode.BLOB, TypeCode.CLOB})
_OPAQUE_CODE = {TypeCode.BOOLEAN: TypeCode.UDTFIXED, TypeCode.LVARCHAR: TypeCode.UDTVAR,
                TypeCode.BLOB: TypeCode.UDTFIXED, TypeCode.CLOB: TypeCode.UDTFIXED,
                TypeCode.JSON: TypeCode.UDTVAR, TypeCode.BSON: TypeCode.UDTVAR}
_OPAQUE_XID = {TypeCode.BOOLEAN: XID_BOOLEAN, TypeCode.LVARCHAR: XID_LVARCHAR,
               TypeCode.BLOB: XID_BLOB, TypeCode.CLOB: XID_CLOB,
               TypeCode.JSON: XID_JSON, TypeCode.BSON: XID_BSON}
_OPAQUE_NAME = {TypeCode.BOOLEAN: "boolean", TypeCode.LVARCHAR: "lvarchar",
                TypeCode.BLOB: "blob", TypeCode.CLOB: "clob",
                TypeCode.JSON: "json", TypeCode.BSON: "bson"}
# JSON and BSON: documents, read as str (JSON, in the session's code set, as
# IBM's JDBC decodes it) and bytes (BSON)
DOCUMENT_CODES = frozenset({TypeCode.JSON, TypeCode.BSON})
# Decimal digits of precision a DESCRIBE-style metadata consumer expects.
_NUMERIC_PRECISION = {
    TypeCode.SMALLINT: 5, TypeCode.INTEGER: 10, TypeCode.SERIAL: 10,
    TypeCode.INT8: 19, TypeCode.SERIAL8: 19, TypeCode.BIGINT: 19,
    TypeCode.BIGSERIAL: 19, TypeCode.FLOAT: 15, TypeCode.SMALLFLOAT: 7,
}
PACKED_CODES = frozenset({TypeCode.DECIMAL, TypeCode.MONEY, TypeCode.DATETIME,
                     TypeCode.INTERVAL})
VARCHAR_CODES = frozenset({TypeCode.VARCHAR, TypeCode.NVARCHAR})


def qualifier(digits: int, start: int, end: int) -> int:
    """Pack a DATETIME/INTERVAL qualifier the way collength stores it."""
    return (digits << 8) | (start << 4) | end


def packed_width(length: int) -> int:
    """Bytes of a DECIMAL/MONEY/DATETIME/INTERVAL value in a row image.

    One exponent byte plus one byte per two digits.  The odd-low-byte term
    matters for DECIMAL(p) (scale 255): both clients size it this way, so
    DECIMAL(16) is 10 bytes, not 9.
    """
    return ((length >> 8) + (length & 1) + 3) // 2


@dataclass(frozen=True, slots=True)
class ColumnType:
    """A column's type exactly as Informix encodes it in metadata.

    ``length`` is syscolumns.collength / the DESCRIBE encoded length, so the
    emulator can hand it to clients unchanged and the driver can use what the
    server sent without translation.
    """

    code: TypeCode
    length: int
    nullable: bool = True
    # ROW/SET/MULTISET/LIST only: the type as text, e.g. ``set(integer not
    # null)`` (the extended name a server describes it with); a named ROW
    # type's name when ``named`` is set.
    xname: str = ""
    named: bool = False
    # A named ROW type's fields as ``row(...)`` text, when known: the
    # emulator keeps it from CREATE ROW TYPE; a DESCRIBE carries only the name.
    row_text: str = ""
    # A named ROW type's extended id (sysxtdtypes.extended_id), described
    # with the column; 0 when not known.  Built-in opaque types take theirs
    # from the type code (``extended_id``).
    xid: int = 0

    # -- numeric and string metadata -------------------------------------
    @property
    def precision(self) -> int:
        """Digits for numbers and DATETIME/INTERVAL, max characters for text."""
        if self.code in PACKED_CODES:
            return self.length >> 8
        if self.code in VARCHAR_CODES:
            return self.length & 0xFF
        return _NUMERIC_PRECISION.get(self.code, self.length)

    @property
    def scale(self) -> int | None:
        """DECIMAL/MONEY scale; None for floating DECIMAL(p) (collength 255)."""
        if self.code in (TypeCode.DECIMAL, TypeCode.MONEY):
            s = self.length & 0xFF
            return None if s == 0xFF else s
        if self.code in (TypeCode.DATETIME, TypeCode.INTERVAL):
            return self.fraction_digits
        return 0

    @property
    def min_length(self) -> int:
        """VARCHAR's reserved length m in VARCHAR(n,m); 0 for other types."""
        return self.length >> 8 if self.code in VARCHAR_CODES else 0

    # -- DATETIME / INTERVAL qualifier -----------------------------------
    @property
    def start(self) -> int:
        """First time unit of a DATETIME/INTERVAL qualifier (TU_* code)."""
        return (self.length >> 4) & 0xF

    @property
    def end(self) -> int:
        """Last time unit; TU_SECOND + n for FRACTION(n)."""
        return self.length & 0xF

    @property
    def fraction_digits(self) -> int:
        return max(0, self.end - TU_SECOND)

    @property
    def leading_digits(self) -> int:
        """Digits of the first field: 4 for DATETIME YEAR, p in INTERVAL DAY(p)."""
        return (self.length >> 8) - (self.end - self.start)

    @property
    def is_year_month(self) -> bool:
        """An INTERVAL counted in months (YEAR TO MONTH family)."""
        return self.code == TypeCode.INTERVAL and self.start <= TU_MONTH

    # -- wire metadata ---------------------------------------------------
    @property
    def wire_code(self) -> int:
        """Type short as stored in syscolumns.coltype (NOT NULL bit included)."""
        return int(self.code) | (0 if self.nullable else NOT_NULL_FLAG)

    @property
    def describe_code(self) -> int:
        """Type short a real server puts in DESCRIBE for this column.

        BOOLEAN and LVARCHAR are described as the opaque types UDTFIXED and
        UDTVAR (with an extended id/name) and their row values carry a UDT
        envelope.  JDBC and informix-driver disagree on how a bare 43/45 is
        laid out in a row, but both read the opaque form identically.
        """
        code = _OPAQUE_CODE.get(self.code, self.code)
        return (int(code) | (0 if self.nullable else NOT_NULL_FLAG)
                | (NAMED_ROW_FLAG if self.named else 0))

    @property
    def extended_id(self) -> int:
        return self.xid or _OPAQUE_XID.get(self.code, 0)

    @property
    def extended_name(self) -> str:
        if self.code in COMPOSITE_CODES:
            return self.xname
        return _OPAQUE_NAME.get(self.code, "")

    @property
    def wire_width(self) -> int:
        """Most bytes one value of this column takes in a row image.

        Summed over the columns this is the DESCRIBE tuple size; running sums
        give the column start positions.  BYTE/TEXT rows carry the 56-byte
        blob descriptor.
        """
        code = self.code
        if code in PACKED_CODES:
            return packed_width(self.length)
        if code in VARCHAR_CODES:
            return 1 + (self.length & 0xFF)
        if code in _OPAQUE_CODE or code in COMPOSITE_CODES:
            return 5 + self.length
        return self.length

    # -- DDL -------------------------------------------------------------
    def sql(self) -> str:
        """The type as DDL text, e.g. ``DECIMAL(10,2)``."""
        if self.code in COMPOSITE_CODES:
            return self.xname.upper()
        return _SQL_RENDERERS.get(self.code, _sql_plain)(self)


def _sql_plain(t: ColumnType) -> str:
    return {TypeCode.SMALLFLOAT: "SMALLFLOAT", TypeCode.NVARCHAR: "NVARCHAR",
            TypeCode.NULL: "NULL"}.get(t.code, t.code.name)


def _sql_sized(t: ColumnType) -> str:
    return f"{t.code.name}({t.length})"


def _sql_varchar(t: ColumnType) -> str:
    name = t.code.name
    n, m = t.length & 0xFF, t.length >> 8
    return f"{name}({n},{m})" if m else f"{name}({n})"


def _sql_decimal(t: ColumnType) -> str:
    s = t.scale
    if s is None:
        return f"{t.code.name}({t.precision})"
    return f"{t.code.name}({t.precision},{s})"


def _unit_text(tu: int) -> str:
    if tu > TU_SECOND:
        return f"FRACTION({tu - TU_SECOND})"
    return TU_NAMES[tu]


def _sql_datetime(t: ColumnType) -> str:
    return f"DATETIME {_unit_text(t.start)} TO {_unit_text(t.end)}"


def _sql_interval(t: ColumnType) -> str:
    first = TU_NAMES[t.start]
    if t.start == t.end:
        return f"INTERVAL {first}({t.leading_digits}) TO {first}"
    return f"INTERVAL {first}({t.leading_digits}) TO {_unit_text(t.end)}"


_SQL_RENDERERS = {
    TypeCode.CHAR: _sql_sized, TypeCode.NCHAR: _sql_sized,
    TypeCode.LVARCHAR: _sql_sized,
    TypeCode.VARCHAR: _sql_varchar, TypeCode.NVARCHAR: _sql_varchar,
    TypeCode.DECIMAL: _sql_decimal, TypeCode.MONEY: _sql_decimal,
    TypeCode.DATETIME: _sql_datetime, TypeCode.INTERVAL: _sql_interval,
}


# ---------------------------------------------------------------------------
# DDL parsing
# ---------------------------------------------------------------------------

_SIMPLE_TYPES = {
    "SMALLINT": TypeCode.SMALLINT, "INTEGER": TypeCode.INTEGER,
    "INT": TypeCode.INTEGER, "SERIAL": TypeCode.SERIAL,
    "INT8": TypeCode.INT8, "SERIAL8": TypeCode.SERIAL8,
    "BIGINT": TypeCode.BIGINT, "BIGSERIAL": TypeCode.BIGSERIAL,
    "SMALLFLOAT": TypeCode.SMALLFLOAT, "REAL": TypeCode.SMALLFLOAT,
    "FLOAT": TypeCode.FLOAT, "DOUBLE PRECISION": TypeCode.FLOAT,
    "DATE": TypeCode.DATE, "BOOLEAN": TypeCode.BOOLEAN,
    "BYTE": TypeCode.BYTE, "TEXT": TypeCode.TEXT,
    "BLOB": TypeCode.BLOB, "CLOB": TypeCode.CLOB,
    "JSON": TypeCode.JSON, "BSON": TypeCode.BSON,
}
_DECIMAL_NAMES = {"DECIMAL": TypeCode.DECIMAL, "DEC": TypeCode.DECIMAL,
                  "NUMERIC": TypeCode.DECIMAL, "MONEY": TypeCode.MONEY}
_CHAR_NAMES = {"CHAR": TypeCode.CHAR, "CHARACTER": TypeCode.CHAR,
               "NCHAR": TypeCode.NCHAR}
_VARCHAR_NAMES = {"VARCHAR": TypeCode.VARCHAR,
                  "CHARACTER VARYING": TypeCode.VARCHAR,
                  "NVARCHAR": TypeCode.NVARCHAR}

_ARGS = r"(?:\((?P<a>\d+)(?:,(?P<b>\d+))?\))?"
_NAMED = re.compile(r"(?P<name>[A-Z][A-Z0-9]*(?:\s+(?:PRECISION|VARYING))?)"
                    + _ARGS + r"$")
_UNIT = r"(?:YEAR|MONTH|DAY|HOUR|MINUTE|SECOND|FRACTION)"
_TEMPORAL = re.compile(
    r"(?P<kind>DATETIME|INTERVAL) (?P<first>" + _UNIT + r")(?:\((?P<p>\d+)\))?"
    r" ?TO (?P<last>" + _UNIT + r")(?:\((?P<f>\d+)\))?$")


def parse_type(text: str, nullable: bool = True) -> ColumnType:
    """Build a ColumnType from DDL type text such as ``decimal(10, 2)``.

    Accepts Informix's synonyms (DEC, NUMERIC, INT, REAL, DOUBLE PRECISION,
    CHARACTER [VARYING]) and applies its defaults (CHAR -> CHAR(1), DECIMAL
    -> DECIMAL(16), MONEY -> MONEY(16,2), LVARCHAR -> LVARCHAR(2048)).
    """
    norm = re.sub(r"\s*([(),])\s*", r"\1", " ".join(text.upper().split()))
    temporal = _TEMPORAL.match(norm)
    if temporal:
        return _parse_temporal(temporal, nullable, text)
    named = _NAMED.match(norm)
    if not named:
        raise ValueError(f"not an Informix type: {text!r}")
    name, a, b = named["name"], named["a"], named["b"]
    args = tuple(int(x) for x in (a, b) if x is not None)
    return ColumnType(_parse_named(name, args, text), _length_of(name, args, text),
                      nullable)


def _parse_named(name: str, args: tuple[int, ...], text: str) -> TypeCode:
    for table in (_SIMPLE_TYPES, _DECIMAL_NAMES, _CHAR_NAMES, _VARCHAR_NAMES):
        if name in table:
            return table[name]
    if name == "LVARCHAR":
        return TypeCode.LVARCHAR
    raise ValueError(f"not an Informix type: {text!r}")


def _length_of(name: str, args: tuple[int, ...], text: str) -> int:
    """The encoded collength for a non-temporal type and its arguments."""
    def bad(why: str) -> ValueError:
        return ValueError(f"{why}: {text!r}")

    if name in _SIMPLE_TYPES:
        code = _SIMPLE_TYPES[name]
        if args and not (code == TypeCode.FLOAT and len(args) == 1):
            raise bad("type takes no size")
        return _FIXED_LENGTH[code]
    if name in _DECIMAL_NAMES:
        money = name == "MONEY"
        p = args[0] if args else 16
        s = args[1] if len(args) > 1 else (2 if money else 0xFF)
        if not 1 <= p <= 32 or (s != 0xFF and s > p):
            raise bad("invalid precision/scale")
        return (p << 8) | s
    if name in _CHAR_NAMES:
        n = args[0] if args else 1
        if len(args) > 1 or not 1 <= n <= 32767:
            raise bad("invalid CHAR length")
        return n
    if name in _VARCHAR_NAMES:
        if not args:
            raise bad("VARCHAR needs a length")
        n, m = args[0], args[1] if len(args) > 1 else 0
        if not 1 <= n <= 255 or m > n:
            raise bad("invalid VARCHAR length")
        return (m << 8) | n
    n = args[0] if args else 2048  # LVARCHAR
    if len(args) > 1 or not 1 <= n <= 32739:
        raise bad("invalid LVARCHAR length")
    return n


def _unit_code(word: str, digits: str | None, text: str) -> int:
    if word != "FRACTION":
        return _TU_BY_NAME[word]
    n = int(digits) if digits is not None else 3
    if not 1 <= n <= 5:
        raise ValueError(f"FRACTION precision must be 1..5: {text!r}")
    return TU_SECOND + n


def _parse_temporal(m: re.Match[str], nullable: bool, text: str) -> ColumnType:
    kind, first, last = m["kind"], m["first"], m["last"]
    if first == "FRACTION":
        raise ValueError(f"qualifiers starting at FRACTION are not supported: {text!r}")
    start = _TU_BY_NAME[first]
    end = _unit_code(last, m["f"], text)
    if m["f"] is not None and last != "FRACTION":
        raise ValueError(f"only FRACTION takes a precision after TO: {text!r}")
    if end < start:
        raise ValueError(f"qualifier runs backwards: {text!r}")
    if kind == "DATETIME":
        if m["p"] is not None:
            raise ValueError(f"DATETIME fields take no precision: {text!r}")
        lead = 4 if start == TU_YEAR else 2
        code = TypeCode.DATETIME
    else:
        lead = int(m["p"]) if m["p"] is not None else (4 if start == TU_YEAR else 2)
        if not 1 <= lead <= 9:
            raise ValueError(f"INTERVAL leading precision must be 1..9: {text!r}")
        if start <= TU_MONTH < end:
            raise ValueError(f"INTERVAL cannot mix months and days: {text!r}")
        code = TypeCode.INTERVAL
    digits = lead + (end - start)
    return ColumnType(code, qualifier(digits, start, end), nullable)


_OPAQUE_BY_XID = {(TypeCode.UDTFIXED, XID_BOOLEAN): TypeCode.BOOLEAN,
                  (TypeCode.UDTVAR, XID_LVARCHAR): TypeCode.LVARCHAR,
                  (TypeCode.UDTFIXED, XID_BLOB): TypeCode.BLOB,
                  (TypeCode.UDTFIXED, XID_CLOB): TypeCode.CLOB,
                  (TypeCode.UDTVAR, XID_JSON): TypeCode.JSON,
                  (TypeCode.UDTVAR, XID_BSON): TypeCode.BSON}
# Codes only an opaque type's extended id gives; a bare one on the wire is nonsense.
_CLIENT_ONLY = frozenset({TypeCode.CLOB, TypeCode.BLOB, TypeCode.JSON, TypeCode.BSON})


def column_type_from_describe(wire_type: int, extended_id: int, length: int,
                              extended_name: str = "") -> ColumnType:
    """The inverse of ``describe_code``: a described column as a ColumnType.

    Opaque built-ins (BOOLEAN, LVARCHAR) arrive as UDTFIXED/UDTVAR plus an
    extended id; anything else this driver cannot decode is refused here, at
    execute, rather than in the middle of a fetch.
    """
    base = wire_type & 0xFF
    try:
        code = TypeCode(base)
    except ValueError:
        raise NotSupportedError(f"column type {base} is not supported") from None
    if code in _CLIENT_ONLY:
        raise NotSupportedError(f"column type {base} is not supported")
    code = _OPAQUE_BY_XID.get((code, extended_id), code)
    if code in (TypeCode.UDTFIXED, TypeCode.UDTVAR):
        raise NotSupportedError(f"opaque type with extended id {extended_id} is not supported")
    if code in COMPOSITE_CODES:
        if not extended_name:
            raise NotSupportedError(f"{code.name} column described without its type text")
        named = bool(wire_type & NAMED_ROW_FLAG)
        return ColumnType(code, length, not wire_type & NOT_NULL_FLAG, extended_name,
                          named, xid=extended_id if named else 0)
    ctype = ColumnType(code, length, not wire_type & NOT_NULL_FLAG)
    try:
        check_decodable(ctype)
    except ValueError as exc:
        raise NotSupportedError(str(exc)) from None
    return ctype


def check_decodable(ctype: ColumnType) -> None:
    """Refuse a column description no value can be read against.

    A server (or a corrupted DESCRIBE) may send any length; the decoders
    size every read from it, so nonsense here must stop at execute rather
    than surface as an IndexError in the middle of a fetch.
    """
    code, length = ctype.code, ctype.length
    bad = False
    if code in (TypeCode.DECIMAL, TypeCode.MONEY):
        bad = not 1 <= length >> 8 <= 32
    elif code in (TypeCode.DATETIME, TypeCode.INTERVAL):
        start, end = ctype.start, ctype.end
        bad = (start not in TU_NAMES or not start <= end <= TU_SECOND + 5
               or not 1 <= ctype.leading_digits <= 9 or ctype.wire_width > 17)
    elif code in (TypeCode.CHAR, TypeCode.NCHAR):
        bad = length < 1
    if bad:
        raise ValueError(f"{code.name} column with encoded length 0x{length:04x} "
                         "cannot be decoded")
