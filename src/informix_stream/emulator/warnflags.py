"""The sqlwarn flags a real server sets in the SQ_DONE of a PREPARE.

IBM documents one flag that a statement earns when it is prepared and
described: sqlwarn4 (bit 0x08 of SQ_DONE's warnings short, SQLSTATE 01I07)
"if the prepared object contains a DELETE statement or an UPDATE statement
without a WHERE clause" (IBM Informix Guide to SQL: Tutorial, "SQLWARN
array"; Informix SQL Syntax, DESCRIBE, "Checking for the Existence of a
WHERE Clause").  SQLI has no separate DESCRIBE request -- the PREPARE's
SQ_NDESCRIBE and SQ_WANTDONE answer it -- so the emulator puts the flag in
the SQ_DONE that ends the PREPARE reply.  That placement is inferred from
the documentation, not seen on a real server's wire (docs/protocol.md §5.3).

The database-open flags (logged, ANSI, locale) live in logmode.py and
gls.py; the driver's side of all of them is informix_stream/sqlwarn.py.
"""

from __future__ import annotations

import re

from ..sqllex import opaque_regions
from .statements import StatementKind

NO_WHERE = 0x08          # sqlwarn4 after PREPARE/DESCRIBE
_WHERE = re.compile(r"\bwhere\b", re.IGNORECASE)


def prepare_flags(kind: StatementKind, sql: str) -> int:
    """The warnings of the SQ_DONE answering the PREPARE of ``sql``."""
    if kind in (StatementKind.UPDATE, StatementKind.DELETE) and not has_where(sql):
        return NO_WHERE
    return 0


def has_where(sql: str) -> bool:
    """A WHERE keyword of the statement itself: not inside a literal, a
    comment or parentheses (a subquery's WHERE does not count)."""
    text = list(sql)
    for start, end, _kind in opaque_regions(sql):
        text[start:end] = " " * (end - start)
    plain = "".join(text)
    depth, top = 0, []
    for ch in plain:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        top.append(ch if depth == 0 and ch != ")" else " ")
    return _WHERE.search("".join(top)) is not None
