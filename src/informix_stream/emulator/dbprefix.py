"""Database prefixes of object names: ``db:table``, ``db@server:owner.table``.

Informix lets a statement name a table of another database (or of another
server) by prefixing it (IBM Informix Guide to SQL: Syntax, "Database Object
Name").  The emulator keeps one SQLite file per database and cannot join
across them, so a prefix naming the current database is dropped and any other
prefix is refused as unsupported.  Dropping every prefix, as the translator
once did, silently read the current database's table of the same name: the
wrong rows under a right-looking answer.  The exception is ``sysmaster:``:
its tables that clients read at connect (sysmaster.py) become one word
token whose name is that table's lookup key; any other is refused.
"""

from __future__ import annotations

from . import sysmaster
from .statements import NOT_SUPPORTED, SqlError
from .tokens import Token, ident

__all__ = ["resolve_database_prefixes"]


def resolve_database_prefixes(tokens: list[Token], database: str) -> list[Token]:
    """Tokens with each ``<database>:`` prefix naming ``database`` removed.

    ``sysmaster:[owner.]table`` becomes one token naming that sysmaster
    table (sysmaster.TABLES).  Raises "not supported by the emulator" for a
    prefix naming another database or a sysmaster table the emulator lacks,
    or any server (``db@server:``), and -201
    for an ``@`` that is not part of such a prefix.
    """
    if not any(t.kind == "op" and t.text in (":", "@") for t in tokens):
        return tokens
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        span = _prefix_span(tokens, i)
        if span is None:
            if tokens[i].kind == "op" and tokens[i].text == "@":
                raise SqlError(-201, near="@", message="a syntax error has occurred near '@'")
            out.append(tokens[i])
            i += 1
            continue
        if span == 2 and _prefix_name(tokens[i]) == sysmaster.NAME \
                and database.lower() != sysmaster.NAME:
            token, used = _sysmaster_table(tokens, i + 2)
            out.append(token)
            i += 2 + used
            continue
        _check_prefix(tokens, i, span, database)
        i += span
    return out


def _prefix_span(tokens: list[Token], i: int) -> int | None:
    """Length of a ``db:`` or ``db@server:`` prefix starting at i, else None."""
    if tokens[i].kind not in ("word", "str") or _previous_is_qualifier(tokens, i):
        return None
    n = len(tokens)
    if i + 3 < n and _is_op(tokens[i + 1], "@") and tokens[i + 2].kind == "word" \
            and _is_op(tokens[i + 3], ":") and _names_object(tokens, i + 4):
        return 4
    if i + 1 < n and _is_op(tokens[i + 1], ":") and _names_object(tokens, i + 2):
        return 2
    return None


def _prefix_name(token: Token) -> str:
    return token.raw.strip("'\"").lower() if token.kind == "str" else ident(token)


def _sysmaster_table(tokens: list[Token], j: int) -> tuple[Token, int]:
    """The token standing for ``[owner.]table`` at j, and how many it replaces."""
    used = 1
    if j + 2 < len(tokens) and _is_op(tokens[j + 1], ".") and tokens[j + 2].kind == "word":
        j, used = j + 2, 3
    name = tokens[j]
    key = sysmaster.check_table(_prefix_name(name))
    return name._replace(kind="word", name=key), used


def _check_prefix(tokens: list[Token], i: int, span: int, database: str) -> None:
    name = _prefix_name(tokens[i])
    if span == 4:
        server = ident(tokens[i + 2])
        raise SqlError(NOT_SUPPORTED, message=f"a table of database {name}@{server}: naming a "
                                              "server in a table name is not supported by "
                                              "the emulator")
    if name != database.lower():
        raise SqlError(NOT_SUPPORTED, message=f"a table of database {name} from a session in "
                                              f"database {database}: cross-database queries "
                                              "are not supported by the emulator")


def _is_op(token: Token, text: str) -> bool:
    return token.kind == "op" and token.text == text


def _names_object(tokens: list[Token], j: int) -> bool:
    """A (possibly owner-qualified) name follows at j."""
    return j < len(tokens) and tokens[j].kind in ("word", "str")


def _previous_is_qualifier(tokens: list[Token], i: int) -> bool:
    """``x.db:`` or ``a :b``-style positions are not database prefixes: a
    prefix starts a name, so it never follows '.', ':' or '::'."""
    return i > 0 and tokens[i - 1].kind == "op" and tokens[i - 1].text in (".", ":", "::", "@")
