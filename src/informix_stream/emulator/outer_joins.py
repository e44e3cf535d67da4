"""Informix-extension outer joins (``FROM a, OUTER b WHERE a.k = b.k``) as
ANSI LEFT JOINs, rewritten on the token list before translation.

What the server does (HCL Informix 14.10 Guide to SQL: Syntax,
"Informix-Extension Outer Joins", and Guide to SQL: Tutorial, "HCL Informix
extension to outer join syntax", "Outer join of two tables to a third
table"): the OUTER keyword before a table in the FROM list makes it
subservient to the tables before it; the join conditions are written in the
WHERE clause; every row of the dominant tables is returned, with NULLs for a
subservient table's columns where no row of it qualifies.  Conditions on a
subservient table are join filters, applied before the join ("an outer join
allows you to apply join filters to the inner table before the join
condition is applied", Tutorial, "Outer joins"), so they can not remove
dominant rows.  Join relationships are between the dominant table and each
subservient one; a condition relating two subservient tables needs the
parenthesised form.

The parenthesised forms ("Informix-Extension Outer Joins" syntax diagram;
Tutorial, "Outer join for a simple join to a third table"): ``OUTER (b, c)``
first joins b and c by their own conditions, then joins that result to the
dominant table as a whole; ``OUTER (b, OUTER c)`` makes c subservient to b
inside the group b is.

So each WHERE conjunct naming a subservient table moves into the ON clause
of the innermost OUTER group it names, and the rest stay in WHERE.  Forms
the rewrite does not cover (a WHERE with a top-level OR, OUTER in a
subquery or a later UNION branch, OUTER mixed with ANSI joins, a dominant
table after an OUTER one) are refused as not supported by the emulator
rather than answered differently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .statements import NOT_SUPPORTED, SqlError, TableDef
from .tokens import Token, ident, paren_depths as _depths, word_of as _word

Lookup = Callable[[str], "TableDef | None"]

_WHERE_END = frozenset({"GROUP", "HAVING", "ORDER", "UNION", "INTERSECT", "EXCEPT", "MINUS",
                        "INTO", "FOR", "LIMIT", "OFFSET"})
_FROM_END = _WHERE_END | {"WHERE"}
_ANSI = frozenset({"JOIN", "ON", "USING"})


def _refuse(what: str) -> SqlError:
    return SqlError(NOT_SUPPORTED, message=f"{what} (Informix-extension outer join) is not "
                                           "supported by the emulator")



def _syn(text: str, kind: str = "word") -> Token:
    return Token(kind, text, -1, text)


def has_informix_outer(toks: list[Token]) -> bool:
    """Is there an ``, OUTER`` (a subservient table in a FROM list)?"""
    return any(_word(t) == "OUTER" and i and toks[i - 1].text == ","
               for i, t in enumerate(toks))



def _first(toks: list[Token], depth: list[int], words: frozenset[str], start: int) -> int:
    for j in range(start, len(toks)):
        if depth[j] == 0 and _word(toks[j]) in words:
            return j
    return len(toks)


def _split(toks: list[Token], depth: list[int], a: int, b: int, sep: str,
           level: int = 0) -> list[tuple[int, int]]:
    """Pieces of [a, b) at paren depth ``level`` between ``sep`` (',' or
    'AND'; the AND of a BETWEEN is not a separator)."""
    parts, first, between = [], a, False
    for j in range(a, b):
        if depth[j] != level:
            continue
        if _word(toks[j]) == "BETWEEN":
            between = True
        elif toks[j].text == sep and (toks[j].kind == "op" or sep == "AND"):
            if sep == "AND" and between:
                between = False
                continue
            parts.append((first, j))
            first = j + 1
    parts.append((first, b))
    return parts


@dataclass
class _Group:
    """One level of a FROM list: its tables (dominant at this level) and the
    OUTER items under it, each a group of its own (``OUTER b`` is a group of
    one table, ``OUTER (b, c)`` of two, ``OUTER (b, OUTER c)`` nests)."""

    tables: list[tuple[int, int]] = field(default_factory=list)
    outers: list["_Group"] = field(default_factory=list)
    on: list[tuple[int, int]] = field(default_factory=list)


def _parse_group(toks: list[Token], depth: list[int], a: int, b: int, level: int) -> _Group:
    group = _Group()
    for x, y in _split(toks, depth, a, b, ",", level):
        if _word(toks[x]) != "OUTER":
            if group.outers:
                raise _refuse("a dominant table after an OUTER one")
            group.tables.append((x, y))
            continue
        x += 1
        if toks[x].text == "(":
            if toks[y - 1].text != ")" or depth[y - 1] != depth[x]:
                raise _refuse("OUTER (...) followed by more text")
            group.outers.append(_parse_group(toks, depth, x + 1, y - 1, level + 1))
        else:
            group.outers.append(_Group([(x, y)]))
    if not group.tables:
        raise _refuse("OUTER (...) with no table before its OUTER items")
    return group


def _chains(group: _Group, above: tuple = ()) -> dict[tuple[int, int], tuple]:
    """Each table's OUTER groups, outermost first (ids of the groups)."""
    out = {span: above for span in group.tables}
    for child in group.outers:
        out |= _chains(child, above + (id(child),))
    return out


def _groups(group: _Group) -> dict[int, _Group]:
    out = {id(group): group}
    for child in group.outers:
        out |= _groups(child)
    return out


def rewrite_outer(toks: list[Token], lookup: Lookup) -> list[Token]:
    """The statement with its Informix OUTER tables as LEFT JOINs.

    A condition goes to the ON clause of the innermost OUTER group among the
    tables it names, which must lie on one line of nesting (a condition
    relating two sibling OUTER items is -393, the two-sided outer join IBM
    documents for the unparenthesised form); a condition naming only dominant
    tables stays in WHERE.  ``OUTER (b, c)`` is ``LEFT JOIN (b, c) ON ...``:
    b and c joined by their conditions, the group outer to the tables before
    it as a whole (Guide to SQL: Tutorial, "Outer join for a simple join to
    a third table")."""
    depth = _depths(toks)
    if _word(toks[0]) != "SELECT":
        raise _refuse("OUTER outside a SELECT's own FROM list")
    frm = _first(toks, depth, frozenset({"FROM"}), 1)
    from_end = _first(toks, depth, _FROM_END, frm + 1)
    for j, t in enumerate(toks):
        if _word(t) == "OUTER" and toks[j - 1].text in (",", "(") and not frm < j < from_end:
            raise _refuse("OUTER in a subquery or a later set-operation branch")
    if any(_word(toks[j]) in _ANSI for j in range(frm + 1, from_end)):
        raise _refuse("OUTER mixed with ANSI JOIN")
    top = _parse_group(toks, depth, frm + 1, from_end, 0)
    chains = _chains(top)
    names = {span: _item_names(toks, span, lookup) for span in chains}
    has_where = from_end < len(toks) and _word(toks[from_end]) == "WHERE"
    where_end = _first(toks, depth, _WHERE_END, from_end + 1) if has_where else from_end
    conjuncts = _split(toks, depth, from_end + 1, where_end, "AND") if has_where else []
    if any(_word(toks[j]) == "OR" and depth[j] == 0 for j in range(from_end, where_end)):
        raise _refuse("a WHERE with a top-level OR")
    groups = _groups(top)
    for c in conjuncts:
        lines = sorted((chains[s] for s in _references(toks, c, names)), key=len)
        deepest = lines[-1] if lines else ()
        if any(line != deepest[:len(line)] for line in lines):
            # Tutorial, "Outer join of two tables to a third table": joining
            # two subservient tables is the two-sided outer join error
            raise SqlError(-393, message="a condition in the WHERE clause results in a "
                                         "two-sided outer join")
        groups[deepest[-1] if deepest else id(top)].on.append(c)
    out = [*toks[:frm + 1], *_emit(toks, top)]
    if top.on:
        out += [_syn("WHERE"), *_conjunction(toks, top.on)]
    return out + toks[where_end:]


def _emit(toks: list[Token], group: _Group) -> list[Token]:
    """``t1, t2 LEFT OUTER JOIN <outer> ON ... ...`` for one level."""
    out: list[Token] = []
    for n, (a, b) in enumerate(group.tables):
        out += ([_syn(",", "op")] if n else []) + toks[a:b]
    for child in group.outers:
        body = _emit(toks, child)
        if len(child.tables) > 1 or child.outers:
            body = [_syn("(", "op"), *body, _syn(")", "op")]
        out += [_syn("LEFT"), _syn("OUTER"), _syn("JOIN"), *body, _syn("ON")]
        out += _conjunction(toks, child.on) or [_syn("1", "num"), _syn("=", "op"),
                                                 _syn("1", "num")]
    return out


def _conjunction(toks: list[Token], parts: list[tuple[int, int]]) -> list[Token]:
    out: list[Token] = []
    for n, (a, b) in enumerate(parts):
        out += ([_syn("AND")] if n else []) + [_syn("(", "op"), *toks[a:b], _syn(")", "op")]
    return out


def _item_names(toks: list[Token], span: tuple[int, int],
                lookup: Lookup) -> tuple[set[str], set[str]]:
    """(names the item answers to, its column names) for a FROM item."""
    a, b = span
    words = [t for t in toks[a:b] if t.kind == "word" and t.text != "AS"]
    if not words or toks[a].text == "(":
        raise _refuse("a derived table beside OUTER")
    table = ident(words[0])
    for j in range(a, b - 1):                 # owner.table / db:table
        if toks[j + 1].text in (".", ":") and toks[j].kind in ("word", "str"):
            table = ident(toks[j + 2])
    tdef = lookup(table)
    if tdef is None:
        raise SqlError(-206, -111, table, f"table {table} not found")
    alias = ident(words[-1])
    return {table, alias}, {c.name for c in tdef.columns}


def _references(toks: list[Token], span: tuple[int, int],
                names: dict[tuple[int, int], tuple[set[str], set[str]]]) -> set:
    """The FROM items a WHERE conjunct names (qualified or by a column only one has)."""
    a, b = span
    found: set = set()
    for j in range(a, b):
        t = toks[j]
        if t.kind != "word" or j and toks[j - 1].text == ".":
            continue
        word = ident(t)
        if j + 1 < b and toks[j + 1].text == ".":
            found |= {s for s, (labels, _) in names.items() if word in labels}
        elif not (j + 1 < b and toks[j + 1].text == "("):
            owners = {s for s, (_, cols) in names.items() if word in cols}
            if len(owners) > 1:
                raise _refuse(f"the unqualified column {word} of more than one table")
            found |= owners
    return found
