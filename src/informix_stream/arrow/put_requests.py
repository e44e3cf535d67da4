"""The insert cursor fed batches of row images in one buffer: chunks and
SQ_PUT requests cut a block at a time.

Row by row (insert_cursor.item_chunks and InsertCursor.requests) every
image is a ``bytes`` and every chunk and request is assembled by a Python
loop over the rows: ~260 ns a row, more than building the images from
Arrow costs (bench/README.md, "Encode cost per type of a load").  A batch
built a column at a time (put_images.py) holds its images in one buffer,
with room beside each: ``HEADROOM`` bytes before it, for the header of an
SQ_PUT message starting at that row, and the byte after an odd image, for
its pad.  Here a chunk's end, its requests' ends and their messages come
from numpy over the rows' lengths, the headers and pads are written into
that room, and each request is cut from the buffer by one struct compiled
for it (a piece a row: its header if it starts a message, its image, its
pad), so a request costs a bounded number of Python steps and a row none.

The row-by-row path stays the reference: over the same rows it gives the
same chunks and byte-identical requests (tests/test_put_requests.py draws
shapes, NULLs, bound rows, chunk sizes and byte limits with hypothesis).
What a repair or ``batch_errors`` sends again (``Blocks.items``) is cut a
row at a time only when asked for and goes through the reference.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any, NamedTuple

from ..insert_cursor import MAX_PUT_ROWS, PUT_BLOCK_BYTES, BadRow, Blocks, InsertCursor
from ..messages import Tag

# An SQ_PUT message's header: short tag, int row size, short row count.
HEADROOM = 8
_HEADER = [("tag", ">i2"), ("width", ">i4"), ("rows", ">i2")]
# A request holds rows while it has fewer than PUT_BLOCK_BYTES, and a row
# takes at least 2 (padded): so no message reaches SQ_PUT's row limit and
# messages split only where the row size changes or a request ends.
assert PUT_BLOCK_BYTES // 2 + 1 <= MAX_PUT_ROWS


class ImageBatch(NamedTuple):
    """Rows for the insert cursor, their images in one buffer.

    Row r's image is ``buf[starts[r]:starts[r] + lengths[r]]`` (``buf`` a
    writable numpy uint8 array, the others numpy int64); the HEADROOM bytes
    before it and, when its length is odd, the byte after it are free for
    this module to write.  ``binds`` maps each row that is not put to its
    bind blocks (its image is then never read).  ``dense`` batches have no
    room: every image is as long, each odd one's pad byte already zero, and
    they lie end to end, so the rows of a request within such a batch are
    one slice of it."""

    buf: Any
    starts: Any
    lengths: Any
    binds: dict[int, list[bytes]]
    dense: bool = False


class _Tokens:
    """struct format tokens, one fixed-width byte string per count and all
    of one width (blank-padded: struct skips blanks between its codes), so
    a request's format is one numpy ``take`` and ``tobytes`` rather than a
    string join a row: ``skip[k]`` is "{k}x", ``take[k]`` "{k}s"."""

    skip: Any = None
    take: Any = None

    @classmethod
    def tables(cls, np, top: int) -> tuple[Any, Any]:
        """Tables with an entry for every count up to ``top``."""
        if cls.skip is None or len(cls.skip) <= top:
            size = max(64, 2 * top)
            width = len(str(size)) + 1
            kind = f"S{width}"
            cls.skip = np.array([f"{k}x".ljust(width).encode() for k in range(size)], kind)
            cls.take = np.array([f"{k}s".ljust(width).encode() for k in range(size)], kind)
        return cls.skip, cls.take


def chunks(np, batches: Iterator[ImageBatch], put: InsertCursor, chunk_size: int,
           chunk_bytes: int, unencodable, start: int = 0) -> Iterator[tuple[int, Blocks]]:
    """(first row, Blocks) per chunk, exactly as ``item_chunks`` makes them
    from the same rows: a chunk ends after ``chunk_size`` rows or at the row
    that brings its bytes to ``chunk_bytes``.  Nothing is read past a
    complete chunk.  When ``batches`` raises ``BadRow`` (the rows before it
    came in earlier batches) or fails, the rows gathered are sent first,
    then ``unencodable(error, row index)`` or the failure is raised."""
    parts: list[tuple[ImageBatch, int, int]] = []
    rows = size = 0
    first = index = start
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            break
        except BadRow as bad:
            if parts:
                yield first, _blocks(np, put, parts)
            raise unencodable(bad.error, index) from bad.error.__cause__
        except BaseException:
            if parts:
                yield first, _blocks(np, put, parts)
            raise
        cum = np.cumsum(_sizes(np, batch))
        pos, n = 0, len(cum)
        while pos < n:
            base = int(cum[pos - 1]) if pos else 0
            # the row whose bytes bring the chunk to chunk_bytes ends it
            full = int(np.searchsorted(cum, base + chunk_bytes - size)) + 1
            end = min(n, pos + chunk_size - rows, full)
            parts.append((batch, pos, end))
            rows += end - pos
            size += int(cum[end - 1]) - base
            index += end - pos
            pos = end
            if rows >= chunk_size or size >= chunk_bytes:
                yield first, _blocks(np, put, parts)
                parts, rows, size, first = [], 0, 0, index
    if parts:
        yield first, _blocks(np, put, parts)


def _sizes(np, batch: ImageBatch):
    """Each row's bytes as ``item_chunks`` counts them (image or bind blocks)."""
    sizes = batch.lengths.astype(np.int64, copy=True)
    for row, blocks in batch.binds.items():
        if row < len(sizes):
            sizes[row] = sum(map(len, blocks))
    return sizes


class _Rows:
    """A chunk's rows as ``item_chunks`` holds them (image bytes or bind
    blocks), cut from the buffers only when a slice is asked for."""

    def __init__(self, parts: list[tuple[ImageBatch, int, int]]) -> None:
        self.parts = parts
        self.count = sum(hi - lo for _, lo, hi in parts)

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, which: slice) -> list:
        start, stop, step = which.indices(self.count)
        if step != 1:
            raise ValueError("a chunk's rows are sliced in order")
        out: list = []
        offset = 0
        for batch, lo, hi in self.parts:
            first, last = max(lo, lo + start - offset), min(hi, lo + stop - offset)
            offset += hi - lo
            for row in range(first, last):
                blocks = batch.binds.get(row)
                if blocks is not None:
                    out.append(blocks)
                    continue
                at = int(batch.starts[row])
                out.append(batch.buf[at:at + int(batch.lengths[row])].tobytes())
        return out


def _blocks(np, put: InsertCursor, parts: list[tuple[ImageBatch, int, int]]) -> Blocks:
    """A chunk's requests: SQ_PUT requests cut from the buffers, a bound
    row's BIND+EXECUTE alone, in row order."""
    widths, starts = _chunk_rows(np, parts)
    spans = _spans(np, widths)
    message = _message_starts(np, widths, spans)
    first, header = _write_room(np, parts, widths, starts, message)
    if not all(batch.dense for batch, _, _ in parts):
        formats, piece_start = _formats(np, parts, spans, widths, starts, message)
    requests: list[bytes] = []
    counts: list[int] = []
    offsets = _part_offsets(parts)
    rows = _Rows(parts)
    for a, b in spans:
        if b < 0:
            requests.append(put.bind_request(rows[a:a + 1][0]))
            counts.append(1)
            continue
        pieces: list[Any] = [put.head]      # bytes, and a dense batch's slices
        for k, (batch, _, _) in enumerate(parts):
            u0, u1 = max(a, offsets[k]), min(b, offsets[k + 1])
            if u0 >= u1:
                continue
            if batch.dense:        # one message at most, starting at u0
                if message[u0]:
                    pieces.append(header[int(np.searchsorted(first, u0))].tobytes())
                at, width = int(starts[u0]), int(widths[u0])
                pieces.append(batch.buf[at:at + (u1 - u0) * (width + (width & 1))])
                continue
            unpack = struct.Struct(formats[u0:u1].tobytes()).unpack_from
            pieces += unpack(batch.buf, int(piece_start[u0]))
        requests.append(b"".join(pieces))
        counts.append(b - a)
    return Blocks(requests, counts, rows)


def _formats(np, parts, spans, widths, starts, message):
    """Each row's struct tokens (skip to its piece, take its piece: its
    header if it starts a message, its image, its pad), and where each
    piece starts.  A request's or batch's first row skips nothing: its
    unpack begins at its piece."""
    piece_start = starts - HEADROOM * message
    piece_len = widths + (widths & 1) + HEADROOM * message
    gap = np.zeros(len(widths), dtype=np.int64)
    gap[1:] = piece_start[1:] - (piece_start[:-1] + piece_len[:-1])
    gap[[a for a, _ in spans]] = 0
    gap[_part_offsets(parts)[:-1]] = 0
    bound = widths < 0
    gap[bound] = 0
    piece_len[bound] = 0
    np.maximum(gap, 0, out=gap)        # a dense batch's rows (no room) take no format
    skip, take = _Tokens.tables(np, int(max(gap.max(), piece_len.max())))
    return np.stack([skip.take(gap), take.take(piece_len)], 1), piece_start


def _part_offsets(parts) -> list[int]:
    offsets = [0]
    for _, lo, hi in parts:
        offsets.append(offsets[-1] + hi - lo)
    return offsets


def _chunk_rows(np, parts):
    """Each row's image length (-1 for a bound row) and its image's start in
    its own batch's buffer, for the chunk's rows in order."""
    widths, starts = [], []
    for batch, lo, hi in parts:
        w = batch.lengths[lo:hi].astype(np.int64, copy=True)
        for row in batch.binds:
            if lo <= row < hi:
                w[row - lo] = -1
        widths.append(w)
        starts.append(batch.starts[lo:hi])
    return np.concatenate(widths), np.concatenate(starts).astype(np.int64, copy=False)


def _spans(np, widths) -> list[tuple[int, int]]:
    """The chunk's requests as row spans: (a, b) for an SQ_PUT request of
    rows a..b-1, (i, -1) for bound row i.  A request takes rows while its
    padded bytes are under PUT_BLOCK_BYTES (``InsertCursor.requests``)."""
    padded = np.where(widths < 0, 0, widths + (widths & 1))
    cum = np.cumsum(padded)
    spans: list[tuple[int, int]] = []
    i = 0
    for stop in [*np.flatnonzero(widths < 0).tolist(), len(widths)]:
        a = i
        while a < stop:
            base = int(cum[a - 1]) if a else 0
            b = min(stop, int(np.searchsorted(cum, base + PUT_BLOCK_BYTES)) + 1)
            spans.append((a, b))
            a = b
        if stop < len(widths):
            spans.append((stop, -1))
        i = stop + 1
    return spans


def _message_starts(np, widths, spans):
    """1 where an SQ_PUT message starts (a request's first row, or a row
    whose size differs from the row before), else 0."""
    starts = np.zeros(len(widths), dtype=np.int64)
    starts[1:] = widths[1:] != widths[:-1]
    starts[[a for a, b in spans if b >= 0]] = 1
    starts[widths < 0] = 0
    return starts


def _write_room(np, parts, widths, starts, message):
    """Each message's header into the HEADROOM before its first row, and a
    zero after each odd image (what ``InsertCursor.requests`` pads with);
    returns the messages' first rows and their headers (a dense batch's
    are sent from there)."""
    edges = np.flatnonzero(message | (widths < 0))     # where a message or bound row starts
    rows = np.diff(edges, append=len(widths))
    first = edges[message[edges] == 1]
    rows = rows[message[edges] == 1]
    header = ((Tag.PUT << 48) | ((widths[first] & 0xFFFFFFFF) << 16) | rows).astype(">u8")
    header = header.view((np.void, HEADROOM))
    odd = (widths & 1) == 1
    offsets = _part_offsets(parts)
    for k, (batch, _, _) in enumerate(parts):
        if batch.dense:
            continue               # no room; the pads are zero already
        a, b = offsets[k], offsets[k + 1]
        buf = batch.buf
        lo, hi = np.searchsorted(first, (a, b))
        if lo < hi:
            slots = np.ndarray((len(buf) - HEADROOM + 1,), (np.void, HEADROOM), buf, 0, (1,))
            slots[starts[first[lo:hi]] - HEADROOM] = header[lo:hi]
        pads = odd[a:b]
        pads &= widths[a:b] >= 0
        buf[(starts[a:b] + widths[a:b])[pads]] = 0
    return first, header
