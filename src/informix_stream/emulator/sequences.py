"""Sequence objects: CREATE/DROP SEQUENCE and ``seq.NEXTVAL``/``seq.CURRVAL``.

What the server does (IBM Informix Guide to SQL: Syntax, "CREATE SEQUENCE"
and "NEXTVAL and CURRVAL operators"): a sequence is a database object listed
in systables with tabtype 'Q' and described in syssequences; its values are
INT8; NEXTVAL moves it on whether the transaction later commits or rolls
back (numbers may be skipped, never reused); CURRVAL is the value this
session's last NEXTVAL returned, an error (-8315) before the first; past
MAXVALUE or below MINVALUE without CYCLE is -8313/-8314.  Codes from IBM's
message catalog (JDBC 15.0.1.0, sql_en_US.properties).

So the counter lives outside SQLite's transactions: in memory under the
database's lock, written back to the meta table when the database closes
and whenever a sequence DDL statement runs.  An emulator killed with
SIGKILL may hand out again the numbers issued since then (a real server
skips its cached block instead); a reissued key then fails loudly as a
duplicate, it is never silently merged.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from dataclasses import dataclass

from .statements import SqlError
from .values import DAY0

SEQUENCE_DDL = """
CREATE TABLE IF NOT EXISTS _ifx_sequences (
    tabid INTEGER PRIMARY KEY, start_val INTEGER, inc_val INTEGER, min_val INTEGER,
    max_val INTEGER, cycle INTEGER, cache INTEGER, next_val INTEGER);
CREATE VIEW IF NOT EXISTS syssequences AS SELECT tabid AS seqid, tabid, start_val, inc_val,
    max_val, min_val, CASE cycle WHEN 1 THEN '1' ELSE '0' END AS cycle,
    next_val AS restart_val, cache, '1' AS "order" FROM _ifx_sequences;
"""
INT8_MAX = 2 ** 63 - 1


@dataclass
class CreateSequence:
    """CREATE SEQUENCE as the dialect parsed it (None: the default)."""

    name: str
    start: int | None = None
    increment: int = 1
    minvalue: int | None = None
    maxvalue: int | None = None
    cycle: bool = False
    cache: int = 20
    if_not_exists: bool = False


@dataclass
class SequenceState:
    tabid: int
    start: int
    increment: int
    minvalue: int
    maxvalue: int
    cycle: bool
    cache: int
    next: int             # the value the next NEXTVAL returns


def resolved(spec: CreateSequence) -> tuple[int, int, int]:
    """(start, minvalue, maxvalue) with the server's defaults for the direction."""
    if spec.increment == 0:
        raise SqlError(-8305, 0, spec.name, "INCREMENT 0 is not allowed in sequences")
    up = spec.increment > 0
    low = spec.minvalue if spec.minvalue is not None else (1 if up else -INT8_MAX)
    high = spec.maxvalue if spec.maxvalue is not None else (INT8_MAX if up else -1)
    start = spec.start if spec.start is not None else (low if up else high)
    if not low <= start <= high or low >= high:
        raise SqlError(-8302, 0, spec.name, "sequence definition value out of range")
    return start, low, high


class Sequences:
    """The sequences of one database."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.states: dict[str, SequenceState] = {}

    def load(self, conn: sqlite3.Connection) -> None:
        """Read the definitions (after a DDL, or a rollback of one); a
        sequence that survives keeps the counter it has in memory."""
        rows = conn.execute(
            "SELECT t.tabname, s.tabid, start_val, inc_val, min_val, max_val, cycle, cache,"
            " next_val FROM _ifx_sequences s JOIN _ifx_tables t ON t.tabid = s.tabid")
        with self.lock:
            old = self.states
            self.states = {}
            for name, tabid, start, inc, low, high, cycle, cache, nxt in rows:
                kept = old.get(name)
                if kept is not None and kept.tabid == tabid:
                    nxt = kept.next
                self.states[name] = SequenceState(tabid, start, inc, low, high, bool(cycle),
                                                  cache, nxt)

    def create(self, conn: sqlite3.Connection, spec: CreateSequence, tabid: int,
               owner: str) -> None:
        start, low, high = resolved(spec)
        today = dt.date.today().toordinal() - DAY0
        conn.execute("INSERT INTO _ifx_tables (tabid, tabname, owner, created, tabtype, ncols,"
                     " rowsize) VALUES (?, ?, ?, ?, 'Q', 0, 0)", (tabid, spec.name, owner, today))
        conn.execute("INSERT INTO _ifx_sequences VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     (tabid, start, spec.increment, low, high, int(spec.cycle), spec.cache,
                      start))

    def drop(self, conn: sqlite3.Connection, name: str) -> None:
        state = self.states[name]
        conn.execute("DELETE FROM _ifx_sequences WHERE tabid = ?", (state.tabid,))
        conn.execute("DELETE FROM _ifx_tables WHERE tabid = ?", (state.tabid,))

    def next_value(self, name: str) -> int:
        """NEXTVAL: never undone by a rollback."""
        with self.lock:
            state = self.states.get(name)
            if state is None:
                raise SqlError(-8300, 0, name, f"sequence {name} is not in the database")
            value = state.next
            if not state.minvalue <= value <= state.maxvalue:
                if not state.cycle:
                    code = -8313 if state.increment > 0 else -8314
                    raise SqlError(code, 0, name, f"sequence {name} is exhausted")
                value = state.minvalue if state.increment > 0 else state.maxvalue
            state.next = value + state.increment
            return value

    def save(self, conn: sqlite3.Connection) -> None:
        """Write the counters back (database close, sequence DDL)."""
        with self.lock:
            pairs = [(s.next, s.tabid) for s in self.states.values()]
        conn.executemany("UPDATE _ifx_sequences SET next_val = ? WHERE tabid = ?", pairs)
