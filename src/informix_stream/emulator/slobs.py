"""BLOB/CLOB (smart large objects): storage, the LO routines, fast path.

Storage is BYTE/TEXT's (blobs.py): an object's bytes are a row of
``_ifx_blobs`` and the table cell holds ``id << 32 | size``; the same
triggers copy a value a row takes, and free it with the row.  What differs
is what a client sees: the row carries the object's 72-byte locator
(codec/slob.py), and the bytes move through the large-object routines
called over the fast-path messages (fastpath.py), as a real server serves
them to IBM's JDBC (``IfxSmartBlob``: ``ifx_lo_create``, ``ifx_lo_open``,
``ifx_lo_close``, ``ifx_lo_stat``, SQ_LODATA reads and writes).

Writing: a bytes value (or, for CLOB, a str) bound or written as a literal
becomes a new object, as the server creates one for a client that sent the
value itself.  A locator bound as the value (``ifx_lo_create``, then writes,
then INSERT with the locator, which is what JDBC's ``setBlob`` does) gives
the row its own copy; the objects a session created are dropped when it
ends (a real server drops an object no row refers to, refcount 0, at the end
of the transaction).

What the emulator lacks (each refused with "not supported by the
emulator"): writing into an object a row already holds, LO_READWITHSEEK,
``ifx_lo_lock``, file copies (``ifx_lo_to_file``, ``lotofile``).
"""

from __future__ import annotations

import sqlite3
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from ..codec import slob
from ..codecs import TypeCode
from ..fastpath import LODATA, ExFpRoutine, GetRoutine, LoData, RoutineValue
from ..fastpath import write_handle, write_lo_read, write_lo_written, write_values
from ..framing import Writer
from . import lob_serve
from .spool import SpooledValue
from .statements import NOT_SUPPORTED, SqlError

SLOB_CODES = frozenset({TypeCode.BLOB, TypeCode.CLOB})
# -674 "Routine (%s) can not be resolved."  -9810 "Smart-large-object error."
# -9634 "No cast from %s."  (IBM JDBC 15.0.1.0 message catalog, sql_en_US.properties)
NO_ROUTINE, SLOB_ERROR, NO_CAST = -674, -9810, -9634
# ifx_lo_stat's result is 644 bytes; JDBC reads the size as the int8 at offset 4
# (IfxSmartBlob.IfxLoSize: readInt, then readLong), in ifx_int8's layout:
# [int low word][int high word][short sign: 1, -1, 0 = NULL] (*JDBC
# ``IfxUDTInput.readLong``); a plain 8-byte long read there as NULL, size 0.
_STAT_SIZE = 644
_FIRST_HANDLE = 1001
_COPY_PIECE = 1024 * 1024


def reader(_v: object = None) -> Callable[[object], bytes | None]:
    """Stored reference -> the locator the row carries."""
    def read(v: object) -> bytes | None:
        if v is None:
            return None
        if not isinstance(v, int):
            raise SqlError(SLOB_ERROR, 0, "", "a BLOB/CLOB value is not stored as an object")
        return slob.locator(v >> 32, v & 0xFFFFFFFF)
    return read


def writer(code: TypeCode, codec: str = "iso-8859-1") -> Callable[[object], object]:
    """Client value -> what INSERT/UPDATE stores (blobs.py's triggers take it)."""
    def write(v: object) -> object:
        if v is None:
            return None
        if isinstance(v, slob.Locator):
            oid = slob.object_id(v)
            if oid is None:
                raise SqlError(SLOB_ERROR, 0, "", "the locator names no smart large object")
            return oid << 32           # the trigger copies object ``oid`` for the row
        if isinstance(v, (bytes, bytearray, memoryview)):
            return bytes(v)
        if isinstance(v, str):
            # a quoted literal (or a character parameter): the server casts
            # it, in the database's code set, to a new object of either kind
            try:
                return v.encode(codec)
            except UnicodeEncodeError:
                raise SqlError(-23103, 0, "", "code-set conversion failed") from None
        raise SqlError(NO_CAST, 0, "", f"no cast from {type(v).__name__} to {code.name}")
    return write


@dataclass
class _Open:
    """An open object: ifx_lo_open's or ifx_lo_create's descriptor."""
    oid: int
    writable: bool
    pos: int = 0
    pending: list = field(default_factory=list)   # bytes written, kept until close


@dataclass
class _Kept:
    """The blob handle of the last SQ_LODATA read, kept for the next one.

    A fresh handle's seek walks the object's chain of overflow pages from
    its start, so a stream of 1 MiB reads cost O(size) each (a 200 MB BLOB
    streamed at a quarter of the rate of a 50 MB one); a kept handle has
    SQLite's overflow-page cache, so a read costs what it reads.  The handle
    pins its connection's read snapshot, so it is kept only between requests
    made of SQ_LODATA reads alone (``before_request`` closes it first thing
    in any other), and ``probe`` (a connection of its own to the database
    file) tells whether another session committed since it was opened: then
    the next read opens a fresh handle and sees exactly what it saw before
    handles were kept."""
    lo: _Open                   # the descriptor it serves
    blob: sqlite3.Blob
    probe: sqlite3.Connection
    version: int

    def current(self, lo: _Open) -> bool:
        """Is this handle the one a read of ``lo`` may use?"""
        return lo is self.lo and _data_version(self.probe) == self.version

    def close(self) -> None:
        try:
            self.blob.close()
        finally:
            self.probe.close()


@dataclass
class LoState:
    """One session's fast-path state: routine handles, open objects, the
    objects it created (dropped when it ends), the kept read handle."""
    handles: dict = field(default_factory=dict)     # handle -> routine name
    fds: dict = field(default_factory=dict)         # fd -> _Open
    created: set = field(default_factory=set)
    next_fd: int = 0
    kept: _Kept | None = None
    keep: bool = False          # may this request's reads keep their handle?


def _state(session) -> LoState:
    state = getattr(session, "lo_state", None)
    if state is None:
        state = session.lo_state = LoState()
    return state


def _conn(session):
    return session._need_db()._conn  # noqa: SLF001 - the database's SQLite connection


def _routine_name(signature: bytes) -> str:
    """``function informix.ifx_lo_open(blob ,integer)`` -> ``ifx_lo_open``."""
    text = signature.decode("iso-8859-1").strip().lower()
    for kind in ("function ", "procedure "):
        if text.startswith(kind):
            text = text[len(kind):]
    name = text.split("(", 1)[0].strip()
    return name.rsplit(".", 1)[-1]


def _get_routine(session, msg: GetRoutine, w: Writer) -> None:
    name = _routine_name(msg.signature)
    if name not in _ROUTINES:
        raise SqlError(NO_ROUTINE, 0, name,
                       f"routine {name} is not supported by the emulator")
    session._need_db()  # noqa: SLF001 - a routine lives in a database
    state = _state(session)
    handle = _FIRST_HANDLE + sorted(_ROUTINES).index(name)
    state.handles[handle] = name
    write_handle(w, b"", handle)


def _ex_fp_routine(session, msg: ExFpRoutine, w: Writer) -> None:
    name = _state(session).handles.get(msg.handle)
    if name is None:
        raise SqlError(NO_ROUTINE, 0, str(msg.handle), "no routine has this handle")
    write_values(w, _ROUTINES[name](session, msg.params))


def _fd(session, params: list, k: int = 0) -> _Open:
    fd = params[k] if len(params) > k else None
    lo = _state(session).fds.get(fd) if isinstance(fd, int) else None
    if lo is None:
        raise SqlError(SLOB_ERROR, 0, "",
                       f"{fd!r} is not an open smart large object")
    return lo


def _size(session, oid: int) -> int:
    row = _conn(session).execute("SELECT length(data) FROM _ifx_blobs WHERE id = ?",
                                 (oid,)).fetchone()
    if row is None:
        raise SqlError(SLOB_ERROR, 0, "", "the locator names no smart large object")
    return row[0]


def _new_fd(session, oid: int, writable: bool) -> int:
    state = _state(session)
    state.next_fd += 1
    state.fds[state.next_fd] = _Open(oid, writable)
    return state.next_fd


def _lo_open(session, params: list) -> list[RoutineValue]:
    loc = params[0] if params else None
    oid = slob.object_id(loc) if isinstance(loc, bytes) else None
    if oid is None:
        raise SqlError(SLOB_ERROR, 0, "", "ifx_lo_open needs a smart-LOB locator")
    _size(session, oid)
    mode = params[1] if len(params) > 1 and isinstance(params[1], int) else slob.LO_RDONLY
    writable = bool(mode & (slob.LO_WRONLY | slob.LO_RDWR | 1))
    if writable and oid not in _state(session).created:
        raise SqlError(NOT_SUPPORTED, 0, "", "writing into a stored smart large object "
                                             "is not supported by the emulator")
    return [RoutineValue("int", _new_fd(session, oid, writable))]


def _lo_create(session, _params: list) -> list[RoutineValue]:
    cur = _conn(session).execute("INSERT INTO _ifx_blobs (data) VALUES (x'')")
    oid = cur.lastrowid
    _state(session).created.add(oid)
    return [RoutineValue("udt", slob.locator(oid), "blob"),
            RoutineValue("int", _new_fd(session, oid, True))]


def _flush(session, lo: _Open) -> None:
    """Append the pending writes to the stored object.  The object is
    grown once (``zeroblob``) and filled by SQLite's incremental blob I/O a
    piece at a time, so a write spooled to disk (emulator.spool) reaches the
    database without being held whole."""
    if not lo.pending:
        return
    conn = _conn(session)
    added = sum(len(p) for p in lo.pending)
    row = conn.execute("SELECT length(data) FROM _ifx_blobs WHERE id = ?", (lo.oid,)).fetchone()
    if row is None:
        raise SqlError(SLOB_ERROR, 0, "", "the locator names no smart large object")
    if lo.pos - added != row[0]:
        raise SqlError(NOT_SUPPORTED, 0, "", "writing anywhere but at the end of a "
                                             "smart large object is not supported by the emulator")
    kept = _kept(conn, lo.oid, row[0])
    try:
        # zeroblob alone is written without being materialized; ``data ||
        # zeroblob(n)`` would build the whole new value in memory.
        conn.execute("UPDATE _ifx_blobs SET data = zeroblob(?) WHERE id = ?",
                     (row[0] + added, lo.oid))
        with conn.blobopen("_ifx_blobs", "data", lo.oid) as blob:
            for part in ([kept] if kept is not None else []) + lo.pending:
                for piece in (part.chunks() if isinstance(part, SpooledValue) else (part,)):
                    blob.write(piece)
    finally:
        if kept is not None:
            kept.close()
    lo.pending.clear()


def _kept(conn: sqlite3.Connection, oid: int, size: int) -> SpooledValue | None:
    """The object's ``size`` bytes so far, copied a piece at a time to a
    spool file (None for an empty object): growing it rewrites it whole."""
    if not size:
        return None
    kept = SpooledValue()
    try:
        with conn.blobopen("_ifx_blobs", "data", oid, readonly=True) as blob:
            while piece := blob.read(_COPY_PIECE):
                kept.write(piece)
    except BaseException:
        kept.close()
        raise
    return kept


def _lo_close(session, params: list) -> list[RoutineValue]:
    lo = _fd(session, params)
    _flush(session, lo)
    del _state(session).fds[params[0]]
    return [RoutineValue("int", 0)]


def _lo_release(_session, _params: list) -> list[RoutineValue]:
    return [RoutineValue("int", 0)]


def _lo_stat(session, params: list) -> list[RoutineValue]:
    lo = _fd(session, params)
    _flush(session, lo)
    stat = bytearray(_STAT_SIZE)
    size = _size(session, lo.oid)
    struct.pack_into("!iIIh", stat, 0, 0, size & 0xFFFFFFFF, size >> 32, 1)
    return [RoutineValue("udt", bytes(stat), "ifx_lo_stat")]


def _lo_tell(session, params: list) -> list[RoutineValue]:
    return [RoutineValue("int8", _fd(session, params).pos)]


def _lo_seek(session, params: list) -> list[RoutineValue]:
    lo = _fd(session, params)
    _flush(session, lo)
    offset = params[1] if len(params) > 1 and isinstance(params[1], int) else 0
    whence = params[2] if len(params) > 2 and isinstance(params[2], int) else 0
    base = {0: 0, 1: lo.pos, 2: _size(session, lo.oid)}.get(whence)
    if base is None or base + offset < 0:
        raise SqlError(SLOB_ERROR, 0, "", f"ifx_lo_seek to {offset} from {whence}")
    lo.pos = base + offset
    return [RoutineValue("int8", lo.pos)]


_ROUTINES: dict[str, Callable[..., list[RoutineValue]]] = {
    "ifx_lo_open": _lo_open, "ifx_lo_create": _lo_create, "ifx_lo_close": _lo_close,
    "ifx_lo_release": _lo_release, "ifx_lo_stat": _lo_stat, "ifx_lo_tell": _lo_tell,
    "ifx_lo_seek": _lo_seek,
}


def _lo_data(session, msg: LoData, w: Writer) -> None:
    lo = _fd(session, [msg.fd])
    if msg.subcommand == slob.LO_WRITE:
        if not lo.writable:
            raise SqlError(SLOB_ERROR, 0, "", "the smart large object is open read-only")
        lo.pending.append(msg.data)
        lo.pos += len(msg.data)
        if isinstance(msg.data, SpooledValue):
            try:                    # the spool file is the request's: gone after it
                _flush(session, lo)
            except BaseException:
                lo.pending.clear()
                lo.pos -= len(msg.data)
                raise
        write_lo_written(w, len(msg.data))
        return
    if msg.subcommand != slob.LO_READ:
        raise SqlError(NOT_SUPPORTED, 0, "", "SQ_LODATA read with seek is not supported "
                                             "by the emulator")
    _flush(session, lo)
    data = _read(session, lo, max(msg.length, 0))
    if isinstance(data, lob_serve.Pieces):
        w.short(LODATA).short(0).int(data.size)       # write_lo_read's header
        session.defer(w, data)
    else:
        write_lo_read(w, data, slob.LO_CHUNK)


def _read(session, lo: _Open, n: int) -> bytes | lob_serve.Pieces:
    """Up to ``n`` bytes at the object's position, by SQLite's incremental
    blob I/O (a 200 MB object is never loaded whole; over
    lob_serve.STREAM_AT they are pieces read as they are sent).  The size is the
    open blob handle's, not a ``length(data)`` query: that one cost a 200 MB
    object's stream ten times the reading itself."""
    state = _state(session)
    blob = _read_handle(session, state, lo)
    kept = state.kept is not None and state.kept.blob is blob
    try:
        n = max(0, min(n, len(blob) - lo.pos))
        if n > lob_serve.STREAM_AT:
            pieces = lob_serve.lo_chunks(blob, lo.pos, n)   # closes the handle when sent
            if kept:
                state.kept.probe.close()
                state.kept = None
            kept = True             # ``pieces`` owns it now
            lo.pos += n
            return pieces
        data = b""
        if n:
            blob.seek(lo.pos)
            data = blob.read(n)
    except BaseException:
        if kept and state.kept is not None:
            _drop_kept(state)       # a handle that failed is not used again
        raise
    finally:
        if not kept:
            blob.close()
    lo.pos += len(data)
    return data


def _read_handle(session, state: LoState, lo: _Open) -> sqlite3.Blob:
    """The kept handle if it still serves ``lo`` (see _Kept), else a fresh
    one, kept in turn if this request may keep it."""
    if state.kept is not None:
        if state.kept.current(lo):
            return state.kept.blob
        _drop_kept(state)
    conn = _conn(session)
    probe = _open_probe(session) if state.keep else None
    version = _data_version(probe) if probe is not None else 0
    try:
        blob = conn.blobopen("_ifx_blobs", "data", lo.oid, readonly=True)
    except sqlite3.Error:               # no such row
        if probe is not None:
            probe.close()
        raise SqlError(SLOB_ERROR, 0, "", "the locator names no smart large object") from None
    if probe is not None:
        state.kept = _Kept(lo, blob, probe, version)
    return blob


def _open_probe(session) -> sqlite3.Connection | None:
    """A connection of its own to the session's database file, that only
    reads ``PRAGMA data_version`` (None if the database has no file)."""
    path = getattr(getattr(session._need_db(), "_db", None), "path", None)  # noqa: SLF001
    if not path or str(path).startswith(":memory:") or str(path).startswith("file::memory:"):
        return None
    try:
        return sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error:
        return None


def _data_version(probe: sqlite3.Connection) -> int:
    """Changes whenever a connection other than ``probe`` commits to the
    database (SQLite's PRAGMA data_version), a kept handle's included: but
    while one is kept, its session runs nothing else."""
    return probe.execute("PRAGMA data_version").fetchone()[0]


def _drop_kept(state: LoState) -> None:
    kept, state.kept = state.kept, None
    if kept is not None:
        kept.close()


def before_request(session, messages: list) -> None:
    """The one rule of kept read handles, run first thing in every request
    (emulator.session): a request made only of SQ_LODATA reads may use and
    keep one; any other request closes it before anything of it runs, so
    no SQLite statement of the session stays open across a statement, a
    commit or rollback, a write to the object, lo_close, lo_seek, or the
    session's end (it would pin a read snapshot, lock its table against
    DROP/ALTER, and be expired by writes)."""
    state = getattr(session, "lo_state", None)
    if state is None:
        return
    state.keep = all(type(m) is LoData and m.subcommand == slob.LO_READ for m in messages)
    if not state.keep:
        _drop_kept(state)


def end_session(session) -> None:
    """The client went away: drop the objects it created (rows hold copies)."""
    state = getattr(session, "lo_state", None)
    if state is not None:
        try:
            _drop_kept(state)
        except sqlite3.Error:  # the database may already be closed
            pass
    if state is None or not state.created or session.db is None:
        return
    try:
        conn = _conn(session)
        conn.executemany("DELETE FROM _ifx_blobs WHERE id = ?", [(o,) for o in state.created])
    except Exception:  # noqa: BLE001 - the database may already be closed
        pass
    state.created.clear()


# The emulator session's handlers of the fast-path messages (emulator.session).
HANDLERS = {GetRoutine: _get_routine, ExFpRoutine: _ex_fp_routine, LoData: _lo_data}
