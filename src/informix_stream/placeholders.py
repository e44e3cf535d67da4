"""Finding parameter placeholders in SQL text, outside literals and comments.

Parameters are always bound on the wire; the only rewriting done here is
turning ``:1``-style markers into the ``?`` markers Informix understands and
working out which argument feeds each marker.  Quoted strings, delimited
identifiers and the three Informix comment forms are skipped, so a ``?``
inside ``'why?'`` is text, not a parameter.
"""

from __future__ import annotations

from .errors import ProgrammingError


def _skip_quoted(sql: str, i: int, quote: str) -> int:
    """Index after the literal opened at ``i`` (doubled quotes stay inside)."""
    n = len(sql)
    i += 1
    while i < n:
        if sql[i] == quote:
            if i + 1 < n and sql[i + 1] == quote:
                i += 2
                continue
            return i + 1
        i += 1
    raise ProgrammingError("unterminated quoted string in SQL")


def _skip_comment(sql: str, i: int) -> int:
    """Index after a comment starting at ``i``, or ``i`` when there is none."""
    if sql.startswith("--", i):
        end = sql.find("\n", i)
        return len(sql) if end < 0 else end + 1
    if sql.startswith("/*", i):
        end = sql.find("*/", i + 2)
        if end < 0:
            raise ProgrammingError("unterminated /* comment in SQL")
        return end + 2
    if sql[i] == "{":
        end = sql.find("}", i + 1)
        if end < 0:
            raise ProgrammingError("unterminated { comment in SQL")
        return end + 1
    return i


def convert(sql: str) -> tuple[str, list[int] | None, int]:
    """Return (SQL with ``?`` markers, argument order or None, marker count).

    The order list maps each ``?`` in the returned SQL to a zero-based
    argument index when the statement used ``:N`` markers; None means the
    arguments are taken in order.
    """
    out: list[str] = []
    order: list[int] = []
    qmarks = 0
    i, start, n = 0, 0, len(sql)
    while i < n:
        c = sql[i]
        j = _skip_quoted(sql, i, c) if c in "'\"" else _skip_comment(sql, i)
        if j != i:
            i = j
            continue
        if c == "?":
            qmarks += 1
        elif c == ":" and i + 1 < n and sql[i + 1].isdigit() and (i == 0 or sql[i - 1] != ":"):
            j = i + 1
            while j < n and sql[j].isdigit():
                j += 1
            number = int(sql[i + 1:j])
            if number < 1:
                raise ProgrammingError(":0 is not a valid parameter marker; markers start at :1")
            out.append(sql[start:i])
            out.append("?")
            order.append(number - 1)
            start = i = j
            continue
        i += 1
    if order and qmarks:
        raise ProgrammingError("SQL mixes ? and :N parameter markers")
    if not order:
        return sql, None, qmarks
    out.append(sql[start:])
    return "".join(out), order, len(order)


def first_keyword(sql: str) -> str:
    """The statement's first word in upper case, after comments and parentheses."""
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c.isspace() or c == "(":
            i += 1
            continue
        j = _skip_comment(sql, i)
        if j == i:
            break
        i = j
    j = i
    while j < n and (sql[j].isalnum() or sql[j] == "_"):
        j += 1
    return sql[i:j].upper()
