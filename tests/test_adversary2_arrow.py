"""Adversary: Arrow ingest (``executemany(sql, arrow)``, both the insert-cursor
path and the prepared path) against what the same values bound from Python
store, in a UTF-8 database and across column types the values do not fit;
and the emulator's answer to a pipelined batch whose values its engine
cannot convert (an error for that row, never a dropped connection)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

pa = pytest.importorskip("pyarrow", reason="Arrow ingest needs the arrow extra")

import informix_stream as ifx  # noqa: E402
from faults.emu import PASSWORD, USER  # noqa: E402
from informix_stream.emulator import EmulatorServer  # noqa: E402

pytestmark = pytest.mark.timeout(120)
TEXTS = ["héllo wörld", "日本語", "emoji 😀", "", None, "Ελληνικά"]


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases={"u8": "en_US.utf8", "latin": "en_US.8859-1"}) as srv:
        yield srv


def _connect(server, database: str = "u8", **kw) -> ifx.Connection:
    return ifx.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD,
                       database=database, autocommit=True, read_timeout=30,
                       connect_timeout=10, **kw)


def _rows(cur, sql: str) -> list[tuple]:
    cur.execute(sql)
    return cur.fetchall()


@pytest.mark.parametrize("insert_cursor", [True, False])
def test_utf8_text_from_arrow_stores_what_python_strings_store(server, insert_cursor):
    """The prepared path encoded Arrow text in ISO 8859-1 whatever the
    database's code set: in a UTF-8 database 'héllo' went as the byte
    0xE9 (invalid there) and the emulator dropped the connection."""
    with _connect(server) as conn:
        cur = conn.cursor()
        table = f"a8_{int(insert_cursor)}"
        cur.execute(f"CREATE TABLE {table} (k INT, s VARCHAR(40), n NVARCHAR(40))")
        data = pa.table({"k": pa.array(range(len(TEXTS)), pa.int32()),
                         "s": pa.array(TEXTS, pa.string()),
                         "n": pa.array(TEXTS, pa.large_string())})
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?)", data,
                        insert_cursor=insert_cursor)
        expected = [(k, t, t) for k, t in enumerate(TEXTS)]
        assert _rows(cur, f"SELECT k, s, n FROM {table} ORDER BY k") == expected


def test_utf8_text_from_arrow_through_an_update(server):
    """UPDATE is never an insert cursor: always the prepared path."""
    with _connect(server) as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE a8_upd (k INT, s VARCHAR(40))")
        cur.executemany("INSERT INTO a8_upd VALUES (?, ?)", [(k, "x") for k in range(6)])
        data = pa.table({"s": pa.array(TEXTS).dictionary_encode(),
                         "k": pa.array(range(6), pa.int64())})
        cur.executemany("UPDATE a8_upd SET s = ? WHERE k = ?", data)
        assert _rows(cur, "SELECT k, s FROM a8_upd ORDER BY k") == list(enumerate(TEXTS))
        assert cur.connection.encoding == "utf-8"


@pytest.mark.parametrize("column,values,code", [
    # A DATE bound to a FLOAT column: the engine's float(date) raised TypeError
    # inside a pipelined batch and killed the session's thread.
    ("FLOAT", [1.5, dt.date(2020, 1, 1)], -1213),
    ("SMALLFLOAT", [1.5, b"\x00"], -1213),
    # Digits beyond the decimal context: InvalidOperation, an internal error.
    ("DECIMAL(32,6)", [1.0, 1e300], -1226),
    # A day number past 9999-12-31: OverflowError building its row image.
    ("DATE", [1, 2**40], -1204),
])
@pytest.mark.parametrize("insert_cursor", [True, False])
def test_a_value_the_column_cannot_take_is_an_error_for_its_row(
        server, column, values, code, insert_cursor):
    with _connect(server, "latin") as conn:
        cur = conn.cursor()
        table = f"bad_{abs(hash((column, insert_cursor))) % 10**8}"
        cur.execute(f"CREATE TABLE {table} (k INT, v {column})")
        rows = [(0, values[0]), (1, values[0]), (2, values[1]), (3, values[0])]
        with pytest.raises(ifx.DatabaseError) as info:
            cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows,
                            insert_cursor=insert_cursor if column != "SMALLFLOAT" else None)
        assert (info.value.sqlcode, info.value.row_index) == (code, 2)
        assert _rows(cur, f"SELECT k FROM {table} ORDER BY k") == [(0,), (1,)]


def test_decimal_with_no_whole_digits_takes_zero(server):
    """DECIMAL(2,2) holds 0 and 0.99 but not 1 (-1226)."""
    with _connect(server, "latin") as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE dec22 (k INT, d DECIMAL(2,2))")
        data = pa.table({"k": [0, 1, 2],
                         "d": pa.array([Decimal("0"), Decimal("0.994"), Decimal("-0.5")],
                                       pa.decimal128(5, 3))})
        cur.executemany("INSERT INTO dec22 VALUES (?, ?)", data)
        assert _rows(cur, "SELECT d FROM dec22 ORDER BY k") == [
            (Decimal("0.00"),), (Decimal("0.99"),), (Decimal("-0.50"),)]
        with pytest.raises(ifx.DataError) as info:
            cur.execute("INSERT INTO dec22 VALUES (9, ?)", (Decimal("0.996"),))
        assert info.value.sqlcode == -1226


class Broken(Exception):
    """The reader's own failure."""


@pytest.mark.parametrize("insert_cursor", [True, False])
@pytest.mark.parametrize("autocommit", [True, False])
def test_a_reader_failing_mid_stream_leaves_exactly_the_batches_before_it(
        server, insert_cursor, autocommit):
    """Batches of 1000 rows sent in chunks of 700: the chunk holding the
    rows before the failure is still sent, nothing after; in a transaction
    all of it is rolled back with it."""
    schema = pa.schema([("k", pa.int64()), ("v", pa.string())])

    def batches():
        for b in range(5):
            if b == 3:
                raise Broken("the source failed")
            yield pa.record_batch([pa.array(range(b * 1000, b * 1000 + 1000)),
                                   pa.array([str(i) for i in range(1000)])], schema=schema)
    with _connect(server, "latin") as conn:
        cur = conn.cursor()
        table = f"rd_{int(insert_cursor)}{int(autocommit)}"
        cur.execute(f"CREATE TABLE {table} (k INT, v VARCHAR(10))")
        conn.autocommit = autocommit
        with pytest.raises(Broken):
            cur.executemany(f"INSERT INTO {table} VALUES (?, ?)",
                            pa.RecordBatchReader.from_batches(schema, batches()),
                            insert_cursor=insert_cursor, chunk_size=700)
        assert _rows(cur, f"SELECT count(*), min(k), max(k), count(DISTINCT k) "
                          f"FROM {table}") == [(3000, 0, 2999, 3000)]
        conn.rollback()
        assert _rows(cur, f"SELECT count(*) FROM {table}") == [(3000 if autocommit else 0,)]
