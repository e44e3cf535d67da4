"""SELECT translation: the select list and its DESCRIBE, FROM scopes and
joins, FIRST/SKIP/LIMIT, and serving stored row images for plain column lists of one table."""

from __future__ import annotations

from informix_stream.codecs import ColumnType, TypeCode

from .statements import (IMAGE_COLUMN, Bind, ColumnDef, CreateTable, ResultColumn, SqlError,
                         StatementKind, TableDef, Translation, sql_ident)
from .image_slice import can_slice
from .tokens import ident
from .translate_with import union_type
from .typerules import (AGGREGATES, CLAUSE_END, DECIMAL_CODES, FLOAT_CODES, FUNCTION_RESULTS,
                        FUNCTION_TYPES, JOIN_WORDS, NOT_ROW_PRESERVING, T_BIGINT, T_DATE,
                        T_DECIMAL, T_FLOAT, T_INTEGER, T_VARCHAR, UNIT_WORDS, combine,
                        datetime_type, number_type, temporal_type)


T_INT8 = ColumnType(TypeCode.INT8, 10)


class SelectRules:
    """Methods of the dialect's translator (see dialect._Translator)."""

    # -- SELECT --------------------------------------------------------------
    def select(self) -> Translation:
        into = self.find_top(frozenset({"INTO"}), 0, len(self.toks))
        if self.word(into + 1) == "TEMP":
            return self.select_into_temp(into)
        end = len(self.toks)
        self.collect_scope(0, end)
        layout = None if self.values_only else self.image_picks()
        encoded = layout is not None
        if layout is not None:
            types, picks = layout
            if picks == list(range(len(types))):
                layout = None                   # whole rows: the images as they are
            elif [types[k] for k in picks] != [c.type for c in self.describe(0)] \
                    or not can_slice(types, picks):
                layout, encoded = None, False   # cells the images cannot give
        pieces = self.select_body(0, end, encoded) if encoded else self.rewrite(0, end)
        columns = self.describe(0) if self.word(0) == "SELECT" else []
        clause = self.find_top(frozenset({"FOR"}), 0, end)
        for_update = clause + 1 < end and self.word(clause + 1) == "UPDATE"
        return self.finish(StatementKind.SELECT, pieces, columns=columns, encoded=encoded,
                           for_update=for_update, image_cells=layout)

    values_only = False      # SELECT ... INTO TEMP: the values, never row images

    def select_into_temp(self, into: int) -> Translation:
        """SELECT ... INTO TEMP name [WITH NO LOG]: a TEMP table shaped like
        the result, filled by it (reported as SQ_SELINTO, sqlstype.h)."""
        name_at = into + 2
        if self.word(name_at) == "" or self.text(name_at + 1) not in ("", "WITH"):
            raise SqlError(-201, message="INTO TEMP table name expected")
        rest = [t.text for t in self.toks[name_at + 1:]]
        if rest not in ([], ["WITH", "NO", "LOG"]):
            raise SqlError(-201, message="WITH NO LOG or the end expected after INTO TEMP")
        name = ident(self.toks[name_at])
        self.toks = self.toks[:into]
        self.values_only = True
        inner = self.select()
        columns = [ColumnDef(c.name, c.type) for c in inner.columns]
        for col in columns:
            if not col.name or not col.name.replace("_", "a").isalnum():
                raise SqlError(-201, message=f"INTO TEMP needs a column name for '{col.name}' "
                                             "(give the expression an alias)")
        spec = CreateTable(name, columns, [], [], temp=True, as_select=inner.sql,
                           no_log=bool(rest))
        return Translation(StatementKind.DDL, table=name, ddl=spec, binds=inner.binds,
                           param_count=inner.param_count)

    def image_picks(self) -> tuple[list[ColumnType], list[int]] | None:
        """(the table's column types, the position of each selected column)
        when this SELECT returns only plain columns of one table with row
        images, one result row per table row: its rows can then be cut out
        of the stored images (image_slice.py) instead of encoded from values."""
        end = len(self.toks)
        if self.word(0) != "SELECT":
            return None
        i = self.select_list_start(0)
        if self.word(i) in ("DISTINCT", "UNIQUE"):
            return None
        i += self.word(i) == "ALL"
        list_end = self.find_top(frozenset({"FROM"}) | CLAUSE_END, i, end)
        if self.word(list_end) != "FROM" or self.find_top(NOT_ROW_PRESERVING, i, end) < end:
            return None
        from_end = self.find_top(CLAUSE_END, list_end + 1, end)
        if any(self.word(k) in JOIN_WORDS or self.text(k) == "," or self.word(k) == "TABLE"
               for k in range(list_end + 1, from_end)):
            return None
        items = self.from_items(list_end + 1, from_end)
        if len(items) != 1 or not items[0][1].image:
            return None
        alias, tdef = items[0]
        names = [c.name for c in tdef.columns]
        picks: list[int] = []
        for a, b in self.split_commas(i, list_end):
            named = self.plain_column(a, b, (alias, tdef.name))
            if named == "*":
                picks += range(len(names))
            elif named in names:
                picks.append(names.index(named))
            else:
                return None
        if not picks or self.orders_by_position(list_end, end):
            return None
        return [c.type for c in tdef.columns], picks

    def plain_column(self, a: int, b: int, names: tuple[str, str]) -> str | None:
        """'*' or the column name when [a, b) is ``*``, ``col``, ``t.*`` or
        ``t.col`` with t one of ``names``; None for anything else."""
        if b - a == 1:
            t = self.toks[a]
            return "*" if t.text == "*" else ident(t) if t.kind == "word" else None
        if b - a == 3 and self.text(a + 1) == "." and ident(self.toks[a]) in names:
            t = self.toks[a + 2]
            return "*" if t.text == "*" else ident(t) if t.kind == "word" else None
        return None

    def orders_by_position(self, start: int, end: int) -> bool:
        """ORDER BY 2 names a select-list position, which images do not have."""
        order = self.find_top(frozenset({"ORDER"}), start, end)
        if order == end:
            return False
        stop = self.find_top(frozenset({"FOR", "LIMIT", "OFFSET"}), order, end)
        return any(self.toks[a].kind == "num" for a, _ in self.split_commas(order + 2, stop))

    def select_list_start(self, start: int) -> int:
        """Index after SELECT and its FIRST/SKIP/LIMIT counts."""
        i = start + 1
        while self.word(i) in ("SKIP", "FIRST", "LIMIT"):
            i += 2
        return i

    def select_body(self, start: int, end: int, images: bool = False) -> list[str]:
        """One SELECT level: FIRST/SKIP/LIMIT move to a trailing LIMIT clause;
        ``images`` selects the row images instead of the select list."""
        i = start + 1
        limits: dict[str, int] = {}
        while self.word(i) in ("SKIP", "FIRST", "LIMIT"):
            if i + 1 >= end or self.toks[i + 1].kind not in ("num", "param"):
                raise SqlError(-201, message="FIRST/SKIP needs a number")
            limits["OFFSET" if self.word(i) == "SKIP" else "LIMIT"] = i + 1
            i += 2
        stop = self.find_top(frozenset({"FOR"}), i, end)
        body = ["SELECT"] + self.select_list(i, stop, images)
        if limits:
            limits.setdefault("LIMIT", -1)
            for word in ("LIMIT", "OFFSET"):
                if word in limits:
                    body += [word, self.limit_value(limits[word])]
        return body

    def select_list(self, i: int, stop: int, images: bool) -> list[str]:
        """The select list and the clauses after it, with every ``*`` over a
        table with row images spelled out so the image column stays hidden."""
        head: list[str] = []
        if self.word(i) in ("DISTINCT", "UNIQUE", "ALL"):
            head = ["ALL" if self.word(i) == "ALL" else "DISTINCT"]
            i += 1
        list_end = self.find_top(frozenset({"FROM"}) | CLAUSE_END, i, stop)
        scope = self.from_items(list_end + 1, stop) if self.word(list_end) == "FROM" else []
        if images:
            items = [IMAGE_COLUMN]
        elif any(tdef.image for _, tdef in scope):
            items = [", ".join(self.star_columns(a, b, scope) or " ".join(self.rewrite(a, b))
                               for a, b in self.split_commas(i, list_end))]
        else:
            items = self.rewrite(i, list_end)
        return head + items + self.rewrite(list_end, stop)

    def star_columns(self, a: int, b: int, scope: list[tuple[str, TableDef]]) -> str:
        """Explicit column list for a ``*`` or ``t.*`` item; "" for other items."""
        if b - a == 1 and self.text(a) == "*":
            chosen = scope
        elif b - a == 3 and self.text(a + 1) == "." and self.text(a + 2) == "*":
            qual = ident(self.toks[a])
            chosen = [(alias, t) for alias, t in scope if qual in (alias, t.name)]
        else:
            return ""
        return ", ".join(f"{sql_ident(alias)}.{sql_ident(c.name)}" if alias else sql_ident(c.name)
                         for alias, t in chosen for c in t.columns)

    def limit_value(self, i: int) -> str:
        """A FIRST/SKIP count; a '?' one is bound where LIMIT now stands."""
        if i < 0:
            return "-1"
        if self.toks[i].kind == "param":
            self.binds.append(Bind(self.param_index(i), None, T_INTEGER))
            return "?"
        return self.toks[i].raw

    def collect_scope(self, start: int, end: int) -> None:
        """Record (alias, table) for every table named in any FROM clause."""
        for i in range(start, end):
            if self.word(i) == "FROM" and self.text(i - 1) != "(":
                self.scope += self.from_items(i + 1, end)

    def from_items(self, start: int, end: int) -> list[tuple[str, TableDef]]:
        stop = self.find_top(CLAUSE_END, start, end)
        items: list[tuple[str, TableDef]] = []
        i = start
        while i < stop:
            t = self.toks[i]
            if t.kind == "op" and t.text == "(":
                close = self.close_paren(i, stop)
                if self.word(i + 1) == "SELECT":
                    cols = [ColumnDef(c.name, c.type) for c in self.describe(i + 1)]
                    alias, _ = self.alias_after(close + 1, stop)
                    items.append((alias or "", TableDef(alias or "", cols, derived=True)))
                elif i == start or self.text(i - 1) in (",", "JOIN"):
                    # a parenthesised join, ``a LEFT JOIN (b, c) ON ...`` (the
                    # nested OUTER rewrite writes these): its tables are in scope
                    items += self.from_items(i + 1, close)
                i = close + 1
                continue
            if t.kind in ("word", "str") and (i == start or self.text(i - 1) in (",", "JOIN")
                                              or self.word(i - 1) == "OUTER"):
                if t.kind == "word" and t.text in JOIN_WORDS:
                    i += 1
                    continue
                if t.text == "TABLE" and self.text(i + 1) == "(":
                    _, alias, tdef, i = self.collection_table(i, stop)
                    items.append((alias or "", tdef))
                    continue
                name, i = self.table_name(i)
                tdef = self.table(name)
                alias, i = self.alias_after(i, stop)
                items.append((alias or name, tdef))
                continue
            i += 1
        return items

    def alias_after(self, i: int, stop: int) -> tuple[str | None, int]:
        if self.word(i) == "AS":
            i += 1
        if i < stop and self.toks[i].kind == "word" and self.toks[i].text not in JOIN_WORDS \
                and self.toks[i].text not in CLAUSE_END:
            return ident(self.toks[i]), i + 1
        return None, i

    def describe(self, start: int) -> list[ResultColumn]:
        """Result columns of the SELECT starting at token ``start``."""
        end = len(self.toks)
        if start and self.text(start - 1) == "(":
            end = self.close_paren(start - 1)
        i = self.select_list_start(start)
        if self.word(i) in ("DISTINCT", "UNIQUE", "ALL"):
            i += 1
        stop = self.find_top(frozenset({"FROM"}) | CLAUSE_END, i, end)
        from_scope = self.from_items(stop + 1, end) if self.word(stop) == "FROM" else []
        columns: list[ResultColumn] = []
        for a, b in self.split_commas(i, stop):
            columns += self.describe_item(a, b, from_scope)
        return self.combine_branches(columns, stop, end)

    def describe_item(self, a: int, b: int,
                      scope: list[tuple[str, TableDef]]) -> list[ResultColumn]:
        if b - a == 1 and self.text(a) == "*":
            return [ResultColumn(c.name, c.type, True) for _, t in scope for c in t.columns]
        if b - a == 3 and self.text(a + 1) == "." and self.text(a + 2) == "*":
            qual = ident(self.toks[a])
            return [ResultColumn(c.name, c.type, True)
                    for alias, t in scope if qual in (alias, t.name) for c in t.columns]
        alias, b = self.item_alias(a, b)
        name, ctype, stored = self.expression_type(a, b, scope)
        return [ResultColumn(alias or name, ctype, stored)]

    def item_alias(self, a: int, b: int) -> tuple[str | None, int]:
        """A select item [a, b)'s display label (``expr [AS] label``), if it
        has one, and where its expression ends."""
        if b - a >= 2 and self.toks[b - 1].kind == "word" and (
                self.word(b - 2) == "AS" or self.toks[b - 2].kind in ("word", "str", "num")
                and self.toks[b - 2].text not in ("DISTINCT",) and self.text(b - 2) != "."):
            if self.toks[b - 1].text not in ("END", "TODAY", "USER", "CURRENT") and \
                    self.toks[b - 1].text not in UNIT_WORDS:
                return ident(self.toks[b - 1]), b - (2 if self.word(b - 2) == "AS" else 1)
        return None, b

    def expression_type(self, a: int, b: int, scope: list[tuple[str, TableDef]]
                        ) -> tuple[str, ColumnType, bool]:
        """Informix-style (name, type, stored) of the expression [a, b)."""
        toks = self.toks[a:b]
        first = toks[0]
        saved, self.scope = self.scope, scope or self.scope
        try:
            if len(toks) == 1 and first.kind == "word" and first.text not in (
                    "TODAY", "USER", "CURRENT"):
                ctype = self.column_type(None, ident(first))
                if ctype is not None:
                    return ident(first), ctype, True
            if len(toks) == 3 and self.sequence_operator(a):
                return "(expression)", T_INT8, False          # sequences are INT8
            if len(toks) == 3 and toks[1].text == "." and toks[2].kind == "word":
                ctype = self.column_type(ident(first), ident(toks[2]))
                if ctype is not None:
                    return ident(toks[2]), ctype, True
            return self.computed_type(a, b)
        finally:
            self.scope = saved

    def computed_type(self, a: int, b: int) -> tuple[str, ColumnType, bool]:
        toks = self.toks[a:b]
        first = toks[0]
        if len(toks) == 1:
            if first.kind == "str":
                return "(constant)", ColumnType(TypeCode.CHAR, max(1, len(first.text))), False
            if first.kind == "num":
                return "(constant)", number_type(first.raw), False
            if first.text == "TODAY":
                return "(today)", T_DATE, False
            if first.text == "USER":
                return "(user)", ColumnType(TypeCode.CHAR, 32), False
        nested = self.subquery_type(a, b) or self.case_type(a, b)
        if nested is not None:
            return "(expression)", nested, False
        result = self.expression_result(a, b)
        if result is not None and result.type is not None:
            return "(expression)", result.type, False
        if first.text == "CURRENT":
            words, _ = self.qualifier_words(a + 1, b)
            return "(current)", datetime_type(words or ["YEAR", "TO", "FRACTION(3)"]), False
        if first.text in ("DATETIME", "INTERVAL") and self.text(a + 1) == "(":
            close = self.close_paren(a + 1, b)
            words, n = self.qualifier_words(close + 1, b)
            if close + 1 + n == b:
                return "(constant)", temporal_type(first.text, words), False
        if first.text == "DBINFO" and len(toks) > 2 and toks[2].kind == "str":
            what = toks[2].text.lower()
            if what.startswith("sqlca") or what == "sessionid":
                return "(expression)", T_INTEGER, False
            if what in ("serial8", "bigserial", "utc_current"):
                return "(expression)", T_BIGINT, False
            return "(expression)", T_VARCHAR, False
        call = first.kind == "word" and self.text(a + 1) == "(" and \
            self.close_paren(a + 1, b) == b - 1
        if call and first.text in AGGREGATES:
            return self.aggregate_type(first.text, a + 2, b - 1)
        if call and first.text in FUNCTION_RESULTS:
            return "(expression)", FUNCTION_RESULTS[first.text], False
        if call and first.text in self.functions:        # an SPL function
            return "(expression)", self.functions[first.text], False
        return "(expression)", self.operand_type(a, b), False

    def subquery_type(self, a: int, b: int) -> ColumnType | None:
        """A scalar subquery ``(SELECT x ...)`` has the type of its one
        select item (IBM Informix Guide to SQL: Syntax, "Subqueries in
        SELECT Statements": a subquery in the projection list returns one
        value of its column's type); None when [a, b) is not one."""
        if not (self.text(a) == "(" and self.word(a + 1) == "SELECT"
                and self.close_paren(a, b) == b - 1):
            return None
        saved = self.scope
        try:
            columns = self.describe(a + 1)
        finally:
            self.scope = saved
        return columns[0].type if len(columns) == 1 else None

    def case_type(self, a: int, b: int) -> ColumnType | None:
        """A CASE expression's type: the type that holds every THEN and ELSE
        result, by the same widening as a UNION's columns (HCL Informix
        Guide to SQL: Syntax, "CASE expressions data type compatibility",
        ids_sqs_2105: compatible character types give a character type,
        compatible numeric types the wider numeric one).  NULL results do
        not count; None when [a, b) is not one CASE or no result is typed."""
        # ExprRules.case_end: the index after the END closing the CASE at a
        if self.word(a) != "CASE" or self.case_end(a, b) != b:
            return None
        found: ColumnType | None = None
        for x, y in self.case_results(a, b - 1):
            if y - x == 1 and (self.word(x) == "NULL" or self.toks[x].kind == "param"):
                continue
            _, ctype, _ = self.expression_type(x, y, self.scope)
            try:
                found = ctype if found is None else union_type(found, ctype)
            except SqlError:
                return None
        return found

    def case_results(self, a: int, end: int) -> list[tuple[int, int]]:
        """Ranges of the THEN and ELSE results of the CASE at a ending at end."""
        out: list[tuple[int, int]] = []
        depth, parens, start = 0, 0, None
        for j in range(a + 1, end + 1):
            text, word = self.text(j), self.word(j)
            if self.toks[j].kind == "op" and text in ("(", ")"):
                parens += 1 if text == "(" else -1
                continue
            if word == "CASE":
                depth += 1
            elif word == "END" and depth:
                depth -= 1
            elif not depth and not parens and word in ("WHEN", "ELSE", "THEN", "END"):
                if start is not None:
                    out.append((start, j))
                start = j + 1 if word in ("THEN", "ELSE") else None
        return out

    def aggregate_type(self, func: str, a: int, b: int) -> tuple[str, ColumnType, bool]:
        if func == "COUNT":
            star = b - a == 1 and self.text(a) == "*"
            return ("(count(*))" if star else "(count)"), T_INTEGER, False
        if self.word(a) in ("DISTINCT", "UNIQUE", "ALL"):
            a += 1
        _, arg, _ = self.expression_type(a, b, self.scope)
        name = f"({func.lower()})"
        if func in ("MIN", "MAX"):
            return name, ColumnType(arg.code, arg.length), False
        if arg.code in FLOAT_CODES:
            return name, T_FLOAT, False
        if arg.code in DECIMAL_CODES and func == "SUM":
            return name, ColumnType(arg.code, (32 << 8) | (arg.length & 0xFF)), False
        return name, T_DECIMAL, False

    def operand_type(self, a: int, b: int) -> ColumnType:
        """Best-effort type of a computed expression from its operands."""
        codes: set[TypeCode] = set()
        ops: set[str] = set()
        for j in range(a, b):
            t = self.toks[j]
            if t.kind == "op":
                ops.add(t.text)
            elif t.kind == "num":
                codes.add(number_type(t.raw).code)
            elif t.kind == "str":
                codes.add(TypeCode.VARCHAR)
            elif t.kind == "word" and self.text(j + 1) == "(":
                codes.add(FUNCTION_TYPES.get(t.text, TypeCode.VARCHAR))
            elif t.kind == "word" and self.text(j + 1) != "." and t.text == "TODAY":
                codes.add(TypeCode.DATE)
            elif t.kind == "word" and self.text(j + 1) != ".":
                qual = ident(self.toks[j - 2]) if self.text(j - 1) == "." else None
                ctype = self.column_type(qual, ident(t))
                if ctype is not None:
                    codes.add(ctype.code)
        return combine(codes, ops)
