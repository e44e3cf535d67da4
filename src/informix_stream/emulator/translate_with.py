"""WITH (common table expressions) and the typing of set operations.

What the server does: Informix 14.10 added common table expressions
(``WITH name [(columns)] AS (query) [, ...] statement``; several CTEs
separated by commas, each usable as a table by the CTEs after it and by the
statement; a column list names the columns; a CTE that reads itself is
recursive).  Learned from "Common Table Expressions" (Oninit, on Informix
14.10's WITH statement, quoting IBM's documentation page) and the common
table expression rules IBM documents for DB2 (a column list must name as
many columns as the query returns; a CTE name hides a table of that name).

The emulator gives each CTE a ``TableDef`` (names and types from its query's
description) that the statement's name lookup finds before the catalog, and
hands SQLite its own WITH clause, which evaluates it; recursion needs no
more, SQLite runs a self-referencing CTE as Informix does (anchor UNION ALL
recursive member).  A SELECT, INSERT, UPDATE or DELETE may follow the CTEs
(``with_write``); ``INSERT INTO t WITH ... SELECT`` is not in IBM's syntax
(the WITH statement comes first) and gets the translator's -201.

Set operations (UNION [ALL], INTERSECT, MINUS/EXCEPT, IBM Informix Guide to
SQL: Syntax, "Set operators"): the result's columns have the first query's
names and a type that holds every branch's values, so a client decodes each
row with the described type.
"""

from __future__ import annotations

from informix_stream.codecs import ColumnType, TypeCode

from .statements import NOT_SUPPORTED, ResultColumn, SqlError, StatementKind, TableDef, \
    ColumnDef, Translation
from .tokens import ident
from .typerules import DECIMAL_CODES, FLOAT_CODES, INT_CODES, SET_OPERATORS, T_FLOAT

_TEXT = {TypeCode.CHAR: 0, TypeCode.NCHAR: 0, TypeCode.VARCHAR: 1, TypeCode.NVARCHAR: 1,
         TypeCode.LVARCHAR: 2}
# Digits of each integer type as a DECIMAL(p, 0) (widening rules, typerules).
_INT_DIGITS = {TypeCode.SMALLINT: 5, TypeCode.INTEGER: 10, TypeCode.SERIAL: 10}
_INT_RANK = {TypeCode.SMALLINT: 0, TypeCode.INTEGER: 1, TypeCode.SERIAL: 1}


class CteRules:
    """Methods of the dialect's translator (see dialect._Translator)."""

    anchor_only = False      # typing a recursive CTE's first branch alone

    # -- WITH ------------------------------------------------------------------
    def with_select(self) -> Translation:
        """WITH [RECURSIVE] cte [, cte ...] SELECT ...: the CTE names resolve
        like tables, DESCRIBE reports the final SELECT's columns."""
        i = 1
        recursive = self.word(i) == "RECURSIVE"
        i += recursive
        ctes: dict[str, TableDef] = {}
        base = self.lookup
        self.lookup = lambda name: ctes.get(name) or base(name)
        spans: list[tuple[str, str, int, int]] = []        # (name, head, open, close)
        while True:
            name, i = self.cte_name(i)
            if name in ctes:
                raise SqlError(-201, message=f"common table expression {name} named twice")
            names: list[str] | None = None
            if self.text(i) == "(":
                close = self.close_paren(i)
                names = [ident(self.toks[a]) for a, b in self.split_commas(i + 1, close)
                         if b - a == 1 and self.toks[a].kind == "word"]
                if len(names) != len(self.split_commas(i + 1, close)):
                    raise SqlError(-201, message="column names expected in the CTE's list")
                i = close + 1
            if self.word(i) != "AS" or self.text(i + 1) != "(" or self.word(i + 2) != "SELECT":
                raise SqlError(-201, message="AS (SELECT ...) expected in WITH")
            close = self.close_paren(i + 1)
            # A recursive CTE's later branches read the CTE itself: its
            # anchor (first branch) types it before they are typed.
            self.anchor_only = True
            try:
                anchor = self.describe(i + 2)
            finally:
                self.anchor_only = False
            ctes[name] = TableDef(name, [ColumnDef(n, c.type) for n, c in zip(
                names or [c.name for c in anchor], anchor)], derived=True)
            columns = self.describe(i + 2)
            if names is not None and len(names) != len(columns):
                raise SqlError(-201, message=f"common table expression {name} names "
                                             f"{len(names)} columns for {len(columns)}")
            ctes[name] = TableDef(name, [ColumnDef(n, c.type) for n, c in zip(
                names or [c.name for c in columns], columns)], derived=True)
            recursive = recursive or self.reads_itself(name, i + 2, close)
            head = name + (f"({', '.join(names)})" if names is not None else "")
            spans.append((name, head, i + 2, close))
            i = close + 1
            if self.text(i) != ",":
                break
            i += 1
        if self.word(i) in ("INSERT", "UPDATE", "DELETE"):
            return self.with_write(i, spans, recursive)
        if self.word(i) != "SELECT":
            what = self.word(i) or "this statement"
            raise SqlError(NOT_SUPPORTED, message=f"WITH before {what} is not supported by "
                                                  "the emulator")
        if self.find_top(frozenset({"INTO"}), i, len(self.toks)) < len(self.toks):
            raise SqlError(NOT_SUPPORTED, message="WITH ... INTO is not supported by the "
                                                  "emulator")
        pieces = self.cte_heads(spans, recursive)
        self.collect_scope(i, len(self.toks))
        pieces += self.rewrite(i, len(self.toks))
        return self.finish(StatementKind.SELECT, pieces, columns=self.describe(i))

    def cte_heads(self, spans: list[tuple[str, str, int, int]], recursive: bool) -> list[str]:
        """SQLite's WITH clause for the CTEs (their binds added first)."""
        for _, _, start, close in spans:         # each body on its own: a FROM list
            self.collect_scope(start, close)     # must not run on past its ')'
        pieces = ["WITH RECURSIVE" if recursive else "WITH"]
        for n, (_, head, start, close) in enumerate(spans):
            pieces += ([","] if n else []) + [head, "AS", "(", *self.rewrite(start, close), ")"]
        return pieces

    def with_write(self, i: int, spans: list[tuple[str, str, int, int]],
                   recursive: bool) -> Translation:
        """WITH ... INSERT/UPDATE/DELETE (Oninit, "Common Table Expressions",
        quoting IBM's page: the statement after the CTEs "can also be an
        INSERT, UPDATE, or DELETE").  The statement is translated on its own
        with the CTE names resolving first; SQLite takes the same WITH before
        it.  A view as its target is not rewritten here (view_writes) and is
        refused as not supported by the emulator."""
        head = self.cte_heads(spans, recursive)
        inner = type(self)(self.sql, self.toks[i:], self.lookup, self.sequences, self.functions)
        inner.ansi, inner.current_db = self.ansi, self.current_db
        inner.param_numbers, inner.param_count = self.param_numbers, self.param_count
        done = inner.run()
        offset = len(self.binds)
        done.sql = " ".join(head) + " " + done.sql
        done.binds = self.binds + done.binds
        if done.image_binds is not None:
            done.image_binds = [p + offset for p in done.image_binds]
        return done

    def cte_name(self, i: int) -> tuple[str, int]:
        if self.toks[i].kind != "word":
            raise SqlError(-201, message="common table expression name expected")
        return ident(self.toks[i]), i + 1

    def reads_itself(self, name: str, start: int, end: int) -> bool:
        """Does the CTE's query name the CTE (a recursive CTE)?"""
        return any(self.toks[j].kind == "word" and ident(self.toks[j]) == name
                   and self.text(j - 1) in ("FROM", ",", "JOIN") for j in range(start, end))

    # -- set operations --------------------------------------------------------
    def combine_branches(self, columns: list[ResultColumn], start: int,
                         end: int) -> list[ResultColumn]:
        """The description of a SELECT followed by UNION/INTERSECT/MINUS
        branches: the first branch's names, each column's type widened to
        hold every branch's values."""
        if self.anchor_only:
            return columns
        op = self.find_top(SET_OPERATORS, start, end)
        while op < end:
            nxt = op + 1 + (self.word(op + 1) in ("ALL", "DISTINCT"))
            while self.text(nxt) == "(":
                nxt += 1
            if self.word(nxt) != "SELECT":
                return columns
            other = self.branch(nxt, end)
            if len(other) != len(columns):
                # Informix: -9730? unknown; the server refuses it, as SQLite does.
                raise SqlError(-201, message="the queries of a set operation return "
                                             "different numbers of columns")
            columns = [ResultColumn(c.name, union_type(c.type, o.type), False)
                       for c, o in zip(columns, other)]
            op = self.find_top(SET_OPERATORS, nxt + 1, end)
        return columns

    def branch(self, start: int, end: int) -> list[ResultColumn]:
        """One later branch's own columns (its FROM scope, its items)."""
        i = self.select_list_start(start)
        if self.word(i) in ("DISTINCT", "UNIQUE", "ALL"):
            i += 1
        stop = self.find_top(frozenset({"FROM"}) | SET_OPERATORS | frozenset(
            {"WHERE", "GROUP", "HAVING", "ORDER", "INTO", "FOR", "LIMIT"}), i, end)
        scope = self.from_items(stop + 1, end) if self.word(stop) == "FROM" else []
        out: list[ResultColumn] = []
        for a, b in self.split_commas(i, stop):
            out += self.describe_item(a, b, scope)
        return out


def union_type(a: ColumnType, b: ColumnType) -> ColumnType:
    """A type holding values of both ``a`` and ``b``; -9999 for a mix the
    emulator cannot type as the server would (text with numbers, dates with
    times), never a description its rows would not fit."""
    nullable = a.nullable or b.nullable
    if a.code == b.code and a.code not in _TEXT and a.code not in DECIMAL_CODES:
        return a if a.length >= b.length else b
    if a.code in _TEXT and b.code in _TEXT:
        rank = max(_TEXT[a.code], _TEXT[b.code])
        width = max(a.precision, b.precision)
        if rank == 2 or width > 255:
            return ColumnType(TypeCode.LVARCHAR, max(width, 2048), nullable)
        if rank == 0 and a.code == b.code:
            return ColumnType(a.code, width, nullable)
        code = TypeCode.NVARCHAR if TypeCode.NVARCHAR in (a.code, b.code) else TypeCode.VARCHAR
        return ColumnType(code, width, nullable)
    numeric = INT_CODES | FLOAT_CODES | DECIMAL_CODES
    if a.code in numeric and b.code in numeric:
        if a.code in FLOAT_CODES or b.code in FLOAT_CODES:
            return ColumnType(T_FLOAT.code, T_FLOAT.length, nullable)
        if a.code in DECIMAL_CODES or b.code in DECIMAL_CODES:
            return _decimal_union(a, b, nullable)
        if a.code in _INT_RANK and b.code in _INT_RANK:
            return a if _INT_RANK[a.code] >= _INT_RANK[b.code] else b
        return ColumnType(TypeCode.BIGINT, 8, nullable) if TypeCode.BIGINT in (
            a.code, b.code) else ColumnType(TypeCode.INT8, 10, nullable)
    raise SqlError(NOT_SUPPORTED, message=f"a set operation mixing {a.code.name} and "
                                          f"{b.code.name} columns is not supported by the "
                                          "emulator")


def _decimal_union(a: ColumnType, b: ColumnType, nullable: bool) -> ColumnType:
    """DECIMAL(p, s) with room for both sides' integer digits and scale; a
    floating DECIMAL on either side makes it floating."""
    sides = []
    for t in (a, b):
        if t.code in DECIMAL_CODES:
            sides.append((t.precision, t.scale))
        else:
            sides.append((_INT_DIGITS.get(t.code, 19), 0))
    if any(s is None for _, s in sides):
        return ColumnType(TypeCode.DECIMAL, (32 << 8) | 0xFF, nullable)
    scale = max(s for _, s in sides)
    digits = max(p - s for p, s in sides)
    code = TypeCode.MONEY if a.code == b.code == TypeCode.MONEY else TypeCode.DECIMAL
    return ColumnType(code, (min(32, digits + scale) << 8) | scale, nullable)
