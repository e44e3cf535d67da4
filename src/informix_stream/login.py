"""The login exchange: the one length-framed PDU pair in SQLI.

The client opens with an SL (session layer) header of 6 bytes -- total
length, SL type 1 (connection request), protocol 60 (SQLI 6.00), options --
followed by the binary association block: user, password, server name,
optional database, environment and process information.  The server answers
with SL type 2 (accept) or 3 (reject), each carrying the same association
block shape; a reject puts the Informix error code (e.g. -951) in it.

Field order confirmed against IBM JDBC (``asf.Connection`` send/receive of
the connection request, ``DecodeAscBinary``) and informix-driver's login
builder; docs/protocol.md has the byte tables.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field

from .errors import InterfaceError, ProtocolError
from .framing import Incomplete, Reader, Writer

SL_CONREQ, SL_CONACC, SL_CONREJ = 1, 2, 3
SL_PROTOCOL_SQLI = 60
ASSOC, ASCBINARY, ASCINITRESP, ASCBPARMS = 100, 101, 102, 108
ASCINITREQ, ASCENV, ASCPINFO, ASCMISC, ASCEOT = 104, 106, 107, 116, 127

# A login PDU is at most a few kilobytes; anything larger is not a client.
MAX_LOGIN_PDU = 32 * 1024

# Protocol level the client declares; the server echoes it (316 = enhanced).
CLIENT_CAP_1 = 0x13C


@dataclass
class LoginRequest:
    """What a client asks for in its connection request."""

    user: str
    password: str | None
    server: str
    database: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    caps: tuple[int, int, int] = (CLIENT_CAP_1, 0, 0)
    client_version: str = "9.280"
    process_id: int = 0
    hostname: str = ""


def read_sl_pdu(buf: bytes | bytearray) -> tuple[int, bytes, int]:
    """Split one SL PDU off ``buf``: (SL type, body after the header, PDU length).

    Raises ``Incomplete`` until the whole PDU has arrived.
    """
    r = Reader(buf)
    total = r.ushort()
    if total < 6 or total > MAX_LOGIN_PDU:
        raise ProtocolError(f"SL header declares {total} bytes")
    sl_type = r.byte()
    r.byte()   # protocol
    r.short()  # options
    if len(buf) < total:
        raise Incomplete(total - len(buf))
    return sl_type, bytes(buf[6:total]), total


def _text(b: bytes) -> str:
    return b.decode("iso-8859-1")


def parse_login_request(body: bytes) -> LoginRequest:
    """Decode the association block of a connection request (SL type 1)."""
    r = Reader(body)
    try:
        if r.short() != ASSOC or r.short() != ASCBINARY:
            raise ProtocolError("login PDU does not start with an association block")
        r.int()
        r.nul_string()                      # float format, e.g. IEEEM
        if r.short() != ASCBPARMS:
            raise ProtocolError("login PDU lacks the binary parameters block")
        r.skip(12)                          # application type, "sqlexec"
        version = _text(r.nul_string())
        r.nul_string()                      # serial number
        r.nul_string()                      # application id
        caps = (r.int(), r.int(), r.int())
        r.short()
        user = _text(r.nul_string())
        pw_len = r.short()
        password = _text(r.raw(pw_len).rstrip(b"\x00")) if pw_len > 0 else None
        r.skip(8)                           # protocol name "ol"
        r.int()
        r.skip(8)                           # network type "tlitcp"
        r.int()
        if r.short() != ASCINITREQ:
            raise ProtocolError("login PDU lacks the init request block")
        r.short()
        r.int()                             # statement options
        server = _text(r.nul_string())
        database = _text(r.nul_string()) or None
        r.skip(8)
        req = LoginRequest(user, password, server, database, caps=caps,
                           client_version=version)
        _parse_sections(r, req)
        return req
    except Incomplete:
        raise ProtocolError("login PDU is truncated") from None


def _parse_sections(r: Reader, req: LoginRequest) -> None:
    """The tail of the block is a run of marked sections ending in ASCEOT."""
    while True:
        marker = r.short()
        if marker == ASCEOT:
            return
        if marker == ASCENV:
            for _ in range(r.short()):
                name = _text(r.nul_string())
                req.env[name] = _text(r.nul_string())
        elif marker == ASCPINFO:
            r.int()
            req.process_id = r.int()
            r.int()
            req.hostname = _text(r.nul_string())
            r.short()
            r.nul_string()                  # working directory
        elif marker == ASCMISC:
            r.skip(r.short())
        else:
            raise ProtocolError(f"unknown login section marker {marker}")


def build_login_request(req: LoginRequest) -> bytes:
    """Encode a connection request the way IBM's clients lay it out.  Its
    strings are ISO 8859-1 (no locale is settled yet); a user, password,
    server or database name outside it is an InterfaceError, not a crash."""
    try:
        return _login_request(req)
    except UnicodeEncodeError as exc:
        raise InterfaceError(f"login field {exc.object!r} is not ISO 8859-1 text") from None


def _login_request(req: LoginRequest) -> bytes:
    w = Writer()
    w.short(ASSOC).short(ASCBINARY).int(61).nul_string(b"IEEEM")
    w.short(ASCBPARMS).raw(b"sqlexec".ljust(12, b"\x00"))
    w.nul_string(req.client_version.encode()).nul_string(b"RDS#R000000")
    w.nul_string(b"sqli")
    for cap in req.caps:
        w.int(cap)
    w.short(1)
    w.nul_string(req.user.encode("iso-8859-1"))
    w.nul_string(None if req.password is None else req.password.encode("iso-8859-1"))
    w.raw(b"ol".ljust(8, b"\x00")).int(61).raw(b"tlitcp".ljust(8, b"\x00")).int(1)
    w.short(ASCINITREQ).short(11).int(3)
    w.nul_string(req.server.encode("iso-8859-1"))
    w.nul_string(None if req.database is None else req.database.encode("iso-8859-1"))
    w.raw(bytes(8))
    w.short(ASCENV).short(len(req.env))
    for name, value in req.env.items():
        w.nul_string(name.encode("iso-8859-1")).nul_string(value.encode("iso-8859-1"))
    w.short(ASCPINFO).int(0).int(os.getpid() & 0x7FFFFFFF).int(0)
    w.nul_string((req.hostname or socket.gethostname()).encode("iso-8859-1"))
    w.short(0).nul_string(b"/")
    w.short(ASCEOT)
    return _sl_wrap(SL_CONREQ, w.getvalue())


def _sl_wrap(sl_type: int, body: bytes) -> bytes:
    return Writer().ushort(len(body) + 6).byte(sl_type).byte(SL_PROTOCOL_SQLI).short(0).raw(body).getvalue()


def build_login_reply(*, accepted: bool, version: str, serial: str, caps: tuple[int, int, int],
                      error: int = 0, message: str = "") -> bytes:
    """Encode an accept (error 0) or reject PDU.

    JDBC walks this block field by field (``DecodeAscBinary``): it insists on
    the 108 marker, reads three strings (version, serial, application id),
    the three capability words, then finds the init-response section (102)
    whose error word becomes the SQLException code of a rejected login.
    """
    w = Writer()
    w.short(ASSOC).short(ASCBINARY).int(61).short(6).raw(b"IEEEI\x00")
    w.short(ASCBPARMS).raw(b"sqlexec".ljust(12, b"\x00"))
    w.nul_string(version.encode()).nul_string(serial.encode()).nul_string(b"sqli")
    for cap in caps:
        w.int(cap)
    w.short(0).short(0).short(0)   # two empty strings after a reserved short
    w.raw(bytes(24))
    w.short(ASCINITRESP).raw(bytes(6))
    w.short(error).short(0).short(0)   # service error, OS error, warnings
    if message:
        w.short(1).short(0).short_string(message.encode("iso-8859-1"))
    else:
        w.short(0)
    w.short(ASCEOT)
    return _sl_wrap(SL_CONACC if accepted else SL_CONREJ, w.getvalue())


@dataclass
class LoginReply:
    accepted: bool
    version: str
    caps: tuple[int, int, int]
    error: int
    message: str


def parse_login_reply(sl_type: int, body: bytes) -> LoginReply:
    """Decode an accept or reject PDU (the client side of the exchange)."""
    if sl_type not in (SL_CONACC, SL_CONREJ):
        raise ProtocolError(f"unexpected SL type {sl_type} in login reply")
    r = Reader(body)
    try:
        if r.short() != ASSOC or r.short() != ASCBINARY:
            raise ProtocolError("login reply lacks the association block")
        r.skip(4)
        r.skip(r.short())
        if r.short() != ASCBPARMS:
            raise ProtocolError("login reply lacks the binary parameters block")
        r.skip(12)
        version = _text(r.raw(r.short()).rstrip(b"\x00"))
        r.skip(r.short())
        r.skip(r.short())
        caps = (r.int(), r.int(), r.int())
        r.skip(2)
        r.skip(r.short())
        r.skip(r.short())
        r.skip(24)
        error, message = 0, ""
        if r.short() == ASCINITRESP:
            r.skip(6)
            error = r.short()
            r.short()
            r.short()
            if r.short() > 0:
                r.short()
                message = _text(r.short_string())
    except Incomplete:
        raise ProtocolError("login reply is truncated") from None
    return LoginReply(sl_type == SL_CONACC and error == 0, version, caps, error, message)
