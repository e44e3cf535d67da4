"""What a pipelined chunk left in the table when the server aborted its
transaction (-458, long transaction) at one of its rows.

The server rolled back the WHOLE transaction at row k (docs/protocol.md,
"Long transaction aborted"; emulator/long_tx.py) while the chunk's later
requests were already on the wire.  They ran outside any transaction:

* in a logged (non-ANSI) database a BIND+EXECUTE runs as a singleton
  transaction and stays committed; an insert cursor's request re-OPENs the
  cursor, which needs a transaction there, so its rows are refused (-255);
* in an ANSI database each opens a new implicit transaction, which ending
  the aborted state undoes (ROLLBACK WORK: connection_base._end_aborted_gen),
  so none stays.

``report`` walks the chunk's replies and returns the -458 error for row k
with ``applied_after`` (rows after k that the server applied, and keeps) and
``applied_until`` (rows[:applied_until] of the call are in the table: 0 when
the rows ran in the caller's transaction, the chunk's first row when each
chunk committed its own).
"""

from __future__ import annotations

from collections.abc import Sequence

from .core.session import LONG_TRANSACTION_ABORTED, Expect
from .errors import Error
from .row_errors import ranges, row_error, with_note


def report(first: int, expects: Sequence[Expect], counts: Sequence[int], *,
           ansi: bool, applied_until: int) -> Error:
    """The error to raise for a chunk starting at row ``first`` whose
    requests (``expects``, each carrying ``counts[i]`` rows) met -458."""
    row, failed, applied_after = first, None, []
    for expect, count in zip(expects, counts):
        reply = expect.reply
        landed = count if reply.error is None else reply.done_rows + (reply.put_inserted or 0)
        if failed is None:
            if reply.error is not None and reply.error.sqlcode == LONG_TRANSACTION_ABORTED:
                failed = row_error(row + landed, reply)
        elif not ansi:
            applied_after.extend(range(row, row + landed))
        row += count
    if failed is None:                         # pragma: no cover - the caller saw -458
        raise AssertionError("a chunk without -458 reported as aborted")
    failed.applied_after = applied_after
    failed.applied_until = applied_until
    after = (f"; rows {ranges(applied_after)} after it in the same chunk were applied "
             "as transactions of their own (committed)" if applied_after else
             "; no row after it was applied")
    kept = (f"rows 0..{applied_until - 1} of this call are in the table (committed by "
            "earlier chunks)" if applied_until else "no row of this call before it is in the table")
    return with_note(failed, f"the server rolled back the whole transaction: {kept}{after}")

