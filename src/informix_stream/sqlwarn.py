"""The server's warning flags (SQ_DONE's first short) as PEP 249 Warnings.

Every SQ_DONE starts with a short whose bits are Informix's
``sqlca.sqlwarn`` array: bit 0 is sqlwarn1, bit 1 sqlwarn2, ... bit 6
sqlwarn7 (sqlwarn0, "some flag is set", is the short being non-zero).  JDBC
reads them the same way (``IfxSqli.setWarnings`` walks bits 0-5 into
SQLWarnings; ``IfxSqli.receiveDone``).  What a bit means depends on the
statement: after a database is opened (SQ_DBOPEN, DATABASE, CREATE
DATABASE) the flags describe the database, after anything else they report
an event of the statement (IBM, "SQLWARN array", Informix Guide to SQL:
Tutorial; "Warnings in SQLSTATE", ESQL/C Guide).  The SQLSTATEs are IBM's:
where JDBC's mapping differs (it turns the no-WHERE flag into 01I05, the
GRANT ALL flag into 01003) we follow IBM's table, and compare by ``flag``
in the interop tests.

A bit this table does not know still becomes a Warning (SQLSTATE 01000,
its bit named): a flag is never dropped silently.
"""

from __future__ import annotations

from .errors import Warning  # noqa: A004 - PEP 249's name

__all__ = ["open_warnings", "statement_warnings", "WarningLog", "CursorWarnings",
           "LOCALE_MISMATCH"]

# sqlwarn7 after a database open: its DB_LOCALE is not the one the client
# sent (core/dblocale.py acts on it).
LOCALE_MISMATCH = 0x40

# After SQ_DBOPEN / DATABASE / CREATE DATABASE: what the database is.
_OPEN = {
    0x01: ("01I01", "the database has transaction logging"),
    0x02: ("01I03", "the database is ANSI-compliant"),
    0x04: ("01I04", "the database is managed by an Informix database server"),
    0x08: ("01I05", "the server stores FLOAT values as DECIMAL"),
    0x10: ("01I06", "the statement uses an Informix extension to ANSI SQL (DBANSIWARN)"),
    0x20: ("01I10", "the database server is a secondary server in read-only mode"),
    LOCALE_MISMATCH: ("01000", "the database's locale differs from the DB_LOCALE sent; "
                               "text travels in the database's code set"),
}

# After any other statement: something that happened while it ran.
_STATEMENT = {
    0x01: ("01006", "not every privilege was revoked (REVOKE ALL), or a value was truncated"),
    0x02: ("01003", "an aggregate function (SUM, AVG, MIN, MAX) met a NULL value"),
    0x04: ("01007", "not every privilege was granted (GRANT ALL)"),
    0x08: ("01I07", "the UPDATE or DELETE statement has no WHERE clause: "
                    "it affects every row of the table"),
    0x10: ("01I06", "the statement uses an Informix extension to ANSI SQL (DBANSIWARN)"),
    0x20: ("01I11", "DATASKIP is on: rows in unavailable dbspaces were skipped"),
}


def open_warnings(bits: int) -> list[Warning]:
    """The Warnings of the SQ_DONE that answered a database open."""
    return _warnings(bits, _OPEN)


def statement_warnings(bits: int) -> list[Warning]:
    """The Warnings of the SQ_DONE of any other statement."""
    return _warnings(bits, _STATEMENT)


def _warnings(bits: int, table: dict[int, tuple[str, str]]) -> list[Warning]:
    out = []
    bits &= 0xFFFF
    while bits:
        flag = bits & -bits
        bits ^= flag
        sqlstate, text = table.get(flag, ("01000", f"warning flag 0x{flag:04x} the driver "
                                                   "does not know"))
        sqlwarn = flag.bit_length()
        out.append(Warning(f"[{sqlstate}] sqlwarn{sqlwarn}: {text}", sqlstate=sqlstate,
                           flag=flag))
    return out


class WarningLog:
    """A cursor's warnings since its last execute: one Warning per flag
    (a flag every row of an executemany repeats is listed once), and how
    many of them were raised already."""

    __slots__ = ("warnings", "_flags", "_raised", "_notices")

    def __init__(self) -> None:
        self.warnings: list[Warning] = []
        self._flags = 0
        self._raised = 0
        self._notices: set[tuple[str, str]] = set()

    def note_reply(self, reply, opened: bool = False) -> None:
        """A reply's flags and the warnings its SQ_ERRs carried."""
        if reply.warnings:
            self.note(reply.warnings, opened)
        for sqlstate, text in reply.notices or ():
            if (sqlstate, text) not in self._notices:
                self._notices.add((sqlstate, text))
                self.warnings.append(Warning(f"[{sqlstate}] {text}", sqlstate=sqlstate))

    def note(self, bits: int, opened: bool = False) -> None:
        """Add the Warnings of new flags; ``opened``: the flags answered a
        database open -- traits of the database (``connection.warnings``
        too), listed but never raised."""
        bits &= ~self._flags
        if not bits:
            return
        self._flags |= bits
        if opened:
            self.warnings += open_warnings(bits)
            self._raised = len(self.warnings)
        else:
            self.warnings += statement_warnings(bits)

    def raise_new(self) -> None:
        """Raise the first Warning not raised yet (the statement's work is
        done, the cursor usable).  Only execute and executemany call this:
        raised from a fetch it could lose the rows fetchmany or fetchall
        had gathered, so the warnings of later batches are only listed."""
        if self._raised < len(self.warnings):
            first = self.warnings[self._raised]
            self._raised = len(self.warnings)
            raise first


class CursorWarnings:
    """A cursor's side of the warnings (cursor_base.CursorBase mixes it in):
    ``warnings``/``messages`` and the hooks the execute and fetch paths
    call.  The cursor gives it ``_warnings`` (a WarningLog, new at every
    execute), ``_session`` and ``connection``."""

    _warnings: WarningLog

    @property
    def warnings(self) -> list[Warning]:
        """The server's warnings on the last execute and its fetches so far."""
        return self._warnings.warnings

    @property
    def messages(self) -> list[tuple[type, Warning]]:
        """PEP 249's optional ``messages``: ``warnings`` as (class, value) pairs."""
        return [(type(w), w) for w in self._warnings.warnings]

    def _note_warnings(self, reply, opened: bool = False) -> None:
        """Keep a reply's warnings, or bare flags (an int: a PREPARE's, kept
        with its statement); ``opened``: the reply answered a database open,
        whose flags also become ``connection.warnings``."""
        if isinstance(reply, int):
            self._warnings.note(reply)
            return
        if opened:
            self._session.open_flags = reply.warnings
        self._warnings.note_reply(reply, opened)

    def _raise_warnings(self) -> None:
        """Execute and executemany raise the first new Warning when the
        connection has ``raise_warnings`` on (WarningLog.raise_new)."""
        if self.connection.raise_warnings:
            self._warnings.raise_new()
