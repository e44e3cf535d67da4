"""INSERT, UPDATE and DELETE through a view, rewritten on the token list
into the same statement on the view's base table before translation.

What the server does (IBM Informix Guide to SQL: Syntax, "Updating Through
Views" under CREATE VIEW, and "Updating Rows Through a View" under UPDATE;
HCL Informix 14.10 Guide to SQL: Tutorial / Database Design, "Use the WITH
CHECK OPTION keywords"):

* a view on ONE table is updatable unless its projection has aggregates or
  DISTINCT/UNIQUE, or it has GROUP BY or a UNION; writing any other view
  is -384 ("Cannot modify non simple view", IBM JDBC 15.0.1.0 message
  catalog, sql_en_US.properties), a UNION ALL view -8251;
* a column that is an expression (a "virtual column") can not be written:
  -234 ("Cannot insert into virtual column"), but rows can be DELETEd from
  a view that selects calculated values;
* rows written land in the base table, where its constraints apply; rows
  inserted or updated so that they fall outside the view are allowed unless
  the view was created WITH CHECK OPTION, which makes the server test every
  inserted or updated row against the view's WHERE clause and reject the
  statement.  The catalog has no message of its own for that; the emulator
  answers -385 ("Data value out of range"), the code ``finderr 385``
  describes for a row outside a WITH CHECK OPTION view (from memory of the
  finderr text, not confirmed against a server).  A view over a view
  checks the conditions of the views under it too (SQL's CASCADED rule).

How: a view over a view is followed to its base table.  INSERT names the
base table's columns for the view's; UPDATE and DELETE keep their WHERE
clause as written, applied to a derived table that is the view itself with
each row's base rowid beside it (``rowid IN (SELECT ... FROM (view) AS v
WHERE ...)``), so the conditions mean exactly what they mean on the view.
SET expressions read base columns for the view's.  WITH CHECK OPTION views
add check queries (``Translation.view_checks``) the engine runs on the
rowids the statement wrote (view_checks.py), all in one savepoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .statements import NOT_SUPPORTED, SqlError, TableDef
from .tokens import Token, ident, tokenize
from .tokens import paren_depths as _depths, word_of as _word
from .typerules import AGGREGATES

Lookup = Callable[[str], "TableDef | None"]
ROWID = "_ifx_r"                       # the derived table's base-rowid column
_VIEW_END = frozenset({"WHERE", "GROUP", "HAVING", "UNION", "INTERSECT", "MINUS", "EXCEPT",
                       "ORDER", "INTO", "FOR", "LIMIT"})


def _syn(text: str, kind: str = "word") -> Token:
    return Token(kind, text, -1, text)


def _name(name: str) -> Token:
    """A word token naming ``name`` (delimited when it is not a plain one)."""
    if name.isidentifier() and name == name.lower() and name.isascii():
        return Token("word", name.upper(), -1, name)
    quoted = '"' + name.replace('"', '""') + '"'
    return Token("word", quoted, -1, quoted, name)




def _split(toks: list[Token], depth: list[int], a: int, b: int,
           level: int = 0) -> list[tuple[int, int]]:
    """Pieces of [a, b) between the commas at paren depth ``level``."""
    parts, first = [], a
    for j in range(a, b):
        if depth[j] == level and toks[j].kind == "op" and toks[j].text == ",":
            parts.append((first, j))
            first = j + 1
    return parts + [(first, b)]


def _first(toks: list[Token], depth: list[int], words: frozenset[str], a: int, b: int) -> int:
    return next((j for j in range(a, b) if depth[j] == 0 and _word(toks[j]) in words), b)


def _non_simple(view: str, why: str, code: int = -384) -> SqlError:
    return SqlError(code, 0, view, f"cannot modify non simple view {view} ({why})")


@dataclass
class _View:
    """One updatable-looking view, parsed from its sysviews text."""

    name: str
    columns: list[str]                 # the view's column names
    items: list[list[Token]]           # each column's expression
    sources: list[str | None]          # the source column each column is, or None
    source: str                        # the table or view it selects from
    source_ref: list[Token]            # [owner .] name as written
    alias: list[Token]                 # the qualifier of the source's columns
    where: list[Token]
    check: bool


def _parse(tdef: TableDef, lookup: Lookup, delimident: bool) -> _View:
    toks = tokenize(tdef.definition, delimident)
    check = [t.text for t in toks[-3:]] == ["WITH", "CHECK", "OPTION"]
    if check:
        toks = toks[:-3]
    start = next(j for j, t in enumerate(toks) if _word(t) == "AS"
                 and j + 1 < len(toks) and _word(toks[j + 1]) == "SELECT") + 2
    depth = _depths(toks)
    name = tdef.name
    if _word(toks[start]) in ("DISTINCT", "UNIQUE"):
        raise _non_simple(name, "DISTINCT")
    if _word(toks[start]) in ("FIRST", "SKIP", "LIMIT"):
        raise SqlError(NOT_SUPPORTED, message=f"writing through the view {name} (FIRST/SKIP) "
                                              "is not supported by the emulator")
    frm = _first(toks, depth, frozenset({"FROM"}), start, len(toks))
    end = _first(toks, depth, _VIEW_END, frm + 1, len(toks))
    rest = {_word(toks[j]) for j in range(end, len(toks)) if depth[j] == 0} & _VIEW_END
    if "UNION" in rest:
        union_all = any(_word(toks[j]) == "UNION" and _word(toks[j + 1]) == "ALL"
                        for j in range(end, len(toks) - 1) if depth[j] == 0)
        raise _non_simple(name, "UNION", -8251 if union_all else -384)
    if rest & {"GROUP", "HAVING", "INTERSECT", "MINUS", "EXCEPT"}:
        raise _non_simple(name, "GROUP BY or a set operation")
    if rest - {"WHERE"}:
        raise SqlError(NOT_SUPPORTED, message=f"writing through the view {name} is not "
                                              "supported by the emulator")
    source, source_ref, alias = _from_item(toks, depth, frm + 1, end, name)
    sdef = lookup(source)
    if sdef is None:
        raise SqlError(-206, -111, source, f"table {source} not found")
    items = _items(toks, depth, start, frm, alias, sdef, name)
    columns = [c.name for c in tdef.columns]
    if len(items) != len(columns):
        raise SqlError(NOT_SUPPORTED, message=f"writing through the view {name} is not "
                                              "supported by the emulator")
    quals = {source, ident(alias[-1])}
    sources = [_plain_column(item, quals, sdef) for item in items]
    return _View(name, columns, items, sources, source, source_ref, alias,
                 toks[end + 1:] if end < len(toks) else [], check)


def _from_item(toks: list[Token], depth: list[int], a: int, b: int,
               view: str) -> tuple[str, list[Token], list[Token]]:
    """(table name, its tokens, its qualifier) of a one-table FROM list."""
    if len(_split(toks, depth, a, b)) > 1 or any(
            _word(toks[j]) in ("JOIN", "OUTER") for j in range(a, b)):
        raise _non_simple(view, "more than one table")
    if toks[a].text == "(" or _word(toks[a]) == "TABLE":
        raise _non_simple(view, "a derived table")
    j = a
    if j + 2 < b and toks[j + 1].text == "." and toks[j].kind in ("word", "str"):
        j += 2                                               # owner.table
    ref = toks[a:j + 1]
    k = j + 1
    if k < b and _word(toks[k]) == "AS":
        k += 1
    alias = toks[k:k + 1] if k < b else toks[j:j + 1]
    return ident(toks[j]), ref, alias


def _items(toks: list[Token], depth: list[int], a: int, b: int, alias: list[Token],
           sdef: TableDef, view: str) -> list[list[Token]]:
    """The projection's expressions, ``*`` expanded and aliases cut off;
    -384 for an aggregate outside a subquery."""
    in_subquery = 0
    for j in range(a, b):
        if toks[j].text == "(" and _word(toks[j + 1]) == "SELECT":
            in_subquery += 1
        if not in_subquery and _word(toks[j]) in AGGREGATES and toks[j + 1].text == "(":
            raise _non_simple(view, "an aggregate")
    out: list[list[Token]] = []
    for x, y in _split(toks, depth, a, b):
        if toks[y - 1].text == "*":
            out += [[*alias, _syn(".", "op"), _name(c.name)] for c in sdef.columns]
            continue
        if y - x >= 2 and _word(toks[y - 1]) and _word(toks[y - 2]) == "AS":
            y -= 2
        elif y - x >= 2 and toks[y - 1].kind == "word" and toks[y - 2].text != "." and (
                toks[y - 2].kind in ("word", "num", "str") or toks[y - 2].text == ")"):
            y -= 1
        out.append(toks[x:y])
    return out


def _plain_column(item: list[Token], quals: set[str], sdef: TableDef) -> str | None:
    """The source column an item is (``col`` or ``qual.col``), else None."""
    if len(item) == 3 and item[1].text == "." and ident(item[0]) in quals:
        item = item[2:]
    if len(item) == 1 and item[0].kind == "word" and sdef.column(ident(item[0])):
        return ident(item[0])
    return None


def derived(view: _View, lookup: Lookup, delimident: bool) -> list[Token]:
    """``( SELECT <base rowid> AS _ifx_r, <item> AS <column>, ... FROM ... )``:
    the view's rows, each with the rowid of the base-table row it shows."""
    dot = _syn(".", "op")
    sdef = lookup(view.source)
    if sdef is not None and sdef.view:
        inner = _parse(sdef, lookup, delimident)
        source = [*derived(inner, lookup, delimident), _syn("AS"), *view.alias]
        rowid = [*view.alias, dot, _syn(ROWID.upper())]
    else:
        source = [*view.source_ref, *view.alias] if view.alias[-1] is not view.source_ref[-1] \
            else list(view.source_ref)
        rowid = [*view.alias, dot, _syn("ROWID")]
    out = [_syn("(", "op"), _syn("SELECT"), *rowid, _syn("AS"), _syn(ROWID.upper())]
    for item, col in zip(view.items, view.columns):
        out += [_syn(",", "op"), *item, _syn("AS"), _name(col)]
    out += [_syn("FROM"), *source]
    if view.where:
        out += [_syn("WHERE"), *view.where]
    return out + [_syn(")", "op")]


def chain(tdef: TableDef, lookup: Lookup, delimident: bool) -> list[_View]:
    """The view written and every view under it, down to the base table."""
    views = [_parse(tdef, lookup, delimident)]
    while True:
        sdef = lookup(views[-1].source)
        if sdef is None or not sdef.view:
            return views
        if len(views) > 32:
            raise SqlError(NOT_SUPPORTED, message="views nested this deep are not "
                                                  "supported by the emulator")
        views.append(_parse(sdef, lookup, delimident))


def base_column(views: list[_View], col: str) -> str:
    """The base-table column a view column writes; -217/-234 when none."""
    for view in views:
        if col not in view.columns:
            raise SqlError(-217, 0, col, f"column {col} not found")
        found = view.sources[view.columns.index(col)]
        if found is None:
            raise SqlError(-234, 0, col, f"cannot insert into virtual column {col}")
        col = found
    return col


def check_queries(views: list[_View], lookup: Lookup, delimident: bool) -> list[list[Token]]:
    """One ``SELECT _ifx_r FROM (view)`` per WITH CHECK OPTION view: the rows
    it shows, by base rowid."""
    out = []
    for view in views:
        if view.check:
            out.append([_syn("SELECT"), _syn(ROWID.upper()), _syn("FROM"),
                        *derived(view, lookup, delimident), _syn("AS"), _syn("_IFX_V")])
    return out


# ---------------------------------------------------------------------------
# The statements
# ---------------------------------------------------------------------------

def write_target(toks: list[Token], lookup: Lookup) -> tuple[TableDef, int, int] | None:
    """(view, first and end token of its name) when an INSERT/UPDATE/DELETE
    writes a view; None for anything else."""
    first = _word(toks[0]) if toks else ""
    at = {"INSERT": 2, "UPDATE": 1, "DELETE": 2 if len(toks) > 1 and _word(toks[1]) == "FROM"
          else 1}.get(first)
    if at is None or at >= len(toks) or (first == "INSERT" and _word(toks[1]) != "INTO"):
        return None
    end = at + 1
    if end + 1 < len(toks) and toks[end].text == "." and toks[at].kind in ("word", "str"):
        end += 2                                             # owner.view
    if toks[end - 1].kind != "word":
        return None
    tdef = lookup(ident(toks[end - 1]))
    # sysmaster's tables are views without a definition: refused as before
    return (tdef, at, end) if tdef is not None and tdef.view and tdef.definition else None


def rewrite_view_write(toks: list[Token], lookup: Lookup, delimident: bool
                       ) -> tuple[list[Token], list[list[Token]], list[Token] | None]:
    """The statement on the base table, the WITH CHECK OPTION queries, and a
    probe: a SELECT of the SET expressions and WHERE clause from the view
    alone.  Inside the rewritten statement a name the view lacks would be
    read from the base table (an outer reference); the engine prepares the
    probe, so such a name is -217 as on the server, never a base column."""
    found = write_target(toks, lookup)
    assert found is not None
    tdef, at, end = found
    if any(_word(t) == "CURRENT" and _word(toks[j + 1]) == "OF"
           for j, t in enumerate(toks[:-1])):
        raise SqlError(NOT_SUPPORTED, message="WHERE CURRENT OF through a view is not "
                                              "supported by the emulator")
    views = chain(tdef, lookup, delimident)
    base_ref = views[-1].source_ref
    verb = _word(toks[0])
    probe = None
    if verb == "INSERT":
        out = _insert(toks, end, views, base_ref)
    elif verb == "UPDATE":
        out, probe = _update(toks, end, views, base_ref, lookup, delimident)
    else:
        out = _delete(toks, at, end, views, base_ref, lookup, delimident)
        probe = _probe(views, [_syn("1", "num")], toks[end:])
    checks = check_queries(views, lookup, delimident) if verb != "DELETE" else []
    return out, checks, probe


def _probe(views: list[_View], exprs: list[Token], where: list[Token]) -> list[Token]:
    label = _name(views[0].name)
    return [_syn("SELECT"), *exprs, _syn("FROM"), label, _syn("AS"), label, *where]


def _insert(toks: list[Token], end: int, views: list[_View],
            base_ref: list[Token]) -> list[Token]:
    if end < len(toks) and toks[end].text == "(" and _word(toks[end + 1]) != "SELECT":
        depth = _depths(toks)
        close = next(j for j in range(end + 1, len(toks)) if depth[j] == 0 and
                     toks[j].text == ")")
        cols = [ident(toks[a]) for a, _ in _split(toks, depth, end + 1, close, 1)]
        end = close + 1
    else:
        cols = list(views[0].columns)
    targets: list[Token] = []
    for n, col in enumerate(cols):
        targets += ([_syn(",", "op")] if n else []) + [_name(base_column(views, col))]
    return [*toks[:2], *base_ref, _syn("(", "op"), *targets, _syn(")", "op"), *toks[end:]]


def _rowids(views: list[_View], where: list[Token], lookup: Lookup,
            delimident: bool) -> list[Token]:
    """``WHERE ROWID IN (SELECT v._ifx_r FROM (view) AS v [WHERE ...])``."""
    label = _name(views[0].name)
    return [_syn("WHERE"), _syn("ROWID"), _syn("IN"), _syn("(", "op"), _syn("SELECT"), label,
            _syn(".", "op"), _syn(ROWID.upper()), _syn("FROM"),
            *derived(views[0], lookup, delimident), _syn("AS"), label, *where, _syn(")", "op")]


def _delete(toks: list[Token], at: int, end: int, views: list[_View], base_ref: list[Token],
            lookup: Lookup, delimident: bool) -> list[Token]:
    return [*toks[:at], *base_ref, *_rowids(views, toks[end:], lookup, delimident)]


def _update(toks: list[Token], end: int, views: list[_View], base_ref: list[Token],
            lookup: Lookup, delimident: bool) -> tuple[list[Token], list[Token] | None]:
    depth = _depths(toks)
    if _word(toks[end]) != "SET" or toks[end + 1].text in ("(", "*"):
        raise SqlError(NOT_SUPPORTED, message="UPDATE of a view other than SET col = expr is "
                                              "not supported by the emulator")
    where = _first(toks, depth, frozenset({"WHERE"}), end + 1, len(toks))
    sets: list[Token] = []
    exprs: list[Token] = []
    for n, (a, b) in enumerate(_split(toks, depth, end + 1, where)):
        if b - a < 3 or toks[a + 1].text != "=":
            return toks, None                # the translator gives the syntax error
        col = base_column(views, ident(toks[a]))
        comma = [_syn(",", "op")] if n else []
        sets += [*comma, _name(col), toks[a + 1], *_substitute(toks[a + 2:b], views)]
        exprs += [*comma, _syn("(", "op"), *toks[a + 2:b], _syn(")", "op")]
    return ([toks[0], *base_ref, toks[end], *sets,
             *_rowids(views, toks[where:], lookup, delimident)],
            _probe(views, exprs, toks[where:]))


def _substitute(expr: list[Token], views: list[_View]) -> list[Token]:
    """A SET expression reading base columns for the view's (``col`` and
    ``view.col``); a subquery naming the view's columns is refused rather
    than guessed at."""
    names = set(views[0].columns)
    label = views[0].name
    if any(_word(t) == "SELECT" for t in expr):
        if any(t.kind == "word" and ident(t) in names | {label} for t in expr):
            raise SqlError(NOT_SUPPORTED, message="a SET subquery reading the view's columns "
                                                  "is not supported by the emulator")
        return expr
    out: list[Token] = []
    j = 0
    while j < len(expr):
        t = expr[j]
        qualified = j + 2 < len(expr) and expr[j + 1].text == "." and ident(t) == label
        if qualified:
            t, j = expr[j + 2], j + 2
        after = expr[j + 1].text if j + 1 < len(expr) else ""
        before = expr[j - 1].text if j else ""
        if t.kind == "word" and ident(t) in names and after not in (".", "(") and \
                (qualified or before != "."):
            out.append(_name(_read_column(views, ident(t))))
        else:
            out.append(t)
        j += 1
    return out


def _read_column(views: list[_View], col: str) -> str:
    try:
        return base_column(views, col)
    except SqlError:
        raise SqlError(NOT_SUPPORTED, message=f"a SET expression reading the view's computed "
                                              f"column {col} is not supported by the emulator"
                       ) from None
