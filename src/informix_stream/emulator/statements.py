"""What a translated statement is: the shapes the dialect hands the engine
(result columns, table and column definitions, DDL specs, binds) and the
error every part of the emulator raises (``SqlError``, an Informix sqlcode)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import NamedTuple

from informix_stream.codecs import ColumnType, TypeCode


SERIAL_CODES = frozenset({TypeCode.SERIAL, TypeCode.SERIAL8, TypeCode.BIGSERIAL})

IMAGE_COLUMN = "_ifx_row"
"""Hidden column of every user table whose types all have a row encoding:
the row's complete SQ_TUPLE message, kept current by the engine so a
``SELECT *`` can be served without encoding anything."""


# The emulator's own code for SQL it does not implement: not a code any
# Informix server sends (documented in the README); -999 is its internal error.
NOT_SUPPORTED = -9999


def exact_decimal(ctype: ColumnType) -> bool:
    """DECIMAL/MONEY too wide for a double: stored as exact text and compared
    through the engine's decimal collation instead of as SQLite numbers."""
    return ctype.code in (TypeCode.DECIMAL, TypeCode.MONEY) and ctype.precision > 15


class SqlError(Exception):
    """An Informix SQL error: sqlcode, ISAM code and the offending name."""

    def __init__(self, sqlcode: int, isam: int = 0, near: str = "",
                 message: str = "", offset: int = 0) -> None:
        super().__init__(message or f"SQL error {sqlcode}" + (f" ({near})" if near else ""))
        self.sqlcode = sqlcode
        self.isam = isam
        self.near = near
        self.message = message
        # Where in the statement text the error was found (SQ_ERR's offset,
        # sqlca.sqlerrd[4]); 0 when it is not about a place in the text.
        self.offset = offset


def conversion_error(code: int, value: object) -> SqlError:
    """The server's conversion error ``code`` for a value a type cannot take."""
    return SqlError(code, message=f"cannot convert {value!r}")


class StatementKind(enum.Enum):
    SELECT = "select"
    INSERT = "insert"
    UPDATE = "update"
    DELETE = "delete"
    DDL = "ddl"
    BEGIN = "begin"
    COMMIT = "commit"
    ROLLBACK = "rollback"
    DATABASE = "database"
    OTHER = "other"
    EXECUTE = "execute"      # EXECUTE PROCEDURE/FUNCTION (spl_session.py)
    MERGE = "merge"          # MERGE (merge.py): several SQLite statements as one


@dataclass(frozen=True)
class ResultColumn:
    """One column of a result set as DESCRIBE reports it.

    ``stored`` is True when the value comes straight from a table column of
    this type, so the engine can trust SQLite's storage class and skip
    coercion on the hot fetch path.
    """

    name: str
    type: ColumnType
    stored: bool = field(default=False, compare=False)


@dataclass
class ColumnDef:
    """A table column as declared in CREATE TABLE."""

    name: str
    type: ColumnType
    default: "Bind | str | None" = None   # Bind for a literal, str for SQLite SQL
    serial_start: int = 1


def sql_ident(name: str) -> str:
    """A catalog name as SQLite text, always double-quoted: a delimited
    identifier under DELIMIDENT may be "per % cent" or a word SQLite reserves
    ("select").  Only names the catalog holds come here, so SQLite's reading
    of an unknown "x" as a string can not arise."""
    return '"' + name.replace('"', '""') + '"'


@dataclass
class TableDef:
    name: str
    columns: list[ColumnDef]
    image: bool = False      # the table keeps row images in IMAGE_COLUMN
    # A session's TEMP table lives in SQLite under a name of its own, so two
    # sessions' temp tables of one name, and a permanent table of that name,
    # never meet; the SQL the dialect emits names this storage table.
    storage: str = ""
    view: bool = False       # a view (views.py): read like a table
    definition: str = ""     # a view's CREATE VIEW text (sysviews), for writes through it
    # A derived table, CTE or MERGE source: its columns hold whatever their
    # expressions computed, not their type's storage form (translate_expr).
    derived: bool = False

    @property
    def sql_name(self) -> str:
        """The table's name in the SQLite text (quoted when it is storage)."""
        return f'"{self.storage}"' if self.storage else sql_ident(self.name)

    def sql_ref(self) -> str:
        """A reference keeping the Informix name usable as a qualifier."""
        return f'"{self.storage}" AS {sql_ident(self.name)}' if self.storage \
            else sql_ident(self.name)

    def column(self, name: str) -> ColumnDef | None:
        for col in self.columns:
            if col.name == name:
                return col
        return None

    @property
    def serial_columns(self) -> list[ColumnDef]:
        return [c for c in self.columns if c.type.code in SERIAL_CODES]


class Bind(NamedTuple):
    """One ``?`` of the SQLite statement.

    ``index`` points into the client's parameters; a literal the dialect
    moved out of the SQL text (to convert it like a parameter) has index
    None and its text in ``const``.  ``type`` is the column the value meets.
    """

    index: int | None
    const: object
    type: ColumnType | None
    compared: bool = False      # compared with the column, not stored in it


@dataclass
class CreateTable:
    name: str
    columns: list[ColumnDef]
    uniques: list[tuple[str | None, list[str], bool]]   # (name, columns, primary)
    checks: list[str]
    if_not_exists: bool = False
    temp: bool = False       # CREATE TEMP TABLE / SELECT ... INTO TEMP
    no_log: bool = False     # ... WITH NO LOG: its rows outlive a ROLLBACK (temp_tables.py)
    as_select: str = ""      # SELECT ... INTO TEMP: SQLite text of the SELECT
    # (constraint name or None, Informix text) of each CHECK, for syschecks.
    check_sources: list[tuple[str | None, str]] = field(default_factory=list)
    # (constraint name or None, columns, parent table, parent columns or None
    # for its primary key, ON DELETE CASCADE) of each FOREIGN KEY/REFERENCES.
    references: list[tuple] = field(default_factory=list)


@dataclass
class CreateIndex:
    name: str
    table: str
    columns: list[str]
    unique: bool
    # Positions (0-based) of the keys written DESC: sysindexes shows them as
    # negative column numbers.
    descending: list[int] = field(default_factory=list)


@dataclass
class Drop:
    what: str          # "TABLE" or "INDEX"
    name: str
    if_exists: bool = False


@dataclass
class Translation:
    kind: StatementKind
    sql: str = ""                      # SQLite text ("" when nothing to run)
    binds: list[Bind] = field(default_factory=list)
    param_count: int = 0
    columns: list[ResultColumn] = field(default_factory=list)
    table: str | None = None
    ddl: CreateTable | CreateIndex | Drop | None = None
    option: tuple[str, ...] = ()       # SET/DATABASE details for the engine
    # SELECT: the statement reads the row images of ``table`` instead of values.
    encoded: bool = False
    # ... and, for a projection, cuts these cells out of them: (the table's
    # column types, the table position of each result column); see image_slice.
    image_cells: tuple[list[ColumnType], list[int]] | None = None
    # SELECT ... FOR UPDATE: a scroll cursor may not be opened on it (-526).
    for_update: bool = False
    # TRUNCATE (run as a DELETE): needs exclusive access first (ddl_runner.truncating)
    truncate: bool = False
    # INSERT: positions in ``binds`` of each table column's value, table order;
    # the engine computes the row image from them and binds it after the rest.
    image_binds: list[int] | None = None
    # INSERT/UPDATE through WITH CHECK OPTION views: a SELECT of the base
    # rowids each such view shows (view_writes.check_queries).
    view_checks: list["Translation"] = field(default_factory=list)
    # UPDATE/DELETE through a view: its expressions read from the view alone,
    # prepared (never run) to find names the view lacks (view_writes._probe)
    view_probe: "Translation | None" = None
