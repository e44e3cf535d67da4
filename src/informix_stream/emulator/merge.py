"""MERGE: translation into SQLite statements and their run as one unit.

What the server does (IBM Informix Guide to SQL: Syntax, "MERGE statement"):
``MERGE INTO target [[AS] alias] USING table|view|(subquery) [[AS] alias]
ON condition`` with ``WHEN MATCHED THEN UPDATE SET ... | DELETE`` and/or
``WHEN NOT MATCHED THEN INSERT [(columns)] VALUES (...)``, each at most
once.  Source rows are matched against the target before anything changes;
a target row that two source rows match cannot be updated or deleted twice
(-26095, IBM JDBC 15.0.1.0 message catalog, sql_en_US.properties); the
count the statement reports is every row updated, deleted and inserted
("%d row(s) merged", message 962 of the same catalog); constraints are
checked as for INSERT/UPDATE/DELETE and a failing row undoes the whole MERGE.

SQLite has no MERGE: the source joined to the target is first copied into a
TEMP table (``_ifx_t`` the matched target rowid, NULL for none), so the
match is fixed before any change, then one UPDATE ... FROM, DELETE and
INSERT ... SELECT run from it inside one savepoint.  The server's
DESCRIBE statement type for MERGE is not known here; the emulator says 4
(UPDATE), which every client treats as a statement with a row count.
"""

from __future__ import annotations

import itertools
import sqlite3
from dataclasses import dataclass, field
from typing import Sequence

from .statements import ColumnDef, SqlError, StatementKind, TableDef, Translation, sql_ident
from .tokens import ident

TWICE = -26095
_SCRATCH = "_ifx_merge"


@dataclass
class MergePlan:
    """SQLite statements of one MERGE, each with the slice of the
    translation's binds it uses; ``{m}`` in them names the scratch table."""

    table: str
    match: tuple[str, slice]
    update: tuple[str, slice] | None = None
    delete: str | None = None
    insert: tuple[str, slice] | None = None
    steps: list[str] = field(default_factory=list)


class MergeRules:
    """Methods of the dialect's translator (see dialect._Translator)."""

    def merge(self) -> Translation:
        if self.word(1) != "INTO":
            self.syntax_error(1, "MERGE INTO expected")
        name, i = self.table_name(2)
        tdef = self.target(name)
        talias, i = self.merge_alias(i, name, "USING")
        if self.word(i) != "USING":
            self.syntax_error(i, "USING expected")
        i += 1
        if self.text(i) == "(":
            close = self.close_paren(i)
            if self.word(i + 1) != "SELECT":
                self.syntax_error(i + 1, "a subquery is expected in USING")
            sub = (i + 1, close)
            i = close + 1
            salias, i = self.merge_alias(i, "", "ON")
            if not salias:
                self.syntax_error(i, "a subquery in USING needs an alias")
            self.scope = []
            self.collect_scope(sub[0], sub[1])
            described = self.describe(sub[0])
            sdef = TableDef(salias, [ColumnDef(c.name, c.type) for c in described], derived=True)
            source_sql = None
        else:
            sname, i = self.table_name(i)
            sdef = self.table(sname)
            salias, i = self.merge_alias(i, sname, "ON")
            sub = None
            source_sql = f"{sdef.sql_name} AS {salias}"
        if self.word(i) != "ON":
            self.syntax_error(i, "ON expected")
        whens = [j for j in range(i + 1, len(self.toks)) if self.word(j) == "WHEN"
                 and self.depth_at(j) == 0]
        if not whens:
            self.syntax_error(len(self.toks), "WHEN MATCHED or WHEN NOT MATCHED expected")
        scope = [(talias, tdef), (salias, sdef)]
        start = len(self.binds)
        if sub is not None:
            self.scope = []
            self.collect_scope(sub[0], sub[1])
            source_sql = "(" + " ".join(self.select_body(sub[0], sub[1])) + f") AS {salias}"
        self.scope = scope
        on = " ".join(self.rewrite(i + 1, whens[0]))
        match = (f"CREATE TEMP TABLE {{m}} AS SELECT {salias}.*, {talias}.rowid AS _ifx_t"
                 f" FROM {source_sql} LEFT JOIN {tdef.sql_name} AS {talias} ON {on}",
                 slice(start, len(self.binds)))
        plan = MergePlan(name, match)
        bounds = whens[1:] + [len(self.toks)]
        for a, b in zip(whens, bounds):
            self.merge_when(a, b, plan, tdef, talias, salias)
        return Translation(StatementKind.MERGE, "", self.binds, self.param_count, table=name,
                           ddl=plan)

    def depth_at(self, j: int) -> int:
        depth = 0
        for t in self.toks[:j]:
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
        return depth

    def merge_alias(self, i: int, default: str, stop: str) -> tuple[str, int]:
        if self.word(i) == "AS":
            return ident(self.toks[i + 1]), i + 2
        if i < len(self.toks) and self.toks[i].kind == "word" and self.word(i) != stop:
            return ident(self.toks[i]), i + 1
        return default, i

    def merge_when(self, a: int, b: int, plan: MergePlan, tdef: TableDef, talias: str,
                   salias: str) -> None:
        matched = self.word(a + 1) == "MATCHED"
        j = a + 2 if matched else a + 3
        if not matched and (self.word(a + 1) != "NOT" or self.word(a + 2) != "MATCHED"):
            self.syntax_error(a + 1, "MATCHED or NOT MATCHED expected")
        if self.word(j) != "THEN":
            self.syntax_error(j, "THEN expected")
        verb = self.word(j + 1)
        if matched and (plan.update or plan.delete):
            self.syntax_error(a, "only one WHEN MATCHED clause is allowed")
        if not matched and plan.insert:
            self.syntax_error(a, "only one WHEN NOT MATCHED clause is allowed")
        if matched and verb == "DELETE" and j + 2 == b:
            plan.delete = (f"DELETE FROM {tdef.sql_name} WHERE rowid IN"
                           " (SELECT _ifx_t FROM {m})")
        elif matched and verb == "UPDATE" and self.word(j + 2) == "SET":
            plan.update = self.merge_update(j + 3, b, tdef, talias, salias)
        elif not matched and verb == "INSERT":
            plan.insert = self.merge_insert(j + 2, b, tdef, salias)
        else:
            self.syntax_error(j + 1, "UPDATE SET, DELETE or INSERT expected")

    def merge_update(self, a: int, b: int, tdef: TableDef, talias: str,
                     salias: str) -> tuple[str, slice]:
        start = len(self.binds)
        sets = []
        for x, y in self.split_commas(a, b):
            if y - x < 3 or self.text(x + 1) != "=":
                self.syntax_error(x + 1, "column = value expected in SET")
            col = ident(self.toks[x])
            cdef = tdef.column(col)
            if cdef is None:
                raise SqlError(-217, 0, col, f"column {col} not found")
            sets.append(f"{sql_ident(col)} = " + self.value_expr(x + 2, y, cdef.type))
        sql = (f"UPDATE {tdef.sql_name} AS {talias} SET {', '.join(sets)} FROM {{m}} AS {salias}"
               f" WHERE {talias}.rowid = {salias}._ifx_t")
        return sql, slice(start, len(self.binds))

    def merge_insert(self, a: int, b: int, tdef: TableDef, salias: str) -> tuple[str, slice]:
        targets = [c.name for c in tdef.columns]
        if self.text(a) == "(":
            close = self.close_paren(a, b)
            targets = [ident(self.toks[x]) for x, _ in self.split_commas(a + 1, close)]
            for col in targets:
                if tdef.column(col) is None:
                    raise SqlError(-217, 0, col, f"column {col} not found")
            a = close + 1
        if self.word(a) != "VALUES" or self.text(a + 1) != "(" or \
                self.close_paren(a + 1, b) != b - 1:
            self.syntax_error(a, "VALUES (...) expected")
        values = self.split_commas(a + 2, b - 1)
        if len(values) != len(targets):
            raise SqlError(-236, message="number of columns in INSERT does not match VALUES")
        start = len(self.binds)
        table = tdef.storage or tdef.name
        pieces = [self.serial_wrap(table, tdef.column(col).type,
                                   self.value_expr(x, y, tdef.column(col).type))
                  for (x, y), col in zip(values, targets)]
        missing = [c for c in tdef.serial_columns if c.name not in targets]
        pieces += [self.serial_wrap(table, c.type, "NULL") for c in missing]
        cols = ", ".join(sql_ident(c) for c in targets + [c.name for c in missing])
        sql = (f"INSERT INTO {tdef.sql_name} ({cols}) SELECT {', '.join(pieces)}"
               f" FROM {{m}} AS {salias} WHERE {salias}._ifx_t IS NULL")
        return sql, slice(start, len(self.binds))


_names = itertools.count(1)


def run(conn: sqlite3.Connection, plan: MergePlan, values: Sequence[object]) -> int:
    """Run a MERGE's statements (inside the caller's savepoint); the count of
    rows updated, deleted and inserted."""
    scratch = f"{_SCRATCH}{next(_names)}"

    def sql(text: str) -> str:
        return text.replace("{m}", f"temp.{scratch}")

    conn.execute(sql(plan.match[0]), list(values[plan.match[1]]))
    try:
        if plan.update or plan.delete:
            twice = conn.execute(f"SELECT 1 FROM temp.{scratch} WHERE _ifx_t IS NOT NULL"
                                 " GROUP BY _ifx_t HAVING count(*) > 1 LIMIT 1").fetchone()
            if twice:
                raise SqlError(TWICE, 0, plan.table,
                               "cannot update or delete a row twice in a MERGE statement")
        count = 0
        if plan.update:
            count += conn.execute(sql(plan.update[0]), list(values[plan.update[1]])).rowcount
        if plan.delete:
            count += conn.execute(sql(plan.delete)).rowcount
        if plan.insert:
            count += conn.execute(sql(plan.insert[0]), list(values[plan.insert[1]])).rowcount
        return count
    finally:
        conn.execute(f"DROP TABLE IF EXISTS temp.{scratch}")
