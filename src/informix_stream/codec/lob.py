"""Simple large objects (BYTE, TEXT): the 56-byte blob descriptor and the
SQ_BLOB chunk messages, shared by the driver and the emulator.

A BYTE/TEXT column's cell in a row image, and a BYTE/TEXT parameter's
value in SQ_BIND, is a 56-byte descriptor (Informix's ``tblob_t``, blob.h of
the Client SDK); the contents travel apart from it: SQ_BBIND + SQ_BLOB
chunks after an SQ_BIND, SQ_FETCHBLOB answered by SQ_BLOB chunks.  Layout
(big-endian, offsets in bytes), as JDBC's ``IfxBlob.fromIfx``/``toIfx``
read and write it:

    0 short tb_fd      2 short tb_coloff   4 int tb_tblspace
    8 int tb_start    12 int tb_end       16 int tb_size
   20 int tb_addr     24 int tb_family    28 int tb_volume
   32 short tb_medium 34 short tb_bstamp  36 short tb_sockid
   38 short tb_flags (0x0001 BLOBISNULL, 0x0008 stored in the tblspace)
   40..55 reserved

JDBC sizes its buffer as ``tb_end - tb_start + 1``; informix-driver tests
byte 39 for NULL.  Details and sources: docs/protocol.md section 8.
"""

from __future__ import annotations

import codecs
import struct
from collections.abc import Iterator

from .typeinfo import TypeCode

DESCRIPTOR_SIZE = 56
BLOB_IS_NULL = 0x0001          # blob.h BLOBISNULL
BLOB_IN_TABLE = 0x0008         # blob.h BL_PNBLOB: stored in the tblspace
UNKNOWN_SIZE = -1              # a streamed parameter whose length is not known
# Chunk sizes.  An SQ_BLOB chunk's length is a signed short (at most 32767;
# JDBC's receiveBlob allocates it as given, so the emulator serves
# SQ_FETCHBLOB in 32000-byte chunks).  Writing, both reference clients send
# 1024-byte SQ_BLOB chunks (JDBC IfxSqli.sendStreamBlob; informix-driver
# cursors._emit_blob_stream, "JDBC's sendStreamBlob hardcodes this"), and
# that is all a real server is known to accept in an SQ_BBIND, so we send
# that size too: larger chunks (32000, what JDBC uses for smart-LOB data)
# doubled the write rate against the emulator but are unconfirmed on a
# server (docs/protocol.md section 8).
SEND_CHUNK = 1024
SERVE_CHUNK = 32000
TAG_BLOB = 39

_INT = struct.Struct("!i")
_CHUNK_HEAD = struct.Struct("!hh")
_FIELDS = struct.Struct("!hhiiiiiiihhhh16x")
NULL_DESCRIPTOR = _FIELDS.pack(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, BLOB_IS_NULL)


def descriptor(size: int, *, tblspace: int = 0, addr: int = 0) -> bytes:
    """A descriptor of a value of ``size`` bytes (start 1, end ``size``, as
    JDBC's ``IfxBlob.setBlobLength`` sets them); ``tblspace``/``addr`` say
    where a server keeps it."""
    return _FIELDS.pack(0, 0, tblspace, 1, size, size, addr, 0, 0, 0, 0, 0,
                        BLOB_IN_TABLE if tblspace or addr else 0)


def is_null(desc: bytes | bytearray | memoryview) -> bool:
    return bool(desc[39] & BLOB_IS_NULL)


def declared_size(desc: bytes | bytearray | memoryview) -> int:
    return _INT.unpack_from(desc, 16)[0]


def address(desc: bytes | bytearray | memoryview) -> tuple[int, int]:
    """(tb_tblspace, tb_addr): where the server said the value lives."""
    return _INT.unpack_from(desc, 4)[0], _INT.unpack_from(desc, 20)[0]


class LobRef:
    """A BYTE/TEXT cell as the row brought it: the server's descriptor,
    still to be dereferenced with SQ_FETCHBLOB while its cursor is open."""

    __slots__ = ("descriptor", "text")

    def __init__(self, desc: bytes, text: bool) -> None:
        self.descriptor = desc
        self.text = text

    @property
    def size(self) -> int:
        return declared_size(self.descriptor)

    def __repr__(self) -> str:
        return f"LobRef({'TEXT' if self.text else 'BYTE'}, {self.size} bytes)"


def cell_decoder(code: TypeCode):
    """Row decoding of a BYTE/TEXT cell (56 raw bytes): None or a LobRef."""
    text = code == TypeCode.TEXT

    def decode(raw: bytes) -> LobRef | None:
        return None if raw[39] & BLOB_IS_NULL else LobRef(bytes(raw), text)
    return decode


def cell_encoder(_ctype, _encoding: str):
    """Row encoding of a BYTE/TEXT cell: the server's descriptor as given."""
    def encode(value: object) -> bytes:
        if value is None:
            return NULL_DESCRIPTOR
        if not isinstance(value, (bytes, bytearray)) or len(value) != DESCRIPTOR_SIZE:
            raise ValueError("a BYTE/TEXT cell must be a 56-byte blob descriptor")
        return bytes(value)
    return encode


def chunk_messages(data: bytes | bytearray | memoryview, chunk: int) -> Iterator[bytes]:
    """``data`` as SQ_BLOB messages ``[short 39][short n][n bytes][pad]``,
    without the zero-length terminator."""
    view = memoryview(data)
    head = _CHUNK_HEAD.pack
    for at in range(0, len(view), chunk):
        part = view[at:at + chunk]
        n = len(part)
        yield head(TAG_BLOB, n) + part.tobytes() + (b"\x00" if n & 1 else b"")


BLOB_END = _CHUNK_HEAD.pack(TAG_BLOB, 0)


def append_chunks(out: bytearray, data: bytes | bytearray | memoryview, chunk: int) -> None:
    """``chunk_messages(data, chunk)`` and the terminator appended to ``out``
    with one copy of ``data`` (the emulator's SQ_FETCHBLOB reply)."""
    view = memoryview(data)
    head = _CHUNK_HEAD.pack
    for at in range(0, len(view), chunk):
        part = view[at:at + chunk]
        out += head(TAG_BLOB, len(part))
        out += part
        if len(part) & 1:
            out.append(0)
    out += BLOB_END


# --------------------------------------------------------------------------
# Parameters (driver side): a BYTE/TEXT value is bound as a descriptor in
# SQ_BIND; its contents follow in SQ_BBIND (JDBC IfxSqli.sendBind/sendBlob).
# --------------------------------------------------------------------------

# What is read from a file-like at a time and encoded per item of
# ``lob_messages``: a whole number of SQ_BLOB chunks.
_READ_SIZE = 128 * SEND_CHUNK


class Text:
    """Bind ``value`` as TEXT: a ``str``, bytes in the session's code set, a
    file-like object (``read``) or an iterator of chunks (``str`` or bytes).
    Without it, bytes-like values, file-like objects and iterators bind as
    BYTE and a ``str`` binds as CHAR (at most 32767 bytes; the server
    converts it when the column is TEXT)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Text({type(self.value).__name__})"


class LobBlock(bytes):
    """The SQ_BIND block of a BYTE/TEXT parameter (a descriptor stating the
    size, or -1 when a stream's is not known), with where its contents come
    from: ``data`` (in memory) or ``pieces`` (an iterator, read once)."""

    data: bytes | memoryview | None
    pieces: Iterator | None
    encoding: str | None        # a TEXT stream's str pieces are encoded with it
    used = False                # a stream's pieces were handed out

    @property
    def streamed(self) -> bool:
        return self.data is None


def _block(code: TypeCode, size: int) -> LobBlock:
    return LobBlock(struct.pack("!hhh", code, 0, 0) + descriptor(size))


def lob_block(value: object, encoding: str) -> LobBlock | None:
    """The block of a LOB parameter, or None when ``value`` is no LOB.
    Raises TypeError/UnicodeEncodeError for a Text() of something unusable."""
    text = isinstance(value, Text)
    v = value.value if text else value
    code = TypeCode.TEXT if text else TypeCode.BYTE
    data: bytes | memoryview | None = None
    pieces = None
    if isinstance(v, str):
        if not text:
            return None         # CHAR: the server converts it for a TEXT column
        data = v.encode(encoding)
    elif isinstance(v, (bytes, bytearray, memoryview)):
        data = memoryview(v).cast("B") if isinstance(v, memoryview) else v
    elif callable(getattr(v, "read", None)):
        pieces = _read_pieces(v)
    elif isinstance(v, Iterator):
        pieces = v
    elif text:
        raise TypeError(f"Text() takes str, bytes, a file-like object or an iterator, "
                        f"not {type(v).__name__}")
    else:
        return None
    block = _block(code, UNKNOWN_SIZE if data is None else len(data))
    block.data, block.pieces, block.encoding = data, pieces, encoding
    return block


def _read_pieces(source) -> Iterator:
    while piece := source.read(_READ_SIZE):
        yield piece


def lob_messages(block: LobBlock) -> Iterator[bytes]:
    """One value's SQ_BLOB chunks and terminator, at most ``_READ_SIZE``
    (and its chunk headers) per item whatever size the caller's pieces
    are, so only the piece in hand and one item are held beside the send
    buffer (a 1 MiB piece is not copied whole once more)."""
    if block.data is not None:
        yield from _items(block.data)
    else:
        encoder = None
        for piece in block.pieces:
            if isinstance(piece, str):
                if encoder is None:
                    encoder = codecs.getincrementalencoder(block.encoding)()
                piece = encoder.encode(piece)
            elif not isinstance(piece, (bytes, bytearray, memoryview)):
                raise TypeError(f"a LOB stream gave a {type(piece).__name__}, not bytes")
            yield from _items(piece)
    yield BLOB_END


def _items(data: bytes | bytearray | memoryview) -> Iterator[bytes]:
    view = memoryview(data).cast("B")
    for at in range(0, len(view), _READ_SIZE):
        yield b"".join(chunk_messages(view[at:at + _READ_SIZE], SEND_CHUNK))


def bbind_header(count: int) -> bytes:
    """SQ_BBIND ``[short 41][short count]`` (count = non-NULL LOB parameters)."""
    return struct.pack("!hh", 41, count)
