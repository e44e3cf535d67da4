"""Adversary round 7: what an Arrow load stores against what the same rows
as Python tuples store (issue 9: nothing silently wrong).

Every case loads a table ``(i INTEGER, v <column>)`` four ways -- tuples
through the insert cursor and through BIND+EXECUTE, Arrow through the
insert cursor (arrow/put_images.py, put_cells.py) and through BIND+EXECUTE
(arrow/ingest.py, ``insert_cursor=False``) -- and reads each back with the
tuple path.  Each Arrow load must end as the tuple load does (the same
rows stored, or the same error class at the same ``row_index``); where a
cell has no Python value at all (a date32 past 9999, a timestamp past
Python's calendar, string bytes that are not UTF-8) the tuple path cannot
even be built, and the Arrow load must be a DataError naming the column at
that row, with exactly the rows before it stored.

Shapes attacked: slices whose offset is not a multiple of 8 (an unaligned
validity bitmap), NULL slots holding garbage values and ``null_count``
unknown (``pa.Array.from_buffers``), dictionary-encoded and view/large
strings, ChunkedArrays of tiny and empty chunks, readers yielding zero-row
batches, loads that cross ingest.SLICE_ROWS at the failing row; integers at
every width's extremes, floats with NaN/inf/-0.0, text of every UTF-8 width
and with NUL bytes in ISO 8859-1, CP1252 and UTF-8 databases, exactly a
CHAR's width, one byte over and one multibyte character over.
"""

from __future__ import annotations

import asyncio

import pytest

pa = pytest.importorskip("pyarrow", reason="Arrow ingest needs the arrow extra")
np = pytest.importorskip("numpy", reason="Arrow ingest needs the arrow extra")

import informix_stream as ifx  # noqa: E402
from faults.emu import connect_kw  # noqa: E402
from informix_stream.arrow.ingest import SLICE_ROWS  # noqa: E402
from informix_stream.emulator import EmulatorServer  # noqa: E402

pytestmark = pytest.mark.timeout(300)

DATABASES = {"latin": "en_US.8859-1", "u8": "en_US.utf8", "cp": "en_US.cp1252"}
PATHS = {"put": {}, "bind": {"insert_cursor": False}}


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=DATABASES) as srv:
        yield srv


class Cursors(dict):
    """An autocommit cursor per database (its session in the database's
    code set), connected when first asked for: a failing load may leave its
    connection broken, so no connection outlives its test."""

    def __init__(self, server) -> None:
        super().__init__()
        self.server = server

    def __missing__(self, name: str):
        locale = DATABASES[name]
        conn = ifx.connect(**connect_kw(self.server, database=name, db_locale=locale,
                                        client_locale=locale), autocommit=True)
        self[name] = cur = conn.cursor()
        return cur

    def close(self) -> None:
        for cur in self.values():
            cur.connection.close()


@pytest.fixture
def cursors(server):
    found = Cursors(server)
    yield found
    found.close()


def _table(cur, column: str) -> None:
    cur.execute("DROP TABLE IF EXISTS t7")
    cur.execute(f"CREATE TABLE t7 (i INTEGER, v {column})")


def _load(cur, data, **kw) -> tuple[tuple, list[tuple]]:
    """(how the load ended, the rows then stored).  Any exception that is
    not a PEP 249 one propagates: that is the failure these tests look for."""
    cur.execute("DELETE FROM t7")
    try:
        cur.executemany("INSERT INTO t7 VALUES (?, ?)", data, **kw)
        ended: tuple = ("ok",)
    except ifx.Error as exc:
        ended = (type(exc).__name__, getattr(exc, "row_index", None))
    cur.execute("SELECT i, v FROM t7 ORDER BY i")
    return ended, cur.fetchall()


def _arrow(values) -> pa.Table:
    return pa.table({"i": pa.array(range(len(values)), pa.int32()), "v": values})


def same_as_tuples(cur, column: str, values) -> None:
    """Each Arrow path stores what the tuple path on the same route stores
    (repr compares NaN with NaN)."""
    _table(cur, column)
    rows = list(enumerate(values.to_pylist()))
    for path, kw in PATHS.items():
        expected = repr(_load(cur, rows, **kw))
        got = repr(_load(cur, _arrow(values), **kw))
        assert got == expected, f"{path} path, {column}, {values.type}"


def refused_at(cur, column: str, values, bad_row: int, says: str = "has no Python value",
               **kw) -> None:
    """A cell with no Python value: DataError at its row naming the column
    and saying ``says``, the rows before it stored, the connection still
    usable."""
    _table(cur, column)
    cur.execute("DELETE FROM t7")
    with pytest.raises(ifx.DataError, match="'v'") as caught:
        cur.executemany("INSERT INTO t7 VALUES (?, ?)", _arrow(values), **kw)
    assert caught.value.row_index == bad_row
    assert says in str(caught.value)
    cur.execute("SELECT i FROM t7 ORDER BY i")
    assert cur.fetchall() == [(k,) for k in range(bad_row)]


# -- values with no Python form ---------------------------------------------------

@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("nulls", [False, True], ids=["no-null", "null"])
@pytest.mark.parametrize("days", [2932897, 2**31 - 1, -719163, -2**31])
def test_a_date32_outside_0001_9999_is_a_data_error_at_its_row(cursors, days, nulls, path):
    values = [0, days] + ([None] if nulls else [])
    refused_at(cursors["latin"], "DATE", pa.array(values, pa.int32()).cast(pa.date32()), 1,
               **PATHS[path])


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("column", ["DATETIME YEAR TO SECOND", "DATETIME YEAR TO DAY",
                                    "DATETIME YEAR TO FRACTION(5)"])
@pytest.mark.parametrize("unit", ["s", "ms", "us"])
def test_a_timestamp_outside_pythons_calendar_is_a_data_error(cursors, unit, column, path):
    """Only YEAR TO SECOND has an insert-cursor rule (put_cells); every
    other qualifier goes value by value through ingest on both paths."""
    values = pa.array([0, 2**62, None], pa.timestamp(unit))
    refused_at(cursors["latin"], column, values, 1, **PATHS[path])


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("column", ["DATETIME YEAR TO SECOND", "DATETIME HOUR TO SECOND",
                                    "DATETIME HOUR TO FRACTION(5)"])
@pytest.mark.parametrize("dictionary", [False, True], ids=["plain", "dictionary"])
@pytest.mark.parametrize("values", [
    pa.array([3600, 100 * 3600, None], pa.time32("s")),
    pa.array([0, -1], pa.time32("s")),
    pa.array([0, 86_400_000], pa.time32("ms")),
    pa.array([5, 100 * 3_600_000_000], pa.time64("us")),
    pa.array([5, 86_400 * 10**9 + 1000], pa.time64("ns"))], ids=str)
def test_a_time_of_day_past_24_hours_is_a_data_error(cursors, values, dictionary, column,
                                                     path):
    """pyarrow reads such a time round the clock (100 hours as 04:00);
    Arrow says it is invalid (Array.validate(full=True)), it has no Python
    value, and storing 04:00 would be silently wrong: refused at its row
    where a time of day loads (the HOUR TO qualifiers, through ingest on
    both paths).  Into a DATETIME with a date no time loads at all
    (load_types.py: the server would take the date from CURRENT), so the
    whole column is refused at row 0 before a row is sent, the bad value
    notwithstanding."""
    if dictionary:
        values = values.dictionary_encode()
    whole = column.startswith("DATETIME YEAR")
    refused_at(cursors["latin"], column, values, 0 if whole else 1,
               "cannot be loaded into" if whole else "no time of day", **PATHS[path])


@pytest.mark.parametrize("path", list(PATHS))
def test_a_bad_time_in_a_null_slot_or_an_unused_dictionary_entry_is_not_refused(cursors,
                                                                                path):
    """Only a cell's value is checked: a NULL whose slot holds 100 hours,
    and a dictionary entry of 100 hours no row uses, load as the tuple
    rows do (the whole-column check fails for the dictionary, and the
    cell-by-cell scan then finds every used value good)."""
    cur = cursors["latin"]
    same_as_tuples(cur, "DATETIME HOUR TO SECOND",
                   _garbage(pa.array([1, 2, 3], pa.time32("s")), [1], 100 * 3600))
    unused = pa.DictionaryArray.from_arrays(pa.array([0, None, 0], pa.int8()),
                                            pa.array([7, 100 * 3600], pa.time32("s")))
    same_as_tuples(cur, "DATETIME HOUR TO SECOND", unused)


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("column,values", [
    ("INTERVAL DAY(9) TO SECOND", pa.array([5, 2**62], pa.duration("s"))),
    ("DATE", pa.array([0, 2**62], pa.date64()))], ids=["duration", "date64"])
def test_a_duration_or_date64_past_pythons_range_is_a_data_error(cursors, column, values,
                                                                 path):
    """INTERVAL has no insert-cursor cell: a duration goes through ingest
    on both paths."""
    refused_at(cursors["latin"], column, values, 1, **PATHS[path])


def _not_utf8(raw: bytes, nulls: bool):
    """A string array whose row 1 holds ``raw`` unchecked (Arrow's
    constructors validate; a buffer from elsewhere need not)."""
    binary = pa.array([b"ok", raw] + ([None] if nulls else []), pa.binary())
    return pa.Array.from_buffers(pa.string(), len(binary), binary.buffers(), null_count=-1)


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("raw", [b"ab\xff", b"\xc3", b"\xed\xa0\x80"])
@pytest.mark.parametrize("nulls", [False, True], ids=["no-null", "null"])
@pytest.mark.parametrize("database,column", [("latin", "VARCHAR(10)"), ("u8", "VARCHAR(10)"),
                                             ("u8", "CHAR(4)"), ("cp", "CHAR(4)")])
def test_string_bytes_that_are_not_utf8_are_a_data_error(cursors, database, column, nulls,
                                                         raw, path):
    refused_at(cursors[database], column, _not_utf8(raw, nulls), 1, **PATHS[path])


@pytest.mark.parametrize("path", list(PATHS))
def test_not_utf8_into_lvarchar(cursors, path):
    """LVARCHAR has no insert-cursor cell: both paths go through ingest."""
    refused_at(cursors["u8"], "LVARCHAR(10)", _not_utf8(b"\xff", False), 1, **PATHS[path])


def test_halves_of_one_character_in_two_values_are_not_utf8(cursors):
    """Each value's bytes are checked alone: "\\xc3" then "\\xa9" is "é"
    only when joined, and neither value is UTF-8."""
    binary = pa.array([b"ok", b"\xc3", b"\xa9"], pa.binary())
    values = pa.Array.from_buffers(pa.string(), 3, binary.buffers(), null_count=-1)
    refused_at(cursors["u8"], "VARCHAR(10)", values, 1)


# -- the same rows as tuples -------------------------------------------------------

def _garbage(values, null_rows: list[int], fill):
    """``values``' type with NULL at ``null_rows`` whose slots hold ``fill``
    (a value the row would store if the bitmap were ignored), null_count
    left for Arrow to count."""
    full = pa.array([fill if k in null_rows else v for k, v in enumerate(values)],
                    pa.array(values).type if not isinstance(values, pa.Array) else values.type)
    valid = np.ones(len(full), bool)
    valid[null_rows] = False
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little").tobytes())
    return pa.Array.from_buffers(full.type, len(full), [bitmap, *full.buffers()[1:]],
                                 null_count=-1)


def _unaligned(values: list, atype, offset: int):
    """``values`` as a slice at ``offset`` of a longer array."""
    pad = next(v for v in values if v is not None)
    return pa.array([pad] * offset + values + [pad] * 3, atype).slice(offset, len(values))


INT_TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(),
             pa.uint32(), pa.uint64()]


@pytest.mark.parametrize("column", ["SMALLINT", "INTEGER", "BIGINT", "INT8"])
@pytest.mark.parametrize("atype", INT_TYPES, ids=str)
def test_integers_at_their_extremes_and_in_every_shape(cursors, atype, column):
    info = np.iinfo(atype.to_pandas_dtype())
    cur = cursors["latin"]
    same_as_tuples(cur, column, pa.array([int(info.min), int(info.max), 0, 1, None], atype))
    same_as_tuples(cur, column, _garbage(pa.array(range(1, 11), atype), [0, 3, 9],
                                         int(info.max)))
    for offset in (1, 5, 8, 13):
        same_as_tuples(cur, column, _unaligned([1, None, 3, 4, None, 6, 7, 8, 9, None, 11],
                                               atype, offset))


@pytest.mark.parametrize("column", ["FLOAT", "SMALLFLOAT", "DECIMAL(10,2)", "MONEY(8,2)"])
@pytest.mark.parametrize("atype", [pa.float32(), pa.float64()], ids=str)
def test_floats_with_nan_infinities_and_negative_zero(cursors, atype, column):
    cur = cursors["latin"]
    same_as_tuples(cur, column, pa.array([0.0, -0.0, 1.5, float("nan"), None, float("inf"),
                                          -float("inf"), 6e4, 1e-7], atype))
    same_as_tuples(cur, column, _garbage(pa.array([1.0, 2.0, 3.0, 4.0], atype), [0, 2],
                                         float("nan")))
    same_as_tuples(cur, column, _unaligned([1.25, None, 3.5, None, 5.0], atype, 3))


TEXTS = ["", "a", "abcd", "abcde", "abcdef", "é", "éé", "ééé", "€", "日本", "😀", "a\x00b",
         "\x00", "  ", "x ", "\x7f\x80", "ab\u00ff"]
TEXT_TYPES = [pa.string(), pa.large_string(), pa.string_view()]


@pytest.mark.parametrize("atype", TEXT_TYPES, ids=str)
@pytest.mark.parametrize("column", ["CHAR(5)", "VARCHAR(5)",
                                    "NVARCHAR(5,2)", "LVARCHAR(5)"])
@pytest.mark.parametrize("database", list(DATABASES))
def test_text_of_every_width_in_every_shape_and_code_set(cursors, database, column, atype):
    """Exactly the width, one byte over, one multibyte character over, NUL
    bytes, characters the code set lacks: stored or refused alike."""
    cur = cursors[database]
    for text in TEXTS:
        same_as_tuples(cur, column, pa.array([text, None, text], atype))
    same_as_tuples(cur, column, pa.array(TEXTS + [None], atype).dictionary_encode())
    for offset in (3, 8):
        same_as_tuples(cur, column, _unaligned(TEXTS + [None], atype, offset))
    same_as_tuples(cur, column, pa.chunked_array(
        [pa.array([], atype), pa.array(["a"], atype), pa.array([], atype),
         pa.array([None, "ab"], atype), pa.array(["abcdef"], atype)]))
    if atype != pa.string_view():
        same_as_tuples(cur, column, _garbage(pa.array(["abc", "defgh", "ijklmnop", "q"], atype),
                                             [1, 2], "zzzzzzzzzzzz"))


def _raw_nulls(atype, values: list, null_rows: list[int], fill: int, width: int):
    """``values`` as ``atype`` with NULL at ``null_rows`` whose value slots
    hold the ``width``-byte integer ``fill`` (out of range for the column)."""
    data = bytearray(pa.array(values, atype).buffers()[1].to_pybytes())
    for row in null_rows:
        data[row * width:(row + 1) * width] = fill.to_bytes(width, "little", signed=True)
    valid = np.ones(len(values), bool)
    valid[null_rows] = False
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little").tobytes())
    return pa.Array.from_buffers(atype, len(values), [bitmap, pa.py_buffer(bytes(data))],
                                 null_count=-1)


def test_null_slots_holding_out_of_range_dates_timestamps_and_decimals(cursors):
    """A NULL stays NULL whatever its slot holds: a day count past 9999, an
    int64 extreme of ticks, an int128 extreme or 10**30 unscaled."""
    from decimal import Decimal
    cur = cursors["latin"]
    nulls = [0, 4, 8]
    for fill in (2**31 - 1, -2**31, 2932897):
        same_as_tuples(cur, "DATE", _raw_nulls(pa.date32(), list(range(9)), nulls, fill, 4))
    for unit in ("s", "ms", "us"):
        for fill in (2**63 - 1, -2**63, 2**62):
            same_as_tuples(cur, "DATETIME YEAR TO SECOND",
                           _raw_nulls(pa.timestamp(unit), list(range(9)), nulls, fill, 8))
    for column in ("DECIMAL(10,2)", "MONEY(16,2)", "DECIMAL(18,0)"):
        for fill in (2**127 - 1, -2**127, 10**30):
            same_as_tuples(cur, column, _raw_nulls(pa.decimal128(12, 2),
                                                   [Decimal(k) for k in range(9)], nulls,
                                                   fill, 16))


def test_dictionary_encoded_integers_and_dates(cursors):
    cur = cursors["latin"]
    same_as_tuples(cur, "INTEGER", pa.array([5, None, 5, -7, 2**31 - 1], pa.int64())
                   .dictionary_encode())
    same_as_tuples(cur, "DATE", pa.array([0, None, 5, -719162], pa.date32())
                   .dictionary_encode())


# -- where the load is cut into slices and chunks ---------------------------------

def _batches(table: pa.Table, empty_between: bool):
    """The table's batches of at most SLICE_ROWS rows, with zero-row
    batches before, between and after them when ``empty_between``."""
    empty = pa.RecordBatch.from_pylist([], schema=table.schema)
    out = [empty] if empty_between else []
    for batch in table.to_batches(max_chunksize=SLICE_ROWS):
        out += [batch, empty] if empty_between else [batch]
    return pa.RecordBatchReader.from_batches(table.schema, out)


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("bad", [None, 0, SLICE_ROWS - 1, SLICE_ROWS, SLICE_ROWS + 1])
def test_a_failing_row_at_the_slice_boundary(cursors, bad, path):
    """SLICE_ROWS + 2 rows (a server-side overflow at ``bad``) from a table,
    a reader with zero-row batches, and 7-row chunks: the tuple load's
    ending and rows, whatever chunk_size cuts them."""
    cur = cursors["latin"]
    _table(cur, "SMALLINT")
    n = SLICE_ROWS + 2
    values = [k % 1000 for k in range(n)]
    if bad is not None:
        values[bad] = 40000
    table = _arrow(pa.array(values, pa.int32()))
    tiny = pa.Table.from_batches([table.slice(k, 7).to_batches()[0] for k in range(0, n, 7)])
    for chunk_size in (4000, 1000):
        kw = dict(PATHS[path], chunk_size=chunk_size)
        expected = _load(cur, list(enumerate(values)), **kw)
        for source in (table, _batches(table, True), tiny, table.to_batches()[0]):
            assert _load(cur, source, **kw) == expected, (chunk_size, type(source))


def test_load_arrow_and_asyncio_store_what_tuples_store(server, cursors):
    """load_arrow and the asyncio cursor take the same routes: a sliced,
    chunked source with garbage NULL slots and a failing row."""
    cur = cursors["latin"]
    _table(cur, "SMALLINT")
    values = _garbage(pa.array([1, 2, 3, 40000, 5], pa.int64()), [1], 99999)
    source = pa.Table.from_batches([_arrow(values).slice(0, 2).to_batches()[0],
                                    _arrow(values).slice(2, 3).to_batches()[0]])
    expected = _load(cur, list(enumerate(values.to_pylist())))
    cur.execute("DELETE FROM t7")
    with pytest.raises(ifx.DataError) as caught:
        cur.load_arrow("t7", source)
    cur.execute("SELECT i, v FROM t7 ORDER BY i")
    assert (("DataError", caught.value.row_index), cur.fetchall()) == expected

    async def load_async() -> tuple:
        conn = await ifx.connect_async(**connect_kw(server, database="latin",
                                                    db_locale=DATABASES["latin"],
                                                    client_locale=DATABASES["latin"]),
                                       autocommit=True)
        try:
            acur = conn.cursor()
            out = []
            for kw in PATHS.values():
                await acur.execute("DELETE FROM t7")
                try:
                    await acur.executemany("INSERT INTO t7 VALUES (?, ?)", source, **kw)
                    ended: tuple = ("ok",)
                except ifx.Error as exc:
                    ended = (type(exc).__name__, exc.row_index)
                await acur.execute("SELECT i, v FROM t7 ORDER BY i")
                out.append((ended, await acur.fetchall()))
            return tuple(out)
        finally:
            await conn.close()

    assert asyncio.run(asyncio.wait_for(load_async(), 60)) == (expected, expected)


def test_a_cell_the_insert_cursor_cannot_bind_names_its_column_and_parameter(cursors):
    """The row's error is the tuple path's ("parameter 2: ...") with the
    column's name; it said "parameter 1" for every column."""
    cur = cursors["latin"]
    _table(cur, "BIGINT")
    values = pa.array([1, 2**64 - 1], pa.uint64())
    with pytest.raises(ifx.DataError) as caught:
        cur.executemany("INSERT INTO t7 VALUES (?, ?)", _arrow(values))
    assert caught.value.row_index == 1
    assert "column 'v': parameter 2: 18446744073709551615 overflows BIGINT" in str(caught.value)


@pytest.mark.parametrize("column", ["BYTE", "BLOB"])
@pytest.mark.parametrize("atype", [pa.binary(), pa.large_binary()], ids=str)
def test_binary_into_byte_columns_loads_as_bytes_tuples_do(cursors, atype, column):
    same_as_tuples(cursors["latin"], column, pa.array([b"ab\x00c", None, b""], atype))


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("column", ["TEXT", "CLOB"])
@pytest.mark.parametrize("atype", [pa.binary(), pa.large_binary()], ids=str)
def test_binary_into_text_columns_is_refused_whole(cursors, atype, column, path):
    """Decoding bytes to text is the caller's decision (load_types.py):
    the column is refused at row 0, nothing of the load sent."""
    refused_at(cursors["latin"], column, pa.array([b"ab\x00c", None, b""], atype), 0,
               "cannot be loaded into", **PATHS[path])


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("bad", [SLICE_ROWS - 1, SLICE_ROWS, SLICE_ROWS + 1])
@pytest.mark.parametrize("column,values,fill", [
    ("DATE", pa.array(range(SLICE_ROWS + 2), pa.int32()).cast(pa.date32()), 2932897),
    ("DATETIME HOUR TO SECOND", pa.array(range(SLICE_ROWS + 2), pa.time32("s")), 86_400),
    ("VARCHAR(10)", pa.array(["ok"] * (SLICE_ROWS + 2)), b"\xff")], ids=["date", "time", "text"])
def test_a_cell_with_no_python_value_past_a_slice(cursors, column, values, fill, bad, path):
    """The bad cell in the first slice, the second, or the second's first
    row: exactly the rows before it stored, in both slices; the fast date
    path (no NULLs) checks its range as the value path does."""
    if pa.types.is_string(values.type):
        raw = values.cast(pa.binary()).to_pylist()
        raw[bad] = fill
        binary = pa.array(raw, pa.binary())
        values = pa.Array.from_buffers(pa.string(), len(binary), binary.buffers())
    else:
        ticks = values.cast(pa.int32()).to_pylist()
        ticks[bad] = fill
        values = pa.array(ticks, pa.int32()).cast(values.type, safe=False)
    refused_at(cursors["latin"], column, values, bad, **PATHS[path])


@pytest.mark.parametrize("path", list(PATHS))
def test_a_date_past_9999_inside_a_list_is_a_data_error(cursors, path):
    """A nested cell with no Python value refuses its row too (pyarrow's
    ValueError from the list's value used to escape the BIND route)."""
    values = pa.array([[0], [5, 2932897], None], pa.list_(pa.int32())).cast(
        pa.list_(pa.date32()))
    refused_at(cursors["latin"], "LIST(DATE NOT NULL)", values, 1, **PATHS[path])


@pytest.mark.parametrize("path", list(PATHS))
def test_a_run_end_encoded_time_past_24_hours_is_a_data_error(cursors, path):
    """A run-end encoded cell is its run's value: checked as a plain one."""
    import pyarrow.compute as pc
    values = pc.run_end_encode(pa.array([3600, 100 * 3600, 100 * 3600], pa.time32("s")))
    refused_at(cursors["latin"], "DATETIME HOUR TO SECOND", values, 1, "no time of day",
               **PATHS[path])
