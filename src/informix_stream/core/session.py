"""The client side of an SQLI session as a state machine over bytes.

Nothing here touches a socket.  ``ClientSession`` is told what to send
(``send``) and what arrived (``receive``); it keeps every piece of protocol
state in one place, in the spirit of h11's ``Connection``:

* the bytes not yet handed to the transport (``data_to_send``/``sent``);
* the replies still owed by the server, in request order, each an
  ``Expect`` that the parser fills as bytes arrive -- replies come back in
  the order requests went out, so whichever caller reads the wire completes
  every earlier reply on the way (a streaming cursor's read-ahead NFETCH is
  parsed into its own ``Expect`` even when another cursor is reading);
* the statement cleanup owed to the server (CLOSE/RELEASE that rides at the
  front of the next request);
* the transaction state, updated from the replies themselves;
* the broken flag: once the byte stream cannot be trusted, every later call
  is refused, so a statement can never read another one's reply.

The I/O layers (``blocking``, ``asyncio_io``) only move bytes between a
socket and this object; the operations in ``ops`` are written once against it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from ..errors import InterfaceError, OperationalError, ProtocolError
from ..framing import Incomplete, Writer
from ..login import read_sl_pdu
from ..locales import DEFAULT_LOCALE
from ..messages import Reply, Tag, parse_reply

EOT = Writer().short(Tag.EOT).getvalue()
EXIT_MESSAGE = Writer().short(Tag.EXIT).getvalue()
_BEGIN = Writer().short(Tag.BEGIN).getvalue()
# A streamed request body is read from its source while less than this is
# waiting to be sent.
_STREAM_LOW = 256 * 1024
# Past this much consumed input the receive buffer is compacted.  About one
# socket read (blocking.RECV_SIZE): deleting from the front of a bytearray
# moves no bytes, and a larger value only lets a long reply (a LOB read)
# keep up to this much dead input beside the value (1 MiB cost a streamed
# BLOB read one more chunk of RSS).
_COMPACT_AT = 256 * 1024
ALREADY_IN_TRANSACTION = -535
# The server rolled back the whole transaction (long-transaction high-water
# mark, LTXHWM): IBM JDBC 15.0.1.0 message catalog (sql_en_US.properties)
# -458 "Long transaction aborted."; emulator/long_tx.py and docs/protocol.md.
LONG_TRANSACTION_ABORTED = -458
TX_ABORTED_TEXT = ("the server aborted this transaction as too long (-458) and rolled "
                   "ALL of its work back; call rollback() to end it before running "
                   "anything else on this connection")
# What ``receive`` copies from new bytes to complete a held message tail
# before parsing the rest in place: more than one LOB chunk message.
_TAIL_PREFIX = 64 * 1024


class Expect:
    """One reply the server owes, filled in by ``ClientSession.receive``.

    ``detached`` marks a reply its operation does not wait for before
    returning (read-ahead): it may stay outstanding when the operation ends.
    """

    __slots__ = ("reply", "decode", "done", "detached", "opens_transaction", "budget",
                 "consumed")

    def __init__(self, reply: Reply, decode: Callable | None, detached: bool,
                 opens_transaction: bool, budget: int = 0) -> None:
        self.reply = reply
        self.decode = decode
        self.done = False
        self.detached = detached
        self.opens_transaction = opens_transaction
        self.budget = budget        # bytes of rows the request asked for
        self.consumed = 0


class LoginExpect:
    """The login reply: the one length-framed PDU of the protocol."""

    __slots__ = ("done", "pdu", "detached")

    def __init__(self) -> None:
        self.done = False
        self.detached = False
        self.pdu: tuple[int, bytes] | None = None


class Flush:
    """Yielded by an operation: send everything queued (reading replies as
    they arrive, so that neither side can block the other) and resume."""

    __slots__ = ()


FLUSH = Flush()


class ClientSession:
    """All protocol state of one connection; see the module docstring."""

    def __init__(self, *, max_message_size: int) -> None:
        self.max_message_size = max_message_size
        self._out = bytearray()
        self._in = bytearray()
        self._pos = 0
        self._pending: deque[Expect] = deque()
        self._cleanup: deque[bytes] = deque()
        self._owed: deque[bytes] = deque()
        self._op: list[Expect] = []
        self._receiving = False
        self._stream = None                  # (parts iterator, tail) of a Streamed body
        self._login: LoginExpect | None = None
        self.broken: str | None = None
        self.closed = False
        self.bytes_received = 0        # every byte since login (progress reports)
        # bytes the transport took since login, and bytes it was offered
        # (``handing``): whether a request may have gone out whole (an
        # executemany COMMIT cut short, chunk_commit.py)
        self.bytes_sent = 0
        self.bytes_handed = 0
        self.autocommit = False
        self.logged = False
        # An ANSI-compliant database: the server opens a transaction for any
        # statement itself, so no SQ_BEGIN is sent (IBM Guide to SQL: Syntax,
        # "BEGIN WORK and ANSI-Compliant Databases"; JDBC's
        # IfxSqli.initiateTransaction sends none when conn.AnsiDb).
        self.ansi = False
        self.in_transaction = False
        # The server aborted the open transaction (-458, see
        # ``_transaction_aborted``): every request is refused until
        # ``end_aborted`` (rollback(), commit(), autocommit, close).
        self.tx_aborted = False
        # Python codec of the database's code set: SQL text, bound and
        # fetched text, names and messages all travel in it.
        self.encoding = "iso-8859-1"
        # the DB_LOCALE the login sent, and the open database's locale
        self.sent_locale = DEFAULT_LOCALE
        self.db_locale = DEFAULT_LOCALE
        # Transactions ended by COMMIT/ROLLBACK WORK so far: each one closed
        # on the server every cursor not declared WITH HOLD.
        self.tx_ends = 0
        self.database_changes = 0      # DATABASE / CREATE / CLOSE DATABASE answered
        # statements answered that leave state in the session beyond their
        # transaction (a session-wide SET, a temporary table: statement.py
        # sets_session_state); a pool does not hand such a connection on
        self.state_changes = 0
        # the sqlwarn flags that answered the open of the current database
        # (logged, ANSI, ...: sqlwarn.py); 0 with no database open
        self.open_flags = 0

    # -- state checks -------------------------------------------------------
    def check(self) -> None:
        """Refuse to go on once closed or broken, saying why."""
        if self.closed:
            raise InterfaceError("connection is closed")
        if self.broken is not None:
            raise OperationalError(f"connection is unusable: {self.broken}")

    def transaction_ended(self) -> None:
        """The server answered COMMIT or ROLLBACK WORK: no transaction now,
        and every cursor opened before without WITH HOLD is closed there
        (cursors compare ``tx_ends`` with its value at their OPEN)."""
        self.in_transaction = False
        self.tx_ends += 1

    def database_changed(self) -> None:
        """The server answered a statement that closed the current database
        (DATABASE, CREATE DATABASE, CLOSE DATABASE): it freed every prepared
        statement and cursor, so cleanup queued for them must not be sent
        (it would fail the next request with -410); statements prepared
        before compare their ``epoch`` with ``database_changes``."""
        self.database_changes += 1
        self.in_transaction = False
        self.open_flags = 0
        self._cleanup.clear()

    def mark_broken(self, why: str) -> None:
        if self.broken is None:
            self.broken = why
        self._stream = None
        self._out.clear()

    # -- building requests ---------------------------------------------------
    def send(self, body, *, decode: Callable | None = None,
             rows: list | None = None, begin: bool = False,
             detached: bool = False, opens: bool = False, budget: int = 0,
             blob_limit: int | None = None, ending: bool = False) -> Expect:
        """Queue one request (``body`` without its SQ_EOT); return its Expect.

        ``begin`` marks a statement that opens a transaction when autocommit
        is off in a logged database: SQ_BEGIN travels in the same request
        (in an ANSI database the server opens it: only the state is noted).
        ``opens`` says the body itself is an SQ_BEGIN.  ``budget`` is the
        fetch buffer a fetch asked for: a reply may carry that much row data
        (plus one message of up to ``max_message_size``), never more.
        Cleanup that cannot fail rides at the front of the request.  After
        the server aborted the transaction nothing is sent (OperationalError,
        sqlcode -458) but what ends that state (``ending``).
        """
        if self.tx_aborted and not ending:
            raise OperationalError(TX_ABORTED_TEXT, sqlcode=LONG_TRANSACTION_ABORTED)
        implicit = begin and self.logged and not self.autocommit and not self.in_transaction
        if implicit and self.ansi:
            # The server opens this statement's transaction itself.
            implicit, self.in_transaction = False, True
        out = self._out
        while self._owed:
            # Cleanup after a failure may itself fail (the statement may
            # already be gone): each goes alone, its reply read and ignored.
            out += self._owed.popleft()
            out += EOT
            self._pending.append(Expect(Reply(), None, True, False))
        cleanup = self._cleanup
        while cleanup:
            out += cleanup.popleft()
        if implicit:
            out += _BEGIN
        if isinstance(body, (bytes, bytearray)):
            out += body
            out += EOT
        else:
            out += body.head
            self._stream = (body.parts, body.tail)
        reply = Reply(rows, self.encoding)
        if blob_limit is not None:
            reply.blob, reply.blob_limit = bytearray(), blob_limit
        expect = Expect(reply, decode, detached, opens or implicit, budget)
        self._pending.append(expect)
        self._op.append(expect)
        return expect

    def send_login(self, pdu: bytes) -> LoginExpect:
        """Queue the login PDU; its reply is framed by length, not by SQ_EOT."""
        self._out += pdu
        self._login = expect = LoginExpect()
        self._op.append(expect)
        return expect

    def send_exit(self) -> Expect:
        """SQ_EXIT goes without an SQ_EOT; the server answers SQ_EXIT."""
        self._out += EXIT_MESSAGE
        expect = Expect(Reply(), None, False, False)
        self._pending.append(expect)
        self._op.append(expect)
        return expect

    def send_many(self, bodies: list[bytes], begin: bool = False) -> list[Expect]:
        """Queue requests back to back (a pipelined chunk); their Expects
        (``begin``: as ``send``'s, for the first)."""
        if not bodies:
            return []
        first = self.send(bodies[0], begin=begin)
        out = self._out
        out += EOT.join(bodies[1:])
        if len(bodies) > 1:
            out += EOT
        expects = [Expect(Reply(), None, False, False) for _ in range(len(bodies) - 1)]
        self._pending.extend(expects)
        self._op.extend(expects)
        return [first, *expects]

    def defer_cleanup(self, data: bytes) -> None:
        """Queue cleanup that cannot fail (CLOSE/RELEASE of a statement we know
        is open) to ride on the next request.  Safe from a finalizer: no I/O."""
        if not self.closed and self.broken is None:
            self._cleanup.append(data)

    def owe(self, *bodies: bytes) -> None:
        """Queue cleanup after a failed statement, each part a request of its
        own (any of them may fail), sent in front of the next request."""
        if not self.closed and self.broken is None:
            self._owed.extend(bodies)

    @property
    def cleanup_queued(self) -> bool:
        return bool(self._cleanup or self._owed)

    # -- the transport's side -------------------------------------------------
    def data_to_send(self) -> bytearray:
        return self._out

    def handing(self, n: int) -> None:
        """The transport is about to be offered the first ``n`` bytes of
        ``data_to_send()``: from then on they may reach the server even if
        the call offering them never returns (a signal handler raising as
        ``send`` returns, after the kernel took the bytes)."""
        self.bytes_handed = max(self.bytes_handed, self.bytes_sent + n)

    def sent(self, n: int) -> None:
        del self._out[:n]
        self.bytes_sent += n
        if self._stream is not None and len(self._out) < _STREAM_LOW:
            self._pull_stream()

    @property
    def streaming(self) -> bool:
        """A streamed request body is not yet wholly queued."""
        return self._stream is not None

    def _pull_stream(self) -> None:
        """Queue more of the streamed body; its tail and EOT at its end.  A
        source that fails leaves a request half sent: the session is broken
        and the caller told why."""
        parts, tail = self._stream
        out = self._out
        try:
            while len(out) < _STREAM_LOW:
                part = next(parts, None)
                if part is None:
                    out += tail
                    out += EOT
                    self._stream = None
                    return
                out += part
        except Exception as exc:  # noqa: BLE001 - the user's file or iterator failed
            self._stream = None
            why = f"reading a LOB parameter failed mid-request ({type(exc).__name__}: {exc})"
            self.mark_broken(why)
            raise OperationalError(why + "; the connection is closed") from exc

    @property
    def awaiting_reply(self) -> bool:
        return bool(self._pending) or self._login is not None

    def receive(self, data: bytes | bytearray | memoryview) -> None:
        """Parse what arrived into the outstanding replies, in order.

        Bytes with no reply outstanding, or left after the last one, can
        only be a server out of step with us: the session is broken.
        """
        if not data:
            self.mark_broken("the server closed the connection")
            raise OperationalError("the server closed the connection")
        self.bytes_received += len(data)
        self._receiving = True
        try:
            if self._login is not None:
                self._receive_login(data)
                return
            pending = self._pending
            if not pending:
                raise ProtocolError(f"{len(data)} bytes arrived with no request outstanding")
            buf = self._in
            if pending[0].decode is not None:
                buf += data
                pos = self._parse(buf, self._pos, False)
            else:
                pos = self._receive_direct(data)
            if not pending and pos < len(buf):
                raise ProtocolError(f"{len(buf) - pos} bytes arrived after the last reply")
            if len(buf) - pos > self.max_message_size + 64:
                raise ProtocolError(f"a reply message exceeds max_message_size "
                                    f"({self.max_message_size} bytes)")
            if pos >= _COMPACT_AT or pos == len(buf):
                del buf[:pos]
                pos = 0
            self._pos = pos
        except ProtocolError as exc:
            self.mark_broken(f"protocol error: {exc}")
            raise
        finally:
            self._receiving = False

    def _receive_direct(self, data) -> int:
        """``receive`` for a reply without rows (LOB chunks, fast-path
        calls): the bytes are parsed where the transport put them and only
        an unfinished message's tail is kept, so a LOB reply's bytes are
        copied once, into their value, not first into our buffer as well.
        A tail held from before is completed from a prefix of ``data``
        (a chunk message is at most 32 KiB); then parsing goes on in
        ``data``.  Returns the offset reached in ``self._in``."""
        buf, pending, start = self._in, self._pending, 0
        if buf:
            held = len(buf)
            k = min(len(data), _TAIL_PREFIX)
            buf += data[:k]
            pos = self._parse(buf, self._pos, False)
            if pos < held or k == len(data) or not pending or pending[0].decode is not None:
                buf += data[k:]
                return self._parse(buf, pos, False)
            start = pos - held                  # where parsing stopped, in ``data``
            buf.clear()
        pos = self._parse(data, start, True)
        if pos < len(data):
            buf += data[pos:]
        if pending and buf and pending[0].decode is not None:
            return self._parse(buf, 0, False)
        return 0

    def _parse(self, buf, pos: int, direct: bool) -> int:
        """Parse outstanding replies from ``buf[pos:]`` in order; the offset
        reached.  ``direct``: ``buf`` is the transport's, reused once this
        returns, so parsing stops before a reply with rows (a row decoder
        may keep a view of its buffer)."""
        pending = self._pending
        while pending:
            expect = pending[0]
            if direct and expect.decode is not None:
                break
            start = pos
            pos, done = parse_reply(buf, pos, expect.reply, expect.decode,
                                    self.max_message_size)
            expect.consumed += pos - start
            if expect.consumed > expect.budget + self.max_message_size:
                raise ProtocolError(f"a reply of over {expect.consumed} bytes, far more "
                                    "than the request asked for")
            if not done:
                break
            pending.popleft()
            if expect.opens_transaction:
                self._began(expect)
            err = expect.reply.error
            if (err is not None and err.sqlcode == LONG_TRANSACTION_ABORTED
                    and self.in_transaction):
                self._transaction_aborted()
            expect.done = True
        return pos

    def _receive_login(self, data: bytes | bytearray | memoryview) -> None:
        self._in += data
        try:
            sl_type, body, used = read_sl_pdu(self._in)
        except Incomplete:
            return
        if used != len(self._in):
            raise ProtocolError("bytes arrived after the login reply")
        self._in.clear()
        login, self._login = self._login, None
        login.pdu = (sl_type, body)
        login.done = True

    def _began(self, expect: Expect) -> None:
        """A request that opened a transaction has its reply: unless the
        server said one was already open, we are inside one now."""
        err = expect.reply.error
        if err is None or err.sqlcode != ALREADY_IN_TRANSACTION:
            self.in_transaction = True

    @property
    def owes_rollback(self) -> bool:
        """A transaction is open on the server, or the server aborted it
        (-458): either way only a rollback hands the connection on clean,
        which is what pools, ``autocommit = True`` and ``close`` must know."""
        return self.in_transaction or self.tx_aborted

    def _transaction_aborted(self) -> None:
        """-458 inside a transaction: the server rolled ALL of it back and
        the session is in none (IBM Informix Administrator's Reference,
        LTXHWM: "the database server starts rolling back the transaction").
        Requests that follow at once (a pipelined chunk) ran outside it;
        from here on nothing is sent until the caller ends the state, so no
        statement it believes uncommitted runs as a committed singleton.
        Cursors not declared WITH HOLD were closed with the transaction."""
        self.in_transaction = False
        self.tx_aborted = True
        self.tx_ends += 1

    def end_aborted(self) -> bool:
        """Leave the aborted state (rollback(), commit(), autocommit, close);
        whether it was on.  In an ANSI database the caller still sends
        ROLLBACK WORK (with ``ending=True``): requests that were in flight
        after the -458 opened a new implicit transaction there, which must
        not be committed by accident (ROLLBACK WORK without one is no error
        in an ANSI database)."""
        was, self.tx_aborted = self.tx_aborted, False
        return was

    # -- operations --------------------------------------------------------------
    def begin_op(self) -> None:
        self._op = []

    def end_op(self, exc: BaseException | None, waiting: object = None) -> None:
        """After an operation: if it ended early while its own request was
        half-sent, or while a reply it sent or was waiting for (``waiting``,
        possibly a read-ahead sent by an earlier operation) is still owed,
        the stream is no longer at a point its owner can account for, so the
        session is broken."""
        op, self._op = self._op, []
        if exc is None or self.broken is not None:
            return
        cut = getattr(waiting, "done", True) is False
        if self._receiving:
            self.mark_broken(f"interrupted while parsing a reply ({type(exc).__name__})")
        elif self._out or self._stream is not None or cut or any(not e.done and not e.detached for e in op):
            self.mark_broken(f"interrupted in the middle of an exchange ({type(exc).__name__})")

    def close(self) -> None:
        self.closed = True
        self._stream = None
        self._out.clear()
        self._pending.clear()
        self._cleanup.clear()
        self._owed.clear()
