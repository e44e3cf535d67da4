"""Interop: the PyPI client ``informix-driver`` (module ``informix_db``) against the target.

informix-driver was written and verified by people other than us against real
Informix 12.10, 14.10 and 15. Whatever it sends, accepts and decodes here is
therefore a statement about the real SQLI protocol, not about our own reading
of it. Expected values are what that client reports on a real server, so a
failure against the emulator means the emulator differs from Informix.

Every test creates uniquely named tables (the server is shared by the whole
session) and drops them afterwards.
"""

from __future__ import annotations

import datetime as dt
import struct
import threading
import uuid
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import informix_db
import pytest
from informix_db import IntervalYM

# Type codes as informix-driver reports them in cursor.description (flags
# stripped). BOOLEAN and LVARCHAR are described by real servers as the
# built-in opaque types UDTFIXED and UDTVAR, not as their syscolumns codes.
TC_CHAR, TC_SMALLINT, TC_INT, TC_FLOAT, TC_SMFLOAT, TC_DECIMAL = 0, 1, 2, 3, 4, 5
TC_SERIAL, TC_DATE, TC_MONEY, TC_DATETIME, TC_VARCHAR, TC_INTERVAL = 6, 7, 8, 10, 13, 14
TC_NCHAR, TC_NVCHAR, TC_INT8, TC_SERIAL8 = 15, 16, 17, 18
TC_UDTVAR, TC_UDTFIXED, TC_BIGINT, TC_BIGSERIAL = 40, 41, 52, 53

# Column lengths as Informix encodes them: (precision << 8) | scale for
# DECIMAL/MONEY, (digits << 8) | (first unit << 4) | last unit for DATETIME and
# INTERVAL (YEAR=0, MONTH=2, DAY=4, HOUR=6, MINUTE=8, SECOND=10, FRACTION(n)=10+n).
LEN_DEC_16_4 = (16 << 8) | 4
LEN_DEC_32_10 = (32 << 8) | 10
LEN_DEC_10_FLOATING = (10 << 8) | 255
LEN_MONEY_12_2 = (12 << 8) | 2
LEN_DT_YEAR_SECOND = (14 << 8) | (0 << 4) | 10
LEN_DT_YEAR_FRACTION5 = (19 << 8) | (0 << 4) | 15
LEN_DT_HOUR_MINUTE = (4 << 8) | (6 << 4) | 8
LEN_DT_YEAR_DAY = (8 << 8) | (0 << 4) | 4
LEN_IV_YEAR4_MONTH = (6 << 8) | (0 << 4) | 2  # YEAR defaults to 4 digits
LEN_IV_DAY2_FRACTION3 = (11 << 8) | (4 << 4) | 13  # DAY defaults to 2 digits
LEN_IV_DAY3_SECOND = (9 << 8) | (4 << 4) | 10

NOT_NULL = 0x100  # syscolumns.coltype flag

ConnectFactory = Callable[..., informix_db.Connection]
TableFactory = Callable[[str, str], str]


@pytest.fixture
def connect(ifx_target: Any) -> Iterator[ConnectFactory]:
    """Open connections to the target and close whatever the test leaves open.

    A read timeout turns a server that stops answering into a test failure
    instead of a hung session.
    """
    opened: list[informix_db.Connection] = []

    def _connect(**overrides: Any) -> informix_db.Connection:
        params: dict[str, Any] = dict(
            host=ifx_target.host, port=ifx_target.port, user=ifx_target.user,
            password=ifx_target.password, database=ifx_target.database,
            server=ifx_target.server, autocommit=True, read_timeout=60,
            connect_timeout=30)
        params.update(overrides)
        conn = informix_db.connect(**params)
        opened.append(conn)
        return conn

    yield _connect
    for conn in opened:
        conn.close()


@pytest.fixture
def new_table(connect: ConnectFactory) -> Iterator[TableFactory]:
    """Create uniquely named tables on an autocommit connection; drop them after.

    Tables are created outside any transaction so that a test rolling back
    its own work never rolls back the DDL with it.
    """
    admin = connect()
    created: list[str] = []

    def _create(prefix: str, columns: str) -> str:
        name = f"pyi_{prefix}_{uuid.uuid4().hex[:10]}"
        with admin.cursor() as cur:
            cur.execute(f"CREATE TABLE {name} ({columns})")
        created.append(name)
        return name

    yield _create
    dropper = connect()
    with dropper.cursor() as cur:
        for name in created:
            cur.execute(f"DROP TABLE {name}")


def query(conn: informix_db.Connection, sql: str, params: tuple = ()) -> list[tuple]:
    """Run one SELECT and return all rows as plain tuples."""
    with conn.cursor() as cur:
        cur.execute(sql, params or None)
        return [tuple(row) for row in cur.fetchall()]


def assert_alive(conn: informix_db.Connection) -> None:
    """The connection still runs statements after an error was reported."""
    assert query(conn, "SELECT COUNT(*) FROM systables WHERE tabname = 'systables'") == [(1,)]


def exact(value: object) -> object:
    """A comparison key that also distinguishes what ``==`` forgives.

    Decimal('1.50') == Decimal('1.5') and True == 1 and 0.0 == -0.0, but a
    server that changes a value's scale, type or sign has still changed it.
    """
    if isinstance(value, Decimal):
        return ("Decimal", value.as_tuple())
    if isinstance(value, float):
        return ("float", value.hex())
    return (type(value).__name__, value)


def exact_rows(rows: list[tuple]) -> list[list[object]]:
    return [[exact(v) for v in row] for row in rows]


def float32(value: float) -> float:
    """What a SMALLFLOAT (IEEE single) column hands back for ``value``."""
    return struct.unpack("!f", struct.pack("!f", value))[0]


# ---------------------------------------------------------------------------
# 1. connect / close / trivial query
# ---------------------------------------------------------------------------


@pytest.mark.interop
def test_connect_close_is_idempotent_and_blocks_further_use(connect: ConnectFactory) -> None:
    conn = connect()
    assert conn.closed is False
    cur = conn.cursor()
    cur.execute("SELECT tabname FROM systables WHERE tabname = 'systables'")
    assert cur.fetchall() == [("systables",)]
    conn.close()
    assert conn.closed is True
    conn.close()
    with pytest.raises(informix_db.InterfaceError):
        conn.cursor()
    with pytest.raises(informix_db.InterfaceError):
        cur.execute("SELECT COUNT(*) FROM systables")


@pytest.mark.interop
def test_context_managers_close_connection_and_cursor(ifx_target: Any) -> None:
    with informix_db.connect(host=ifx_target.host, port=ifx_target.port,
                             user=ifx_target.user, password=ifx_target.password,
                             database=ifx_target.database, server=ifx_target.server,
                             autocommit=True, read_timeout=60) as conn:
        with conn.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM systables")
            (count,) = cur.fetchone()
            assert cur.fetchone() is None
        assert cur.closed is True
        assert conn.closed is False
    assert conn.closed is True
    assert count > 0


@pytest.mark.interop
def test_count_of_systables_matches_its_rows(connect: ConnectFactory) -> None:
    conn = connect()
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM systables")
        assert cur.description[0][0] == "(count(*))"
        (count,) = cur.fetchone()
    tabids = query(conn, "SELECT tabid FROM systables")
    assert count == len(tabids) > 0
    assert len({t for (t,) in tabids}) == count
    assert query(conn, "SELECT tabid, tabname FROM systables WHERE tabname = 'systables'") \
        == [(1, "systables")]


# ---------------------------------------------------------------------------
# 2./3. every type: DDL, catalog, parameterized round trip with edge values
# ---------------------------------------------------------------------------

ALL_TYPES_DDL = """
    id SERIAL NOT NULL PRIMARY KEY,
    c_smallint SMALLINT,
    c_integer INTEGER,
    c_bigint BIGINT,
    c_int8 INT8,
    c_smallfloat SMALLFLOAT,
    c_float FLOAT,
    c_dec16 DECIMAL(16,4),
    c_dec32 DECIMAL(32,10),
    c_decfloat DECIMAL(10),
    c_money MONEY(12,2),
    c_char CHAR(10),
    c_nchar NCHAR(10),
    c_varchar VARCHAR(64),
    c_nvarchar NVARCHAR(64),
    c_lvarchar LVARCHAR(2000),
    c_bool BOOLEAN,
    c_date DATE,
    c_dt_sec DATETIME YEAR TO SECOND,
    c_dt_frac DATETIME YEAR TO FRACTION(5),
    c_dt_hm DATETIME HOUR TO MINUTE,
    c_dt_day DATETIME YEAR TO DAY,
    c_iv_ym INTERVAL YEAR TO MONTH,
    c_iv_df INTERVAL DAY TO FRACTION(3),
    c_iv_ds INTERVAL DAY(3) TO SECOND
"""

ALL_TYPES_COLUMNS = [line.split()[0] for line in ALL_TYPES_DDL.strip().splitlines()]


def insert_all_types_sql(table: str) -> str:
    return f"INSERT INTO {table} VALUES ({', '.join('?' * len(ALL_TYPES_COLUMNS))})"


# syscolumns (coltype, collength) for each column, as Informix stores them.
# BOOLEAN and LVARCHAR are left out: they are built-in opaque types whose
# catalog encoding is not what this suite sets out to pin down.
ALL_TYPES_CATALOG = {
    "id": (6 | NOT_NULL, 4),
    "c_smallint": (1, 2),
    "c_integer": (2, 4),
    "c_bigint": (52, 8),
    "c_int8": (17, 10),
    "c_smallfloat": (4, 4),
    "c_float": (3, 8),
    "c_dec16": (5, LEN_DEC_16_4),
    "c_dec32": (5, LEN_DEC_32_10),
    "c_decfloat": (5, LEN_DEC_10_FLOATING),
    "c_money": (8, LEN_MONEY_12_2),
    "c_char": (0, 10),
    "c_nchar": (15, 10),
    "c_varchar": (13, 64),
    "c_nvarchar": (16, 64),
    "c_date": (7, 4),
    "c_dt_sec": (10, LEN_DT_YEAR_SECOND),
    "c_dt_frac": (10, LEN_DT_YEAR_FRACTION5),
    "c_dt_hm": (10, LEN_DT_HOUR_MINUTE),
    "c_dt_day": (10, LEN_DT_YEAR_DAY),
    "c_iv_ym": (14, LEN_IV_YEAR4_MONTH),
    "c_iv_df": (14, LEN_IV_DAY2_FRACTION3),
    "c_iv_ds": (14, LEN_IV_DAY3_SECOND),
}

MAX_YM = 9999 * 12 + 11  # INTERVAL YEAR(4) TO MONTH: 9999-11
MAX_DAY2_FRACTION3 = dt.timedelta(days=99, hours=23, minutes=59, seconds=59, milliseconds=999)
MAX_DAY3_SECOND = dt.timedelta(days=999, hours=23, minutes=59, seconds=59)
FLOAT32_MAX = float32(3.4028234663852886e38)
LONG_LVARCHAR = "L" * 1999 + "é"  # 2000 bytes in ISO-8859-1

# (bound parameters, values informix-driver must read back). The smallest
# SMALLINT/INTEGER/BIGINT/INT8 is Informix's NULL, so min+1 is the real minimum.
# CHAR/NCHAR come back with their blank padding stripped by the client; the
# padding itself is checked server-side in test_octet_length_counts_char_padding.
ALL_TYPES_ROWS: list[tuple[tuple, tuple]] = [
    (
        (1, 32767, 2147483647, 9223372036854775807, 9223372036854775807,
         FLOAT32_MAX, 1.7976931348623157e308, Decimal("999999999999.9999"),
         Decimal("9999999999999999999999.9999999999"), Decimal("9999999999"),
         Decimal("9999999999.99"), "ZZZZZZZZZZ", "ÿÿÿÿÿÿÿÿÿÿ", "v" * 64, "n" * 64,
         LONG_LVARCHAR, True, dt.date(9999, 12, 31), dt.datetime(9999, 12, 31, 23, 59, 59),
         dt.datetime(9999, 12, 31, 23, 59, 59, 999990), "23:59", dt.date(9999, 12, 31),
         IntervalYM(MAX_YM), MAX_DAY2_FRACTION3, MAX_DAY3_SECOND),
        (1, 32767, 2147483647, 9223372036854775807, 9223372036854775807,
         FLOAT32_MAX, 1.7976931348623157e308, Decimal("999999999999.9999"),
         Decimal("9999999999999999999999.9999999999"), Decimal("9999999999"),
         Decimal("9999999999.99"), "ZZZZZZZZZZ", "ÿÿÿÿÿÿÿÿÿÿ", "v" * 64, "n" * 64,
         LONG_LVARCHAR, True, dt.date(9999, 12, 31), dt.datetime(9999, 12, 31, 23, 59, 59),
         dt.datetime(9999, 12, 31, 23, 59, 59, 999990), dt.time(23, 59), dt.date(9999, 12, 31),
         IntervalYM(MAX_YM), MAX_DAY2_FRACTION3, MAX_DAY3_SECOND),
    ),
    (
        (2, -32767, -2147483647, -9223372036854775807, -9223372036854775807,
         -FLOAT32_MAX, -1.7976931348623157e308, Decimal("-999999999999.9999"),
         Decimal("-0.0000000001"), Decimal("-1.234567891E-20"), Decimal("-9999999999.99"),
         "a", "Ñandú", "trailing   ", "ëü  ", "", False, dt.date(1, 1, 1),
         dt.datetime(1, 1, 1, 0, 0, 0), dt.datetime(1, 1, 1, 0, 0, 0, 10), "00:00",
         dt.date(1, 1, 1), IntervalYM(-MAX_YM), -MAX_DAY2_FRACTION3, -MAX_DAY3_SECOND),
        (2, -32767, -2147483647, -9223372036854775807, -9223372036854775807,
         -FLOAT32_MAX, -1.7976931348623157e308, Decimal("-999999999999.9999"),
         Decimal("-0.0000000001"), Decimal("-1.234567891E-20"), Decimal("-9999999999.99"),
         "a", "Ñandú", "trailing   ", "ëü  ", "", False, dt.date(1, 1, 1),
         dt.datetime(1, 1, 1, 0, 0, 0), dt.datetime(1, 1, 1, 0, 0, 0, 10), dt.time(0, 0),
         dt.date(1, 1, 1), IntervalYM(-MAX_YM), -MAX_DAY2_FRACTION3, -MAX_DAY3_SECOND),
    ),
    (
        (3, 0, 0, 0, 0, 0.0, 0.0, Decimal("0"), Decimal("0"), Decimal("0"), Decimal("0"),
         "", "", "", "", "", False, dt.date(1899, 12, 31), dt.datetime(1970, 1, 1, 0, 0, 0),
         dt.datetime(2000, 1, 1, 0, 0, 0), "12:00", dt.date(1970, 1, 1), IntervalYM(0),
         dt.timedelta(0), dt.timedelta(0)),
        (3, 0, 0, 0, 0, 0.0, 0.0, Decimal("0"), Decimal("0"), Decimal("0"), Decimal("0"),
         "", "", "", "", "", False, dt.date(1899, 12, 31), dt.datetime(1970, 1, 1, 0, 0, 0),
         dt.datetime(2000, 1, 1, 0, 0, 0), dt.time(12, 0), dt.date(1970, 1, 1), IntervalYM(0),
         dt.timedelta(0), dt.timedelta(0)),
    ),
    (
        (4,) + (None,) * 24,
        (4,) + (None,) * 24,
    ),
    (
        (5, -1, 1, -1, 4294967296, 1.5, 0.1, Decimal("-0.0001"),
         Decimal("1234567890123456789012.0123456789"), Decimal("-1.5E+100"), Decimal("0.01"),
         "ab  ", "çà", "é ü ß Ä", "Ä" * 64, "x", True, dt.date(2024, 2, 29),
         dt.datetime(2024, 2, 29, 13, 14, 15), dt.datetime(2024, 2, 29, 13, 14, 15, 123450),
         "13:07", dt.date(2024, 2, 29), IntervalYM(-27),
         dt.timedelta(days=1, hours=2, minutes=3, seconds=4, milliseconds=5),
         -dt.timedelta(seconds=1)),
        # A DECIMAL value carries no scale of its own on the wire, so the
        # client reads 1.5E+100 back as the integer it equals.
        (5, -1, 1, -1, 4294967296, 1.5, 0.1, Decimal("-0.0001"),
         Decimal("1234567890123456789012.0123456789"), Decimal(-15 * 10**99), Decimal("0.01"),
         "ab", "çà", "é ü ß Ä", "Ä" * 64, "x", True, dt.date(2024, 2, 29),
         dt.datetime(2024, 2, 29, 13, 14, 15), dt.datetime(2024, 2, 29, 13, 14, 15, 123450),
         dt.time(13, 7), dt.date(2024, 2, 29), IntervalYM(-27),
         dt.timedelta(days=1, hours=2, minutes=3, seconds=4, milliseconds=5),
         -dt.timedelta(seconds=1)),
    ),
]


@pytest.fixture
def all_types_table(new_table: TableFactory, connect: ConnectFactory) -> str:
    """The every-type table, filled with one execute and one executemany."""
    table = new_table("alltypes", ALL_TYPES_DDL)
    conn = connect()
    sql = insert_all_types_sql(table)
    with conn.cursor() as cur:
        cur.execute(sql, ALL_TYPES_ROWS[0][0])
        assert cur.rowcount == 1
        cur.executemany(sql, [bound for bound, _ in ALL_TYPES_ROWS[1:]])
        assert cur.rowcount == len(ALL_TYPES_ROWS) - 1
    return table


@pytest.mark.interop
def test_every_type_is_recorded_in_the_catalog(connect: ConnectFactory,
                                               all_types_table: str) -> None:
    conn = connect()
    tables = query(conn, "SELECT tabid, ncols FROM systables WHERE tabname = ?",
                   (all_types_table,))
    assert len(tables) == 1
    tabid, ncols = tables[0]
    assert ncols == len(ALL_TYPES_COLUMNS)
    columns = query(conn, "SELECT colname, colno, coltype, collength FROM syscolumns "
                          "WHERE tabid = ? ORDER BY colno", (tabid,))
    assert [(name, colno) for name, colno, _, _ in columns] == \
        [(name, i) for i, name in enumerate(ALL_TYPES_COLUMNS, start=1)]
    catalog = {name: (coltype, collength) for name, _, coltype, collength in columns
               if name in ALL_TYPES_CATALOG}
    assert catalog == ALL_TYPES_CATALOG


@pytest.mark.interop
def test_every_type_round_trips_exactly(connect: ConnectFactory, all_types_table: str) -> None:
    rows = query(connect(), f"SELECT * FROM {all_types_table} ORDER BY id")
    expected = [want for _, want in ALL_TYPES_ROWS]
    assert exact_rows(rows) == exact_rows(expected)


@pytest.mark.interop
def test_every_type_described_as_a_real_server_does(connect: ConnectFactory,
                                                    all_types_table: str) -> None:
    conn = connect()
    with conn.cursor() as cur:
        cur.execute(f"SELECT * FROM {all_types_table} WHERE id = 1")
        described = [(d[0], d[1], d[2]) for d in cur.description]
    assert described[15][:2] == ("c_lvarchar", TC_UDTVAR)
    assert described[:15] + described[16:] == [
        ("id", TC_SERIAL, 4), ("c_smallint", TC_SMALLINT, 2), ("c_integer", TC_INT, 4),
        ("c_bigint", TC_BIGINT, 8), ("c_int8", TC_INT8, 10), ("c_smallfloat", TC_SMFLOAT, 4),
        ("c_float", TC_FLOAT, 8), ("c_dec16", TC_DECIMAL, LEN_DEC_16_4),
        ("c_dec32", TC_DECIMAL, LEN_DEC_32_10), ("c_decfloat", TC_DECIMAL, LEN_DEC_10_FLOATING),
        ("c_money", TC_MONEY, LEN_MONEY_12_2), ("c_char", TC_CHAR, 10),
        ("c_nchar", TC_NCHAR, 10), ("c_varchar", TC_VARCHAR, 64), ("c_nvarchar", TC_NVCHAR, 64),
        ("c_bool", TC_UDTFIXED, 1), ("c_date", TC_DATE, 4), ("c_dt_sec", TC_DATETIME, LEN_DT_YEAR_SECOND),
        ("c_dt_frac", TC_DATETIME, LEN_DT_YEAR_FRACTION5),
        ("c_dt_hm", TC_DATETIME, LEN_DT_HOUR_MINUTE), ("c_dt_day", TC_DATETIME, LEN_DT_YEAR_DAY),
        ("c_iv_ym", TC_INTERVAL, LEN_IV_YEAR4_MONTH),
        ("c_iv_df", TC_INTERVAL, LEN_IV_DAY2_FRACTION3),
        ("c_iv_ds", TC_INTERVAL, LEN_IV_DAY3_SECOND),
    ]


@pytest.mark.interop
def test_octet_length_counts_char_padding(connect: ConnectFactory, all_types_table: str) -> None:
    """CHAR is stored blank-padded to its length; VARCHAR keeps exactly what was sent.

    OCTET_LENGTH counts trailing blanks, so a CHAR(n) or NCHAR(n) value always
    reports n. ISO-8859-1 characters are one byte each.
    """
    rows = query(connect(), "SELECT id, OCTET_LENGTH(c_char), OCTET_LENGTH(c_nchar), "
                            "OCTET_LENGTH(c_varchar), OCTET_LENGTH(c_lvarchar) "
                            f"FROM {all_types_table} ORDER BY id")
    assert rows == [
        (1, 10, 10, 64, 2000),
        (2, 10, 10, 11, 0),
        (3, 10, 10, 0, 0),
        (4, None, None, None, None),
        (5, 10, 10, 7, 1),
    ]


@pytest.mark.interop
def test_length_ignores_trailing_blanks(connect: ConnectFactory, all_types_table: str) -> None:
    """Informix LENGTH is an INTEGER byte count that leaves out trailing blanks,
    for VARCHAR as well as for CHAR."""
    conn = connect()
    with conn.cursor() as cur:
        cur.execute(f"SELECT id, LENGTH(c_char), LENGTH(c_varchar) FROM {all_types_table} "
                    "ORDER BY id")
        assert [d[1] for d in cur.description] == [TC_SERIAL, TC_INT, TC_INT]
        rows = cur.fetchall()
    assert rows == [(1, 10, 64), (2, 1, 8), (3, 0, 0), (4, None, None), (5, 2, 7)]


@pytest.mark.interop
def test_parameters_select_rows_by_every_kind_of_value(connect: ConnectFactory,
                                                       all_types_table: str) -> None:
    conn = connect()
    lookups: list[tuple[str, object, list[tuple]]] = [
        ("c_integer", 2147483647, [(1,)]),
        ("c_bigint", -9223372036854775807, [(2,)]),
        ("c_int8", 4294967296, [(5,)]),
        ("c_dec16", Decimal("-0.0001"), [(5,)]),
        ("c_money", Decimal("9999999999.99"), [(1,)]),
        ("c_varchar", "é ü ß Ä", [(5,)]),
        ("c_char", "ab", [(5,)]),  # CHAR compares blank-padded
        ("c_date", dt.date(1, 1, 1), [(2,)]),
        ("c_dt_sec", dt.datetime(2024, 2, 29, 13, 14, 15), [(5,)]),
        ("c_iv_ym", IntervalYM(-27), [(5,)]),
        ("c_iv_ds", -dt.timedelta(seconds=1), [(5,)]),
        ("c_bool", True, [(1,), (5,)]),
    ]
    for column, value, ids in lookups:
        got = query(conn, f"SELECT id FROM {all_types_table} WHERE {column} = ? ORDER BY id",
                    (value,))
        assert got == ids, column
    assert query(conn, f"SELECT id FROM {all_types_table} WHERE c_smallint IS NULL") == [(4,)]
    # ISO-8859-1 inside the statement text itself, not only in parameters.
    assert query(conn, f"SELECT id FROM {all_types_table} WHERE c_nchar = 'çà'") == [(5,)]


# ---------------------------------------------------------------------------
# SERIAL, SERIAL8, BIGSERIAL
# ---------------------------------------------------------------------------


@pytest.mark.interop
@pytest.mark.parametrize(("serial_type", "type_code", "explicit"), [
    ("SERIAL", TC_SERIAL, 100),
    ("SERIAL8", TC_SERIAL8, 5_000_000_000),
    ("BIGSERIAL", TC_BIGSERIAL, 5_000_000_000),
])
def test_serial_columns_generate_and_follow_explicit_values(
        connect: ConnectFactory, new_table: TableFactory, serial_type: str,
        type_code: int, explicit: int) -> None:
    """Inserting 0 asks for the next serial; an explicit larger value moves it."""
    table = new_table(serial_type.lower(), f"id {serial_type} NOT NULL, tag VARCHAR(8)")
    conn = connect()
    with conn.cursor() as cur:
        cur.executemany(f"INSERT INTO {table} (id, tag) VALUES (?, ?)",
                        [(0, "a"), (0, "b"), (explicit, "c"), (0, "d")])
        cur.execute(f"SELECT id, tag FROM {table} ORDER BY id")
        assert cur.description[0][1] == type_code
        assert cur.description[0][6] is False
        assert cur.fetchall() == [(1, "a"), (2, "b"), (explicit, "c"), (explicit + 1, "d")]


# ---------------------------------------------------------------------------
# 4. cursor.description
# ---------------------------------------------------------------------------


@pytest.mark.interop
def test_description_reports_names_types_sizes_and_nullability(
        connect: ConnectFactory, new_table: TableFactory) -> None:
    table = new_table("descr", """
        id SERIAL NOT NULL, code CHAR(10) NOT NULL, name VARCHAR(64),
        amount DECIMAL(16,4) NOT NULL, qty SMALLINT, big BIGINT NOT NULL,
        ratio FLOAT, born DATE, stamp DATETIME YEAR TO SECOND,
        price MONEY(12,2) NOT NULL, span INTERVAL DAY(3) TO SECOND,
        flag BOOLEAN, note LVARCHAR(2000)""")
    conn = connect()
    with conn.cursor() as cur:
        cur.execute(f"INSERT INTO {table} (id, code, amount, big, price) VALUES (0, 'x', 1, 2, 3)")
        cur.execute(f"SELECT * FROM {table}")
        description = list(cur.description)
        assert cur.fetchall() == [(1, "x", None, Decimal("1"), None, 2, None, None, None,
                                   Decimal("3"), None, None, None)]
    assert description[:11] == [
        ("id", TC_SERIAL, 4, 4, 0, 0, False),
        ("code", TC_CHAR, 10, 10, 0, 0, False),
        ("name", TC_VARCHAR, 64, 64, 0, 0, True),
        ("amount", TC_DECIMAL, LEN_DEC_16_4, LEN_DEC_16_4, 0, 0, False),
        ("qty", TC_SMALLINT, 2, 2, 0, 0, True),
        ("big", TC_BIGINT, 8, 8, 0, 0, False),
        ("ratio", TC_FLOAT, 8, 8, 0, 0, True),
        ("born", TC_DATE, 4, 4, 0, 0, True),
        ("stamp", TC_DATETIME, LEN_DT_YEAR_SECOND, LEN_DT_YEAR_SECOND, 0, 0, True),
        ("price", TC_MONEY, LEN_MONEY_12_2, LEN_MONEY_12_2, 0, 0, False),
        ("span", TC_INTERVAL, LEN_IV_DAY3_SECOND, LEN_IV_DAY3_SECOND, 0, 0, True),
    ]
    assert description[11] == ("flag", TC_UDTFIXED, 1, 1, 0, 0, True)
    assert (description[12][0], description[12][1], description[12][6]) == \
        ("note", TC_UDTVAR, True)


@pytest.mark.interop
def test_description_names_aliases_and_expressions(connect: ConnectFactory,
                                                   new_table: TableFactory) -> None:
    table = new_table("alias", "id INTEGER NOT NULL, v VARCHAR(10)")
    conn = connect()
    with conn.cursor() as cur:
        cur.execute(f"INSERT INTO {table} VALUES (7, 'seven')")
        cur.execute(f"SELECT id AS ident, v AS label FROM {table}")
        assert [(d[0], d[1], d[6]) for d in cur.description] == \
            [("ident", TC_INT, False), ("label", TC_VARCHAR, True)]
        assert cur.fetchall() == [(7, "seven")]


# ---------------------------------------------------------------------------
# DML row counts
# ---------------------------------------------------------------------------


@pytest.mark.interop
def test_rowcount_of_insert_update_delete(connect: ConnectFactory,
                                          new_table: TableFactory) -> None:
    table = new_table("rowcount", "id INTEGER NOT NULL, v INTEGER")
    conn = connect()
    with conn.cursor() as cur:
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", [(i, i * 10) for i in range(1, 8)])
        assert cur.rowcount == 7
        cur.execute(f"UPDATE {table} SET v = v + 1 WHERE id <= ?", (3,))
        assert cur.rowcount == 3
        cur.execute(f"UPDATE {table} SET v = 0 WHERE id > 100")
        assert cur.rowcount == 0
        cur.execute(f"DELETE FROM {table} WHERE id IN (1, 2, 7)")
        assert cur.rowcount == 3
    assert query(conn, f"SELECT id, v FROM {table} ORDER BY id") == \
        [(3, 31), (4, 40), (5, 50), (6, 60)]


# ---------------------------------------------------------------------------
# 5. large results
# ---------------------------------------------------------------------------

STREAM_ROWS = 12_000
FETCH_BUFFER = 4096  # the tuple buffer size informix-driver asks for in NFETCH
STREAM_ROW_PAYLOAD = 4 + (1 + 9) + 7 + 4  # INTEGER, VARCHAR 'row-nnnnn', DECIMAL(12,2), DATE


def stream_row(i: int) -> tuple:
    return (i, f"row-{i:05d}", Decimal(f"{i}.25"), dt.date(2000, 1, 1) + dt.timedelta(days=i))


@pytest.mark.interop
def test_twelve_thousand_rows_stream_through_repeated_fetches(
        connect: ConnectFactory, new_table: TableFactory) -> None:
    """The server must honour the fetch buffer size and keep answering NFETCH.

    Each fetch reply may hold at most a buffer's worth of tuples, so reading
    12,000 rows takes many round trips; the per-reply counts are observed by
    wrapping the client's reply reader on this one cursor.
    """
    table = new_table("stream", "id INTEGER NOT NULL, name VARCHAR(40), "
                                "amount DECIMAL(12,2), day DATE")
    conn = connect()
    rows = [stream_row(i) for i in range(1, STREAM_ROWS + 1)]
    with conn.cursor() as cur:
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?)", rows)
        assert cur.rowcount == STREAM_ROWS

    cur = conn.cursor()
    batches: list[int] = []
    read_reply = cur._read_fetch_response

    def counting_reply() -> None:
        before = len(cur._rows)
        read_reply()
        batches.append(len(cur._rows) - before)

    cur._read_fetch_response = counting_reply
    cur.execute(f"SELECT id, name, amount, day FROM {table} ORDER BY id")
    fetched = cur.fetchall()
    assert len(fetched) == STREAM_ROWS
    assert sum(r[0] for r in fetched) == STREAM_ROWS * (STREAM_ROWS + 1) // 2
    assert exact_rows([fetched[0], fetched[-1]]) == exact_rows([rows[0], rows[-1]])
    assert fetched == rows
    assert sum(batches) == STREAM_ROWS and batches[-1] == 0
    assert max(batches) <= FETCH_BUFFER // STREAM_ROW_PAYLOAD
    assert cur.fetchone() is None
    cur.close()

    assert query(conn, f"SELECT COUNT(*), SUM(id), MIN(name), MAX(amount) FROM {table}") == \
        [(STREAM_ROWS, STREAM_ROWS * (STREAM_ROWS + 1) // 2, "row-00001", Decimal("12000.25"))]


@pytest.mark.interop
def test_fetchmany_slices_a_large_result_then_connection_continues(
        connect: ConnectFactory, new_table: TableFactory) -> None:
    table = new_table("fetchmany", "id INTEGER NOT NULL, name VARCHAR(40), "
                                   "amount DECIMAL(12,2), day DATE")
    conn = connect()
    with conn.cursor() as cur:
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?)",
                        [stream_row(i) for i in range(1, STREAM_ROWS + 1)])
        cur.execute(f"SELECT id, name FROM {table} ORDER BY id DESC")
        assert cur.fetchmany() == [(STREAM_ROWS, f"row-{STREAM_ROWS:05d}")]
        sizes = []
        while batch := cur.fetchmany(5000):
            sizes.append(len(batch))
            last = batch[-1]
        assert sizes == [5000, 5000, 1999]
        assert last == (1, "row-00001")
        cur.execute(f"SELECT COUNT(*) FROM {table} WHERE id > ?", (STREAM_ROWS - 10,))
        assert cur.fetchall() == [(10,)]


# ---------------------------------------------------------------------------
# 6. scrollable cursor
# ---------------------------------------------------------------------------


@pytest.mark.interop
def test_scrollable_cursor_moves_in_every_direction(connect: ConnectFactory,
                                                    new_table: TableFactory) -> None:
    table = new_table("scroll", "id INTEGER NOT NULL, word VARCHAR(10)")
    conn = connect()
    words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    with conn.cursor() as cur:
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", list(enumerate(words)))
    row = list(enumerate(words))

    cur = conn.cursor(scrollable=True)
    cur.execute(f"SELECT id, word FROM {table} ORDER BY id")
    assert cur.fetchone() == row[0]
    assert cur.fetchone() == row[1]
    assert cur.fetch_last() == row[9]
    assert cur.fetchone() is None
    assert cur.fetch_first() == row[0]
    assert cur.fetch_absolute(4) == row[4]
    assert cur.rownumber == 4
    assert cur.fetch_relative(3) == row[7]
    assert cur.fetch_relative(-5) == row[2]
    assert cur.fetch_prior() == row[1]
    assert cur.fetch_prior() == row[0]
    assert cur.fetch_prior() is None
    assert cur.fetch_absolute(-1) == row[9]
    assert cur.fetch_absolute(-10) == row[0]
    assert cur.fetch_absolute(10) is None
    assert cur.fetch_absolute(6) == row[6]
    assert cur.fetchmany(2) == [row[7], row[8]]
    cur.close()
    assert query(conn, f"SELECT COUNT(*) FROM {table}") == [(10,)]


# ---------------------------------------------------------------------------
# 7. transactions
# ---------------------------------------------------------------------------


@pytest.mark.interop
def test_rollback_discards_and_commit_publishes(connect: ConnectFactory,
                                                new_table: TableFactory) -> None:
    table = new_table("txn", "id INTEGER NOT NULL PRIMARY KEY, v VARCHAR(10)")
    worker = connect(autocommit=False)
    observer = connect()
    with worker.cursor() as cur:
        cur.execute(f"INSERT INTO {table} VALUES (?, ?)", (1, "gone"))
        cur.execute(f"SELECT id, v FROM {table}")
        assert cur.fetchall() == [(1, "gone")]  # own uncommitted work is visible
    worker.rollback()
    assert query(worker, f"SELECT COUNT(*) FROM {table}") == [(0,)]
    worker.commit()  # ends the transaction the SELECT opened

    with worker.cursor() as cur:
        cur.execute(f"INSERT INTO {table} VALUES (?, ?)", (2, "kept"))
        cur.execute(f"UPDATE {table} SET v = ? WHERE id = ?", ("kept!", 2))
    worker.commit()
    assert query(observer, f"SELECT id, v FROM {table}") == [(2, "kept!")]

    with worker.cursor() as cur:
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", [(3, "c"), (4, "d")])
        cur.execute(f"DELETE FROM {table} WHERE id = 2")
    worker.rollback()
    assert query(observer, f"SELECT id, v FROM {table}") == [(2, "kept!")]


@pytest.mark.interop
def test_autocommit_publishes_each_statement(connect: ConnectFactory,
                                             new_table: TableFactory) -> None:
    table = new_table("autocommit", "id INTEGER NOT NULL, v VARCHAR(10)")
    writer = connect(autocommit=True)
    observer = connect()
    with writer.cursor() as cur:
        cur.execute(f"INSERT INTO {table} VALUES (10, 'auto')")
    assert query(observer, f"SELECT id FROM {table}") == [(10,)]
    writer.rollback()  # nothing is open: there is nothing to undo
    assert query(observer, f"SELECT id FROM {table}") == [(10,)]


@pytest.mark.interop
def test_explicit_begin_work_in_autocommit_mode(connect: ConnectFactory,
                                                new_table: TableFactory) -> None:
    """BEGIN WORK sent as SQL opens a real transaction.

    informix-driver learns this from the statement type the server puts in
    its describe reply; rollback() only reaches the server if that type was
    reported as a BEGIN.
    """
    table = new_table("begin", "id INTEGER NOT NULL")
    conn = connect(autocommit=True)
    observer = connect()
    with conn.cursor() as cur:
        cur.execute("BEGIN WORK")
        cur.execute(f"INSERT INTO {table} VALUES (11)")
    conn.rollback()
    assert query(observer, f"SELECT COUNT(*) FROM {table}") == [(0,)]
    with conn.cursor() as cur:
        cur.execute("BEGIN WORK")
        cur.execute(f"INSERT INTO {table} VALUES (12)")
        cur.execute("COMMIT WORK")
    assert query(observer, f"SELECT id FROM {table}") == [(12,)]


@pytest.mark.interop
@pytest.mark.parametrize("end", ["commit", "rollback"])
def test_commit_or_rollback_closes_an_open_scroll_cursor(connect: ConnectFactory,
                                                         new_table: TableFactory,
                                                         end: str) -> None:
    """informix-driver has no hold option, so its cursors are closed by the
    end of their transaction (Informix: COMMIT/ROLLBACK WORK closes every
    cursor not declared WITH HOLD); its server-side scroll cursor then gets
    the server's -400 on the next SFETCH, and the connection goes on."""
    table = new_table("holdless", "id INTEGER NOT NULL")
    with connect().cursor() as cur:
        cur.executemany(f"INSERT INTO {table} VALUES (?)", [(i,) for i in range(1, 21)])
    conn = connect(autocommit=False)
    with conn.cursor() as cur:
        cur.execute(f"INSERT INTO {table} VALUES (?)", (21,))   # opens the transaction
    scroll = conn.cursor(scrollable=True)
    scroll.execute(f"SELECT id FROM {table} ORDER BY id")
    assert scroll.fetchone() == (1,)
    getattr(conn, end)()
    with pytest.raises(informix_db.DatabaseError) as info:
        scroll.fetchone()
    assert info.value.sqlcode == -400
    scroll.close()
    assert_alive(conn)
    expected = 21 if end == "commit" else 20
    assert query(conn, f"SELECT COUNT(*) FROM {table}") == [(expected,)]


# ---------------------------------------------------------------------------
# 8. errors
# ---------------------------------------------------------------------------


def assert_server_error(exc: BaseException, cls: type, sqlcode: int, isamcode: int) -> None:
    assert type(exc) is cls, repr(exc)
    assert exc.sqlcode == sqlcode, repr(exc)
    assert exc.isamcode == isamcode, repr(exc)


@pytest.mark.interop
def test_syntax_error_is_201(connect: ConnectFactory) -> None:
    conn = connect()
    with pytest.raises(informix_db.ProgrammingError) as info:
        query(conn, "SELEC tabname FROM systables")
    assert_server_error(info.value, informix_db.ProgrammingError, -201, 0)
    assert_alive(conn)


@pytest.mark.interop
def test_unknown_table_is_206_with_isam_111(connect: ConnectFactory) -> None:
    conn = connect()
    missing = f"pyi_missing_{uuid.uuid4().hex[:8]}"
    with pytest.raises(informix_db.ProgrammingError) as info:
        query(conn, f"SELECT * FROM {missing}")
    assert_server_error(info.value, informix_db.ProgrammingError, -206, -111)
    assert info.value.near == missing
    assert_alive(conn)


@pytest.mark.interop
def test_unknown_column_is_217(connect: ConnectFactory, new_table: TableFactory) -> None:
    table = new_table("err217", "id INTEGER")
    conn = connect()
    with pytest.raises(informix_db.ProgrammingError) as info:
        query(conn, f"SELECT no_such_col FROM {table}")
    assert_server_error(info.value, informix_db.ProgrammingError, -217, 0)
    assert info.value.near == "no_such_col"
    assert_alive(conn)


@pytest.mark.interop
def test_duplicate_key_is_an_integrity_error(connect: ConnectFactory,
                                             new_table: TableFactory) -> None:
    """-268 (unique constraint) on a logged database, -239 on an unlogged one."""
    table = new_table("dup", "id INTEGER NOT NULL PRIMARY KEY, v VARCHAR(10)")
    conn = connect()
    with conn.cursor() as cur:
        cur.execute(f"INSERT INTO {table} VALUES (?, ?)", (1, "first"))
        with pytest.raises(informix_db.IntegrityError) as info:
            cur.execute(f"INSERT INTO {table} VALUES (?, ?)", (1, "second"))
    assert info.value.sqlcode in (-239, -268)
    assert info.value.isamcode == -100
    assert query(conn, f"SELECT id, v FROM {table}") == [(1, "first")]
    assert_alive(conn)


@pytest.mark.interop
def test_null_into_not_null_is_391(connect: ConnectFactory, new_table: TableFactory) -> None:
    table = new_table("err391", "id INTEGER NOT NULL, v VARCHAR(10) NOT NULL")
    conn = connect()
    with pytest.raises(informix_db.IntegrityError) as info:
        with conn.cursor() as cur:
            cur.execute(f"INSERT INTO {table} VALUES (?, ?)", (1, None))
    assert_server_error(info.value, informix_db.IntegrityError, -391, 0)
    assert query(conn, f"SELECT COUNT(*) FROM {table}") == [(0,)]
    assert_alive(conn)


@pytest.mark.interop
@pytest.mark.parametrize("statement", ["COMMIT WORK", "ROLLBACK WORK"])
def test_ending_a_transaction_that_is_not_open_is_255(connect: ConnectFactory,
                                                      statement: str) -> None:
    """conn.commit() skips the wire when no transaction is open, so send the SQL."""
    conn = connect(autocommit=True)
    conn.commit()
    conn.rollback()
    with pytest.raises(informix_db.OperationalError) as info:
        with conn.cursor() as cur:
            cur.execute(statement)
    assert_server_error(info.value, informix_db.OperationalError, -255, 0)
    assert_alive(conn)


@pytest.mark.interop
def test_wrong_password_is_rejected_at_login(connect: ConnectFactory) -> None:
    with pytest.raises(informix_db.OperationalError) as info:
        connect(password="definitely-not-the-password")
    assert "rejected" in str(info.value)
    assert_alive(connect())


@pytest.mark.interop
def test_unknown_database_is_329(connect: ConnectFactory) -> None:
    survivor = connect()
    with pytest.raises(informix_db.DatabaseError) as info:
        connect(database=f"pyi_nodb_{uuid.uuid4().hex[:8]}")
    assert_server_error(info.value, informix_db.NotSupportedError, -329, -111)
    assert_alive(survivor)
    assert_alive(connect())


# ---------------------------------------------------------------------------
# 9. concurrency
# ---------------------------------------------------------------------------


@pytest.mark.interop
def test_two_connections_work_concurrently(connect: ConnectFactory,
                                           new_table: TableFactory) -> None:
    """Two sessions insert and read at the same time without seeing each other's state."""
    tables = [new_table(f"conc{n}", "id INTEGER NOT NULL, who VARCHAR(10)") for n in (0, 1)]
    conns = [connect(), connect()]
    start = threading.Barrier(2)
    results: dict[int, object] = {}

    def work(n: int) -> None:
        try:
            start.wait(timeout=30)
            with conns[n].cursor() as cur:
                for chunk in range(5):
                    cur.executemany(f"INSERT INTO {tables[n]} VALUES (?, ?)",
                                    [(chunk * 200 + i, f"w{n}") for i in range(200)])
                    cur.execute(f"SELECT COUNT(*), MIN(who), MAX(who) FROM {tables[n]}")
                    assert cur.fetchall() == [((chunk + 1) * 200, f"w{n}", f"w{n}")]
            results[n] = "ok"
        except BaseException as exc:  # reported by the main thread below
            results[n] = exc

    threads = [threading.Thread(target=work, args=(n,)) for n in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert results == {0: "ok", 1: "ok"}
    assert query(conns[0], f"SELECT COUNT(*) FROM {tables[1]}") == [(1000,)]
    assert query(conns[1], f"SELECT SUM(id) FROM {tables[0]}") == [(sum(range(1000)),)]


@pytest.mark.interop
def test_two_cursors_on_one_connection_alternate(connect: ConnectFactory,
                                                 new_table: TableFactory) -> None:
    table = new_table("cursors", "id INTEGER NOT NULL, v VARCHAR(10)")
    conn = connect()
    writer, reader_a, reader_b = conn.cursor(), conn.cursor(), conn.cursor()
    writer.executemany(f"INSERT INTO {table} VALUES (?, ?)", [(i, f"v{i}") for i in range(1, 6)])
    reader_a.execute(f"SELECT id FROM {table} ORDER BY id")
    reader_b.execute(f"SELECT v FROM {table} ORDER BY id DESC")
    assert reader_a.fetchone() == (1,)
    assert reader_b.fetchone() == ("v5",)
    writer.execute(f"INSERT INTO {table} VALUES (?, ?)", (6, "v6"))
    assert reader_a.fetchone() == (2,)
    assert reader_b.fetchone() == ("v4",)
    reader_a.execute(f"SELECT COUNT(*) FROM {table}")
    assert reader_a.fetchone() == (6,)
    assert reader_b.fetchall() == [("v3",), ("v2",), ("v1",)]
    for cur in (writer, reader_a, reader_b):
        cur.close()


# ---------------------------------------------------------------------------
# 10. pipelined executemany with a failure in the middle
# ---------------------------------------------------------------------------

PIPELINE_ROWS = 5000
PIPELINE_FAILING_ROW = 2500


def pipeline_batch() -> list[tuple[int, str]]:
    """Ids 1..5000 except that the middle row repeats id 1."""
    batch = [(i + 1, f"row-{i}") for i in range(PIPELINE_ROWS)]
    batch[PIPELINE_FAILING_ROW] = (1, f"row-{PIPELINE_FAILING_ROW}")
    return batch


@pytest.mark.interop
def test_pipelined_executemany_in_autocommit_keeps_every_other_row(
        connect: ConnectFactory, new_table: TableFactory) -> None:
    """informix-driver sends all 5000 BIND+EXECUTE requests before reading a reply.

    Each request is its own statement: with autocommit each commits on its
    own, the duplicate fails alone, and the server goes on to execute every
    request queued behind it. So 4999 rows persist, the failing one does not,
    and the connection is still aligned afterwards.
    """
    table = new_table("pipe", "id INTEGER NOT NULL PRIMARY KEY, name VARCHAR(20)")
    conn = connect(autocommit=True)
    with conn.cursor() as cur:
        with pytest.raises(informix_db.IntegrityError) as info:
            cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", pipeline_batch())
    assert info.value.sqlcode in (-239, -268)
    assert info.value.isamcode == -100
    assert f"executemany row {PIPELINE_FAILING_ROW}/{PIPELINE_ROWS}" in str(info.value)
    expected_ids = PIPELINE_ROWS * (PIPELINE_ROWS + 1) // 2 - (PIPELINE_FAILING_ROW + 1)
    assert query(conn, f"SELECT COUNT(*), SUM(id) FROM {table}") == \
        [(PIPELINE_ROWS - 1, expected_ids)]
    assert query(conn, f"SELECT id, name FROM {table} WHERE id IN (1, ?, ?, ?) ORDER BY id",
                 (PIPELINE_FAILING_ROW, PIPELINE_FAILING_ROW + 1, PIPELINE_ROWS)) == \
        [(1, "row-0"), (PIPELINE_FAILING_ROW, f"row-{PIPELINE_FAILING_ROW - 1}"),
         (PIPELINE_ROWS, f"row-{PIPELINE_ROWS - 1}")]
    assert query(conn, f"SELECT COUNT(*) FROM {table} WHERE name = ?",
                 (f"row-{PIPELINE_FAILING_ROW}",)) == [(0,)]
    assert_alive(conn)


@pytest.mark.interop
def test_pipelined_executemany_in_a_transaction_rolls_back_whole(
        connect: ConnectFactory, new_table: TableFactory) -> None:
    """Inside a transaction the failure leaves the rest pending; rollback removes all."""
    table = new_table("pipetx", "id INTEGER NOT NULL PRIMARY KEY, name VARCHAR(20)")
    conn = connect(autocommit=False)
    with conn.cursor() as cur:
        with pytest.raises(informix_db.IntegrityError) as info:
            cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", pipeline_batch())
    assert info.value.sqlcode in (-239, -268)
    conn.rollback()
    assert query(connect(), f"SELECT COUNT(*) FROM {table}") == [(0,)]
    with conn.cursor() as cur:
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", [(1, "a"), (2, "b")])
    conn.commit()
    assert query(connect(), f"SELECT id, name FROM {table} ORDER BY id") == [(1, "a"), (2, "b")]


# ------------------------------------------------------------- BYTE and TEXT


def test_byte_and_text_both_ways(connect: ConnectFactory, new_table: TableFactory,
                                 ifx_target: Any) -> None:
    """informix-driver (which dereferences descriptors with SQ_FETCHBLOB and
    binds with SQ_BBIND) reads what our driver stored, and ours reads what
    it stored: empty, binary with NULs, Latin-1 text, 1 MB, NULL."""
    import informix_stream

    table = new_table("lob", "id INTEGER, b BYTE, t TEXT")
    values = {
        1: (b"", ""),
        2: (bytes(range(256)) * 4 + b"\x00", "caf\xe9 \xfc"),
        3: (b"\x00\xff" * (512 * 1024), "x" * (1 << 20)),
        4: (None, None),
    }
    theirs = connect()
    with theirs.cursor() as cur:
        for k, (b, t) in values.items():
            cur.execute(f"INSERT INTO {table} VALUES (?, ?, ?)",
                        (k + 10, b, None if t is None else t.encode("iso-8859-1")))
    with informix_stream.connect(host=ifx_target.host, port=ifx_target.port,
                                 user=ifx_target.user, password=ifx_target.password,
                                 database=ifx_target.database, autocommit=True) as ours:
        cur = ours.cursor()
        for k, (b, t) in values.items():
            cur.execute(f"INSERT INTO {table} VALUES (?, ?, ?)",
                        (k, b, None if t is None else informix_stream.Text(t)))
        cur.execute(f"SELECT id, b, t FROM {table} ORDER BY id")
        mine = cur.fetchall()
    with theirs.cursor() as cur:
        cur.execute(f"SELECT id, b, t FROM {table} ORDER BY id")
        seen = cur.fetchall()
    want = [(k, b, t) for k, (b, t) in values.items()]
    want += [(k + 10, b, t) for k, (b, t) in values.items()]
    assert mine == want
    assert [tuple(r) for r in seen] == want


def test_execute_function_rows_and_raise_exception(connect: ConnectFactory) -> None:
    """informix-driver runs EXECUTE FUNCTION (statement type 56 with columns:
    it opens a cursor, cursors._produces_result_set) and reads a routine's
    RETURN WITH RESUME rows; RAISE EXCEPTION reaches it with its code."""
    conn = connect()
    cur = conn.cursor()
    name = f"idr_{uuid.uuid4().hex[:10]}"
    cur.execute(f"""CREATE FUNCTION {name}(n INT) RETURNING INT AS i, DECIMAL(8,2) AS half;
        DEFINE i INT;
        FOR i = 1 TO n
            IF i = 4 THEN RAISE EXCEPTION -746, 0, 'four is too many'; END IF
            RETURN i, i * 0.5 WITH RESUME;
        END FOR
    END FUNCTION""")
    try:
        cur.execute(f"EXECUTE FUNCTION {name}(?)", (3,))
        assert [d[0] for d in cur.description] == ["i", "half"]
        assert cur.fetchall() == [(1, Decimal("0.50")), (2, Decimal("1.00")),
                                  (3, Decimal("1.50"))]
        with pytest.raises(informix_db.DatabaseError) as info:
            cur.execute(f"EXECUTE FUNCTION {name}(5)")
            cur.fetchall()
        assert getattr(info.value, "sqlcode", None) == -746, info.value
        cur.execute("SELECT 1 FROM systables WHERE tabid = 1")
        assert cur.fetchall() == [(1,)]
    finally:
        cur.execute(f"DROP FUNCTION {name}")


# ------------------------------------------------- ALTER, RENAME, MERGE, FKs
# Expected answers: IBM Informix Guide to SQL: Syntax ("ALTER TABLE",
# "RENAME TABLE", "RENAME COLUMN", "MERGE statement"), Guide to SQL:
# Reference ("SYSCOLUMNS", "SYSCONSTRAINTS", "SYSREFERENCES"); codes from IBM
# JDBC 15.0.1.0's message catalog (sql_en_US.properties).


@pytest.mark.interop
def test_alter_then_select_sees_the_new_shape(connect: ConnectFactory,
                                              new_table: TableFactory) -> None:
    conn = connect()
    t = new_table("alt", "id INTEGER, note VARCHAR(4), qty DECIMAL(10,2)")
    with conn.cursor() as cur:
        cur.execute(f"INSERT INTO {t} VALUES (1, 'ab', 2.5)")
        cur.execute(f"ALTER TABLE {t} ADD (flag SMALLINT DEFAULT 3 NOT NULL BEFORE note),"
                    " DROP (qty), MODIFY (note VARCHAR(10))")
        cur.execute(f"SELECT * FROM {t}")
        rows = [tuple(r) for r in cur.fetchall()]
        described = [(d[0], d[1] & 0xFF) for d in cur.description]
    assert rows == [(1, 3, "ab")]
    assert described == [("id", TC_INT), ("flag", TC_SMALLINT), ("note", TC_VARCHAR)]
    assert query(conn, "SELECT c.colname, c.colno FROM syscolumns c, systables t WHERE"
                       " c.tabid = t.tabid AND t.tabname = ? ORDER BY c.colno", (t,)) == [
        ("id", 1), ("flag", 2), ("note", 3)]


@pytest.mark.interop
def test_rename_table_and_column(connect: ConnectFactory) -> None:
    conn = connect()
    old = f"pyi_ren_{uuid.uuid4().hex[:10]}"
    with conn.cursor() as cur:
        cur.execute(f"CREATE TABLE {old} (a INTEGER, b CHAR(2))")
        cur.execute(f"INSERT INTO {old} VALUES (1, 'x')")
        cur.execute(f"RENAME TABLE {old} TO {old}n")
        cur.execute(f"RENAME COLUMN {old}n.b TO bb")
        try:
            assert query(conn, f"SELECT bb, a FROM {old}n") == [("x", 1)]
            with pytest.raises(informix_db.ProgrammingError) as info:
                query(conn, f"SELECT * FROM {old}")
            assert info.value.sqlcode == -206
        finally:
            cur.execute(f"DROP TABLE {old}n")


@pytest.mark.interop
def test_merge_rowcount_and_atomicity(connect: ConnectFactory,
                                      new_table: TableFactory) -> None:
    conn = connect()
    t = new_table("mt", "id INTEGER PRIMARY KEY, qty INTEGER NOT NULL")
    s = new_table("ms", "id INTEGER, qty INTEGER")
    with conn.cursor() as cur:
        cur.execute(f"INSERT INTO {t} VALUES (1, 10)")
        cur.execute(f"INSERT INTO {s} VALUES (1, 5)")
        cur.execute(f"INSERT INTO {s} VALUES (2, 6)")
        cur.execute(f"MERGE INTO {t} t USING {s} s ON t.id = s.id"
                    " WHEN MATCHED THEN UPDATE SET qty = t.qty + s.qty"
                    " WHEN NOT MATCHED THEN INSERT (id, qty) VALUES (s.id, s.qty)")
        assert cur.rowcount == 2
        cur.execute(f"INSERT INTO {s} VALUES (3, NULL)")
        with pytest.raises(informix_db.DatabaseError) as info:
            cur.execute(f"MERGE INTO {t} t USING {s} s ON t.id = s.id"
                        " WHEN MATCHED THEN UPDATE SET qty = 0"
                        " WHEN NOT MATCHED THEN INSERT (id, qty) VALUES (s.id, s.qty)")
        assert info.value.sqlcode == -391
    assert query(conn, f"SELECT * FROM {t} ORDER BY id") == [(1, 15), (2, 6)]


@pytest.mark.interop
def test_foreign_keys_readable_from_the_catalog(connect: ConnectFactory,
                                                new_table: TableFactory) -> None:
    """The join a catalog reader (SQLAlchemy's Informix get_foreign_keys)
    makes: the 'R' constraint's index parts are the referencing columns,
    sysreferences.primary the referenced constraint, whose index parts are
    the referenced columns."""
    conn = connect()
    p = new_table("fp", "a INTEGER, b CHAR(2), PRIMARY KEY (a, b)")
    c = new_table("fc", f"y CHAR(2), x INTEGER, FOREIGN KEY (x, y) REFERENCES {p} (a, b)"
                        " CONSTRAINT " + f"fk_{uuid.uuid4().hex[:8]}")
    parts = ", ".join(f"i{n}.part{k}" for n in (1, 2) for k in (1, 2))
    rows = query(conn, f"SELECT c1.constrname, pt.tabname, r.delrule, {parts}"
                       " FROM sysconstraints c1, systables t, sysindexes i1, sysreferences r,"
                       " sysconstraints c2, sysindexes i2, systables pt"
                       " WHERE c1.tabid = t.tabid AND t.tabname = ? AND c1.constrtype = 'R'"
                       " AND i1.idxname = c1.idxname AND r.constrid = c1.constrid"
                       " AND c2.constrid = r.primary AND i2.idxname = c2.idxname"
                       " AND pt.tabid = r.ptabid", (c,))
    assert len(rows) == 1
    name, parent, delrule, *colnos = rows[0]
    assert name.startswith("fk_") and parent == p and delrule == "R"
    # child (x, y) = colnos (2, 1); parent primary key (a, b) = (1, 2)
    assert colnos == [2, 1, 1, 2]
    with pytest.raises(informix_db.DatabaseError) as info:
        conn.cursor().execute(f"INSERT INTO {c} VALUES ('zz', 9)")
    assert info.value.sqlcode == -691


@pytest.mark.interop
def test_syntax_error_offset(connect: ConnectFactory) -> None:
    """SQ_ERR's offset (sqlca.sqlerrd[4]): where in the text the error is."""
    conn = connect()
    with pytest.raises(informix_db.ProgrammingError) as info:
        query(conn, "SELECT * FROM systables WHERE")
    assert info.value.sqlcode == -201 and info.value.offset == 29
    assert_alive(conn)
