"""Where a LOB value's bytes go as they arrive (``ValueSink``).

A reply's chunks are handed to a sink one at a time, as views of the
transport's receive buffer (``messages._copy_into``: ``sink += view``); a
sink copies them and keeps no view.  It writes each byte of a value once
into fresh memory, because that is where a large value's read spends its
time: on this machine writing a page for the first time costs about 0.4 ms
per MB, tens of times a copy into memory already touched
(bench/lobs/read_rate.py, bench/README.md "One large LOB value").

A TEXT/CLOB value is gathered here as bytes and decoded once, at its end:
two passes over fresh memory (the bytes, then the ``str``).  Decoding each
chunk as it arrives and growing one ``str`` by ``+=`` writes it once, but
only while CPython happens to grow the ``str`` in place: that needs the
interpreter's specialised ``+=`` (not before it warms up, nor under a
tracer or profiler) and a ``realloc`` that does not copy (glibc copies a
block it placed in its heap instead of a mapping of its own); measured,
a 200 MB value then took 1 to 65 s instead of 0.2 s.
"""

from __future__ import annotations

import io

from .errors import DataError


class ValueSink:
    """Collects a large value's bytes as they arrive (``+=`` a buffer; the
    buffer is copied, never kept) into one buffer, handed out by
    ``getvalue`` as bytes without another copy (``io.BytesIO`` shares its
    buffer): one pass over the value, where a list of pieces joined at the
    end costs two (bench/lobs/read_rate.py).

    ``reserve(n)`` makes room for ``n`` more bytes at once: the buffer
    starts as ``bytes(capacity)`` (calloc: pages are touched only when
    written), and grows by doubling, where BytesIO's own growth by an
    eighth would copy a value eight times over."""

    __slots__ = ("_out", "size", "_capacity")

    def __init__(self, capacity: int = 0) -> None:
        self._out = io.BytesIO(bytes(capacity)) if capacity > 0 else io.BytesIO()
        self._capacity = capacity
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def reserve(self, n: int) -> None:
        want = self.size + n
        if want <= self._capacity:
            return
        capacity = max(want, 2 * self._capacity)
        old = self._out.getbuffer()
        grown = io.BytesIO(bytes(capacity))
        try:
            grown.write(old[:self.size])
        finally:
            old.release()
        grown.seek(self.size)
        self._out, self._capacity = grown, capacity

    def __iadd__(self, data) -> ValueSink:
        self.size += self._out.write(data)
        return self

    def getvalue(self) -> bytes:
        out = self._out
        if self.size != len(out.getbuffer()):
            out.truncate(self.size)
        return out.getvalue()

    def value(self, text: bool, encoding: str, column: int, kind: str) -> bytes | str:
        """The whole value: its bytes, or for a TEXT/CLOB (``text``) its
        ``str``, decoded once here; bytes not valid in ``encoding`` raise
        DataError naming the column (1-based: ``column`` is 0-based) and its
        ``kind``, never a UnicodeError."""
        data = self.getvalue()
        if not text:
            return data
        try:
            return data.decode(encoding)
        except UnicodeDecodeError as exc:
            raise DataError(f"column {column + 1} ({kind}): the value is not valid "
                            f"{encoding}: {exc}") from None
