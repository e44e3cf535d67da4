"""Translation of ALTER TABLE and RENAME statements into the specs alter.py runs.

Syntax from IBM Informix Guide to SQL: Syntax, "ALTER TABLE" (ADD, DROP,
MODIFY, ADD CONSTRAINT, DROP CONSTRAINT clauses; the actions run in the order
written and fail as a whole) and "RENAME TABLE", "RENAME COLUMN",
"RENAME SEQUENCE", "RENAME INDEX".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .statements import (NOT_SUPPORTED, ColumnDef, CreateTable, SqlError, StatementKind,
                         Translation)
from .tokens import ident


@dataclass
class AlterAction:
    """One clause of ALTER TABLE.

    ``verb``: ADD (``column`` and ``before``), DROP (``names``: columns),
    MODIFY (``column``), CONSTRAINT (ADD CONSTRAINT: what ``extra`` holds),
    DROP CONSTRAINT (``names``).  ``extra`` collects the constraints written
    in a column definition or an ADD CONSTRAINT clause, in CreateTable's
    shapes (uniques, checks with their sources, references).
    """

    verb: str
    column: ColumnDef | None = None
    before: str | None = None
    names: list[str] = field(default_factory=list)
    extra: CreateTable | None = None


@dataclass
class AlterTable:
    name: str
    actions: list[AlterAction]


@dataclass
class Rename:
    """RENAME TABLE/COLUMN/SEQUENCE/INDEX; ``table`` only for a column."""

    what: str
    old: str
    new: str
    table: str | None = None


# What else Informix can ALTER (Guide to SQL: Syntax, the ALTER statements).
_OTHER_ALTERS = frozenset({"INDEX", "SEQUENCE", "FRAGMENT", "FUNCTION", "PROCEDURE", "ROUTINE",
                           "ACCESS_METHOD", "SECURITY", "TRUSTED", "USER"})


class AlterRules:
    """Methods of the dialect's translator (see dialect._Translator)."""

    def alter(self) -> Translation:
        if self.word(1) != "TABLE":
            if self.word(1) in _OTHER_ALTERS:
                raise SqlError(NOT_SUPPORTED, message=f"ALTER {self.word(1)} is not "
                                                      "supported by the emulator")
            self.syntax_error(1, "ALTER TABLE expected")
        name, i = self.table_name(2)
        actions: list[AlterAction] = []
        if i >= len(self.toks):
            self.syntax_error(i, "an ALTER TABLE clause is expected")
        for a, b in self.split_commas(i, len(self.toks)):
            actions += self.alter_clause(a, b)
        return Translation(StatementKind.DDL, table=name, ddl=AlterTable(name, actions))

    def alter_clause(self, a: int, b: int) -> list[AlterAction]:
        verb = self.word(a)
        if verb == "LOCK" or (verb == "MODIFY" and self.word(a + 1) in ("NEXT", "EXTENT")):
            return []           # storage options: nothing the emulator keeps
        if verb not in ("ADD", "DROP", "MODIFY") or a + 1 >= b:
            self.syntax_error(a, "ADD, DROP or MODIFY expected in ALTER TABLE")
        if self.word(a + 1) == "CONSTRAINT":
            return self.constraint_clause(verb, a + 2, b)
        items = self.paren_items(a + 1, b)
        if verb == "DROP":
            return [AlterAction("DROP", names=[self.name_at(x, y) for x, y in items])]
        return [self.column_clause(verb, x, y) for x, y in items]

    def paren_items(self, a: int, b: int) -> list[tuple[int, int]]:
        """``( item, item )`` or a single unparenthesised item in [a, b)."""
        if self.text(a) == "(":
            close = self.close_paren(a, b)
            if close != b - 1:
                self.syntax_error(close + 1, "unexpected text after the list")
            return self.split_commas(a + 1, close)
        return [(a, b)]

    def name_at(self, x: int, y: int) -> str:
        if y != x + 1 or self.toks[x].kind != "word":
            self.syntax_error(x if y <= x else x + 1, "a name is expected")
        return ident(self.toks[x])

    def column_clause(self, verb: str, x: int, y: int) -> AlterAction:
        """ADD/MODIFY column definition, ADD's with an optional BEFORE column."""
        before = None
        if verb == "ADD" and y - x >= 4 and self.word(y - 2) == "BEFORE":
            before = ident(self.toks[y - 1])
            y -= 2
        if y - x < 2:
            self.syntax_error(y, "a column definition is expected")
        extra = CreateTable("", [], [], [])
        self.column_def(x, y, extra)
        return AlterAction(verb, extra.columns[0], before, extra=extra)

    def constraint_clause(self, verb: str, a: int, b: int) -> list[AlterAction]:
        if verb == "MODIFY":
            self.syntax_error(a - 1, "MODIFY CONSTRAINT is not ALTER TABLE syntax")
        items = self.paren_items(a, b)
        if verb == "DROP":
            return [AlterAction("DROP CONSTRAINT", names=[self.name_at(x, y) for x, y in items])]
        extra = CreateTable("", [], [], [])
        for x, y in items:
            if self.word(x) not in ("PRIMARY", "UNIQUE", "DISTINCT", "CHECK", "FOREIGN",
                                    "CONSTRAINT"):
                self.syntax_error(x, "a constraint is expected")
            self.table_constraint(x, y, extra)
        return [AlterAction("CONSTRAINT", extra=extra)]

    def rename(self) -> Translation:
        """RENAME TABLE old TO new | COLUMN t.old TO new | SEQUENCE | INDEX."""
        what = self.word(1)
        if what not in ("TABLE", "COLUMN", "SEQUENCE", "INDEX"):
            self.refuse_unimplemented("RENAME", 1)
        table = None
        if what == "COLUMN":
            if self.text(3) != ".":
                self.syntax_error(3, "RENAME COLUMN table.column TO name expected")
            table = ident(self.toks[2])
            old, i = ident(self.toks[4]), 5
        else:
            old, i = self.table_name(2)
        if self.word(i) != "TO" or i + 2 != len(self.toks) or self.toks[i + 1].kind != "word":
            self.syntax_error(min(i if self.word(i) != "TO" else i + 1, len(self.toks)),
                              "TO new name expected")
        new = ident(self.toks[i + 1])
        return Translation(StatementKind.DDL, table=table if what == "COLUMN" else
                           old if what == "TABLE" else None,
                           ddl=Rename(what, old, new, table))
