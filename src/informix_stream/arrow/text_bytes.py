"""Text bytes of a batch for the columnar decoder (columnar.py) and the
bulk fetch path (bulk.py): each row's bytes gathered end to end by one
Arrow take, and Latin-1 text transcoded to UTF-8 with array operations.
One job apart from columnar.py, which frames the cells and converts them."""

from __future__ import annotations


def gather_ranges(np, pa, padded, at, sizes, large: bool):
    """The bytes ``padded[at[r]:at[r] + sizes[r]]`` of every row end to end,
    and their offsets, gathered by Arrow: the buffer is read as a binary
    array of 2n values, each row's text and then the bytes up to the next
    row's text (framing puts every text at or after the end of the one
    before, so the offsets only grow), and Arrow's ``take`` of the even
    values copies the texts in C++.  Faster than a binary_view array over
    the buffer (whose inline short values and prefixes cost numpy gathers
    at unaligned offsets) and than any numpy mask over the buffer.  None
    when the buffer needs 64-bit offsets for a 32-bit array (the caller then
    takes the mask path)."""
    n = len(at)
    if not n or (not large and len(padded) >= 1 << 31):
        return None
    bounds = np.empty(2 * n + 1, "<i8" if large else "<i4")
    bounds[0:-1:2] = at
    ends = at + sizes
    bounds[1::2] = ends
    bounds[-1] = ends[-1]
    both = pa.Array.from_buffers(pa.large_binary() if large else pa.binary(), 2 * n,
                                 [None, pa.py_buffer(bounds), pa.py_buffer(padded)])
    flat = both.take(np.arange(0, 2 * n, 2, dtype=np.int32 if n < 1 << 30 else np.int64))
    _, offsets_buf, data_buf = flat.buffers()
    offsets = np.frombuffer(offsets_buf, "<i8" if large else "<i4", n + 1, flat.offset * (
        8 if large else 4))
    data = np.frombuffer(data_buf, np.uint8, int(offsets[-1])) if data_buf is not None \
        else np.zeros(0, np.uint8)
    if offsets[0]:
        data, offsets = data[int(offsets[0]):], offsets - offsets[0]
    return data, offsets


def latin1_to_utf8(np, data, offsets):
    """Latin-1 text to UTF-8, vectorised: each byte from 0x80 up becomes two."""
    high = data >= 0x80
    shift = np.zeros(len(data) + 1, np.int64)
    np.cumsum(high, out=shift[1:])
    at = np.arange(len(data)) + shift[:-1]        # where each byte's encoding starts
    out = np.empty(len(data) + int(shift[-1]), np.uint8)
    out[at] = np.where(high, 0xC0 | (data >> 6), data)
    out[at[high] + 1] = 0x80 | (data[high] & 0x3F)
    return out, offsets + shift[offsets]
