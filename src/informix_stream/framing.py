"""Sans-I/O byte reading and writing for SQLI.

After login, SQLI has no length-prefixed frames: a request or reply is a
sequence of tagged messages ending in SQ_EOT, and only the layout of each
message says where it ends.  So both the driver and the emulator parse from a
growing buffer and need to know when the buffer simply has not got enough bytes
yet (``Incomplete``: read more and retry) as opposed to bytes that can never be
valid (``ProtocolError``: drop the connection).  Nothing here touches a socket.

All integers are big-endian.  Variable-length payloads are padded to an even
length, which is why ``padded`` exists.
"""

from __future__ import annotations

import struct

from .errors import ProtocolError

__all__ = ["Incomplete", "ProtocolError", "Reader", "Writer", "MAX_FIELD"]

SHORT = struct.Struct("!h")
USHORT = struct.Struct("!H")
INT = struct.Struct("!i")
BIGINT = struct.Struct("!q")
FLOAT = struct.Struct("!f")
DOUBLE = struct.Struct("!d")

# No single length-prefixed field we accept may exceed this: it stops a hostile
# or corrupt length from making us wait for (or allocate) gigabytes.
MAX_FIELD = 64 * 1024 * 1024


class Incomplete(Exception):
    """The buffer ends before the message does; read more bytes and retry."""


class Reader:
    """A cursor over a byte buffer that raises ``Incomplete`` at its end."""

    __slots__ = ("buf", "pos", "end", "limit")

    def __init__(self, buf: bytes | bytearray | memoryview, pos: int = 0,
                 end: int | None = None, limit: int = MAX_FIELD) -> None:
        self.buf = buf
        self.pos = pos
        self.end = len(buf) if end is None else end
        self.limit = limit          # the largest field accepted (a message cap)

    def _take(self, n: int) -> int:
        start = self.pos
        if start + n > self.end:
            raise Incomplete(n)
        self.pos = start + n
        return start

    def remaining(self) -> int:
        return self.end - self.pos

    def byte(self) -> int:
        return self.buf[self._take(1)]

    def short(self) -> int:
        return SHORT.unpack_from(self.buf, self._take(2))[0]

    def ushort(self) -> int:
        return USHORT.unpack_from(self.buf, self._take(2))[0]

    def int(self) -> int:
        return INT.unpack_from(self.buf, self._take(4))[0]

    def bigint(self) -> int:
        return BIGINT.unpack_from(self.buf, self._take(8))[0]

    def double(self) -> float:
        return DOUBLE.unpack_from(self.buf, self._take(8))[0]

    def real(self) -> float:
        return FLOAT.unpack_from(self.buf, self._take(4))[0]

    def raw(self, n: int) -> bytes:
        """Exactly ``n`` bytes; a negative or absurd ``n`` is a protocol error."""
        if n < 0 or n > self.limit:
            raise ProtocolError(f"invalid field length {n} (at most {self.limit})")
        start = self._take(n)
        with memoryview(self.buf) as view:   # one copy, not slice + bytes()
            return view[start:start + n].tobytes()

    def skip(self, n: int) -> None:
        if n < 0:
            raise ProtocolError(f"invalid skip {n}")
        self._take(n)

    def padded_skip(self, n: int) -> None:
        """Step over ``n`` bytes and their pad byte (``padded`` without the copy)."""
        if n < 0 or n > self.limit:
            raise ProtocolError(f"invalid field length {n} (at most {self.limit})")
        self._take(n + (n & 1))

    def padded(self, n: int) -> bytes:
        """``n`` bytes followed by one pad byte when ``n`` is odd."""
        data = self.raw(n)
        if n & 1:
            self._take(1)
        return data

    def short_string(self) -> bytes:
        """``[short len][bytes][pad to even]``: SQLI's usual string field."""
        return self.padded(self.short())

    def nul_string(self) -> bytes:
        """``[short len][bytes incl. trailing NUL]``, unpadded: login PDU strings."""
        n = self.short()
        if n <= 0:
            return b""
        data = self.raw(n)
        return data[:-1] if data.endswith(b"\x00") else data


class Writer:
    """Accumulates one PDU.  ``bytes(writer)`` or ``writer.getvalue()`` ends it."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts = bytearray()

    def byte(self, v: int) -> Writer:
        self.parts.append(v & 0xFF)
        return self

    def short(self, v: int) -> Writer:
        self.parts += SHORT.pack(v)
        return self

    def ushort(self, v: int) -> Writer:
        self.parts += USHORT.pack(v)
        return self

    def int(self, v: int) -> Writer:
        self.parts += INT.pack(v)
        return self

    def bigint(self, v: int) -> Writer:
        self.parts += BIGINT.pack(v)
        return self

    def double(self, v: float) -> Writer:
        self.parts += DOUBLE.pack(v)
        return self

    def raw(self, data: bytes | bytearray | memoryview) -> Writer:
        self.parts += data
        return self

    def padded(self, data: bytes | bytearray | memoryview) -> Writer:
        self.parts += data
        if len(data) & 1:
            self.parts.append(0)
        return self

    def short_string(self, data: bytes) -> Writer:
        """``[short len][bytes][pad to even]``."""
        return self.short(len(data)).padded(data)

    def nul_string(self, data: bytes | None) -> Writer:
        """``[short len+1][bytes][NUL]``; None writes a zero length."""
        if data is None:
            return self.short(0)
        return self.short(len(data) + 1).raw(data).byte(0)

    def getvalue(self) -> bytes:
        return bytes(self.parts)

    def __bytes__(self) -> bytes:
        return bytes(self.parts)

    def __len__(self) -> int:
        return len(self.parts)
