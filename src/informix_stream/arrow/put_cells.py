"""One Arrow column -> its insert-cursor cells for a batch, by a numpy rule
per type (put_images.py joins a batch's columns into row images).

A rule works on the Arrow buffers as they are: the values buffer read in
place (a NULL slot's value is whatever Arrow left there; its cell is then
replaced), validity unpacked from its bitmap.  Where a cell's bytes are a
whole machine word (INTEGER, DATE, FLOAT, DATETIME YEAR TO SECOND, DECIMAL
of up to seven pairs; eight pairs are a word after the head byte, nine and
ten two words) the rule builds the word from tables and the NULL cell is
one ``np.where`` (a multiply when it is zero).  Text is gathered a
row at a time from a strided window over Arrow's data (or is the data
itself, when every value fills its CHAR cell).  No pass touches one byte
at a time.  Nothing here calls pyarrow.compute: its first call in a
process costs ~45 MB of RSS (the kernel registry), more than a whole
load's working set may grow (bench/memory's load cap, issue 14).

Each column's cells come as ``Cells``: a padded (n, M) matrix whose row r
starts with its cell (``lengths[r]`` bytes; the rest is scratch that the
next column overwrites), or, for the value-by-value path, the cells end to
end.  ``ok`` says which rows may be put: every cell passes the column's
value check (insert_cursor.value_check); any other row is bound.

The plain reference is ``python_cells`` (each value's Python form, the
column's check, its cell encoder): tests/test_arrow_put.py holds every rule
to it over hypothesis-drawn batches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..codec.rowencode import make_row_encoder
from ..codec.scalars import EPOCH_ORDINAL, INT_NULL, bcd_head, temporal_exponent
from ..codec.typeinfo import VARCHAR_CODES, ColumnType, TypeCode
from ..errors import Error
from . import base100, civil
from .cell_values import NO_VALUE_ERRORS, fully_valid, python_value

_DATE_SHIFT = 719163 - EPOCH_ORDINAL          # date32 day 0 (1970-01-01) as an Informix day
_MIN_DATE32, _MAX_DATE32 = -719162, 2932896   # 0001-01-01 and 9999-12-31 (Python's range)
_INT_CODES = {TypeCode.SMALLINT: ">i2", TypeCode.INTEGER: ">i4", TypeCode.SERIAL: ">i4",
              TypeCode.BIGINT: ">i8", TypeCode.BIGSERIAL: ">i8"}
_TEXT_CODES = {TypeCode.CHAR, TypeCode.NCHAR, *VARCHAR_CODES}
_SECONDS_PER = {"s": 1, "ms": 1_000, "us": 1_000_000}
_FIRST_SECOND = civil.FIRST_DAY * 86400         # 0001-01-01 00:00:00 from the epoch
_SPAN_SECONDS = (civil.LAST_DAY - civil.FIRST_DAY + 1) * 86400


class Cells(NamedTuple):
    """One column's cells for a batch: either ``padded`` (n, M) uint8 whose
    row r begins with its cell, or ``flat``, the cells end to end; each
    cell's length; whether each row's value may be put."""

    lengths: Any    # numpy int64, one per row
    ok: Any         # numpy bool, one per row
    padded: Any = None
    flat: Any = None


def flat_of(np, cells: Cells):
    """The cells end to end (uint8), whichever form they came in."""
    if cells.flat is not None:
        return cells.flat
    padded = cells.padded
    width = padded.shape[1]
    if (cells.lengths == width).all():
        return padded.reshape(-1)
    return padded[np.arange(width)[None, :] < cells.lengths[:, None]]


_RULES: dict[tuple[Any, ColumnType, str], Any] = {}


def column_cells(np, array, ctype: ColumnType, check: Callable[[Any], bool],
                 encoding: str) -> Cells:
    """A column's cells by its numpy rule, or value by value without one.
    The rule is looked up once per Arrow type, column type and code set
    (its tests cost ~1 us, paid again on every batch of a load)."""
    key = (array.type, ctype, encoding)
    rule = _RULES.get(key, _RULES)
    if rule is _RULES:
        rule = _RULES[key] = _rule(array.type, ctype, encoding)
    if rule is not None:
        return rule(np, array, ctype)
    return python_cells(np, array, ctype, check, encoding)


def _rule(atype, ctype: ColumnType, encoding: str):
    import pyarrow as pa
    code = ctype.code
    t = pa.types
    if code in _INT_CODES and t.is_integer(atype) and atype != pa.uint64():
        return _int_cells
    if code is TypeCode.FLOAT and t.is_floating(atype) and atype != pa.float16():
        return _float_cells
    if code is TypeCode.DATE and atype == pa.date32():
        return _date_cells
    if code is TypeCode.DATETIME and t.is_timestamp(atype) and atype.tz is None \
            and atype.unit in _SECONDS_PER and ctype.start == 0 and ctype.end == 10 \
            and ctype.fraction_digits == 0:
        return _datetime_cells             # value_check admits YEAR TO SECOND only
    if code in (TypeCode.DECIMAL, TypeCode.MONEY) and t.is_decimal128(atype) \
            and ctype.scale is not None and ctype.precision <= 18 and atype.precision <= 18:
        return _decimal_cells
    if code in _TEXT_CODES and (t.is_string(atype) or t.is_large_string(atype)) \
            and _ascii_compatible(encoding):
        return lambda np, array, ctype: _text_cells(np, array, ctype, encoding)
    return None


# -- the buffers ----------------------------------------------------------------

def _valid(np, array):
    """Each row's validity (bool), or None when the column has no NULL: the
    bitmap unpacked in one pass (``is_valid`` builds an Arrow array first,
    six times slower)."""
    if array.null_count == 0:
        return None
    n, offset = len(array), array.offset
    bits = np.frombuffer(array.buffers()[0], np.uint8)[offset // 8:(offset + n + 7) // 8 + 1]
    return np.unpackbits(bits, bitorder="little")[offset % 8:offset % 8 + n].view(bool)


def _values(np, array, dtype):
    """The values buffer in place (NULL slots hold what Arrow left there)."""
    n, offset = len(array), array.offset
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=offset + n)[offset:]


def _ok(np, valid, good):
    """A row may be put when it is NULL or its value is good."""
    return good if valid is None else good | ~valid


def _word_cells(np, words, valid, null: bytes, width: int, ok) -> Cells:
    """Cells that are the first ``width`` bytes of one word a row (numbers
    already in the cell's byte order); NULL rows get the bytes ``null``.
    The choice is made on the words' bits (an unsigned view), so no byte
    order is converted."""
    if valid is not None:
        bits = np.dtype(f"u{words.dtype.itemsize}")
        if any(null):
            words = np.where(valid, words.view(bits), np.frombuffer(null, bits)[0])
        else:                                         # a zero NULL: a multiply, 3x cheaper
            words = words.view(bits) * valid
    n = len(words)
    padded = words.view(np.uint8).reshape(n, -1)
    return Cells(_lengths(np, n, width), ok, padded)


def _every(np, n: int):
    return np.ones(n, dtype=bool)


# -- numbers and dates ------------------------------------------------------------

def _int_cells(np, array, ctype: ColumnType) -> Cells:
    # the smallest value of each width is its NULL: such a value is not put
    big = np.dtype(_INT_CODES[ctype.code])
    null = INT_NULL[ctype.code]
    values = _values(np, array, array.type.to_pandas_dtype())
    valid = _valid(np, array)
    info = np.iinfo(values.dtype)
    low, high = max(null + 1, info.min), min(-null - 1, info.max)
    good = _every(np, len(values))
    if low > info.min:
        good = values >= low
    if high < info.max:
        good &= values <= high
    null_bytes = null.to_bytes(big.itemsize, "big", signed=True)
    return _word_cells(np, values.astype(big), valid, null_bytes, big.itemsize,
                       _ok(np, valid, good))


def _float_cells(np, array, ctype: ColumnType) -> Cells:
    values = _values(np, array, array.type.to_pandas_dtype())
    valid = _valid(np, array)
    words = values.astype(">f8")
    return _word_cells(np, words, valid, b"\xff" * 8, 8,
                       _ok(np, valid, values == values))


def _date_cells(np, array, ctype: ColumnType) -> Cells:
    days = _values(np, array, np.int32)
    valid = _valid(np, array)
    good = (days >= _MIN_DATE32) & (days <= _MAX_DATE32)
    words = (days + _DATE_SHIFT).astype(">i4")     # a bad day's wrap is never put
    return _word_cells(np, words, valid, b"\x80\x00\x00\x00", 4, _ok(np, valid, good))


_CLOCK: dict[int, Any] = {}


def _clock_table(np, head: int):
    """uint64 of each second of the day 0..86399: the cell's head byte and
    the hour, minute and second pairs at bytes 5, 6, 7."""
    if head not in _CLOCK:
        # composed by broadcasting three small tables into the one result:
        # whole-day temporaries (an arange and its divmods, 675 KB each)
        # would raise a load's RSS by megabytes glibc keeps (bench/memory)
        u = np.uint64
        hour = (np.arange(24, dtype=u) << u(40)) | u(head)
        minute = np.arange(60, dtype=u) << u(48)
        second = np.arange(60, dtype=u) << u(56)
        table = np.empty((24, 60, 60), u)
        np.bitwise_or((hour[:, None] | minute[None, :])[:, :, None], second[None, None, :],
                      out=table)
        _CLOCK[head] = table.reshape(86400)
    return _CLOCK[head]


def _datetime_cells(np, array, ctype: ColumnType) -> Cells:
    """DATETIME YEAR TO SECOND: a cell is one uint64, head, then the pairs
    yy yy mm dd hh mi ss: two gathers ORed, the second of the day (with the
    head) and the day of its 400-year era (civil.era_tables), and the era's
    centuries added to the century byte."""
    u = np.uint64
    ticks = _values(np, array, np.int64)
    valid = _valid(np, array)
    per = _SECONDS_PER[array.type.unit]
    seconds = ticks if per == 1 else np.floor_divide(ticks, per)
    since = seconds - _FIRST_SECOND                  # from 0001-01-01 00:00:00
    good = since.view(u) < u(_SPAN_SECONDS)          # negative is huge unsigned
    if not good.all():
        since *= good                                # a row not put reads as year 1
    days, clock = _days_and_clock(np, since)
    # the era (400 years, < 25) and the day in it, in uint32: exact, as
    # days < 2**22, and half the cost of int64 (numpy divides by a scalar
    # with a multiply)
    era = days // np.uint32(civil.ERA_DAYS)
    day_of_era = days - era * np.uint32(civil.ERA_DAYS)
    head = bcd_head(temporal_exponent(ctype.length), False)
    words = _clock_table(np, head).take(clock)
    words |= civil.era_tables(np).take(day_of_era)
    era <<= np.uint32(10)                            # 4 centuries an era, at byte 1
    words += era
    return _word_cells(np, words.astype("<u8", copy=False), valid, bytes(8), 8,
                       _ok(np, valid, good))


def _days_and_clock(np, since):
    """Whole days (uint32) and the second of the day (int64) of seconds
    0 <= since < 2**39: 86,400 is 128 * 675, so the day is (since >> 7) //
    675, whose dividend fits uint32 -- a shift and a uint32 division by a
    constant, where a float64 or int64 division costs three times as much;
    the plain form is ``divmod(since, 86400)`` (tests/test_arrow_put_cells)."""
    high = (since >> 7).astype(np.uint32)
    days = high // np.uint32(675)
    high -= days * np.uint32(675)                    # the second of the day, over 128
    high <<= np.uint32(7)
    clock = since & 127
    clock |= high
    return days, clock


# -- DECIMAL / MONEY ------------------------------------------------------------------

def _decimal_cells(np, array, ctype: ColumnType) -> Cells:
    """DECIMAL(p,s)/MONEY from decimal128 of at most 18 digits: the unscaled
    value at the column's scale, paired in base 100 (scalars.decimal_pairs,
    aligned on the decimal point), complemented when negative."""
    precision, scale = ctype.precision, ctype.scale
    source_scale = array.type.scale
    n = len(array)
    u = np.uint64
    valid = _valid(np, array)
    words = np.frombuffer(array.buffers()[1], dtype="<i8",
                          count=2 * (array.offset + n))[2 * array.offset:]
    low = words[0::2].copy()                           # one strided read, then contiguous passes
    widen = scale - source_scale
    digits = precision - scale + source_scale          # at most 18 when widen >= 0
    negative = low < 0
    fits = words[1::2] == (low >> 63)                  # the value is its low word
    magnitude = np.abs(low, out=low).view(u)
    if widen < 0 or digits < 1:
        good = np.zeros(n, dtype=bool)
    else:
        good = fits
        good &= magnitude < u(10 ** digits)
    ok = _ok(np, valid, good)
    # a row not put (or NULL) becomes zero, so no table index runs past its
    # table: masks by multiplying (np.where costs three times as much)
    keep = good if valid is None else good & valid
    if not keep.all():
        np.multiply(magnitude, keep, out=magnitude)
        negative &= keep
    shift = max(widen, 0) + (scale & 1)                # an odd scale: the point falls between pairs
    if shift:
        magnitude *= u(10 ** shift)
    width = ctype.wire_width
    pairs = width - 1
    # `used` base-100 digits; the number moved left so its first pair
    # leads (its exponent says where the point is), complemented when
    # negative as a number: 100**k - L is scalars.complement of L's pairs
    used = _pair_count(np, magnitude, pairs)          # > 0 on every negative row kept
    index = negative * np.uint8(pairs + 1)
    index += used
    head = _decimal_heads(np, pairs, scale).take(index)
    if valid is not None:
        head *= valid
    last = None
    if pairs > 9:
        left, last = _ten_pairs(np, magnitude, used.astype(np.int64), negative)
    else:
        left = base100.pow100(np).take(np.uint8(pairs) - used)
        left *= magnitude
        # np.where: a ufunc's where= (or copyto) branches a row, 4-5x dearer
        # on mixed signs
        if negative.any():
            left = np.where(negative, u(100 ** pairs) - left, left)
    if pairs == 8:
        return Cells(_lengths(np, n, width), ok, _nine_bytes(np, head, left))
    if pairs > 8:
        return Cells(_lengths(np, n, width), ok, _two_words(np, head, left, last, pairs))
    word = base100.pair_word(np, left, pairs)           # pairs at bytes 8 - pairs .. 7
    if pairs < 7:
        word >>= u(8 * (7 - pairs))
    word |= head
    padded = word.astype("<u8", copy=False).view(np.uint8).reshape(n, 8)
    return Cells(_lengths(np, n, width), ok, padded)


def _pair_count(np, magnitude, pairs: int):
    """How many base-100 digits each magnitude (< 100**pairs) has, as
    uint8 (an index numpy's take widens as cheaply as int64): a compare
    and a uint8 add per power of 100.  searchsorted is a binary search a
    value, 3-8 ns each unless the lengths repeat, as real amounts' do
    not.  The plain form is ``sum(100**j <= m for j in range(pairs))``
    (tests/test_arrow_put_cells.py)."""
    powers = base100.pow100(np)
    count = (magnitude != 0).view(np.uint8)
    for j in range(1, pairs):
        count += magnitude >= powers[j]
    return count


_WIDTHS: dict[int, Any] = {}


def _lengths(np, n: int, width: int):
    """Every cell ``width`` bytes long: n read-only views of one int64
    (stride 0; nothing writes a fixed-width column's lengths), ~1 us a
    call where np.full or broadcast_to cost 2-3 on a load's 4,096-row
    batches."""
    if width not in _WIDTHS:
        one = np.array([width], np.int64)
        one.flags.writeable = False
        _WIDTHS[width] = one
    return np.ndarray((n,), np.int64, _WIDTHS[width], 0, (0,))


def _nine_bytes(np, head, left):
    """Cells of eight pairs (head + 8 bytes) as an (n, 9) matrix: the head
    and the pair word stored by two strided writes, no (n, 16) of words."""
    n = len(head)
    buf = np.empty(9 * n + 7, np.uint8)
    np.ndarray((n,), "<u8", buf, 1, (9,))[...] = base100.pair_word(np, left)
    np.ndarray((n,), np.uint8, buf, 0, (9,))[...] = head
    return buf[:9 * n].reshape(n, 9)


_HEADS: dict[tuple[int, int], Any] = {}


def _decimal_heads(np, pairs: int, scale: int):
    """The head byte (uint64) of a cell with ``used`` pairs, at index
    ``used`` (positive) and ``pairs + 1 + used`` (negative): the base-100
    exponent biased by 64, complemented when negative; zero is 0xC0."""
    key = (pairs, scale)
    if key not in _HEADS:
        used = np.arange(pairs + 1)
        biased = (used - (scale + (scale & 1)) // 2 + 64) & 0x7F
        positive = np.where(used > 0, biased | 0x80, 0xC0)
        _HEADS[key] = np.concatenate([positive, biased ^ 0x7F]).astype(np.uint64)
    return _HEADS[key]


def _ten_pairs(np, magnitude, used, negative):
    """The ten pairs of DECIMAL(18, odd s) (magnitude < 10**19, whose
    left-aligned form would pass uint64): the first nine as a number, and
    the last pair."""
    u = np.uint64
    full = used == 10
    head = np.where(full, magnitude // u(100),
                    magnitude * base100.pow100(np).take(np.clip(9 - used, 0, 9)))
    last = np.where(full, magnitude % u(100), u(0))
    carry = negative & (last == 0)
    head = np.where(negative, np.where(carry, u(100 ** 9), u(100 ** 9 - 1)) - head, head)
    last = np.where(negative & ~carry, u(100) - last, last)
    return head, last


def _two_words(np, head, left, last, pairs: int):
    """Cells of 8 to 10 pairs as two little-endian words a row: the head,
    ``left``'s pairs (8, or 9 with its first apart), then ``last``'s pair
    (ten pairs) -- written as two columns, not a column per byte."""
    u = np.uint64
    n = len(head)
    top = None
    if pairs >= 9:
        top = left // u(10 ** 16)
        left = left - top * u(10 ** 16)
    word = base100.pair_word(np, left)
    shift = 8 if top is None else 16
    words = np.empty((n, 2), "<u8")
    first = head | (word << u(shift))
    words[:, 0] = first if top is None else first | (top << u(8))
    second = word >> u(64 - shift)
    words[:, 1] = second if last is None else second | (last << u(16))
    return words.view(np.uint8)


# -- text -------------------------------------------------------------------------

def _text_cells(np, array, ctype: ColumnType, encoding: str) -> Cells:
    """CHAR/VARCHAR from Arrow strings whose bytes are already the session's:
    UTF-8 sessions take them as they are once each value is checked to be
    UTF-8, other code sets only when every byte is ASCII (else the column
    goes value by value)."""
    n = len(array)
    valid = _valid(np, array)
    offsets_type = np.int64 if str(array.type) == "large_string" else np.int32
    _, offsets_buf, data_buf = array.buffers()
    bounds = np.frombuffer(offsets_buf, dtype=offsets_type,
                           count=array.offset + n + 1)[array.offset:]
    first, last = int(bounds[0]), int(bounds[-1])
    data = np.frombuffer(data_buf, dtype=np.uint8)[first:last] if data_buf is not None \
        else np.zeros(0, dtype=np.uint8)
    # ASCII (one maximum) in any code set; more only as checked UTF-8 values
    if len(data) and data.max() >= 0x80 and not _utf8_values(array, encoding):
        from ..insert_cursor import value_check
        return python_cells(np, array, ctype, value_check(ctype, encoding), encoding)
    code = ctype.code
    width = ctype.length & 0xFF if code in VARCHAR_CODES else ctype.length
    sizes = np.diff(bounds)
    if code not in VARCHAR_CODES and width and _fills(np, data, sizes, valid, width):
        return _filled_char_cells(np, data, valid, width, n)
    starts = bounds[:-1].astype(np.int64) - first
    sizes = sizes.astype(np.int64)
    if valid is not None:
        sizes *= valid                                 # a NULL's size is 0 (np.where: 2x)
    longest = int(sizes.max()) if n else 0
    if longest <= width:                               # no value too long: no mask, no clip
        ok, kept = np.ones(n, dtype=bool), sizes
    else:
        ok, kept = sizes <= width, np.minimum(sizes, width)
    if code in VARCHAR_CODES:
        return _varchar_cells(np, data, starts, kept, valid, ok)
    return _char_cells(np, data, starts, kept, valid, width, ok)


def _fills(np, data, sizes, valid, width: int) -> bool:
    """Whether every non-NULL value fills ``width`` bytes and NULLs span
    none (``sizes``: each row's bytes in Arrow's offsets, NULL or not).
    Without NULLs two maxima decide it (no mask is made)."""
    count = len(sizes) if valid is None else np.count_nonzero(valid)
    if len(data) != count * width:
        return False
    if valid is None:
        return not len(sizes) or (sizes.min() == width and sizes.max() == width)
    return bool((sizes == valid * sizes.dtype.type(width)).all())   # (np.where: 3x slower)


def _filled_char_cells(np, data, valid, width: int, n: int) -> Cells:
    """CHAR(width) whose every value fills its cell: the data are the
    non-NULL rows' cells in order, each row may be put."""
    lengths = _lengths(np, n, width)
    ok = np.ones(n, dtype=bool)
    if valid is None:
        return Cells(lengths, ok, data.reshape(n, width))
    return Cells(lengths, ok, _with_null_rows(np, data, valid, width))


def _windows(np, data, starts, size: int, before: int = 0):
    """``data[s - before:s - before + size]`` for each start s as an (n,
    size) matrix, bytes outside the data read as zeros: one row gather from
    a strided view (numpy copies each row whole; a byte index would cost a
    pass per byte)."""
    padded = np.zeros(before + len(data) + size, np.uint8)
    padded[before:before + len(data)] = data
    return np.lib.stride_tricks.sliding_window_view(padded, size)[starts]


_TEMPLATES: dict[int, Any] = {}


def _keep_rows(np, kept, width: int):
    """Per row, 0xFF over its first ``kept`` bytes and 0 after: one gather
    of ``width``-byte items from an overlapping view of a 2 * width
    template (item k starts at byte k), not a compare per byte."""
    if width not in _TEMPLATES:
        template = np.zeros(2 * width, np.uint8)
        template[:width] = 0xFF
        _TEMPLATES[width] = np.ndarray((width + 1,), np.dtype((np.void, width)), template,
                                       0, (1,))
    return _TEMPLATES[width].take(width - kept).view(np.uint8).reshape(len(kept), width)


def _char_cells(np, data, starts, kept, valid, width: int, ok) -> Cells:
    """CHAR(width): each value then blanks; NULL is a zero byte, then blanks
    (``kept``: each row's size clipped to the width)."""
    n = len(kept)
    lengths = _lengths(np, n, width)
    if not width:
        return Cells(lengths, ok, np.zeros((n, 0), np.uint8))
    cells = _windows(np, data, starts, width)
    # past its value a row is blank: (text ^ 0x20) & keep ^ 0x20
    cells ^= 0x20
    cells &= _keep_rows(np, kept, width)
    cells ^= 0x20
    if valid is not None:
        cells[np.flatnonzero(~valid), 0] = 0
    return Cells(lengths, ok, cells)


def _with_null_rows(np, data, valid, width: int):
    """The non-NULL rows' cells (``data``, end to end, one a valid row) with
    NULL cells (a zero byte, then blanks) between them: all NULL cells
    first (a blank memset, the zero column) and one masked store of void
    rows puts the others (a 2nd masked store for the NULLs costs ~0.3 ns
    a row more: as many runs; a void fill 1.6, a running-count gather 2)."""
    cells = np.full((len(valid), width), 0x20, np.uint8)
    cells[:, 0] = 0
    item = np.dtype((np.void, width))
    cells.reshape(-1).view(item)[valid] = data.view(item)
    return cells


def _varchar_cells(np, data, starts, kept, valid, ok) -> Cells:
    """[length byte][bytes] a row, NULL as [1][0]; a value too long for the
    column (not put) keeps its first ``width`` bytes (``kept``: each row's
    size clipped to the width), so no row passes the matrix.  Each row is
    gathered from the byte before its value, that byte then replaced by the
    length."""
    size = max(int(kept.max()) if len(kept) else 0, 1)
    cells = _windows(np, data, starts, size + 1, before=1)
    cells[:, 0] = kept
    lengths = kept + 1
    if valid is not None:
        nulls = np.flatnonzero(~valid)
        cells[nulls, 0] = 1
        cells[nulls, 1] = 0
        lengths[nulls] = 2
    return Cells(lengths, ok, cells)


def _utf8_values(array, encoding: str) -> bool:
    """Whether the session is UTF-8 and each non-NULL value is UTF-8 on its
    own (an array built from buffers need not be; such bytes have no Python
    value, so the value-by-value path refuses their row): Arrow's full
    validation, ~5 ns a row in C, no pyarrow.compute."""
    return encoding.lower().replace("_", "-") in ("utf-8", "utf8") and fully_valid(array)


_ASCII = "".join(map(chr, range(128)))


def _ascii_compatible(encoding: str) -> bool:
    """Whether ASCII text is the same bytes in ``encoding`` as in UTF-8."""
    try:
        return _ASCII.encode(encoding) == _ASCII.encode("ascii")
    except (LookupError, UnicodeError):
        return False


# -- the reference ------------------------------------------------------------------

def python_cells(np, array, ctype: ColumnType, check: Callable[[Any], bool],
                 encoding: str) -> Cells:
    """Value by value, as ``InsertCursor.item`` decides: the Python value,
    the column's check, then its cell encoder (an Error means: not put)."""
    encode = make_row_encoder([ctype], encoding)
    cells: list[bytes] = []
    ok: list[bool] = []
    for index in range(len(array)):
        try:
            value = python_value(array, index)
        except NO_VALUE_ERRORS:
            cells.append(b"")
            ok.append(False)
            continue
        cell, good = b"", value is None or check(value)
        if good:
            try:
                cell = encode((value,))
            except Error:
                good = False
        cells.append(cell)
        ok.append(good)
    return Cells(np.fromiter(map(len, cells), dtype=np.int64, count=len(cells)),
                 np.array(ok, dtype=bool), flat=np.frombuffer(b"".join(cells), dtype=np.uint8))
