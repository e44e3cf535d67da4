"""Smart large objects (BLOB, CLOB): the 72-byte locator and the row cell.

A BLOB/CLOB column does not carry its value in the row: the cell is the
object's locator (``ifx_lo_t``, 72 bytes: JDBC ``IfxLocator.IFX_LOCATOR_SIZE``)
in the UDT envelope ``[byte null flag][int length][bytes]`` (JDBC
``IfxBaseType.fromIfx``; informix-driver ``_read_udt_envelope``).  The value
is read and written through the large-object routines over the fast-path
messages (``fastpath.py``).

To a client the locator is opaque: JDBC copies it (``IfxLocator``) and hands
it back to ``ifx_lo_open``.  The emulator fills it as below; a real server's
fields differ, and nothing in this driver looks inside a locator it did not
make.  Emulator layout (big-endian ints, the rest zero)::

    0  int   magic 0x49584C4F ("IXLO")
    4  int   1: the emulator's one "sbspace" (this database)
    8  int   object id (never reused, so a stale locator fails, never reads
             another object)
    12 int   size in bytes when the locator was made (informational)
"""

from __future__ import annotations

import struct

from ..errors import ProtocolError
from .typeinfo import LOCATOR_SIZE, TypeCode

_HEAD = struct.Struct("!IIII")
MAGIC = 0x49584C4F
SBSPACE = 1
# Bytes one SQ_LODATA chunk carries (JDBC ``IfxSmBlob.R_W_BUFSIZE``).
LO_CHUNK = 32000
# ifx_lo_open modes (JDBC ``IfxSmartBlob``).
LO_WRONLY, LO_RDONLY, LO_RDWR = 2, 4, 8
# SQ_LODATA sub-commands (JDBC ``IfxSmBlob``: LO_READ, LO_READWITHSEEK, LO_WRITE).
LO_READ, LO_READWITHSEEK, LO_WRITE = 0, 1, 2


def locator(object_id: int, size: int = 0) -> bytes:
    """The emulator's locator of object ``object_id``."""
    return _HEAD.pack(MAGIC, SBSPACE, object_id, size & 0xFFFFFFFF).ljust(LOCATOR_SIZE, b"\x00")


def object_id(raw: bytes | bytearray | memoryview) -> int | None:
    """The object a locator names, or None for one the emulator did not make."""
    if len(raw) != LOCATOR_SIZE:
        return None
    magic, space, oid, _ = _HEAD.unpack_from(raw, 0)
    return oid if magic == MAGIC and space == SBSPACE else None


class Locator(bytes):
    """A smart-LOB locator as a value: a BLOB/CLOB parameter that names an
    object already on the server (``ifx_lo_create``), or a column cell still
    to be read.  ``text`` is True for CLOB."""

    text: bool = False

    def __new__(cls, raw: bytes, text: bool = False) -> "Locator":
        self = super().__new__(cls, raw)
        self.text = text
        return self

    def __repr__(self) -> str:
        return f"Locator({'CLOB' if self.text else 'BLOB'})"


def cell_encoder(ctype, _encoding: str):
    """Row cell of a BLOB/CLOB: the locator in the UDT envelope."""
    def encode(v: object) -> bytes:
        if v is None:
            return b"\x01\x00\x00\x00\x00"
        data = bytes(v)
        return b"\x00" + len(data).to_bytes(4, "big") + data
    return encode


def cell_locator(raw: bytes | bytearray | memoryview, text: bool) -> Locator:
    """A non-NULL cell's envelope body as a Locator, from either form a
    server sends (docs/protocol.md 8a): the 72 raw bytes (the binary form,
    to a client whose SQ_RET_TYPE asked it, as JDBC's does) or the text
    form, 144 hex characters (to a client that sent none, as ours).  The
    lengths tell them apart; any other body is a ProtocolError, never a
    locator naming the wrong object."""
    n = len(raw)
    if n == LOCATOR_SIZE:
        return Locator(bytes(raw), text)
    if n == 2 * LOCATOR_SIZE:
        try:
            return Locator(bytes.fromhex(bytes(raw).decode("ascii")), text)
        except (UnicodeDecodeError, ValueError):
            pass
    raise ProtocolError(f"{'CLOB' if text else 'BLOB'} cell of {n} bytes is neither a "
                        f"{LOCATOR_SIZE}-byte locator nor its hex text")


def cell_value(raw: bytes | bytearray | memoryview | None, code: TypeCode) -> Locator | None:
    """The envelope's bytes as a Locator (None for NULL)."""
    if raw is None:
        return None
    return cell_locator(raw, code == TypeCode.CLOB)
