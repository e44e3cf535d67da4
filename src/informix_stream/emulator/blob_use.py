"""Where a BYTE or TEXT column may appear in a statement, as Informix rules it.

The emulator keeps a BYTE/TEXT column as a reference (``id << 32 | size``,
see blobs.py), so SQLite would compare, sort or group that number and answer
with wrong rows (``WHERE t = 'x'`` finding nothing) where the server refuses
the statement.  IBM's "TEXT data type" page (Informix 14.10 SQL Reference):
TEXT operands are valid in Boolean expressions only when tested with IS
[NOT] NULL, and not in arithmetic or string operations, aggregates, IN,
MATCHES/LIKE, GROUP BY or ORDER BY; HCL's Database Design Guide ("Use TEXT
and BYTE data types") allows selecting the column, ``LENGTH(column)`` and
IS [NOT] NULL.  LENGTH of BYTE/TEXT is the full byte count, trailing blanks
included (HCL Informix 14.10 SQL Syntax, "LENGTH Function").

Codes, IBM JDBC 15.0.1.0 message catalog (sql_en_US.properties): -612
blobs in GROUP BY, -613 in DISTINCT, -614 in ORDER BY, -615 in any other
expression.
"""

from __future__ import annotations

from informix_stream.codecs import TypeCode

from .statements import NOT_SUPPORTED, SqlError
from .tokens import ident

BLOBS = frozenset({TypeCode.BYTE, TypeCode.TEXT})
IN_GROUP_BY, IN_DISTINCT, IN_ORDER_BY, IN_EXPRESSION = -612, -613, -614, -615
# Functions that take a BYTE/TEXT column: its byte count.
_LENGTHS = frozenset({"LENGTH", "LEN", "OCTET_LENGTH"})
# Words that end the search for the clause a reference is in.
_CLAUSES = frozenset({"SELECT", "WHERE", "HAVING", "ON", "SET", "ORDER", "GROUP", "WHEN",
                      "THEN", "ELSE", "VALUES", "INTO", "FROM", "USING", "RETURNING"})
# Words after which a name is a column reference, not an alias.
_BEFORE_REFERENCE = frozenset({"SELECT", "WHERE", "AND", "OR", "NOT", "ON", "BY", "WHEN",
                               "THEN", "ELSE", "CASE", "DISTINCT", "UNIQUE", "ALL", "SET",
                               "IN", "BETWEEN", "LIKE", "MATCHES", "IS", "ESCAPE", "HAVING",
                               "EXISTS", "ANY", "SOME"})
_ITEM_END = frozenset({",", "FROM", "AS", "INTO", ")"})


class BlobUseRules:
    """Methods of the dialect's translator (see dialect._Translator)."""

    def blob_reference(self, i: int) -> bool:
        """Whether the word at i names a BYTE/TEXT column of the statement's
        tables (every column of that name in scope is one, so a name that
        could mean another column is never refused)."""
        t = self.toks[i]
        if self.text(i + 1) in ("(", ".") or not self.scope:
            return False
        before = self.text(i - 1)
        if before == ".":
            qual = ident(self.toks[i - 2]) if i >= 2 else None
        elif self.toks[i - 1].kind in ("str", "num") or before == ")" or (
                self.toks[i - 1].kind == "word" and before not in _BEFORE_REFERENCE):
            return False        # an alias after an item, or a keyword's operand
        else:
            qual = None
        found = [col.type.code for alias, tdef in self.scope
                 if qual is None or qual in (alias, tdef.name)
                 for col in [tdef.column(ident(t))] if col is not None]
        return bool(found) and all(code in BLOBS for code in found)

    def blob_use(self, i: int) -> None:
        """Raise where Informix refuses the BYTE/TEXT column reference at i."""
        if self.word(i + 1) == "IS" and (self.word(i + 2) == "NULL" or self.word(
                i + 2) == "NOT" and self.word(i + 3) == "NULL"):
            return
        if self.text(i + 1) == "[":
            raise SqlError(NOT_SUPPORTED, message="a BYTE/TEXT subscript is not supported "
                                                  "by the emulator")
        start = i - 2 if self.text(i - 1) == "." else i
        clause, at = self.enclosing(start)
        if clause == "(":
            if self.word(at - 2) == "INTO" or self.word(at - 4) == "INTO":
                return          # INSERT INTO t (..., col, ...)
            raise SqlError(IN_EXPRESSION, message="a BYTE/TEXT column is not allowed as "
                                                  f"an argument of {self.word(at - 1) or '('}")
        if clause in ("ORDER", "GROUP") and start == i and self.is_label(ident(self.toks[i])):
            return              # a display label of the select list, not the column
        if clause == "ORDER":
            raise SqlError(IN_ORDER_BY, message="a BYTE/TEXT column cannot be in ORDER BY")
        if clause == "GROUP":
            raise SqlError(IN_GROUP_BY, message="a BYTE/TEXT column cannot be in GROUP BY")
        if self.whole_item(start, i):
            if clause == "SELECT" and self.word(at + 1) in ("DISTINCT", "UNIQUE"):
                raise SqlError(IN_DISTINCT, message="a BYTE/TEXT column cannot be selected "
                                                    "DISTINCT")
            if clause in ("SELECT", "SET", "VALUES"):
                return
        if clause == "SET" and self.text(i + 1) == "=" and self.text(start - 1) in (",", "SET"):
            return              # the assignment's target
        raise SqlError(IN_EXPRESSION, message="a BYTE/TEXT column can only be selected, "
                                              "assigned or tested with IS [NOT] NULL")

    def blob_length(self, i: int, end: int) -> tuple[str, int] | None:
        """``LENGTH(col)`` at i of a BYTE/TEXT column: SQLite text for its
        byte count (kept in the stored reference) and the index after it."""
        if self.word(i) not in _LENGTHS or self.text(i + 1) != "(":
            return None
        close = self.close_paren(i + 1, end)
        ref = close - 1
        if close - i not in (3, 5) or self.toks[ref].kind != "word" \
                or not self.blob_reference(ref):
            return None
        text = " ".join(self.toks[k].raw for k in range(i + 2, close))
        return f"(({text}) & 4294967295)", close + 1

    def is_label(self, name: str) -> bool:
        """Whether ``AS name`` labels an item somewhere in the statement."""
        return any(self.word(k) == "AS" and ident(self.toks[k + 1]) == name
                   for k in range(len(self.toks) - 1))

    def whole_item(self, start: int, i: int) -> bool:
        """Whether [start, i] is a whole list item or assigned value."""
        before, after = self.text(start - 1), self.text(i + 1)
        lead = before in (",", "=") or self.word(start - 1) in (
            "SELECT", "DISTINCT", "UNIQUE", "ALL", "SET")
        trail = i + 1 >= len(self.toks) or after in _ITEM_END or self.word(i + 1) in (
            "WHERE", "FOR", "UNION") or (self.toks[i + 1].kind == "word"
                                         and self.word(i + 1) not in _BEFORE_REFERENCE
                                         and before != "=")
        return lead and trail

    def enclosing(self, i: int) -> tuple[str, int]:
        """The clause word (or "(") that the token at i belongs to, and its index."""
        depth = 0
        for k in range(i - 1, -1, -1):
            text = self.text(k)
            if text == ")" and self.toks[k].kind == "op":
                depth += 1
            elif text == "(" and self.toks[k].kind == "op":
                if depth == 0:
                    return "(", k
                depth -= 1
            elif depth == 0 and self.word(k) in _CLAUSES:
                return self.word(k), k
        return "", -1
