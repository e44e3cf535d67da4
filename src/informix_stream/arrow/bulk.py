"""The bulk path of Arrow fetches: a fetch reply's consecutive SQ_TUPLE
messages taken as blocks of row images, without Python work per row.

``ImageDecoder`` is the ``decode_row`` hook an Arrow cursor puts on its
fetches.  Called as a function it is the per-row path (one image cut out
as bytes, the reference); ``messages.parse_reply`` calls its ``bulk``
method at each SQ_TUPLE instead, which takes the longest run of tuples
that are complete and frame as the per-row path would accept them, and
stops at the first one that is not (incomplete, another tag, a size over
``max_size`` or, for a fixed-width shape, a size other than the row
width).  That tuple is then handed to the per-row path, so every framing
error is raised by the same code with the same message, and a short buffer
waits for more bytes exactly as before.

* Fixed width W: a tuple is ``[short 14][short][uint W][W bytes][pad if W
  is odd]``, so n tuples are an (n, stride) matrix: the tags and sizes of
  all of them are checked with numpy at once and the images are one slice.
* Variable width: the headers are found without a Python step per tuple
  (``tuple_run``: candidate headers at even offsets, chained by their
  sizes; ``walk_tuples`` is its plain loop), then the images are gathered
  by one Arrow ``take``.

The rows go into an ``ImageRows``: a sequence whose length is the row
count (what the cursor's fetch accounting counts) holding the packed
blocks, from which the Arrow batch takes a block of any row range.

numpy and pyarrow are imported only when an Arrow cursor builds the hook.
"""

from __future__ import annotations

import struct

from ..errors import ProtocolError
from ._deps import load
from .columnar import ImageBlock, concat_blocks, pack_images
from .text_bytes import gather_ranges

# A tuple header's tag, warning flags and (unsigned) size.  A tuple with
# flags is left to parse_reply's per-row path, which records them.
_TAG_SIZE = struct.Struct("!hHI").unpack_from


class ImageRows:
    """Row images as packed blocks; ``len`` is the row count.

    Indexing gives one image as bytes (for a tuple consumer reading rows
    an Arrow batch left), slicing an ``ImageRows`` of the range, and
    ``block(start, stop)`` the ImageBlock the columnar decoder reads."""

    __slots__ = ("_np", "_width", "_segs", "_starts", "_n", "_singles")

    def __init__(self, np, width: int | None, images=()) -> None:
        self._np, self._width = np, width
        self._segs: list[tuple[ImageBlock, object]] = []   # (block, offsets or None)
        self._starts: list[int] = []                        # first row of each segment
        self._n = 0
        self._singles: list = list(images)

    # -- filling --------------------------------------------------------------------
    def add(self, block: ImageBlock) -> None:
        if not block.n:
            return
        self._flush()
        self._push(block)

    def _push(self, block: ImageBlock) -> None:
        offsets = None
        if block.lengths is not None:
            offsets = self._np.zeros(block.n + 1, self._np.int64)
            self._np.cumsum(block.lengths, out=offsets[1:])
        self._segs.append((block, offsets))
        self._starts.append(self._n)
        self._n += block.n

    def append(self, image) -> None:
        """One image from the per-row path."""
        self._singles.append(bytes(image))

    def _flush(self) -> None:
        if self._singles:
            singles, self._singles = self._singles, []
            self._push(pack_images(self._np, singles, self._width))

    def clear(self) -> None:
        self._segs.clear()
        self._starts.clear()
        self._singles.clear()
        self._n = 0

    # -- reading ----------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n + len(self._singles)

    def __bool__(self) -> bool:
        return len(self) > 0

    def _pieces(self, start: int, stop: int) -> list[ImageBlock]:
        self._flush()
        out = []
        for (block, offsets), first in zip(self._segs, self._starts):
            lo, hi = max(start - first, 0), min(stop - first, block.n)
            if lo >= hi:
                continue
            if lo == 0 and hi == block.n:
                out.append(block)
            elif offsets is None:
                w = self._width
                out.append(ImageBlock(block.blob[lo * w:hi * w], None, hi - lo))
            else:
                out.append(ImageBlock(block.blob[int(offsets[lo]):int(offsets[hi])],
                                      block.lengths[lo:hi], hi - lo))
        return out

    def block(self, start: int = 0, stop: int | None = None) -> ImageBlock:
        """Rows ``start:stop`` as one ImageBlock."""
        stop = len(self) if stop is None else min(stop, len(self))
        pieces = self._pieces(start, stop)
        if not pieces:
            return ImageBlock(b"", None if self._width is not None else
                              self._np.zeros(0, self._np.int64), 0)
        return concat_blocks(self._np, pieces, self._width)

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                raise ValueError("ImageRows slices are contiguous")
            out = ImageRows(self._np, self._width)
            if stop > start:
                out.add(self.block(start, stop))
            return out
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("row index out of range")
        return next(iter(_images(self.block(index, index + 1))))

    def __iter__(self):
        self._flush()
        for block, _ in self._segs:
            yield from _images(block)


def _images(block: ImageBlock):
    """Each row image of a block, as bytes."""
    blob = block.blob
    if block.lengths is None:
        w = len(blob) // block.n if block.n else 0
        for at in range(0, len(blob), w or 1):
            yield blob[at:at + w]
        return
    at = 0
    for size in block.lengths.tolist():
        yield blob[at:at + size]
        at += size


def _copy(buf, start: int, stop: int) -> bytes:
    """``buf[start:stop]`` as bytes in one copy (slicing a bytearray first
    would copy twice); the view is released before the session may resize
    its receive buffer."""
    with memoryview(buf) as view:
        return view[start:stop].tobytes()


class ImageDecoder:
    """The decode hook of an Arrow fetch; see the module docstring."""

    arrow_images = True

    def __init__(self, width: int | None) -> None:
        self.width = width
        self.np = load()[0]

    def __call__(self, buf, start: int, stop: int):
        """The per-row path: one tuple's image as bytes (the reference)."""
        width = self.width
        if width is not None and stop - start != width:
            raise ProtocolError(f"row image of {stop - start} bytes decoded as {width}: "
                                "the described columns do not match the row")
        return buf[start:stop], stop

    def _rows(self, reply) -> ImageRows:
        rows = reply.rows
        if type(rows) is not ImageRows:
            # Images the per-row path put there first (none in practice).
            reply.rows = rows = ImageRows(self.np, self.width, rows)
        return rows

    def bulk(self, buf, pos: int, end: int, reply, max_size: int) -> int:
        """Take the run of well-framed complete tuples at ``pos`` into
        ``reply.rows``; the offset after it (``pos`` when there is none)."""
        if self.width is None:
            return self._bulk_variable(buf, pos, end, reply, max_size)
        return self._bulk_fixed(buf, pos, end, reply, max_size)

    def _bulk_fixed(self, buf, pos: int, end: int, reply, max_size: int) -> int:
        np, width = self.np, self.width
        if width > max_size:
            return pos                  # the per-row path raises for the first tuple
        stride = 8 + width + (width & 1)
        n = (end - pos) // stride
        if not n:
            return pos
        # One copy of the bytes: a numpy view of the receive bytearray would
        # keep it from being resized while the view lives.
        chunk = np.frombuffer(_copy(buf, pos, pos + n * stride), np.uint8).reshape(n, stride)
        head = np.ascontiguousarray(chunk[:, :8])
        tags = head.view(">u2")
        good = (tags[:, 0] == 14) & (tags[:, 1] == 0) & (head.view(">u4")[:, 1] == width)
        if not good.all():
            n = int(np.argmin(good))
            if not n:
                return pos
        self._rows(reply).add(ImageBlock(chunk[:n, 8:8 + width].tobytes(), None, n))
        return pos + n * stride

    def _bulk_variable(self, buf, pos: int, end: int, reply, max_size: int) -> int:
        np = self.np
        if end - pos < 8:
            return pos
        raw = np.frombuffer(_copy(buf, pos, end), np.uint8)
        offs, sizes = tuple_run(np, raw, max_size)
        n = len(offs)
        if not n:
            return pos
        at = int(offs[-1] + 8 + sizes[-1] + (sizes[-1] & 1))
        self._rows(reply).add(ImageBlock(_images_of(np, raw, offs + 8, sizes), sizes, n))
        return pos + at


def _images_of(np, raw, starts, sizes) -> bytes:
    """``raw[starts[r]:starts[r] + sizes[r]]`` of every tuple end to end,
    by text_bytes.gather_ranges (one Arrow take; the offsets only grow)."""
    data, _ = gather_ranges(np, load()[1], raw, starts, sizes, large=len(raw) >= 1 << 31)
    return data.tobytes()


def tuple_run(np, raw, max_size: int):
    """Offsets and image sizes of the run of SQ_TUPLEs at the start of
    ``raw`` that ``walk_tuples`` (the plain loop) takes, without a Python
    step per tuple: every even offset holding a tuple's tag and zero
    warning flags is a candidate (a tuple is padded to an even size, so the
    run's headers are at even offsets; bytes inside an image may look like
    one too); each candidate's successor is where its size says the next
    tuple starts, and the run is the chain of successors from offset 0,
    followed in numpy while successors are the next candidate and in Python
    only past an image that held a false candidate.  It ends at a successor
    that is no candidate, a size over ``max_size`` or a tuple past the
    buffer, as the plain loop's does."""
    size_n = len(raw) - len(raw) % 2
    half = raw[:size_n].view(">u2")                 # the u16 at every even offset
    if len(half) < 4:
        return walk_tuples(np, raw, max_size)
    # tag 14, flags 0, and the header complete (offset <= len - 8)
    cand = np.flatnonzero((half[:-3] == 14) & (half[1:-2] == 0))
    if not len(cand) or cand[0] != 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    sizes = (half[cand + 2].astype(np.int64) << 16) | half[cand + 3]
    offs = cand * 2
    nxt = offs + 8 + sizes + (sizes & 1)
    linked = nxt[:-1] == offs[1:]
    if not linked.all():
        k = int(np.argmin(linked))
        if nxt[k] < offs[k + 1]:          # no candidate there: the run ends at k
            offs, sizes, nxt = offs[:k + 1], sizes[:k + 1], nxt[:k + 1]
        else:                             # false candidates inside an image
            chain = _follow(np, _successors(np, offs, nxt), k)
            offs, sizes, nxt = offs[chain], sizes[chain], nxt[chain]
    bad = (sizes > max_size) | (nxt > len(raw))
    if bad.any():
        stop = int(np.argmax(bad))
        offs, sizes = offs[:stop], sizes[:stop]
    return offs, sizes


def _successors(np, offs, nxt):
    """Each candidate's successor's index (-1 when where its size points is
    no candidate)."""
    succ = np.searchsorted(offs, nxt)
    succ[succ >= len(offs)] = len(offs) - 1
    return np.where(offs[succ] == nxt, succ, -1)


def _follow(np, succ, first_break: int):
    """Indices of the chain from candidate 0: runs of consecutive
    candidates (succ[i] == i + 1) between breaks, each break either ending
    the chain (no successor) or jumping past false candidates; the last
    candidate is always a break."""
    breaks = np.flatnonzero(succ != np.arange(1, len(succ) + 1)).tolist()
    pieces = []
    i = 0
    for b in breaks:
        if b < max(i, first_break):
            continue
        pieces.append(np.arange(i, b + 1))
        j = int(succ[b])
        if j < 0:
            break
        i = j
    return np.concatenate(pieces)


def walk_tuples(np, raw, max_size: int):
    """The plain reference of ``tuple_run``: one header at a time."""
    head = _TAG_SIZE
    at, offs, sizes = 0, [], []
    last = len(raw) - 8
    data = raw.tobytes()
    while at <= last:
        tag, warn, size = head(data, at)
        if tag != 14 or warn or size > max_size:
            break
        nxt = at + 8 + size + (size & 1)
        if nxt > len(raw):
            break
        offs.append(at)
        sizes.append(size)
        at = nxt
    return np.array(offs, np.int64), np.array(sizes, np.int64)
