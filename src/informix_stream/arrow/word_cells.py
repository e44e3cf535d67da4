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
    """(int64 values, NULL mask or None) of an (n, 10) INT8 matrix whose
    every sign is 1, -1 or 0 (NULL) and every magnitude below 2**63; None
    for any other column (signs such as 2 or -0x8000, which the general
    path reads by their sign bit, and magnitudes past int64, -2**63's
    included, which it decides).

    Three strided reads: the sign as an int16 (numpy swaps it in the
    copy), and the two big-endian magnitude words straight into the low
    and high halves of the result (swapped in the copy too), so no
    temporary as large as the result is made.  The signs' minimum and
    maximum tell a column of one sign (negated in place, or left) from a
    mixed one (one multiply by the int16 signs, which also zeroes the
    values under a NULL)."""
    n = len(raw)
    signs = np.ndarray((n,), ">i2", raw, 0, (10,)).astype(np.int16)
    low, high = int(signs.min()), int(signs.max())
    if low < -1 or high > 1:
        return None
    values = np.empty(n, np.int64)
    halves = values.view("<u4")
    halves[0::2] = np.ndarray((n,), ">u4", raw, 2, (10,))
    halves[1::2] = np.ndarray((n,), ">u4", raw, 6, (10,))
    if values.min() < 0:                      # a magnitude of 2**63 or more
        return None
    if low == high == -1:
        np.negative(values, out=values)
    elif low != high or low == 0:
        np.multiply(values, signs, out=values)
    null = None
    if low <= 0 <= high and np.count_nonzero(signs) != n:
        null = signs == 0
    return values, null
