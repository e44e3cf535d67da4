"""Fixed-width cells wider than the number they hold, read as strided
machine words: INT8 ([sign short][low uint32][high uint32], big-endian) and
BOOLEAN ([null flag][int length][byte]).

Numpy copies a strided column one element at a time (~5.5 us per 20,000
cells whatever the word size), so these reads are most of what such a
column costs; the rest is kept to a few passes over small dtypes, and the
temporaries are few and small.  That last point is measured, not style: a
column's int64 temporaries are 160 KB at 20,000 rows, and once a process's
history has set glibc's trim threshold near that size a decoder holding
three of them at once page-faults them in afresh on every batch (~85
faults and 5x the time a call; bench/README.md, the DECIMAL(32,10) note).

Each function here reads only the usual form of its cells and returns None
for any other column, which the caller then decodes by its general path
(columnar.py); the plain per-cell forms are scalars.int8_value and the
BOOLEAN rule of scalars.TRUE_BYTES, which tests/unit/test_arrow_fast_paths.py
holds these to over hypothesis-generated cells.
"""

from __future__ import annotations


def int8_usual(np, raw):
    """(int64 values, the valid cells' mask or None when every cell is) of an
    (n, 10) INT8 matrix whose every sign is 1, -1 or 0 (NULL) and every
    magnitude below 2**63; None for any other column (signs such as 2 or
    -0x8000, which the general path reads by their sign bit, and magnitudes
    past int64, -2**63's included, which it decides).

    Two strided reads: the sign as an int16 (numpy swaps it in the copy)
    and the magnitude's 8 bytes as they lie into the result, whose two
    big-endian words are then swapped in place by one contiguous cast
    (``copyto`` between the result's big- and little-endian uint32 views),
    so no temporary as large as the result is made.  The words read one
    by one into the result's halves (two strided reads) cost ~2.5 us a
    20,000-row column more (bench/README.md, branch s24d).  The signs' minimum and
    maximum say what is left: a column of one sign is negated in place or
    left as it is, NULLs or not; mixed signs take one multiply by the
    int16 signs, which also zeroes the values under a NULL.  Under a NULL
    of a one-sign column lies its magnitude (negated with the column): 0
    for a NULL as the server sends it, and whatever a NULL cell carried
    otherwise.  Arrow leaves the values under a NULL unspecified and every
    consumer reads the bitmap (INTEGER and DATE columns carry their wire
    sentinel there), so a zeroing pass (~5 us a 20,000-row column) would
    buy nothing."""
    n = len(raw)
    signs = np.ndarray((n,), ">i2", raw, 0, (10,)).astype(np.int16)
    low, high = int(signs.min()), int(signs.max())
    if low < -1 or high > 1:
        return None
    values = np.ndarray((n,), np.int64, raw, 2, (10,)).copy()
    np.copyto(values.view("<u4"), values.view(">u4"))     # each word swapped in place
    if values.min() < 0:                      # a magnitude of 2**63 or more
        return None
    if low == -1 and high == 1:
        np.multiply(values, signs, out=values)
        # min -1 and max 1 may or may not leave a NULL between them
        return values, (None if np.count_nonzero(signs) == n else signs != 0)
    if low == -1:
        np.negative(values, out=values)
    elif high == 0:
        values.fill(0)                        # every cell NULL
    # a minimum or maximum of 0 is a NULL
    return values, (None if low != 0 and high != 0 else signs != 0)


def boolean_words(np, buf, offset: int, width: int, n: int):
    """The BOOLEAN cells at ``offset`` of ``n`` rows of ``width`` bytes as
    (flag, value byte), uint8 columns, when every length field is 1; else
    None.  Two strided reads a column, a little-endian uint32 (the flag and
    the length's first three bytes) and a uint16 (the length's last byte
    and the value), checked by reductions: the uint32 is at most 0xFF (the
    flag alone) and every last length byte is 1.  The plain form is the
    big-endian length read and compared, which the general framing does."""
    first = np.ndarray((n,), "<u4", buf, offset, (width,)).copy()
    if first.max() > 0xFF:
        return None
    last = np.ndarray((n,), "<u2", buf, offset + 4, (width,)).copy()
    size = last.astype(np.uint8)                # the low byte: the length's last
    if size.min() != 1 or size.max() != 1:
        return None
    last >>= np.uint16(8)
    return first.astype(np.uint8), last.astype(np.uint8)


def boolean_cells_by_row_size(np, padded, pos, full):
    """(flag, value byte) of one BOOLEAN cell a row at offsets ``pos`` of
    ``padded`` (a buffer with 8 spare bytes after it), where ``full`` says
    which rows have the 6-byte cell (length 1) and the others the 5-byte
    one (length 0: a NULL as the server sends it); None when a length field
    is not the one its row's size implies, which the general framing then
    refuses or frames as it does.  Rows of a shape with one BOOLEAN and
    fixed-width cells otherwise differ only there, so the row sizes (known
    from the images) say where every cell lies; the cell is read by one
    byte gather per byte (numpy has no fast unaligned word gather: a
    uint32 fancy index from a view at every byte offset costs 6x).  The
    value byte of a 5-byte cell is whatever follows it and is not used."""
    at = pos.copy()
    flag = padded.take(at)
    high = None
    for _ in range(3):                      # the length's three high bytes: 0
        at += 1
        byte = padded.take(at)
        high = byte if high is None else np.bitwise_or(high, byte, out=high)
    at += 1
    if high.any() or (padded.take(at) != full).any():    # its low byte: 1 or 0
        return None
    at += 1
    return flag, padded.take(at)


def boolean_cells_alone(np, buf, starts, full):
    """(flag, value byte) of a batch of one BOOLEAN column whose images are
    its cells, 6 bytes (length 1: ``full``) or 5 (length 0, a NULL as the
    server sends it), at ``starts`` of ``buf``; None when a length field is
    not the one its image's size implies.  Three byte gathers where
    boolean_cells_by_row_size makes six: the flag; each image's last byte
    (a 6-byte cell's value, a 5-byte cell's length low byte: must be 0,
    so nonzero only where ``full``); the byte before it (a 6-byte cell's
    length low byte, a 5-byte cell's third length byte: so equal to
    ``full``).  The length bytes not gathered are proven zero by counting:
    the images are these cells end to end, so the buffer's nonzero bytes
    are those gathered and those not, and the latter are none exactly when
    ``count_nonzero(buf)`` is the gathered ones' count.  Every read lies
    inside the buffer (no padded copy)."""
    at = starts + 4
    at += full
    before = buf.take(at - 1)
    if (before != full).any():
        return None
    last = buf.take(at)
    flag = buf.take(starts)
    nonzero = np.count_nonzero(last)
    if nonzero != np.count_nonzero(np.logical_and(last, full)) or np.count_nonzero(buf) != \
            np.count_nonzero(flag) + np.count_nonzero(full) + nonzero:
        return None
    return flag, last
