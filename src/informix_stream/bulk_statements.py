"""The statements one executemany call runs, borrowed from the connection.

executemany (executemany.py) runs its INSERT and its own SAVEPOINT and
ROLLBACK TO SAVEPOINT statements; each is borrowed from the connection's
statement cache (core/statement_cache.py) when the cache holds it, else
prepared and offered to the cache, and at the end of the call given back
(or, when the cache does not keep it, released).  So a repeated small call
-- what SQLAlchemy's ORM bulk insert sends -- prepares nothing.
"""

from __future__ import annotations

from .core import requests as rq
from .core import statement as st


class Borrowed:
    """The statements of one call: which are the cache's, and their return."""

    def __init__(self, session, cache) -> None:
        self.session = session
        self.cache = cache
        self._kept: dict[int, st.Prepared] = {}     # lent by the cache, by id

    def is_kept(self, stmt_id: int | None) -> bool:
        return stmt_id in self._kept

    def checkout(self, sql: str) -> st.Prepared | None:
        """The cache's statement for ``sql``, lent to this call, or None."""
        prepared = self.cache.checkout(sql)
        if prepared is not None:
            self._kept[prepared.stmt_id] = prepared
        return prepared

    def prepare(self, sql: str, markers: int, always: bool = False):
        """PREPARE ``sql``; the cache keeps it if it may (``always``: whatever
        its kind, for executemany's own SAVEPOINT statements)."""
        prepared = yield from st.prepare(self.session, sql, markers)
        if self.cache.lend_new(sql, prepared, always):
            self._kept[prepared.stmt_id] = prepared
        return prepared

    def own(self, sql: str):
        """One of executemany's own statements (SAVEPOINT ...): kept by the
        connection between calls."""
        prepared = self.checkout(sql)
        if prepared is None:
            prepared = yield from self.prepare(sql, 0, always=True)
        return prepared

    def drop_stale(self, prepared: st.Prepared) -> None:
        """A statement the server called stale (-710): never lent again,
        released on the next request (its reply ignored)."""
        self.cache.forget(prepared.stmt_id)
        self._kept.pop(prepared.stmt_id, None)
        self.session.owe(rq.release_only(prepared.stmt_id))

    def finish(self, stmt_id: int | None, cursor_open: bool = False) -> None:
        """The call is done with ``stmt_id``: back to the cache (its
        evictions released on the next request), or released."""
        if stmt_id is None:
            return
        prepared = self._kept.pop(stmt_id, None)
        if prepared is None:
            self.session.defer_cleanup(rq.release(stmt_id, cursor_open))
            return
        for body in self.cache.give_back(prepared):
            self.session.defer_cleanup(body)
