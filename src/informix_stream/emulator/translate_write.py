"""INSERT, UPDATE, DELETE and TRUNCATE translation: bind conversions per
target column, SERIAL numbering and the row image an INSERT supplies."""

from __future__ import annotations

from decimal import Decimal


from informix_stream.codecs import ColumnType, TypeCode

from . import composite
from .statements import (IMAGE_COLUMN, SERIAL_CODES, Bind, SqlError, StatementKind, TableDef,
                         Translation)
from .statements import sql_ident
from .tokens import ident
from .casts import TEXT_FORMED, UNKNOWN
from .expr_parts import Expr
from .typerules import CLAUSE_END, DECIMAL_CODES, NUMERIC_CODES
from .values import TEXT_CODES as TEXT_TYPES

# Column types whose stored form depends on the type's precision or
# qualifier: a value of another type (a wider column, another qualifier, a
# text) assigned to one is converted as CAST converts it, so the column never
# keeps what it cannot serve (a DECIMAL(5,2) holding 12345.678 or 1.234, a
# DATETIME YEAR TO DAY holding '2020-01-02 10:30').
_CONVERTED = frozenset({TypeCode.DATETIME, TypeCode.INTERVAL}) | DECIMAL_CODES
_CAST_FROM = {TypeCode.DATETIME: TEXT_TYPES | {TypeCode.DATETIME, TypeCode.DATE},
              TypeCode.INTERVAL: TEXT_TYPES | {TypeCode.INTERVAL}}


class WriteRules:
    """Methods of the dialect's translator (see dialect._Translator)."""

    # -- INSERT / UPDATE / DELETE --------------------------------------------
    def insert(self) -> Translation:
        if self.word(1) != "INTO":
            self.syntax_error(1, "INSERT INTO expected")
        name, i = self.table_name(2)
        tdef = self.target(name)
        self.scope = [(name, tdef)]
        targets = [c.name for c in tdef.columns]
        explicit = self.text(i) == "("
        if explicit:
            close = self.close_paren(i)
            targets = [ident(self.toks[a]) for a, _ in self.split_commas(i + 1, close)]
            for col in targets:
                if tdef.column(col) is None:
                    raise SqlError(-217, 0, col, f"column {col} not found")
            i = close + 1
        missing = [c.name for c in tdef.serial_columns if c.name not in targets]
        cols = targets + missing
        image = None
        if self.word(i) == "VALUES":
            body, image = self.insert_values(tdef, targets, missing, i + 1)
        elif self.word(i) == "SELECT" or self.text(i) == "(":
            self.collect_scope(i, len(self.toks))
            self.scope.insert(0, (name, tdef))
            body = self.insert_select(tdef, targets, missing, i)
        else:
            self.syntax_error(i, "VALUES or SELECT expected")
        head = ["INSERT", "INTO", tdef.sql_name, "(", ", ".join([sql_ident(c) for c in cols] + [IMAGE_COLUMN] * bool(image)), ")"]
        return self.finish(StatementKind.INSERT, head + body, table=name, image_binds=image)

    def insert_values(self, tdef: TableDef, targets: list[str], missing: list[str],
                      i: int) -> tuple[list[str], list[int] | None]:
        """VALUES (...) and, when every column's value is one bind and no
        SERIAL is generated, where each is: then the engine supplies the row
        image as one more bind instead of a trigger computing it afterwards."""
        if self.text(i) != "(":
            self.syntax_error(i, "( expected after VALUES")
        close = self.close_paren(i)
        if close != len(self.toks) - 1:
            self.syntax_error(close + 1, "unexpected text after VALUES (...)")
        values = self.split_commas(i + 1, close)
        if len(values) != len(targets):
            raise SqlError(-236, message="number of columns in INSERT does not match VALUES")
        pieces: list[str] = []
        positions: dict[str, int] = {}
        for (a, b), col in zip(values, targets):
            ctype = tdef.column(col).type
            before = len(self.binds)
            expr = self.value_expr(a, b, ctype)
            if expr == "?" and len(self.binds) == before + 1 and \
                    self.binds[before].type in (None, ctype):
                # a literal of another type (INTERVAL(1000) DAY(4) TO DAY
                # into a DAY(2) column) is not this column's value yet: the
                # trigger makes the image from what the column kept
                positions[col] = before
            pieces.append(self.serial_wrap(tdef.storage or tdef.name, ctype, expr))
        pieces += [self.serial_wrap(tdef.storage or tdef.name, tdef.column(c).type, "NULL")
                   for c in missing]
        image = None
        if tdef.image and not tdef.serial_columns and len(positions) == len(tdef.columns):
            image = [positions[c.name] for c in tdef.columns]
            pieces.append("?")
        return ["VALUES", "(", ", ".join(pieces), ")"], image

    def value_expr(self, a: int, b: int, ctype: ColumnType) -> str:
        """SQLite text for one value assigned to a column of type ``ctype``."""
        if b - a == 1 and self.toks[a].kind == "param":
            self.binds.append(Bind(self.param_index(a), None, ctype))
            return "?"
        if ctype.code in composite.COMPOSITE_CODES and b > a:
            text = composite.constructor_text(self.toks, a, b, self.source(a, b), ctype)
            if text is not None:
                # stored through the column's writer, as a bound value is
                self.binds.append(Bind(None, text, ctype))
                return "?"
        text_column = ctype.code in (TypeCode.VARCHAR, TypeCode.NVARCHAR, TypeCode.LVARCHAR,
                                     TypeCode.CHAR, TypeCode.NCHAR)
        if b - a == 1 and (self.toks[a].kind == "str" or
                           (self.toks[a].kind == "num" and not text_column)):
            # A quoted literal goes through the column's writer like a bound
            # value: a text column cuts it to its length in bytes.  A number
            # stays a number where an INTERVAL is wanted, which it cannot be
            # without UNITS (intervals.number_to_interval).
            const: object = self.toks[a].text
            if self.toks[a].kind == "num" and ctype.code == TypeCode.INTERVAL:
                const = Decimal(self.toks[a].text)
            self.binds.append(Bind(None, const, ctype))
            return "?"
        if b - a == 2 and self.text(a) == "-" and self.toks[a + 1].kind == "num" \
                and ctype.code in DECIMAL_CODES:
            self.binds.append(Bind(None, "-" + self.toks[a + 1].text, ctype))
            return "?"
        return self.stored_expr(a, b, ctype)

    def stored_expr(self, a: int, b: int, ctype: ColumnType,
                    scope: list[tuple[str, TableDef]] | None = None) -> str:
        """An expression assigned to a column: a computed number is stored as
        a bound one would be (rounded to the column's scale, range-checked, in
        its storage form), a value of another type converted to the column's
        (converted_expr), anything else as SQLite computes it.  ``scope``:
        the tables the expression's columns belong to, when not the
        statement's (an INSERT ... SELECT's FROM, not its target)."""
        if ctype.code in NUMERIC_CODES and self.starts_operand(a):
            items, stop, operation = self.span_items(a, b)
            if operation and stop == b:
                value = self.emit_items(items).sql
                return f"ifx_store({value}, {int(ctype.code)}, {ctype.length})"
        if ctype.code in _CONVERTED | TEXT_TYPES and self.starts_operand(a):
            converted = self.converted_expr(a, b, ctype, scope)
            if converted is not None:
                return converted
        return " ".join(self.rewrite(a, b))

    def converted_expr(self, a: int, b: int, ctype: ColumnType,
                       scope: list[tuple[str, TableDef]] | None) -> str | None:
        """A value of a known other type assigned to a DECIMAL, DATETIME,
        INTERVAL or character column, converted to the column's type: to
        text as CAST writes it (a DATE in the session's DBDATE, casts.py;
        Guide to SQL: Reference, "Using Built-in Casts"), a DECIMAL through
        ifx_store (rounded, range-checked: -1226), a DATETIME or INTERVAL as
        CAST converts it (qualifier extended or cut, leading field checked:
        intervals.fitted).  None when the type is the column's or unknown."""
        source = self.expression_type(a, b, scope or self.scope)[1]
        if source is None or (source.code, source.length) == (ctype.code, ctype.length):
            return None
        if ctype.code in TEXT_TYPES:
            if source.code not in TEXT_FORMED:
                return None          # SQLite's text of it is the server's
            return self.cast(Expr(" ".join(self.rewrite(a, b)), source), ctype).sql
        if ctype.code in DECIMAL_CODES:
            if source.code not in NUMERIC_CODES:
                return None
            value = " ".join(self.rewrite(a, b))
            return f"ifx_store({value}, {int(ctype.code)}, {ctype.length})"
        if ctype.code == TypeCode.INTERVAL and source.code in NUMERIC_CODES:
            # No implicit number-to-INTERVAL conversion: the column's writer
            # refuses each non-NULL value with -1260, as for a bound number
            # (intervals.number_to_interval); it was stored raw.
            value = " ".join(self.rewrite(a, b))
            return f"ifx_cast({value}, {UNKNOWN}, 0, {int(ctype.code)}, {ctype.length})"
        if source.code not in _CAST_FROM[ctype.code]:
            return None
        return self.cast(Expr(" ".join(self.rewrite(a, b)), source), ctype).sql

    @staticmethod
    def serial_wrap(table: str, ctype: ColumnType, expr: str) -> str:
        if ctype.code not in SERIAL_CODES:
            return expr
        return f"ifx_serial('{table}', {int(ctype.code)}, {expr})"

    def insert_select(self, tdef: TableDef, targets: list[str], missing: list[str],
                      i: int) -> list[str]:
        if self.word(i) != "SELECT":
            return self.rewrite(i, len(self.toks))
        j = i + 1
        while self.word(j) in ("SKIP", "FIRST", "LIMIT"):
            j += 2
        if self.word(j) in ("DISTINCT", "UNIQUE", "ALL"):
            j += 1
        stop = self.find_top(frozenset({"FROM"}) | CLAUSE_END, j, len(self.toks))
        # A select item's label (``expr AS anon_1``) names nothing here.
        items = [(a, self.item_alias(a, b)[1]) for a, b in self.split_commas(j, stop)]
        # A computed number goes through stored_expr; ``*`` cannot be split
        # into its columns here, and needs no conversion.
        computed = not any(self.text(b - 1) == "*" for a, b in items) and (any(
            self.starts_operand(a) and self.span_items(a, b)[2] for a, b in items) or any(
            tdef.column(col).type.code in _CONVERTED | TEXT_TYPES for col in targets))
        if not tdef.serial_columns and not computed:
            return self.rewrite(i, len(self.toks))
        if len(items) != len(targets):
            raise SqlError(-236, message="number of columns in INSERT does not match SELECT")
        head = self.rewrite(i, j)
        # the FROM's tables, not the target (an INSERT into t SELECT ... FROM
        # t falls back to the whole scope, where t is both)
        source = [(n, d) for n, d in self.scope if d is not tdef]
        pieces = [self.serial_wrap(tdef.storage or tdef.name, tdef.column(col).type,
                                   self.stored_expr(a, b, tdef.column(col).type, source))
                  for (a, b), col in zip(items, targets)]
        pieces += [self.serial_wrap(tdef.storage or tdef.name, tdef.column(c).type, "NULL")
                   for c in missing]
        tail = self.rewrite(stop, len(self.toks))
        if tdef.serial_columns and self.word(i + 1) in ("SKIP", "FIRST", "LIMIT"):
            raise SqlError(-201, message="FIRST/SKIP in INSERT SELECT into a SERIAL table")
        return head + [", ".join(pieces)] + tail

    def update(self) -> Translation:
        name, i = self.table_name(1)
        tdef = self.target(name)
        self.scope = [(name, tdef)]
        self.collect_scope(i, len(self.toks))
        if self.word(i) != "SET":
            self.syntax_error(i, "SET expected")
        stop = self.find_top(frozenset({"WHERE"}), i + 1, len(self.toks))
        pieces = ["UPDATE", tdef.sql_ref(), "SET"]
        sets = []
        for a, b in self.split_commas(i + 1, stop):
            if b - a < 3 or self.text(a + 1) != "=":
                self.syntax_error(a + 1, "col = value expected in SET")
            col = ident(self.toks[a])
            cdef = tdef.column(col)
            if cdef is None:
                raise SqlError(-217, 0, col, f"column {col} not found")
            sets.append(f"{sql_ident(col)} = " + self.value_expr(a + 2, b, cdef.type))
        pieces.append(", ".join(sets))
        pieces += self.rewrite(stop, len(self.toks))
        return self.finish(StatementKind.UPDATE, pieces, table=name)

    def delete(self) -> Translation:
        i = 2 if self.word(1) == "FROM" else 1
        name, i = self.table_name(i)
        tdef = self.target(name)
        self.scope = [(name, tdef)]
        self.collect_scope(i, len(self.toks))
        pieces = ["DELETE", "FROM", tdef.sql_ref()] + self.rewrite(i, len(self.toks))
        return self.finish(StatementKind.DELETE, pieces, table=name)

    def truncate(self) -> Translation:
        i = 2 if self.word(1) == "TABLE" else 1
        name, i = self.table_name(i)
        tdef = self.target(name)
        return self.finish(StatementKind.DELETE, ["DELETE", "FROM", tdef.sql_name], table=name,
                           truncate=True)
