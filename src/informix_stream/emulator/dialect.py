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

import enum
import re
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from informix_stream.codecs import TU_SECOND, ColumnType, TypeCode, parse_type
from informix_stream.errors import ProgrammingError
from informix_stream.sqllex import opaque_regions

__all__ = [
    "SqlError", "StatementKind", "ResultColumn", "ColumnDef", "TableDef", "Bind",
    "Translation", "CreateTable", "CreateIndex", "Drop", "Token", "tokenize",
    "translate", "CURRENT_SQL", "IMAGE_COLUMN", "exact_decimal",
]

IMAGE_COLUMN = "_ifx_row"
"""Hidden column of every user table whose types all have a row encoding:
the row's complete SQ_TUPLE message, kept current by the engine so a
``SELECT *`` can be served without encoding anything."""


def exact_decimal(ctype: ColumnType) -> bool:
    """DECIMAL/MONEY too wide for a double: stored as exact text and compared
    through the engine's decimal collation instead of as SQLite numbers."""
    return ctype.code in _DECIMAL_CODES and ctype.precision > 15


class SqlError(Exception):
    """An Informix SQL error: sqlcode, ISAM code and the offending name."""

    def __init__(self, sqlcode: int, isam: int = 0, near: str = "",
                 message: str = "") -> None:
        super().__init__(message or f"SQL error {sqlcode}" + (f" ({near})" if near else ""))
        self.sqlcode = sqlcode
        self.isam = isam
        self.near = near
        self.message = message


class StatementKind(enum.Enum):
    SELECT = "select"
    INSERT = "insert"
    UPDATE = "update"
    DELETE = "delete"
    DDL = "ddl"
    BEGIN = "begin"
    COMMIT = "commit"
    ROLLBACK = "rollback"
    DATABASE = "database"
    OTHER = "other"


@dataclass(frozen=True)
class ResultColumn:
    """One column of a result set as DESCRIBE reports it.

    ``stored`` is True when the value comes straight from a table column of
    this type, so the engine can trust SQLite's storage class and skip
    coercion on the hot fetch path.
    """

    name: str
    type: ColumnType
    stored: bool = field(default=False, compare=False)


@dataclass
class ColumnDef:
    """A table column as declared in CREATE TABLE."""

    name: str
    type: ColumnType
    default: "Bind | str | None" = None   # Bind for a literal, str for SQLite SQL
    serial_start: int = 1


@dataclass
class TableDef:
    name: str
    columns: list[ColumnDef]
    image: bool = False      # the table keeps row images in IMAGE_COLUMN

    def column(self, name: str) -> ColumnDef | None:
        for col in self.columns:
            if col.name == name:
                return col
        return None

    @property
    def serial_columns(self) -> list[ColumnDef]:
        return [c for c in self.columns if c.type.code in _SERIAL_CODES]


class Bind(NamedTuple):
    """One ``?`` of the SQLite statement.

    ``index`` points into the client's parameters; a literal the dialect
    moved out of the SQL text (to convert it like a parameter) has index
    None and its text in ``const``.  ``type`` is the column the value meets.
    """

    index: int | None
    const: object
    type: ColumnType | None


@dataclass
class CreateTable:
    name: str
    columns: list[ColumnDef]
    uniques: list[tuple[str | None, list[str], bool]]   # (name, columns, primary)
    checks: list[str]
    if_not_exists: bool = False


@dataclass
class CreateIndex:
    name: str
    table: str
    columns: list[str]
    unique: bool


@dataclass
class Drop:
    what: str          # "TABLE" or "INDEX"
    name: str
    if_exists: bool = False


@dataclass
class Translation:
    kind: StatementKind
    sql: str = ""                      # SQLite text ("" when nothing to run)
    binds: list[Bind] = field(default_factory=list)
    param_count: int = 0
    columns: list[ResultColumn] = field(default_factory=list)
    table: str | None = None
    ddl: CreateTable | CreateIndex | Drop | None = None
    option: tuple[str, ...] = ()       # SET/DATABASE details for the engine
    # SELECT: the statement reads the row images of ``table`` instead of values.
    encoded: bool = False
    # INSERT: positions in ``binds`` of each table column's value, table order;
    # the engine computes the row image from them and binds it after the rest.
    image_binds: list[int] | None = None


# ---------------------------------------------------------------------------
# Tokenizer
# ---------------------------------------------------------------------------

class Token(NamedTuple):
    kind: str      # word, str, num, param, op
    text: str      # words upper-cased; strings unquoted
    pos: int
    raw: str


# Quoted text and comments are found by the driver's scanner (sqllex): one
# reading of Informix's lexical rules for both sides.
_TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<word>[A-Za-z_][A-Za-z0-9_$]*)
  | (?P<param>\?)
  | (?P<op>\|\||<=|>=|<>|!=|::|[-+*/%(),.;:=<>\[\]])
""", re.X | re.S)


def tokenize(sql: str) -> list[Token]:
    """Split Informix SQL into tokens, dropping whitespace and comments.

    Where quoted text and comments are comes from ``sqllex`` (the scanner the
    driver finds parameter markers with); double-quoted text is a string
    literal, as in Informix without DELIMIDENT.  Anything unrecognised (an
    unclosed quote or comment, a stray character) is Informix's -201.
    """
    try:
        regions = {start: (end, kind) for start, end, kind in opaque_regions(sql)}
    except ProgrammingError as exc:
        raise SqlError(-201, message=str(exc)) from None
    tokens: list[Token] = []
    pos = 0
    while pos < len(sql):
        region = regions.get(pos)
        if region is not None and region[1] != "dt":
            end, kind = region
            if kind in ("sq", "dq"):
                raw = sql[pos:end]
                quote = raw[0]
                tokens.append(Token("str", raw[1:-1].replace(quote * 2, quote), pos, raw))
            pos = end                              # a comment: dropped
            continue
        if sql[pos] == "{":
            # Not a comment by sqllex's reading: a SET/MULTISET/LIST literal.
            end = _collection_end(sql, pos)
            tokens.append(Token("coll", sql[pos + 1:end - 1], pos, sql[pos:end]))
            pos = end
            continue
        m = _TOKEN_RE.match(sql, pos)
        if m is None:
            raise SqlError(-201, message=f"syntax error near {sql[pos:pos + 20]!r}")
        kind, raw = m.lastgroup, m.group()
        pos = m.end()
        if kind == "ws":
            continue
        if kind == "word":
            tokens.append(Token("word", raw.upper(), m.start(), raw))
        else:
            tokens.append(Token(kind, raw, m.start(), raw))
    while tokens and tokens[-1].text == ";":
        tokens.pop()
    return tokens


_COLLECTIONS = frozenset({"SET", "MULTISET", "LIST"})
# The emulator's own code for SQL it does not implement: not a code any
# Informix server sends (documented in the README); -999 is its internal error.
NOT_SUPPORTED = -9999


def _collection_end(sql: str, pos: int) -> int:
    """Index just after the '}' closing the collection literal opened at pos."""
    depth, i = 0, pos
    while i < len(sql):
        ch = sql[i]
        if ch in "'\"":
            close = sql.find(ch, i + 1)
            if close < 0:
                break
            i = close
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise SqlError(-201, message="unterminated collection literal")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# ---------------------------------------------------------------------------
# Shared lookups
# ---------------------------------------------------------------------------

_SERIAL_CODES = frozenset({TypeCode.SERIAL, TypeCode.SERIAL8, TypeCode.BIGSERIAL})
_INT_CODES = frozenset({TypeCode.SMALLINT, TypeCode.INTEGER, TypeCode.SERIAL,
                        TypeCode.INT8, TypeCode.SERIAL8, TypeCode.BIGINT,
                        TypeCode.BIGSERIAL})
_BIG_CODES = frozenset({TypeCode.INT8, TypeCode.SERIAL8, TypeCode.BIGINT,
                        TypeCode.BIGSERIAL})
_FLOAT_CODES = frozenset({TypeCode.FLOAT, TypeCode.SMALLFLOAT})
_DECIMAL_CODES = frozenset({TypeCode.DECIMAL, TypeCode.MONEY})
_CMP_OPS = frozenset({"=", "<>", "!=", "<", ">", "<=", ">=", "LIKE", "MATCHES"})
_AGGREGATES = frozenset({"COUNT", "SUM", "AVG", "MIN", "MAX"})
_CLAUSE_END = frozenset({"WHERE", "GROUP", "HAVING", "ORDER", "UNION", "INTO",
                         "FOR", "LIMIT", "OFFSET", "INTERSECT", "EXCEPT"})
_NOT_ROW_PRESERVING = frozenset({"GROUP", "HAVING", "UNION", "INTERSECT", "EXCEPT", "INTO"})
_JOIN_WORDS = frozenset({"JOIN", "INNER", "LEFT", "RIGHT", "FULL", "OUTER", "CROSS",
                         "NATURAL", "ON", "USING"})

T_INTEGER = ColumnType(TypeCode.INTEGER, 4)
T_BIGINT = ColumnType(TypeCode.BIGINT, 8)
T_FLOAT = ColumnType(TypeCode.FLOAT, 8)
T_DECIMAL = ColumnType(TypeCode.DECIMAL, (32 << 8) | 0xFF)
T_DATE = ColumnType(TypeCode.DATE, 4)
T_VARCHAR = ColumnType(TypeCode.VARCHAR, 255)
T_LVARCHAR = ColumnType(TypeCode.LVARCHAR, 2048)

# Informix day 0 is 1899-12-31; SQLite's julian day of that midnight.
_JULIAN_DAY0 = 2415019.5
TODAY_SQL = f"CAST(julianday('now','localtime') - {_JULIAN_DAY0} AS INTEGER)"
# 'YYYY-MM-DD HH:MM:SS.FFF' of now; CURRENT qualifiers take a slice of it.
CURRENT_SQL = "strftime('%Y-%m-%d %H:%M:%f','now','localtime')"
# Slice of that text holding each unit: start offset, and end offset (exclusive).
_UNIT_START = {0: 0, 2: 5, 4: 8, 6: 11, 8: 14, 10: 17}
_UNIT_END = {0: 4, 2: 7, 4: 10, 6: 13, 8: 16, 10: 19, 11: 21, 12: 22, 13: 23, 14: 24, 15: 25}
_UNIT_WORDS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "FRACTION")
_FUNCTION_RENAMES = {"NVL": "coalesce", "CHAR_LENGTH": "length",
                     "CHARACTER_LENGTH": "length", "DBINFO": "ifx_dbinfo",
                     "LENGTH": "ifx_length",
                     "MOD": "ifx_mod", "YEAR": "ifx_year", "MONTH": "ifx_month",
                     "DAY": "ifx_day", "WEEKDAY": "ifx_weekday", "MDY": "ifx_mdy"}


def current_sql(dtype: ColumnType) -> str:
    """SQLite expression for CURRENT with the given DATETIME qualifier."""
    start, end = _UNIT_START[dtype.start], _UNIT_END[dtype.end]
    text = CURRENT_SQL
    if dtype.end > TU_SECOND + 3:
        text = f"({text} || '00')"
    return f"substr({text}, {start + 1}, {end - start})"


def _temporal_type(kind: str, words: list[str]) -> ColumnType:
    """DATETIME/INTERVAL type for a qualifier spelled as words, e.g.
    YEAR TO FRACTION(3)."""
    try:
        return parse_type(f"{kind} " + " ".join(words))
    except ValueError as exc:
        raise SqlError(-201, message=str(exc)) from None


def _datetime_type(words: list[str]) -> ColumnType:
    return _temporal_type("DATETIME", words)


def _collection_values(text: str) -> tuple[list[str], ColumnType]:
    """SQLite literals for the elements of a collection literal, and their type."""
    toks = tokenize(text)
    values: list[str] = []
    types: list[ColumnType] = []
    start = 0
    for end in [k for k, t in enumerate(toks) if t.text == ","] + [len(toks)]:
        part = toks[start:end]
        start = end + 1
        if not part and not toks:
            break
        sign = "-" if len(part) == 2 and part[0].text == "-" else ""
        last = part[-1] if part and len(part) == 1 + bool(sign) else None
        if last is not None and last.kind == "num":
            values.append(sign + last.raw)
            types.append(_number_type(last.raw))
        elif last is not None and last.kind == "str" and not sign:
            values.append(_quote(last.text))
            types.append(ColumnType(TypeCode.CHAR, max(1, len(last.text))))
        elif last is not None and last.text == "NULL" and not sign:
            values.append("NULL")
        else:
            raise SqlError(-201, message="collection elements must be literals")
    codes = {t.code for t in types}
    if codes == {TypeCode.CHAR}:
        return values, ColumnType(TypeCode.CHAR, max(t.length for t in types))
    if len(codes) == 1 and codes != {TypeCode.DECIMAL}:
        return values, types[0]
    if codes & {TypeCode.DECIMAL} and not codes & _FLOAT_CODES:
        # SQLite holds these literals as doubles: 15 digits, not exact text
        return values, ColumnType(TypeCode.DECIMAL, (15 << 8) | 0xFF)
    return values, _combine(codes, set()) if codes else T_INTEGER


# ---------------------------------------------------------------------------
# Statement translation
# ---------------------------------------------------------------------------

Lookup = Callable[[str], "TableDef | None"]


def translate(sql: str, lookup: Lookup) -> Translation:
    """Translate one Informix statement; ``lookup`` resolves table names."""
    tokens = tokenize(sql)
    if not tokens:
        raise SqlError(-201, message="empty statement")
    if any(t.kind == "word" and t.text == IMAGE_COLUMN.upper() for t in tokens):
        raise SqlError(-217, 0, IMAGE_COLUMN, f"column {IMAGE_COLUMN} not found")
    try:
        return _Translator(sql, tokens, lookup).run()
    except (IndexError, ValueError):
        # Running off the end of the tokens means the statement is incomplete.
        raise SqlError(-201, message="a syntax error has occurred") from None


class _Translator:
    """Single-use translator over one statement's tokens."""

    def __init__(self, sql: str, tokens: list[Token], lookup: Lookup) -> None:
        self.sql = sql
        self.toks = tokens
        self.lookup = lookup
        self.binds: list[Bind] = []
        self.param_count = sum(1 for t in tokens if t.kind == "param")
        self.scope: list[tuple[str, TableDef]] = []   # (alias, table) of every FROM

    # -- token helpers ----------------------------------------------------
    def word(self, i: int) -> str:
        return self.toks[i].text if i < len(self.toks) and self.toks[i].kind == "word" else ""

    def text(self, i: int) -> str:
        return self.toks[i].text if i < len(self.toks) else ""

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
        raise SqlError(-201, message="unbalanced parentheses")

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
        tdef = self.lookup(name.lower())
        if tdef is None:
            raise SqlError(-206, -111, name.lower(), f"table {name.lower()} not found")
        return tdef

    def table_name(self, i: int) -> tuple[str, int]:
        """Read [db:][owner.]name at i; returns (name, next index)."""
        if self.text(i + 1) == ":":
            i += 2
        if self.text(i + 1) == "." and self.toks[i].kind in ("word", "str"):
            i += 2
        if i >= len(self.toks) or self.toks[i].kind != "word":
            raise SqlError(-201, message="table name expected")
        return self.toks[i].raw.lower(), i + 1

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
            "RELEASE": self.release_savepoint,
        }.get(first)
        if handler is not None:
            return handler()
        if first in ("LOCK", "UNLOCK", "CLOSE"):
            return Translation(StatementKind.OTHER)
        if first == "WITH":
            # Informix 14.10+ has common table expressions; the emulator does
            # not yet, and must not blame valid SQL for it.
            raise SqlError(NOT_SUPPORTED, message="WITH (common table expressions) is not "
                                                  "supported by the emulator")
        if self.text(0) == "(":
            return self.select()
        raise SqlError(-201, message=f"unsupported statement {self.toks[0].raw}")

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
                elif t.text in _CLAUSE_END or t.text == "ON":
                    in_from = False
                if in_from and t.text != "FROM" and self.text(i + 1) in (".", ":") \
                        and self.text(i - 1) != ".":
                    i += 2          # owner or database prefix of a table name
                    continue
                step = self.rewrite_word(i, end, out)
                if step:
                    i += step
                    continue
                out.append(t.raw)
            elif t.kind == "str":
                if in_from and self.text(i + 1) == ".":
                    i += 2          # "owner".table
                    continue
                self.literal(i, out)
            elif t.kind == "param":
                self.binds.append(Bind(self.param_index(i), None, self.compared_type(i)))
                out.append("?")
            elif t.kind == "num" or t.text == "-" and self.signed_number(i):
                i += self.number(i, out)
                continue
            elif t.kind == "coll":
                raise SqlError(-201, message="collections are supported only in TABLE()")
            elif t.kind == "op" and t.text == "::":
                raise SqlError(-201, message="casts with :: are not supported")
            else:
                out.append(t.raw)
            i += 1
        return out

    def param_index(self, i: int) -> int:
        return sum(1 for t in self.toks[:i] if t.kind == "param")

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
            out.append(_quote(self.toks[i].text))

    def signed_number(self, i: int) -> bool:
        """Is the '-' at i the sign of a number literal rather than a minus?"""
        before = self.toks[i - 1] if i else None
        return self.text(i + 1) != "" and self.toks[i + 1].kind == "num" and (
            before is None or before.kind == "op" and before.text != ")"
            or before.text in _CMP_OPS or before.text in ("BETWEEN", "AND", "OR", "NOT",
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
        if w == "TODAY":
            out.append(f"({TODAY_SQL})")
            return 1
        if w == "CURRENT":
            words, n = self.qualifier_words(i + 1, end)
            dtype = _datetime_type(words or ["YEAR", "TO", "FRACTION(3)"])
            out.append(current_sql(dtype))
            return 1 + n
        if w in ("DATETIME", "INTERVAL") and nxt == "(":
            return self.temporal_literal(i, end, out)
        if w == "TABLE" and nxt == "(":
            sql, _, _, after = self.collection_table(i, end)
            out.append(sql)
            return after - i
        if w in ("SUM", "AVG") and nxt == "(":
            arg = self.argument_column(i + 1, end)
            if arg is not None and exact_decimal(arg):
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
        if w == "USER" and nxt != "(":
            out.append("'informix'")
            return 1
        if w in _FUNCTION_RENAMES and nxt == "(":
            out.append(_FUNCTION_RENAMES[w])
            return 1
        return 0

    def qualifier_words(self, i: int, end: int) -> tuple[list[str], int]:
        """Read 'UNIT [TO UNIT[(n)]]' at i; returns words and tokens used."""
        if self.word(i) not in _UNIT_WORDS:
            return [], 0
        j = i
        words: list[str] = []
        while j < end and (self.word(j) in _UNIT_WORDS or self.word(j) == "TO"):
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
        self.binds.append(Bind(None, text, _temporal_type(self.toks[i].text, words)))
        out.append("?")
        return close + 1 - i + n

    def argument_column(self, i: int, end: int) -> ColumnType | None:
        """Type of the one column named inside the '(' at i, e.g. SUM(t.c)."""
        close = self.close_paren(i, end)
        j = i + 2 if self.word(i + 1) in ("DISTINCT", "UNIQUE", "ALL") else i + 1
        if close - j == 1 and self.toks[j].kind == "word":
            return self.column_type(None, self.toks[j].raw.lower())
        if close - j == 3 and self.text(j + 1) == ".":
            return self.column_type(self.toks[j].raw.lower(), self.toks[j + 2].raw.lower())
        return None

    def collection_table(self, i: int, end: int) -> tuple[str, str | None, TableDef, int]:
        """TABLE(SET{...}) [AS] alias [(column)] at i, for literal elements.

        Returns the SQLite subquery (one row per element), the alias, the
        derived table for typing, and the index after the clause.
        """
        close = self.close_paren(i + 1, end)
        kind = self.word(i + 2)
        if close != i + 4 or kind not in _COLLECTIONS or self.toks[i + 3].kind != "coll":
            raise SqlError(-201, message="TABLE() needs a literal SET, MULTISET or LIST")
        values, ctype = _collection_values(self.toks[i + 3].text)
        alias, j = self.alias_after(close + 1, end)
        column = "unnamed_col_1"
        if alias is not None and self.text(j) == "(":
            after = self.close_paren(j, end)
            column, j = self.toks[j + 1].raw.lower(), after + 1
        rows = [f'SELECT {v} AS "{column}"' for v in values] or \
            [f'SELECT NULL AS "{column}" WHERE 0']
        union = " UNION " if kind == "SET" else " UNION ALL "
        sql = "(" + union.join(rows) + ")" + (f' AS "{alias}"' if alias else "")
        return sql, alias, TableDef(alias or "", [ColumnDef(column, ctype)]), j

    # -- typing of ? and literals -----------------------------------------
    def compared_type(self, i: int) -> ColumnType | None:
        """Type of the column a value at i is compared with or assigned to."""
        op = self.text(i - 1)
        if op in _CMP_OPS or op == "BETWEEN":
            return self.colref_type_before(i - 3 if self.text(i - 2) == "NOT" else i - 2)
        if op in ("AND", ",", "("):
            # BETWEEN x AND ? / IN (?, ?)
            j = i - 2
            while j >= 0 and self.text(j) not in ("BETWEEN", "IN") and \
                    self.toks[j].kind in ("param", "str", "num", "op", "word") and \
                    self.text(j) not in _CMP_OPS and i - j < 64:
                if self.toks[j].kind == "word" and self.text(j) not in ("AND",):
                    break
                j -= 1
            if self.text(j) in ("BETWEEN", "IN"):
                k = j - 1 if self.text(j - 1) != "NOT" else j - 2
                return self.colref_type_before(k)
            return None
        nxt = self.text(i + 1)
        if nxt in _CMP_OPS and nxt not in ("LIKE", "MATCHES"):
            return self.colref_type_after(i + 2)
        return None

    def colref_type_before(self, j: int) -> ColumnType | None:
        if j < 0 or self.toks[j].kind != "word":
            return None
        qual = self.toks[j - 2].raw.lower() if j >= 2 and self.text(j - 1) == "." else None
        return self.column_type(qual, self.toks[j].raw.lower())

    def colref_type_after(self, j: int) -> ColumnType | None:
        if j >= len(self.toks) or self.toks[j].kind != "word":
            return None
        if self.text(j + 1) == ".":
            return self.column_type(self.toks[j].raw.lower(),
                                    self.toks[j + 2].raw.lower() if j + 2 < len(self.toks) else "")
        return self.column_type(None, self.toks[j].raw.lower())

    def column_type(self, qual: str | None, name: str) -> ColumnType | None:
        for alias, tdef in self.scope:
            if qual is not None and qual not in (alias, tdef.name):
                continue
            col = tdef.column(name)
            if col is not None:
                return col.type
        return None

    # -- SELECT --------------------------------------------------------------
    def select(self) -> Translation:
        end = len(self.toks)
        self.collect_scope(0, end)
        encoded = self.reads_whole_rows()
        pieces = self.select_body(0, end, encoded) if encoded else self.rewrite(0, end)
        columns = self.describe(0) if self.word(0) == "SELECT" else []
        return self.finish(StatementKind.SELECT, pieces, columns=columns, encoded=encoded)

    def reads_whole_rows(self) -> bool:
        """Does this SELECT return exactly the columns of one table with row
        images, in table order, one result row per table row?  Then it can
        read the stored images instead of the values."""
        end = len(self.toks)
        if self.word(0) != "SELECT":
            return False
        i = self.select_list_start(0)
        if self.word(i) in ("DISTINCT", "UNIQUE"):
            return False
        i += self.word(i) == "ALL"
        list_end = self.find_top(frozenset({"FROM"}) | _CLAUSE_END, i, end)
        if self.word(list_end) != "FROM" or self.find_top(_NOT_ROW_PRESERVING, i, end) < end:
            return False
        from_end = self.find_top(_CLAUSE_END, list_end + 1, end)
        if any(self.word(k) in _JOIN_WORDS or self.text(k) == "," or self.word(k) == "TABLE"
               for k in range(list_end + 1, from_end)):
            return False
        items = self.from_items(list_end + 1, from_end)
        if len(items) != 1 or not items[0][1].image:
            return False
        alias, tdef = items[0]
        names: list[str] = []
        for a, b in self.split_commas(i, list_end):
            named = self.plain_column(a, b, (alias, tdef.name))
            if named is None:
                return False
            names += [c.name for c in tdef.columns] if named == "*" else [named]
        return names == [c.name for c in tdef.columns] and not self.orders_by_position(
            list_end, end)

    def plain_column(self, a: int, b: int, names: tuple[str, str]) -> str | None:
        """'*' or the column name when [a, b) is ``*``, ``col``, ``t.*`` or
        ``t.col`` with t one of ``names``; None for anything else."""
        if b - a == 1:
            t = self.toks[a]
            return "*" if t.text == "*" else t.raw.lower() if t.kind == "word" else None
        if b - a == 3 and self.text(a + 1) == "." and self.toks[a].raw.lower() in names:
            t = self.toks[a + 2]
            return "*" if t.text == "*" else t.raw.lower() if t.kind == "word" else None
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
        list_end = self.find_top(frozenset({"FROM"}) | _CLAUSE_END, i, stop)
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
            qual = self.toks[a].raw.lower()
            chosen = [(alias, t) for alias, t in scope if qual in (alias, t.name)]
        else:
            return ""
        return ", ".join(f'"{alias}"."{c.name}"' if alias else f'"{c.name}"'
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
        stop = self.find_top(_CLAUSE_END, start, end)
        items: list[tuple[str, TableDef]] = []
        i = start
        while i < stop:
            t = self.toks[i]
            if t.kind == "op" and t.text == "(":
                close = self.close_paren(i, stop)
                if self.word(i + 1) == "SELECT":
                    cols = [ColumnDef(c.name, c.type) for c in self.describe(i + 1)]
                    alias, _ = self.alias_after(close + 1, stop)
                    items.append((alias or "", TableDef(alias or "", cols)))
                i = close + 1
                continue
            if t.kind in ("word", "str") and (i == start or self.text(i - 1) in (",", "JOIN")
                                              or self.word(i - 1) == "OUTER"):
                if t.kind == "word" and t.text in _JOIN_WORDS:
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
        if i < stop and self.toks[i].kind == "word" and self.toks[i].text not in _JOIN_WORDS \
                and self.toks[i].text not in _CLAUSE_END:
            return self.toks[i].raw.lower(), i + 1
        return None, i

    def describe(self, start: int) -> list[ResultColumn]:
        """Result columns of the SELECT starting at token ``start``."""
        end = len(self.toks)
        if start and self.text(start - 1) == "(":
            end = self.close_paren(start - 1)
        i = self.select_list_start(start)
        if self.word(i) in ("DISTINCT", "UNIQUE", "ALL"):
            i += 1
        stop = self.find_top(frozenset({"FROM"}) | _CLAUSE_END, i, end)
        from_scope = self.from_items(stop + 1, end) if self.word(stop) == "FROM" else []
        columns: list[ResultColumn] = []
        for a, b in self.split_commas(i, stop):
            columns += self.describe_item(a, b, from_scope)
        return columns

    def describe_item(self, a: int, b: int,
                      scope: list[tuple[str, TableDef]]) -> list[ResultColumn]:
        if b - a == 1 and self.text(a) == "*":
            return [ResultColumn(c.name, c.type, True) for _, t in scope for c in t.columns]
        if b - a == 3 and self.text(a + 1) == "." and self.text(a + 2) == "*":
            qual = self.toks[a].raw.lower()
            return [ResultColumn(c.name, c.type, True)
                    for alias, t in scope if qual in (alias, t.name) for c in t.columns]
        alias = None
        if b - a >= 2 and self.toks[b - 1].kind == "word" and (
                self.word(b - 2) == "AS" or self.toks[b - 2].kind in ("word", "str", "num")
                and self.toks[b - 2].text not in ("DISTINCT",) and self.text(b - 2) != "."):
            if self.toks[b - 1].text not in ("END", "TODAY", "USER", "CURRENT") and \
                    self.toks[b - 1].text not in _UNIT_WORDS:
                alias = self.toks[b - 1].raw.lower()
                b -= 2 if self.word(b - 2) == "AS" else 1
        name, ctype, stored = self.expression_type(a, b, scope)
        return [ResultColumn(alias or name, ctype, stored)]

    def expression_type(self, a: int, b: int, scope: list[tuple[str, TableDef]]
                        ) -> tuple[str, ColumnType, bool]:
        """Informix-style (name, type, stored) of the expression [a, b)."""
        toks = self.toks[a:b]
        first = toks[0]
        saved, self.scope = self.scope, scope or self.scope
        try:
            if len(toks) == 1 and first.kind == "word" and first.text not in (
                    "TODAY", "USER", "CURRENT"):
                ctype = self.column_type(None, first.raw.lower())
                if ctype is not None:
                    return first.raw.lower(), ctype, True
            if len(toks) == 3 and toks[1].text == "." and toks[2].kind == "word":
                ctype = self.column_type(first.raw.lower(), toks[2].raw.lower())
                if ctype is not None:
                    return toks[2].raw.lower(), ctype, True
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
                return "(constant)", _number_type(first.raw), False
            if first.text == "TODAY":
                return "(today)", T_DATE, False
            if first.text == "USER":
                return "(user)", ColumnType(TypeCode.CHAR, 32), False
        if first.text == "CURRENT":
            words, _ = self.qualifier_words(a + 1, b)
            return "(current)", _datetime_type(words or ["YEAR", "TO", "FRACTION(3)"]), False
        if first.text in ("DATETIME", "INTERVAL") and self.text(a + 1) == "(":
            close = self.close_paren(a + 1, b)
            words, n = self.qualifier_words(close + 1, b)
            if close + 1 + n == b:
                return "(constant)", _temporal_type(first.text, words), False
        if first.text == "DBINFO" and len(toks) > 2 and toks[2].kind == "str":
            what = toks[2].text.lower()
            if what.startswith("sqlca") or what == "sessionid":
                return "(expression)", T_INTEGER, False
            if what in ("serial8", "bigserial", "utc_current"):
                return "(expression)", T_BIGINT, False
            return "(expression)", T_VARCHAR, False
        call = first.kind == "word" and self.text(a + 1) == "(" and \
            self.close_paren(a + 1, b) == b - 1
        if call and first.text in _AGGREGATES:
            return self.aggregate_type(first.text, a + 2, b - 1)
        if call and first.text in _FUNCTION_RESULTS:
            return "(expression)", _FUNCTION_RESULTS[first.text], False
        return "(expression)", self.operand_type(a, b), False

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
        if arg.code in _FLOAT_CODES:
            return name, T_FLOAT, False
        if arg.code in _DECIMAL_CODES and func == "SUM":
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
                codes.add(_number_type(t.raw).code)
            elif t.kind == "str":
                codes.add(TypeCode.VARCHAR)
            elif t.kind == "word" and self.text(j + 1) == "(":
                codes.add(_FUNCTION_TYPES.get(t.text, TypeCode.VARCHAR))
            elif t.kind == "word" and self.text(j + 1) != "." and t.text == "TODAY":
                codes.add(TypeCode.DATE)
            elif t.kind == "word" and self.text(j + 1) != ".":
                qual = self.toks[j - 2].raw.lower() if self.text(j - 1) == "." else None
                ctype = self.column_type(qual, t.raw.lower())
                if ctype is not None:
                    codes.add(ctype.code)
        return _combine(codes, ops)

    # -- INSERT / UPDATE / DELETE --------------------------------------------
    def insert(self) -> Translation:
        if self.word(1) != "INTO":
            raise SqlError(-201, message="INSERT INTO expected")
        name, i = self.table_name(2)
        tdef = self.table(name)
        self.scope = [(name, tdef)]
        targets = [c.name for c in tdef.columns]
        explicit = self.text(i) == "("
        if explicit:
            close = self.close_paren(i)
            targets = [self.toks[a].raw.lower() for a, _ in self.split_commas(i + 1, close)]
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
            raise SqlError(-201, message="VALUES or SELECT expected")
        head = ["INSERT", "INTO", name, "(", ", ".join(cols + [IMAGE_COLUMN] * bool(image)), ")"]
        return self.finish(StatementKind.INSERT, head + body, table=name, image_binds=image)

    def insert_values(self, tdef: TableDef, targets: list[str], missing: list[str],
                      i: int) -> tuple[list[str], list[int] | None]:
        """VALUES (...) and, when every column's value is one bind and no
        SERIAL is generated, where each is: then the engine supplies the row
        image as one more bind instead of a trigger computing it afterwards."""
        if self.text(i) != "(":
            raise SqlError(-201, message="( expected after VALUES")
        close = self.close_paren(i)
        if close != len(self.toks) - 1:
            raise SqlError(-201, message="unexpected text after VALUES (...)")
        values = self.split_commas(i + 1, close)
        if len(values) != len(targets):
            raise SqlError(-236, message="number of columns in INSERT does not match VALUES")
        pieces: list[str] = []
        positions: dict[str, int] = {}
        for (a, b), col in zip(values, targets):
            ctype = tdef.column(col).type
            before = len(self.binds)
            expr = self.value_expr(a, b, ctype)
            if expr == "?" and len(self.binds) == before + 1:
                positions[col] = before
            pieces.append(self.serial_wrap(tdef.name, ctype, expr))
        pieces += [self.serial_wrap(tdef.name, tdef.column(c).type, "NULL") for c in missing]
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
        if b - a == 1 and self.toks[a].kind in ("str", "num") and \
                ctype.code not in (TypeCode.VARCHAR, TypeCode.NVARCHAR, TypeCode.LVARCHAR,
                                   TypeCode.CHAR, TypeCode.NCHAR):
            self.binds.append(Bind(None, self.toks[a].text, ctype))
            return "?"
        if b - a == 2 and self.text(a) == "-" and self.toks[a + 1].kind == "num" \
                and ctype.code in _DECIMAL_CODES:
            self.binds.append(Bind(None, "-" + self.toks[a + 1].text, ctype))
            return "?"
        return " ".join(self.rewrite(a, b))

    @staticmethod
    def serial_wrap(table: str, ctype: ColumnType, expr: str) -> str:
        if ctype.code not in _SERIAL_CODES:
            return expr
        return f"ifx_serial('{table}', {int(ctype.code)}, {expr})"

    def insert_select(self, tdef: TableDef, targets: list[str], missing: list[str],
                      i: int) -> list[str]:
        if not tdef.serial_columns:
            return self.rewrite(i, len(self.toks))
        j = i + 1
        while self.word(j) in ("SKIP", "FIRST", "LIMIT"):
            j += 2
        if self.word(j) in ("DISTINCT", "UNIQUE", "ALL"):
            j += 1
        stop = self.find_top(frozenset({"FROM"}) | _CLAUSE_END, j, len(self.toks))
        items = self.split_commas(j, stop)
        if len(items) != len(targets):
            raise SqlError(-236, message="number of columns in INSERT does not match SELECT")
        head = self.rewrite(i, j)
        pieces = [self.serial_wrap(tdef.name, tdef.column(col).type,
                                   " ".join(self.rewrite(a, b)))
                  for (a, b), col in zip(items, targets)]
        pieces += [self.serial_wrap(tdef.name, tdef.column(c).type, "NULL") for c in missing]
        tail = self.rewrite(stop, len(self.toks))
        if self.word(i + 1) in ("SKIP", "FIRST", "LIMIT"):
            raise SqlError(-201, message="FIRST/SKIP in INSERT SELECT into a SERIAL table")
        return head + [", ".join(pieces)] + tail

    def update(self) -> Translation:
        name, i = self.table_name(1)
        tdef = self.table(name)
        self.scope = [(name, tdef)]
        self.collect_scope(i, len(self.toks))
        if self.word(i) != "SET":
            raise SqlError(-201, message="SET expected")
        stop = self.find_top(frozenset({"WHERE"}), i + 1, len(self.toks))
        pieces = ["UPDATE", name, "SET"]
        sets = []
        for a, b in self.split_commas(i + 1, stop):
            if b - a < 3 or self.text(a + 1) != "=":
                raise SqlError(-201, message="col = value expected in SET")
            col = self.toks[a].raw.lower()
            cdef = tdef.column(col)
            if cdef is None:
                raise SqlError(-217, 0, col, f"column {col} not found")
            sets.append(f"{col} = " + self.value_expr(a + 2, b, cdef.type))
        pieces.append(", ".join(sets))
        pieces += self.rewrite(stop, len(self.toks))
        return self.finish(StatementKind.UPDATE, pieces, table=name)

    def delete(self) -> Translation:
        i = 2 if self.word(1) == "FROM" else 1
        name, i = self.table_name(i)
        tdef = self.table(name)
        self.scope = [(name, tdef)]
        self.collect_scope(i, len(self.toks))
        pieces = ["DELETE", "FROM", name] + self.rewrite(i, len(self.toks))
        return self.finish(StatementKind.DELETE, pieces, table=name)

    def truncate(self) -> Translation:
        i = 2 if self.word(1) == "TABLE" else 1
        name, i = self.table_name(i)
        self.table(name)
        return self.finish(StatementKind.DELETE, ["DELETE", "FROM", name], table=name)

    # -- transactions, session options ----------------------------------------
    def no_op(self) -> Translation:
        return Translation(StatementKind.OTHER)

    def begin(self) -> Translation:
        return Translation(StatementKind.BEGIN)

    def end_work(self) -> Translation:
        kind = StatementKind.COMMIT if self.word(0) == "COMMIT" else StatementKind.ROLLBACK
        words = [t.text for t in self.toks[1:]]
        if kind is StatementKind.ROLLBACK and "TO" in words:
            # ROLLBACK [WORK] TO SAVEPOINT [name] (Informix 11.50+).
            rest = words[words.index("TO") + 1:]
            if rest[:1] != ["SAVEPOINT"] or len(rest) > 2:
                raise SqlError(-201, message="ROLLBACK TO SAVEPOINT expected")
            name = self.toks[-1].raw.lower() if len(rest) == 2 else None
            return Translation(StatementKind.OTHER, option=("ROLLBACK TO SAVEPOINT", name))
        return Translation(kind)

    def savepoint(self) -> Translation:
        """SAVEPOINT name [UNIQUE]: reusing a name replaces the earlier savepoint."""
        words = [t.text for t in self.toks[1:]]
        if not words or len(words) > 2 or (len(words) == 2 and words[1] != "UNIQUE"):
            raise SqlError(-201, message="SAVEPOINT name [UNIQUE] expected")
        return Translation(StatementKind.OTHER,
                           option=("SAVEPOINT", self.toks[1].raw.lower(), len(words) == 2))

    def release_savepoint(self) -> Translation:
        words = [t.text for t in self.toks[1:]]
        if len(words) != 2 or words[0] != "SAVEPOINT":
            raise SqlError(-201, message="RELEASE SAVEPOINT name expected")
        return Translation(StatementKind.OTHER, option=("RELEASE SAVEPOINT", self.toks[2].raw.lower()))

    def database(self) -> Translation:
        if len(self.toks) < 2:
            raise SqlError(-201, message="database name expected")
        name = self.toks[1].raw.lower()
        return Translation(StatementKind.DATABASE, option=(name,))

    def set_option(self) -> Translation:
        words = tuple(t.text for t in self.toks[1:])
        return Translation(StatementKind.OTHER, option=("SET",) + words)

    # -- DDL -----------------------------------------------------------------
    def create(self) -> Translation:
        i = 1
        if self.word(i) in ("TEMP", "RAW", "STANDARD"):
            i += 1
        if self.word(i) == "TABLE":
            return self.create_table(i + 1)
        unique = self.word(i) in ("UNIQUE", "DISTINCT")
        if unique:
            i += 1
        if self.word(i) == "CLUSTER":
            i += 1
        if self.word(i) == "INDEX":
            return self.create_index(i + 1, unique)
        raise SqlError(-201, message="unsupported CREATE statement")

    def if_clause(self, i: int, negated: bool) -> tuple[bool, int]:
        words = ("IF", "NOT", "EXISTS") if negated else ("IF", "EXISTS")
        if all(self.word(i + k) == w for k, w in enumerate(words)):
            return True, i + len(words)
        return False, i

    def create_table(self, i: int) -> Translation:
        if_not_exists, i = self.if_clause(i, True)
        name, i = self.table_name(i)
        if self.text(i) != "(":
            raise SqlError(-201, message="( expected after table name")
        close = self.close_paren(i)
        spec = CreateTable(name, [], [], [], if_not_exists)
        for a, b in self.split_commas(i + 1, close):
            if self.word(a) in ("PRIMARY", "UNIQUE", "DISTINCT", "CONSTRAINT", "CHECK",
                                "FOREIGN"):
                self.table_constraint(a, b, spec)
            else:
                self.column_def(a, b, spec)
        if not spec.columns:
            raise SqlError(-201, message="table needs columns")
        return Translation(StatementKind.DDL, table=name, ddl=spec)

    def column_def(self, a: int, b: int, spec: CreateTable) -> None:
        if self.toks[a].kind != "word":
            raise SqlError(-201, message="column name expected")
        col = self.toks[a].raw.lower()
        stop = a + 1
        stops = {"DEFAULT", "NOT", "NULL", "PRIMARY", "UNIQUE", "DISTINCT", "CHECK",
                 "CONSTRAINT", "REFERENCES"}
        while stop < b and self.word(stop) not in stops:
            stop += 1
        type_text = " ".join(t.raw for t in self.toks[a + 1:stop])
        serial_start = 1
        m = re.fullmatch(r"(?i)\s*(serial8?|bigserial)\s*\(\s*(\d+)\s*\)\s*", type_text)
        if m:
            type_text, serial_start = m.group(1), int(m.group(2))
        try:
            ctype = parse_type(type_text)
        except ValueError as exc:
            raise SqlError(-201, 0, col, str(exc)) from None
        cdef = ColumnDef(col, ctype, serial_start=serial_start)
        nullable = True
        j = stop
        while j < b:
            w = self.word(j)
            if w == "NOT" and self.word(j + 1) == "NULL":
                nullable, j = False, j + 2
            elif w == "NULL":
                j += 1
            elif w == "DEFAULT":
                cdef.default, j = self.default_value(j + 1, b, ctype)
            elif w in ("PRIMARY", "UNIQUE", "DISTINCT"):
                primary = w == "PRIMARY"
                j += 2 if primary else 1
                cname, j = self.constraint_name(j)
                spec.uniques.append((cname, [col], primary))
                nullable = nullable and not primary
            elif w == "CHECK":
                close = self.close_paren(j + 1, b)
                spec.checks.append(" ".join(self.rewrite(j + 1, close + 1)))
                _, j = self.constraint_name(close + 1)
            elif w == "CONSTRAINT":
                j += 2
            elif w == "REFERENCES":
                _, j = self.table_name(j + 1)
                if self.text(j) == "(":
                    j = self.close_paren(j) + 1
            else:
                raise SqlError(-201, 0, self.toks[j].raw, "unexpected word in column definition")
        cdef.type = ColumnType(ctype.code, ctype.length,
                               nullable and ctype.code not in _SERIAL_CODES)
        spec.columns.append(cdef)

    def constraint_name(self, j: int) -> tuple[str | None, int]:
        if self.word(j) == "CONSTRAINT" and j + 1 < len(self.toks):
            return self.toks[j + 1].raw.lower(), j + 2
        return None, j

    def default_value(self, j: int, b: int, ctype: ColumnType) -> tuple[Bind | str | None, int]:
        t = self.toks[j]
        if t.kind in ("str", "num"):
            return Bind(None, t.text, ctype), j + 1
        if t.text == "-" and self.toks[j + 1].kind == "num":
            return Bind(None, "-" + self.toks[j + 1].text, ctype), j + 2
        if t.text == "NULL":
            return None, j + 1
        if t.text == "TODAY":
            return f"({TODAY_SQL})", j + 1
        if t.text == "CURRENT":
            words, n = self.qualifier_words(j + 1, b)
            return f"({current_sql(_datetime_type(words) if words else ctype)})", j + 1 + n
        if t.text == "USER":
            return "'informix'", j + 1
        raise SqlError(-201, 0, t.raw, "unsupported DEFAULT value")

    def table_constraint(self, a: int, b: int, spec: CreateTable) -> None:
        cname, a = self.constraint_name(a)
        w = self.word(a)
        if w == "CHECK":
            close = self.close_paren(a + 1, b)
            spec.checks.append(" ".join(self.rewrite(a + 1, close + 1)))
            return
        if w == "FOREIGN":
            return          # referential integrity is not emulated
        primary = w == "PRIMARY"
        j = a + (2 if primary else 1)
        if self.text(j) != "(":
            raise SqlError(-201, message="( expected in constraint")
        close = self.close_paren(j, b)
        cols = [self.toks[x].raw.lower() for x, _ in self.split_commas(j + 1, close)]
        later, _ = self.constraint_name(close + 1)
        spec.uniques.append((cname or later, cols, primary))

    def create_index(self, i: int, unique: bool) -> Translation:
        name, i = self.table_name(i)
        if self.word(i) != "ON":
            raise SqlError(-201, message="ON expected")
        table, i = self.table_name(i + 1)
        if self.text(i) != "(":
            raise SqlError(-201, message="( expected")
        close = self.close_paren(i)
        cols = [self.toks[x].raw.lower() for x, _ in self.split_commas(i + 1, close)]
        return Translation(StatementKind.DDL, table=table,
                           ddl=CreateIndex(name, table, cols, unique))

    def drop(self) -> Translation:
        what = self.word(1)
        if what not in ("TABLE", "INDEX"):
            raise SqlError(-201, message="unsupported DROP statement")
        if_exists, i = self.if_clause(2, False)
        name, _ = self.table_name(i)
        return Translation(StatementKind.DDL, table=name if what == "TABLE" else None,
                           ddl=Drop(what, name, if_exists))


_FUNCTION_TYPES = {
    "LENGTH": TypeCode.INTEGER, "CHAR_LENGTH": TypeCode.INTEGER,
    "OCTET_LENGTH": TypeCode.INTEGER, "YEAR": TypeCode.SMALLINT,
    "MONTH": TypeCode.SMALLINT, "DAY": TypeCode.SMALLINT, "WEEKDAY": TypeCode.SMALLINT,
    "MDY": TypeCode.DATE, "ABS": TypeCode.DECIMAL, "ROUND": TypeCode.DECIMAL,
    "TRUNC": TypeCode.DECIMAL, "MOD": TypeCode.INTEGER, "COUNT": TypeCode.INTEGER,
    "SUM": TypeCode.DECIMAL, "AVG": TypeCode.DECIMAL,
}


# Functions whose result type does not depend on their arguments.
_FUNCTION_RESULTS = {
    name: {TypeCode.INTEGER: T_INTEGER, TypeCode.SMALLINT: ColumnType(TypeCode.SMALLINT, 2),
           TypeCode.DATE: T_DATE}[code]
    for name, code in _FUNCTION_TYPES.items()
    if code in (TypeCode.INTEGER, TypeCode.SMALLINT, TypeCode.DATE) and name not in _AGGREGATES}


def _number_type(raw: str) -> ColumnType:
    if re.fullmatch(r"\d+", raw):
        return T_INTEGER if int(raw) < 2**31 else T_BIGINT
    if "e" in raw.lower():
        return T_FLOAT
    digits = raw.replace(".", "").lstrip("0") or "0"
    scale = len(raw.split(".")[1]) if "." in raw else 0
    precision = max(len(digits), scale, 1)
    return ColumnType(TypeCode.DECIMAL, (min(precision, 32) << 8) | scale)


def _combine(codes: set[TypeCode], ops: set[str]) -> ColumnType:
    """Type Informix would give an expression mixing these operand types."""
    if "||" in ops or codes <= {TypeCode.VARCHAR, TypeCode.CHAR, TypeCode.NCHAR,
                                TypeCode.NVARCHAR, TypeCode.LVARCHAR} and codes:
        return T_VARCHAR if TypeCode.LVARCHAR not in codes else T_LVARCHAR
    if TypeCode.DATE in codes and ops & {"+", "-"}:
        return T_DATE if not (codes == {TypeCode.DATE} and "-" in ops) else T_INTEGER
    if codes & _FLOAT_CODES:
        return T_FLOAT
    if codes & _DECIMAL_CODES or "/" in ops:
        return T_DECIMAL
    if codes and codes <= _INT_CODES:
        return T_BIGINT if codes & _BIG_CODES else T_INTEGER
    if codes == {TypeCode.DATE}:
        return T_DATE
    return T_DECIMAL if codes & {TypeCode.BOOLEAN} == set() and ops & {"+", "-", "*"} \
        else T_VARCHAR
