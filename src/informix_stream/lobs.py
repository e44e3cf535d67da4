"""Reading BYTE/TEXT values: a batch's blob descriptors exchanged for their
contents while the server cursor is still open.

A row brings a BYTE/TEXT cell as a 56-byte descriptor (``codec.lob.LobRef``).
The contents come from SQ_FETCHBLOB, answered by SQ_BLOB chunks (JDBC
``IfxSqli.executeFetchBlob``; informix-driver dereferences every descriptor
before it closes the cursor, for the same reason).  The cursor calls
``resolve_gen`` on each batch before the batch becomes current, so the
CLOSE that ends a result is queued only after every descriptor of it was
used.  A batch's requests go out together (one round trip per batch); with
read-ahead they follow the next NFETCH, which moves the server cursor on
but leaves earlier descriptors valid (informix-driver reads all batches
before dereferencing any descriptor).

Only PEP 249 errors come out: a server error (e.g. -604) ends the result; a
reply that is not the value its descriptor declared breaks the connection.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

from .codec.lob import LobRef
from .codecs import TypeCode
from .core import requests as rq
from .core import statement as st
from .core.session import ClientSession
from .errors import ProtocolError
from .lobsinks import ValueSink

LOB_CODES = (TypeCode.BYTE, TypeCode.TEXT, TypeCode.BLOB, TypeCode.CLOB)
# Room for the chunk headers of a blob reply beyond its declared size.
_REPLY_SLACK = 64 * 1024


def lob_columns(types: Sequence) -> tuple[int, ...]:
    """Indexes of the BYTE/TEXT columns of a result."""
    return tuple(k for k, t in enumerate(types) if t.code in LOB_CODES)


def resolve_gen(session: ClientSession, stmt_id: int, rows: list, columns: tuple[int, ...],
                encoding: str, spool: Callable[[LobRef], Any] | None = None
                ) -> Generator[Any, None, None]:
    """Replace each LobRef in ``rows`` (in place) by its value: bytes for
    BYTE, str for TEXT; or, with ``spool``, by what ``spool(ref)`` made, the
    object the reply's chunks were appended to (``len`` and ``+=``), so a
    value is never held whole (``lobstream``)."""
    wanted = []
    for i, row in enumerate(rows):
        for k in columns:
            ref = row[k]
            if isinstance(ref, LobRef):
                size = ref.size
                if size < 0:
                    _broken(session, f"a blob descriptor declares {size} bytes")
                expect = session.send(rq.fetch_blob(stmt_id, ref.descriptor),
                                      blob_limit=size, budget=2 * size + _REPLY_SLACK)
                expect.reply.blob = ValueSink(size) if spool is None else spool(ref)
                wanted.append((i, k, ref, expect))
    if not wanted:
        return
    yield wanted[-1][3]
    values: dict[int, dict[int, object]] = {}
    for i, k, ref, expect in wanted:
        st.raise_for(expect.reply)
        values.setdefault(i, {})[k] = _value(session, ref, expect.reply, k, encoding)
    for i, cells in values.items():
        row = list(rows[i])
        for k, value in cells.items():
            row[k] = value
        rows[i] = tuple(row)


def _value(session: ClientSession, ref: LobRef, reply, column: int, encoding: str) -> object:
    data = reply.blob
    if not reply.blob_ended or len(data) != ref.size:
        _broken(session, f"the server sent {len(data)} bytes of a {ref.size}-byte blob")
    if not isinstance(data, ValueSink):
        return data             # a spool (stream mode)
    return data.value(ref.text, encoding, column, "TEXT")


def _broken(session: ClientSession, why: str) -> None:
    session.mark_broken(f"protocol error: {why}")
    raise ProtocolError(why)
