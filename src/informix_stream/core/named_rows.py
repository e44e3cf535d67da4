"""The fields of named ROW types, read from the system catalog.

A server describes a column of a named ROW type (``CREATE ROW TYPE
person_t (...)``) by the type's name and extended id only (DESCRIBE type
22 + 0x1000 SQLNAMED; docs/protocol.md 10.7), and sends its values in the
same text form as an unnamed ROW's.  To read them the driver needs the
fields, which live in ``sysattrtypes``: it asks for them the way IBM's
JDBC driver loads a type's structure (``IfxSqliConnect.addUDTInfo`` finds
the type by name in ``sysxtdtypes``, ``loadStructInfo`` reads its
``sysattrtypes`` rows ordered by seqno and follows ``xtd_type_id`` into the
types of ROW and collection fields), and turns the rows into the
``row(...)`` type text the composite codec reads.

The look-ups are side statements on the session (``statement.query_rows``):
they queue behind any other cursor's outstanding fetch, so a streaming
cursor on the same connection keeps its rows.  Results are kept per
connection (``RowTypeCache``) by extended id, when the DESCRIBE gives one
(a type dropped and created again gets a new id, so such an entry cannot go
stale).  A type described by name only is looked up for each statement
prepared: another connection may have dropped and created it again with
other fields, and nothing on this one would tell (the statement itself
keeps its fields: a type in use cannot be dropped, -9990).  Everything goes
on a change of database.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ..codec.typeinfo import (COMPOSITE_CODES, NAMED_ROW_FLAG, NOT_NULL_FLAG, XID_BOOLEAN,
                              XID_LVARCHAR, ColumnType, TypeCode)
from ..errors import NotSupportedError
from .session import ClientSession
from .statement import Prepared, query_rows

Op = Generator[Any, None, Any]

_CURSOR = b"_ifxs_rowtype"
_ATTR_SQL = ("SELECT extended_id, seqno, levelno, parent_no, fieldname, fieldno, type, length,"
             " xtd_type_id FROM informix.sysattrtypes WHERE extended_id IN ({ids})"
             " ORDER BY extended_id, seqno")
_NAME_SQL = ("SELECT extended_id FROM informix.sysxtdtypes WHERE mode = 'R' AND type = 22"
             " AND name = {name}")
# A type nests other types; past this depth the catalog is taken to loop.
_MAX_DEPTH = 32
_KIND_TEXT = {TypeCode.SET: "set", TypeCode.MULTISET: "multiset", TypeCode.LIST: "list",
              TypeCode.ROW: "row"}


class RowTypeCache:
    """Per connection: a named ROW type's ``row(...)`` text by extended id,
    for the database the connection has open."""

    def __init__(self) -> None:
        self._by_xid: dict[int, str] = {}
        self._epoch = 0

    def check_epoch(self, database_changes: int) -> None:
        """Forget everything once the session opened another database."""
        if database_changes != self._epoch:
            self._by_xid.clear()
            self._epoch = database_changes

    def get(self, xid: int, name: str) -> str | None:
        return self._by_xid.get(xid) if xid else None

    def put(self, xid: int, name: str, text: str) -> None:
        """Keep a type's text by id only: a name may mean other fields on
        the next statement (module docstring)."""
        if xid:
            self._by_xid[xid] = text


def named_columns(prepared: Prepared) -> list[tuple[int, int, str]]:
    """(column index, extended id, type name) of each named ROW column."""
    out = []
    for i, c in enumerate(prepared.describe.columns):
        if c.wire_type & 0xFF == TypeCode.ROW and c.wire_type & NAMED_ROW_FLAG:
            out.append((i, c.extended_id, _name(c.extended_name)))
    return out


def _name(raw: bytes | str) -> str:
    text = raw.decode("iso-8859-1") if isinstance(raw, (bytes, bytearray)) else raw
    return text.strip().lower()


def resolve_gen(session: ClientSession, cache: RowTypeCache, prepared: Prepared) -> Op:
    """Fill ``prepared.row_texts`` for its named ROW columns, asking the
    catalog for types the cache does not know; nothing once the statement's
    decoder exists (a prepared statement's types cannot change under it: a
    type in use cannot be dropped, -9990)."""
    if prepared.shape is not None or prepared.row_texts or not named_columns(prepared):
        return
    cache.check_epoch(session.database_changes)
    texts = {}
    for index, xid, name in named_columns(prepared):
        text = cache.get(xid, name)
        if text is None:
            text = yield from _load_gen(session, xid, name)
            cache.put(xid, name, text)
        texts[index] = text
    prepared.row_texts = texts


def _load_gen(session: ClientSession, xid: int, name: str) -> Op:
    if not name:
        raise NotSupportedError("a named ROW column described without its type's name")
    if not xid:
        found = yield from query_rows(session, _NAME_SQL.format(name=_quote(name)), _CURSOR,
                                      begin=True)
        if len(found) != 1:
            why = "not found" if not found else "owned by more than one user"
            raise NotSupportedError(f"named ROW type {name!r}: its definition is {why} in "
                                    "sysxtdtypes, so its fields cannot be read")
        xid = found[0][0]
    rows = yield from _attributes_gen(session, xid)
    return _type_text(rows, xid, name, 0)


def _attributes_gen(session: ClientSession, xid: int) -> Op:
    """sysattrtypes rows of the type and of every type it refers to, by id."""
    rows: dict[int, list[tuple]] = {}
    wanted = {xid}
    for _ in range(_MAX_DEPTH):
        if not wanted:
            return rows
        ids = ",".join(str(int(i)) for i in sorted(wanted))
        got = yield from query_rows(session, _ATTR_SQL.format(ids=ids), _CURSOR, begin=True)
        for row in got:
            rows.setdefault(row[0], []).append(tuple(row))
        wanted = {r[8] for r in got if r[1] != 1 and r[6] & 0xFF in COMPOSITE_CODES
                  and r[8] and r[8] not in rows} - set(rows)
    raise NotSupportedError(f"named ROW type {xid}: its type tree nests deeper than "
                            f"{_MAX_DEPTH} levels")


def _type_text(rows: dict[int, list[tuple]], xid: int, name: str, depth: int) -> str:
    """A type's text (``row(a integer,...)``) from its sysattrtypes rows."""
    own = rows.get(xid)
    if not own or depth > _MAX_DEPTH:
        raise NotSupportedError(f"named ROW type {name!r}: no sysattrtypes rows for extended "
                                f"id {xid}")
    by_seq = {r[1]: r for r in own}
    root = by_seq.get(1)
    if root is None:
        raise NotSupportedError(f"named ROW type {name!r}: sysattrtypes has no row for the "
                                "type itself (seqno 1)")
    return _node_text(rows, by_seq, root, name, depth)


def _node_text(rows: dict, by_seq: dict, node: tuple, name: str, depth: int) -> str:
    code = node[6] & 0xFF
    if code not in COMPOSITE_CODES:
        return _scalar_text(node, name)
    children = [r for r in by_seq.values() if r[3] == node[1] and r[1] != node[1]]
    if not children and node[1] != 1:
        # a ROW or collection field: its structure is the type it points at
        return _type_text(rows, node[8], name, depth + 1)
    children.sort(key=lambda r: r[1])
    parts = [_node_text(rows, by_seq, c, name, depth) + _not_null(c) for c in children]
    if code == TypeCode.ROW:
        if not children:
            raise NotSupportedError(f"named ROW type {name!r} has no fields in sysattrtypes")
        parts = [f"{(c[4] or '').strip()} {p}" for c, p in zip(children, parts)]
        return "row(" + ",".join(parts) + ")"
    if len(parts) != 1:
        raise NotSupportedError(f"named ROW type {name!r}: a collection with {len(parts)} "
                                "element types in sysattrtypes")
    return f"{_KIND_TEXT[TypeCode(code)]}({parts[0]})"


def _not_null(row: tuple) -> str:
    return " not null" if row[6] & NOT_NULL_FLAG else ""


def _scalar_text(row: tuple, name: str) -> str:
    """A scalar field's type text; opaque built-ins by their extended id."""
    code, length, xid = row[6] & 0xFF, row[7], row[8]
    if code in (TypeCode.UDTVAR, TypeCode.UDTFIXED):
        if xid == XID_LVARCHAR:
            return f"lvarchar({length})"
        if xid == XID_BOOLEAN:
            return "boolean"
        raise NotSupportedError(f"named ROW type {name!r}: field {row[4]!r} has the opaque "
                                f"type with extended id {xid}, not supported inside a ROW")
    try:
        return ColumnType(TypeCode(code), length).sql().lower()
    except ValueError:
        raise NotSupportedError(f"named ROW type {name!r}: field {row[4]!r} has type code "
                                f"{code}, not supported") from None


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
