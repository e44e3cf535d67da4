"""A database's transaction-logging mode, as CREATE DATABASE sets it.

Informix fixes the mode when a database is created: no ``WITH`` clause makes
a database without logging, where BEGIN WORK, COMMIT WORK and ROLLBACK WORK
are refused with -256 (IBM, "Select the type of logging", Database Design
and Implementation Guide; -256 "Transaction not available" in the IBM JDBC
15.0.1.0 message catalog, sql_en_US.properties); ``WITH LOG`` and ``WITH
BUFFERED LOG`` make a logged one; ``WITH LOG MODE ANSI`` an ANSI-compliant
one: every statement runs in a transaction that lasts until COMMIT WORK or
ROLLBACK WORK (engine.Engine.check_current), and a text value too long for
its column raises -1279 instead of being cut (values.py).

The mode lives in the SQLite file's header (``PRAGMA user_version``), so it
survives a restart with a data directory and travels with a cloned file.
Zero is unbuffered logging: every database made before this module existed
was served as a logged one, and still is.
"""

from __future__ import annotations

import enum
import sqlite3

# SQ_DONE warning bits after a database is opened, as JDBC reads them
# (IfxSqli.setWarnings; IfxSqliConnect.xaSetSerWarnFlags sets 1 for
# is_logging and 2 for is_ansi): 0x01 logged, 0x02 ANSI, 0x04 IDS.
_LOGGED, _ANSI, _IDS = 0x01, 0x02, 0x04


class Logging(enum.IntEnum):
    """How a database logs; the value is what its file header stores."""

    UNBUFFERED = 0      # WITH LOG
    BUFFERED = 1        # WITH BUFFERED LOG
    NONE = 2            # no WITH clause
    ANSI = 3            # WITH LOG MODE ANSI

    @property
    def logged(self) -> bool:
        return self is not Logging.NONE

    @property
    def open_warnings(self) -> int:
        """The SQ_DONE warnings a DATABASE statement answers with."""
        bits = _IDS
        if self.logged:
            bits |= _LOGGED
        if self is Logging.ANSI:
            bits |= _ANSI
        return bits


def read_logging(conn: sqlite3.Connection) -> Logging:
    """The mode stored in the file (ValueError for a header this module
    never wrote: better no database than one served with the wrong mode)."""
    (value,) = conn.execute("PRAGMA user_version").fetchone()
    return Logging(value)


def write_logging(conn: sqlite3.Connection, mode: Logging) -> None:
    conn.execute(f"PRAGMA user_version = {int(mode)}")
