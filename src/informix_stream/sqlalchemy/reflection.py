"""Reflection from Informix's system catalog (systables, syscolumns, ...).

Layouts are those of IBM's "Guide to SQL: Reference" (SYSTABLES, SYSCOLUMNS,
SYSCONSTRAINTS, SYSINDEXES, SYSREFERENCES, SYSDEFAULTS, SYSCHECKS, SYSVIEWS,
SYSSEQUENCES): user objects have tabid >= 100; tabtype T table, V view, Q
sequence; constrtype P/U/R/C/N; an index's columns are its part1..part16
(colno, negative for descending); a default's type is L(iteral), U(SER),
C(URRENT), N(ULL), T(ODAY), S (DBSERVERNAME).  The owner is the schema.
Column types are decoded by types.type_from_catalog (the driver's codec).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import types as sqltypes
from sqlalchemy import util
from sqlalchemy.engine import reflection

from .types import type_from_catalog

_PARTS = ", ".join(f"i.part{k}" for k in range(1, 17))
_SERIAL_CODES = {6, 18, 53}
_NUMERIC_CODES = {1, 2, 3, 4, 5, 6, 8, 17, 18, 52, 53}
_DEFAULT_KEYWORDS = {"U": "USER", "C": "CURRENT", "N": "NULL", "T": "TODAY",
                     "S": "DBSERVERNAME"}


class InformixReflection:
    """Inspector methods for the Informix dialect (mixed into the dialect)."""

    # -- helpers --------------------------------------------------------------
    def _owner(self, schema: str | None) -> tuple[str, tuple]:
        if schema is None:
            return "", ()
        return " AND t.owner = ?", (schema,)

    def _tabid(self, connection: Any, table_name: str, schema: str | None,
               types: str = "TV") -> int:
        owner, args = self._owner(schema)
        marks = ", ".join("?" for _ in types)
        row = connection.exec_driver_sql(
            f"SELECT t.tabid FROM systables t WHERE t.tabname = ? AND t.tabtype IN ({marks})"
            + owner, (table_name, *types, *args)).first()
        if row is None:
            from sqlalchemy import exc
            raise exc.NoSuchTableError(f"{schema}.{table_name}" if schema else table_name)
        return row[0]

    def _names(self, connection: Any, tabtype: str, schema: str | None) -> list[str]:
        owner, args = self._owner(schema)
        rows = connection.exec_driver_sql(
            "SELECT t.tabname FROM systables t WHERE t.tabid >= 100 AND t.tabtype = ?"
            + owner + " ORDER BY t.tabname", (tabtype, *args))
        return [r[0].rstrip() for r in rows]

    def _colnames(self, connection: Any, tabid: int) -> dict[int, str]:
        rows = connection.exec_driver_sql(
            "SELECT colno, colname FROM syscolumns WHERE tabid = ?", (tabid,))
        return {r[0]: r[1].rstrip() for r in rows}

    def _index_columns(self, connection: Any, tabid: int, idxname: str) -> list[int]:
        row = connection.exec_driver_sql(
            f"SELECT {_PARTS} FROM sysindexes i WHERE i.tabid = ? AND i.idxname = ?",
            (tabid, idxname)).first()
        return [p for p in (row or ()) if p]

    def _constraints(self, connection: Any, tabid: int, kind: str) -> list[tuple]:
        """A table's constraints of one kind, by name: the catalog's order means
        nothing, and SQLAlchemy's reflection tests (like its other dialects)
        expect names in order, the server's generated ones (u105_3, r105_4)
        before user names such as zz_..."""
        return list(connection.exec_driver_sql(
            "SELECT constrid, constrname, idxname FROM sysconstraints "
            "WHERE tabid = ? AND constrtype = ? ORDER BY constrname", (tabid, kind)))

    # -- names ----------------------------------------------------------------
    @reflection.cache
    def get_schema_names(self, connection: Any, **kw: Any) -> list[str]:
        rows = connection.exec_driver_sql(
            "SELECT DISTINCT owner FROM systables WHERE tabid >= 100 ORDER BY 1")
        return [r[0].rstrip() for r in rows]

    @reflection.cache
    def get_table_names(self, connection: Any, schema: str | None = None, **kw: Any) -> list[str]:
        return self._names(connection, "T", schema)

    @reflection.cache
    def get_view_names(self, connection: Any, schema: str | None = None, **kw: Any) -> list[str]:
        return self._names(connection, "V", schema)

    @reflection.cache
    def get_sequence_names(self, connection: Any, schema: str | None = None,
                           **kw: Any) -> list[str]:
        return self._names(connection, "Q", schema)

    def get_temp_table_names(self, connection: Any, **kw: Any) -> list[str]:
        return []

    @reflection.cache
    def has_table(self, connection: Any, table_name: str, schema: str | None = None,
                  **kw: Any) -> bool:
        self._ensure_has_table_connection(connection)
        owner, args = self._owner(schema)
        return connection.exec_driver_sql(
            "SELECT 1 FROM systables t WHERE t.tabname = ? AND t.tabtype IN ('T', 'V')"
            + owner, (table_name, *args)).first() is not None

    @reflection.cache
    def has_sequence(self, connection: Any, sequence_name: str, schema: str | None = None,
                     **kw: Any) -> bool:
        owner, args = self._owner(schema)
        return connection.exec_driver_sql(
            "SELECT 1 FROM systables t WHERE t.tabname = ? AND t.tabtype = 'Q'" + owner,
            (sequence_name, *args)).first() is not None

    @reflection.cache
    def get_view_definition(self, connection: Any, view_name: str, schema: str | None = None,
                            **kw: Any) -> str:
        tabid = self._tabid(connection, view_name, schema, "V")
        rows = connection.exec_driver_sql(
            "SELECT viewtext FROM sysviews WHERE tabid = ? ORDER BY seqno", (tabid,))
        # viewtext is CHAR(64) pieces: the blanks at a piece's end are text.
        return "".join(r[0] for r in rows).rstrip()

    # -- columns --------------------------------------------------------------
    @reflection.cache
    def get_columns(self, connection: Any, table_name: str, schema: str | None = None,
                    **kw: Any) -> list[dict]:
        tabid = self._tabid(connection, table_name, schema)
        rows = connection.exec_driver_sql(
            "SELECT c.colname, c.coltype, c.collength, c.extended_id, d.type, d.default "
            "FROM syscolumns c LEFT OUTER JOIN sysdefaults d "
            "ON d.tabid = c.tabid AND d.colno = c.colno "
            "WHERE c.tabid = ? ORDER BY c.colno", (tabid,))
        return [self._column(*row) for row in rows]

    def _column(self, name: str, coltype: int, collength: int, xid: int | None,
                dtype: str | None, dvalue: str | None) -> dict:
        type_ = type_from_catalog(coltype, collength, xid or 0)
        if type_ is None:
            util.warn(f"did not recognize type code {coltype} of column {name.rstrip()!r}")
            type_ = sqltypes.NULLTYPE
        base = coltype & 0xFF
        return {"name": name.rstrip(), "type": type_, "nullable": not coltype & 0x100,
                "default": _default_text(dtype, dvalue, base),
                "autoincrement": base in _SERIAL_CODES}

    # -- constraints and indexes ----------------------------------------------
    @reflection.cache
    def get_pk_constraint(self, connection: Any, table_name: str, schema: str | None = None,
                          **kw: Any) -> dict:
        tabid = self._tabid(connection, table_name, schema)
        found = self._constraints(connection, tabid, "P")
        if not found:
            return {"constrained_columns": [], "name": None}
        _, name, idx = found[0]
        cols = self._colnames(connection, tabid)
        return {"constrained_columns": [cols[abs(p)] for p in
                                        self._index_columns(connection, tabid, idx)],
                "name": name.rstrip()}

    @reflection.cache
    def get_unique_constraints(self, connection: Any, table_name: str,
                               schema: str | None = None, **kw: Any) -> list[dict]:
        tabid = self._tabid(connection, table_name, schema)
        cols = self._colnames(connection, tabid)
        return [{"name": name.rstrip(),
                 "column_names": [cols[abs(p)] for p in
                                  self._index_columns(connection, tabid, idx)]}
                for _, name, idx in self._constraints(connection, tabid, "U")]

    @reflection.cache
    def get_check_constraints(self, connection: Any, table_name: str,
                              schema: str | None = None, **kw: Any) -> list[dict]:
        tabid = self._tabid(connection, table_name, schema)
        out = []
        for constrid, name, _ in self._constraints(connection, tabid, "C"):
            rows = connection.exec_driver_sql(
                "SELECT checktext FROM syschecks WHERE constrid = ? AND type = 'T' "
                "ORDER BY seqno", (constrid,))
            text = "".join(r[0] for r in rows).strip()
            if text.startswith("(") and text.endswith(")"):
                text = text[1:-1]
            out.append({"name": name.rstrip(), "sqltext": text})
        return out

    @reflection.cache
    def get_foreign_keys(self, connection: Any, table_name: str, schema: str | None = None,
                         **kw: Any) -> list[dict]:
        tabid = self._tabid(connection, table_name, schema)
        cols = self._colnames(connection, tabid)
        out = []
        for constrid, name, idx in self._constraints(connection, tabid, "R"):
            ref = connection.exec_driver_sql(
                "SELECT p.tabname, p.owner, p.tabid, pc.idxname, r.delrule "
                "FROM sysreferences r, systables p, sysconstraints pc "
                "WHERE r.constrid = ? AND p.tabid = r.ptabid AND pc.constrid = r.primary",
                (constrid,)).first()
            if ref is None:
                continue
            ptable, powner, ptabid, pidx, delrule = ref
            pcols = self._colnames(connection, ptabid)
            owner = powner.rstrip()
            out.append({
                "name": name.rstrip(),
                "constrained_columns": [cols[abs(p)] for p in
                                        self._index_columns(connection, tabid, idx)],
                "referred_schema": schema if schema is not None or owner != self.default_schema_name
                else None,
                "referred_table": ptable.rstrip(),
                "referred_columns": [pcols[abs(p)] for p in
                                     self._index_columns(connection, ptabid, pidx)],
                "options": {"ondelete": "CASCADE"} if (delrule or "").strip() == "C" else {},
            })
        return out

    @reflection.cache
    def get_indexes(self, connection: Any, table_name: str, schema: str | None = None,
                    **kw: Any) -> list[dict]:
        """User indexes; those the server made for a constraint are reflected
        as that constraint instead."""
        tabid = self._tabid(connection, table_name, schema)
        cols = self._colnames(connection, tabid)
        backing = {r[0] for r in connection.exec_driver_sql(
            "SELECT idxname FROM sysconstraints WHERE tabid = ? AND idxname IS NOT NULL",
            (tabid,))}
        rows = connection.exec_driver_sql(
            f"SELECT i.idxname, i.idxtype, {_PARTS} FROM sysindexes i WHERE i.tabid = ? "
            "ORDER BY i.idxname", (tabid,))
        out = []
        for name, idxtype, *parts in rows:
            if name in backing or name.startswith(" "):
                continue
            used = [p for p in parts if p]
            out.append({"name": name.rstrip(), "unique": (idxtype or "").strip() == "U",
                        "column_names": [cols[abs(p)] for p in used],
                        "column_sorting": {cols[abs(p)]: ("desc",) for p in used if p < 0}})
        return out

    def get_table_comment(self, connection: Any, table_name: str, schema: str | None = None,
                          **kw: Any) -> dict:
        return {"text": None}


def _default_text(dtype: str | None, value: str | None, base: int) -> str | None:
    """A sysdefaults row as the SQL text of the DEFAULT clause."""
    if dtype is None:
        return None
    dtype = dtype.strip()
    if dtype in _DEFAULT_KEYWORDS:
        return _DEFAULT_KEYWORDS[dtype]
    if dtype != "L" or value is None:
        return None
    text = value.rstrip()
    if base in _NUMERIC_CODES:
        return text
    return "'" + text.replace("'", "''") + "'"
