"""SQL, DDL and type compilers: SQLAlchemy constructs as Informix SQL.

Sources for the syntax chosen here (IBM Informix Guide to SQL: Syntax):
``SELECT SKIP n FIRST m`` (Projection clause); every SELECT needs a FROM
clause even for a bare expression (FROM Clause: "Every SELECT statement
requires the FROM clause"); constraint names follow the constraint
(``PRIMARY KEY (a) CONSTRAINT name``, CREATE TABLE Constraint Definition);
``ON DELETE CASCADE`` is the only referential action (REFERENCES clause);
sequences are read as ``seq.NEXTVAL``/``seq.CURRVAL``.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import exc
from sqlalchemy import types as sqltypes
from sqlalchemy.sql import compiler, elements

from .types import MAX_FRACTION

# A one-row table every database has (systables' own row, tabid 1): the FROM
# of a SELECT with nothing to select from.
DUAL = "(SELECT 1 FROM systables WHERE tabid = 1) ifx_dual"


# Informix's widest DECIMAL (InformixTypeCompiler._decimal).
MAX_DECIMAL_PRECISION = 32

# A parameter marker as SQLCompiler writes it before positional rendering.
_MARKER = re.compile(r"\?|%\([^)]+\)s")

# Types whose parameters are CAST in a select list (visit_bindparam); a string
# needs none (it comes back as one) and BYTE/TEXT cannot be CAST at all.
CAST_IN_SELECT_LIST = (sqltypes.Date, sqltypes.DateTime, sqltypes.Time, sqltypes.Numeric,
                       sqltypes.Integer, sqltypes.Boolean, sqltypes.Interval)


class InformixCompiler(compiler.SQLCompiler):
    """SELECT/INSERT/UPDATE/DELETE in Informix's dialect of SQL."""

    def default_from(self) -> str:
        return " FROM " + DUAL

    def get_select_precolumns(self, select: Any, **kw: Any) -> str:
        """``SKIP n FIRST m`` go before the column list, rendered as integer
        literals at execution time (a bound value becomes its literal)."""
        text = ""
        if select._offset_clause is not None:
            text += "SKIP " + self._row_count(select._offset_clause, "offset", **kw) + " "
        if select._limit_clause is not None:
            text += "FIRST " + self._row_count(select._limit_clause, "limit", **kw) + " "
        return text + super().get_select_precolumns(select, **kw)

    def _row_count(self, clause: Any, what: str, **kw: Any) -> str:
        """SKIP and FIRST take an integer, a host variable or an SPL variable,
        never an expression (Guide to SQL: Syntax, Projection clause, "SKIP,
        LIMIT and FIRST options"; HCL Informix 14.10 ids_sqs_0982), so an
        expression is refused here rather than sent to a -201.  A bound value
        is rendered as an integer literal: a bindparam() without a type gets
        INTEGER, whose literal renderer refuses anything but an int."""
        if not isinstance(clause, elements.BindParameter):
            raise exc.CompileError(
                f"Informix SKIP/FIRST take an integer, not an expression: {what} "
                f"{clause!s} is not supported by Informix")
        if clause.type._isnull:
            clause = clause._with_binary_element_type(sqltypes.Integer())
        return self.process(clause, literal_execute=True, **kw)

    def visit_bindparam(self, bindparam: Any, within_columns_clause: bool = False,
                        literal_binds: bool = False, **kw: Any) -> str:
        """A marker in the select list is CAST to its type: the server has no
        column to take a type from, so without the cast a DATE or DECIMAL
        parameter comes back as whatever the server makes of the bound value
        (a string for DATETIME, -201 for a time of day), not as the type
        SQLAlchemy expects to read."""
        text = super().visit_bindparam(bindparam, within_columns_clause=within_columns_clause,
                                       literal_binds=literal_binds, **kw)
        if (within_columns_clause and _MARKER.fullmatch(text) and not bindparam.expanding
                and isinstance(bindparam.type, CAST_IN_SELECT_LIST)):
            type_sql = self.dialect.type_compiler_instance.process(bindparam.type)
            return f"CAST({text} AS {type_sql})"
        return text

    def limit_clause(self, select: Any, **kw: Any) -> str:
        return ""                     # rendered by get_select_precolumns

    def fetch_clause(self, select: Any, **kw: Any) -> str:
        raise exc.CompileError("FETCH FIRST ... ROWS is not supported by Informix; "
                               "use limit()/offset() (SKIP/FIRST)")

    def visit_sequence(self, sequence: Any, **kw: Any) -> str:
        return self.preparer.format_sequence(sequence) + ".NEXTVAL"

    def for_update_clause(self, select: Any, **kw: Any) -> str:
        if select._for_update_arg.of:
            cols = ", ".join(self.process(c, include_table=False, **kw)
                             for c in select._for_update_arg.of)
            return " FOR UPDATE OF " + cols
        return " FOR UPDATE"

    def visit_true(self, expr: Any, **kw: Any) -> str:
        return "'t'::BOOLEAN"         # a bare 't' would be CHAR(1)

    def visit_false(self, expr: Any, **kw: Any) -> str:
        return "'f'::BOOLEAN"

    def visit_empty_set_expr(self, element_types: Any, **kw: Any) -> str:
        """``x IN ()`` has no Informix spelling: a subquery that selects nothing."""
        cols = ", ".join("1" for _ in element_types) or "1"
        return f"SELECT {cols} FROM systables WHERE 1 = 0"

    def visit_now_func(self, fn: Any, **kw: Any) -> str:
        return "CURRENT YEAR TO FRACTION(5)"

    def visit_char_length_func(self, fn: Any, **kw: Any) -> str:
        return "CHAR_LENGTH" + self.function_argspec(fn, **kw)

    def visit_mod_binary(self, binary: Any, operator: Any, **kw: Any) -> str:
        return (f"MOD({self.process(binary.left, **kw)}, "
                f"{self.process(binary.right, **kw)})")

    def visit_regexp_match_op_binary(self, binary: Any, operator: Any, **kw: Any) -> str:
        raise exc.CompileError("regular expression matching is not supported by the "
                               "Informix dialect")

    def returning_clause(self, *args: Any, **kw: Any) -> str:
        raise exc.CompileError("RETURNING is not supported by Informix")


class InformixDDLCompiler(compiler.DDLCompiler):
    """CREATE/DROP with Informix's column and constraint syntax."""

    def get_column_specification(self, column: Any, **kw: Any) -> str:
        """An autoincrement integer key, or an Identity() column, becomes
        SERIAL / BIGSERIAL."""
        spec = self.preparer.format_column(column) + " "
        if column.identity is not None:
            spec += self._identity_serial(column)
        elif self._is_serial(column):
            big = isinstance(column.type, sqltypes.BigInteger)
            spec += "BIGSERIAL" if big else "SERIAL"
        else:
            spec += self.dialect.type_compiler_instance.process(column.type,
                                                                type_expression=column)
            default = self.get_column_default_string(column)
            if default is not None:
                spec += " DEFAULT " + default
        if column.computed is not None:
            raise exc.CompileError("computed columns are not supported by Informix")
        if not column.nullable:
            spec += " NOT NULL"
        return spec

    @staticmethod
    def _identity_serial(column: Any) -> str:
        """Identity() as Informix spells a generated key: Informix has no
        GENERATED ... AS IDENTITY; its column the server numbers is SERIAL
        (INTEGER) or BIGSERIAL (BIGINT), SERIAL(n)/BIGSERIAL(n) starting at
        n, which takes an explicit value too, as BY DEFAULT does (Guide to
        SQL: Reference, "SERIAL(n) data type", "BIGSERIAL(n) data type").
        Any other identity option has no Informix spelling: CompileError."""
        ident = column.identity
        if not isinstance(column.type, sqltypes.Integer) or \
                isinstance(column.type, sqltypes.SmallInteger):
            raise exc.CompileError(f"Identity() on column {column.name!r} of type "
                                   f"{column.type}: Informix numbers only INTEGER (SERIAL) "
                                   "and BIGINT (BIGSERIAL) columns")
        unsupported = [name for name, value in (
            ("always=True", ident.always), ("on_null", ident.on_null),
            ("increment", ident.increment not in (None, 1)),
            ("minvalue", ident.minvalue is not None), ("maxvalue", ident.maxvalue is not None),
            ("nominvalue", ident.nominvalue), ("nomaxvalue", ident.nomaxvalue),
            ("cycle", ident.cycle), ("cache", ident.cache is not None),
            ("order", ident.order)) if value]
        if unsupported:
            raise exc.CompileError(f"Identity({', '.join(unsupported)}) is not supported by "
                                   "Informix: a SERIAL column takes only a start value")
        word = "BIGSERIAL" if isinstance(column.type, sqltypes.BigInteger) else "SERIAL"
        if ident.start is not None and ident.start != 1:
            if int(ident.start) < 1:
                raise exc.CompileError(f"Identity(start={ident.start}): a SERIAL starts at "
                                       "a positive number")
            word += f"({int(ident.start)})"
        return word

    @staticmethod
    def _is_serial(column: Any) -> bool:
        table = column.table
        return (column is table._autoincrement_column
                and column.server_default is None
                and isinstance(column.type, sqltypes.Integer)
                and (column.default is None
                     or (getattr(column.default, "is_sequence", False)
                         and column.default.optional)))

    def _named(self, text: str, constraint: Any) -> str:
        if constraint.name is not None:
            name = self.preparer.format_constraint(constraint)
            if name is not None:
                text += " CONSTRAINT " + name
        return text

    def visit_primary_key_constraint(self, constraint: Any, **kw: Any) -> str:
        if len(constraint) == 0:
            return ""
        return self._named(self.define_primary_key_body(constraint, **kw), constraint)

    def visit_unique_constraint(self, constraint: Any, **kw: Any) -> str:
        if len(constraint) == 0:
            return ""
        return self._named(self.define_unique_body(constraint, **kw), constraint)

    def visit_check_constraint(self, constraint: Any, **kw: Any) -> str:
        return self._named(self.define_check_body(constraint, **kw), constraint)

    def visit_column_check_constraint(self, constraint: Any, **kw: Any) -> str:
        return self._named(self.define_check_body(constraint, **kw), constraint)

    def visit_foreign_key_constraint(self, constraint: Any, **kw: Any) -> str:
        text = self.define_foreign_key_body(constraint, **kw)
        if constraint.ondelete is not None:
            if constraint.ondelete.upper() != "CASCADE":
                raise exc.CompileError(f"ON DELETE {constraint.ondelete} is not supported by "
                                       "Informix (only ON DELETE CASCADE)")
            text += " ON DELETE CASCADE"
        if constraint.onupdate is not None:
            raise exc.CompileError("ON UPDATE is not supported by Informix")
        return self._named(text, constraint)

    def visit_create_index(self, create: Any, **kw: Any) -> str:
        index = create.element
        self._verify_index_table(index)
        text = "CREATE UNIQUE INDEX " if index.unique else "CREATE INDEX "
        if create.if_not_exists:
            text += "IF NOT EXISTS "
        cols = ", ".join(self.sql_compiler.process(e, include_table=False, literal_binds=True)
                         for e in index.expressions)
        return (text + self._prepared_index_name(index, include_schema=True)
                + " ON " + self.preparer.format_table(index.table) + f" ({cols})")

    def visit_drop_index(self, drop: Any, **kw: Any) -> str:
        text = "DROP INDEX "
        if drop.if_exists:
            text += "IF EXISTS "
        return text + self._prepared_index_name(drop.element, include_schema=True)

    def get_identity_options(self, identity_options: Any) -> str:
        """Sequence options as CREATE SEQUENCE spells them (NOMINVALUE, NOCYCLE, ...)."""
        o = identity_options
        parts = []
        for word, value in (("INCREMENT BY", o.increment), ("START WITH", o.start),
                            ("MINVALUE", o.minvalue), ("MAXVALUE", o.maxvalue),
                            ("CACHE", o.cache)):
            if value is not None:
                parts.append(f"{word} {value}")
        if o.nominvalue:
            parts.append("NOMINVALUE")
        if o.nomaxvalue:
            parts.append("NOMAXVALUE")
        if o.cycle is not None:
            parts.append("CYCLE" if o.cycle else "NOCYCLE")
        if o.order is not None:
            parts.append("ORDER" if o.order else "NOORDER")
        return " ".join(parts)

    def visit_set_table_comment(self, create: Any, **kw: Any) -> str:
        raise exc.CompileError("table comments are not supported by Informix")

    visit_drop_table_comment = visit_set_table_comment
    visit_set_column_comment = visit_set_table_comment
    visit_drop_column_comment = visit_set_table_comment


class InformixTypeCompiler(compiler.GenericTypeCompiler):
    """Generic SQLAlchemy types as the Informix types that hold them exactly."""

    def visit_boolean(self, type_: Any, **kw: Any) -> str:
        return "BOOLEAN"

    def visit_big_integer(self, type_: Any, **kw: Any) -> str:
        return "BIGINT"

    def visit_INT8(self, type_: Any, **kw: Any) -> str:
        return "INT8"

    def visit_SERIAL(self, type_: Any, **kw: Any) -> str:
        return "SERIAL"

    def visit_SERIAL8(self, type_: Any, **kw: Any) -> str:
        return "SERIAL8"

    def visit_BIGSERIAL(self, type_: Any, **kw: Any) -> str:
        return "BIGSERIAL"

    def visit_float(self, type_: Any, **kw: Any) -> str:
        return "FLOAT"

    def visit_double(self, type_: Any, **kw: Any) -> str:
        return "FLOAT"

    def visit_REAL(self, type_: Any, **kw: Any) -> str:
        return "SMALLFLOAT"

    visit_SMALLFLOAT = visit_REAL

    def visit_DOUBLE_PRECISION(self, type_: Any, **kw: Any) -> str:
        return "FLOAT"

    def visit_DOUBLE(self, type_: Any, **kw: Any) -> str:
        return "FLOAT"

    def visit_numeric(self, type_: Any, **kw: Any) -> str:
        return self._decimal("DECIMAL", type_)

    def visit_MONEY(self, type_: Any, **kw: Any) -> str:
        return self._decimal("MONEY", type_)

    @staticmethod
    def _decimal(name: str, type_: Any) -> str:
        """DECIMAL/MONEY hold at most 32 significant digits (Guide to SQL:
        Reference, "DECIMAL(p,s) data types": p from 1 to 32); a wider
        precision is refused rather than silently narrowed."""
        if type_.precision is not None and not 1 <= type_.precision <= MAX_DECIMAL_PRECISION:
            raise exc.CompileError(f"{name}({type_.precision}) is not supported by Informix "
                                   f"(precision 1 to {MAX_DECIMAL_PRECISION})")
        if type_.precision is None:
            return name if name == "MONEY" else "DECIMAL(32)"
        if type_.scale is None:
            return f"{name}({type_.precision})"
        return f"{name}({type_.precision},{type_.scale})"

    def visit_datetime(self, type_: Any, **kw: Any) -> str:
        return "DATETIME YEAR TO FRACTION(5)"

    def visit_DATETIME(self, type_: Any, **kw: Any) -> str:
        qualifier = getattr(type_, "qualifier", "YEAR TO FRACTION(5)")
        return "DATETIME " + qualifier

    visit_TIMESTAMP = visit_datetime

    def visit_time(self, type_: Any, **kw: Any) -> str:
        return "DATETIME HOUR TO FRACTION(5)"

    visit_TIME = visit_time

    def visit_INTERVAL(self, type_: Any, **kw: Any) -> str:
        start, end = type_.start, type_.end
        first = f"{start}({type_.precision})" if not start.startswith("FRACTION") else start
        return f"INTERVAL {first} TO {end}"

    def visit_interval(self, type_: Any, **kw: Any) -> str:
        return f"INTERVAL DAY({type_.day_precision or 9}) TO FRACTION({MAX_FRACTION})"

    def visit_string(self, type_: Any, **kw: Any) -> str:
        return self._varchar("VARCHAR", type_)

    def visit_VARCHAR(self, type_: Any, **kw: Any) -> str:
        return self._varchar("VARCHAR", type_)

    def visit_unicode(self, type_: Any, **kw: Any) -> str:
        return self._varchar("VARCHAR", type_)

    def visit_NVARCHAR(self, type_: Any, **kw: Any) -> str:
        return self._varchar("NVARCHAR", type_)

    def visit_enum(self, type_: Any, **kw: Any) -> str:
        """A non-native Enum is a VARCHAR sized in bytes, not characters:
        VARCHAR(n) counts bytes (Guide to SQL: Reference, "VARCHAR(m,r) data
        type"), and a non-ANSI database truncates a longer value without an
        error, so 'réveillé' (8 characters, 10 bytes in UTF-8) needs 10."""
        widest = max((len(str(v).encode("utf-8")) for v in type_.enums), default=0)
        return self._varchar_of("VARCHAR", max(type_.length or 0, widest) or None)

    @classmethod
    def _varchar(cls, name: str, type_: Any) -> str:
        return cls._varchar_of(name, type_.length)

    @staticmethod
    def _varchar_of(name: str, length: int | None) -> str:
        """VARCHAR holds at most 255 bytes; longer or unsized strings are LVARCHAR."""
        if length is None:
            return "LVARCHAR"
        if length > 255:
            return f"LVARCHAR({length})"
        return f"{name}({length})"

    def visit_LVARCHAR(self, type_: Any, **kw: Any) -> str:
        return f"LVARCHAR({type_.length})" if type_.length else "LVARCHAR"

    def visit_text(self, type_: Any, **kw: Any) -> str:
        return "TEXT"

    visit_unicode_text = visit_text
    visit_TEXT = visit_text
    visit_CLOB = visit_text

    def visit_large_binary(self, type_: Any, **kw: Any) -> str:
        return "BYTE"

    visit_BYTE = visit_large_binary
    visit_BLOB = visit_large_binary

    def visit_uuid(self, type_: Any, **kw: Any) -> str:
        return "CHAR(32)"
