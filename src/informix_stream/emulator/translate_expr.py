"""Arithmetic and cast expressions: typed the way Informix types them and
emitted as SQLite that computes what the server computes.

The rest of the translator works token by token; an expression with an
arithmetic operator or a cast cannot, because each operation's SQL depends on
its operands' types: DECIMAL/MONEY arithmetic goes through the exact
``ifx_dec_*`` functions, integer arithmetic through range-checked
``ifx_int_*``, every division through a function that raises -1202 on a zero
divisor, casts through ``ifx_cast`` (see arith and casts).  So where such an
expression starts, ``expression_span`` reads it into operands and operators
(phase one, no output), and only if it has an operation parses it with
precedence and emits it (phase two).  A comparison whose side is a computed
decimal compares exactly through ``ifx_dec_cmp``, since a wide result is
exact text that SQLite would order after every number.

So does any comparison between operands of different storage forms with a
DECIMAL/MONEY side (see ``storage_form``): SQLite would compare a REAL
DECIMAL(p <= 15) column with a wide column's exact text as text (its
affinity rules), so 3.00 = 3 would be false, silently.  Such a comparison is
an operation for phase one; ``x [NOT] IN (...)`` with a DECIMAL side compares
canonical texts (``ifx_dec_key``), which keeps SQL's NULL rules for NOT IN.
So does a comparison that sets DATE/DATETIME values of different types or
qualifiers against each other: they are brought to one DATETIME qualifier
first (datetime_compare).
"""

from __future__ import annotations

from informix_stream.codecs import ColumnType, TypeCode, parse_type

from .casts import TEXT_FORMED, UNKNOWN, check_cast
from .datetime_compare import TemporalCompareRules
from .expr_parts import COMPARE_OPS, Expr, Item, split_sides
from .statements import NOT_SUPPORTED, SqlError, exact_decimal
from .tokens import ident, quote
from .typerules import (DECIMAL_CODES, FLOAT_CODES, FUNCTION_TYPES, INT_CODES,
                        NUMERIC_CODES, T_DATE, T_DECIMAL, T_VARCHAR, UNIT_WORDS, arith_type,
                        combine, datetime_type, number_type, temporal_type)

ARITH_OPS = frozenset({"+", "-", "*", "/"})
# Words that never begin an operand: a span stops (or is not started) there.
NOT_OPERAND = frozenset({
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "AS", "IS", "IN", "BETWEEN", "LIKE",
    "MATCHES", "ESCAPE", "ON", "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "OUTER", "CROSS",
    "GROUP", "ORDER", "BY", "HAVING", "UNION", "INTERSECT", "EXCEPT", "MINUS", "ASC", "DESC",
    "INTO", "VALUES", "SET", "WHEN", "THEN", "ELSE", "END", "DISTINCT", "UNIQUE", "ALL",
    "FIRST", "SKIP", "LIMIT", "OFFSET", "EXISTS", "ANY", "SOME", "FOR", "UPDATE", "INSERT",
    "DELETE", "NULLS", "WITH", "USING", "NATURAL", "TEMP", "CHECK", "DEFAULT", "CONSTRAINT",
    "PRIMARY", "REFERENCES", "KEY", "COLLATE"})
_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
_TEMPORAL = frozenset({TypeCode.DATETIME, TypeCode.INTERVAL})
# Operands of || converted to text (a DATETIME too, so the result is typed text)
_CONCAT_TEXT = TEXT_FORMED | {TypeCode.DATETIME}
_EXACT_AGGREGATES = frozenset({"SUM", "AVG"})
# Words that may follow a type's first word in its name.
_QUALIFIER = frozenset(UNIT_WORDS) | {"TO"}
_TYPE_CONTINUATIONS = {"DATETIME": _QUALIFIER, "INTERVAL": _QUALIFIER,
                       "DOUBLE": frozenset({"PRECISION"}), "CHARACTER": frozenset({"VARYING"}),
                       "NATIONAL": frozenset({"CHAR", "CHARACTER", "VARCHAR", "VARYING"})}
# Words after which a '-' or '+' is a sign, not a binary operator.
_BEFORE_EXPRESSION = frozenset({"SELECT", "WHERE", "AND", "OR", "NOT", "WHEN", "THEN", "ELSE",
                                "BY", "HAVING", "ON", "BETWEEN", "CASE", "DISTINCT", "UNIQUE",
                                "ALL", "SET", "VALUES", "RETURN", "IN", "LIKE", "MATCHES"})


def refuse_quantified(toks: list) -> None:
    """``x op ANY|SOME|ALL (subquery)`` is Informix SQL (Guide to SQL: Syntax,
    "Condition with subquery") that SQLite has no form of: say so, not -201."""
    for i in range(1, len(toks) - 1):
        t = toks[i]
        if t.kind == "word" and t.text in ("ANY", "SOME", "ALL") and \
                toks[i - 1].kind == "op" and toks[i - 1].text in COMPARE_OPS and \
                toks[i + 1].text == "(":
            raise SqlError(NOT_SUPPORTED, message=f"a comparison with {t.text} (subquery) is "
                                                  "not supported by the emulator; use IN or "
                                                  "EXISTS")


def _exact(*sides: Expr) -> bool:
    """Must this comparison be made exactly: is a side a computed decimal, or
    do a DECIMAL side and another have different storage forms?"""
    return any(e.computed and e.type is not None and e.type.code in DECIMAL_CODES
               for e in sides) or mixed_forms(*(_form(e) for e in sides))


def storage_form(ctype: ColumnType | None, column: bool) -> str:
    """How SQLite holds a numeric operand, which decides how it compares:
    "real" a DECIMAL(p <= 15) column (REAL, no affinity), "text" a wider one
    (exact text, TEXT affinity, ifx_decimal collation), "num" an integer or
    float column (numeric affinity), "dec" any other DECIMAL value (computed
    text, a scalar subquery, a function), "expr" another number; "" for a
    non-numeric or unknown type (a parameter), left to SQLite as before."""
    if ctype is None or ctype.code not in NUMERIC_CODES:
        return ""
    if ctype.code in DECIMAL_CODES:
        return ("text" if exact_decimal(ctype) else "real") if column else "dec"
    return "num" if column else "expr"


# Pairs of forms that SQLite compares exactly as numbers: REAL columns, a
# literal (it takes the column's affinity), REAL against a number.  Two exact
# text columns are not: SQLite 3.40 joined two ifx_decimal columns through an
# automatic index and lost '3.0000000000' = '3.00' (tests/
# test_emulator_decimal_compare.py), so they too go through ifx_dec_cmp.
_SAFE_PAIRS = frozenset(frozenset(p) for p in (
    ("real",), ("real", "lit"), ("text", "lit"), ("real", "num")))
_DECIMAL_FORMS = frozenset({"real", "text", "dec"})


def mixed_forms(first: str, *others: str) -> bool:
    """Does comparing `first` with each of `others` need ifx_dec_cmp: a
    DECIMAL side whose storage form SQLite would not compare as a number?"""
    if not first or not all(others) or not _DECIMAL_FORMS.intersection((first, *others)):
        return False
    return any(frozenset((first, f)) not in _SAFE_PAIRS for f in others)


def _form(e: Expr) -> str:
    if not e.computed:
        return e.form
    return storage_form(e.type, False)


class ExprRules(TemporalCompareRules):
    """Methods of the dialect's translator (see dialect._Translator)."""

    # -- phase one: find a span -------------------------------------------
    def starts_operand(self, i: int) -> bool:
        t = self.toks[i]
        if i and self.toks[i - 1].text == "." and self.toks[i - 1].kind == "op":
            return False
        if t.kind in ("num", "str", "param"):
            return True
        if t.kind == "word":
            return t.text not in NOT_OPERAND
        if t.kind != "op" or t.text not in ("(", "-", "+"):
            return False
        if t.text == "(" or not i:
            return True
        before = self.toks[i - 1]
        return before.kind == "op" and before.text != ")" or before.kind == "word" and \
            before.text in _BEFORE_EXPRESSION

    def span_items(self, i: int, end: int) -> tuple[list[Item], int, bool]:
        """Read operands and operators from i; returns the items, the index
        after them and whether any is an operation (arithmetic, unary minus
        on a non-literal, cast).  No items when i begins no expression."""
        items: list[Item] = []
        operation = compared = aggregate = concat = False
        j = i
        while True:
            while self.text(j) in ("-", "+") and self.toks[j].kind == "op":
                items.append(Item("u" + self.text(j)))
                j += 1
            stop = self.operand_end(j, end)
            if stop is None:
                return [], i, False
            casts: list[ColumnType] = []
            after = stop
            while self.text(after) == "::" and after < end:
                target, after = self.cast_target(after + 1, end)
                casts.append(target)
            if items and items[-1].op in ("u-", "u+") and (
                    self.toks[j].kind != "num" or stop - j > 1 or casts):
                operation = True
            operation = operation or bool(casts) or self.word(j) == "CAST" or \
                self.word(j) == "DATE" and self.text(j + 1) == "("
            items.append(Item("", j, stop, tuple(casts)))
            aggregate = aggregate or self.word(j) in _EXACT_AGGREGATES and self.text(j + 1) == "("
            j = after
            op = self.text(j) if j < end and self.toks[j].kind == "op" else ""
            word = self.word(j) if j < end else ""
            if op in ARITH_OPS and j + 1 < end:
                operation = True
            elif op == "||" and j + 1 < end:
                concat = True
            elif op in COMPARE_OPS and not compared and j + 1 < end:
                compared = True
            elif word == "NOT" and self.word(j + 1) == "BETWEEN" and not compared:
                compared, op = True, "NOT BETWEEN"
                j += 1
            elif word == "BETWEEN" and not compared:
                compared, op = True, "BETWEEN"
            elif word == "AND" and items and any(it.op.endswith("BETWEEN") for it in items) \
                    and not any(it.op == "AND" for it in items):
                op = "AND"
            elif not compared and (word == "IN" and self.text(j + 1) == "(" or word == "NOT"
                                   and self.word(j + 1) == "IN" and self.text(j + 2) == "("):
                # x [NOT] IN (...) ends the span: the list is the last operand.
                at = j + 1 if word == "IN" else j + 2
                close = self.close_paren(at, end)
                items.append(Item("IN" if word == "IN" else "NOT IN", at + 1, close))
                return items, close + 1, operation or concat and self.concat_converts(
                    items) or self.in_exact(self.side_form(items[:-1]), at + 1, close) \
                    or self.in_temporal(items[:-1], at + 1, close)
            else:
                # A comparison with a SUM/AVG compares exactly: the sum of
                # wide DECIMALs is text, which SQLite puts after any number.
                operation = operation or concat and self.concat_converts(items)
                return items, j, operation or compared and (
                    aggregate or self.sides_mixed(items) or self.sides_temporal(items))
            items.append(Item(op))
            j += 1

    def concat_converts(self, items: list[Item]) -> bool:
        """Is an operand of ``||`` of a type whose stored form is not its text
        (a DATE's day number)?  Then the span is emitted (operation)."""
        near = [k for k, it in enumerate(items) if it.op == "||"]
        types = (self.side_type([items[x]]) for k in near for x in (k - 1, k + 1))
        return any(t is not None and t.code in _CONCAT_TEXT for t in types)

    def sides_mixed(self, items: list[Item]) -> bool:
        """Do the sides of a comparison without operations (x = y, x BETWEEN
        y AND z) have storage forms that SQLite would not compare exactly?"""
        sides = split_sides(items)
        if any(self.untyped(side) for side in sides):
            return False        # cheap way out before any side's type is looked up
        return mixed_forms(*(self.side_form(side) for side in sides))

    def side_type(self, side: list[Item]) -> ColumnType | None:
        """Informix type of one side read by phase one when it is one operand
        (its last cast, if any); None otherwise or when unknown."""
        if len(side) != 1 or side[0].op:
            return None
        if side[0].casts:
            return side[0].casts[-1]
        if self.untyped(side):
            return None
        return self.leaf_type(side[0].a, side[0].b)

    def untyped(self, side: list[Item]) -> bool:
        """Is this side one parameter, string or NULL (form "")?"""
        if len(side) != 1 or side[0].b != side[0].a + 1:
            return False
        t = self.toks[side[0].a]
        return t.kind in ("param", "str") or t.text == "NULL"

    def side_form(self, side: list[Item]) -> str:
        """storage_form of one side read by phase one ("" unless it is one
        plain operand or a signed number)."""
        operands = [it for it in side if not it.op]
        if len(operands) != 1 or operands[0].casts:
            return ""
        it = operands[0]
        if len(side) > 1:
            return "lit" if it.b == it.a + 1 and self.toks[it.a].kind == "num" else ""
        return self.token_form(it.a, it.b)

    def token_form(self, a: int, b: int) -> str:
        """storage_form of the operand [a, b); "lit" for a number literal."""
        t = self.toks[a]
        if b == a + 1:
            if t.kind == "num":
                return "lit"
            if t.kind in ("param", "str") or t.text == "NULL":
                return ""
        return self.form_for(a, b, self.leaf_type(a, b))

    def form_for(self, a: int, b: int, ctype: ColumnType | None) -> str:
        """storage_form of [a, b) of type ctype: a column only when it names
        one of a stored table (a view's or derived table's column holds what
        its expression computed, whatever its type)."""
        found = None
        if b == a + 1 and self.toks[a].kind == "word":
            found = self.column_source(None, ident(self.toks[a]))
        elif b == a + 3 and self.text(a + 1) == "." and self.toks[a + 2].kind == "word":
            found = self.column_source(ident(self.toks[a]), ident(self.toks[a + 2]))
        stored = found is not None and not (found[0].view or found[0].derived)
        return storage_form(ctype, stored)

    def in_exact(self, left: str, a: int, b: int) -> bool:
        """Must ``x IN (...)`` (the list or subquery at [a, b); x of form
        `left`) compare canonical decimal texts?  Always for a subquery with
        a DECIMAL side: its column's storage form is not known here."""
        if self.word(a) != "SELECT":
            return mixed_forms(left, *(self.token_form(x, y) for x, y in self.split_commas(a, b)))
        if not left:
            return False
        sub = self.subquery_type(a - 1, b + 1)
        return left in _DECIMAL_FORMS or sub is not None and sub.code in DECIMAL_CODES

    def operand_end(self, j: int, end: int) -> int | None:
        """Index after the operand starting at j, or None if none starts there."""
        if j >= end:
            return None
        t = self.toks[j]
        if t.kind in ("num", "str", "param"):
            return j + 1
        if t.kind == "op":
            return self.close_paren(j, end) + 1 if t.text == "(" else None
        if t.kind != "word" or t.text in NOT_OPERAND:
            return None
        if t.text == "CASE":
            return self.case_end(j, end)
        if t.text in ("DATETIME", "INTERVAL") and self.text(j + 1) == "(":
            close = self.close_paren(j + 1, end)
            return close + 1 + self.qualifier_words(close + 1, end)[1]
        if t.text == "CURRENT":
            return j + 1 + self.qualifier_words(j + 1, end)[1]
        if self.text(j + 1) == "(":
            return self.close_paren(j + 1, end) + 1
        k = j + 1
        while self.text(k) in (".", ":") and k + 1 < end and self.toks[k + 1].kind == "word":
            k += 2
        if self.text(k) == "." and self.text(k + 1) == "*":
            return None
        return k

    def case_end(self, j: int, end: int) -> int | None:
        """The index after the END closing the CASE at j (nested CASEs
        counted); None when it does not close before ``end``."""
        depth = 0
        for k in range(j, end):
            w = self.word(k)
            if w == "CASE":
                depth += 1
            elif w == "END":
                depth -= 1
                if depth == 0:
                    return k + 1
        return None

    def cast_target(self, j: int, end: int) -> tuple[ColumnType, int]:
        """The type named at j (``DECIMAL(10,2)``, ``DATETIME YEAR TO DAY``,
        ``DOUBLE PRECISION``) and the index after it."""
        if j >= end or self.toks[j].kind != "word":
            raise SqlError(-201, message="a type name is expected")
        words: list[str] = []
        more = _TYPE_CONTINUATIONS.get(self.toks[j].text, frozenset())
        k = j
        while k < end and (k == j or self.word(k) in more):
            words.append(self.toks[k].text)
            k += 1
            if self.text(k) == "(":
                close = self.close_paren(k, end)
                words[-1] += "(" + "".join(t.raw for t in self.toks[k + 1:close]) + ")"
                k = close + 1
        try:
            return parse_type(" ".join(words)), k
        except (ValueError, KeyError) as exc:
            raise SqlError(NOT_SUPPORTED, message=f"a cast to {' '.join(words)} is not "
                                                  f"supported by the emulator ({exc})") from None

    # -- phase two: parse and emit ----------------------------------------
    def expression_span(self, i: int, end: int, out: list[str]) -> int:
        """Emit the expression with an operation starting at i; returns the
        index after it, or 0 when none starts there (nothing emitted)."""
        if not self.starts_operand(i):
            return 0
        items, stop, operation = self.span_items(i, end)
        if not operation:
            return 0
        value = self.emit_items(items)
        if value.type is not None and value.type.code in DECIMAL_CODES:
            # Exact text that sorts, groups and takes MIN/MAX as a number.
            out.append(f"({value.sql} COLLATE ifx_decimal)")
        else:
            out.append(value.sql)
        return stop

    def emit_items(self, items: list[Item]) -> Expr:
        compare = next((k for k, it in enumerate(items) if it.op in COMPARE_OPS
                        or it.op.endswith(("BETWEEN", "IN"))), None)
        if compare is None:
            return self.emit_sum(items)
        op = items[compare].op
        if op.endswith("IN"):
            return self.emit_in(items[:compare], items[compare])
        if op.endswith("BETWEEN"):
            return self.emit_between(items, compare)
        left, right = self.emit_aligned(items[:compare], items[compare + 1:])
        if _exact(left, right):
            return Expr(f"ifx_dec_cmp({left.sql}, {right.sql}) {op} 0", None, True)
        return Expr(f"{left.sql} {op} {right.sql}", None, True)

    def emit_in(self, left_items: list[Item], in_item: Item) -> Expr:
        """x [NOT] IN (list or subquery): with a DECIMAL side of another storage
        form, both sides become canonical texts (ifx_dec_key) that are equal
        exactly when the numbers are; SQLite's IN keeps the NULL rules."""
        value = self.emit_sum(left_items)
        a, b = in_item.a, in_item.b
        if self.in_temporal(left_items, a, b):
            return self.emit_in_temporal(value, in_item)
        if not (_exact(value) or self.in_exact(_form(value), a, b)):
            return Expr(f"{value.sql} {in_item.op} ({' '.join(self.rewrite(a, b))})", None, True)
        if self.word(a) == "SELECT":
            # The CTE names the subquery's one column, whatever it selects.
            inner = " ".join(self.rewrite(a, b))
            members = [f"WITH ifx_in_q(v) AS ({inner}) SELECT ifx_dec_key(v) FROM ifx_in_q"]
        else:
            members = [f"ifx_dec_key({quote(self.toks[x].text)})"
                       if y == x + 1 and self.toks[x].kind == "num"
                       else f"ifx_dec_key({' '.join(self.rewrite(x, y))})"
                       for x, y in self.split_commas(a, b)]
        return Expr(f"ifx_dec_key({value.sql}) {in_item.op} ({', '.join(members)})", None, True)

    def emit_between(self, items: list[Item], at: int) -> Expr:
        """x [NOT] BETWEEN lo AND hi, exactly when a side is a computed decimal."""
        and_at = next((k for k in range(at, len(items)) if items[k].op == "AND"), None)
        if and_at is None:
            raise SqlError(-201, message="BETWEEN needs AND")
        value, low, high = self.emit_aligned(items[:at], items[at + 1:and_at],
                                             items[and_at + 1:])
        op = items[at].op
        if _exact(value, low, high):
            truth = 0 if op.startswith("NOT") else 1
            return Expr(f"ifx_dec_between({value.sql}, {low.sql}, {high.sql}) = {truth}",
                        None, True)
        return Expr(f"{value.sql} {op} {low.sql} AND {high.sql}", None, True)

    def emit_sum(self, items: list[Item]) -> Expr:
        """Operands and operators -> one Expr: unary first, then * and /,
        then + and -, then || (HCL Guide to SQL: Reference, "Operator
        Precedence", ids_sqr_178), each left to right."""
        values: list[Expr] = []
        ops: list[str] = []
        k = 0
        while k < len(items):
            unary = []
            while items[k].op in ("u-", "u+"):
                unary.append(items[k].op)
                k += 1
            value = self.emit_operand(items[k])
            for u in reversed(unary):
                value = self.negate(value) if u == "u-" else value
            values.append(value)
            if k + 1 < len(items):
                ops.append(items[k + 1].op)
            k += 2
        for group in (("*", "/"), ("+", "-"), ("||",)):
            merged, merged_ops = [values[0]], []
            for op, value in zip(ops, values[1:]):
                if op in group:
                    merged[-1] = self.operation(op, merged[-1], value)
                else:
                    merged.append(value)
                    merged_ops.append(op)
            values, ops = merged, merged_ops
        return values[0]

    def negate(self, value: Expr) -> Expr:
        if value.type is not None and value.type.code in DECIMAL_CODES:
            return Expr(f"ifx_dec_neg({value.sql})", value.type, True)
        return Expr(f"(- {value.sql})", value.type, True)

    def operation(self, op: str, left: Expr, right: Expr) -> Expr:
        """SQLite for ``left op right`` computed as Informix computes it."""
        if op == "||":
            return self.concatenation(left, right)
        temporal = {e.type.code for e in (left, right) if e.type is not None} & _TEMPORAL
        if temporal:
            # Stored as text and microseconds, these would add up to nonsense.
            raise SqlError(NOT_SUPPORTED, message="DATETIME and INTERVAL arithmetic is not "
                                                  "supported by the emulator")
        rtype = arith_type(op, left.type, right.type)
        name = _NAMES[op]
        code = rtype.code
        if code in DECIMAL_CODES:
            sql = f"ifx_dec_{name}({left.sql}, {right.sql})"
        elif code in FLOAT_CODES and op == "/":
            sql = f"ifx_float_div({left.sql}, {right.sql})"
        elif code in INT_CODES:
            sql = f"ifx_int_{name}({left.sql}, {right.sql}, {rtype.length})"
        else:
            sql = f"({left.sql} {op} {right.sql})"
        return Expr(sql, rtype, True)

    def concatenation(self, left: Expr, right: Expr) -> Expr:
        """``left || right``: an operand of a character or numeric type is
        concatenated as its text (HCL Guide to SQL: Syntax, "Concatenation
        Operator", ids_sqs_0185: ``'Date:' || TODAY``), the text CAST writes
        (a DATE in the session's DBDATE, casts.py)."""
        sides = [self.cast(e, T_VARCHAR) if e.type is not None and e.type.code in
                 _CONCAT_TEXT else e for e in (left, right)]
        codes = {e.type.code for e in sides if e.type is not None}
        return Expr(f"({sides[0].sql} || {sides[1].sql})", combine(codes, {"||"}), True)

    def emit_operand(self, item: Item) -> Expr:
        a, b = item.a, item.b
        if self.word(a) == "CAST" and self.text(a + 1) == "(":
            value = self.emit_cast_call(a, b)
        elif self.word(a) == "DATE" and self.text(a + 1) == "(":
            value = self.emit_date_call(a, b)
        elif self.text(a) == "(" and self.word(a + 1) != "SELECT":
            inner, stop, _ = self.span_items(a + 1, b - 1)
            if inner and stop == b - 1:
                value = self.emit_items(inner)
                value = Expr(f"({value.sql})", value.type, value.computed, value.form)
            else:
                value = Expr(" ".join(self.rewrite(a, b)), None)
        elif b == a + 1 and self.toks[a].kind == "num" and "e" not in self.toks[a].text.lower() \
                and len(self.toks[a].text.replace(".", "").lstrip("0")) > 15:
            # Left to SQLite, a number this long would become a double.
            value = Expr(quote(self.toks[a].text), number_type(self.toks[a].text), form="dec")
        elif item.casts and self.toks[a].kind == "str" and b == a + 1:
            value = Expr(quote(self.toks[a].text),
                         ColumnType(TypeCode.CHAR, max(1, len(self.toks[a].text))))
        else:
            ctype = self.leaf_type(a, b)
            form = "lit" if b == a + 1 and self.toks[a].kind == "num" else \
                self.form_for(a, b, ctype)
            value = Expr(" ".join(self.rewrite(a, b)), ctype,
                         self.word(a) in _EXACT_AGGREGATES, form)
        for target in item.casts:
            value = self.cast(value, target)
        return value

    def emit_cast_call(self, a: int, b: int) -> Expr:
        """CAST(expr AS type) at a; b is after its ')'."""
        as_at = self.find_top(frozenset({"AS"}), a + 2, b - 1)
        if as_at >= b - 1:
            raise SqlError(-201, message="CAST(expression AS type) expected")
        target, after = self.cast_target(as_at + 1, b - 1)
        if after != b - 1:
            raise SqlError(-201, message="CAST(expression AS type) expected")
        inner, stop, _ = self.span_items(a + 2, as_at)
        if inner and stop == as_at:
            value = self.emit_items(inner) if len(inner) > 1 or inner[0].casts or \
                self.toks[a + 2].kind != "str" or as_at != a + 3 else \
                Expr(quote(self.toks[a + 2].text),
                     ColumnType(TypeCode.CHAR, max(1, len(self.toks[a + 2].text))))
        else:
            value = Expr(" ".join(self.rewrite(a + 2, as_at)), None)
        return self.cast(value, target)

    def emit_date_call(self, a: int, b: int) -> Expr:
        """DATE(expr) at a (b after its ')'): the argument, a character
        string, an integer day count or a DATETIME, converted to DATE as a
        cast to DATE converts it (IBM Informix Guide to SQL: Syntax, "DATE
        Function"); the result is a DATE, never SQLite's date() text."""
        inner, stop, _ = self.span_items(a + 2, b - 1)
        if not inner or stop != b - 1:
            raise SqlError(-201, message="DATE(expression) expected")
        if len(inner) == 1 and not inner[0].casts and self.toks[a + 2].kind == "str" \
                and b == a + 4:
            value = Expr(quote(self.toks[a + 2].text), ColumnType(TypeCode.CHAR, max(
                1, len(self.toks[a + 2].text))))
        else:
            value = self.emit_items(inner)
        return self.cast(value, T_DATE)

    def cast(self, value: Expr, target: ColumnType) -> Expr:
        source = value.type
        check_cast(source, target)
        if value.sql == "?" and source is None and target.code in _TEMPORAL and \
                self.binds and self.binds[-1].const is None:
            # CAST(? AS DATETIME ...): the parameter is converted to the
            # target as it is bound, so a DATETIME/INTERVAL value of other
            # qualifiers (a time bound as HOUR TO FRACTION(5)) is extended
            # to the target's, as the server casts a DATETIME host variable
            # (Guide to SQL: Syntax, "EXTEND Function"), and text is read as
            # the target's literal as CAST would.
            self.binds[-1] = self.binds[-1]._replace(type=target, compared=False)
            return Expr("?", target, True)
        if source is not None and source == target:
            return Expr(value.sql, target, value.computed)
        code, length = (int(source.code), source.length) if source is not None else (UNKNOWN, 0)
        return Expr(f"ifx_cast({value.sql}, {code}, {length}, {int(target.code)}, "
                    f"{target.length})", target, True)

    def leaf_type(self, a: int, b: int) -> ColumnType | None:
        """Informix type of a single operand; None when it cannot be known."""
        t = self.toks[a]
        if t.kind == "param" or t.text == "NULL" and b == a + 1:
            return None
        if t.text == "CURRENT":
            words, _ = self.qualifier_words(a + 1, b)
            return datetime_type(words or ["YEAR", "TO", "FRACTION(3)"])
        if t.text in ("DATETIME", "INTERVAL") and self.text(a + 1) == "(":
            close = self.close_paren(a + 1, b)
            return temporal_type(t.text, self.qualifier_words(close + 1, b)[0])
        if t.text == "CASE":
            return self.case_type(a, b)        # SelectRules: the type holding its results
        if self.word(a) and self.text(a + 1) == "(" and self.word(a) not in self.TYPED_FUNCTIONS:
            code = FUNCTION_TYPES.get(self.word(a))
            return T_DECIMAL if code == TypeCode.DECIMAL else None
        return self.expression_type(a, b, self.scope)[1]

    # Calls whose result type the select rules know (others are unknown here).
    TYPED_FUNCTIONS = frozenset({"LENGTH", "CHAR_LENGTH", "OCTET_LENGTH", "YEAR", "MONTH", "DAY",
                                 "WEEKDAY", "MDY", "COUNT", "SUM", "AVG", "MIN", "MAX", "MOD",
                                 "DBINFO"})

    def expression_result(self, a: int, b: int) -> Expr | None:
        """Type of [a, b) when it is one expression with an operation; None
        otherwise.  For DESCRIBE: whatever it emits is discarded."""
        if not self.starts_operand(a):
            return None
        items, stop, operation = self.span_items(a, b)
        if not operation or stop != b:
            return None
        saved, nextvals = len(self.binds), self.nextvals
        self.nextvals = set()          # the statement's own NEXTVALs were emitted already
        try:
            return self.emit_items(items)
        finally:
            del self.binds[saved:]
            self.nextvals = nextvals
