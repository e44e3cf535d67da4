"""SPL routines in a session: CREATE/DROP PROCEDURE|FUNCTION|ROUTINE, EXECUTE
PROCEDURE|FUNCTION, routines called from SQL, and their catalog rows.

A mixin of ``engine.Session`` like ``ddl_runner.DdlRunner``: it uses the
session's connection, database and statement path.  Routines live in the
database (``_ifx_routines``, with ``sysprocedures`` and ``sysprocbody``
as views over it, IBM Informix Guide to SQL: Reference, "SYSPROCEDURES",
"SYSPROCBODY"), so they persist and roll back with the transaction that
made them.  Each call reads the routine's text on the session's own
connection (so a routine created in an open transaction is visible to it,
and a dropped one is gone) and parses it once per session.

Errors, from IBM's message catalog (JDBC 15.0.1.0, sql_en_US.properties):
-674 "Routine (%s) can not be resolved" for a missing routine or a call
that fits no signature; -673 for a second routine of the same signature;
-694 for too many arguments.  Overloading (two routines of one name) is
not supported by the emulator (-9999).
"""

from __future__ import annotations

import functools
import sqlite3
from dataclasses import dataclass, field
from itertools import islice
from typing import Iterator, Sequence

from informix_stream import codecs
from informix_stream.codecs import ColumnType

from .results import ExecResult, Prepared
from .spl import Interpreter, bind_args, coercer, first_row
from .spl_catalog import BODY_CHUNK
from .spl_nodes import Routine, unsupported
from .spl_parse import parse_routine
from .sqlfunctions import fail
from .sqlite_errors import map_error
from .statements import ResultColumn, SqlError, StatementKind, Translation
from .tokens import Token, ident, tokenize
from .values import writer_for

_HEADS = {("CREATE", "PROCEDURE"), ("CREATE", "FUNCTION"), ("CREATE", "DBA"),
          ("DROP", "PROCEDURE"), ("DROP", "FUNCTION"), ("DROP", "ROUTINE"),
          ("EXECUTE", "PROCEDURE"), ("EXECUTE", "FUNCTION"), ("EXECUTE", "ROUTINE")}


@dataclass
class CreateRoutine:
    routine: Routine


@dataclass
class DropRoutine:
    what: str                 # PROCEDURE, FUNCTION or ROUTINE
    name: str
    if_exists: bool = False


@dataclass
class RoutineCall(Prepared):
    """EXECUTE PROCEDURE|FUNCTION name(args): per argument, the client's
    parameter index (a bare '?'), or an expression and its '?' indexes."""

    routine: str = ""
    args: list[tuple[int | None, str, list[int]]] = field(default_factory=list)


class RoutineRows:
    """A routine's result as a cursor's row source: rows are produced as the
    client fetches them (RETURN WITH RESUME streams)."""

    encoded = False

    def __init__(self, rows: Iterator[tuple], columns: list[ResultColumn]) -> None:
        self._rows: Iterator[tuple] | None = rows
        self.columns = columns

    def fetch(self, n: int) -> list[tuple]:
        if self._rows is None:
            return []
        try:
            batch = list(islice(self._rows, n))
        except BaseException:
            self.close()
            raise
        if not batch:
            self.close()
        return batch

    def close(self) -> None:
        rows, self._rows = self._rows, None
        if rows is not None:
            rows.close()


class SplRunner:
    """The SPL half of a session (see engine.Session)."""

    _spl_names: tuple[str, ...] = ()
    _spl_generation = -1

    # -- what the interpreter uses (spl.Host) -------------------------------
    @property
    def spl_codec(self) -> str:
        return self._db.codec

    def spl_routine(self, name: str, conn: sqlite3.Connection | None = None) -> Routine:
        """``conn``: where to look (the session's own connection by default,
        which sees its open transaction)."""
        rows = (conn or self._conn).execute(
            "SELECT body FROM _ifx_routines WHERE procname = ?", (name,)).fetchall()
        if not rows:
            raise SqlError(-674, 0, name, f"routine {name} can not be resolved")
        text = rows[0][0]
        cache = self.__dict__.setdefault("_spl_parsed", {})
        key = (text, self._db.generation)
        routine = cache.get(key)
        if routine is None:
            if len(cache) > 256:
                cache.clear()
            routine = cache[key] = parse_routine(text, self._spl_column_type)
        return routine

    def spl_prepare(self, sql: str) -> Prepared:
        """A statement of a routine, about to run: what a client's statement
        meets first applies to it too (a READ ONLY transaction's -878,
        tx_modes; other sessions' LOCK TABLE, table_locks), since "you can
        execute SPL routines in a read-only transaction as long as the SPL
        routine does not try to perform any restricted statement" (IBM Guide
        to SQL: Syntax, "Access Modes", ids_sqs_1207)."""
        stmt = self.prepare(sql)
        self._tx_statement(stmt.kind)
        self._check_table_locks(stmt)
        return stmt

    def spl_cursor(self, stmt: Prepared, params: Sequence[object]) -> "_Values":
        """A SELECT's rows as values, also where the engine would serve the
        stored row images (decoded here as a client would)."""
        source = self.open_cursor(stmt, params)
        if not source.encoded:
            return source
        return _Values(source, codecs.make_row_decoder([c.type for c in stmt.columns],
                                                       self.spl_codec))

    def spl_scalar(self, sql: str, params: list[object]) -> tuple[object, bool]:
        """Evaluate one expression: (value, converted).  Without variables the
        value takes its described type; with them it is SQLite's own value
        (the caller converts it to the target's type)."""
        stmt = self.prepare(f"SELECT {sql} FROM systables WHERE tabid = 1")
        values = self._values(stmt, params)
        try:
            rows = self._conn.execute(stmt.translation.sql, values).fetchall()
        except sqlite3.Error as exc:
            raise map_error(exc, StatementKind.SELECT, self._db) from None
        if len(stmt.columns) != 1:
            raise SqlError(-201, message="SPL: one value expected")
        if params or stmt.convert is None:
            return rows[0][0], False
        return stmt.convert(rows)[0][0], True

    def _spl_column_type(self, table: str, column: str) -> ColumnType | None:
        tdef = self._temps.lookup(self._db.tables)(table)
        col = tdef.column(column) if tdef is not None else None
        return col.type if col is not None else None

    # -- statements -----------------------------------------------------------------
    def _spl_translate(self, sql: str) -> Prepared | None:
        """A Prepared for routine DDL and EXECUTE PROCEDURE/FUNCTION; None
        for any other statement (the dialect translates those)."""
        toks = tokenize(sql, self.delimident)
        if len(toks) < 2 or (toks[0].text, toks[1].text) not in _HEADS:
            return None
        verb = toks[0].text
        if verb == "CREATE":
            routine = parse_routine(sql, self._spl_column_type)
            return Prepared(sql, StatementKind.DDL, [], 0, [], None,
                            Translation(StatementKind.DDL, ddl=CreateRoutine(routine)))
        if verb == "DROP":
            return self._spl_drop(sql, toks)
        return self._spl_call(sql, toks)

    def _spl_drop(self, sql: str, toks: list[Token]) -> Prepared:
        i = 2
        if_exists = len(toks) > 3 and toks[2].text == "IF" and toks[3].text == "EXISTS"
        i += 2 * if_exists
        if len(toks) > i + 2 and toks[i + 1].text == ".":
            i += 2
        if len(toks) <= i or toks[i].kind != "word":
            raise SqlError(-201, message="routine name expected")
        ddl = DropRoutine(toks[1].text, ident(toks[i]), if_exists)
        return Prepared(sql, StatementKind.DDL, [], 0, [], None,
                        Translation(StatementKind.DDL, ddl=ddl))

    def _spl_call(self, sql: str, toks: list[Token]) -> RoutineCall:
        i = 2
        if len(toks) > 4 and toks[3].text == ".":
            i = 4
        name = ident(toks[i])
        if len(toks) <= i + 1 or toks[i + 1].text != "(":
            raise SqlError(-201, message="( expected after the routine name")
        close = _close_paren(toks, i + 1)
        if close != len(toks) - 1:
            raise unsupported(f"EXECUTE {toks[1].text} ... {toks[close + 1].raw}")
        routine = self.spl_routine(name)
        args: list[tuple[int | None, str, list[int]]] = []
        param_types: list[ColumnType | None] = []
        for a, b in _split(toks, i + 2, close):
            if b > a + 1 and toks[a].kind == "word" and toks[a + 1].text == "=":
                raise unsupported("routine arguments passed by name")
            marks = [len(param_types) + k for k in range(sum(t.kind == "param"
                                                             for t in toks[a:b]))]
            if b == a + 1 and toks[a].kind == "param":
                pos = len(args)
                args.append((marks[0], "", []))
                param_types.append(routine.params[pos].type
                                   if pos < len(routine.params) else None)
            else:
                args.append((None, sql[toks[a].pos:toks[b - 1].pos + len(toks[b - 1].raw)],
                             marks))
                param_types += [None] * len(marks)
        bind_args(routine, [None] * len(args))
        columns = [ResultColumn(label, ctype) for label, ctype in routine.returns]
        return RoutineCall(sql, StatementKind.EXECUTE, columns, len(param_types),
                           param_types, None, Translation(StatementKind.EXECUTE),
                           routine=name, args=args)

    def _spl_rows(self, stmt: RoutineCall, params: Sequence[object]) -> Iterator[tuple]:
        if len(params) != stmt.param_count:
            raise SqlError(-254, message=f"{len(params)} values for {stmt.param_count} "
                                         "placeholders")
        routine = self.spl_routine(stmt.routine)
        args = []
        for index, text, marks in stmt.args:
            if index is not None:
                args.append(params[index])
            else:
                args.append(self.spl_scalar(text, [params[m] for m in marks])[0])
        return Interpreter(self, routine, bind_args(routine, args)).rows()

    def _spl_execute(self, stmt: RoutineCall, params: Sequence[object]) -> ExecResult:
        """EXECUTE without a cursor: run the routine to its end."""
        rows = self._spl_rows(stmt, params)
        try:
            for _ in rows:
                pass
        finally:
            rows.close()
        return ExecResult(0)

    def _spl_open(self, stmt: RoutineCall, params: Sequence[object]) -> RoutineRows:
        return RoutineRows(self._spl_rows(stmt, params), stmt.columns)

    # -- DDL -------------------------------------------------------------------------
    def _routine_ddl(self, ddl: CreateRoutine | DropRoutine) -> None:
        conn = self._conn
        name = ddl.routine.name if isinstance(ddl, CreateRoutine) else ddl.name
        found = conn.execute("SELECT procid, isproc, paramtypes FROM _ifx_routines"
                             " WHERE procname = ?", (name,)).fetchall()
        if isinstance(ddl, DropRoutine):
            wrong = found and ddl.what == "FUNCTION" and found[0][1] == "t"
            if not found or wrong:
                if ddl.if_exists and not found:
                    return
                raise SqlError(-674, 0, name, f"routine {name} can not be resolved")
            conn.execute("DELETE FROM _ifx_routines WHERE procid = ?", (found[0][0],))
            conn.execute("DELETE FROM _ifx_procbody WHERE procid = ?", (found[0][0],))
            return
        routine = ddl.routine
        types = ",".join(p.type.sql().lower() for p in routine.params)
        if found and found[0][2] == types:
            raise SqlError(-673, 0, name, f"another routine ({name}) with same signature "
                                          "already exists in database")
        if found:
            raise unsupported(f"overloaded routines (a second {name})")
        top = conn.execute("SELECT max(procid) FROM _ifx_routines").fetchone()[0]
        procid = (top or 0) + 1
        retsize = sum(t.wire_width for _, t in routine.returns)
        if routine.is_function and name not in self._spl_names:
            self._spl_names += (name,)        # callable from SQL in this transaction too
            for c in [conn] + [r[0] for r in self._readers]:
                self._spl_register(c)
        conn.execute("INSERT INTO _ifx_routines VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (procid, name, "f" if routine.is_function else "t", len(routine.params),
                      retsize, types, routine.text))
        text = routine.text
        conn.executemany("INSERT INTO _ifx_procbody VALUES (?, 'T', ?, ?)",
                         [(procid, k, text[off:off + BODY_CHUNK]) for k, off in
                          enumerate(range(0, len(text), BODY_CHUNK))])

    # -- routines inside SQL -----------------------------------------------------------
    def _spl_sync(self) -> None:
        """Register the database's one-value functions on this session's
        connections after any catalog change (cheap otherwise)."""
        if self._spl_generation == self._db.generation:
            return
        self._spl_generation = self._db.generation
        # Read on an idle reader: a read on the main connection would open
        # a snapshot in a fresh transaction, and its first write would then
        # fail (SQLITE_BUSY_SNAPSHOT) once another session commits.
        try:
            rows = self._reading_connection()[0].execute(
                "SELECT procname, body FROM _ifx_routines WHERE isproc = 'f'").fetchall()
        except sqlite3.OperationalError:
            rows = []
        self._spl_names = tuple(name for name, _ in rows)
        for conn in [self._conn] + [r[0] for r in self._readers]:
            self._spl_register(conn)

    def _spl_register(self, conn: sqlite3.Connection) -> None:
        for name in self._spl_names:
            conn.create_function(name, -1, functools.partial(self._spl_function, name))

    def spl_function_types(self) -> dict[str, ColumnType]:
        """NAME -> result type of each one-value function, for DESCRIBE."""
        types = {}
        reader = self._reading_connection()[0] if self._spl_names else None
        for name in self._spl_names:
            try:
                routine = self.spl_routine(name, reader)
            except SqlError:
                continue
            if len(routine.returns) == 1:
                types[name.upper()] = routine.returns[0][1]
        return types

    def _spl_function(self, name: str, *args: object) -> object:
        """A routine called from SQL: stored values in, a stored value out."""
        try:
            routine = self.spl_routine(name)
            if len(routine.returns) != 1:
                raise SqlError(-674, 0, name, f"routine {name} can not be resolved")
            rows = Interpreter(self, routine, bind_args(routine, args), in_query=True).rows()
            row = first_row(rows, name)
            ctype = routine.returns[0][1]
            value = coercer(ctype, self.spl_codec)(row[0]) if row else None
            return writer_for(ctype, self.spl_codec)(value)
        except SqlError as exc:
            fail(exc)                          # map_error reports it as raised


class _Values:
    """Row images (complete SQ_TUPLE messages) read back as values."""

    def __init__(self, source, decode) -> None:
        self.source, self.decode = source, decode

    def fetch(self, n: int) -> list[tuple]:
        decode = self.decode
        return [tuple(decode(image, 8)[0]) for image in self.source.fetch(n)]

    def close(self) -> None:
        self.source.close()


def _close_paren(toks: list[Token], i: int) -> int:
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].kind == "op" and toks[j].text == "(":
            depth += 1
        elif toks[j].kind == "op" and toks[j].text == ")":
            depth -= 1
            if depth == 0:
                return j
    raise SqlError(-201, message="unbalanced parentheses")


def _split(toks: list[Token], a: int, b: int) -> list[tuple[int, int]]:
    if a >= b:
        return []
    parts, depth, first = [], 0, a
    for j in range(a, b):
        t = toks[j]
        if t.kind == "op" and t.text == "(":
            depth += 1
        elif t.kind == "op" and t.text == ")":
            depth -= 1
        elif t.kind == "op" and t.text == "," and depth == 0:
            parts.append((first, j))
            first = j + 1
    parts.append((first, b))
    return parts
