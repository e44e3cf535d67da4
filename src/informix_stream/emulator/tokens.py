"""Informix SQL split into tokens (words, strings, numbers, markers,
operators, collection literals), on top of the driver's lexical scanner."""

from __future__ import annotations

import re
from typing import NamedTuple

from informix_stream.errors import ProgrammingError
from informix_stream.sqllex import opaque_regions

from .statements import SqlError


# ---------------------------------------------------------------------------
# Tokenizer
# ---------------------------------------------------------------------------

class Token(NamedTuple):
    kind: str      # word, str, num, param, op
    text: str      # words upper-cased; strings unquoted; a delimited identifier as written
    pos: int
    raw: str       # as written: what goes into SQLite's text
    name: str = ""  # a delimited identifier's exact name (DELIMIDENT)


def ident(token: Token) -> str:
    """The name a word token stands for: an undelimited identifier folded to
    lower case, a delimited one ("Name" under DELIMIDENT) exactly as written
    (IBM Informix Guide to SQL: Syntax, "Delimited Identifiers")."""
    return token.name or token.raw.lower()


# Quoted text and comments are found by the driver's scanner (sqllex): one
# reading of Informix's lexical rules for both sides.
TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<word>[^\W\d][\w$]*)
  | (?P<param>\?)
  | (?P<op>\|\||<=|>=|<>|!=|::|[-+*/%(),.;:=<>\[\]@])
""", re.X | re.S)


def tokenize(sql: str, delimident: bool = False) -> list[Token]:
    """Split Informix SQL into tokens, dropping whitespace and comments.

    Where quoted text and comments are comes from ``sqllex`` (the scanner the
    driver finds parameter markers with); double-quoted text is a string
    literal, as in Informix without DELIMIDENT, and a delimited identifier
    with it: a word token whose text (its quoted form) matches no keyword and
    whose raw text is already an SQLite identifier.  Anything unrecognised (an
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
            if kind == "dq" and delimident:
                raw = sql[pos:end]
                tokens.append(Token("word", raw, pos, raw, _delimited_name(raw)))
            elif kind in ("sq", "dq"):
                raw = sql[pos:end]
                quote = raw[0]
                tokens.append(Token("str", raw[1:-1].replace(quote * 2, quote), pos, raw))
            pos = end                              # a comment: dropped
            continue
        if sql[pos] == "{":
            # Not a comment by sqllex's reading: a SET/MULTISET/LIST literal.
            end = collection_end(sql, pos)
            tokens.append(Token("coll", sql[pos + 1:end - 1], pos, sql[pos:end]))
            pos = end
            continue
        m = TOKEN_RE.match(sql, pos)
        if m is None:
            raise SqlError(-201, message=f"syntax error near {sql[pos:pos + 20]!r}",
                           offset=pos + 1)
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


def _delimited_name(raw: str) -> str:
    """The name in a delimited identifier: quotes off, doubled quotes single.
    An empty one is Informix's -201 (an identifier has at least one
    character: Guide to SQL: Syntax, "Identifier")."""
    name = raw[1:-1].replace('""', '"')
    if not name:
        raise SqlError(-201, message="a syntax error has occurred (empty delimited identifier)")
    return name


COLLECTIONS = frozenset({"SET", "MULTISET", "LIST"})


def collection_end(sql: str, pos: int) -> int:
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


def quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def word_of(t: Token) -> str:
    """A word token's text; "" for any other token."""
    return t.text if t.kind == "word" else ""


def paren_depths(toks: list[Token]) -> list[int]:
    """Each token's parenthesis depth (a ")" has the depth outside it)."""
    out, depth = [], 0
    for t in toks:
        if t.kind == "op" and t.text == ")":
            depth -= 1
        out.append(depth)
        if t.kind == "op" and t.text == "(":
            depth += 1
    return out
