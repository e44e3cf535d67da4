"""The SPL interpreter: runs a parsed routine (spl_parse.Routine) in a session.

A routine runs as a generator of result rows, so ``RETURN ... WITH RESUME``
streams: the SQLI cursor pulls rows as the client fetches and the routine
runs only as far as the rows asked for.  SQL inside the routine goes
through the session's normal statement path (``Host``), so it sees the
session's transaction, its TEMP tables and its locks.

Semantics kept, from IBM Informix Guide to SQL: Syntax, "SPL statements":

* ON EXCEPTION [IN (codes)] [SET sqlcode, isam, text] applies to the
  statement block it opens; after its handler runs, control leaves that
  block, or with WITH RESUME goes on with the statement after the failing
  one (here: the failing statement of that block, so an error deep in a
  nested block resumes after the nested block);
* RAISE EXCEPTION sqlcode [, isam [, text]] is an ordinary SQL error to the
  caller (sqlcode 0: -9722);
* RETURN without WITH RESUME ends the routine; a procedure's RETURN has no
  values; too many / too few values: -684 / -685;
* FOR ... STEP 0 is -697; a STEP that cannot reach the end, -683;
* SELECT ... INTO more than one row is -284; no row leaves the variables;
* a routine called from inside a query (a function in a SELECT) may only
  read: INSERT/UPDATE/DELETE/DDL there is -675 "Illegal SQL statement in
  SPL routine" (stricter than a server that only forbids touching the
  tables the query reads; never an endless scan of its own inserts);
* SYSTEM is refused (-9999): the emulator runs no operating-system commands
  (a real server would, with the server's privileges).

Codes from IBM's message catalog (JDBC 15.0.1.0, sql_en_US.properties).
Expressions are evaluated as ``SELECT <expr> FROM systables WHERE tabid =
1`` with the variables bound as parameters (one SQL type system); constants
and lone variables, and integer arithmetic and comparisons of them, are
computed directly, which is what loops spend their time on.
"""

from __future__ import annotations

import decimal
import functools
import operator
from itertools import islice
from typing import Iterator, Protocol, Sequence

from informix_stream.codecs import ColumnType, TypeCode

from .spl_nodes import (Block, Call, Expr, Foreach, ForRange, If, Let, Loop, OnException, Raise,
                        Return, Routine, Sql, System, While, unsupported)
from .statements import ResultColumn, SqlError, StatementKind
from .tokens import ident
from .values import reader_for, writer_for

# SPL routines calling SPL routines: deeper than this is refused rather
# than letting Python's own stack run out.
MAX_DEPTH = 48
_INT_CODES = frozenset({TypeCode.SMALLINT, TypeCode.INTEGER, TypeCode.INT8, TypeCode.BIGINT,
                        TypeCode.SERIAL, TypeCode.SERIAL8, TypeCode.BIGSERIAL})
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_COMPARE = {"=": operator.eq, "==": operator.eq, "<>": operator.ne, "!=": operator.ne,
            "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


class Host(Protocol):
    """What the interpreter needs of a session (engine.Session + spl_session)."""

    def prepare(self, sql: str): ...
    def spl_prepare(self, sql: str): ...
    def execute(self, stmt, params: Sequence[object] = ()): ...
    def open_cursor(self, stmt, params: Sequence[object] = (), *, hold: bool = False): ...
    def spl_cursor(self, stmt, params: Sequence[object]): ...
    def spl_scalar(self, sql: str, params: list[object]) -> tuple[object, bool]: ...
    def spl_routine(self, name: str) -> Routine: ...
    @property
    def spl_codec(self) -> str: ...


@functools.lru_cache(maxsize=1024)
def coercer(ctype: ColumnType, codec: str = "iso-8859-1"):
    """Value (client or stored form) -> the client form of ``ctype``, by the
    emulator's own conversion rules (the ones a bound value meets)."""
    write = writer_for(ctype, codec)
    read = reader_for(ResultColumn("", ctype))
    if read is None:
        return write
    return lambda v: None if v is None else read(write(v))


class _Return(Exception):
    """RETURN without WITH RESUME: unwinds to the routine's top."""


class _LoopJump(Exception):
    def __init__(self, node: Loop) -> None:
        super().__init__(node.kind)
        self.node = node


class Interpreter:
    """One activation of a routine."""

    def __init__(self, host: Host, routine: Routine, args: Sequence[object],
                 depth: int = 0, in_query: bool = False) -> None:
        """``in_query``: called from inside an SQL statement (a function in
        a SELECT), where the routine may only read (-675 otherwise)."""
        if depth > MAX_DEPTH:
            raise unsupported(f"SPL calls nested deeper than {MAX_DEPTH}")
        self.host = host
        self.routine = routine
        self.depth = depth
        self.in_query = in_query
        self.codec = host.spl_codec
        frame: dict[str, list] = {}
        for param, value in zip(routine.params, args):
            frame[param.name] = [param.type, coercer(param.type, self.codec)(value)]
        self.scopes = [frame]
        for param in routine.params[len(args):]:       # defaults, in order
            frame[param.name] = [param.type,
                                 self.assign_value(param.type, self.eval(param.default))]

    # -- variables ------------------------------------------------------------
    def slot(self, name: str) -> list:
        for scope in reversed(self.scopes):
            slot = scope.get(name)
            if slot is not None:
                return slot
        raise SqlError(-667, 0, name, f"variable {name} not declared")

    def get(self, name: str) -> object:
        return self.slot(name)[1]

    def assign_value(self, ctype: ColumnType, value: object) -> object:
        return coercer(ctype, self.codec)(value)

    def set(self, name: str, value: object) -> None:
        slot = self.slot(name)
        slot[1] = coercer(slot[0], self.codec)(value)

    def set_many(self, names: list[str], values: Sequence[object]) -> None:
        if len(names) != len(values):
            code = -684 if len(values) > len(names) else -685
            raise SqlError(code, 0, self.routine.name,
                           f"{len(values)} values for {len(names)} variables")
        for name, value in zip(names, values):
            self.set(name, value)

    # -- expressions --------------------------------------------------------------
    def eval(self, expr: Expr) -> object:
        quick = _quick(expr, self)
        if quick is not _NO:
            return quick
        value, _ = self.host.spl_scalar(expr.sql, [self.get(n) for n in expr.names])
        return value

    def truth(self, expr: Expr) -> bool:
        value = self.eval(expr)
        return value is not None and value != 0 and value is not False

    # -- running ------------------------------------------------------------------
    def rows(self) -> Iterator[tuple]:
        """The routine's result rows (none for a procedure without RETURNING)."""
        try:
            yield from self.block(self.routine.body)
        except _Return:
            return
        except _LoopJump as jump:
            raise SqlError(-201, message=f"SPL: {'EXIT' if jump.node.exit else 'CONTINUE'} "
                                         "outside its loop") from None

    def block(self, block: Block) -> Iterator[tuple]:
        self.scopes.append({d.name: [d.type, None] for d in block.defines})
        try:
            body = block.body
            if not block.handlers:
                for node in body:
                    yield from self.run(node)
                return
            k = 0
            while k < len(body):
                try:
                    yield from self.run(body[k])
                except SqlError as exc:
                    handler = _matching(block.handlers, exc)
                    if handler is None:
                        raise
                    yield from self.handle(handler, exc)
                    if not handler.resume:
                        return
                k += 1
        finally:
            self.scopes.pop()

    def handle(self, handler: OnException, exc: SqlError) -> Iterator[tuple]:
        values = [exc.sqlcode, exc.isam, exc.near or exc.message][:len(handler.targets)]
        for name, value in zip(handler.targets, values):
            self.set(name, value)
        yield from self.block(handler.body)

    def run(self, node: object) -> Iterator[tuple]:
        kind = type(node)
        if kind is Let:
            self.let(node)
        elif kind is Sql:
            self.sql(node)
        elif kind is If:
            for cond, body in node.branches:
                if self.truth(cond):
                    yield from self.block(body)
                    break
            else:
                if node.orelse is not None:
                    yield from self.block(node.orelse)
        elif kind is ForRange:
            yield from self.for_range(node)
        elif kind is While:
            while self.truth(node.cond):
                if (yield from self.loop_body(node.body, "WHILE")):
                    break
        elif kind is Foreach:
            yield from self.foreach(node)
        elif kind is Return:
            yield from self.ret(node)
        elif kind is Block:
            yield from self.block(node)
        elif kind is Call:
            self.call(node, node.targets)
        elif kind is Loop:
            raise _LoopJump(node)
        elif kind is Raise:
            self.raise_(node)
        elif kind is System:
            raise unsupported("the SPL SYSTEM statement (operating-system commands)")
        elif node is None:
            return                               # TRACE: ignored
        else:
            raise unsupported(f"SPL {kind.__name__}")

    def loop_body(self, body: Block, kind: str) -> Iterator[tuple]:
        """Run one iteration; True when EXIT left the loop.  A loop without
        SQL never reaches SQLite's progress check: look for a cancel here."""
        check = getattr(self.host, "interrupt_requested", None)
        if check is not None and check():
            raise SqlError(-213, message="statement interrupted by user")
        try:
            yield from self.block(body)
        except _LoopJump as jump:
            if jump.node.kind not in ("", kind):
                raise
            return jump.node.exit
        return False

    def let(self, node: Let) -> None:
        if node.query is not None:
            self.set_many(node.targets, self.select_one(node.query) or
                          [None] * len(node.targets))
        elif node.call is not None:
            self.call(node.call, node.targets)
        else:
            values = [self.eval(e) for e in node.exprs]
            for name, value in zip(node.targets, values):
                self.set(name, value)

    def params(self, expr: Expr) -> list[object]:
        return [self.get(n) for n in expr.names]

    def sql(self, node: Sql) -> None:
        if node.select and node.targets:
            row = self.select_one(node)
            if row is not None:
                self.set_many(node.targets, row)
            return
        host = self.host
        stmt = host.spl_prepare(node.expr.sql)
        if self.in_query and stmt.kind is not StatementKind.SELECT:
            # A routine running inside a query must not change what the
            # query reads (SQLite would even show the scan its own inserts).
            raise SqlError(-675, message="illegal SQL statement in an SPL routine called "
                                         "from a query")
        if stmt.kind is StatementKind.SELECT:
            host.open_cursor(stmt, self.params(node.expr)).close()
        else:
            host.execute(stmt, self.params(node.expr))

    def select_one(self, node: Sql) -> tuple | None:
        """The one row of a singleton SELECT (None: no row; -284: several)."""
        host = self.host
        source = host.spl_cursor(host.spl_prepare(node.expr.sql), self.params(node.expr))
        try:
            rows = source.fetch(2)
        finally:
            source.close()
        if len(rows) > 1:
            raise SqlError(-284, message="a subquery has returned not exactly one row")
        return tuple(rows[0]) if rows else None

    def for_range(self, node: ForRange) -> Iterator[tuple]:
        for start_e, stop_e, step_e in node.ranges:
            if stop_e is None:
                self.set(node.var, self.eval(start_e))
                if (yield from self.loop_body(node.body, "FOR")):
                    return
                continue
            start, stop = self.eval(start_e), self.eval(stop_e)
            step = self.eval(step_e) if step_e is not None else (1 if stop >= start else -1)
            if step == 0:
                raise SqlError(-697, message="STEP expression evaluated to zero")
            if (step > 0 and start > stop) or (step < 0 and start < stop):
                raise SqlError(-683, message="the STEP expression will not traverse the range")
            value = start
            while (value <= stop) if step > 0 else (value >= stop):
                self.set(node.var, value)
                if (yield from self.loop_body(node.body, "FOR")):
                    return
                value = self.get(node.var) + step   # the body may have changed it

    def foreach(self, node: Foreach) -> Iterator[tuple]:
        if isinstance(node.query, Call):
            rows = self.call_rows(node.query)
            try:
                for row in rows:
                    self.set_many(node.targets, row)
                    if (yield from self.loop_body(node.body, "FOREACH")):
                        return
            finally:
                rows.close()
            return
        host = self.host
        source = host.spl_cursor(host.spl_prepare(node.query.expr.sql),
                                 self.params(node.query.expr))
        try:
            while batch := source.fetch(64):
                for row in batch:
                    if node.targets:
                        self.set_many(node.targets, row)
                    if (yield from self.loop_body(node.body, "FOREACH")):
                        return
        finally:
            source.close()

    def ret(self, node: Return) -> Iterator[tuple]:
        returns = self.routine.returns
        if node.exprs:
            if len(node.exprs) > len(returns):
                raise SqlError(-684, 0, self.routine.name,
                               f"function {self.routine.name} returns too many values")
            if len(node.exprs) < len(returns):
                raise SqlError(-685, 0, self.routine.name,
                               f"function {self.routine.name} returns too few values")
            yield tuple(coercer(t, self.codec)(self.eval(e))
                        for e, (_, t) in zip(node.exprs, returns))
        if not node.resume:
            raise _Return

    def raise_(self, node: Raise) -> None:
        values = [self.eval(e) for e in node.args]
        code = int(values[0]) if values[0] is not None else 0
        if code == 0:
            raise SqlError(-9722, message="specify a non-zero SQL error number in RAISE "
                                          "EXCEPTION")
        isam = int(values[1]) if len(values) > 1 and values[1] is not None else 0
        text = str(values[2]).rstrip() if len(values) > 2 and values[2] is not None else ""
        raise SqlError(code, isam, text, text or f"SPL RAISE EXCEPTION {code}")

    def call_rows(self, call: Call) -> Iterator[tuple]:
        routine = self.host.spl_routine(call.name)
        args = [self.eval(a) for a in call.args]
        return Interpreter(self.host, routine, bind_args(routine, args),
                           self.depth + 1, self.in_query).rows()

    def call(self, call: Call, targets: list[str]) -> None:
        rows = self.call_rows(call)
        try:
            row = next(rows, None)
        finally:
            rows.close()
        if targets:
            if row is None:
                raise SqlError(-685, 0, call.name,
                               f"function {call.name} returns too few values")
            self.set_many(targets, row)


def bind_args(routine: Routine, args: Sequence[object]) -> list[object]:
    """Check a call's arguments against the parameters (defaults fill the
    rest): too many is -694, a missing one without default -674."""
    if len(args) > len(routine.params):
        raise SqlError(-694, 0, routine.name,
                       f"too many arguments passed to procedure {routine.name}")
    for param in routine.params[len(args):]:
        if param.default is None:
            raise SqlError(-674, 0, routine.name, f"routine {routine.name} can not be resolved")
    return list(args)


def _matching(handlers: list[OnException], exc: SqlError) -> OnException | None:
    for handler in handlers:
        if handler.codes is None or exc.sqlcode in handler.codes:
            return handler
    return None


_NO = object()


def _quick(expr: Expr, interp: Interpreter) -> object:
    """The value of a constant, a variable, or ``a op b`` over integers;
    _NO when the expression needs SQL."""
    toks = expr.tokens
    n = len(toks)
    if n == 1:
        return _atom(toks[0], expr, 0, interp)
    if n == 3 and toks[1].kind == "op" and (toks[1].text in _ARITH or toks[1].text in _COMPARE):
        left = _atom(toks[0], expr, 0, interp)
        if left is _NO or left.__class__ is not int:
            return _NO
        right = _atom(toks[2], expr, 1 if toks[0].kind == "word" else 0, interp)
        if right is _NO or right.__class__ is not int:
            return _NO
        op = toks[1].text
        if op in _ARITH:
            return _ARITH[op](left, right)
        return int(_COMPARE[op](left, right))
    return _NO


def _atom(tok, expr: Expr, index: int, interp: Interpreter) -> object:
    if tok.kind == "num":
        text = tok.text
        if text.isdigit():
            return int(text)
        try:
            return decimal.Decimal(text)
        except decimal.InvalidOperation:
            return _NO
    if tok.kind == "str":
        return tok.text
    if tok.kind == "word":
        if tok.text == "NULL":
            return None
        if index < len(expr.names) and expr.names[index] == ident(tok):
            return interp.get(expr.names[index])
    return _NO


def first_row(rows: Iterator[tuple], name: str) -> tuple | None:
    """The one row of a function used in an expression (-686: more than one)."""
    try:
        got = list(islice(rows, 2))
    finally:
        rows.close()
    if len(got) > 1:
        raise SqlError(-686, 0, name, f"function {name} has returned more than one row")
    return got[0] if got else None
