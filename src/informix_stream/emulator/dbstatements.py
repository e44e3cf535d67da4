"""DATABASE, CLOSE DATABASE, CREATE DATABASE and DROP DATABASE in a session.

These statements act on the session (which database is current) and on the
server (which databases exist), not inside one database, so the SQLI
session runs them itself, with or without a database open.  What the server
does, from IBM's SQL Syntax guide (Informix 14.10):

* ``DATABASE name`` closes the current database and opens ``name`` (-329 if
  there is none); ``CLOSE DATABASE`` with none open is -349;
* closing the current database inside a transaction is -377, "Must
  terminate transaction before closing database" ("CLOSE DATABASE
  statement"); DATABASE and CREATE DATABASE close it too, so they answer
  the same;
* ``CREATE DATABASE [IF NOT EXISTS] name [IN dbspace] [WITH [BUFFERED] LOG
  | WITH LOG MODE ANSI] [NLSCASE ...]`` makes the new database current;
  without WITH it has no logging (logmode.py);
* ``DROP DATABASE [IF EXISTS] name`` refuses the current database (-359)
  and one another session has open (-425).

Statement type codes in the DESCRIBE reply are sqlstype.h's: SQ_DATABASE 1,
SQ_CREADB 12, SQ_DROPDB 13, SQ_CLSDB 31 (IBM Informix Client SDK).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from informix_stream.locales import DEFAULT_LOCALE

from ..framing import Writer
from ..messages import DbOpen, StmtType, write_done
from .databases import check_name
from .gls import locale_warning
from .logmode import Logging
from .statements import NOT_SUPPORTED, SqlError

SQ_DROPDB = 13

_HEAD = re.compile(r"\s*(?:(?:CREATE|DROP|CLOSE)\s+)?DATABASE\b", re.IGNORECASE)
_END = r"\s*;?\s*\Z"
_FORMS = {
    "open": re.compile(r"\s*DATABASE\s+(?P<name>[^\s;]+)" + _END, re.IGNORECASE),
    "close": re.compile(r"\s*CLOSE\s+DATABASE" + _END, re.IGNORECASE),
    "create": re.compile(
        r"\s*CREATE\s+DATABASE\s+(?P<cond>IF\s+NOT\s+EXISTS\s+)?(?P<name>[^\s;]+)"
        r"(?:\s+IN\s+\w+)?"
        r"(?:\s+WITH\s+(?P<log>BUFFERED\s+LOG|UNBUFFERED\s+LOG|LOG\s+MODE\s+ANSI|LOG|NO\s+LOG))?"
        r"(?:\s+NLSCASE\s+(?P<nls>SENSITIVE|INSENSITIVE))?" + _END, re.IGNORECASE),
    "drop": re.compile(r"\s*DROP\s+DATABASE\s+(?P<cond>IF\s+EXISTS\s+)?(?P<name>[^\s;]+)" + _END,
                       re.IGNORECASE),
}
_LOGGING = {None: Logging.NONE, "LOG": Logging.UNBUFFERED, "UNBUFFEREDLOG": Logging.UNBUFFERED,
            "BUFFEREDLOG": Logging.BUFFERED, "NOLOG": Logging.NONE,
            "LOGMODEANSI": Logging.ANSI}
_STMT_TYPES = {"open": StmtType.DATABASE, "close": StmtType.CLOSE_DATABASE,
               "create": StmtType.CREATE_DATABASE, "drop": SQ_DROPDB}


@dataclass(frozen=True)
class DatabaseStatement:
    """One parsed database statement, prepared like any other."""

    action: str                 # "open", "close", "create" or "drop"
    name: str = ""
    logging: Logging = Logging.NONE
    conditional: bool = False   # IF [NOT] EXISTS
    columns: tuple = ()
    param_types: tuple = ()

    @property
    def stmt_type(self) -> int:
        return _STMT_TYPES[self.action]


def parse_database_statement(sql: str) -> DatabaseStatement | None:
    """The statement if ``sql`` is one of the four, else None (an engine's)."""
    if not _HEAD.match(sql):
        return None
    action = sql.split(None, 1)[0].lower()
    action = "open" if action == "database" else action
    m = _FORMS[action].match(sql)
    if m is None:
        if len(sql.rstrip(" \t\r\n;").split()) < (2 if action == "open" else 3):
            raise SqlError(-201, message="a syntax error has occurred")
        raise SqlError(NOT_SUPPORTED, message="this form of the statement is not supported by "
                       f"the emulator: {sql.strip()[:120]}")
    groups = m.groupdict()
    name = groups.get("name") or ""
    if "@" in name or name[:1] and name[:1] in "'\"":
        raise SqlError(NOT_SUPPORTED, message="database names with a server or in quotes are "
                       f"not supported by the emulator: {name[:100]}")
    log_words = "".join((groups.get("log") or "").upper().split()) or None
    if (groups.get("nls") or "").upper() == "INSENSITIVE":
        raise SqlError(NOT_SUPPORTED, message="NLSCASE INSENSITIVE databases are not supported "
                       "by the emulator")
    return DatabaseStatement(action, check_name(name) if name else "", _LOGGING[log_words],
                             bool(groups.get("cond")))


class DatabaseStatements:
    """The SQLI session's side of the four statements and of SQ_DBOPEN/SQ_DBCLOSE.

    Mixed into emulator.session.Session, which provides ``engine``, ``db``
    and ``_release``.
    """

    def _run_database_statement(self, p: DatabaseStatement, w: Writer) -> None:
        if p.action == "open":
            self._open_db(p.name, w)
        elif p.action == "close":
            self._dbclose(None, w)
        elif p.action == "create":
            self._create_db(p, w)
        else:
            self._drop_db(p, w)

    def _open_db(self, name: str, w: Writer) -> None:
        if not self.engine.has_database(name):
            raise SqlError(-329, -111, near=name, message="database not found")
        self._close_db()
        self.db = self.engine.connect(name)
        warn = locale_warning(self.sent_db_locale, self.db.locale)   # SQLWARN7
        write_done(w, 0, warnings=self.db.database.logging.open_warnings | warn)

    def _close_db(self) -> None:
        if self.db is not None and self.db.in_transaction:
            raise SqlError(-377, message="must terminate transaction before closing database")
        for st in list(self.statements.values()):
            # Statements die with their database, except the database
            # statement running now: the client releases that one itself.
            if st is not self.current or not isinstance(st.prepared, DatabaseStatement):
                self._release(st)
        if self.db is not None:
            self.db.close()
            self.db = None

    def _create_db(self, p: DatabaseStatement, w: Writer) -> None:
        if self.engine.has_database(p.name):
            if p.conditional:
                write_done(w, 0)
                return
            raise SqlError(-330, -100, near=p.name, message="cannot create the database: "
                           "one of that name exists")
        self._close_db()
        self.engine.databases.create(p.name, p.logging, self.sent_db_locale or DEFAULT_LOCALE)
        self._open_db(p.name, w)

    def _drop_db(self, p: DatabaseStatement, w: Writer) -> None:
        if p.conditional and not self.engine.has_database(p.name):
            write_done(w, 0)
            return
        if self.db is not None and self.db.database.name == p.name:
            raise SqlError(-359, near=p.name, message="cannot drop the current database")
        self.engine.databases.drop(p.name)
        write_done(w, 0)

    def _dbopen(self, msg: DbOpen, w: Writer) -> None:
        self._open_db(msg.name.decode(self.encoding, "replace"), w)

    def _dbclose(self, _msg, w: Writer) -> None:
        if self.db is None:
            raise SqlError(-349, message="database not selected yet")
        self._close_db()
        write_done(w, 0)
