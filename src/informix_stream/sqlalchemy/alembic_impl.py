"""Alembic on Informix: the migration context's impl and Informix's ALTER syntax.

Imported by this package when Alembic is installed: Alembic looks its impl up
by dialect name (``DefaultImpl.get_by_dialect``), and without one it cannot
run a migration at all.  Alembic's generic DDL (``ADD COLUMN``, ``DROP
COLUMN``, ``ALTER TABLE t RENAME TO``, ``ALTER TABLE t RENAME c TO``) is not
Informix syntax; IBM Informix Guide to SQL: Syntax gives ``ALTER TABLE t ADD
column-definition``, ``ALTER TABLE t DROP column``, ``RENAME TABLE old TO
new`` and ``RENAME COLUMN t.old TO new``.  Changing a column's type,
nullability or default needs ``MODIFY`` with the column's whole definition,
which Alembic's elements do not reliably carry, so those raise CompileError
naming the construct instead of emitting a statement that could drop a
default or a NOT NULL the user did not ask to drop.
"""

from __future__ import annotations

from typing import Any

from alembic.ddl import base as alembic_base
from alembic.ddl.impl import DefaultImpl
from sqlalchemy import exc
from sqlalchemy.ext.compiler import compiles


class InformixImpl(DefaultImpl):
    """Alembic's operations for ``informix``; DDL runs inside the transaction
    on a logged database, as Informix allows."""

    __dialect__ = "informix"
    transactional_ddl = True


def _table(compiler: Any, name: str, schema: str | None) -> str:
    return alembic_base.format_table_name(compiler, name, schema)


@compiles(alembic_base.AddColumn, "informix")
def _add_column(element: Any, compiler: Any, **kw: Any) -> str:
    if getattr(element, "if_not_exists", None):
        raise exc.CompileError("ADD COLUMN IF NOT EXISTS is not Informix ALTER TABLE syntax")
    return (f"ALTER TABLE {_table(compiler, element.table_name, element.schema)} ADD "
            + compiler.get_column_specification(element.column, **kw))


@compiles(alembic_base.DropColumn, "informix")
def _drop_column(element: Any, compiler: Any, **kw: Any) -> str:
    if getattr(element, "if_exists", None):
        raise exc.CompileError("DROP COLUMN IF EXISTS is not Informix ALTER TABLE syntax")
    return (f"ALTER TABLE {_table(compiler, element.table_name, element.schema)} DROP "
            + alembic_base.format_column_name(compiler, element.column.name))


@compiles(alembic_base.RenameTable, "informix")
def _rename_table(element: Any, compiler: Any, **kw: Any) -> str:
    return (f"RENAME TABLE {_table(compiler, element.table_name, element.schema)} TO "
            + compiler.preparer.quote(element.new_table_name))


@compiles(alembic_base.ColumnName, "informix")
def _rename_column(element: Any, compiler: Any, **kw: Any) -> str:
    table = _table(compiler, element.table_name, element.schema)
    return (f"RENAME COLUMN {table}.{alembic_base.format_column_name(compiler, element.column_name)}"
            f" TO {alembic_base.format_column_name(compiler, element.newname)}")


def _needs_modify(element: Any, compiler: Any, **kw: Any) -> str:
    raise exc.CompileError(
        f"{type(element).__name__} on {element.table_name}.{element.column_name}: Informix "
        "changes a column with ALTER TABLE ... MODIFY and the whole column definition; "
        "the informix Alembic impl does not emit it, write it with op.execute()")


for _element in (alembic_base.ColumnType, alembic_base.ColumnNullable,
                 alembic_base.ColumnDefault):
    compiles(_element, "informix")(_needs_modify)
