"""What the blocking and the asyncio connection share, without I/O.

Login, commit, rollback and goodbye are generator operations over the
``ClientSession``; ``connection.Connection`` runs them with blocking I/O and
``async_connection.AsyncConnection`` with asyncio.
"""

from __future__ import annotations

import logging
import os
import weakref
from collections.abc import Callable

from . import forks, smartlobs
from .connect_params import MAX_FETCH_BUFFER, ConnectParams
from .core import requests as rq
from .core import statement as st
from .core.dblocale import settle_locale
from .core.session import LONG_TRANSACTION_ABORTED, ClientSession
from .core.named_rows import RowTypeCache
from .core.statement_cache import StatementCache
from .errors import DatabaseError, InterfaceError, OperationalError, Warning
from .errtext import message_for
from .locales import parse_locale
from .login import LoginRequest, build_login_request, parse_login_reply
from .sqlwarn import open_warnings

log = logging.getLogger("informix_stream")

# SQ_DONE warning bits after a database is opened: the database is logged,
# it is ANSI-compliant (IfxSqliConnect.OpenDbInit reads SerWarn 1 and 2).
DB_LOGGED = 0x01
DB_ANSI = 0x02
# What we offer in SQ_PROTOCOLS: the same feature set IBM's clients offer.
CLIENT_PROTOCOLS = bytes.fromhex("fffc7ffc3c8caa97")
DEFAULT_DB_LOCALE = "en_US.8859-1"
_BASE_ENV = {"CLIENT_LOCALE": "en_US.8859-1", "DBDATE": "Y4MD-", "DBPATH": ".",
             "IFX_UPDDESC": "1", "NODEFDAC": "no"}


def login_env(params: ConnectParams) -> dict[str, str]:
    """The login environment.  DB_LOCALE is always sent (the user's, else
    the default locale's): the server compares it with the database's and
    flags a difference, so the code set we decode with is never a guess
    (see core/dblocale.py)."""
    env = dict(_BASE_ENV)
    env["DB_LOCALE"] = DEFAULT_DB_LOCALE
    env.update({str(k): str(v) for k, v in params.env.items()})
    if params.client_locale:
        env["CLIENT_LOCALE"] = params.client_locale
    if params.db_locale:
        env["DB_LOCALE"] = params.db_locale
    return env


def login_gen(session: ClientSession, params: ConnectParams):
    """The login PDU, SQ_PROTOCOLS, then SQ_DBOPEN; returns the server version."""
    env = login_env(params)
    parse_locale(env["CLIENT_LOCALE"], "CLIENT_LOCALE")
    session.sent_locale = session.db_locale = parse_locale(env["DB_LOCALE"], "DB_LOCALE")
    session.encoding = session.sent_locale.codec
    request = LoginRequest(params.user, params.password, params.server, env=env)
    expect = session.send_login(build_login_request(request))
    yield expect
    reply = parse_login_reply(*expect.pdu)
    if not reply.accepted:
        text = reply.message or message_for(reply.error)
        raise OperationalError(f"[{reply.error}] login rejected: {text}", sqlcode=reply.error)
    yield from st.exchange(session, rq.protocols(CLIENT_PROTOCOLS))
    if params.database is not None:
        # An unknown database fails here with -329 (an OperationalError).
        name = st.encode_sql(params.database, session.encoding)
        done = yield from st.exchange(session, rq.dbopen(name))
        session.logged = bool(done.warnings & DB_LOGGED)
        session.ansi = bool(done.warnings & DB_ANSI)
        session.open_flags = done.warnings
        yield from settle_locale(session, done.warnings)
    return reply.version


class ConnectionBase:
    """State shared by both connection classes (see module docstring)."""

    def _cancel_quietly(self) -> None:
        """A statement timeout's cancel: the timer that fires it has no
        caller to tell, so a cancel that cannot be sent is only logged (the
        statement then runs to its end or to the read timeout)."""
        try:
            self.cancel()
        except OperationalError:
            log.debug("statement timeout: the cancel could not be sent")

    def __init__(self, session: ClientSession, params: ConnectParams) -> None:
        self._session = session
        self._params = params
        self._generation = forks.generation()
        self._cursor_seq = 0
        # A connection is used by the process that made it (_check_process).
        self._cursor_prefix = b"_ifxs%d_" % (os.getpid() % 100000)
        self._cursors: weakref.WeakSet = weakref.WeakSet()
        self._statements = StatementCache(params.prepare_cache_size)
        self._row_types = RowTypeCache()      # named ROW types' fields (core/named_rows.py)
        self.fetch_buffer_size = params.fetch_buffer_size
        self.database = params.database
        self.row_factory = params.row_factory
        if params.composite_rows not in ("tuple", "dict"):
            raise InterfaceError("composite_rows is 'tuple' or 'dict'")
        # how a ROW value decodes in this connection's new cursors
        self.composite_rows = params.composite_rows
        self.statement_timeout = params.statement_timeout
        # raise a statement's first server warning (PEP 249 Warning) after
        # its work is done, besides listing it on cursor.warnings
        self.raise_warnings = params.raise_warnings
        self.server_version_internal = ""
        self._release: str | None = None
        session.autocommit = params.autocommit

    # -- state -----------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """True once closed, and as soon as the connection broke: it cannot be reused."""
        s = self._session
        return s.closed or s.broken is not None

    @property
    def broken(self) -> bool:
        return self._session.broken is not None

    @property
    def logged(self) -> bool:
        return self._session.logged

    @property
    def is_ansi(self) -> bool:
        """The open database is ANSI-compliant (``WITH LOG MODE ANSI``):
        every statement runs in a transaction until COMMIT/ROLLBACK WORK,
        which autocommit mode sends after each statement; a text value too
        long for its column raises -1279 instead of being cut."""
        return self._session.ansi

    @property
    def warnings(self) -> list[Warning]:
        """What the server said of the open database when it was opened
        (at connect or by a DATABASE statement) as PEP 249 Warnings:
        01I01 logged, 01I03 ANSI, 01I04 Informix, ... (sqlwarn.py).
        Never raised: they are traits, not events."""
        return open_warnings(self._session.open_flags)

    @property
    def messages(self) -> list[tuple[type, Warning]]:
        """PEP 249's optional ``messages``: ``warnings`` as (class, value) pairs."""
        return [(type(w), w) for w in self.warnings]

    @property
    def encoding(self) -> str:
        """The Python codec of the open database's code set: every text
        value, SQL statement, name and message travels in it."""
        return self._session.encoding

    @property
    def db_locale(self) -> str:
        """The open database's locale as the server names it (en_US.57372)."""
        return self._session.db_locale.name

    @property
    def kept_statements(self) -> int:
        """Prepared statements this connection keeps for re-execution (the
        server holds each); at most ``prepare_cache_size`` plus those lent to
        open cursors."""
        return len(self._statements)

    @property
    def in_transaction(self) -> bool:
        return self._session.in_transaction

    @property
    def transaction_aborted(self) -> bool:
        """The server aborted the open transaction (-458, long transaction)
        and rolled all of it back: every statement is refused until
        ``rollback()`` (which ends this without error) or ``commit()``
        (which raises: nothing was committed)."""
        return self._session.tx_aborted

    def _check_process(self) -> None:
        if forks.generation() != self._generation:
            raise InterfaceError("this connection was opened in another process; "
                                 "a child process after fork() must open its own")

    def cursor(self, *, materialize: bool = False, scrollable: bool = False,
               fetch_buffer_size: int | None = None, read_ahead: bool = True,
               row_factory: Callable | None = None, hold: bool = False,
               lob: str = "value"):
        """A streaming cursor by default; see ``informix_stream.cursors``
        (``async_cursors`` on an asyncio connection)."""
        self._check_process()
        self._session.check()
        size = fetch_buffer_size or self.fetch_buffer_size
        if not 1 <= size <= MAX_FETCH_BUFFER:
            raise InterfaceError(f"fetch_buffer_size must be 1..{MAX_FETCH_BUFFER}")
        cls = self._cursor_class(materialize, scrollable)
        return cls(self, fetch_buffer_size=size, read_ahead=read_ahead,
                   row_factory=row_factory, hold=hold, lob=lob)

    @staticmethod
    def _cursor_class(materialize: bool, scrollable: bool) -> type:
        """The blocking or the asyncio cursor class (each layer says which)."""
        raise NotImplementedError

    def _next_cursor_name(self) -> bytes:
        self._cursor_seq += 1
        return b"%s%d" % (self._cursor_prefix, self._cursor_seq)

    # -- operations -------------------------------------------------------------
    def _end_transaction_gen(self, body: bytes):
        session = self._session
        if session.tx_aborted:
            yield from self._end_aborted_gen()
            if body is rq.COMMIT:
                raise OperationalError(
                    "commit failed: the server had aborted this transaction as too long "
                    "(-458) and rolled all of its work back; nothing was committed",
                    sqlcode=LONG_TRANSACTION_ABORTED)
            return
        if not session.in_transaction:
            return
        try:
            yield from st.exchange(session, body)
        finally:
            session.in_transaction = False
        session.transaction_ended()

    def _end_aborted_gen(self):
        """Leave the state a -458 left (see ``ClientSession.end_aborted``):
        nothing to send in a logged database, where the server is in no
        transaction (ROLLBACK WORK would be -255); ROLLBACK WORK in an ANSI
        one, undoing the implicit transaction that requests in flight after
        the -458 may have opened there."""
        session = self._session
        if session.end_aborted() and session.ansi:
            yield from st.exchange(session, rq.ROLLBACK)
            session.transaction_ended()

    def _fast_path_gen(self, signature: str, params: tuple):
        """``fast_path_call``: a server routine by signature (smartlobs.call_gen)."""
        return smartlobs.call_gen(self._session, signature, params)

    def _commit_gen(self):
        return self._end_transaction_gen(rq.COMMIT)

    def _rollback_gen(self):
        return self._end_transaction_gen(rq.ROLLBACK)

    def _release_gen(self):
        """The server's release (``DBINFO('version','full')``), asked once:
        the login reply carries only the protocol's version (12.10 says 9.56)."""
        if self._release is None:
            cur = self.cursor(materialize=True)
            try:
                yield from cur._execute_gen(
                    "SELECT FIRST 1 DBINFO('version','full') FROM systables", None)
                rows = cur._batch
                self._release = str(rows[0][0]).strip() if rows else ""
            except DatabaseError:
                self._release = ""
        return self._release or self.server_version_internal

    def _ping_gen(self):
        """One cheap statement, the health check informix-driver's pool uses."""
        cur = self.cursor(materialize=True)
        yield from cur._execute_gen("SELECT 1 FROM systables WHERE tabid = 1", None)

    def _goodbye_gen(self):
        """Roll back uncommitted work (as PEP 249 asks) and say goodbye."""
        session = self._session
        session.end_aborted()       # no transaction there to roll back (-458)
        if session.in_transaction:
            yield from st.exchange(session, rq.ROLLBACK)
            session.in_transaction = False
        expect = session.send_exit()
        yield expect
