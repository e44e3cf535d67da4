"""Parsing SPL routines (CREATE PROCEDURE / CREATE FUNCTION) into a tree the
interpreter in ``spl.py`` runs.

The subset is what real schemas use (IBM Informix Guide to SQL: Syntax,
"SPL statements"; IBM Informix Guide to SQL: Tutorial, "Create and use SPL
routines"): DEFINE, LET, IF/ELIF/ELSE, FOR, FOREACH, WHILE, EXIT, CONTINUE,
RETURN [WITH RESUME], RAISE EXCEPTION, ON EXCEPTION, CALL, EXECUTE
PROCEDURE/FUNCTION ... INTO, BEGIN ... END blocks, SYSTEM, TRACE and SQL
statements.  A construct outside it is the emulator's -9999 naming it, never
a syntax error blaming valid SPL.

Expressions stay Informix SQL text: ``Expr`` keeps the source text with
every variable reference replaced by ``?`` and the variables in order, so
the interpreter evaluates it as ``SELECT <expr> FROM systables WHERE tabid
= 1`` through the emulator's own translation (one SQL type system).  A
variable named like a column wins over the column unless the column is
qualified (IBM Guide to SQL: Tutorial, "SPL variables ... same name as a
column": the server takes the identifier as the variable).
"""

from __future__ import annotations

from typing import Callable

from informix_stream.codecs import ColumnType, parse_type

from .spl_nodes import (Block, Call, Expr, Foreach, ForRange, If, Let, Loop, OnException, Param,
                        Raise, Return, Routine, Sql, System, While, unsupported)
from .statements import SqlError
from .tokens import Token, ident, tokenize

# Words that start an SPL statement; a FOREACH SELECT without ';' ends at one.
_STATEMENT_WORDS = frozenset({
    "LET", "IF", "RETURN", "INSERT", "UPDATE", "DELETE", "CALL", "EXECUTE", "FOREACH", "FOR",
    "WHILE", "EXIT", "CONTINUE", "RAISE", "END", "SYSTEM", "TRACE", "BEGIN", "DEFINE",
    "SELECT", "ON", "ELIF", "ELSE", "LOOP", "GOTO", "CASE"})
_SQL_WORDS = frozenset({"INSERT", "UPDATE", "DELETE", "SELECT", "CREATE", "DROP", "SET", "LOCK",
                        "UNLOCK", "TRUNCATE", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE",
                        "ALTER", "RENAME", "GRANT", "REVOKE", "MERGE", "UNLOAD", "LOAD"})
_INTO_KEEP = frozenset({"TEMP", "SCRATCH", "EXTERNAL", "RAW", "STANDARD"})


Lookup = Callable[[str, str], "ColumnType | None"]     # (table, column) -> type


def parse_routine(sql: str, column_type: Lookup) -> Routine:
    """Parse CREATE [DBA] PROCEDURE|FUNCTION ... END PROCEDURE|FUNCTION."""
    return _Parser(sql, column_type).routine()


class _Parser:
    def __init__(self, sql: str, column_type: Lookup) -> None:
        self.sql = sql
        self.toks = tokenize(sql)
        self.i = 0
        self.column_type = column_type
        self.scopes: list[set[str]] = []

    # -- helpers ------------------------------------------------------------
    def word(self, k: int = 0) -> str:
        j = self.i + k
        return self.toks[j].text if j < len(self.toks) and self.toks[j].kind == "word" else ""

    def text(self, k: int = 0) -> str:
        j = self.i + k
        return self.toks[j].text if j < len(self.toks) else ""

    def expect(self, *words: str) -> None:
        for w in words:
            if self.text() != w:
                got = self.toks[self.i].raw if self.i < len(self.toks) else "end of text"
                raise SqlError(-201, message=f"SPL: {w} expected, found {got}")
            self.i += 1

    def accept(self, w: str) -> bool:
        if self.text() == w:
            self.i += 1
            return True
        return False

    def name(self) -> str:
        if self.i >= len(self.toks) or self.toks[self.i].kind != "word":
            raise SqlError(-201, message="SPL: a name expected")
        self.i += 1
        return ident(self.toks[self.i - 1])

    def skip_owner(self) -> None:
        if self.text(1) == "." and self.i + 2 < len(self.toks):
            self.i += 2

    def known(self, name: str) -> bool:
        return any(name in s for s in self.scopes)

    def span_end(self, stops: frozenset[str], semicolon: bool = True) -> int:
        """Index of the first depth-0 ';' (or word in ``stops``) from here."""
        depth = case = 0
        for j in range(self.i, len(self.toks)):
            t = self.toks[j]
            if t.kind == "op":
                if t.text == "(":
                    depth += 1
                elif t.text == ")":
                    depth -= 1
                elif t.text == ";" and depth == 0 and semicolon:
                    return j
                continue
            if depth or t.kind != "word":
                continue
            if t.text == "CASE":
                case += 1
            elif t.text == "END" and case:
                case -= 1
            elif t.text in stops and j > self.i and not case and not self._inside_sql(j):
                return j
        return len(self.toks)

    def _inside_sql(self, j: int) -> bool:
        """Is the stop word at j part of the SQL around it (FOR UPDATE, UNION SELECT)?"""
        t, before = self.toks[j].text, self.toks[j - 1].text
        after = self.toks[j + 1].text if j + 1 < len(self.toks) else ""
        return (t == "FOR" and after in ("UPDATE", "READ")) or \
            (t == "UPDATE" and before == "FOR") or \
            (t == "SELECT" and before in ("UNION", "ALL", "INTERSECT", "MINUS", "EXCEPT")) or \
            (t == "ON" and after != "EXCEPTION")

    def expr(self, a: int, b: int) -> Expr:
        """The expression of tokens [a, b) with variables made '?'."""
        if a >= b:
            raise SqlError(-201, message="SPL: an expression expected")
        out, names, pos = [], [], self.toks[a].pos
        for j in range(a, b):
            t = self.toks[j]
            prev = self.toks[j - 1].text if j > a else ""
            nxt = self.toks[j + 1].text if j + 1 < b else ""
            if t.kind == "word" and self.known(ident(t)) and prev != "." and \
                    nxt not in (".", "("):
                out.append(self.sql[pos:t.pos])
                out.append("?")
                names.append(ident(t))
                pos = t.pos + len(t.raw)
        end = self.toks[b - 1]
        out.append(self.sql[pos:end.pos + len(end.raw)])
        return Expr("".join(out), names, self.toks[a:b])

    def expr_list(self, a: int, b: int) -> list[Expr]:
        """Comma-separated expressions in [a, b)."""
        parts, depth, first = [], 0, a
        for j in range(a, b):
            t = self.toks[j]
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
            elif t.kind == "op" and t.text == "," and depth == 0:
                parts.append(self.expr(first, j))
                first = j + 1
        parts.append(self.expr(first, b))
        return parts

    def close_paren(self, j: int) -> int:
        depth = 0
        for k in range(j, len(self.toks)):
            if self.toks[k].text == "(" and self.toks[k].kind == "op":
                depth += 1
            elif self.toks[k].text == ")" and self.toks[k].kind == "op":
                depth -= 1
                if depth == 0:
                    return k
        raise SqlError(-201, message="SPL: unbalanced parentheses")

    def type_until(self, stops: frozenset[str]) -> ColumnType:
        """A data type (or LIKE table.column) up to a depth-0 stop."""
        if self.word() == "LIKE":
            self.i += 1
            parts = [self.name()]
            while self.accept("."):
                parts.append(self.name())
            if len(parts) < 2:
                raise SqlError(-201, message="SPL: LIKE table.column expected")
            ctype = self.column_type(parts[-2], parts[-1])
            if ctype is None:
                raise SqlError(-217, 0, parts[-1], f"column {parts[-1]} not found")
            return ctype
        start = self.i
        while self.i < len(self.toks) and self.text() not in stops:
            if self.text() == "(":
                self.i = self.close_paren(self.i)
            self.i += 1
        text = " ".join(t.raw for t in self.toks[start:self.i])
        if self.toks[start].text in ("REFERENCES", "ROW", "SET", "MULTISET", "LIST",
                                     "COLLECTION", "SERIAL", "SERIAL8", "BIGSERIAL"):
            raise unsupported(f"SPL variables of type {self.toks[start].raw}")
        try:
            return parse_type(text)
        except ValueError:
            raise unsupported(f"SPL data type {text}") from None

    # -- routine ------------------------------------------------------------
    def routine(self) -> Routine:
        self.expect("CREATE")
        self.accept("DBA")
        kind = self.word()
        if kind not in ("PROCEDURE", "FUNCTION"):
            raise SqlError(-201, message="PROCEDURE or FUNCTION expected")
        self.i += 1
        if self.word() == "IF" and self.word(1) == "NOT":
            raise unsupported("CREATE " + kind + " IF NOT EXISTS")
        self.skip_owner()
        name = self.name()
        self.expect("(")
        params = self.params()
        returns = self.returning()
        if kind == "FUNCTION" and not returns:
            raise SqlError(-9702, message="a FUNCTION needs a RETURNING clause")
        self.accept(";")
        if self.word() == "SPECIFIC":
            self.i += 1
            self.skip_owner()
            self.name()
        if self.word() == "WITH" and self.text(1) == "(":
            self.i = self.close_paren(self.i + 1) + 1
        self.accept(";")
        self.scopes.append({p.name for p in params})
        body = self.block(frozenset({"END"}))
        self.expect("END")
        if self.word() != kind:
            raise SqlError(-9706, message="END PROCEDURE/FUNCTION does not match CREATE")
        self.i += 1
        self.accept(";")
        if self.word() == "DOCUMENT" or self.word() == "WITH":
            self.i = len(self.toks)        # DOCUMENT '...' / WITH LISTING IN '...'
        if self.i < len(self.toks):
            raise SqlError(-201, message=f"SPL: unexpected {self.toks[self.i].raw} after END")
        return Routine(name, kind == "FUNCTION", params, returns, body, self.sql)

    def params(self) -> list[Param]:
        params: list[Param] = []
        while not self.accept(")"):
            if self.word() in ("OUT", "INOUT", "IN"):
                if self.word() != "IN":
                    raise unsupported(f"{self.word()} parameters")
                self.i += 1
            pname = self.name()
            ptype = self.type_until(frozenset({",", ")", "DEFAULT"}))
            default = None
            if self.accept("DEFAULT"):
                end = self.span_end(frozenset())
                depth, j = 0, self.i
                while j < len(self.toks):
                    t = self.toks[j].text
                    depth += t == "("
                    if t in (",", ")") and depth == 0:
                        break
                    depth -= t == ")"
                    j += 1
                default = self.expr(self.i, min(j, end))
                self.i = j
            params.append(Param(pname, ptype, default))
            self.accept(",")
        return params

    def returning(self) -> list[tuple[str, ColumnType]]:
        if self.word() not in ("RETURNING", "RETURNS"):
            return []
        self.i += 1
        returns = []
        while True:
            ctype = self.type_until(frozenset({",", ";", "AS", "WITH", "SPECIFIC"}))
            label = "(expression)"
            if self.accept("AS"):
                label = self.name()
            returns.append((label, ctype))
            if not self.accept(","):
                return returns

    # -- statements ---------------------------------------------------------
    def block(self, stops: frozenset[str]) -> Block:
        """DEFINEs, ON EXCEPTIONs, then statements until a stop word."""
        scope: set[str] = set()
        self.scopes.append(scope)
        defines: list[Param] = []
        while self.word() == "DEFINE":
            defines += self.define(scope)
        handlers = []
        while self.word() == "ON" and self.word(1) == "EXCEPTION":
            handlers.append(self.on_exception())
        body = []
        while self.i < len(self.toks) and self.word() not in stops:
            body.append(self.statement())
        self.scopes.pop()
        return Block(defines, handlers, body)

    def define(self, scope: set[str]) -> list[Param]:
        self.i += 1
        if self.word() == "GLOBAL":
            raise unsupported("DEFINE GLOBAL")
        names = [self.name()]
        while self.accept(","):
            names.append(self.name())
        ctype = self.type_until(frozenset({";"}))
        self.expect(";")
        scope.update(names)
        return [Param(n, ctype) for n in names]

    def on_exception(self) -> OnException:
        self.i += 2
        codes = None
        if self.accept("IN"):
            self.expect("(")
            close = self.close_paren(self.i - 1)
            codes = []
            for t in self.toks[self.i:close]:
                if t.kind == "num":
                    codes.append(-int(t.text) if codes is not None and self._negative(t) else
                                 int(t.text))
            self.i = close + 1
        targets = []
        if self.accept("SET"):
            targets = [self.name()]
            while self.accept(","):
                targets.append(self.name())
        body = self.block(frozenset({"END"}))
        self.expect("END", "EXCEPTION")
        resume = False
        if self.word() == "WITH" and self.word(1) == "RESUME":
            self.i += 2
            resume = True
        self.accept(";")
        return OnException(codes, targets, body, resume)

    def _negative(self, t: Token) -> bool:
        k = self.toks.index(t)
        return k > 0 and self.toks[k - 1].text == "-"

    def statement(self) -> object:
        w = self.word()
        handler = getattr(self, "st_" + w.lower(), None) if w else None
        if w in ("BEGIN",) and self.word(1) in ("WORK", "TRANSACTION"):
            handler = None
        if handler is not None:
            return handler()
        if w in _SQL_WORDS or w == "BEGIN":
            return self.sql_statement()
        what = self.toks[self.i].raw if self.i < len(self.toks) else "end of text"
        if w in ("LOOP", "GOTO", "CASE", "DEFINE", "ON"):
            raise unsupported(f"the SPL {w} statement here")
        raise unsupported(f"the SPL statement starting {what!r}")

    def end_statement(self) -> int:
        end = self.span_end(frozenset())
        if end >= len(self.toks):
            raise SqlError(-201, message="SPL: ';' expected")
        return end

    def st_begin(self) -> Block:
        self.i += 1
        body = self.block(frozenset({"END"}))
        self.expect("END")
        self.accept(";")
        return body

    def st_let(self) -> Let:
        self.i += 1
        targets = self.targets()
        self.expect("=")
        end = self.end_statement()
        a = self.i
        self.i = end + 1
        if self.toks[a].text == "(" and self.toks[a + 1].text == "SELECT" and \
                self.close_paren(a) == end - 1:
            inner = self.expr(a + 1, end - 1)
            return Let(targets, [], query=Sql(inner, targets, True))
        if len(targets) > 1 and self.toks[a].kind == "word" and self.toks[a + 1].text == "(" \
                and self.close_paren(a + 1) == end - 1:
            args = self.expr_list(a + 2, end - 1) if end - 1 > a + 2 else []
            return Let(targets, [], call=Call(ident(self.toks[a]), args, targets))
        exprs = self.expr_list(a, end)
        if len(exprs) != len(targets):
            raise SqlError(-201, message="SPL: LET needs one value per variable")
        return Let(targets, exprs)

    def targets(self) -> list[str]:
        names = [self.name()]
        while self.accept(","):
            names.append(self.name())
        for n in names:
            if not self.known(n):
                raise SqlError(-667, 0, n, f"variable {n} not declared")
        return names

    def st_if(self) -> If:
        branches = []
        orelse = None
        while True:
            self.i += 1
            then = self.span_end(frozenset({"THEN"}), semicolon=False)
            cond = self.expr(self.i, then)
            self.i = then + 1
            branches.append((cond, self.block(frozenset({"ELIF", "ELSE", "END"}))))
            if self.word() != "ELIF":
                break
        if self.accept("ELSE"):
            orelse = self.block(frozenset({"END"}))
        self.expect("END", "IF")
        self.accept(";")
        return If(branches, orelse)

    def st_for(self) -> ForRange:
        self.i += 1
        var = self.name()
        scope = {var}
        ranges = []
        if self.accept("IN"):
            self.expect("(")
            close = self.close_paren(self.i - 1)
            for part in self._split(self.i, close):
                ranges.append(self._range(*part))
            self.i = close + 1
        else:
            self.expect("=")
            stop = self.span_end(frozenset({"LET", "IF", "RETURN", "INSERT", "UPDATE", "DELETE",
                                            "CALL", "EXECUTE", "FOREACH", "FOR", "WHILE",
                                            "EXIT", "CONTINUE", "RAISE", "END", "SYSTEM",
                                            "TRACE", "BEGIN", "SELECT", "ON"}))
            ranges.append(self._range(self.i, stop))
            self.i = stop
        self.accept(";")
        self.scopes.append(scope)
        body = self.block(frozenset({"END"}))
        self.scopes.pop()
        self.expect("END", "FOR")
        self.accept(";")
        if not self.known(var):
            raise SqlError(-667, 0, var, f"variable {var} not declared")
        return ForRange(var, ranges, body)

    def _split(self, a: int, b: int) -> list[tuple[int, int]]:
        parts, depth, first = [], 0, a
        for j in range(a, b):
            t = self.toks[j].text
            depth += t == "("
            depth -= t == ")"
            if t == "," and depth == 0:
                parts.append((first, j))
                first = j + 1
        parts.append((first, b))
        return parts

    def _range(self, a: int, b: int) -> tuple[Expr, Expr | None, Expr | None]:
        to = step = None
        for j in range(a, b):
            if self.toks[j].text == "TO" and to is None:
                to = j
            elif self.toks[j].text == "STEP":
                step = j
        if to is None:
            return self.expr(a, b), None, None
        stop_end = step if step is not None else b
        return (self.expr(a, to), self.expr(to + 1, stop_end),
                self.expr(step + 1, b) if step is not None else None)

    def st_while(self) -> While:
        self.i += 1
        stop = self.span_end(_STATEMENT_WORDS, semicolon=True)
        cond = self.expr(self.i, stop)
        self.i = stop
        self.accept(";")
        body = self.block(frozenset({"END"}))
        self.expect("END", "WHILE")
        self.accept(";")
        return While(cond, body)

    def st_foreach(self) -> Foreach:
        self.i += 1
        if self.word() not in ("SELECT", "EXECUTE", "WITH"):
            self.name()                                   # cursor name
            if self.word() == "WITH" and self.word(1) == "HOLD":
                self.i += 2
            self.expect("FOR")
        if self.word() == "EXECUTE":
            call = self.st_execute()
            query: Sql | Call = call
            targets = call.targets
        elif self.word() == "SELECT":
            stop = self.span_end(_STATEMENT_WORDS)
            query = self.select_into(self.i, stop)
            targets = query.targets
            self.i = stop
            self.accept(";")
        else:
            raise unsupported(f"FOREACH over {self.toks[self.i].raw}")
        body = self.block(frozenset({"END"}))
        self.expect("END", "FOREACH")
        self.accept(";")
        return Foreach(query, targets, body)

    def select_into(self, a: int, b: int) -> Sql:
        """SELECT ... INTO vars FROM ...: the statement without INTO, and vars."""
        depth, into = 0, None
        for j in range(a, b):
            t = self.toks[j].text
            depth += t == "("
            depth -= t == ")"
            if depth == 0 and t == "INTO" and self.toks[j].kind == "word":
                into = j
                break
        if into is None or self.toks[into + 1].text in _INTO_KEEP:
            return Sql(self.expr(a, b), [], True)
        j = into + 1
        names = []
        while j < b and self.toks[j].kind == "word":
            names.append(ident(self.toks[j]))
            j += 1
            if self.toks[j].text != ",":
                break
            j += 1
        for n in names:
            if not self.known(n):
                raise SqlError(-667, 0, n, f"variable {n} not declared")
        head, tail = self.expr(a, into), self.expr(j, b)
        return Sql(Expr(head.sql + " " + tail.sql, head.names + tail.names,
                        head.tokens + tail.tokens), names, True)

    def st_exit(self) -> Loop:
        return self._loop(True)

    def st_continue(self) -> Loop:
        return self._loop(False)

    def _loop(self, exit_: bool) -> Loop:
        self.i += 1
        kind = self.word() if self.word() in ("FOR", "WHILE", "FOREACH", "LOOP") else ""
        if kind:
            self.i += 1
        self.expect(";")
        return Loop(exit_, kind)

    def st_return(self) -> Return:
        self.i += 1
        end = self.end_statement()
        b = end
        resume = False
        if end - self.i >= 2 and self.toks[end - 2].text == "WITH" and \
                self.toks[end - 1].text == "RESUME":
            b, resume = end - 2, True
        exprs = self.expr_list(self.i, b) if b > self.i else []
        self.i = end + 1
        return Return(exprs, resume)

    def st_raise(self) -> Raise:
        self.i += 1
        self.expect("EXCEPTION")
        end = self.end_statement()
        args = self.expr_list(self.i, end)
        self.i = end + 1
        return Raise(args)

    def st_call(self) -> Call:
        self.i += 1
        return self._call(("RETURNING",))

    def st_execute(self) -> Call:
        if self.word(1) not in ("PROCEDURE", "FUNCTION", "ROUTINE"):
            raise unsupported("the SPL statement EXECUTE " + self.text(1))
        self.i += 2
        return self._call(("INTO",))

    def _call(self, into: tuple[str, ...]) -> Call:
        self.skip_owner()
        name = self.name()
        self.expect("(")
        close = self.close_paren(self.i - 1)
        args = self.expr_list(self.i, close) if close > self.i else []
        self.i = close + 1
        targets = []
        if self.word() in into:
            self.i += 1
            targets = self.targets()
        self.accept(";")
        return Call(name, args, targets)

    def st_system(self) -> System:
        self.i += 1
        end = self.end_statement()
        expr = self.expr(self.i, end)
        self.i = end + 1
        return System(expr)

    def st_trace(self) -> None:
        self.i = self.end_statement() + 1
        return None

    def sql_statement(self) -> Sql:
        end = self.end_statement()
        a, self.i = self.i, end + 1
        if self.toks[a].text == "SELECT":
            return self.select_into(a, end)
        return Sql(self.expr(a, end), [], False)
