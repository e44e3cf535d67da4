"""SQLI messages after login: tags, request parsing and reply encoding.

A request is a run of tagged messages ended by SQ_EOT; the peer answers only
after the SQ_EOT ("flip" in IBM's terms).  Because nothing carries a total
length, the only way to find the end of a request is to parse every message in
it, which is why *all* request layouts live here even when the emulator merely
skips them after an error.

Layouts were confirmed against IBM's JDBC driver (``IfxSqli`` send*/receive*
methods) and informix-driver's PDU builders; docs/protocol.md has the tables.
The choices that depend on negotiated capabilities are fixed to what a real
14.10 server negotiates with both clients: 4-byte SQL text lengths, 4-byte
error offsets, 2-byte tuple size in DESCRIBE, 4-byte row counts in SQ_DONE.

This module is longer than 600 lines because every request layout must be
parsed in one place (see above); the insert cursor's SQ_PUT/SQ_PUTERR took it
past the limit.
"""

from __future__ import annotations

import struct
from enum import IntEnum
from typing import NamedTuple

from . import fastpath
from .errors import DataError, ProtocolError
from .framing import MAX_FIELD, Incomplete, Reader, Writer
from .lobsinks import ValueSink


class Tag(IntEnum):
    """Message tags (16-bit) shared by requests and replies."""

    COMMAND = 1
    PREPARE = 2
    CURNAME = 3
    ID = 4
    BIND = 5
    OPEN = 6
    EXECUTE = 7
    DESCRIBE = 8
    NFETCH = 9
    CLOSE = 10
    RELEASE = 11
    EOT = 12
    ERR = 13
    TUPLE = 14
    DONE = 15
    PUT = 17
    PUTERR = 18
    CMMTWORK = 19
    RBWORK = 20
    NDESCRIBE = 22
    SFETCH = 23
    SCROLL = 24
    TUPID = 25
    BEGIN = 35
    DBOPEN = 36
    DBCLOSE = 37
    FETCHBLOB = 38
    BLOB = 39
    BBIND = 41
    HOLD = 43
    WANTDONE = 49
    VERSION = 53
    COST = 55
    EXIT = 56
    INFO = 81
    REOPTOPEN = 87
    INSERTDONE = 94
    LODATA = 97
    XACTSTAT = 99
    RET_TYPE = 100
    GETROUTINE = 101
    EXFPROUTINE = 102
    FPROUTINE = 103
    AUTOFREE = 108
    CIDESCRIBE = 124
    IDESCRIBE = 125
    PROTOCOLS = 126


class StmtType(IntEnum):
    """Statement type codes reported in SQ_DESCRIBE (Informix's sqlstype)."""

    DATABASE = 1
    SELECT = 2
    SELECT_INTO = 3          # SELECT ... INTO TEMP (SQ_SELINTO, Informix's sqlstype.h)
    UPDATE = 4
    DELETE = 5
    INSERT = 6
    CREATE_DATABASE = 12
    CREATE_TABLE = 14
    DROP_TABLE = 15
    CREATE_INDEX = 16
    DROP_INDEX = 17
    ALTER = 29
    CLOSE_DATABASE = 31
    DELETE_ALL = 32
    UPDATE_ALL = 33
    BEGIN_WORK = 34
    COMMIT = 35
    ROLLBACK = 36
    SET_ISOLATION = 48
    SET_LOCK_MODE = 50
    EXECUTE_PROCEDURE = 56


# --------------------------------------------------------------------------
# Requests (client -> server).  Each parsed message is a small named tuple;
# messages without a body are represented by their bare Tag.
# --------------------------------------------------------------------------

class Command(NamedTuple):
    """SQ_COMMAND / SQ_PREPARE: SQL text plus the client's count of '?'."""
    tag: Tag
    nqmarks: int
    sql: bytes


class CurName(NamedTuple):
    name: bytes


class StmtId(NamedTuple):
    id: int


class Bind(NamedTuple):
    values: list


class Put(NamedTuple):
    """SQ_PUT ``[int tuple size][short rows][rows, each padded to even]``:
    rows for the open insert cursor, in the row format of SQ_TUPLE (JDBC
    ``IfxSqli.sendPut``)."""
    size: int
    rows: list  # each row image (bytes), without its pad


class NFetch(NamedTuple):
    bufsize: int
    array_size: int


class SFetch(NamedTuple):
    scrolltype: int
    target: int
    bufsize: int


class DbOpen(NamedTuple):
    name: bytes
    flags: int


class Rollback(NamedTuple):
    savepoint: int


class Info(NamedTuple):
    sections: list  # [(subtype, body bytes)]


class Protocols(NamedTuple):
    mask: bytes


class FetchBlob(NamedTuple):
    """SQ_FETCHBLOB: the 56-byte descriptor of the value wanted."""
    descriptor: bytes


class BlobBind(NamedTuple):
    """SQ_BBIND: the contents of the BYTE/TEXT parameters of the SQ_BIND
    before it, NULLs skipped, in parameter order."""
    values: list


class RetType(NamedTuple):
    direction: int
    types: list  # [(type code, encoded length)]


_BARE = frozenset({
    Tag.OPEN, Tag.EXECUTE, Tag.CLOSE, Tag.RELEASE, Tag.CMMTWORK,
    Tag.NDESCRIBE, Tag.SCROLL, Tag.BEGIN, Tag.DBCLOSE, Tag.HOLD,
    Tag.WANTDONE, Tag.VERSION, Tag.EXIT, Tag.REOPTOPEN, Tag.AUTOFREE,
    Tag.DESCRIBE, Tag.CIDESCRIBE,
})


def read_sql(r: Reader) -> bytes:
    """SQL text: ``[int len][bytes][pad to even]`` (64K limit removed)."""
    return r.padded(r.int())


_EOT, _EXIT = int(Tag.EOT), int(Tag.EXIT)     # plain ints: no enum lookup per message


def parse_request(buf: bytes | bytearray | memoryview, pos: int, read_param) -> tuple[list, int]:
    """Parse one request (up to and including SQ_EOT, or a bare SQ_EXIT).

    Returns the messages (without the EOT) and the offset after the EOT.
    Raises ``Incomplete`` when the buffer ends first and ``ProtocolError`` on
    an unknown tag.  ``read_param(reader)`` decodes one SQ_BIND value; it is
    passed in so that this module does not depend on the type codecs.
    Messages without a body are returned as their ``Tag``.
    """
    r = Reader(buf, pos)
    out: list = []
    parsers = _PARSERS
    short = r.short
    while True:
        raw = short()
        if raw == _EOT:
            return out, r.pos
        parse = parsers.get(raw)
        if parse is None:
            raise ProtocolError(f"unknown or unsupported request message tag {raw}")
        out.append(parse(r, read_param))
        if raw == _EXIT:
            # A disconnect is a bare SQ_EXIT with no SQ_EOT after it.
            return out, r.pos


def parse_message(buf: bytes | bytearray | memoryview, pos: int, read_param) -> tuple[object, int]:
    """One message of a request at ``pos``: ``(message, end)``, the message
    ``Tag.EOT`` at the request's end.  For a request received in pieces
    (emulator.spool); ``parse_request`` is the whole-request fast path."""
    r = Reader(buf, pos)
    raw = r.short()
    if raw == _EOT:
        return Tag.EOT, r.pos
    parse = _PARSERS.get(raw)
    if parse is None:
        raise ProtocolError(f"unknown or unsupported request message tag {raw}")
    return parse(r, read_param), r.pos


def _parse_command(tag: Tag):
    def parse(r: Reader, _read_param) -> Command:
        nq = r.short()
        return Command(tag, nq, read_sql(r))
    return parse


def _parse_bind(r: Reader, read_param) -> Bind:
    n = r.short()
    if n < 0:
        raise ProtocolError(f"negative parameter count {n}")
    return Bind([read_param(r) for _ in range(n)])


_PARSERS = {int(t): (lambda r, _rp, t=t: t) for t in _BARE}
_PARSERS.update({
    Tag.COMMAND: _parse_command(Tag.COMMAND),
    Tag.PREPARE: _parse_command(Tag.PREPARE),
    Tag.ID: lambda r, _rp: StmtId(r.short()),
    Tag.CURNAME: lambda r, _rp: CurName(r.short_string()),
    Tag.BIND: _parse_bind,
    Tag.NFETCH: lambda r, _rp: NFetch(r.int(), r.short()),
    Tag.SFETCH: lambda r, _rp: SFetch(r.short(), r.int(), r.int()),
    Tag.DBOPEN: lambda r, _rp: DbOpen(r.short_string(), r.short()),
    Tag.RBWORK: lambda r, _rp: Rollback(r.short()),
    Tag.INFO: lambda r, _rp: Info(_parse_info(r)),
    Tag.PROTOCOLS: lambda r, _rp: Protocols(r.short_string()),
    Tag.RET_TYPE: lambda r, _rp: _parse_ret_type(r),
    Tag.FETCHBLOB: lambda r, _rp: FetchBlob(r.raw(56)),
    Tag.BBIND: lambda r, _rp: _parse_blob_bind(r),
    Tag.PUT: lambda r, _rp: _parse_put(r),
    Tag.GETROUTINE: lambda r, _rp: fastpath.parse_get_routine(r),
    Tag.EXFPROUTINE: fastpath.parse_ex_fp_routine,
    Tag.LODATA: lambda r, _rp: fastpath.parse_lo_data(r),
})


def _parse_put(r: Reader) -> Put:
    size, count = r.int(), r.short()
    if size < 0 or count < 0:
        raise ProtocolError(f"SQ_PUT of {count} rows of {size} bytes")
    return Put(size, [r.padded(size) for _ in range(count)])


def _parse_blob_bind(r: Reader) -> BlobBind:
    """SQ_BBIND ``[short count]``, then per value SQ_BLOB chunks
    ``[short 39][short n][n bytes][pad]`` ending with ``[short 39][short 0]``
    (JDBC ``IfxSqli.sendBlob``/``sendStreamBlob``)."""
    count = r.short()
    if count < 0:
        raise ProtocolError(f"negative blob count {count}")
    # Chunks are located first and copied once all have arrived: a request
    # still arriving (the emulator parses it again as it grows) costs no
    # copies, and each value is one join (a growing bytearray then bytes()
    # held a 200 MB value three times over).
    spans: list[list[tuple[int, int]]] = []
    for _ in range(count):
        value: list[tuple[int, int]] = []
        while True:
            tag, n = r.short(), r.short()
            if tag != Tag.BLOB or n < 0:
                raise ProtocolError(f"SQ_BBIND carries message {tag} (length {n}), "
                                    "not an SQ_BLOB chunk")
            if n == 0:
                break
            value.append((r.pos, n))
            r.padded_skip(n)
        spans.append(value)
    with memoryview(r.buf) as view:
        return BlobBind([b"".join([view[at:at + n] for at, n in value]) for value in spans])


def _parse_info(r: Reader) -> list:
    """SQ_INFO: sections ``[short subtype][short len][padded body]`` until 0."""
    sections = []
    while True:
        sub = r.short()
        if sub == 0:
            return sections
        sections.append((sub, r.padded(r.short())))


def _parse_ret_type(r: Reader) -> RetType:
    """SQ_RET_TYPE: the client's wanted output types for variable columns."""
    direction = r.short()
    count = r.short()
    types = []
    for _ in range(count):
        code = r.short()
        if code == 43 or code in (44, 45, 46, 47):
            r.short_string()  # extended owner
            r.short_string()  # extended name
        types.append((code, r.int()))
    return RetType(direction, types)


# --------------------------------------------------------------------------
# Replies (server -> client).
# --------------------------------------------------------------------------

class DescribeColumn(NamedTuple):
    name: bytes
    wire_type: int      # type code with NOT NULL flag
    encoded_length: int
    start: int          # byte offset of the column in the row image
    extended_id: int = 0
    extended_name: bytes = b""


def write_describe(w: Writer, stmt_type: int, stmt_id: int, cost: int,
                   tuple_size: int, columns: list[DescribeColumn]) -> None:
    """SQ_DESCRIBE with one block per column and the name string table."""
    names = b"".join(c.name + b"\x00" for c in columns)
    w.short(Tag.DESCRIBE).short(stmt_type).short(stmt_id).int(cost)
    w.short(min(tuple_size, 0x7FFF)).short(len(columns)).int(len(names))
    offset = 0
    for c in columns:
        w.int(offset).int(c.start).short(c.wire_type).int(c.extended_id)
        w.short_string(b"").short_string(c.extended_name)  # owner, type name
        w.short(0).short(0)          # reference, alignment
        w.int(0).int(c.encoded_length)
        offset += len(c.name) + 1
    w.padded(names)


def write_input_describe(w: Writer, params: list[tuple[int, int, int, bytes]]) -> None:
    """SQ_IDESCRIBE: the statement's parameter types, for JDBC's CIDESCRIBE.

    Per parameter ``(wire type, extended id, encoded length, extended name)``.
    JDBC resets its parameter count from this reply, so it must be exact.
    The named-parameter flag short is present because the negotiated mask
    has named parameters on.
    """
    w.short(Tag.IDESCRIBE).short(len(params))
    if params:
        w.short(0)
    for wire_type, ext_id, length, ext_name in params:
        w.short(wire_type).int(ext_id).short_string(b"").short_string(ext_name)
        w.short(0).short(0).int(0).int(length)


def write_done(w: Writer, rows: int, rowid: int = 0, serial: int = 0,
               warnings: int = 0) -> None:
    w.short(Tag.DONE).short(warnings).int(rows).int(rowid).int(serial)


def write_puterr(w: Writer, inserted: int, sqlcode: int, isam: int, near: bytes) -> None:
    """SQ_PUTERR: the rows of the failed PUT that were inserted before the
    failing one, then SQ_ERR's body without its tag (JDBC receivePutErr)."""
    w.short(Tag.PUTERR).int(inserted).short(sqlcode).short(isam).int(0).short_string(near)


def write_cost(w: Writer, est_rows: int, est_cost: int) -> None:
    w.short(Tag.COST).int(est_rows).int(est_cost)


def write_insertdone(w: Writer, serial8: int, bigserial: int) -> None:
    """SQ_INSERTDONE: serial8 as Informix's 10-byte int8, then an 8-byte bigint.

    The int8 form is ``[short sign][uint low word][uint high word]``; sign 0
    would mean NULL, so zero is sent with sign 1.
    """
    sign = -1 if serial8 < 0 else 1
    mag = abs(serial8)
    w.short(Tag.INSERTDONE).short(sign)
    w.raw((mag & 0xFFFFFFFF).to_bytes(4, "big")).raw((mag >> 32).to_bytes(4, "big"))
    w.bigint(bigserial)


def write_xactstat(w: Writer, event: int, new_level: int, old_level: int) -> None:
    w.short(Tag.XACTSTAT).short(event).short(new_level).short(old_level)


def write_error(w: Writer, sqlcode: int, isam: int, offset: int, near: bytes) -> None:
    w.short(Tag.ERR).short(sqlcode).short(isam).int(offset).short_string(near)


def write_protocols(w: Writer, mask: bytes) -> None:
    w.short(Tag.PROTOCOLS).short_string(mask)


def write_tuple_header(w: Writer, size: int) -> None:
    w.short(Tag.TUPLE).short(0).int(size)


# --------------------------------------------------------------------------
# Reply parsing (the client side).  ``parse_reply`` consumes whole messages
# from a buffer and records them in a ``Reply``; it stops at the first
# incomplete message so the caller can receive more bytes and resume there
# without re-reading what was already consumed.
# --------------------------------------------------------------------------

class DescribedColumn(NamedTuple):
    name: str
    wire_type: int
    extended_id: int
    extended_name: str
    encoded_length: int
    start: int


class Describe(NamedTuple):
    stmt_type: int
    stmt_id: int
    tuple_size: int
    columns: list


class ServerError(NamedTuple):
    sqlcode: int
    isam: int
    offset: int
    message: str
    sqlstate: str = ""      # -937: the routine's own SQLSTATE; message is its text


class Reply:
    """Everything one reply said, up to its SQ_EOT."""

    __slots__ = ("rows", "describe", "rowcount", "serial", "warnings", "error",
                 "serial8", "bigserial", "tupid", "protocols", "closed",
                 "version", "exited", "done", "decode_error", "encoding", "blob",
                 "blob_limit", "blob_ended", "done_rows", "put_inserted", "routine",
                 "lo_wanted", "lo_sink", "lo_left", "xactstat", "notices")

    def __init__(self, rows: list | None = None, encoding: str = "iso-8859-1") -> None:
        self.rows = [] if rows is None else rows
        self.encoding = encoding     # the session's code set (names, messages)
        self.describe: Describe | None = None
        self.done = False            # an SQ_DONE arrived
        self.rowcount = -1
        self.serial = 0
        self.warnings = 0            # the warning flags of all its SQ_DONEs, or-ed
        self.error: ServerError | None = None
        self.serial8 = 0
        self.bigserial = 0
        self.tupid: int | None = None
        self.protocols: bytes | None = None
        self.closed = False          # the server closed the cursor itself
        self.version: str | None = None
        self.exited = False
        self.decode_error: Exception | None = None
        self.blob: bytearray | None = None   # SQ_FETCHBLOB's reply collects here
        self.blob_limit = 0                  # the size its descriptor declared
        self.blob_ended = False              # the zero-length SQ_BLOB arrived
        self.done_rows = 0                   # the row counts of all its SQ_DONEs
        self.put_inserted: int | None = None  # SQ_PUTERR: rows in before the error
        # fast path (fastpath.py): SQ_GETROUTINE's (database, handle), SQ_FPROUTINE's
        # values or SQ_LODATA's LoReply; lo_wanted: the bytes an SQ_LODATA read asked
        self.routine: object = None
        self.lo_wanted = 0
        self.lo_sink = None     # where an SQ_LODATA read's bytes go (lobsinks)
        self.lo_left = 0                        # bytes of that read still to come
        self.xactstat: tuple[int, int, int] | None = None  # SQ_XACTSTAT (event, new, old)
        # warnings an SQ_ERR carried: (SQLSTATE, text) of sqlcode 0 and 100
        self.notices: list[tuple[str, str]] | None = None


# [tag][sqlwarn flags][size] of an SQ_TUPLE.  The size is read unsigned: a
# negative size then fails the same single comparison with max_size as an
# oversized one.
_TUPLE_HEAD = struct.Struct("!hhI")
_DONE = struct.Struct("!hiii")
_SHORT = struct.Struct("!h")


def parse_reply(buf, pos: int, reply: Reply, decode_row=None,
                max_size: int = MAX_FIELD) -> tuple[int, bool]:
    """Consume reply messages from ``buf[pos:]``; returns (new pos, saw EOT).

    ``decode_row(buf, offset)`` turns one row image into ``(row, end)``;
    tuples are the hot path, so they are cut out with one ``unpack_from``
    each and never go through the generic message dispatch.  A tuple whose
    size is negative or over ``max_size``, or whose columns do not end
    exactly where its size says, is a ProtocolError: a decoder that reads a
    byte too few or too many would shift every later column silently.

    A ``decode_row`` with a ``bulk(buf, pos, end, reply, max_size)``
    method (the Arrow fetch hook, arrow/bulk.py; a tuple decoder's block
    hook, codec/rowblock.py, or run hook, codec/rowdecode.py) takes a run
    of tuples at once: it consumes the complete tuples this loop would accept, puts
    them in ``reply.rows`` (keeping ``len(reply.rows)`` the row count) and
    returns the offset after them; the tuple it stops at comes here, so
    framing errors and short buffers are handled by this one code path.
    """
    end = len(buf)
    if reply.lo_left:
        pos = _lo_chunks(buf, pos, end, reply)
        if reply.lo_left:
            return pos, False
    rows_append = reply.rows.append
    head = _TUPLE_HEAD.unpack_from
    bulk = getattr(decode_row, "bulk", None)
    while pos + 2 <= end:
        tag = _SHORT.unpack_from(buf, pos)[0]
        if tag == 14:                            # SQ_TUPLE
            if reply.done:
                # rows come before their fetch's SQ_DONE; rows after it would be
                # taken as the last ones, and the rest of the result lost
                raise ProtocolError("row data after SQ_DONE in one reply")
            if bulk is not None:
                after = bulk(buf, pos, end, reply, max_size)
                if after != pos:
                    pos = after
                    rows_append = reply.rows.append
                    continue
            if pos + 8 > end:
                return pos, False
            if decode_row is None:
                raise ProtocolError("row data arrived for a statement without columns")
            # A run of tuples: one unpack per row reads its tag, its flags
            # and its size; the run ends at another message or at a tuple
            # whose head is not all here (the outer loop sorts out which).
            while pos + 8 <= end:
                tag, warn, size = head(buf, pos)
                if tag != 14:
                    break
                if warn:                         # a FETCH's sqlwarn flags
                    reply.warnings |= warn & 0xFFFF
                if size > max_size:
                    raise ProtocolError(f"SQ_TUPLE declares {size - (size >> 31 << 32)} bytes")
                stop = pos + 8 + size
                if stop + (size & 1) > end:
                    return pos, False
                try:
                    row, at = decode_row(buf, pos + 8, stop)
                except DataError as exc:
                    # The tuple frames correctly but holds no value of its
                    # column's type: skip it, finish the reply, and let the
                    # caller raise (the connection stays aligned and usable).
                    if reply.decode_error is None:
                        reply.decode_error = exc
                    pos = stop + (size & 1)
                    if bulk is not None:
                        break                    # the bulk hook takes the next run
                    continue
                if at != stop:
                    raise ProtocolError(f"row image of {size} bytes decoded as "
                                        f"{at - pos - 8}: the described columns do not "
                                        "match the row")
                rows_append(row)
                pos = stop + (size & 1)
                if bulk is not None:
                    break                        # the bulk hook takes the next run
            continue
        if tag == 15:                            # SQ_DONE: every DML reply has one
            if pos + 16 > end:
                return pos, False
            warn, reply.rowcount, _, reply.serial = _DONE.unpack_from(buf, pos + 2)
            reply.warnings |= warn & 0xFFFF      # sqlca.sqlwarn bits (sqlwarn.py)
            reply.done_rows += reply.rowcount
            reply.done = True
            pos += 16
            continue
        if tag == 39 and reply.blob is not None:  # SQ_BLOB: a chunk of SQ_FETCHBLOB's value
            after = _blob_chunk(buf, pos, end, reply)
            if after == pos:
                return pos, False
            pos = after
            continue
        if tag == 55:                            # SQ_COST: nothing we use
            if pos + 10 > end:
                return pos, False
            pos += 10
            continue
        r = Reader(buf, pos + 2, end, max_size)
        try:
            finished = _parse_reply_message(tag, r, reply)
        except Incomplete:
            return pos, False
        pos = r.pos
        if finished:
            return pos, True
        if reply.lo_left:                        # an SQ_LODATA read's chunks follow
            pos = _lo_chunks(buf, pos, end, reply)
            if reply.lo_left:
                return pos, False
    return pos, False


def _parse_reply_message(tag: int, r: Reader, reply: Reply) -> bool:
    if tag == Tag.EOT:
        return True
    if tag == Tag.ERR or tag == Tag.PUTERR:
        if tag == Tag.PUTERR:
            reply.put_inserted = r.int()
        _read_error(r, reply)
    elif tag == Tag.DESCRIBE:
        reply.describe = _parse_describe(r, reply.encoding)
    elif tag == Tag.XACTSTAT:
        reply.xactstat = (r.short(), r.short(), r.short())
    elif tag == Tag.INSERTDONE:
        reply.serial8 = _read_int8(r)
        reply.bigserial = r.bigint()
    elif tag == Tag.BLOB:
        _read_blob_chunk(r, reply)
    elif tag == Tag.TUPID:
        reply.tupid = r.int()
    elif tag == Tag.PROTOCOLS:
        reply.protocols = r.short_string()
    elif tag == Tag.CLOSE:
        reply.closed = True
    elif tag == Tag.VERSION:
        reply.version = r.short_string().decode("iso-8859-1")
    elif tag == Tag.EXIT:
        reply.exited = True
        return True
    elif tag == Tag.GETROUTINE:
        reply.routine = fastpath.parse_handle(r)
    elif tag == Tag.FPROUTINE:
        reply.routine = fastpath.parse_values(r, reply.encoding)
    elif tag == Tag.LODATA:
        lo = reply.routine = fastpath.parse_lo_head(r, reply.lo_wanted)
        lo.out = ValueSink() if reply.lo_sink is None else reply.lo_sink
        reply.lo_left = lo.chunked
    else:
        raise ProtocolError(f"unexpected reply message {reply_tag_name(tag)}: the driver "
                            "cannot read past it, so the connection is closed")
    return False


def _copy_into(sink, buf, start: int, stop: int) -> None:
    """``sink += buf[start:stop]`` through a view, released at once: the
    receive buffer can be resized again only when no view of it is alive."""
    view = memoryview(buf)[start:stop]
    try:
        sink += view
    finally:
        view.release()


def _check_blob_chunk(reply: Reply, n: int) -> None:
    if n < 0 or reply.blob_ended:
        raise ProtocolError(f"an SQ_BLOB chunk of {n} bytes after the value ended"
                            if reply.blob_ended else f"an SQ_BLOB chunk of {n} bytes")
    if len(reply.blob) + n > reply.blob_limit:
        raise ProtocolError(f"the server sent more than the {reply.blob_limit} bytes "
                            "the blob descriptor declared")


def _blob_chunk(buf, pos: int, end: int, reply: Reply) -> int:
    """The SQ_BLOB chunk at ``pos`` into ``reply.blob`` with one copy (the hot
    path of a large BYTE/TEXT read); ``pos`` itself while it is incomplete."""
    if pos + 4 > end:
        return pos
    n = _SHORT.unpack_from(buf, pos + 2)[0]
    _check_blob_chunk(reply, n)
    if n == 0:
        reply.blob_ended = True
        return pos + 4
    stop = pos + 4 + n
    if stop + (n & 1) > end:
        return pos
    _copy_into(reply.blob, buf, pos + 4, stop)
    return stop + (n & 1)


def _lo_chunks(buf, pos: int, end: int, reply: Reply) -> int:
    """The complete chunks ``[short n][n bytes][pad]`` of the SQ_LODATA read
    in progress, from ``pos``, into its sink; each is consumed as it
    arrives, so a 1 MiB read is never held whole in the receive buffer."""
    lo = reply.routine
    while reply.lo_left > 0 and pos + 2 <= end:
        n = _SHORT.unpack_from(buf, pos)[0]
        if n <= 0 or n > reply.lo_left:
            raise ProtocolError(f"SQ_LODATA chunk of {n} bytes in a {lo.size}-byte read")
        stop = pos + 2 + n
        if stop + (n & 1) > end:
            break
        _copy_into(lo.out, buf, pos + 2, stop)
        reply.lo_left -= n
        pos = stop + (n & 1)
    return pos


# Reply messages IBM's JDBC driver reads (IfxSqli.dispatchMsg) that our
# driver never asks for; named in the error when one arrives anyway.
_OTHER_REPLY_NAMES = {26: "SQ_DBLIST", 81: "SQ_INFO", 86: "SQ_REASSOC", 97: "SQ_LODATA",
                      98: "SQ_FILE", 101: "SQ_GETROUTINE", 103: "SQ_FPROUTINE",
                      104: "SQ_FPARAM", 125: "SQ_IDESCRIBE", 132: "SQ_IFPDESCRIBE",
                      135: "SQ_SGKDESCRIBE", 136: "SQ_SGKTUPLE"}


def reply_tag_name(tag: int) -> str:
    """``SQ_DBLIST (26)``; ``tag 4660`` for a code no client knows."""
    name = _OTHER_REPLY_NAMES.get(tag)
    if name is None and tag in Tag._value2member_map_:
        name = f"SQ_{Tag(tag).name}"
    return f"{name} ({tag})" if name else f"tag {tag}"


# SQ_ERR codes laid out or meant otherwise (JDBC IfxSqli.receiveError): -368
# has no sqlerrm; 0 (a routine's warning) and -937 (a routine's error) add
# [5-byte SQLSTATE, padded][char message]; 100 is NOT FOUND, a warning.
_NO_SQLERRM, _ROUTINE_ERROR, _NOT_FOUND = -368, -937, 100


def _read_error(r: Reader, reply: Reply) -> None:
    sqlcode, isam, offset = r.short(), r.short(), r.int()
    # a message is diagnostics: a byte the code set lacks must not hide it
    text = "" if sqlcode == _NO_SQLERRM else r.short_string().decode(reply.encoding, "replace")
    if sqlcode == 0 or sqlcode == _ROUTINE_ERROR:
        sqlstate = r.padded(5).decode("ascii", "replace")
        message = r.short_string().decode(reply.encoding, "replace")
        if sqlcode == 0:
            _notice(reply, sqlstate, message or text)
        else:
            reply.error = ServerError(sqlcode, isam, offset, message or text, sqlstate)
    elif sqlcode == _NOT_FOUND:
        _notice(reply, "02000", "no row was found (sqlcode 100)")
        if not reply.done:
            reply.rowcount = 0
    else:
        reply.error = ServerError(sqlcode, isam, offset, text)


def _notice(reply: Reply, sqlstate: str, text: str) -> None:
    if reply.notices is None:
        reply.notices = []
    reply.notices.append((sqlstate, text))


def _read_blob_chunk(r: Reader, reply: Reply) -> None:
    """One SQ_BLOB chunk ``[short n][n bytes][pad]`` of an SQ_FETCHBLOB
    reply; n = 0 ends the value.  A chunk where no blob was asked for, or
    more bytes than the descriptor declared, means the stream is not what
    we think it is."""
    n = r.short()
    if reply.blob is None:
        raise ProtocolError("an SQ_BLOB arrived in a reply that fetched no blob")
    _check_blob_chunk(reply, n)
    if n == 0:
        reply.blob_ended = True
        return
    reply.blob += r.padded(n)


def _read_int8(r: Reader) -> int:
    sign = r.short()
    low, high = r.int() & 0xFFFFFFFF, r.int() & 0xFFFFFFFF
    return (-1 if sign < 0 else 1) * ((high << 32) | low)


def _parse_describe(r: Reader, encoding: str = "iso-8859-1") -> Describe:
    stmt_type, stmt_id = r.short(), r.short()
    r.int()                                      # estimated cost
    tuple_size, nfields, strtab_len = r.short(), r.short(), r.int()
    raw = []
    for _ in range(max(nfields, 0)):
        name_at, start, wire_type, ext_id = r.int(), r.int(), r.short(), r.int()
        r.short_string()                         # extended type owner
        ext_name = r.short_string().decode("iso-8859-1")
        r.skip(4)                                # reference, alignment
        r.int()                                  # source type
        raw.append((name_at, wire_type, ext_id, ext_name, r.int(), start))
    names = r.padded(strtab_len) if strtab_len > 0 else b""
    cols = [DescribedColumn(_name_at(names, at, encoding), wt, xid, xname, length, start)
            for at, wt, xid, xname, length, start in raw]
    return Describe(stmt_type, stmt_id, tuple_size, cols)


def _name_at(table: bytes, offset: int, encoding: str) -> str:
    """A NUL-terminated name inside DESCRIBE's string table (identifiers are
    in the database's code set)."""
    stop = table.find(b"\x00", offset)
    raw = table[offset:stop if stop >= 0 else len(table)]
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError:
        raise ProtocolError(f"column name {raw[:40]!r} is not {encoding} text") from None
