"""Pipelined executemany: prepare once, then BIND+EXECUTE requests in chunks.

Within a chunk every request is sent back to back and the replies are read
as they arrive (``Wire.pipeline`` never lets the two directions block each
other), so a chunk of N rows costs about one round trip instead of N.  Once
a chunk is on the wire its requests are let go, and the next chunk is encoded
while the server works through this one; it is sent only after this chunk's
replies are in, so the client's encoding costs no wall time and memory still
holds one chunk of requests.
Chunks bound three things: client memory (one chunk of encoded requests),
how long the connection's lock and wire are held (other threads get a turn
between chunks), and how much work one failure can leave behind.

Errors: each request has its own reply, so when row k fails the rest of its
chunk has already executed or failed on its own; their replies are read,
``rowcount`` counts exactly the rows applied, nothing after that chunk is
sent, and the exception names row k (zero-based, over the whole call).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .connection import raise_for
from .cursors import encode_params, release_request
from .errors import Error
from .framing import Writer
from .messages import StmtType, Tag
from .placeholders import convert

# Chosen by measurement (100k-row executemany against the emulator, one
# transaction, median of 3): 250 rows a chunk 40.0k rows/s, 1,000 44.9k,
# 4,000 48.7k, 16,000 47.9k.  Past a few thousand rows the per-chunk pause
# is amortised, and a chunk still holds the lock for only ~0.1 s.
DEFAULT_CHUNK_SIZE = 4000
DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024

_BIND_HEAD = struct.Struct("!hh")
_EXECUTE = Writer().short(Tag.EXECUTE).getvalue()


def _chunks(rows: Iterable[Sequence[Any]], order, count: int, prefix: bytes,
            chunk_size: int, chunk_bytes: int) -> Iterator[tuple[int, list[bytes]]]:
    """Yield (index of the chunk's first row, encoded requests), lazily.

    A row that cannot be encoded fails its whole chunk before anything of it
    is sent.  An exception from the caller's iterable is different: the rows
    it did produce are sent first, then the exception goes on.
    """
    requests: list[bytes] = []
    size, first = 0, 0
    source = iter(rows)
    index = 0
    while True:
        try:
            params = next(source)
        except StopIteration:
            break
        except BaseException:
            if requests:
                yield first, requests
            raise
        try:
            encoded = encode_params(params, order, count)
        except Error as exc:
            exc.row_index = index
            exc.args = (f"row {index}: {exc.args[0]}",)
            raise
        request = prefix + _BIND_HEAD.pack(Tag.BIND, len(encoded)) + b"".join(encoded) + _EXECUTE
        requests.append(request)
        size += len(request)
        index += 1
        if len(requests) >= chunk_size or size >= chunk_bytes:
            yield first, requests
            requests, size, first = [], 0, index
    if requests:
        yield first, requests


def execute_many(cursor, operation: str, seq_of_parameters: Iterable[Sequence[Any]], *,
                 chunk_size: int = DEFAULT_CHUNK_SIZE,
                 chunk_bytes: int = DEFAULT_CHUNK_BYTES,
                 commit_every_chunk: bool = False) -> None:
    """Run ``operation`` for every parameter row; see the module docstring."""
    if chunk_size < 1 or chunk_bytes < 1:
        raise ValueError("chunk_size and chunk_bytes must be positive")
    conn = cursor.connection
    sql, order, count = convert(operation)
    describe = cursor._prepare(sql, count)
    stmt_id = describe.stmt_id
    prefix = Writer().short(Tag.ID).short(stmt_id).getvalue()
    is_insert = describe.stmt_type == StmtType.INSERT
    cursor.rowcount = 0
    chunks = _Lookahead(_chunks(seq_of_parameters, order, count, prefix,
                                chunk_size, chunk_bytes))
    try:
        for first, requests in chunks:
            if commit_every_chunk and not conn.autocommit and not conn._in_transaction:
                conn.request(Writer(), begin=True)
            # While the server works through this chunk, encode the next one
            # (sent only after this chunk's replies are in and all succeeded).
            replies = conn.pipeline(requests, chunks.prepare)
            failed = None
            for i, reply in enumerate(replies):
                if reply.error is None:
                    cursor.rowcount += max(reply.rowcount, 0)
                    if is_insert:
                        cursor.lastrowid = (reply.serial8 or reply.bigserial
                                            or reply.serial or cursor.lastrowid)
                elif failed is None:
                    failed = (first + i, reply)
            if failed is not None:
                _raise_row_error(*failed)
            if commit_every_chunk:
                conn.commit()
    finally:
        cursor._stmt_id = None
        # Releasing a statement with no open cursor cannot fail: it rides
        # on the next request instead of costing a round trip now.
        conn.defer_cleanup(release_request(stmt_id, False))


class _Lookahead:
    """Iterates the chunks, able to build the next one ahead of time.

    ``prepare`` pulls the next chunk early (the client's encoding then
    overlaps with the server's work on the current chunk); an exception it
    meets -- a row that cannot be encoded, or the caller's generator failing --
    is kept and raised when the loop reaches that point, after the current
    chunk's replies were handled.
    """

    _EMPTY = object()

    def __init__(self, chunks: Iterator) -> None:
        self._chunks = chunks
        self._next: object = self._EMPTY
        self._error: BaseException | None = None

    def prepare(self) -> None:
        if self._next is self._EMPTY and self._error is None:
            try:
                self._next = next(self._chunks)
            except StopIteration:
                self._next = None
            except BaseException as exc:  # noqa: BLE001 - re-raised in order
                self._error = exc

    def __iter__(self) -> _Lookahead:
        return self

    def __next__(self):
        self.prepare()
        item, self._next = self._next, self._EMPTY
        if item is not None and item is not self._EMPTY:
            return item
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        raise StopIteration


def _raise_row_error(index: int, reply) -> None:
    try:
        raise_for(reply)
    except Error as exc:
        exc.row_index = index
        exc.args = (f"row {index}: {exc.args[0]}",)
        raise
