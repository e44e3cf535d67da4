"""Which Arrow column types load into which Informix columns (issue 14, "an
Arrow column of the wrong type"): arrow/load_types.py.

Every pair of the matrix below is loaded through ``load_arrow`` on both
send paths (insert cursor when it applies, and BIND+EXECUTE).  An allowed
pair must store exactly what the same values stored as Python tuples (the
check changes nothing it lets through); a refused pair raises DataError
naming the Arrow column, its type and the column's Informix type at
row_index 0, stores no row, and leaves the connection usable.  Targeted
tests show what the value-by-value fallback did before the check (text
'LIST{1,2}' in a VARCHAR, today's date from a time of day, day numbers
from 1899 in a DATE) through the tuple path, which still does it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal

import pytest

pa = pytest.importorskip("pyarrow", reason="Arrow loading needs the arrow extra")
pytest.importorskip("numpy", reason="Arrow loading needs the arrow extra")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

import informix_stream as ifx  # noqa: E402
from faults.emu import DATABASE, connect_kw  # noqa: E402
from informix_stream.arrow import load_types  # noqa: E402
from informix_stream.arrow.types import arrow_type  # noqa: E402
from informix_stream.codec.scalars import IntervalYM  # noqa: E402
from informix_stream.codec.typeinfo import ColumnType, TypeCode, qualifier  # noqa: E402
from informix_stream.emulator import EmulatorServer  # noqa: E402

pytestmark = pytest.mark.timeout(300)

ARROW = {
    "int8": lambda: pa.array([1, -2, None], pa.int8()),
    "int32": lambda: pa.array([7, -2, None], pa.int32()),
    "int64": lambda: pa.array([1, 2**40, None], pa.int64()),
    "uint64": lambda: pa.array([1, 2, None], pa.uint64()),
    "float32": lambda: pa.array([1.5, -2.25, None], pa.float32()),
    "float64": lambda: pa.array([1.5, -2.25, None], pa.float64()),
    "decimal": lambda: pa.array([Decimal("1.50"), Decimal("-2.25"), None], pa.decimal128(5, 2)),
    "decimal0": lambda: pa.array([Decimal("15"), Decimal("-2"), None], pa.decimal128(5, 0)),
    "decimal256": lambda: pa.array([Decimal("1.50"), None, Decimal("3")], pa.decimal256(40, 2)),
    "string": lambda: pa.array(["1", "2", None]),
    "large_string": lambda: pa.array(["t", "f", None], pa.large_string()),
    "dictionary": lambda: pa.array(["a", "b", None]).dictionary_encode(),
    "bool": lambda: pa.array([True, False, None]),
    "date32": lambda: pa.array([dt.date(2020, 1, 2), dt.date(1999, 12, 31), None], pa.date32()),
    "date64": lambda: pa.array([dt.date(2020, 1, 2), None, dt.date(1, 1, 1)], pa.date64()),
    "ts_s": lambda: pa.array([dt.datetime(2020, 1, 2, 3, 4, 5), None], pa.timestamp("s")),
    "ts_us": lambda: pa.array([dt.datetime(2020, 1, 2, 3, 4, 5, 123456), None],
                              pa.timestamp("us")),
    "time32": lambda: pa.array([dt.time(3, 4, 5), None], pa.time32("s")),
    "time64": lambda: pa.array([dt.time(23, 59, 59, 5), None], pa.time64("us")),
    "duration": lambda: pa.array([dt.timedelta(days=1, seconds=5), None], pa.duration("s")),
    "month_interval": lambda: pa.array([(14, 0, 0), None], pa.month_day_nano_interval()),
    "binary": lambda: pa.array([b"ab", None]),
    "null": lambda: pa.array([None, None], pa.null()),
    "list": lambda: pa.array([[1, 2], [3], None], pa.list_(pa.int64())),
    "struct": lambda: pa.array([{"a": 1}, None], pa.struct([("a", pa.int64())])),
    "map": lambda: pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int64())),
}
COLUMNS = ["SMALLINT", "INTEGER", "INT8", "BIGINT", "FLOAT", "SMALLFLOAT", "DECIMAL(10,2)",
           "DECIMAL(10)", "MONEY(10,2)", "CHAR(10)", "VARCHAR(20)", "NVARCHAR(20)",
           "LVARCHAR(100)", "DATE", "DATETIME YEAR TO SECOND", "DATETIME YEAR TO FRACTION(5)",
           "DATETIME YEAR TO DAY", "DATETIME HOUR TO SECOND", "INTERVAL DAY(5) TO SECOND",
           "INTERVAL YEAR(4) TO MONTH", "BOOLEAN", "BYTE", "TEXT", "BLOB", "CLOB",
           "LIST(INTEGER NOT NULL)", "SET(INTEGER NOT NULL)", "ROW(a INTEGER)"]

# The pairs that load (the table in load_types.py, spelled out once more so
# that a change to it is a change to this list too).
NUMERIC = ["SMALLINT", "INTEGER", "INT8", "BIGINT", "FLOAT", "SMALLFLOAT", "DECIMAL(10,2)",
           "DECIMAL(10)", "MONEY(10,2)"]
NON_INTEGER = NUMERIC[4:]
DATES = ["DATE", "DATETIME YEAR TO SECOND", "DATETIME YEAR TO FRACTION(5)",
         "DATETIME YEAR TO DAY"]
LOADS = {
    **{k: NUMERIC for k in ("int8", "int32", "int64", "uint64", "decimal0")},
    **{k: NON_INTEGER for k in ("float32", "float64", "decimal", "decimal256")},
    **{k: [c for c in COLUMNS if c not in ("BYTE", "BLOB")]
       for k in ("string", "large_string", "dictionary")},
    "bool": ["BOOLEAN"], "date32": DATES, "date64": DATES,
    "ts_s": [*DATES, "DATETIME HOUR TO SECOND"], "ts_us": [*DATES, "DATETIME HOUR TO SECOND"],
    "time32": ["DATETIME HOUR TO SECOND"], "time64": ["DATETIME HOUR TO SECOND"],
    "duration": ["INTERVAL DAY(5) TO SECOND"], "month_interval": ["INTERVAL YEAR(4) TO MONTH"],
    "binary": ["BYTE", "BLOB"],
    "null": COLUMNS, "list": ["LIST(INTEGER NOT NULL)"], "struct": ["ROW(a INTEGER)"],
    "map": [],
}


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        yield srv


@pytest.fixture(scope="module")
def conn(server):
    with ifx.connect(**connect_kw(server), autocommit=True) as c:
        yield c


def _fresh(cur, coltype: str) -> None:
    try:
        cur.execute("DROP TABLE lt")
    except ifx.ProgrammingError:
        pass
    cur.execute(f"CREATE TABLE lt (id INT, c {coltype})")


def _outcome(conn, coltype: str, source, insert_cursor):
    """The error (type, row_index) and the rows stored, after one load."""
    cur = conn.cursor()
    _fresh(cur, coltype)
    try:
        cur.executemany("INSERT INTO lt VALUES (?, ?)", source, insert_cursor=insert_cursor)
        error = None
    except ifx.Error as exc:
        error = (type(exc).__name__, getattr(exc, "row_index", None))
    return error, cur.execute("SELECT id, c FROM lt ORDER BY id").fetchall()


def _python(value):
    """The value a tuple row gives for an Arrow cell: a month interval is
    an IntervalYM there (its Arrow Python form is a (months, days, ns)
    tuple, which a tuple row would bind as ROW text)."""
    if type(value).__name__ == "MonthDayNano":
        return IntervalYM(value.months)
    return value


def _table(name: str):
    values = ARROW[name]()
    return pa.table({"id": pa.array(range(len(values)), pa.int32()), "c": values})


@pytest.mark.parametrize("coltype", COLUMNS)
@pytest.mark.parametrize("name", list(ARROW))
def test_each_pair_stores_what_tuples_store_or_is_refused_whole(conn, name, coltype):
    table = _table(name)
    for insert_cursor in (None, False):
        cur = conn.cursor()
        _fresh(cur, coltype)
        if coltype in LOADS[name]:
            got = _outcome(conn, coltype, table, insert_cursor)
            rows = [tuple(map(_python, r.values())) for r in table.to_pylist()]
            assert got == _outcome(conn, coltype, rows, insert_cursor), insert_cursor
            continue
        with pytest.raises(ifx.DataError) as info:
            cur.load_arrow("lt", table, insert_cursor=insert_cursor)
        text = str(info.value)
        assert "column 'c'" in text and str(table.schema.field("c").type) in text
        assert CTYPES[coltype].sql() in text and "no row of the load" in text
        assert info.value.row_index == 0
        assert cur.execute("SELECT count(*) FROM lt").fetchone() == (0,)


def test_what_the_value_by_value_fallback_stored_is_now_refused(conn):
    """The tuple path still binds each value's Python form; Arrow no longer
    falls back to it for a column of the wrong type."""
    cases = [("VARCHAR(20)", "list", [(0, [1, 2])], (0, "LIST{1,2}")),
             ("VARCHAR(20)", "struct", [(0, {"a": 1})], (0, "ROW(1)")),
             ("DATE", "int32", [(0, 7)], (0, dt.date(1900, 1, 7))),
             ("CHAR(10)", "int64", [(0, 2**40)], (0, "1099511627"))]
    for coltype, name, rows, stored in cases:
        assert _outcome(conn, coltype, rows, False) == (None, [stored])
        table = pa.table({"id": pa.array([0], pa.int32()), "c": ARROW[name]().slice(0, 1)})
        error, back = _outcome(conn, coltype, table, None)
        assert error == ("DataError", 0) and back == []
    # a time of day into a DATETIME with a date took today's date
    error, back = _outcome(conn, "DATETIME YEAR TO SECOND", [(0, dt.time(3, 4, 5))], False)
    today = dt.date.today()
    assert error is None and abs(back[0][1].date() - today) <= dt.timedelta(days=1)
    # bool into INTEGER: the server refused row 0 without naming the column
    cur = conn.cursor()
    _fresh(cur, "INTEGER")
    with pytest.raises(ifx.DataError) as before:
        cur.executemany("INSERT INTO lt VALUES (?, ?)", [(0, True)])
    assert "-1213" in str(before.value) and "'c'" not in str(before.value)
    with pytest.raises(ifx.DataError, match=r"column 'c': an Arrow bool column cannot be "
                                            r"loaded into INTEGER \(parameter 2\)"):
        cur.load_arrow("lt", _table("bool"))


def test_month_intervals_and_bytes_load_and_read_back(conn):
    """The read map's month_day_nano_interval loads back (whole months; a
    value with days is refused at its row, the rows before it applied),
    and binary loads into BYTE and BLOB as bytes in tuple rows do."""
    cur = conn.cursor()
    _fresh(cur, "INTERVAL YEAR(4) TO MONTH")
    months = pa.array([(14, 0, 0), (-3, 0, 0), None, (0, 0, 0)], pa.month_day_nano_interval())
    cur.load_arrow("lt", pa.table({"id": pa.array(range(4), pa.int32()), "c": months}))
    back = cur.execute("SELECT c FROM lt ORDER BY id").fetch_arrow_table()
    assert back.column("c").to_pylist() == months.to_pylist()
    bad = pa.array([(1, 0, 0), (2, 0, 0), (2, 1, 0), (3, 0, 0)], pa.month_day_nano_interval())
    _fresh(cur, "INTERVAL YEAR(4) TO MONTH")
    with pytest.raises(ifx.DataError, match="column 'c'.*whole months") as info:
        cur.load_arrow("lt", pa.table({"id": pa.array(range(4), pa.int32()), "c": bad}))
    assert info.value.row_index == 2
    assert cur.execute("SELECT id FROM lt ORDER BY id").fetchall() == [(0,), (1,)]
    blobs = [b"\x00\xff" * 3, None, b"", b"x" * 70_000]
    for coltype in ("BYTE", "BLOB"):
        for atype in (pa.binary(), pa.large_binary()):
            _fresh(cur, coltype)
            cur.load_arrow("lt", pa.table({"id": pa.array(range(4), pa.int32()),
                                           "c": pa.array(blobs, atype)}))
            assert cur.execute("SELECT c FROM lt ORDER BY id").fetchall() == \
                [(v,) for v in blobs], (coltype, atype)


def test_a_source_without_rows_is_checked_too(conn):
    """The check is on the schema: a wrong column with no rows (an empty
    table, a stream with no batch) is refused all the same."""
    cur = conn.cursor()
    _fresh(cur, "VARCHAR(20)")
    empty = _table("list").slice(0, 0)
    with pytest.raises(ifx.DataError, match="column 'c'"):
        cur.load_arrow("lt", empty)
    with pytest.raises(ifx.DataError, match="column 'c'"):
        cur.load_arrow("lt", pa.RecordBatchReader.from_batches(empty.schema, iter(())),
                       insert_cursor=False)
    cur.load_arrow("lt", _table("string").slice(0, 0))
    assert cur.rowcount == 0


def test_the_refusal_comes_before_any_row_and_the_transaction_goes_on(conn):
    """Inside the caller's transaction: the rows it inserted stay, the
    refused load adds none, and the connection takes the next statement."""
    cur = conn.cursor()
    _fresh(cur, "INTEGER")
    conn.autocommit = False
    try:
        cur.execute("INSERT INTO lt VALUES (100, 1)")
        wide = pa.table({"id": pa.array(range(10_000), pa.int32()),
                         "c": pa.array([i / 2 for i in range(10_000)])})
        for insert_cursor in (None, False, True):
            with pytest.raises(ifx.DataError, match="'c'"):
                cur.executemany("INSERT INTO lt VALUES (?, ?)", wide, chunk_size=100,
                                insert_cursor=insert_cursor)
        cur.executemany("INSERT INTO lt VALUES (?, ?)", [(101, 2)])
        conn.commit()
    finally:
        conn.autocommit = True
    assert cur.execute("SELECT id, c FROM lt ORDER BY id").fetchall() == [(100, 1), (101, 2)]


def test_markers_check_the_column_that_feeds_them(conn):
    """``:N`` markers: marker k is checked against the Arrow column it takes."""
    cur = conn.cursor()
    try:
        cur.execute("DROP TABLE lt")
    except ifx.ProgrammingError:
        pass
    cur.execute("CREATE TABLE lt (n INTEGER, s VARCHAR(10))")
    table = pa.table({"s": ["x", "y"], "n": pa.array([1, 2], pa.int64())})
    cur.executemany("INSERT INTO lt (n, s) VALUES (:2, :1)", table)
    assert cur.execute("SELECT n, s FROM lt ORDER BY n").fetchall() == [(1, "x"), (2, "y")]
    with pytest.raises(ifx.DataError, match=r"column 'n': an Arrow int64 column cannot be "
                                            r"loaded into VARCHAR\(10\) \(parameter 1\)"):
        cur.executemany("INSERT INTO lt (s, n) VALUES (:1, :2)",
                        pa.table({"n": pa.array([1], pa.int64()), "s": ["z"]}))
    cur.executemany("INSERT INTO lt (s, n) VALUES (:2, :1)",      # the same, matched
                    pa.table({"n": pa.array([3], pa.int64()), "s": ["z"]}))
    # columns= picks and orders by name; the check follows the names
    cur.load_arrow("lt", table, columns=["n", "s"])
    wrong = pa.table({"s": pa.array([dt.date(2020, 1, 1)]), "x": [[1]], "n": [7]})
    with pytest.raises(ifx.DataError, match=r"column 's': an Arrow date32\[day\] column "
                                            r"cannot be loaded into VARCHAR\(10\) \(parameter 2"):
        cur.load_arrow("lt", wrong, columns=["n", "s"])
    assert cur.execute("SELECT count(*) FROM lt").fetchone() == (5,)


def test_stream_sources_and_the_asyncio_cursor_are_checked_alike(server, conn):
    batches = _table("list").to_batches()
    reader = pa.RecordBatchReader.from_batches(batches[0].schema, iter(batches))
    cur = conn.cursor()
    _fresh(cur, "VARCHAR(20)")
    with pytest.raises(ifx.DataError, match="column 'c': an Arrow list<item: int64>"):
        cur.load_arrow("lt", reader)

    async def main():
        aconn = await ifx.connect_async(**connect_kw(server), autocommit=True)
        try:
            acur = aconn.cursor()
            with pytest.raises(ifx.DataError, match="column 'c'.*VARCHAR"):
                await acur.load_arrow("lt", _table("struct"))
            with pytest.raises(ifx.DataError, match="column 'c'.*VARCHAR"):
                await acur.executemany("INSERT INTO lt VALUES (?, ?)", _table("int64"),
                                       insert_cursor=False)
            await acur.executemany("INSERT INTO lt VALUES (?, ?)", _table("string"))
            await acur.execute("SELECT count(*) FROM lt")
            return await acur.fetchone()
        finally:
            await aconn.close()

    assert asyncio.run(asyncio.wait_for(main(), 60)) == (3,)


# -- the table itself, without a server ----------------------------------------------

READ_TYPES = [ColumnType(code, length) for code, length in [
    (TypeCode.SMALLINT, 2), (TypeCode.INTEGER, 4), (TypeCode.SERIAL, 4),
    (TypeCode.BIGINT, 8), (TypeCode.INT8, 10), (TypeCode.SMALLFLOAT, 4),
    (TypeCode.FLOAT, 8), (TypeCode.DECIMAL, 0x0A02), (TypeCode.DECIMAL, 0x10FF),
    (TypeCode.MONEY, 0x0C02), (TypeCode.DATE, 4), (TypeCode.CHAR, 5), (TypeCode.VARCHAR, 40),
    (TypeCode.NCHAR, 3), (TypeCode.NVARCHAR, 9), (TypeCode.LVARCHAR, 200),
    (TypeCode.BOOLEAN, 1),
    (TypeCode.DATETIME, qualifier(14, 0, 10)), (TypeCode.DATETIME, qualifier(8, 0, 4)),
    (TypeCode.DATETIME, qualifier(4, 2, 4)), (TypeCode.DATETIME, qualifier(6, 6, 10)),
    (TypeCode.DATETIME, qualifier(19, 0, 15)), (TypeCode.DATETIME, qualifier(11, 6, 15)),
    (TypeCode.DATETIME, qualifier(8, 4, 10)),
    (TypeCode.INTERVAL, qualifier(7, 0, 2)), (TypeCode.INTERVAL, qualifier(12, 4, 10)),
    (TypeCode.INTERVAL, qualifier(15, 4, 15))]]


@pytest.mark.parametrize("ctype", READ_TYPES, ids=lambda t: t.sql())
def test_what_reading_gives_loads_back_into_its_column(ctype):
    atype = arrow_type(pa, ctype)
    schema = pa.schema([pa.field("x", atype)])
    assert load_types.load_type_error(schema, [0], [ctype]) is None


@settings(max_examples=200, deadline=None)
@given(hs.lists(hs.tuples(hs.sampled_from(sorted(ARROW)), hs.sampled_from(COLUMNS)),
                   min_size=1, max_size=6), hs.randoms())
def test_the_first_refused_marker_is_named_whatever_else_is_bound(pairs, rng):
    """Several columns, some refused: the error names the first refused
    marker's column (in marker order, however the columns are arranged)."""
    names = [f"a{i}" for i in range(len(pairs))]
    order = list(range(len(pairs)))
    rng.shuffle(order)
    schema = pa.schema([pa.field(names[i], ARROW[pairs[i][0]]().type) for i in order])
    picked = [schema.names.index(n) for n in names]
    targets = [_ctype(col) for _, col in pairs]
    error = load_types.load_type_error(schema, picked, targets)
    refused = [i for i, (name, col) in enumerate(pairs) if col not in LOADS[name]]
    if not refused:
        assert error is None
    else:
        assert error is not None and f"column {names[refused[0]]!r}" in str(error)
        assert f"(parameter {refused[0] + 1})" in str(error)


def _composite(code: TypeCode, text: str) -> ColumnType:
    return ColumnType(code, 2048, True, text)


CTYPES = {
    "SMALLINT": ColumnType(TypeCode.SMALLINT, 2), "INTEGER": ColumnType(TypeCode.INTEGER, 4),
    "INT8": ColumnType(TypeCode.INT8, 10), "BIGINT": ColumnType(TypeCode.BIGINT, 8),
    "FLOAT": ColumnType(TypeCode.FLOAT, 8), "SMALLFLOAT": ColumnType(TypeCode.SMALLFLOAT, 4),
    "DECIMAL(10,2)": ColumnType(TypeCode.DECIMAL, 0x0A02),
    "DECIMAL(10)": ColumnType(TypeCode.DECIMAL, 0x0AFF),
    "MONEY(10,2)": ColumnType(TypeCode.MONEY, 0x0A02), "CHAR(10)": ColumnType(TypeCode.CHAR, 10),
    "VARCHAR(20)": ColumnType(TypeCode.VARCHAR, 20),
    "NVARCHAR(20)": ColumnType(TypeCode.NVARCHAR, 20),
    "LVARCHAR(100)": ColumnType(TypeCode.LVARCHAR, 100), "DATE": ColumnType(TypeCode.DATE, 4),
    "DATETIME YEAR TO SECOND": ColumnType(TypeCode.DATETIME, qualifier(14, 0, 10)),
    "DATETIME YEAR TO FRACTION(5)": ColumnType(TypeCode.DATETIME, qualifier(19, 0, 15)),
    "DATETIME YEAR TO DAY": ColumnType(TypeCode.DATETIME, qualifier(8, 0, 4)),
    "DATETIME HOUR TO SECOND": ColumnType(TypeCode.DATETIME, qualifier(6, 6, 10)),
    "INTERVAL DAY(5) TO SECOND": ColumnType(TypeCode.INTERVAL, qualifier(11, 4, 10)),
    "INTERVAL YEAR(4) TO MONTH": ColumnType(TypeCode.INTERVAL, qualifier(6, 0, 2)),
    "BOOLEAN": ColumnType(TypeCode.BOOLEAN, 1), "BYTE": ColumnType(TypeCode.BYTE, 56),
    "TEXT": ColumnType(TypeCode.TEXT, 56), "BLOB": ColumnType(TypeCode.BLOB, 72),
    "CLOB": ColumnType(TypeCode.CLOB, 72),
    "LIST(INTEGER NOT NULL)": _composite(TypeCode.LIST, "list(integer not null)"),
    "SET(INTEGER NOT NULL)": _composite(TypeCode.SET, "set(integer not null)"),
    "ROW(a INTEGER)": _composite(TypeCode.ROW, "row(a integer)"),
}


def _ctype(coltype: str) -> ColumnType:
    return CTYPES[coltype]


def test_statements_without_one_marker_per_column_are_not_checked():
    class Describe:
        def __init__(self, kind, columns):
            self.stmt_type, self.columns = kind, columns

    class Prepared:
        def __init__(self, kind, columns, markers):
            self.describe, self.markers = Describe(kind, columns), markers

    from informix_stream.messages import StmtType
    assert load_types.described_targets(Prepared(StmtType.INSERT, [], 2)) is None
    assert load_types.described_targets(Prepared(StmtType.INSERT, [object()], 2)) is None
    assert load_types.described_targets(Prepared(StmtType.UPDATE, [object()], 1)) is None


def test_dictionary_and_run_end_encoded_columns_go_by_their_values():
    fam = load_types.family
    assert fam(pa, pa.dictionary(pa.int8(), pa.string())) == "string"
    assert fam(pa, pa.dictionary(pa.int8(), pa.int64())) == "integer"
    assert fam(pa, pa.run_end_encoded(pa.int32(), pa.date32())) == "date"
    assert fam(pa, pa.decimal128(5, -2)) == "integral decimal"
    assert fam(pa, pa.large_list(pa.int8())) == "list"
    assert fam(pa, pa.dense_union([pa.field("a", pa.int8())])) == "unsupported"
