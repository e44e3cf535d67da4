"""Fast-path routine calls and smart-LOB data: the wire layouts, both ways.

Informix calls a server routine without SQL through three messages (JDBC
``IfxSqli.getHandle``/``sendFastPath``/``receiveHandle``/``receiveFastPath``;
informix-driver ``_fastpath.py``, verified on 12.10 and 15.0 servers):

* SQ_GETROUTINE (101) ``[byte by_id=0][int len][signature][pad][short
  fparam=0]`` asks for a routine's handle by signature; the reply is
  ``[short 101][short len][database][pad][int handle]``.
* SQ_EXFPROUTINE (102) ``[short len][database][pad][int handle][short
  nparams][short fparam=0]`` then, with parameters, an SQ_BIND block
  ``[short 5][short n][parameter blocks]``; the reply is SQ_FPROUTINE (103)
  ``[short n]`` and per value ``[short type]`` (for a type code >= 18 other
  than 52/53: ``[short-string owner][short-string name]``) ``[short
  indicator][short precision]`` and, unless NULL, the value: INTEGER 4
  bytes, SMALLINT 2, INT8 10, CHAR ``[short n][bytes][pad]``, an opaque type
  ``[int n][bytes][pad]``.
* SQ_LODATA (97) moves an open smart LOB's bytes (JDBC ``sendLoData``,
  ``receiveLODATA``): ``[short subcommand][short fd][int length][short
  buffer size]``; LO_WRITE (2) is followed by ``[short n][bytes][pad]`` chunks
  adding up to ``length``.  The reply is ``[short 97][short subcommand][int
  size]``: for a write the bytes written; for a read the bytes that follow,
  as chunks ``[short n][bytes][pad]`` (a read at the end: size 0 and one
  short).

Every request ends with SQ_EOT like any other (JDBC ``receiveMessage`` sends
it).  This module only lays out bytes; ``messages`` parses with it.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from .errors import ProtocolError
from .framing import Reader, Writer

GETROUTINE, EXFPROUTINE, FPROUTINE, LODATA, BIND = 101, 102, 103, 97, 5
_INT8 = struct.Struct("!hII")   # INT8 on the wire: sign, low word, high word


class GetRoutine(NamedTuple):
    signature: bytes


class ExFpRoutine(NamedTuple):
    database: bytes
    handle: int
    params: list


class LoData(NamedTuple):
    subcommand: int
    fd: int
    length: int
    data: bytes          # LO_WRITE's bytes; empty otherwise
    offset: int = 0      # LO_READWITHSEEK


class RoutineValue(NamedTuple):
    """One value of SQ_FPROUTINE: ``kind`` is "int", "int8", "short", "char"
    or "udt"; ``name`` the extended type name of a "udt"."""
    kind: str
    value: object
    name: str = ""


# -- client -> server --------------------------------------------------------

def get_routine(signature: bytes) -> bytes:
    w = Writer().short(GETROUTINE)
    w.raw(b"\x00").int(len(signature)).padded(signature)
    return w.short(0).getvalue()


def ex_fp_routine(database: bytes, handle: int, param_blocks: list[bytes]) -> bytes:
    w = Writer().short(EXFPROUTINE).short_string(database)
    w.int(handle).short(len(param_blocks)).short(0)
    if param_blocks:
        w.short(BIND).short(len(param_blocks))
        for block in param_blocks:
            w.raw(block)
    return w.getvalue()


def lo_read(fd: int, length: int) -> bytes:
    return Writer().short(LODATA).short(0).short(fd).int(length).short(32000).getvalue()


def lo_write_head(fd: int, length: int) -> bytes:
    """SQ_LODATA LO_WRITE up to its chunks (``lo_write_chunk`` each)."""
    return Writer().short(LODATA).short(2).short(fd).int(length).short(32000).getvalue()


def lo_write_chunk(data: bytes | memoryview) -> bytes:
    return Writer().short(len(data)).padded(data).getvalue()


def udt_param(name: bytes, data: bytes, code: int = 41) -> bytes:
    """A parameter block of an opaque type (a locator, an ifx_lo_spec):
    ``[short code][short-string owner][short-string name][short 0][short
    length][int n][bytes][pad]`` (JDBC ``sendBind`` with ``IfxBaseType.toIfx``)."""
    w = Writer().short(code).short_string(b"informix").short_string(name)
    return w.short(0).short(len(data)).int(len(data)).padded(data).getvalue()


def locator_param(locator) -> bytes:
    """A smart-LOB locator (``codec.slob.Locator``) as the opaque ``blob``
    or ``clob`` parameter, in SQ_BIND and fast-path calls alike."""
    return udt_param(b"clob" if locator.text else b"blob", bytes(locator))


# -- server side: parsing requests ---------------------------------------------

def parse_get_routine(r: Reader) -> GetRoutine:
    by_id = r.raw(1)[0]
    signature = r.padded(r.int())
    if by_id:
        r.int()   # the handle of a by-id lookup; the signature names it too
    r.short()     # fparam flag
    return GetRoutine(signature)


def parse_ex_fp_routine(r: Reader, read_param) -> ExFpRoutine:
    database = r.short_string()
    handle, count, _fparam = r.int(), r.short(), r.short()
    params: list = []
    if count > 0:
        tag, n = r.short(), r.short()
        if tag != BIND or n != count:
            raise ProtocolError(f"SQ_EXFPROUTINE of {count} parameters followed by "
                                f"message {tag} of {n}")
        params = [read_param(r) for _ in range(n)]
    elif count < 0:
        raise ProtocolError(f"SQ_EXFPROUTINE with {count} parameters")
    return ExFpRoutine(database, handle, params)


def parse_lo_data(r: Reader) -> LoData:
    sub, fd, length, _bufsize = r.short(), r.short(), r.int(), r.short()
    offset = 0
    if sub == 1:
        sign, low, high = r.short(), r.int() & 0xFFFFFFFF, r.int() & 0xFFFFFFFF
        offset = (-1 if sign < 0 else 1) * ((high << 32) | low)
        r.short()  # whence
    data = b""
    if sub == 2:
        if length < 0:
            raise ProtocolError(f"SQ_LODATA write of {length} bytes")
        parts, left = [], length
        while left > 0:
            n = r.short()
            if n <= 0 or n > left:
                raise ProtocolError(f"SQ_LODATA chunk of {n} bytes with {left} to come")
            parts.append(r.padded(n))
            left -= n
        data = b"".join(parts)
    return LoData(sub, fd, length, data, offset)


# -- server side: replies ----------------------------------------------------------

def write_handle(w: Writer, database: bytes, handle: int) -> None:
    w.short(GETROUTINE).short_string(database).int(handle)


def write_values(w: Writer, values: list[RoutineValue]) -> None:
    w.short(FPROUTINE).short(len(values))
    for v in values:
        if v.kind == "int":
            w.short(2).short(0 if v.value is not None else -1).short(0)
            if v.value is not None:
                w.int(v.value)
        elif v.kind == "int8":
            x = int(v.value)
            mag = abs(x)
            w.short(17).short(0).short(0)
            w.raw(_INT8.pack(0 if x == 0 else (1 if x > 0 else -1), mag & 0xFFFFFFFF, mag >> 32))
        elif v.kind == "udt":
            data = bytes(v.value)
            w.short(41).short_string(b"informix").short_string(v.name.encode())
            w.short(0).short(len(data)).int(len(data)).padded(data)
        else:
            raise ValueError(f"no SQ_FPROUTINE layout for {v.kind}")


def write_lo_written(w: Writer, n: int) -> None:
    w.short(LODATA).short(2).int(n)


def write_lo_read(w: Writer, data: bytes, chunk: int) -> None:
    w.short(LODATA).short(0).int(len(data))
    if not data:
        w.short(0)
        return
    for i in range(0, len(data), chunk):
        piece = data[i:i + chunk]
        w.short(len(piece)).padded(piece)


# -- client side: parsing replies ---------------------------------------------------

def parse_handle(r: Reader) -> tuple[bytes, int]:
    database = r.short_string()
    return database, r.int()


def parse_values(r: Reader, encoding: str) -> list[RoutineValue]:
    """SQ_FPROUTINE's values (the layouts this driver asks for; others are a
    ProtocolError rather than a misread)."""
    count = r.short()
    out: list[RoutineValue] = []
    for _ in range(max(count, 0)):
        raw = r.short()
        code, name = raw & 0xFF, ""
        if (code >= 18 and code not in (52, 53)) or raw & 0x800:
            r.short_string()
            name = r.short_string().decode("iso-8859-1")
        indicator, _prec = r.short(), r.short()
        out.append(_read_value(r, code, name, indicator, encoding))
    return out


def _read_value(r: Reader, code: int, name: str, indicator: int, encoding: str) -> RoutineValue:
    if code in (40, 41, 43, 44, 101, 102):
        if indicator == -1:
            return RoutineValue("udt", None, name)
        return RoutineValue("udt", r.padded(r.int()), name)
    if indicator == -1:
        return RoutineValue("null", None, name)
    if code in (2, 6):
        return RoutineValue("int", r.int())
    if code == 1:
        return RoutineValue("short", r.short())
    if code in (17, 18):
        sign, low, high = r.short(), r.int() & 0xFFFFFFFF, r.int() & 0xFFFFFFFF
        return RoutineValue("int8", (-1 if sign < 0 else 1) * ((high << 32) | low))
    if code in (52, 53):
        return RoutineValue("int8", r.bigint())
    if code in (0, 13, 15, 16):
        return RoutineValue("char", r.padded(r.short()).decode(encoding, "replace"))
    raise ProtocolError(f"a fast-path routine returned type {code}, which this driver "
                        "does not read")


class LoReply:
    """SQ_LODATA's reply header; a read's chunks go to ``out`` as they
    arrive (messages.parse_reply), ``chunked`` bytes of them."""

    __slots__ = ("subcommand", "size", "chunked", "out")

    def __init__(self, subcommand: int, size: int, chunked: int) -> None:
        self.subcommand, self.size, self.chunked = subcommand, size, chunked
        self.out = None


def parse_lo_head(r: Reader, wanted: int) -> LoReply:
    """SQ_LODATA's header (``wanted``: what the read asked); for a read of
    nothing, its closing short too."""
    sub, size = r.short(), r.int()
    if sub == 2:                                 # LO_WRITE's answer: bytes written
        return LoReply(sub, size, 0)
    if size < 1:
        r.short()
        return LoReply(sub, size, 0)
    if size > wanted:
        raise ProtocolError(f"SQ_LODATA answers {size} bytes to a read of {wanted}")
    return LoReply(sub, size, size)
