"""Named ROW types: ``CREATE ROW TYPE``, ``DROP ROW TYPE``, their catalog rows
and the columns declared with them.

A named ROW type is kept three ways: ``_ifx_rowtypes`` (name -> its fields as
canonical ``row(...)`` text, which the emulator reads), and the rows a real
server has for it in ``sysxtdtypes`` and ``sysattrtypes`` (IBM Informix
Guide to SQL: Reference, SYSXTDTYPES and SYSATTRTYPES; the row layout is the
one IBM's JDBC driver reads back in ``IfxSqliConnect.loadStructInfo``: seqno
1 is the type itself at level 0, its fields follow at level 1 with parent 1,
and a field of a ROW or collection type points with ``xtd_type_id`` at an
unnamed type (mode 'C') of its own with rows of its own).  Extended ids of
user types start above 100: the emulator's choice, the server's numbering is
not known to us; an id is never used twice (sysxtdtypes.extended_id
is a SERIAL), and a named ROW column is described with its type's id.  Errors are the server's (IBM JDBC 15.0.1.0 message
catalog, sql_en_US.properties): -9991 the name exists, -9992 not found,
-9990 still in use, -9628 a column's type not found.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from informix_stream.codec import composite as cc
from informix_stream.codec.typeinfo import (COMPOSITE_LENGTH, NAMED_ROW_FLAG, NOT_NULL_FLAG,
                                            ColumnType, TypeCode)

from .statements import NOT_SUPPORTED, ColumnDef, SqlError

META_DDL = """CREATE TABLE IF NOT EXISTS _ifx_rowtypes (
    name TEXT PRIMARY KEY, xtype TEXT, extended_id INTEGER);
CREATE TABLE IF NOT EXISTS _ifx_xtd_high (top INTEGER)"""

_FIRST_USER_XID = 101
_KIND_CODE = {"SET": TypeCode.SET, "MULTISET": TypeCode.MULTISET, "LIST": TypeCode.LIST,
              "ROW": TypeCode.ROW}


@dataclass
class CreateRowType:
    """CREATE ROW TYPE [IF NOT EXISTS] name (fields)."""

    name: str
    row_text: str            # canonical row(...) text of the fields
    if_not_exists: bool = False


def shape_text(fields_source: str) -> str:
    """Canonical ``row(...)`` text of a CREATE ROW TYPE field list (-201 if it is none)."""
    try:
        shape = cc.parse_shape(f"ROW({fields_source})")
    except ValueError as exc:
        named = re.search(r"not an Informix type: '([A-Za-z_][A-Za-z0-9_$]*)'", str(exc))
        if named:
            # a field typed by a name: another named ROW type, or an opaque
            # or DISTINCT type, none of which the emulator nests in a ROW type
            raise SqlError(NOT_SUPPORTED, message=f"a field of type {named[1]} (a named "
                           "type inside a ROW type) is not supported by the emulator") from None
        raise SqlError(-201, 0, "", f"bad ROW type definition: {exc}") from None
    return shape.text()


def placeholder(name: str) -> ColumnType:
    """What the translator gives a column typed by a bare name: a named ROW
    type to resolve against the database (``resolve``)."""
    return ColumnType(TypeCode.ROW, COMPOSITE_LENGTH, True, name, True)


def load(conn: sqlite3.Connection) -> dict[str, ColumnType]:
    """The database's named ROW types as column types, by name."""
    return {name: ColumnType(TypeCode.ROW, COMPOSITE_LENGTH, True, name, True, xtype, xid)
            for name, xtype, xid in
            conn.execute("SELECT name, xtype, extended_id FROM _ifx_rowtypes")}


def resolve(ctype: ColumnType, types: dict[str, ColumnType], column: str) -> ColumnType:
    """A column type with a named ROW type's fields filled in (-9628 if unknown)."""
    if not ctype.named or ctype.row_text:
        return ctype
    known = types.get(ctype.xname.lower())
    if known is None:
        raise SqlError(-9628, 0, ctype.xname, f"type {ctype.xname} (column {column}) not found")
    return ColumnType(TypeCode.ROW, ctype.length, ctype.nullable, known.xname, True,
                      known.row_text, known.xid)


def resolve_columns(columns: Iterable[ColumnDef], types: dict[str, ColumnType]) -> None:
    for col in columns:
        col.type = resolve(col.type, types, col.name)


class XidCounter:
    """A database's highest extended id handed out, kept in memory as well:
    ``_ifx_xtd_high`` is undone with the transaction that created a type,
    but a SERIAL number once given is never given again, even after a
    ROLLBACK (IBM Informix Guide to SQL: Reference, SERIAL data type), and
    a client keeps a type's fields by its id (core/named_rows.py)."""

    def __init__(self) -> None:
        self.high = 0


def create(conn: sqlite3.Connection, spec: CreateRowType, owner: str,
           types: dict[str, ColumnType], xids: XidCounter) -> None:
    if spec.name in types:
        if spec.if_not_exists:
            return
        raise SqlError(-9991, 0, spec.name, f"named row type {spec.name} already exists")
    xid = _next_xid(conn, xids)
    conn.execute("INSERT INTO _ifx_rowtypes (name, xtype, extended_id) VALUES (?, ?, ?)",
                 (spec.name, spec.row_text, xid))
    _xtdtype(conn, xid, "R", owner, spec.name, TypeCode.ROW)
    _attributes(conn, xid, cc.parse_shape(spec.row_text), owner, NAMED_ROW_FLAG, xids)


def drop(conn: sqlite3.Connection, name: str, if_exists: bool, tables: Iterable,
         types: dict[str, ColumnType]) -> None:
    """DROP ROW TYPE name RESTRICT: refused while a column uses it."""
    if name not in types:
        if if_exists:
            return
        raise SqlError(-9992, 0, name, f"named row type {name} not found")
    for table in tables:
        for col in table.columns:
            if col.type.named and col.type.xname.lower() == name:
                raise SqlError(-9990, 0, name, f"named row type {name} is still in use "
                               f"(column {table.name}.{col.name})")
    (xid,) = conn.execute("SELECT extended_id FROM _ifx_rowtypes WHERE name = ?",
                          (name,)).fetchone()
    conn.execute("DELETE FROM _ifx_rowtypes WHERE name = ?", (name,))
    for owned in _owned_ids(conn, xid):
        conn.execute("DELETE FROM sysattrtypes WHERE extended_id = ?", (owned,))
        conn.execute("DELETE FROM sysxtdtypes WHERE extended_id = ?", (owned,))


def _owned_ids(conn: sqlite3.Connection, xid: int) -> list[int]:
    """The type and the unnamed types made for its fields, recursively."""
    out = [xid]
    for (child,) in conn.execute("SELECT xtd_type_id FROM sysattrtypes WHERE extended_id = ?"
                                 " AND seqno > 1 AND xtd_type_id > 100", (xid,)).fetchall():
        out += _owned_ids(conn, child)
    return out


def _next_xid(conn: sqlite3.Connection, xids: XidCounter) -> int:
    """A new extended id, never one used before in the database (the
    column is a SERIAL: a type dropped and created again, or created in a
    transaction that was rolled back and then again, gets a new id, so a
    client that keeps a type's fields by id cannot read it stale)."""
    (top,) = conn.execute("SELECT MAX(extended_id) FROM sysxtdtypes").fetchone()
    (high,) = conn.execute("SELECT MAX(top) FROM _ifx_xtd_high").fetchone()
    xid = max(top or 0, high or 0, xids.high, _FIRST_USER_XID - 1) + 1
    xids.high = xid
    conn.execute("DELETE FROM _ifx_xtd_high")
    conn.execute("INSERT INTO _ifx_xtd_high (top) VALUES (?)", (xid,))
    return xid


def _xtdtype(conn: sqlite3.Connection, xid: int, mode: str, owner: str, name: str,
             code: int) -> None:
    conn.execute(
        "INSERT INTO sysxtdtypes (extended_id, domain, mode, owner, name, type, source, maxlen,"
        " length, byvalue, cannothash, align, locator) VALUES (?, NULL, ?, ?, ?, ?, 0, 0, 0,"
        " 'F', 'F', 8, 0)", (xid, mode, owner, name, int(code)))


def _attributes(conn: sqlite3.Connection, xid: int, shape: cc.Shape, owner: str,
                flags: int, xids: XidCounter) -> None:
    """sysattrtypes rows of one composite type: itself, then its members."""
    rows = [(1, 0, 0, None, 0, int(_KIND_CODE[shape.kind]) | flags, 0, xid)]
    members = shape.fields if shape.kind == "ROW" else (("", shape.element),)
    for fieldno, (fname, sub) in enumerate(members, 1):
        code, length, sub_xid = _member_type(conn, sub, owner, xids)
        rows.append((fieldno + 1, 1, 1, fname or None, fieldno, code, length, sub_xid))
    conn.executemany(
        "INSERT INTO sysattrtypes (extended_id, seqno, levelno, parent_no, fieldname, fieldno,"
        " type, length, xtd_type_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(xid, *row) for row in rows])


def _member_type(conn: sqlite3.Connection, shape: cc.Shape, owner: str,
                 xids: XidCounter) -> tuple[int, int, int]:
    """(coltype, length, xtd_type_id) of a field or element; a composite
    member gets an unnamed type (mode 'C') of its own."""
    not_null = 0 if shape.nullable else NOT_NULL_FLAG
    if shape.kind == "SCALAR":
        t = shape.scalar
        return (t.describe_code & 0xFF) | not_null, t.length, t.extended_id
    xid = _next_xid(conn, xids)
    _xtdtype(conn, xid, "C", owner, _type_text(shape), _KIND_CODE[shape.kind])
    _attributes(conn, xid, shape, owner, 0, xids)
    return int(_KIND_CODE[shape.kind]) | not_null, 0, xid


def _type_text(shape: cc.Shape) -> str:
    """An unnamed type's name in sysxtdtypes: its text without NOT NULL (inference)."""
    return cc.Shape(shape.kind, shape.scalar, shape.element, shape.fields).text()
