"""BYTE/TEXT storage: values live outside the table rows, as Informix keeps
them in a blobspace or the table's tblspace, and rows hold a reference.

* The contents are rows of ``_ifx_blobs`` (id AUTOINCREMENT: an id is never
  reused, so a stale descriptor can fail but never name another value).
* The table column holds ``id << 32 | size``; the SELECT result turns it
  into the 56-byte descriptor (codec.lob) the row carries on the wire, with
  the id in ``tb_addr``; SQ_FETCHBLOB reads the contents back by that id.
* Triggers keep the two in step: a new value (bytes bound by the client)
  is moved into ``_ifx_blobs``; a reference copied from another row (INSERT
  ... SELECT, SELECT ... INTO TEMP) gets its own copy of the contents; an
  UPDATE to a new value or NULL, or a DELETE, frees contents no other row of
  the table refers to.  (The trigger's own UPDATE, which puts the reference
  in place of the copied one, must not free: the copied reference belongs
  to the source row.)  An UPDATE that assigns another row's reference keeps
  it shared; if that row's contents are freed, a fetch is refused with -604
  -- ids are never reused, so it cannot read another value.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from ..codec import lob
from ..codecs import BlobParam, TypeCode
from ..framing import Writer
from ..messages import BlobBind, FetchBlob
from . import lob_serve
from .statements import ColumnDef, SqlError, sql_ident

BLOB_CODES = frozenset({TypeCode.BYTE, TypeCode.TEXT})
# Every type whose contents live in _ifx_blobs: BYTE/TEXT and BLOB/CLOB (slobs.py).
STORED_CODES = BLOB_CODES | {TypeCode.BLOB, TypeCode.CLOB}
SIDE_TABLE_DDL = ("CREATE TABLE IF NOT EXISTS _ifx_blobs "
                  "(id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL)")
# tb_tblspace of every descriptor the emulator hands out: "in this database".
TBLSPACE = 1
# -604 "Cannot read blob." -608 "Illegal attempt to convert Text/Byte blob
# type."  -609 "Illegal attempt to use Text/Byte host variable."  -611
# "Scroll cursor can't select blob columns."  (IBM JDBC 15.0.1.0 message
# catalog, sql_en_US.properties)
CANNOT_READ, CANNOT_CONVERT, BAD_HOST_VARIABLE, SCROLL_WITH_BLOBS = -604, -608, -609, -611


def refuse_bytes(value: object, target: str) -> None:
    """-608 for a BYTE/TEXT value (a parameter sent as BYTE or TEXT) meeting
    a column of another type: "Built-in casts are unavailable for converting
    large (BYTE, BLOB, CLOB, and TEXT) built-in types to other built-in data
    types" (HCL OneDB Guide to SQL: Reference, "Using Built-in Casts")."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise SqlError(CANNOT_CONVERT, 0, "",
                       f"cannot convert a BYTE/TEXT value of {len(value)} bytes to {target}")


def has_blobs(columns: Sequence[ColumnDef]) -> bool:
    return any(c.type.code in STORED_CODES for c in columns)


def triggers(table: str, columns: Sequence[ColumnDef]) -> list[str]:
    """The triggers that keep ``table``'s BYTE/TEXT columns in ``_ifx_blobs``."""
    out = []
    for col in columns:
        if col.type.code not in STORED_CODES:
            continue
        c, t = sql_ident(col.name), sql_ident(table)
        name = f"_ifx_lob_{table}_{col.name}"
        store = (f"INSERT INTO _ifx_blobs (data) SELECT CASE WHEN typeof(new.{c}) = 'integer'"
                 f" THEN (SELECT data FROM _ifx_blobs WHERE id = new.{c} >> 32)"
                 f" ELSE CAST(new.{c} AS BLOB) END;"
                 f" UPDATE {t} SET {c} = (last_insert_rowid() << 32)"
                 f" | (SELECT length(data) FROM _ifx_blobs WHERE id = last_insert_rowid())"
                 " WHERE rowid = new.rowid;")
        free = (f"DELETE FROM _ifx_blobs WHERE id = old.{c} >> 32"
                f" AND NOT EXISTS (SELECT 1 FROM {t} WHERE {c} = old.{c});")
        out += [
            f'CREATE TRIGGER {sql_ident(f"{name}_i")} AFTER INSERT ON {t} WHEN new.{c} IS NOT NULL'
            f" BEGIN {store} END",
            f'CREATE TRIGGER {sql_ident(f"{name}_u")} AFTER UPDATE OF {c} ON {t}'
            f" WHEN typeof(new.{c}) IN ('blob', 'text') BEGIN {store} END",
            f'CREATE TRIGGER {sql_ident(f"{name}_f")} AFTER UPDATE OF {c} ON {t}'
            f" WHEN typeof(old.{c}) = 'integer' AND typeof(new.{c}) != 'integer'"
            f" BEGIN {free} END",
            f'CREATE TRIGGER {sql_ident(f"{name}_d")} AFTER DELETE ON {t}'
            f" WHEN typeof(old.{c}) = 'integer' BEGIN {free} END",
        ]
    return out


def free_table(conn: sqlite3.Connection, table: str, columns: Sequence[ColumnDef]) -> None:
    """Before ``table`` is dropped: free the contents its rows refer to."""
    for col in columns:
        if col.type.code in STORED_CODES:
            c = sql_ident(col.name)
            conn.execute(f"DELETE FROM _ifx_blobs WHERE id IN (SELECT {c} >> 32"
                         f" FROM {sql_ident(table)} WHERE typeof({c}) = 'integer')")


def reader(_v: object = None) -> Callable[[object], bytes | None]:
    """Stored reference -> the row's descriptor (see the module docstring)."""
    def read(v: object) -> bytes | None:
        if v is None:
            return None
        if not isinstance(v, int):
            raise SqlError(CANNOT_READ, 0, "", "a BYTE/TEXT value is not stored as a blob")
        return lob.descriptor(v & 0xFFFFFFFF, tblspace=TBLSPACE, addr=v >> 32)
    return read


def writer(code: TypeCode, codec: str = "iso-8859-1") -> Callable[[object], object]:
    """Client value -> what the INSERT/UPDATE stores (the triggers take it on);
    ``codec``: the database's code set, which TEXT is kept in."""
    def write(v: object) -> object:
        if v is None or isinstance(v, bytes):
            return v
        if isinstance(v, BlobParam):
            raise SqlError(BAD_HOST_VARIABLE, 0, "",
                           "a BYTE/TEXT parameter arrived without its SQ_BBIND contents")
        if isinstance(v, str) and code == TypeCode.TEXT:
            # A character value assigned to TEXT: the server converts.
            try:
                return v.encode(codec)
            except UnicodeEncodeError:
                raise SqlError(-23103, 0, "", "code-set conversion failed") from None
        raise SqlError(CANNOT_CONVERT, 0, "",
                       f"cannot assign a {type(v).__name__} value to a {code.name} column")
    return write


def fill_params(params: list, contents: list[bytes]) -> None:
    """SQ_BBIND: put the contents in place of the BIND's BYTE/TEXT
    placeholders, in order.  The value is what the SQ_BLOB chunks carry, not
    the size the descriptor declared: IBM's JDBC declares a TEXT's size
    before converting it to the database code set (setString("café ...")
    declares 11 bytes and sends 10), and streams of unknown length declare
    -1."""
    slots = [i for i, p in enumerate(params) if isinstance(p, BlobParam)]
    if len(slots) != len(contents):
        raise SqlError(BAD_HOST_VARIABLE, 0, "",
                       f"SQ_BBIND carries {len(contents)} values for {len(slots)} "
                       "BYTE/TEXT parameters")
    for i, data in zip(slots, contents):
        # A value spooled to disk (emulator.spool) stays a SpooledValue: an
        # EXECUTE stores it a chunk at a time (lob_fill.py), other uses read it.
        params[i] = data


def read(conn: sqlite3.Connection, desc: bytes) -> bytes:
    """SQ_FETCHBLOB: the contents a descriptor refers to."""
    with open_value(conn, desc) as blob:
        return blob.read()


def open_value(conn: sqlite3.Connection, desc: bytes) -> sqlite3.Blob:
    """An incremental-I/O handle (read-only) on the contents a descriptor
    refers to, checked against the size it declares."""
    tblspace, blob_id = lob.address(desc)
    blob = None
    if tblspace == TBLSPACE and not lob.is_null(desc):
        try:
            blob = conn.blobopen("_ifx_blobs", "data", blob_id, readonly=True)
        except sqlite3.Error:           # no such row
            blob = None
    if blob is not None and len(blob) != lob.declared_size(desc):
        blob.close()
        blob = None
    if blob is None:
        raise SqlError(CANNOT_READ, 0, "", "the blob descriptor refers to no stored value")
    return blob


def write_chunks(w: Writer, data: bytes) -> None:
    """SQ_BLOB chunks then the zero-length one: the reply to SQ_FETCHBLOB
    (informix-driver ``_fetch_blob`` reads exactly this)."""
    lob.append_chunks(w.parts, data, lob.SERVE_CHUNK)


def check_scroll(columns: Sequence) -> None:
    """SQ_SCROLL on a statement selecting BYTE/TEXT: Informix refuses it."""
    if any(c.type.code in BLOB_CODES for c in columns):
        raise SqlError(SCROLL_WITH_BLOBS, message="a scroll cursor cannot select "
                                                  "BYTE/TEXT columns")


def _bind_contents(session, msg: BlobBind, _w: Writer) -> None:
    fill_params(session._need_current().params, msg.values)  # noqa: SLF001


def _fetch(session, msg: FetchBlob, w: Writer) -> None:
    """SQ_FETCHBLOB: a value over lob_serve.STREAM_AT goes out in pieces."""
    conn = session._need_db()._conn  # noqa: SLF001 - the database's SQLite connection
    blob = open_value(conn, msg.descriptor)
    if len(blob) > lob_serve.STREAM_AT:
        session.defer(w, lob_serve.blob_chunks(blob))
        return
    with blob:
        write_chunks(w, blob.read())


# The emulator session's handlers of the blob messages (emulator.session).
HANDLERS = {BlobBind: _bind_contents, FetchBlob: _fetch}
