"""Transaction control, session options and DDL translation (CREATE/DROP
TABLE and INDEX, constraints, defaults)."""

from __future__ import annotations

import re
from dataclasses import replace

from informix_stream.codecs import ColumnType, parse_type

from . import composite, row_types, syscatalog
from .sequences import CreateSequence
from .statements import (NOT_SUPPORTED, SERIAL_CODES, Bind, ColumnDef, CreateIndex, CreateTable,
                         Drop, SqlError, StatementKind, Translation)
from .tokens import ident
from .tx_modes import parse_modes
from .typerules import TODAY_SQL, current_sql, datetime_type

# Valid Informix column types the emulator lacks: refused as such, never as
# a syntax error in the user's SQL.
_UNSUPPORTED_TYPES: frozenset[str] = frozenset()


# Objects Informix can CREATE or DROP that the emulator does not implement
# (IBM Informix Guide to SQL: Syntax, the CREATE and DROP statements).
_KNOWN_OBJECTS = frozenset({
    "VIEW", "PROCEDURE", "FUNCTION", "ROUTINE", "TRIGGER", "SYNONYM", "PUBLIC", "PRIVATE",
    "ROLE", "DATABASE", "ROW", "DISTINCT", "OPAQUE", "TYPE", "CAST", "AGGREGATE",
    "ACCESS_METHOD", "OPCLASS", "EXTERNAL", "XADATASOURCE", "SECURITY", "TRUSTED",
    "DEFAULT", "DUPLICATE", "DBA"})


class DdlRules:
    """Methods of the dialect's translator (see dialect._Translator)."""

    # -- transactions, session options ----------------------------------------
    def no_op(self) -> Translation:
        return Translation(StatementKind.OTHER)

    def begin(self) -> Translation:
        return Translation(StatementKind.BEGIN)

    def end_work(self) -> Translation:
        kind = StatementKind.COMMIT if self.word(0) == "COMMIT" else StatementKind.ROLLBACK
        words = [t.text for t in self.toks[1:]]
        if kind is StatementKind.ROLLBACK and "TO" in words:
            # ROLLBACK [WORK] TO SAVEPOINT [name] (Informix 11.50+).
            rest = words[words.index("TO") + 1:]
            if rest[:1] != ["SAVEPOINT"] or len(rest) > 2:
                raise SqlError(-201, message="ROLLBACK TO SAVEPOINT expected")
            name = ident(self.toks[-1]) if len(rest) == 2 else None
            return Translation(StatementKind.OTHER, option=("ROLLBACK TO SAVEPOINT", name))
        return Translation(kind)

    def savepoint(self) -> Translation:
        """SAVEPOINT name [UNIQUE]: reusing a name replaces the earlier savepoint."""
        words = [t.text for t in self.toks[1:]]
        if not words or len(words) > 2 or (len(words) == 2 and words[1] != "UNIQUE"):
            raise SqlError(-201, message="SAVEPOINT name [UNIQUE] expected")
        return Translation(StatementKind.OTHER,
                           option=("SAVEPOINT", ident(self.toks[1]), len(words) == 2))

    def release_savepoint(self) -> Translation:
        words = [t.text for t in self.toks[1:]]
        if len(words) != 2 or words[0] != "SAVEPOINT":
            raise SqlError(-201, message="RELEASE SAVEPOINT name expected")
        return Translation(StatementKind.OTHER, option=("RELEASE SAVEPOINT", ident(self.toks[2])))

    def database(self) -> Translation:
        if len(self.toks) < 2:
            raise SqlError(-201, message="database name expected")
        name = ident(self.toks[1])
        return Translation(StatementKind.DATABASE, option=(name,))

    def set_option(self) -> Translation:
        words = tuple(t.text for t in self.toks[1:])
        check_set(words)
        return Translation(StatementKind.OTHER, option=("SET",) + words)

    def lock_table(self) -> Translation:
        """LOCK TABLE name IN SHARE|EXCLUSIVE MODE / UNLOCK TABLE name, run by
        the session (table_locks.py).  A system catalog table or a view is
        refused as not supported: the server refuses both (Guide to SQL:
        Syntax, ids_sqs_0892, ids_sqs_1253) with codes not known here."""
        unlock = self.word(0) == "UNLOCK"
        if self.word(1) != "TABLE":
            self.syntax_error(1, "TABLE expected")
        name, i = self.table_name(2)
        words = tuple(t.text for t in self.toks[i:])
        if unlock and words:
            self.syntax_error(i, "the end of UNLOCK TABLE expected")
        if not unlock and words not in (("IN", "SHARE", "MODE"), ("IN", "EXCLUSIVE", "MODE")):
            self.syntax_error(i, "IN SHARE MODE or IN EXCLUSIVE MODE expected")
        tdef = self.table(name)
        if name in syscatalog.NAMES or tdef.view:
            raise SqlError(NOT_SUPPORTED, 0, name, f"LOCK/UNLOCK TABLE of {name}, a view or "
                           "system catalog table, is not supported by the emulator")
        option = ("UNLOCK", name) if unlock else ("LOCK", name, words[1])
        return Translation(StatementKind.OTHER, option=option)

    # -- DDL -----------------------------------------------------------------
    def create(self) -> Translation:
        i = 1
        temp = self.word(i) == "TEMP"
        if self.word(i) in ("TEMP", "RAW", "STANDARD"):
            i += 1
        if self.word(i) == "TABLE":
            return self.create_table(i + 1, temp)
        unique = self.word(i) in ("UNIQUE", "DISTINCT")
        if unique:
            i += 1
        if self.word(i) == "CLUSTER":
            i += 1
        if self.word(i) == "INDEX":
            return self.create_index(i + 1, unique)
        if self.word(i) == "SEQUENCE":
            return self.create_sequence(i + 1)
        if self.word(i) == "VIEW":
            return self.create_view(i + 1)
        if self.word(i) == "ROW" and self.word(i + 1) == "TYPE":
            return self.create_row_type(i + 2)
        self.refuse_unimplemented("CREATE", i)

    def create_row_type(self, i: int) -> Translation:
        """CREATE ROW TYPE [IF NOT EXISTS] name (field type [NOT NULL], ...)
        (IBM SQL Syntax, CREATE ROW TYPE); UNDER (inheritance) is not done."""
        if_not_exists, i = self.if_clause(i, True)
        name, i = self.table_name(i)
        if self.text(i) != "(":
            raise SqlError(-201, message="( expected after the ROW type's name")
        close = self.close_paren(i)
        if close + 1 < len(self.toks):
            if self.word(close + 1) == "UNDER":
                raise SqlError(NOT_SUPPORTED, message="CREATE ROW TYPE ... UNDER (type "
                               "inheritance) is not supported by the emulator")
            raise SqlError(-201, message="unexpected text after the ROW type's fields")
        text = row_types.shape_text(self.source(i + 1, close))
        return Translation(StatementKind.DDL, ddl=row_types.CreateRowType(name, text,
                                                                        if_not_exists))

    def refuse_unimplemented(self, verb: str, i: int) -> None:
        """A statement Informix has and the emulator lacks says so (-9999)."""
        what = self.word(i)
        if what in _KNOWN_OBJECTS:
            raise SqlError(NOT_SUPPORTED, message=f"{verb} {what} is not supported by the emulator")
        self.syntax_error(i, f"unsupported {verb} statement")

    def create_sequence(self, i: int) -> Translation:
        """CREATE SEQUENCE [IF NOT EXISTS] name [options] (IBM SQL Syntax)."""
        if_not_exists, i = self.if_clause(i, True)
        name, i = self.table_name(i)
        spec = CreateSequence(name, if_not_exists=if_not_exists)
        seen: set[str] = set()
        while i < len(self.toks):
            word = self.word(i)
            option = word[2:] if word.startswith("NO") and word != "NOORDER" else word
            if option in seen:
                raise SqlError(-8303, 0, option, f"duplicate {option} in sequence definition")
            seen.add(option)
            if word in ("INCREMENT", "START", "MAXVALUE", "MINVALUE", "CACHE", "RESTART"):
                i += 1 + (self.word(i + 1) in ("BY", "WITH"))
                value, i = self.signed_integer(i)
                if word == "INCREMENT":
                    spec.increment = value
                elif word == "START":
                    spec.start = value
                elif word in ("MAXVALUE", "MINVALUE"):
                    setattr(spec, word.lower(), value)
                elif word == "CACHE":
                    spec.cache = value
            elif word in ("NOMAXVALUE", "NOMINVALUE", "NOCACHE", "ORDER", "NOORDER"):
                i += 1
            elif word in ("CYCLE", "NOCYCLE"):
                spec.cycle = word == "CYCLE"
                i += 1
            else:
                self.syntax_error(i, f"unexpected {self.text(i)!r} in CREATE SEQUENCE")
        return Translation(StatementKind.DDL, ddl=spec)

    def signed_integer(self, i: int) -> tuple[int, int]:
        sign = -1 if self.text(i) == "-" else 1
        i += self.text(i) in ("-", "+")
        if i >= len(self.toks) or self.toks[i].kind != "num" or not self.toks[i].text.isdigit():
            self.syntax_error(i, "an integer is expected")
        return sign * int(self.toks[i].text), i + 1

    def if_clause(self, i: int, negated: bool) -> tuple[bool, int]:
        words = ("IF", "NOT", "EXISTS") if negated else ("IF", "EXISTS")
        if all(self.word(i + k) == w for k, w in enumerate(words)):
            return True, i + len(words)
        return False, i

    def create_table(self, i: int, temp: bool = False) -> Translation:
        if_not_exists, i = self.if_clause(i, True)
        name, i = self.table_name(i)
        if self.word(i) == "AS" or self.text(i) == "(" and \
                self.word(self.close_paren(i) + 1) == "AS":
            return self.create_table_as(name, if_not_exists, temp, i)
        if self.text(i) != "(":
            self.syntax_error(i, "( expected after table name")
        close = self.close_paren(i)
        spec = CreateTable(name, [], [], [], if_not_exists, temp=temp)
        for a, b in self.split_commas(i + 1, close):
            if self.word(a) in ("PRIMARY", "UNIQUE", "DISTINCT", "CONSTRAINT", "CHECK",
                                "FOREIGN"):
                self.table_constraint(a, b, spec)
            else:
                self.column_def(a, b, spec)
        if not spec.columns:
            raise SqlError(-201, message="table needs columns")
        after = [t.text for t in self.toks[close + 1:]]
        spec.no_log = temp and any(after[k:k + 3] == ["WITH", "NO", "LOG"]
                                   for k in range(len(after)))
        return Translation(StatementKind.DDL, table=name, ddl=spec)

    def create_table_as(self, name: str, if_not_exists: bool, temp: bool,
                        i: int) -> Translation:
        """CREATE [STANDARD | RAW] TABLE [IF NOT EXISTS] name [(column, ...)]
        AS SELECT ...: a table shaped like the query's result, filled by it
        (IBM Informix 12.10 Guide to SQL: Syntax, CREATE TABLE, "AS SELECT
        clause", ids_sqs_0403).  That syntax has no TEMP: a temporary table
        from a query is SELECT ... INTO TEMP."""
        if temp:
            self.syntax_error(i, "CREATE TEMP TABLE takes no AS SELECT (use SELECT ... "
                                 "INTO TEMP)")
        names: list[str] | None = None
        if self.text(i) == "(":
            close = self.close_paren(i)
            names = []
            for a, b in self.split_commas(i + 1, close):
                if b - a != 1 or self.toks[a].kind != "word":
                    raise SqlError(NOT_SUPPORTED, message="a column::type in CREATE TABLE "
                                   "... AS SELECT is not supported by the emulator")
                names.append(ident(self.toks[a]))
            i = close + 1
        if self.word(i + 1) != "SELECT":
            self.syntax_error(i + 1, "SELECT expected after AS")
        self.toks = self.toks[i + 1:]
        self.values_only = True
        inner = self.select()
        columns = [ColumnDef(c.name, c.type) for c in inner.columns]
        if names is not None:
            if len(names) != len(columns):
                raise SqlError(-201, message="the column list of CREATE TABLE ... AS SELECT "
                                             "does not match the query's columns")
            columns = [replace(c, name=n) for c, n in zip(columns, names)]
        for col in columns:
            if not col.name or not col.name.replace("_", "a").isalnum():
                raise SqlError(-201, message=f"CREATE TABLE ... AS SELECT needs a column name "
                                             f"for '{col.name}' (give it a display label)")
            if col.type.code in SERIAL_CODES:
                raise SqlError(NOT_SUPPORTED, message="a SERIAL column in CREATE TABLE ... AS "
                                                      "SELECT is not supported by the emulator")
        spec = CreateTable(name, columns, [], [], if_not_exists, as_select=inner.sql)
        return Translation(StatementKind.DDL, table=name, ddl=spec, binds=inner.binds,
                           param_count=inner.param_count)

    def column_def(self, a: int, b: int, spec: CreateTable) -> None:
        if self.toks[a].kind != "word":
            self.syntax_error(a, "column name expected")
        col = ident(self.toks[a])
        stop = a + 1
        stops = {"DEFAULT", "NOT", "NULL", "PRIMARY", "UNIQUE", "DISTINCT", "CHECK",
                 "CONSTRAINT", "REFERENCES"}
        depth = 0       # NOT NULL inside SET(INT NOT NULL) belongs to the type
        while stop < b and (depth or self.word(stop) not in stops):
            depth += (self.text(stop) == "(") - (self.text(stop) == ")")
            stop += 1
        type_text = " ".join(t.raw for t in self.toks[a + 1:stop])
        serial_start = 1
        m = re.fullmatch(r"(?i)\s*(serial8?|bigserial)\s*\(\s*(\d+)\s*\)\s*", type_text)
        if m:
            type_text, serial_start = m.group(1), int(m.group(2))
        m = re.fullmatch(r"(?i)\s*(byte|text)\s+in\s+\w+\s*", type_text)
        if m:
            # BYTE/TEXT IN TABLE | IN blobspace: where the server keeps the
            # contents; the emulator keeps them in one place (blobs.py).
            type_text = m.group(1)
        if type_text.strip().upper() in _UNSUPPORTED_TYPES:
            raise SqlError(NOT_SUPPORTED, 0, "", f"{type_text.strip().upper()} columns (smart "
                           "large objects) are not supported by the emulator")
        ctype = composite.column_type(type_text, col)
        if ctype is None:
            try:
                ctype = parse_type(type_text)
            except ValueError as exc:
                if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", type_text.strip()):
                    self.syntax_error(stop - 1, f"column {col}: {exc}")
                # a type's name: a named ROW type, resolved when the table is made
                ctype = row_types.placeholder(type_text.strip().lower())
        cdef = ColumnDef(col, ctype, serial_start=serial_start)
        nullable = True
        j = stop
        while j < b:
            w = self.word(j)
            if w == "NOT" and self.word(j + 1) == "NULL":
                nullable, j = False, j + 2
            elif w == "NULL":
                j += 1
            elif w == "DEFAULT":
                if ctype.code in composite.COMPOSITE_CODES:
                    # IBM message catalog: -9911 defaults on collection type column
                    raise SqlError(-9911, 0, col, "defaults on a ROW or collection column")
                cdef.default, j = self.default_value(j + 1, b, ctype)
            elif w in ("PRIMARY", "UNIQUE", "DISTINCT", "CHECK", "REFERENCES") \
                    and ctype.code in composite.COMPOSITE_CODES:
                # -9912 constraints on collection type column not allowed
                raise SqlError(-9912, 0, col, "constraints on a ROW or collection column")
            elif w in ("PRIMARY", "UNIQUE", "DISTINCT"):
                primary = w == "PRIMARY"
                j += 2 if primary else 1
                cname, j = self.constraint_name(j)
                spec.uniques.append((cname, [col], primary))
                nullable = nullable and not primary
            elif w == "CHECK":
                close = self.close_paren(j + 1, b)
                spec.checks.append(" ".join(self.rewrite(j + 1, close + 1)))
                source = self.source(j + 1, close + 1)
                cname, j = self.constraint_name(close + 1)
                spec.check_sources.append((cname, source))
            elif w == "CONSTRAINT":
                j += 2
            elif w == "REFERENCES":
                j = self.references_clause(j, [col], None, spec)
            else:
                self.syntax_error(j, f"unexpected {self.toks[j].raw!r} in a column definition")
        cdef.type = replace(ctype, nullable=nullable and ctype.code not in SERIAL_CODES)
        spec.columns.append(cdef)

    def source(self, start: int, end: int) -> str:
        """The statement's own text of tokens start..end-1 (what the
        server keeps in syschecks)."""
        last = self.toks[end - 1]
        return self.sql[self.toks[start].pos:last.pos + len(last.raw)]

    def references_clause(self, j: int, cols: list[str], cname: str | None,
                          spec: CreateTable) -> int:
        """REFERENCES table [(columns)] [ON DELETE CASCADE] [CONSTRAINT name] at j."""
        parent, j = self.table_name(j + 1)
        pcols = None
        if self.text(j) == "(":
            close = self.close_paren(j)
            pcols = [ident(self.toks[x]) for x, _ in self.split_commas(j + 1, close)]
            j = close + 1
        cascade = [self.word(j + k) for k in range(3)] == ["ON", "DELETE", "CASCADE"]
        j += 3 if cascade else 0
        later, j = self.constraint_name(j)
        spec.references.append((cname or later, cols, parent, pcols, cascade))
        return j

    def constraint_name(self, j: int) -> tuple[str | None, int]:
        if self.word(j) == "CONSTRAINT" and j + 1 < len(self.toks):
            return ident(self.toks[j + 1]), j + 2
        return None, j

    def default_value(self, j: int, b: int, ctype: ColumnType) -> tuple[Bind | str | None, int]:
        t = self.toks[j]
        if t.kind in ("str", "num"):
            return Bind(None, t.text, ctype), j + 1
        if t.text == "-" and self.toks[j + 1].kind == "num":
            return Bind(None, "-" + self.toks[j + 1].text, ctype), j + 2
        if t.text == "NULL":
            return None, j + 1
        if t.text == "TODAY":
            return f"({TODAY_SQL})", j + 1
        if t.text == "CURRENT":
            words, n = self.qualifier_words(j + 1, b)
            return f"({current_sql(datetime_type(words) if words else ctype)})", j + 1 + n
        if t.text == "USER":
            return "'informix'", j + 1
        self.syntax_error(j, "unsupported DEFAULT value")

    def table_constraint(self, a: int, b: int, spec: CreateTable) -> None:
        cname, a = self.constraint_name(a)
        w = self.word(a)
        if w == "CHECK":
            close = self.close_paren(a + 1, b)
            spec.checks.append(" ".join(self.rewrite(a + 1, close + 1)))
            later, _ = self.constraint_name(close + 1)
            spec.check_sources.append((cname or later, self.source(a + 1, close + 1)))
            return
        if w == "FOREIGN":
            if self.word(a + 1) != "KEY" or self.text(a + 2) != "(":
                self.syntax_error(a + 1, "FOREIGN KEY (columns) expected")
            close = self.close_paren(a + 2, b)
            cols = [ident(self.toks[x]) for x, _ in self.split_commas(a + 3, close)]
            if self.word(close + 1) != "REFERENCES":
                self.syntax_error(close + 1, "REFERENCES expected")
            self.references_clause(close + 1, cols, cname, spec)
            return
        primary = w == "PRIMARY"
        j = a + (2 if primary else 1)
        if self.text(j) != "(":
            self.syntax_error(j, "( expected in constraint")
        close = self.close_paren(j, b)
        cols = [ident(self.toks[x]) for x, _ in self.split_commas(j + 1, close)]
        later, _ = self.constraint_name(close + 1)
        spec.uniques.append((cname or later, cols, primary))

    def create_index(self, i: int, unique: bool) -> Translation:
        name, i = self.table_name(i)
        if self.word(i) != "ON":
            self.syntax_error(i, "ON expected")
        table, i = self.table_name(i + 1)
        if self.text(i) != "(":
            self.syntax_error(i, "( expected")
        close = self.close_paren(i)
        cols, descending = [], []
        for k, (x, y) in enumerate(self.split_commas(i + 1, close)):
            # Guide to SQL: Syntax, CREATE INDEX: each key is a column with an
            # optional ASC or DESC.
            if y - x > 2 or (y - x == 2 and self.word(x + 1) not in ("ASC", "DESC")):
                self.syntax_error(x + 1, "column [ASC | DESC] expected in CREATE INDEX")
            cols.append(ident(self.toks[x]))
            if y - x == 2 and self.word(x + 1) == "DESC":
                descending.append(k)
        return Translation(StatementKind.DDL, table=table,
                           ddl=CreateIndex(name, table, cols, unique, descending))

    def drop(self) -> Translation:
        if self.word(1) == "ROW" and self.word(2) == "TYPE":
            return self.drop_row_type()
        what = self.word(1)
        if what not in ("TABLE", "INDEX", "SEQUENCE", "VIEW"):
            self.refuse_unimplemented("DROP", 1)
        if_exists, i = self.if_clause(2, False)
        name, _ = self.table_name(i)
        return Translation(StatementKind.DDL, table=name if what == "TABLE" else None,
                           ddl=Drop(what, name, if_exists))

    def drop_row_type(self) -> Translation:
        """DROP ROW TYPE [IF EXISTS] name RESTRICT (IBM SQL Syntax: RESTRICT
        is required)."""
        if_exists, i = self.if_clause(3, False)
        name, i = self.table_name(i)
        if self.word(i) != "RESTRICT" or i + 1 != len(self.toks):
            raise SqlError(-201, message="DROP ROW TYPE name RESTRICT expected")
        return Translation(StatementKind.DDL, ddl=Drop("ROW TYPE", name, if_exists))


# SET statements (IBM Informix Guide to SQL: Syntax).  ISOLATION and LOCK
# MODE are checked word by word, so a misspelt level is -201 as on the
# server instead of a silent success; the options below only tune a real
# server's plans, logging or diagnostics, which the emulator does not have,
# and succeed as no-ops (IBM's JDBC sends several of them when it resets a
# pooled connection: IfxSqliConnect.resetDatabaseProperties).  Any other
# SET is refused as not supported rather than pretended.
_NO_OP_SETS = frozenset({"DATASKIP", "EXPLAIN", "OPTIMIZATION", "PDQPRIORITY", "ROLE",
                         "ENVIRONMENT", "DEFERRED_PREPARE", "STATEMENT", "AUTOFREE",
                         "ALL_MUTABLES", "DEBUG", "CONSTRAINTS"})
_ISOLATIONS = (("DIRTY", "READ", "WITH", "WARNING"), ("DIRTY", "READ"),
               ("COMMITTED", "READ", "LAST", "COMMITTED"), ("COMMITTED", "READ"),
               ("CURSOR", "STABILITY"), ("REPEATABLE", "READ"))


def check_set(words: tuple[str, ...]) -> None:
    """-201 for a malformed SET ISOLATION / SET LOCK MODE, -9999 for a SET
    the emulator does not know (see above)."""
    head = words[:1]
    if head == ("ISOLATION",):
        rest = words[2:] if words[1:2] == ("TO",) else words[1:]
        if rest[-3:] == ("RETAIN", "UPDATE", "LOCKS"):
            rest = rest[:-3]
        if rest not in _ISOLATIONS:
            raise SqlError(-201, message="SET ISOLATION [TO] DIRTY READ | COMMITTED READ | "
                           "CURSOR STABILITY | REPEATABLE READ expected")
    elif head == ("TRANSACTION",):
        parse_modes(words[1:])
    elif head == ("LOCK",):
        if not (words[1:4] == ("MODE", "TO", "WAIT") and len(words) <= 5
                and all(w.isdigit() for w in words[4:])) \
                and words[1:] != ("MODE", "TO", "NOT", "WAIT"):
            raise SqlError(-201, message="SET LOCK MODE TO WAIT [seconds] | NOT WAIT expected")
    elif not head or head[0] not in _NO_OP_SETS:
        raise SqlError(NOT_SUPPORTED, message=f"SET {' '.join(words[:2])} is not supported "
                       "by the emulator")
