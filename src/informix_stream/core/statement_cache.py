"""Prepared statements kept per connection, so re-executing the same SQL
skips its PREPARE round trip (psycopg 3 and python-oracledb do the same).

Only queries and DML are kept (SELECT, INSERT, UPDATE, DELETE).  An entry
is lent to one cursor at a time: a second cursor running the same SQL while
the first still streams prepares its own statement.  Least recently used
entries beyond ``capacity`` are released; DDL run on the connection empties
the cache (the descriptions may no longer hold).  When the server says a
kept statement no longer matches its tables (-710), the caller prepares
again once, transparently.
"""

from __future__ import annotations

from collections import OrderedDict

from ..messages import StmtType
from . import requests as rq

CACHEABLE = frozenset({StmtType.SELECT, StmtType.INSERT, StmtType.UPDATE, StmtType.DELETE,
                       StmtType.DELETE_ALL, StmtType.UPDATE_ALL})
# Statement types after which every kept description may be stale.
INVALIDATING = frozenset({StmtType.SELECT_INTO, StmtType.CREATE_TABLE, StmtType.DROP_TABLE,
                          StmtType.CREATE_INDEX, StmtType.DROP_INDEX, StmtType.ALTER,
                          StmtType.DATABASE,
                          StmtType.CLOSE_DATABASE, StmtType.CREATE_DATABASE})
# "Table has been dropped, altered, or renamed": a kept statement is stale.
STALE_STATEMENT = -710


class StatementCache:
    """SQL text -> a Prepared the server still holds (see module docstring)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._idle: OrderedDict[str, object] = OrderedDict()
        self._lent: dict[int, str | None] = {}  # stmt id -> SQL while lent (None: drop it)
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        """Statements the server holds for this cache (kept or lent)."""
        return len(self._idle) + len(self._lent)

    def checkout(self, sql: str):
        """A kept statement for ``sql``, lent to the caller, or None."""
        prepared = self._idle.pop(sql, None)
        if prepared is None:
            self.misses += 1
            return None
        self.hits += 1
        self._lent[prepared.stmt_id] = sql
        return prepared

    def lend_new(self, sql: str, prepared, always: bool = False) -> bool:
        """Keep a freshly prepared statement (lent to its cursor now); False
        when it is not the kind that is kept.  ``always``: keep it whatever
        its kind (executemany's own SAVEPOINT statements, which name no
        table and so never go stale)."""
        if not self.capacity or not (always or prepared.describe.stmt_type in CACHEABLE):
            return False
        self._lent[prepared.stmt_id] = sql
        return True

    def is_kept(self, stmt_id: int) -> bool:
        return stmt_id in self._lent

    def give_back(self, prepared) -> list[bytes]:
        """The cursor is done with it; returns the RELEASEs of evicted entries."""
        sql = self._lent.pop(prepared.stmt_id, None)
        if sql is None or sql in self._idle:     # doomed, or the same SQL kept meanwhile
            return [rq.release_only(prepared.stmt_id)]
        self._idle[sql] = prepared
        released = []
        while len(self._idle) > self.capacity:
            _, old = self._idle.popitem(last=False)
            released.append(rq.release_only(old.stmt_id))
        return released

    def forget(self, stmt_id: int) -> None:
        """A lent statement that must not come back (it failed, or went stale)."""
        self._lent.pop(stmt_id, None)

    def clear(self) -> list[bytes]:
        """Drop every idle entry (after DDL); lent ones are released on return."""
        released = [rq.release_only(p.stmt_id) for p in self._idle.values()]
        self._idle.clear()
        self._lent = dict.fromkeys(self._lent)
        return released
