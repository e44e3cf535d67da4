"""Arrow results on cursors: ``ArrowCursorMixin`` (blocking) and
``AsyncArrowCursorMixin`` (asyncio), mixed in before ``CursorBase``.

How rows reach the columnar decoder without becoming tuples: once a result
is read as Arrow, the cursor's row decoder is swapped for one that keeps
each SQ_TUPLE's row image as bytes (``raw_row_decoder``); fetch requests
sent from then on, and a read-ahead not yet answered, fill their replies
with images, which ``columnar.decode_batch`` turns into a RecordBatch a
column at a time.  Rows decoded as tuples before the switch (the first
fetch buffer arrives with OPEN; a read-ahead may already be answered) go
through the reference converter, so a batch is the same either way.

The mixins override one hook of ``CursorBase``, ``_take`` (a fetch reply
becomes the current batch): they remember the reply's rows before the row
factory applies, and if images reach a tuple consumer (``fetchone`` after
some Arrow batches) they are decoded into rows there, so the two ways of
reading one result can be mixed and neither ever sees the other's rows.

The batch operation is one generator (``_arrow_batch_gen``) run by either
connection's ``_wait``, like every other cursor operation.
"""

from __future__ import annotations

import operator
from collections.abc import AsyncIterator, Iterator

from ..core import statement as st
from ..cursor_claim import claimed
from ..errors import (DataError, InterfaceError, NotSupportedError, ProgrammingError,
                      ProtocolError)
from ._deps import load
from .bulk import ImageDecoder, ImageRows
from .columnar import concat_blocks, decode_block, fixed_row_width, pack_images
from .reference import rows_to_batch
from .types import arrow_schema

DEFAULT_BATCH_ROWS = 65536


def raw_row_decoder(width: int | None):
    """An Expect decode function keeping each row image as bytes; a
    fixed-width shape checks each image's size here, as the tuple decoder
    would (a mismatch is the ProtocolError that breaks the connection)."""
    if width is None:
        def raw_row(buf, start, stop):
            return buf[start:stop], stop
    else:
        def raw_row(buf, start, stop):
            if stop - start != width:
                raise ProtocolError(f"row image of {stop - start} bytes decoded as {width}: "
                                    "the described columns do not match the row")
            return buf[start:stop], stop
    raw_row.arrow_images = True
    return raw_row


class _PendingRows(list):
    """A fetch buffer an Arrow batch stopped inside of: the rows from
    ``start`` on are still images, decoded into rows (``convert``) the first
    time a tuple consumer (fetchone, iteration) looks at them -- an Arrow
    batch that comes next reads the images and never pays for that."""

    def __init__(self, images: list, start: int, convert) -> None:
        super().__init__(images)
        self._start, self._convert = start, convert

    def _ready(self) -> None:
        if self._convert is not None:
            convert, self._convert = self._convert, None
            start = self._start
            self[start:] = convert(list.__getitem__(self, slice(start, None)))

    def __getitem__(self, index):
        self._ready()
        return super().__getitem__(index)

    def __iter__(self):
        self._ready()
        return super().__iter__()


class _ArrowBase:
    """What both mixins share: the switch to images, and one batch's operation."""

    _arrow_rows: list = []          # the current batch's rows before any row factory
    _arrow_collecting = False
    # False: fetch replies cut one image per SQ_TUPLE (raw_row_decoder), the
    # reference the bulk path (arrow/bulk.py) is tested against.
    arrow_bulk = True

    # -- the CursorBase hook -----------------------------------------------------------
    def _take(self, reply) -> None:
        rows = reply.rows
        if rows and not isinstance(rows[0], tuple) and not self._arrow_collecting:
            # Images reaching a tuple consumer: decode them into rows here.
            reply.rows = rows = self._images_to_tuples(rows)
        self._arrow_rows = rows
        if self._arrow_collecting:
            make, self._make_row = self._make_row, None
            try:
                super()._take(reply)
            finally:
                self._make_row = make
        else:
            super()._take(reply)

    def _images_to_tuples(self, images: list) -> list:
        decode = self._arrow_row_decode
        try:
            return [decode(image, 0, len(image))[0] for image in images]
        except BaseException:
            self._abandon()
            raise

    def _images_to_rows(self, images: list) -> list:
        rows = self._images_to_tuples(images)
        make = self._make_row
        return rows if make is None else [make(r) for r in rows]

    # -- starting ---------------------------------------------------------------------------
    def _arrow_start(self, batch_rows: int) -> tuple:
        """Check the result can be read as Arrow in batches of ``batch_rows``
        (a count below 1 would read as the end of the rows); switch fetches
        to images; return (types, names, schema, the result's decode hook:
        what ties a batch iterator to this result)."""
        try:
            rows = operator.index(batch_rows)
        except TypeError:
            rows = 0
        if rows < 1:
            raise ProgrammingError(f"batch_rows must be a whole number of rows, at least 1, "
                                   f"not {batch_rows!r}")
        load()
        self._check_result()
        if self.scrollable:
            raise NotSupportedError("Arrow batches are read from a forward cursor, "
                                    "not a scrollable one")
        types = st.column_types(self._prepared)
        names = [d[0] for d in self.description]
        decode = self._decode
        if not getattr(decode, "arrow_images", False):
            self._arrow_row_decode = decode
            width = fixed_row_width(types)
            raw = ImageDecoder(width) if self.arrow_bulk else raw_row_decoder(width)
            self._decode = raw
            for expect in self._ahead:
                if not expect.done and not expect.reply.rows:
                    expect.decode = raw
        if len(self._arrow_rows) != len(self._batch):
            self._arrow_rows = self._batch     # a batch taken before the hook saw it
        return types, names, arrow_schema(load()[1], names, types), self._decode

    # -- one batch ------------------------------------------------------------------------
    def _arrow_batch_gen(self, state: tuple, batch_rows: int):
        """The next RecordBatch of at most ``batch_rows`` rows, or None at the end.

        Images are packed one fetch reply at a time (``pack_images``), so a
        batch holds its rows as bytes, not as a Python object per row.
        An iterator kept past ``execute`` or ``close`` raises: it would read
        the next statement's rows under its own schema, and take them from
        the cursor's own fetches."""
        types, names, _, decode = state
        self._check_result()
        if self._decode is not decode:
            raise InterfaceError("this Arrow batch iterator's result is gone: the cursor "
                                 "executed another statement since it began")
        np, _ = load()
        width = fixed_row_width(types)
        tuples: list = []
        blocks: list = []
        count = 0
        images = None
        self._arrow_collecting = True
        try:
            while count < batch_rows:
                if self._pos >= len(self._batch):
                    if not (yield from self._fetch_batch_gen()):
                        break
                    continue
                rows = self._arrow_rows
                stop = min(len(rows), self._pos + batch_rows - count)
                bulk = isinstance(rows, ImageRows)
                chunk = None if bulk else rows[self._pos:stop]
                kind = bulk or not isinstance(chunk[0], tuple)
                if images is not None and kind != images:
                    break                       # tuples and images are not mixed in a batch
                images = kind
                if bulk:
                    blocks.append(rows.block(self._pos, stop))
                elif kind:
                    blocks.append(pack_images(np, chunk, width))
                else:
                    tuples += chunk
                count += stop - self._pos
                self._pos = stop
                if self._pos >= len(self._batch) and self._arrow_rows is self._batch:
                    # Packed: let the reply's row objects go now (the session
                    # keeps this operation's replies until the batch is done).
                    self._batch.clear()
                    self._pos = 0
        finally:
            self._arrow_collecting = False
            batch = self._batch
            if self._pos < len(batch) and not isinstance(batch[self._pos], tuple):
                self._batch = _PendingRows(batch, self._pos, self._images_to_rows)
        if not count:
            return None
        try:
            if images:
                return decode_block(concat_blocks(np, blocks, width), types, names,
                                    self._arrow_encoding())
            return rows_to_batch(tuples, types, names)
        except ProtocolError as exc:
            self.connection._session.mark_broken(f"protocol error: {exc}")
            self._abandon()
            raise
        except DataError:
            self._abandon()
            raise

    def _arrow_encoding(self) -> str:
        return getattr(self.connection, "encoding", None) or "iso-8859-1"


class ArrowCursorMixin(_ArrowBase):
    """``fetch_arrow_batches``/``fetch_arrow_table``/``fetch_arrow_reader`` and
    the Arrow PyCapsule stream protocol on a blocking cursor."""

    def fetch_arrow_batches(self, batch_rows: int = DEFAULT_BATCH_ROWS) -> Iterator:
        """Yield the rest of the result as ``pyarrow.RecordBatch`` es of at most
        ``batch_rows`` rows (see ``informix_stream.arrow.types`` for the type map)."""
        state = self._arrow_start(batch_rows)
        return self._arrow_iter(state, batch_rows)

    _arrow_start = claimed(_ArrowBase._arrow_start)

    def _arrow_iter(self, state, batch_rows: int) -> Iterator:
        """Each batch claims the cursor while it is read (``cursor_claim``);
        between batches the cursor is free."""
        while True:
            batch = self._arrow_batch(state, batch_rows)
            if batch is None:
                return
            yield batch

    @claimed
    def _arrow_batch(self, state, batch_rows: int):
        return self.connection._wait(self._arrow_batch_gen(state, batch_rows))

    def fetch_arrow_table(self, batch_rows: int = DEFAULT_BATCH_ROWS):
        """The rest of the result as one ``pyarrow.Table``."""
        state = self._arrow_start(batch_rows)
        _, pa = load()
        return pa.Table.from_batches(list(self._arrow_iter(state, batch_rows)),
                                     schema=state[2])

    def fetch_arrow_reader(self, batch_rows: int = DEFAULT_BATCH_ROWS):
        """The rest of the result as a ``pyarrow.RecordBatchReader`` (streaming)."""
        state = self._arrow_start(batch_rows)
        _, pa = load()
        return pa.RecordBatchReader.from_batches(state[2], self._arrow_iter(state, batch_rows))

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        """The Arrow PyCapsule stream protocol: ``polars.from_arrow(cur)``,
        ``pyarrow.table(cur)``, ``duckdb`` read the result with no Python rows."""
        return self.fetch_arrow_reader().__arrow_c_stream__(requested_schema)


class AsyncArrowCursorMixin(_ArrowBase):
    """``async for batch in cur.fetch_arrow_batches()`` and
    ``await cur.fetch_arrow_table()`` on an asyncio cursor."""

    _arrow_start = claimed(_ArrowBase._arrow_start)

    async def fetch_arrow_batches(self, batch_rows: int = DEFAULT_BATCH_ROWS
                                  ) -> AsyncIterator:
        """Each batch claims the cursor while it is read (``cursor_claim``)."""
        state = self._arrow_start(batch_rows)
        while True:
            batch = await self._arrow_batch(state, batch_rows)
            if batch is None:
                return
            yield batch

    @claimed
    async def _arrow_batch(self, state, batch_rows: int):
        return await self.connection._wait(self._arrow_batch_gen(state, batch_rows))

    async def fetch_arrow_table(self, batch_rows: int = DEFAULT_BATCH_ROWS):
        state = self._arrow_start(batch_rows)
        _, pa = load()
        batches = []
        while True:
            batch = await self._arrow_batch(state, batch_rows)
            if batch is None:
                return pa.Table.from_batches(batches, schema=state[2])
            batches.append(batch)
