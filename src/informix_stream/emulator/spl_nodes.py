"""The tree an SPL routine is parsed into (spl_parse.py) and the interpreter
runs (spl.py): one dataclass per SPL statement, expressions as SQL text."""

from __future__ import annotations

from dataclasses import dataclass, field

from informix_stream.codecs import ColumnType

from .statements import NOT_SUPPORTED, SqlError
from .tokens import Token


def unsupported(what: str) -> SqlError:
    return SqlError(NOT_SUPPORTED, message=f"{what} is not supported by the emulator")


@dataclass
class Expr:
    """An SQL expression: text with '?' for each variable in ``names``."""

    sql: str
    names: list[str]
    tokens: list[Token] = field(repr=False, default_factory=list)


@dataclass
class Param:
    name: str
    type: ColumnType
    default: Expr | None = None


@dataclass
class Routine:
    name: str
    is_function: bool
    params: list[Param]
    returns: list[tuple[str, ColumnType]]     # (column name, type)
    body: "Block"
    text: str = ""


@dataclass
class Block:
    defines: list[Param]
    handlers: list["OnException"]
    body: list[object]


@dataclass
class OnException:
    codes: list[int] | None
    targets: list[str]                 # SET sqlcode, isam, text
    body: Block
    resume: bool


@dataclass
class Let:
    targets: list[str]
    exprs: list[Expr]                  # one per target, or
    query: "Sql | None" = None         # LET a, b = (SELECT ...)
    call: "Call | None" = None         # LET a, b = func(...)


@dataclass
class If:
    branches: list[tuple[Expr, Block]]
    orelse: Block | None


@dataclass
class ForRange:
    var: str
    ranges: list[tuple[Expr, Expr | None, Expr | None]]   # (start, stop, step); stop None: a value
    body: Block


@dataclass
class While:
    cond: Expr
    body: Block


@dataclass
class Foreach:
    query: "Sql | Call"
    targets: list[str]
    body: Block


@dataclass
class Loop:
    """EXIT / CONTINUE [FOR|WHILE|FOREACH]."""

    exit: bool
    kind: str


@dataclass
class Return:
    exprs: list[Expr]
    resume: bool


@dataclass
class Raise:
    args: list[Expr]


@dataclass
class Call:
    name: str
    args: list[Expr]
    targets: list[str]


@dataclass
class Sql:
    """An SQL statement; for SELECT ... INTO, the INTO targets."""

    expr: Expr
    targets: list[str]
    select: bool


@dataclass
class System:
    expr: Expr


