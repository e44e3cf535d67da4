"""The one scanner of Informix SQL text: where literals, comments and
parameter markers are.

Both the driver (finding ``?``, ``:1`` and ``:name`` markers to bind) and the
emulator (rewriting statements) need to know which parts of a statement are
opaque: string literals, quoted text, comments and DATETIME/INTERVAL
literals.  Getting that wrong is silent: ``DATETIME (12:30) HOUR TO MINUTE``
read as holding a marker ``:30`` binds a parameter into a literal.  So the
rules live here once.

Informix's lexical rules used (IBM Informix Guide to SQL: Syntax, "Comments",
"Quoted String", "Literal DATETIME", "Literal INTERVAL", "Database Object
Name"):

* comments: ``--`` to the end of the line, ``{ ... }`` and ``/* ... */``;
* string literals in single quotes, a doubled quote standing for one; text
  in double quotes is a string literal too unless DELIMIDENT is set (then a
  delimited identifier) -- either way it is opaque here;
* ``DATETIME (...) qualifier`` and ``INTERVAL (...) qualifier``: the
  parenthesised text is a literal (``DATETIME (12:30) HOUR TO MINUTE``);
* ``SET{...}``, ``MULTISET{...}`` and ``LIST{...}`` where an expression may
  start are collection literals, not ``{ }`` comments (the emulator's rule
  before this module, kept: the keyword follows an operator, ``(``, ``,``,
  IN, VALUES or SELECT, or starts the text);
* ``expr::type`` is a cast, not a marker;
* ``database:table`` and ``database@server:owner.table`` name objects, so a
  colon right after a name character is never a marker.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from .errors import ProgrammingError

__all__ = ["Marker", "scan", "opaque_regions", "first_keyword", "leading_words"]

_SCANNER = re.compile(r"""
    (?P<sq>'(?:[^']|'')*'?)
  | (?P<dq>"(?:[^"]|"")*"?)
  | (?P<line>--[^\n]*)
  | (?P<brace>\{[^}]*\}?)
  | (?P<block>/\*(?:.|\n)*?(?:\*/|\Z))
  | (?P<dt>\b(?:DATETIME|INTERVAL)\s*\([^)]*\)?)
  | (?P<cast>::)
  | (?P<q>\?)
  | (?<![\w.@$:])(?P<colon>:(?:(?P<num>\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_$]*)))
""", re.VERBOSE | re.IGNORECASE)

_CLOSERS = {"sq": "'", "dq": '"', "brace": "}", "block": "*/", "dt": ")"}
_WHAT = {"sq": "quoted string", "dq": "quoted string", "brace": "{ comment",
         "block": "/* comment", "dt": "DATETIME/INTERVAL literal"}


class Marker(NamedTuple):
    """A parameter marker: where it is, ``?``/``:N``/``:name``, and N or name."""

    start: int
    end: int
    kind: str          # "?", "number" or "name"
    value: int | str | None


_COLLECTION_BEFORE = re.compile(
    r"(?:^|[-+*/%(),=<>|]|\bIN|\bVALUES|\bSELECT)\s*(?:SET|MULTISET|LIST)\s*$",
    re.IGNORECASE)


def _tokens(sql: str):
    """The scanner's matches in order, with collection braces let through."""
    pos = 0
    search = _SCANNER.search
    while True:
        m = search(sql, pos)
        if m is None:
            return
        if m.lastgroup == "brace" and _COLLECTION_BEFORE.search(sql, 0, m.start()):
            pos = m.start() + 1             # a collection literal: scan its inside
            continue
        yield m
        pos = m.end()


@functools.lru_cache(maxsize=512)
def scan(sql: str) -> tuple[Marker, ...]:
    """Every marker outside literals and comments, in order (cached per text).

    Raises ProgrammingError for an unterminated literal or comment.
    """
    markers = []
    for m in _tokens(sql):
        kind = m.lastgroup
        if kind in _CLOSERS:
            _check_closed(m, kind)
        elif kind == "q":
            markers.append(Marker(m.start(), m.end(), "?", None))
        elif kind in ("num", "name", "colon"):
            num = m.group("num")
            if num is not None:
                markers.append(Marker(m.start("colon"), m.end(), "number", int(num)))
            else:
                markers.append(Marker(m.start("colon"), m.end(), "name", m.group("name")))
    return tuple(markers)


def _check_closed(m: re.Match, kind: str) -> None:
    text = m.group(kind)
    closer = _CLOSERS[kind]
    body = text[1:] if kind in ("sq", "dq") else text
    if kind in ("sq", "dq"):
        # Closed when it ends in a quote not consumed as half of a doubled one.
        stripped = body
        closed = False
        i = 0
        while i < len(stripped):
            if stripped[i] == closer:
                if i + 1 < len(stripped) and stripped[i + 1] == closer:
                    i += 2
                    continue
                closed = i == len(stripped) - 1
                break
            i += 1
    else:
        closed = text.endswith(closer) and (kind != "block" or len(text) >= 4)
    if not closed:
        raise ProgrammingError(f"unterminated {_WHAT[kind]} in SQL at offset {m.start()}")


@functools.lru_cache(maxsize=512)
def opaque_regions(sql: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, kind) of every literal and comment: what a rewriter must
    leave alone.  Kinds: sq, dq, line, brace, block, dt."""
    out = []
    for m in _tokens(sql):
        kind = m.lastgroup
        if kind in _CLOSERS or kind == "line":
            if kind in _CLOSERS:
                _check_closed(m, kind)
            out.append((m.start(), m.end(), kind))
    return tuple(out)


_LEADING = re.compile(r"(?:\s+|\(|--[^\n]*|\{[^}]*\}|/\*(?:.|\n)*?\*/)*")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def first_keyword(sql: str) -> str:
    """The statement's first word in upper case, after comments and parentheses."""
    words = leading_words(sql, 1)
    return words[0] if words else ""


def leading_words(sql: str, n: int) -> tuple[str, ...]:
    """The statement's first ``n`` words in upper case (fewer if it has
    fewer), each after comments and parentheses."""
    words: list[str] = []
    pos = 0
    while len(words) < n:
        pos = _LEADING.match(sql, pos).end()
        m = _WORD.match(sql, pos)
        if not m:
            break
        words.append(m.group(0).upper())
        pos = m.end()
    return tuple(words)
