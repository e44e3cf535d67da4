"""Translation of Informix SQL into SQLite SQL, plus what DESCRIBE needs.

The emulator stores data in SQLite but must answer like Informix: accept its
syntax (FIRST/SKIP, TODAY, CURRENT, MATCHES, brace comments, owner-qualified
names), report result columns with Informix types and names, and know which
column a ``?`` is compared with so bound strings can be converted the way the
server would.  Everything here works on a token list, never on raw text, so
quoted strings and comments can not be mistaken for syntax.

This module is pure: it sees the catalog only through ``TableDef`` objects
handed in by the engine and never touches SQLite.
"""

from __future__ import annotations

from typing import Callable, Container, Mapping

from informix_stream.codecs import ColumnType, TypeCode

from .statements import (IMAGE_COLUMN, NOT_SUPPORTED, Bind, ColumnDef, SqlError, StatementKind,
                         TableDef, Translation, exact_decimal, sql_ident)
from .blob_use import BlobUseRules
from . import sysmaster
from .dbprefix import resolve_database_prefixes
from .outer_joins import has_informix_outer, rewrite_outer
from .tokens import COLLECTIONS, Token, ident, quote, tokenize
from .translate_alter import AlterRules
from .translate_ddl import DdlRules
from .merge import MergeRules
from .translate_expr import ExprRules, refuse_quantified
from .translate_with import CteRules
from .views import ViewRules
from .view_writes import rewrite_view_write, write_target
from .translate_select import SelectRules
from .translate_write import WriteRules
from .typerules import (CLAUSE_END, CMP_OPS, DECIMAL_CODES, FUNCTION_RENAMES, INT_CODES,
                        JOIN_WORDS, TODAY_SQL, T_DECIMAL, UNIT_WORDS, collection_values,
                        current_sql, datetime_type, temporal_type)


__all__ = ["translate", "Lookup"]


# ---------------------------------------------------------------------------
# Statement translation
# ---------------------------------------------------------------------------

Lookup = Callable[[str], "TableDef | None"]
_ARITH_TEXT = frozenset({"+", "-", "*", "/", "||"})


def translate(sql: str, lookup: Lookup, sequences: Container[str] = (),
              functions: Mapping[str, ColumnType] | None = None, *,
              database: str = "", delimident: bool = False, ansi: bool = False) -> Translation:
    """Translate one Informix statement; ``lookup`` resolves table names,
    ``sequences`` holds the database's sequence names and ``functions`` the
    result type of each SPL function (upper-case name) for DESCRIBE.
    ``database`` is the session's current database: a ``database:`` prefix
    naming it is dropped, one naming any other is refused (dbprefix).
    ``delimident``: the session's DELIMIDENT, under which "x" is an identifier.
    ``ansi``: an ANSI-compliant database, where the owner is part of a
    table's name (``_Translator.owner``)."""
    tokens = resolve_database_prefixes(tokenize(sql, delimident), database)
    if not tokens:
        raise SqlError(-201, message="empty statement")
    if any(t.kind == "word" and t.text == IMAGE_COLUMN.upper() for t in tokens):
        raise SqlError(-217, 0, IMAGE_COLUMN, f"column {IMAGE_COLUMN} not found")
    refuse_quantified(tokens)
    if has_informix_outer(tokens):
        tokens = rewrite_outer(tokens, lookup)
    checks: list[list[Token]] = []
    probe = None
    written = write_target(tokens, lookup)
    if written is not None:
        tokens, checks, probe = rewrite_view_write(tokens, lookup, delimident)
    try:
        translator = _Translator(sql, tokens, lookup, sequences, functions or {})
        translator.ansi, translator.current_db = ansi, database
        done = translator.run()
        for check in checks:
            query = _Translator(sql, check, lookup, sequences, functions or {}).run()
            query.table = written[0].name            # the view named in errors
            done.view_checks.append(query)
        if probe is not None:
            done.view_probe = _Translator(sql, probe, lookup, sequences, functions or {}).run()
        return done
    except (IndexError, ValueError):
        # Running off the end of the tokens means the statement is incomplete:
        # the error is at its end.
        raise SqlError(-201, message="a syntax error has occurred",
                       offset=len(sql.rstrip().rstrip(";").rstrip())) from None


# Words SQLite reserves that Informix catalog columns are named
# (sysdefaults.default, sysreferences.primary, syssequences.order): after
# "alias." they can only be a column and are quoted for SQLite.
_SQLITE_RESERVED = frozenset({"DEFAULT", "PRIMARY", "ORDER", "CHECK", "GROUP", "INDEX"})


class _Translator(CteRules, ViewRules, SelectRules, WriteRules, MergeRules, AlterRules,
                  DdlRules, ExprRules, BlobUseRules):
    """Single-use translator over one statement's tokens."""

    def __init__(self, sql: str, tokens: list[Token], lookup: Lookup,
                 sequences: Container[str] = (),
                 functions: Mapping[str, ColumnType] | None = None) -> None:
        self.sql = sql
        self.functions = functions or {}
        self.toks = tokens
        self.lookup = lookup
        self.sequences = sequences
        self.nextvals: set[str] = set()
        self.binds: list[Bind] = []
        # Each marker's client index, by its place in the text: the outer-join
        # rewrite moves WHERE conditions (and their markers) into ON clauses.
        self.param_numbers = {pos: n for n, pos in
                              enumerate(sorted(t.pos for t in tokens if t.kind == "param"))}
        self.param_count = len(self.param_numbers)
        self.scope: list[tuple[str, TableDef]] = []   # (alias, table) of every FROM

    # -- token helpers ----------------------------------------------------
    def word(self, i: int) -> str:
        return self.toks[i].text if i < len(self.toks) and self.toks[i].kind == "word" else ""

    def text(self, i: int) -> str:
        return self.toks[i].text if i < len(self.toks) else ""

    def syntax_error(self, i: int, message: str) -> None:
        """-201 at token i: SQ_ERR's offset is where the server's parser
        stopped, the end of the offending token (sqlca.sqlerrd[4], "the
        offset into the prepared statement text at which the error occurs",
        ESQL/C Guide "Errors after a PREPARE statement"; JDBC
        IfxSqli.receiveError keeps it as the statement offset, informix-driver
        as ``exc.offset``).  Past the last token: the end of the text."""
        if i < len(self.toks):
            t = self.toks[i]
            offset = t.pos + len(t.raw)
        else:
            offset = len(self.sql.rstrip().rstrip(";").rstrip())
        raise SqlError(-201, message=message, offset=offset)

    def close_paren(self, i: int, end: int | None = None) -> int:
        """Index of the ')' matching the '(' at i."""
        depth = 0
        for j in range(i, len(self.toks) if end is None else end):
            t = self.toks[j]
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
                if depth == 0:
                    return j
        self.syntax_error(end if end is not None else len(self.toks), "unbalanced parentheses")

    def split_commas(self, start: int, end: int) -> list[tuple[int, int]]:
        """Top-level comma-separated ranges in [start, end)."""
        parts, depth, first = [], 0, start
        for j in range(start, end):
            t = self.toks[j]
            if t.kind == "op":
                if t.text == "(":
                    depth += 1
                elif t.text == ")":
                    depth -= 1
                elif t.text == "," and depth == 0:
                    parts.append((first, j))
                    first = j + 1
        parts.append((first, end))
        return parts

    def find_top(self, words: frozenset[str], start: int, end: int) -> int:
        """First depth-0 keyword of ``words`` in [start, end), else end."""
        depth = 0
        for j in range(start, end):
            t = self.toks[j]
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
            elif depth == 0 and t.kind == "word" and t.text in words:
                return j
        return end

    def table(self, name: str) -> TableDef:
        # name: already folded (tokens.ident); a delimited name keeps its case
        tdef = self.lookup(name)
        if tdef is None and name in self.sequences:
            raise SqlError(-8317, 0, name, "a sequence cannot appear in the FROM clause")
        if tdef is None and self.current_db.lower() == sysmaster.NAME:
            sysmaster.check_table(name)       # a sysmaster table the emulator lacks
        if tdef is None:
            raise SqlError(-206, -111, name, f"table {name} not found")
        return tdef

    ansi = False
    current_db = ""          # the session's database (translate's ``database``)

    def owner(self, i: int) -> None:
        """The owner qualifier at token i.  In an ANSI database ``bob.t`` and
        ``informix.t`` are different tables (IBM Database Design Guide,
        "ANSI-compliant databases": owner naming); the emulator keeps one
        table per name, owned by informix as systables says, so another
        owner is refused rather than resolved to informix's table."""
        if self.ansi and ident(self.toks[i]).lower() != "informix":
            raise SqlError(NOT_SUPPORTED, message="tables of owners other than informix in an "
                           "ANSI-compliant database are not supported by the emulator: "
                           f"{ident(self.toks[i])}")

    def table_name(self, i: int) -> tuple[str, int]:
        """Read [db:][owner.]name at i; returns (name, next index)."""
        if self.text(i + 1) == ":":
            i += 2
        if self.text(i + 1) == "." and self.toks[i].kind in ("word", "str"):
            self.owner(i)
            i += 2
        if i >= len(self.toks) or self.toks[i].kind != "word":
            self.syntax_error(i, "table name expected")
        return ident(self.toks[i]), i + 1

    # -- dispatch ----------------------------------------------------------
    def run(self) -> Translation:
        first = self.word(0)
        handler = {
            "SELECT": self.select, "INSERT": self.insert,
            "UPDATE": self.update if self.word(1) != "STATISTICS" else self.no_op,
            "DELETE": self.delete, "CREATE": self.create, "DROP": self.drop,
            "BEGIN": self.begin, "COMMIT": self.end_work, "ROLLBACK": self.end_work,
            "DATABASE": self.database, "SET": self.set_option,
            "TRUNCATE": self.truncate, "SAVEPOINT": self.savepoint,
            "RELEASE": self.release_savepoint, "ALTER": self.alter, "RENAME": self.rename,
            "MERGE": self.merge,
        }.get(first)
        if handler is not None:
            return handler()
        if first in ("LOCK", "UNLOCK"):
            return self.lock_table()
        if first == "CLOSE":
            return Translation(StatementKind.OTHER)
        if first == "WITH":
            return self.with_select()
        if self.text(0) == "(":
            return self.select()
        self.syntax_error(0, f"unsupported statement {self.toks[0].raw}")

    def finish(self, kind: StatementKind, pieces: list[str], **extra: object) -> Translation:
        return Translation(kind, " ".join(pieces), self.binds, self.param_count, **extra)

    # -- expression rewriting ----------------------------------------------
    def rewrite(self, start: int, end: int) -> list[str]:
        """SQLite text pieces for tokens [start, end), recursing into ()."""
        out: list[str] = []
        i = start
        in_from = False
        while i < end:
            t = self.toks[i]
            if not in_from:
                after = self.expression_span(i, end, out)
                if after:
                    i = after
                    continue
            if t.kind == "op" and t.text == "(":
                close = self.close_paren(i, end)
                inner = self.select_body(i + 1, close) if self.word(i + 1) == "SELECT" \
                    else self.rewrite(i + 1, close)
                out += ["(", *inner, ")"]
                i = close + 1
                continue
            if t.kind == "word":
                if t.text == "SELECT":
                    out += self.select_body(i, end)
                    return out
                if t.text == "FROM":
                    in_from = True
                elif t.text in CLAUSE_END or t.text == "ON":
                    in_from = False
                if in_from and t.text != "FROM" and self.text(i + 1) in (".", ":") \
                        and self.text(i - 1) != ".":
                    if self.text(i + 1) == ".":
                        self.owner(i)
                    i += 2          # owner or database prefix of a table name
                    continue
                if in_from and i and self.text(i - 1) in ("FROM", ",", "JOIN"):
                    stored = self.storage_ref(i)
                    if stored:
                        out.append(stored)
                        i += 1
                        continue
                if self.sequence_operator(i):
                    out.append(self.sequence_call(i))
                    i += 3
                    continue
                if not in_from and self.blob_reference(i):
                    self.blob_use(i)            # BYTE/TEXT: where Informix allows it
                step = self.rewrite_word(i, end, out)
                if step:
                    i += step
                    continue
                if self.text(i - 1) == "." and t.text in _SQLITE_RESERVED:
                    out.append(f'"{ident(t)}"')    # d.default, r.primary (catalog)
                    i += 1
                    continue
                out.append(t.raw)
            elif t.kind == "str":
                if in_from and self.text(i + 1) == ".":
                    self.owner(i)
                    i += 2          # "owner".table
                    continue
                self.literal(i, out)
            elif t.kind == "param":
                self.binds.append(Bind(self.param_index(i), None, self.compared_type(i),
                                       compared=True))
                out.append("?")
            elif t.kind == "num" or t.text == "-" and self.signed_number(i):
                i += self.number(i, out)
                continue
            elif t.kind == "coll":
                # valid Informix SQL (a collection literal in an expression);
                # the emulator stores such values but cannot compute with them
                raise SqlError(NOT_SUPPORTED, message="a SET/MULTISET/LIST literal in an "
                               "expression is not supported by the emulator (only as a "
                               "value to insert or update, or in TABLE())")
            elif t.kind == "op" and t.text == "::":
                raise SqlError(NOT_SUPPORTED, message="this use of :: is not supported by the "
                                                      "emulator")
            else:
                out.append(t.raw)
            i += 1
        return out

    def sequence_operator(self, i: int) -> bool:
        """Is ``seq.NEXTVAL``/``seq.CURRVAL`` at i (seq one of the database's)?"""
        return self.text(i + 1) == "." and self.word(i + 2) in ("NEXTVAL", "CURRVAL") \
            and ident(self.toks[i]) in self.sequences

    def sequence_call(self, i: int) -> str:
        """The SQLite call for the sequence operator at i.  Informix gives
        every NEXTVAL of one sequence in a statement the same value; the
        emulator's function would step it each time, so a second one is
        refused rather than answered differently."""
        name, op = ident(self.toks[i]), self.word(i + 2)
        if op == "NEXTVAL":
            if name in self.nextvals:
                raise SqlError(NOT_SUPPORTED, message=f"{name}.NEXTVAL twice in one statement "
                                                      "is not supported by the emulator")
            self.nextvals.add(name)
        return f"ifx_{op.lower()}({quote(name)})"

    def storage_ref(self, i: int) -> str:
        """For a TEMP table named at i in a FROM list: its storage table,
        aliased to its Informix name unless the statement gives an alias."""
        tdef = self.lookup(ident(self.toks[i]))
        if tdef is None or not tdef.storage:
            return ""
        nxt = self.word(i + 1)
        aliased = nxt == "AS" or (nxt and nxt not in JOIN_WORDS and nxt not in CLAUSE_END
                                  and nxt not in ("ON", "USING"))
        return tdef.sql_name if aliased else tdef.sql_ref()

    def param_index(self, i: int) -> int:
        return self.param_numbers[self.toks[i].pos]

    def literal(self, i: int, out: list[str]) -> None:
        """Emit a string literal; ones compared with typed columns become binds."""
        target = self.compared_type(i)
        if target is not None and target.code not in (
                TypeCode.CHAR, TypeCode.VARCHAR, TypeCode.NCHAR, TypeCode.NVARCHAR,
                TypeCode.LVARCHAR, TypeCode.TEXT):
            exact = T_DECIMAL if exact_decimal(target) else target
            self.binds.append(Bind(None, self.toks[i].text, exact))
            out.append("?")
        else:
            out.append(quote(self.toks[i].text))

    def signed_number(self, i: int) -> bool:
        """Is the '-' at i the sign of a number literal rather than a minus?"""
        before = self.toks[i - 1] if i else None
        return self.text(i + 1) != "" and self.toks[i + 1].kind == "num" and (
            before is None or before.kind == "op" and before.text != ")"
            or before.text in CMP_OPS or before.text in ("BETWEEN", "AND", "OR", "NOT",
                                                          "IN", "WHERE", "SELECT"))

    def number(self, i: int, out: list[str]) -> int:
        """Emit a number literal at i (with its sign); returns tokens used.

        Compared with a DECIMAL kept as exact text it becomes a bind of its
        exact digits: left to SQLite it would be read as a double first.
        """
        used = 2 if self.text(i) == "-" else 1
        text = "-" + self.toks[i + 1].text if used == 2 else self.toks[i].text
        target = self.compared_type(i)
        if target is not None and exact_decimal(target):
            self.binds.append(Bind(None, text, T_DECIMAL))
            out.append("?")
        else:
            out.append(text)
        return used

    def rewrite_word(self, i: int, end: int, out: list[str]) -> int:
        """Handle an Informix-only word at i; returns tokens consumed (0: none)."""
        w = self.toks[i].text
        nxt = self.text(i + 1)
        if self.text(i - 1) == ".":
            return 0
        blob_length = self.blob_length(i, end)
        if blob_length:
            out.append(blob_length[0])
            return blob_length[1] - i
        if w == "TODAY":
            out.append(f"({TODAY_SQL})")
            return 1
        if w == "CURRENT":
            words, n = self.qualifier_words(i + 1, end)
            dtype = datetime_type(words or ["YEAR", "TO", "FRACTION(3)"])
            out.append(current_sql(dtype))
            return 1 + n
        if w in ("DATETIME", "INTERVAL") and nxt == "(":
            return self.temporal_literal(i, end, out)
        if w == "EXTEND" and nxt == "(":
            # valid Informix (Guide to SQL: Syntax, "EXTEND Function"), which
            # SQLite would reject as a syntax error blaming the user's SQL
            raise SqlError(NOT_SUPPORTED, message="EXTEND() is not supported by the emulator")
        if w == "TABLE" and nxt == "(":
            sql, _, _, after = self.collection_table(i, end)
            out.append(sql)
            return after - i
        if w in ("SUM", "AVG") and nxt == "(":
            # Every DECIMAL/MONEY sum is exact, as the server's is: SQLite's
            # sum() adds doubles (0.1 + 0.2 != 0.3); so is an integer average,
            # a DECIMAL the server computes, where SQLite's avg() is a double.
            arg = self.argument_type(i + 1, end)
            if arg is not None and (arg.code in DECIMAL_CODES
                                    or w == "AVG" and arg.code in INT_CODES):
                out.append(f"ifx_exact_{w.lower()}")
                return 1
        if w == "OCTET_LENGTH" and nxt == "(":
            # CHAR is stored without its blank padding, which this counts.
            close = self.close_paren(i + 1, end)
            arg = self.argument_column(i + 1, end)
            width = arg.length if arg is not None and arg.code in (
                TypeCode.CHAR, TypeCode.NCHAR) else 0
            out += ["ifx_octet_length", "(", *self.rewrite(i + 2, close), f", {width}", ")"]
            return close + 1 - i
        if w == "MATCHES":
            out.append("GLOB")
            return 1
        if w == "MINUS":
            # Informix's name for EXCEPT (set operators, 11.70+).
            out.append("EXCEPT")
            return 1
        if w == "USER" and nxt != "(":
            out.append("'informix'")
            return 1
        if w in FUNCTION_RENAMES and nxt == "(":
            out.append(FUNCTION_RENAMES[w])
            return 1
        return 0

    def qualifier_words(self, i: int, end: int) -> tuple[list[str], int]:
        """Read 'UNIT [TO UNIT[(n)]]' at i; returns words and tokens used."""
        if self.word(i) not in UNIT_WORDS:
            return [], 0
        j = i
        words: list[str] = []
        while j < end and (self.word(j) in UNIT_WORDS or self.word(j) == "TO"):
            words.append(self.toks[j].text)
            j += 1
            if self.text(j) == "(":
                close = self.close_paren(j, end)
                words[-1] += "(" + "".join(t.raw for t in self.toks[j + 1:close]) + ")"
                j = close + 1
        return words, j - i

    def temporal_literal(self, i: int, end: int, out: list[str]) -> int:
        """DATETIME (2024-01-02 10:00) YEAR TO MINUTE or INTERVAL (1-06)
        YEAR TO MONTH -> a bind converted like a value of that type."""
        close = self.close_paren(i + 1, end)
        text = self.sql[self.toks[i + 1].pos + 1:self.toks[close].pos].strip()
        words, n = self.qualifier_words(close + 1, end)
        self.binds.append(Bind(None, text, temporal_type(self.toks[i].text, words)))
        out.append("?")
        return close + 1 - i + n

    def argument_column(self, i: int, end: int) -> ColumnType | None:
        """Type of the one column named inside the '(' at i, e.g. SUM(t.c)."""
        close = self.close_paren(i, end)
        j = i + 2 if self.word(i + 1) in ("DISTINCT", "UNIQUE", "ALL") else i + 1
        if close - j == 1 and self.toks[j].kind == "word":
            return self.column_type(None, ident(self.toks[j]))
        if close - j == 3 and self.text(j + 1) == ".":
            return self.column_type(ident(self.toks[j]), ident(self.toks[j + 2]))
        return None

    def argument_type(self, i: int, end: int) -> ColumnType | None:
        """Informix type of the one argument inside the '(' at i, e.g. SUM(a * b)."""
        close = self.close_paren(i, end)
        j = i + 2 if self.word(i + 1) in ("DISTINCT", "UNIQUE", "ALL") else i + 1
        if j >= close or self.text(j) == "*":
            return None
        return self.expression_type(j, close, self.scope)[1]

    def collection_table(self, i: int, end: int) -> tuple[str, str | None, TableDef, int]:
        """TABLE(SET{...}) [AS] alias [(column)] at i, for literal elements.

        Returns the SQLite subquery (one row per element), the alias, the
        derived table for typing, and the index after the clause.
        """
        close = self.close_paren(i + 1, end)
        kind = self.word(i + 2)
        if close != i + 4 or kind not in COLLECTIONS or self.toks[i + 3].kind != "coll":
            raise SqlError(-201, message="TABLE() needs a literal SET, MULTISET or LIST")
        values, ctype = collection_values(self.toks[i + 3].text)
        alias, j = self.alias_after(close + 1, end)
        column = "unnamed_col_1"
        if alias is not None and self.text(j) == "(":
            after = self.close_paren(j, end)
            column, j = ident(self.toks[j + 1]), after + 1
        rows = [f"SELECT {v} AS {sql_ident(column)}" for v in values] or \
            [f"SELECT NULL AS {sql_ident(column)} WHERE 0"]
        union = " UNION " if kind == "SET" else " UNION ALL "
        sql = "(" + union.join(rows) + ")" + (f" AS {sql_ident(alias)}" if alias else "")
        return sql, alias, TableDef(alias or "", [ColumnDef(column, ctype)], derived=True), j

    # -- typing of ? and literals -----------------------------------------
    def compared_type(self, i: int) -> ColumnType | None:
        """Type of the column a value at i is compared with or assigned to."""
        op = self.text(i - 1)
        if op in CMP_OPS or op == "BETWEEN":
            return self.colref_type_before(i - 3 if self.text(i - 2) == "NOT" else i - 2)
        if op in ("AND", ",", "("):
            # BETWEEN x AND ? / IN (?, ?)
            j = i - 2
            while j >= 0 and self.text(j) not in ("BETWEEN", "IN") and \
                    self.toks[j].kind in ("param", "str", "num", "op", "word") and \
                    self.text(j) not in CMP_OPS and i - j < 64:
                if self.toks[j].kind == "word" and self.text(j) not in ("AND",):
                    break
                j -= 1
            if self.text(j) in ("BETWEEN", "IN"):
                k = j - 1 if self.text(j - 1) != "NOT" else j - 2
                return self.colref_type_before(k)
            return None
        nxt = self.text(i + 1)
        if nxt in CMP_OPS and nxt not in ("LIKE", "MATCHES"):
            return self.colref_type_after(i + 2)
        return None

    def colref_type_before(self, j: int) -> ColumnType | None:
        if j < 0 or self.toks[j].kind != "word" or self.text(j - 1) == "TO":
            return None         # ... YEAR TO DAY = ?: a qualifier's field, not a column
        qual = ident(self.toks[j - 2]) if j >= 2 and self.text(j - 1) == "." else None
        # Only a whole operand: in ``price / n = ?`` the value meets price / n, not n.
        if self.text(j - 3 if qual else j - 1) in _ARITH_TEXT:
            return None
        return self.column_type(qual, ident(self.toks[j]))

    def colref_type_after(self, j: int) -> ColumnType | None:
        if j >= len(self.toks) or self.toks[j].kind != "word":
            return None
        if self.text(j + 1) == ".":
            if self.text(j + 3) in _ARITH_TEXT or self.text(j + 3) == "::":
                return None
            return self.column_type(ident(self.toks[j]),
                                    ident(self.toks[j + 2]) if j + 2 < len(self.toks) else "")
        if self.text(j + 1) in _ARITH_TEXT or self.text(j + 1) == "::":
            return None
        return self.column_type(None, ident(self.toks[j]))

    def column_type(self, qual: str | None, name: str) -> ColumnType | None:
        found = self.column_source(qual, name)
        return found[1].type if found is not None else None

    def column_source(self, qual: str | None, name: str) -> tuple[TableDef, ColumnDef] | None:
        """The table in scope that a column reference names, and its column."""
        for alias, tdef in self.scope:
            if qual is not None and qual not in (alias, tdef.name):
                continue
            col = tdef.column(name)
            if col is not None:
                return tdef, col
        return None
