"""Comparisons between DATE and DATETIME values of different qualifiers.

The emulator stores a DATE as its day number and a DATETIME as its literal
text restricted to its qualifier, so SQLite would compare a DATE with a
DATETIME as a number against text (never equal), and two DATETIMEs of
different qualifiers as texts of different lengths: '2024-05-06 00:00:00'
(YEAR TO SECOND) is not '2024-05-06' (YEAR TO DAY), and a YEAR TO SECOND
compares less than CURRENT (YEAR TO FRACTION(3)) whose fraction is .000.
Such comparisons silently lost rows.

What the server does (IBM Informix Guide to SQL: Syntax, "Relational
Operator", ids_sqs_1621): for DATE and DATETIME operands, greater means
later in time.  A DATE is a DATETIME YEAR TO DAY (Guide to SQL: Reference,
"Converting between DATE and DATETIME data types", ids_sqr_171, the extra
fields of a wider qualifier zero); a DATETIME of fewer trailing fields
stands for the instant with the missing HOUR to FRACTION fields zero
(Guide to SQL: Syntax, "EXTEND Function", ids_sqs_1540; Guide to SQL:
Reference, "Manipulating DATETIME values", ids_sqr_154: "the database
server sets the minutes value for the second operand to 0").  So every
side is brought to one qualifier, the widest of the sides (all start at
the same field), and the texts then order as the instants do.

Unsettled, so refused rather than guessed: sides whose qualifiers start at
different fields (EXTEND fills missing leading fields from CURRENT, but the
documentation does not say a comparison does), and a side missing a MONTH
or DAY field the other has (EXTEND fills 1 there, while the zero rule
above would give 0).  Bound parameters compared with a DATETIME column are
lined up as they are written (compared_datetime).
"""

from __future__ import annotations

import datetime as dt
from typing import Iterable

from informix_stream.codecs import (TU_DAY, TU_HOUR, TU_SECOND, TU_YEAR, ColumnType, TypeCode,
                                    qualifier)

from .expr_parts import Expr, Item, split_sides
from .statements import NOT_SUPPORTED, SqlError
from .values import Converter, datetime_writer, writer_for

_DATE_KINDS = frozenset({TypeCode.DATE, TypeCode.DATETIME})


def _temporal(types: Iterable[ColumnType | None]) -> list[ColumnType]:
    return [t for t in types if t is not None and t.code in _DATE_KINDS]


def needs_alignment(types: Iterable[ColumnType | None]) -> bool:
    """Do DATE/DATETIME sides of two different types (DATE against
    DATETIME, or two DATETIME qualifiers) meet in one comparison?"""
    return len(set(_temporal(types))) > 1


def common_qualifier(types: Iterable[ColumnType | None]) -> ColumnType:
    """The DATETIME type every DATE/DATETIME side of a comparison is brought
    to: the widest side's (a DATE counts as YEAR TO DAY).  Shapes the
    documentation does not settle raise NOT_SUPPORTED."""
    sides = _temporal(types)
    datetimes = [t for t in sides if t.code == TypeCode.DATETIME]
    starts = {t.start for t in datetimes} | (
        {TU_YEAR} if len(datetimes) < len(sides) else set())
    ends = [t.end for t in datetimes] + [TU_DAY] * (len(sides) - len(datetimes))
    widest = max(ends)
    if len(starts) > 1 or any(e < TU_DAY and e < widest for e in ends):
        names = " and ".join(sorted({t.sql() for t in sides}))
        raise SqlError(NOT_SUPPORTED, message=f"comparing {names} is not supported by the "
                                              "emulator; cast the values to one DATETIME "
                                              "qualifier")
    return next(t for t in datetimes if t.end == widest)


class TemporalCompareRules:
    """Methods of the dialect's translator (see dialect._Translator) that
    line DATE/DATETIME sides up before SQLite compares them."""

    def sides_temporal(self, items: list[Item]) -> bool:
        """Must a comparison without operations be lined up?  Also when a
        ``?`` no column types meets a DATETIME (``CURRENT > ?``): it is
        then written in that side's qualifier (type_params)."""
        sides = split_sides(items)
        return self.temporal_meet(sides, [self.side_type(side) for side in sides])

    def temporal_meet(self, sides: list[list[Item]], types: list[ColumnType | None]) -> bool:
        """Do these sides (of those types) of one comparison need emitting
        through align_temporal/type_params?"""
        return needs_alignment(types) or any(t is not None and t.code == TypeCode.DATETIME
                                             for t in types) and any(map(self.bare_param, sides))

    def bare_param(self, side: list[Item]) -> bool:
        """Is this side one ``?`` that the dialect did not type by a column
        beside it (dialect.compared_type)?"""
        if len(side) != 1 or side[0].casts:
            return False
        a, b = side[0].a, side[0].b
        if b == a + 3 and self.text(a) == "(":
            a, b = a + 1, b - 1         # (?)
        return b == a + 1 and self.toks[a].kind == "param" and self.compared_type(a) is None

    def in_temporal(self, left: list[Item], a: int, b: int) -> bool:
        """Must ``x IN (...)`` (list or subquery at [a, b)) be lined up?"""
        first = self.side_type(left)
        if (first is None or first.code not in _DATE_KINDS) and not self.bare_param(left):
            return False
        if self.word(a) == "SELECT":
            return self.temporal_meet([left], [first, self.subquery_type(a - 1, b + 1)])
        members = [left] + [self.span_items(x, y)[0] for x, y in self.split_commas(a, b)]
        return self.temporal_meet(members, [first] + [self.side_type(m) for m in members[1:]])

    def emit_in_temporal(self, value: Expr, in_item: Item) -> Expr:
        """x [NOT] IN (...): x and each member brought to one qualifier
        (align_temporal) before SQLite's IN."""
        a, b = in_item.a, in_item.b
        marks = [len(self.binds) - (value.sql == "?")]    # value's ? is the last bind
        if self.word(a) == "SELECT":
            sub = Expr("v", self.subquery_type(a - 1, b + 1))
            value, sub = self.align_temporal(*self.type_params([value, sub], marks + [-1]))
            inner = " ".join(self.rewrite(a, b))
            members = f"WITH ifx_in_q(v) AS ({inner}) SELECT {sub.sql} FROM ifx_in_q"
            return Expr(f"{value.sql} {in_item.op} ({members})", None, True)
        parts = []
        for x, y in self.split_commas(a, b):
            inner, stop, _ = self.span_items(x, y)
            marks.append(len(self.binds))
            parts.append(self.emit_items(inner) if inner and stop == y
                         else Expr(" ".join(self.rewrite(x, y)), None))
        value, *parts = self.align_temporal(*self.type_params([value, *parts], marks))
        return Expr(f"{value.sql} {in_item.op} ({', '.join(p.sql for p in parts)})", None, True)

    def emit_aligned(self, *parts: list[Item]) -> list[Expr]:
        """The sides of one comparison (x op y, x BETWEEN y AND z) emitted,
        their ``?`` typed (type_params) and lined up (align_temporal)."""
        sides, marks = [], []
        for part in parts:
            marks.append(len(self.binds))
            sides.append(self.emit_sum(part))
        return self.align_temporal(*self.type_params(sides, marks))

    def type_params(self, sides: list[Expr], marks: list[int]) -> list[Expr]:
        """Sides of one comparison, each untyped ``?`` among them (its bind
        at ``marks[k]``, where side k's binds start) given the DATETIME
        qualifier the others are lined up to: written by compared_datetime
        as against a column of it, not as Python's text with six fraction
        digits that would be compared as text with CURRENT's FRACTION(3) or
        a literal's own qualifier.  Sides without a DATETIME stay as they are."""
        types = [e.type for e in sides]
        if not any(t is not None and t.code == TypeCode.DATETIME for t in types):
            return sides
        target = common_qualifier(types) if needs_alignment(types) else \
            next(t for t in types if t is not None and t.code == TypeCode.DATETIME)
        out = []
        for side, mark in zip(sides, marks):
            if side.sql in ("?", "(?)") and side.type is None and \
                    self.binds[mark].type is None and self.binds[mark].const is None:
                self.binds[mark] = self.binds[mark]._replace(type=target, compared=True)
                side = Expr(side.sql, target)
            out.append(side)
        return out

    def align_temporal(self, *sides: Expr) -> list[Expr]:
        """The sides of one comparison, each DATE/DATETIME side cast to
        common_qualifier.  The first side is the one a bound ``?`` or
        string among the others was typed by (dialect.compared_type): if
        it is cast, they would be written in a qualifier it no longer has,
        so that is refused."""
        if not needs_alignment(e.type for e in sides):
            return list(sides)
        target = common_qualifier(e.type for e in sides)
        if sides[0].type != target and any(e.type is None for e in sides[1:]):
            raise SqlError(NOT_SUPPORTED, message="a parameter or string beside DATE/DATETIME "
                                                  "values of other qualifiers is not supported "
                                                  "by the emulator; cast it to one")
        return [self.cast(e, target) if e.type is not None and e.type.code in _DATE_KINDS
                and e.type != target else e for e in sides]


# -- bound values compared with a DATETIME column ---------------------------
def bind_writer(ctype: ColumnType | None, codec: str, *, ansi: bool,
                compared: bool) -> Converter:
    """values.writer_for, but a value compared with a DATETIME column
    (``col op ?``, typed by dialect.compared_type) through compared_datetime."""
    if compared and ctype is not None and ctype.code == TypeCode.DATETIME:
        return compared_datetime(ctype)
    return writer_for(ctype, codec, ansi=ansi, compared=compared)


def compared_datetime(ctype: ColumnType) -> Converter:
    """The stored form a bound value is compared as, against a DATETIME
    column of type ``ctype``.

    Text is read as a value of the column's type (what the server does with
    a string it compares to a column).  A date, datetime or time keeps its
    own fields: the driver binds a datetime as DATETIME YEAR TO SECOND or
    FRACTION(5), a date as DATE.  Its fields after the column's last are
    what the column's value, extended, is compared with:

    * all zero: the value in the column's qualifier (equal texts exactly
      when the instants are);
    * a non-zero HOUR..FRACTION field: the value's text to FRACTION(5).
      The column's text is then a prefix of the fields it shares with it;
      texts of fixed-width fields order as their instants unless the shared
      fields are equal, and then the column's value (its later fields zero)
      is the earlier one, as a prefix is the smaller text.  One bind, so an
      index on the column still serves;
    * DAY or MONTH fields the column lacks: the value of a bind of the
      column's own YEAR TO MONTH qualifier arrives as the first of its month
      (codec.scalars.datetime_value) and is taken as that; any other is
      refused (EXTEND fills 1 there, the zero rule 0: unsettled).

    A datetime against a column that starts at HOUR or later (it would lose
    its date), or a time against one that starts before HOUR, is refused,
    as a comparison of qualifiers of different first fields is
    (common_qualifier)."""
    plain = datetime_writer(ctype)
    wide_type = ColumnType(TypeCode.DATETIME, qualifier(19, ctype.start, TU_SECOND + 5))
    wide = datetime_writer(wide_type)
    fill = wide(dt.datetime(2000, 1, 1))[len(plain(dt.datetime(2000, 1, 1))):]

    def write(v: object) -> object:
        if v is None or isinstance(v, str):
            return plain(v)
        if isinstance(v, dt.datetime) and ctype.start >= TU_HOUR or \
                isinstance(v, dt.time) and ctype.start < TU_HOUR:
            raise SqlError(NOT_SUPPORTED, message=f"comparing a {type(v).__name__} with "
                                                  f"{ctype.sql()} is not supported by the "
                                                  "emulator: their first fields differ")
        text, full = plain(v), wide(v)
        rest = full[len(text):]
        if ctype.end >= TU_DAY:
            return text if not rest.strip(" :.0") else full
        if rest == fill:
            return text
        raise SqlError(NOT_SUPPORTED, message=f"comparing {v!r} with {ctype.sql()} is not "
                                              "supported by the emulator; bind a value of "
                                              "the column's qualifier")
    return write
