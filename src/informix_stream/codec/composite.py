"""ROW, SET, MULTISET and LIST: their type text, their text form on the
wire, and the Python values both ends turn them into.

A real server describes a composite column with its type code (19 SET, 20
MULTISET, 21 LIST, 22 ROW) and the type as text in the extended name, and
sends each value in the opaque-type envelope ``[null flag][int length]
[bytes]`` holding the value's *text form*: ``ROW('Alice',30)``,
``LIST{10,20,30}`` (informix-driver's ``_resultset.py`` records both from a
real Informix 15, NULL as flag 1 with length 0).  JDBC asks for a binary
form with the type information repeated per value instead (``IfxComplex``);
docs/protocol.md section 10.7 says what that is and what we do about it.

The one grammar is used both ways: the driver parses values it fetches and
writes the text of the values it binds; the emulator parses what a client
sends (constructor, quoted literal or bound text) against the column's type
and stores the canonical text, which is what it later sends.

Python values (README "Composite types"):

* ROW -> a named tuple whose fields are the ROW's field names (default),
  or a ``dict`` when the cursor's ``composite_rows`` is ``"dict"``;
* SET -> ``set``; MULTISET -> ``Multiset`` (a list that compares as a
  multiset); LIST -> ``list``;
* inside a SET elements must be hashable, so a nested SET there is a
  ``frozenset``, a nested LIST or MULTISET a ``tuple`` and a ROW always a
  named tuple (also in dict mode);
* NULL anywhere -> None.  Element types: the integer types, FLOAT,
  SMALLFLOAT, DECIMAL, MONEY, the character types, BOOLEAN, DATE (text
  ``mm/dd/yyyy``, Informix's default DBDATE) and composites; others are
  refused with NotSupportedError when the column is described.
"""

from __future__ import annotations

import collections
import datetime
import decimal
import functools
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..errors import DataError, NotSupportedError
from .typeinfo import COMPOSITE_CODES, COMPOSITE_LENGTH, ColumnType, TypeCode, parse_type

__all__ = ["Shape", "Multiset", "Row", "parse_shape", "shape_of", "composite_type",
           "value_decoder", "literal", "canonical", "COMPOSITE_CODES"]

_KINDS = {"SET": TypeCode.SET, "MULTISET": TypeCode.MULTISET, "LIST": TypeCode.LIST,
          "ROW": TypeCode.ROW}
_INT_CODES = frozenset({TypeCode.SMALLINT, TypeCode.INTEGER, TypeCode.INT8,
                        TypeCode.BIGINT})
_FLOAT_CODES = frozenset({TypeCode.FLOAT, TypeCode.SMALLFLOAT})
_DEC_CODES = frozenset({TypeCode.DECIMAL, TypeCode.MONEY})
_TEXT_CODES = frozenset({TypeCode.CHAR, TypeCode.NCHAR, TypeCode.VARCHAR, TypeCode.NVARCHAR,
                         TypeCode.LVARCHAR})
_ELEMENT_CODES = _INT_CODES | _FLOAT_CODES | _DEC_CODES | _TEXT_CODES | {
    TypeCode.BOOLEAN, TypeCode.DATE}
# IBM SQL Reference, "Collection data types" / "ROW data types": no BYTE,
# TEXT or SERIAL types inside (-9910 / -9931 in the message catalog).
_FORBIDDEN_INSIDE = frozenset({TypeCode.BYTE, TypeCode.TEXT, TypeCode.SERIAL,
                               TypeCode.SERIAL8, TypeCode.BIGSERIAL})


class Multiset(list):
    """A MULTISET value: a list in the server's order that compares equal to
    any other Multiset (or list) holding the same elements as many times."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, list):
            return NotImplemented
        if len(self) != len(other):
            return False
        try:
            return collections.Counter(self) == collections.Counter(other)
        except TypeError:  # unhashable elements: compare by sorted repr
            return sorted(map(repr, self)) == sorted(map(repr, other))

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Multiset({list.__repr__(self)})"


class Row(tuple):
    """A value to bind as an unnamed ROW: ``Row(1, 'x')``.  A plain tuple
    binds as a ROW too; the wrapper only documents intent."""

    __slots__ = ()

    def __new__(cls, *fields: object) -> Row:
        return super().__new__(cls, fields)


@dataclass(frozen=True)
class Shape:
    """A composite type's structure: kind, element or fields, scalar type."""

    kind: str                                  # SET/MULTISET/LIST/ROW/SCALAR
    scalar: ColumnType | None = None
    element: Shape | None = None
    fields: tuple[tuple[str, Shape], ...] = ()
    nullable: bool = True

    def text(self) -> str:
        """Canonical lower-case type text (the described extended name)."""
        if self.kind == "SCALAR":
            body = self.scalar.sql().lower()
        elif self.kind == "ROW":
            body = "row(" + ",".join(f"{n} {s.text()}" for n, s in self.fields) + ")"
        else:
            body = f"{self.kind.lower()}({self.element.text()})"
        return body if self.nullable else body + " not null"


# ---------------------------------------------------------------------------
# Type text
# ---------------------------------------------------------------------------

_TYPE_TOKEN = re.compile(r"\s*(?:(?P<word>[A-Za-z_][A-Za-z0-9_$]*)|(?P<num>\d+)|(?P<op>[(),]))")


def _type_tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TYPE_TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"not an Informix type: {text!r}")
        out.append(m.group().strip())
        pos = m.end()
    return out


class _TypeParser:
    def __init__(self, text: str) -> None:
        self.text, self.toks, self.i = text, _type_tokens(text), 0

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.toks[j].upper() if j < len(self.toks) else ""

    def expect(self, tok: str) -> None:
        if self.peek() != tok:
            raise ValueError(f"{tok!r} expected in type {self.text!r}")
        self.i += 1

    def shape(self) -> Shape:
        word = self.peek()
        if word in _KINDS and self.peek(1) == "(":
            self.i += 2
            if word == "ROW":
                fields = [self.field()]
                while self.peek() == ",":
                    self.i += 1
                    fields.append(self.field())
                names = [n for n, _ in fields]
                if len(set(names)) != len(names):
                    raise ValueError(f"duplicate field name in {self.text!r}")
                shape = Shape("ROW", fields=tuple(fields))
            else:
                element = self.shape()
                if element.nullable:
                    raise ValueError(f"collection elements must be NOT NULL: {self.text!r}")
                shape = Shape(word, element=element)
            self.expect(")")
        else:
            shape = self.scalar()
        if self.peek() == "NOT" and self.peek(1) == "NULL":
            self.i += 2
            shape = Shape(shape.kind, shape.scalar, shape.element, shape.fields, False)
        return shape

    def field(self) -> tuple[str, Shape]:
        name = self.toks[self.i] if self.i < len(self.toks) else ""
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", name):
            raise ValueError(f"field name expected in {self.text!r}")
        self.i += 1
        return name.lower(), self.shape()

    def scalar(self) -> Shape:
        start, depth = self.i, 0
        while self.i < len(self.toks):
            tok = self.peek()
            if depth == 0 and (tok in (",", ")") or tok == "NOT" and self.peek(1) == "NULL"):
                break
            depth += tok == "("
            depth -= tok == ")"
            self.i += 1
        words = " ".join(self.toks[start:self.i])
        ctype = parse_type(words.replace(" (", "(").replace("( ", "(").replace(" )", ")")
                           .replace(" ,", ","))
        if ctype.code in _FORBIDDEN_INSIDE:
            raise ValueError(f"{ctype.code.name} is not allowed in a ROW or collection type")
        return Shape("SCALAR", scalar=ctype)


def parse_shape(text: str) -> Shape:
    """The structure of type text such as ``SET(INT NOT NULL)`` or
    ``ROW(a INT, b LIST(VARCHAR(10) NOT NULL))``; ValueError if it is none."""
    parser = _TypeParser(text)
    shape = parser.shape()
    if parser.i != len(parser.toks) or shape.kind == "SCALAR":
        raise ValueError(f"not a ROW or collection type: {text!r}")
    return shape


def composite_type(text: str, nullable: bool = True) -> ColumnType | None:
    """A ColumnType for composite type text; None when the text names no
    composite type (then it is a scalar type, or nothing).  ValueError when
    it starts like one and is malformed."""
    head = text.lstrip().split("(", 1)[0].strip().upper()
    if head not in _KINDS:
        return None
    shape = parse_shape(text)
    return ColumnType(_KINDS[shape.kind], COMPOSITE_LENGTH, nullable and shape.nullable,
                      Shape(shape.kind, element=shape.element, fields=shape.fields).text())


@functools.lru_cache(maxsize=256)
def shape_of(ctype: ColumnType) -> Shape:
    """The Shape of a composite column type (from its extended name, or a
    named ROW type's ``row_text``).  A named ROW type known by name only is
    refused: a cursor fills its fields in from sysattrtypes first
    (core/named_rows.py); the paths that do not (Arrow, insert cursors) stop here."""
    if ctype.named and not ctype.row_text:
        raise NotSupportedError(f"named ROW type {ctype.xname!r}: its fields are in "
                                "sysattrtypes, not in the DESCRIBE, and this path does not "
                                "look them up (read it with a plain cursor)")
    try:
        return parse_shape(ctype.row_text or ctype.xname)
    except ValueError as exc:
        raise NotSupportedError(f"composite type {ctype.xname!r}: {exc}") from None


def check_supported(shape: Shape) -> None:
    """Refuse, at describe time, element types this module cannot read."""
    if shape.kind == "SCALAR":
        if shape.scalar.code not in _ELEMENT_CODES:
            raise NotSupportedError(f"{shape.scalar.sql()} inside a ROW or collection is "
                                    "not supported")
    elif shape.kind == "ROW":
        for _, sub in shape.fields:
            check_supported(sub)
    else:
        check_supported(shape.element)


# ---------------------------------------------------------------------------
# Text form -> Python values
# ---------------------------------------------------------------------------

_VALUE_TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<dstr>\"(?:[^\"]|\"\")*\")"
    r"|(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
    r"|(?P<word>[A-Za-z_]+)|(?P<op>[{}(),]))")


class _Tok(NamedTuple):
    kind: str
    text: str


def _value_tokens(text: str) -> list[_Tok]:
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _VALUE_TOKEN.match(text, pos)
        if m is None:
            raise DataError(f"malformed composite value near {text[pos:pos + 20]!r}")
        kind = m.lastgroup
        raw = m.group(kind)
        if kind in ("str", "dstr"):
            q = raw[0]
            out.append(_Tok("str", raw[1:-1].replace(q * 2, q)))
        else:
            out.append(_Tok(kind, raw.upper() if kind == "word" else raw))
        pos = m.end()
    return out


@dataclass
class _Reader:
    """Parses one value's text form against a Shape."""

    toks: list[_Tok]
    rows: str            # "tuple" or "dict"
    i: int = 0
    ordered: bool = False  # every collection as a list, in the text's order

    def take(self) -> _Tok:
        if self.i >= len(self.toks):
            raise DataError("composite value ends early")
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> None:
        tok = self.take()
        if tok.text != text:
            raise DataError(f"{text!r} expected in composite value, found {tok.text!r}")

    def value(self, shape: Shape, hashable: bool = False) -> Any:
        if self.i < len(self.toks) and self.toks[self.i] == _Tok("word", "NULL"):
            self.i += 1
            if not shape.nullable:
                raise DataError("NULL in a collection (-9978: insertion of NULLs into a "
                                "collection disallowed)")
            return None
        if shape.kind == "SCALAR":
            return _scalar(shape.scalar, self.take())
        if shape.kind == "ROW":
            return self.row(shape, hashable)
        return self.collection(shape, hashable)

    def row(self, shape: Shape, hashable: bool) -> Any:
        self.expect("ROW")
        self.expect("(")
        values = []
        for k, (_, sub) in enumerate(shape.fields):
            if k:
                if self.toks[self.i:self.i + 1] == [_Tok("op", ")")]:
                    raise DataError("-9989: incorrect number of fields in the ROW value")
                self.expect(",")
            values.append(self.value(sub, hashable))
        if self.toks[self.i:self.i + 1] != [_Tok("op", ")")]:
            raise DataError("-9989: incorrect number of fields in the ROW value")
        self.i += 1
        if self.rows == "dict" and not hashable:
            return {name: v for (name, _), v in zip(shape.fields, values)}
        return _row_class(tuple(n for n, _ in shape.fields))(*values)

    def collection(self, shape: Shape, hashable: bool) -> Any:
        kind = self.take().text
        if kind != shape.kind:
            raise DataError(f"a {kind} value where {shape.kind} is expected (-9602)")
        self.expect("{")
        items = []
        inner = (hashable or shape.kind == "SET") and not self.ordered
        if self.toks[self.i:self.i + 1] != [_Tok("op", "}")]:
            items.append(self.value(shape.element, inner))
            while self.toks[self.i:self.i + 1] == [_Tok("op", ",")]:
                self.i += 1
                items.append(self.value(shape.element, inner))
        self.expect("}")
        if self.ordered:
            return items
        if shape.kind == "SET":
            try:
                return frozenset(items) if hashable else set(items)
            except TypeError as exc:
                raise DataError(f"SET element cannot be held in a Python set: {exc}") from None
        if hashable:
            return tuple(items)
        return Multiset(items) if shape.kind == "MULTISET" else items


@functools.lru_cache(maxsize=256)
def _row_class(names: tuple[str, ...]) -> type:
    try:
        return collections.namedtuple("Row", names)  # type: ignore[misc]
    except ValueError:  # a field name Python refuses (keyword, leading _)
        return collections.namedtuple("Row", names, rename=True)  # type: ignore[misc]


def _scalar(ctype: ColumnType, tok: _Tok) -> Any:
    code, text = ctype.code, tok.text
    try:
        if code in _INT_CODES:
            return int(text) if tok.kind != "str" else int(text.strip())
        if code in _FLOAT_CODES:
            return float(text)
        if code in _DEC_CODES:
            return decimal.Decimal(text.strip())
        if code in _TEXT_CODES:
            if tok.kind != "str":
                raise ValueError("text must be quoted")
            return text
        if code == TypeCode.BOOLEAN:
            low = text.strip().lower()
            if low not in ("t", "f"):
                raise ValueError("BOOLEAN is 't' or 'f'")
            return low == "t"
        if code == TypeCode.DATE:
            return _date(text)
    except (ValueError, decimal.InvalidOperation, ArithmeticError) as exc:
        raise DataError(f"{text!r} is no {ctype.sql()} value: {exc}") from None
    raise NotSupportedError(f"{ctype.sql()} inside a ROW or collection is not supported")


def _date(text: str) -> datetime.date:
    m = re.fullmatch(r"\s*(\d{1,2})/(\d{1,2})/(\d{4})\s*", text)
    if m:
        return datetime.date(int(m[3]), int(m[1]), int(m[2]))
    return datetime.date.fromisoformat(text.strip())


def parse_value(shape: Shape, text: str, rows: str = "tuple", ordered: bool = False) -> Any:
    """One value's text form as Python (None for a NULL top-level value)."""
    reader = _Reader(_value_tokens(text), rows, 0, ordered)
    value = reader.value(Shape(shape.kind, shape.scalar, shape.element, shape.fields))
    if reader.i != len(reader.toks):
        raise DataError(f"unexpected text after the composite value: {text[:60]!r}")
    return value


def value_decoder(ctype: ColumnType, encoding: str, rows: str = "tuple"):
    """bytes of one cell's text form -> its Python value (DataError if
    the bytes are no value of the type).  NotSupportedError now for a type
    this module cannot read."""
    if rows not in ("tuple", "dict"):
        raise ValueError("composite_rows is 'tuple' or 'dict'")
    shape = shape_of(ctype)
    check_supported(shape)

    def decode(raw: bytes) -> Any:
        try:
            text = bytes(raw).decode(encoding)
        except UnicodeDecodeError as exc:
            raise DataError(f"composite value is not valid {encoding}: {exc}") from None
        return parse_value(shape, text, rows)
    return decode


# ---------------------------------------------------------------------------
# Python values -> text form
# ---------------------------------------------------------------------------

def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def literal(value: Any, shape: Shape | None = None) -> str:
    """The text form of a Python value: with ``shape`` checked and converted
    to that type (DataError when it cannot be), without it inferred from the
    Python types (set -> SET, Multiset -> MULTISET, list -> LIST, tuple ->
    ROW), which is how the driver binds a parameter."""
    if value is None:
        if shape is not None and not shape.nullable:
            raise DataError("NULL in a collection (-9978: insertion of NULLs into a "
                            "collection disallowed)")
        return "NULL"
    if shape is None:
        return _inferred(value)
    if shape.kind == "SCALAR":
        return _scalar_text(shape.scalar, value)
    if shape.kind == "ROW":
        if isinstance(value, dict):
            value = [value.get(n) for n, _ in shape.fields]
        if not isinstance(value, (tuple, list)) or len(value) != len(shape.fields):
            raise DataError("-9989: incorrect number of fields in the ROW value")
        return "ROW(" + ",".join(literal(v, s) for v, (_, s) in zip(value, shape.fields)) + ")"
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise DataError(f"a {shape.kind} value must be a collection, not {type(value).__name__}")
    items = [literal(v, shape.element) for v in value]
    if shape.kind == "SET":
        items = list(dict.fromkeys(items))      # a SET holds each element once
    return shape.kind + "{" + ",".join(items) + "}"


def _inferred(value: Any) -> str:
    if isinstance(value, (set, frozenset)):
        kind = "SET"
    elif isinstance(value, Multiset):
        kind = "MULTISET"
    elif isinstance(value, list):
        kind = "LIST"
    elif isinstance(value, tuple):
        return "ROW(" + ",".join(literal(v) for v in value) + ")"
    elif isinstance(value, dict):
        return "ROW(" + ",".join(literal(v) for v in value.values()) + ")"
    else:
        return _scalar_text(None, value)
    return kind + "{" + ",".join(literal(v) for v in value) + "}"


def _scalar_text(ctype: ColumnType | None, value: Any) -> str:
    code = ctype.code if ctype is not None else None
    try:
        if isinstance(value, bool) or code == TypeCode.BOOLEAN:
            if code not in (None, TypeCode.BOOLEAN):
                raise ValueError("a bool is no value of this type")
            if isinstance(value, str) and value.strip().lower() in ("t", "f"):
                value = value.strip().lower() == "t"
            if not isinstance(value, (bool, int)):
                raise ValueError("BOOLEAN needs a bool")
            return "'t'" if value else "'f'"
        if code is None:
            return _untyped_text(value)
        if code in _INT_CODES:
            return str(int(decimal.Decimal(str(value)))) if isinstance(value, str) \
                else str(_exact_int(value))
        if code in _FLOAT_CODES:
            return repr(float(value))
        if code in _DEC_CODES:
            return _decimal_text(ctype, value)
        if code in _TEXT_CODES:
            text = value if isinstance(value, str) else str(value)
            if code in (TypeCode.CHAR, TypeCode.NCHAR):
                text = text[:ctype.length].ljust(ctype.length)
            elif code != TypeCode.LVARCHAR:
                text = text[:ctype.length & 0xFF]
            return _quote(text)
        if code == TypeCode.DATE:
            d = value if isinstance(value, datetime.date) else _date(str(value))
            return _quote(f"{d.month:02d}/{d.day:02d}/{d.year:04d}")
    except (ValueError, TypeError, decimal.InvalidOperation, ArithmeticError) as exc:
        raise DataError(f"{value!r} is no {ctype.sql()} value: {exc}") from None
    raise NotSupportedError(f"{ctype.sql()} inside a ROW or collection is not supported")


def _exact_int(value: Any) -> int:
    if isinstance(value, (float, decimal.Decimal)) and value != int(value):
        raise ValueError("not an integer")
    return int(value)


def _decimal_text(ctype: ColumnType, value: Any) -> str:
    d = value if isinstance(value, decimal.Decimal) else decimal.Decimal(str(value).strip())
    if not d.is_finite():
        raise ValueError("not a finite number")
    scale = ctype.scale
    if scale is not None:
        d = d.quantize(decimal.Decimal(1).scaleb(-scale), rounding=decimal.ROUND_HALF_UP)
    if len(d.as_tuple().digits) > ctype.precision and d != 0:
        raise ValueError(f"more than {ctype.precision} digits")
    return str(d)


def _untyped_text(value: Any) -> str:
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, datetime.datetime):
        raise DataError("DATETIME inside a ROW or collection is not supported")
    if isinstance(value, datetime.date):
        return _quote(f"{value.month:02d}/{value.day:02d}/{value.year:04d}")
    raise DataError(f"cannot bind a {type(value).__name__} inside a ROW or collection")


def canonical(ctype: ColumnType, text: str) -> str:
    """The emulator's stored form of a value written to a composite column:
    parsed against the column's type, converted, written back (a SET loses
    duplicates).  DataError when the text is no value of the type."""
    shape = shape_of(ctype)
    value = parse_value(_lenient(shape), text, ordered=True)
    return literal(value, shape)


@functools.lru_cache(maxsize=256)
def _lenient(shape: Shape) -> Shape:
    """The shape a client's text is read with: scalars are read by their
    Python kind and converted by ``literal`` afterwards (so ``'5'`` is
    accepted for an INTEGER, as the server converts it)."""
    if shape.kind == "SCALAR":
        code = shape.scalar.code
        if code in _TEXT_CODES or code in (TypeCode.DATE, TypeCode.BOOLEAN):
            return shape
        return Shape("SCALAR", ColumnType(TypeCode.DECIMAL, (32 << 8) | 0xFF), None, (),
                     shape.nullable)
    if shape.kind == "ROW":
        return Shape("ROW", fields=tuple((n, _lenient(s)) for n, s in shape.fields),
                     nullable=shape.nullable)
    return Shape(shape.kind, element=_lenient(shape.element), nullable=shape.nullable)
