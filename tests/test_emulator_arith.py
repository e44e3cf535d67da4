"""Arithmetic, arithmetic errors and casts as Informix computes them.

Driven through our driver (and, for a few, informix-driver ``informix_db`` as
an outside judge of the values and descriptions it decodes) against the
session's target: the emulator unless IFX_HOST or Docker names a real server.
Where an expected answer is Informix's, the comment says where it was learned.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import informix_db
import pytest

import informix_stream
from informix_stream.errors import DatabaseError, NotSupportedError

TC_CHAR, TC_INT, TC_FLOAT, TC_DECIMAL, TC_MONEY, TC_VARCHAR = 0, 2, 3, 5, 8, 13
FLOATING = None     # PEP 249 scale of a floating-point DECIMAL(p)


@pytest.fixture(scope="module")
def conn(ifx_target: Any) -> Iterator[informix_stream.Connection]:
    c = informix_stream.connect(host=ifx_target.host, port=ifx_target.port,
                                user=ifx_target.user, password=ifx_target.password,
                                database=ifx_target.database, server=ifx_target.server,
                                autocommit=True, read_timeout=30)
    yield c
    c.close()


@pytest.fixture(scope="module")
def table(conn: informix_stream.Connection) -> Iterator[str]:
    """One row of every type the tests compute with."""
    name = f"arith_{uuid.uuid4().hex[:10]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {name} (wide DECIMAL(20), price DECIMAL(10,2), m MONEY(8,2),"
                " fl DECIMAL(16), i INTEGER, s SMALLINT, big BIGINT, f FLOAT, z INTEGER,"
                " d DATE, ts DATETIME YEAR TO SECOND, tf DATETIME YEAR TO FRACTION(3),"
                " iv INTERVAL DAY(3) TO SECOND, ym INTERVAL YEAR TO MONTH, ok BOOLEAN,"
                " name CHAR(8), v VARCHAR(20))")
    cur.execute(f"INSERT INTO {name} VALUES (12345678901234567890, 0.1, 1.25, 0.1, 2147483647,"
                " 7, 9223372036854775807, 1.5, 0, '2024-01-02', '2024-01-02 03:04:05',"
                " '2024-01-02 03:04:05.678', '3 04:05:06', '1-06', 't', 'ab', '42')")
    yield name
    cur.execute(f"DROP TABLE {name}")


def one(conn: informix_stream.Connection, sql: str, params: tuple = ()) -> tuple:
    cur = conn.cursor()
    cur.execute(sql, params or None)
    rows = cur.fetchall()
    assert len(rows) == 1, rows
    return tuple(rows[0]), cur.description


def sqlcode(conn: informix_stream.Connection, sql: str, params: tuple = ()) -> int:
    with pytest.raises(DatabaseError) as exc:
        cur = conn.cursor()
        cur.execute(sql, params or None)
        cur.fetchall()
    return exc.value.sqlcode


def emulator_only(ifx_target: Any) -> None:
    if ifx_target.kind != "emulator":
        pytest.skip("checks the emulator's own NOT_SUPPORTED answer, which a server lacks")


# -- 1. exact DECIMAL/MONEY arithmetic --------------------------------------

def test_wide_decimal_plus_one_is_exact(conn, table):
    # The example: through doubles this came back 12345678901234567000.
    (value,), desc = one(conn, f"SELECT wide + 1 FROM {table}")
    assert value == Decimal("12345678901234567891")
    # DECIMAL(20) has no scale: a floating-point decimal, so the result is one
    # too (HCL ESQL/C Guide, "Obtain the DECIMAL data type of the arithmetic
    # result": a floating operand makes the result floating).
    assert desc[0][1] == TC_DECIMAL and desc[0][5] is FLOATING


def test_fixed_decimal_results_have_informix_precision_and_scale(conn, table):
    (times, plus, minus), desc = one(
        conn, f"SELECT price * 3, price + price + price, price - 0.25 FROM {table}")
    assert (times, plus, minus) == (Decimal("0.30"), Decimal("0.30"), Decimal("-0.15"))
    # Same source: p*q -> precision p1+p2, scale s1+s2 (INTEGER enters as
    # DECIMAL(10,0)); + and - -> MIN(32, MAX(p1-s1, p2-s2) + MAX(s1, s2) + 1),
    # MAX(s1, s2): (price + price) is DECIMAL(11,2), plus price DECIMAL(12,2);
    # 0.25 is DECIMAL(2,2), so price - 0.25 is DECIMAL(11,2).
    assert [(d[1], d[4], d[5]) for d in desc] == [
        (TC_DECIMAL, 20, 2), (TC_DECIMAL, 12, 2), (TC_DECIMAL, 11, 2)]


def test_literal_decimal_arithmetic_does_not_drift(conn, table):
    (a, b, c), _ = one(conn, f"SELECT 0.1 * 3, 0.1 + 0.2, 1.1 * 1.1 FROM {table}")
    assert (a, b, c) == (Decimal("0.3"), Decimal("0.3"), Decimal("1.21"))


def test_division_is_decimal_with_32_digits(conn, table):
    # Integer / integer is a DECIMAL in Informix (SQLite would truncate to 3);
    # division gives a floating DECIMAL(32) (HCL ESQL/C Guide, as above).  The
    # value is what a dec_t holds: 16 base-100 digit pairs, so 0.0333... keeps
    # 31 threes ("03" is its first pair) and 0.333... keeps 32 (HCL DataBlade
    # API Guide, "Internal fixed-point decimal format").
    (half, third, big_third), desc = one(conn, f"SELECT 7 / 2, price / 3, 1 / 3 FROM {table}")
    assert half == Decimal("3.5")
    assert third == Decimal("0.0" + "3" * 31)
    assert big_third == Decimal("0." + "3" * 32)
    assert [(d[1], d[4], d[5]) for d in desc] == [(TC_DECIMAL, 32, FLOATING)] * 3


def test_money_arithmetic_stays_money(conn, table):
    (doubled, summed), desc = one(conn, f"SELECT m * 2, m + price FROM {table}")
    assert (doubled, summed) == (Decimal("2.50"), Decimal("1.35"))
    assert [d[1] for d in desc] == [TC_MONEY, TC_MONEY]


def test_unary_minus_of_wide_decimal_is_exact(conn, table):
    (value,), _ = one(conn, f"SELECT -wide FROM {table}")
    assert value == Decimal("-12345678901234567890")


def test_comparisons_with_wide_results_are_exact(conn, table):
    hits = conn.cursor()
    hits.execute(f"SELECT COUNT(*) FROM {table} WHERE wide + 1 = 12345678901234567891")
    assert hits.fetchall() == [(1,)]
    hits.execute(f"SELECT COUNT(*) FROM {table} WHERE wide + 1 > 12345678901234567890")
    assert hits.fetchall() == [(1,)]
    hits.execute(f"SELECT COUNT(*) FROM {table} WHERE wide + 1 = 12345678901234567890")
    assert hits.fetchall() == [(0,)]


def test_sum_and_avg_of_every_decimal_are_exact(conn, table):
    name = f"sums_{uuid.uuid4().hex[:10]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {name} (fl DECIMAL(16), price DECIMAL(10,2))")
    try:
        cur.executemany(f"INSERT INTO {name} VALUES (?, ?)", [(Decimal("0.1"), Decimal("0.1"))] * 10)
        # Added as doubles, ten 0.1s make 0.9999999999999999.
        (total, avg, product), _ = one(
            conn, f"SELECT SUM(fl), AVG(fl), SUM(price * 3) FROM {name}")
        assert (total, avg, product) == (Decimal("1.0"), Decimal("0.1"), Decimal("3.00"))
    finally:
        cur.execute(f"DROP TABLE {name}")


def test_update_with_arithmetic_rounds_to_the_column(conn, table):
    name = f"upd_{uuid.uuid4().hex[:10]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {name} (price DECIMAL(10,2), wide DECIMAL(30,2))")
    try:
        cur.execute(f"INSERT INTO {name} VALUES (1, 1234567890123456789012345678.25)")
        cur.execute(f"UPDATE {name} SET price = price / 3, wide = wide + 0.5")
        # Stored as the column holds it: the compared value must match exactly.
        cur.execute(f"SELECT price, wide FROM {name} WHERE price = 0.33")
        assert cur.fetchall() == [(Decimal("0.33"), Decimal("1234567890123456789012345678.75"))]
    finally:
        cur.execute(f"DROP TABLE {name}")


# -- 2. arithmetic errors ---------------------------------------------------
# -1202: "An attempt was made to divide by zero." (IBM Informix Error Messages).

@pytest.mark.parametrize("expr", ["i / z", "1 / 0", "f / z", "price / 0", "wide / z",
                                  "MOD(i, z)", "MOD(7, 0)", "0 / 0"])
def test_division_by_zero_raises_1202(conn, table, expr):
    assert sqlcode(conn, f"SELECT {expr} FROM {table}") == -1202


def test_division_by_zero_in_update_changes_nothing(conn, table):
    assert sqlcode(conn, f"UPDATE {table} SET price = price / z") == -1202
    (price,), _ = one(conn, f"SELECT price FROM {table}")
    assert price == Decimal("0.10")


@pytest.mark.parametrize("expr", ["i + 1", "i * 2", "-i - 2", "big + 1"])
def test_integer_overflow_raises_1215(conn, table, expr):
    # INTEGER (and INT8/BIGINT) results past the type's range: -1215 "Value
    # exceeds limit of INTEGER precision" (IBM APAR IT06744 shows the server
    # raising it for an INTEGER overflow), never a wrapped or widened value.
    assert sqlcode(conn, f"SELECT {expr} FROM {table}") == -1215


def test_integer_arithmetic_within_range(conn, table):
    (a, b, c), desc = one(conn, f"SELECT i - 1, s * 3, MOD(-7, 2) FROM {table}")
    assert (a, b, c) == (2147483646, 21, -1)      # MOD keeps the dividend's sign
    assert desc[0][1] == TC_INT


# -- 3. casts ---------------------------------------------------------------

def test_cast_to_char_gives_informix_text_forms(conn, table):
    row, desc = one(conn, f"SELECT d::CHAR(10), CAST(d AS VARCHAR(20)), ts::CHAR(19),"
                          f" tf::VARCHAR(30), price::CHAR(8), m::VARCHAR(12), fl::VARCHAR(10),"
                          f" ok::CHAR(1), iv::VARCHAR(20), ym::VARCHAR(10), i::VARCHAR(12)"
                          f" FROM {table}")
    # DATE per DBDATE's default MDY4/ (Guide to SQL: Reference, DBDATE);
    # DATETIME as its literal YYYY-MM-DD hh:mm:ss.fff fields; DECIMAL with its
    # scale; MONEY with DBMONEY's default '$' front symbol ("100.50 is
    # formatted as $100.50", Guide to SQL: Reference, DBMONEY); BOOLEAN 't'.
    assert row == ("2024-01-02", "2024-01-02", "2024-01-02 03:04:05",
                   "2024-01-02 03:04:05.678", "0.10    ", "$1.25", "0.1", "t",
                   "  3 04:05:06", "   1-06", "2147483647")
    assert (desc[0][1], desc[0][3]) == (TC_CHAR, 10)
    assert desc[1][1] == TC_VARCHAR


def test_cast_never_exposes_internal_storage(conn, table):
    (text,), _ = one(conn, f"SELECT CAST(d AS CHAR(10)) FROM {table}")
    assert text != "45292" and text == "2024-01-02"


def test_cast_text_to_types(conn, table):
    row, desc = one(conn, f"SELECT v::INTEGER, '12.345'::DECIMAL(10,2), '2024-03-04'::DATE,"
                          f" CAST('2024-03-04 05:06:07' AS DATETIME YEAR TO SECOND),"
                          f" 't'::BOOLEAN, d::DATETIME YEAR TO DAY FROM {table}")
    assert row == (42, Decimal("12.35"), dt.date(2024, 3, 4), dt.datetime(2024, 3, 4, 5, 6, 7),
                   True, dt.date(2024, 1, 2))
    assert [d[1] for d in desc[:3]] == [TC_INT, TC_DECIMAL, 7]


@pytest.mark.parametrize("sql, code", [
    ("'4x'::INTEGER", -1213),                 # character to numeric conversion failed
    ("name::DECIMAL(10,2)", -1213),
    ("'not a date'::DATE", -1218),            # string to date conversion error
    ("'2024-13-01'::DATE", -1205),            # invalid month in date
    ("'2024-01-02 xx'::DATETIME YEAR TO SECOND", -1262),   # non-numeric character
    ("'2024-01-02 03:04:05'::DATETIME YEAR TO DAY", -1264),  # extra characters at the end
])
def test_bad_text_casts_raise_conversion_errors(conn, table, sql, code):
    # Codes as IBM's Error Messages name them (-1213, -1218, -1205, -1262,
    # -1264); values.py raises the same ones for bound values.
    assert sqlcode(conn, f"SELECT {sql} FROM {table}") == code


def test_unsupported_cast_says_so(conn, table, ifx_target):
    emulator_only(ifx_target)
    with pytest.raises(NotSupportedError, match="not supported by the emulator"):
        conn.cursor().execute(f"SELECT d::INTERVAL DAY TO DAY FROM {table}")
    with pytest.raises(NotSupportedError, match="not supported by the emulator"):
        conn.cursor().execute(f"SELECT name::BLOB FROM {table}")


def test_number_too_long_for_char_is_refused_not_cut(conn, table, ifx_target):
    emulator_only(ifx_target)
    with pytest.raises(NotSupportedError, match="not supported by the emulator"):
        one(conn, f"SELECT wide::CHAR(5) FROM {table}")


# -- informix-driver as the judge ---------------------------------------------

@pytest.fixture(scope="module")
def ifx(ifx_target: Any) -> Iterator[informix_db.Connection]:
    c = informix_db.connect(host=ifx_target.host, port=ifx_target.port, user=ifx_target.user,
                            password=ifx_target.password, database=ifx_target.database,
                            server=ifx_target.server, autocommit=True, read_timeout=30,
                            connect_timeout=30)
    yield c
    c.close()


def test_informix_driver_decodes_exact_results(ifx, table):
    cur = ifx.cursor()
    cur.execute(f"SELECT wide + 1, price * 3, 7 / 2, d::CHAR(10), m::VARCHAR(12) FROM {table}")
    assert tuple(cur.fetchone()) == (Decimal("12345678901234567891"), Decimal("0.30"),
                                     Decimal("3.5"), "2024-01-02", "$1.25")
    assert [d[1] for d in cur.description][:2] == [TC_DECIMAL, TC_DECIMAL]


def test_informix_driver_sees_divide_by_zero(ifx, table):
    cur = ifx.cursor()
    with pytest.raises(informix_db.Error) as exc:
        cur.execute(f"SELECT i / z FROM {table}")
        cur.fetchall()
    assert "-1202" in str(exc.value) or getattr(exc.value, "sqlcode", None) == -1202


# -- expressions in other places ------------------------------------------------

def test_parameters_in_arithmetic_are_exact(conn, table):
    (value,), desc = one(conn, f"SELECT price * ? FROM {table}", (Decimal("3.3"),))
    assert value == Decimal("0.33")
    (hits,), _ = one(conn, f"SELECT COUNT(*) FROM {table} WHERE s = ? + 1", (6,))
    assert hits == 1


def test_order_by_decimal_expression_is_numeric(conn):
    name = f"ord_{uuid.uuid4().hex[:10]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {name} (price DECIMAL(10,2), qty INTEGER)")
    try:
        cur.executemany(f"INSERT INTO {name} VALUES (?, ?)",
                        [(Decimal("9.00"), 1), (Decimal("10.00"), 1), (Decimal("2.50"), 4)])
        cur.execute(f"SELECT price * qty FROM {name} ORDER BY 1")
        assert [r[0] for r in cur.fetchall()] == [Decimal("9.00"), Decimal("10.00"),
                                                  Decimal("10.00")]
        cur.execute(f"SELECT MAX(price * qty), MIN(price - 1) FROM {name}")
        assert cur.fetchall() == [(Decimal("10.00"), Decimal("1.50"))]
    finally:
        cur.execute(f"DROP TABLE {name}")


def test_check_constraint_with_arithmetic(conn):
    name = f"chk_{uuid.uuid4().hex[:10]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {name} (price DECIMAL(10,2), CHECK (price * 2 < 10))")
    try:
        cur.execute(f"INSERT INTO {name} VALUES (4.99)")
        with pytest.raises(DatabaseError) as exc:
            cur.execute(f"INSERT INTO {name} VALUES (5)")
        assert exc.value.sqlcode == -530        # check constraint failed
    finally:
        cur.execute(f"DROP TABLE {name}")


def test_datetime_arithmetic_is_refused_not_wrong(conn, table, ifx_target):
    emulator_only(ifx_target)
    with pytest.raises(NotSupportedError, match="not supported by the emulator"):
        conn.cursor().execute(f"SELECT ts + INTERVAL(1) DAY TO DAY FROM {table}")


def test_date_arithmetic_stays_native(conn, table):
    (after, days), desc = one(conn, f"SELECT d + 1, d - MDY(12, 31, 2023) FROM {table}")
    assert (after, days) == (dt.date(2024, 1, 3), 2)
    assert [d[1] for d in desc] == [7, TC_INT]


def test_division_results_sort_group_and_compare_as_numbers(conn):
    # Exact results are text in SQLite; they must still order as numbers
    # (a REAL 0.5 next to a text 0.333... would sort after every REAL).
    name = f"div_{uuid.uuid4().hex[:10]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {name} (n INTEGER, price DECIMAL(10,2))")
    try:
        cur.executemany(f"INSERT INTO {name} VALUES (?, ?)",
                        [(2, Decimal("1.00")), (3, Decimal("1.00")), (4, Decimal("10.00")),
                         (8, Decimal("2.00")), (6, Decimal("3.00"))])
        cur.execute(f"SELECT n, price / n AS share FROM {name} ORDER BY share DESC, n")
        assert [r[0] for r in cur.fetchall()] == [4, 2, 6, 3, 8]
        cur.execute(f"SELECT MIN(price / n), MAX(price / n) FROM {name}")
        assert cur.fetchall() == [(Decimal("0.25"), Decimal("2.5"))]
        cur.execute(f"SELECT n FROM {name} WHERE price / n BETWEEN ? AND 0.5 ORDER BY n",
                    (Decimal("0.3"),))
        assert cur.fetchall() == [(2,), (3,), (6,)]
        cur.execute(f"SELECT n FROM {name} WHERE price / n NOT BETWEEN 0.3 AND 0.5 ORDER BY n")
        assert cur.fetchall() == [(4,), (8,)]
        cur.execute(f"SELECT COUNT(DISTINCT price / n) FROM {name}")
        assert cur.fetchall() == [(4,)]           # 0.5 twice, 0.333..., 2.5, 0.25
    finally:
        cur.execute(f"DROP TABLE {name}")


def test_insert_select_stores_computed_values_as_the_column_holds_them(conn):
    src, dst = f"src_{uuid.uuid4().hex[:10]}", f"dst_{uuid.uuid4().hex[:10]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {src} (n INTEGER, price DECIMAL(10,2))")
    cur.execute(f"CREATE TABLE {dst} (n INTEGER, share DECIMAL(10,2))")
    try:
        cur.execute(f"INSERT INTO {src} VALUES (3, 1.00)")
        cur.execute(f"INSERT INTO {dst} SELECT n * 2, price / n FROM {src}")
        cur.execute(f"SELECT n, share FROM {dst} WHERE share = 0.33")
        assert cur.fetchall() == [(6, Decimal("0.33"))]
    finally:
        cur.execute(f"DROP TABLE {src}")
        cur.execute(f"DROP TABLE {dst}")


def test_having_compares_decimal_sums_exactly(conn, table):
    (hits,), _ = one(conn, f"SELECT COUNT(*) FROM (SELECT i FROM {table} GROUP BY i"
                           f" HAVING SUM(wide) > 12345678901234567889)")
    assert hits == 1
    # A wide sum is exact text in SQLite, which compares above every number.
    for condition in ("< 12345678901234567889", "> 12345678901234567891"):
        (hits,), _ = one(conn, f"SELECT COUNT(*) FROM (SELECT i FROM {table} GROUP BY i"
                               f" HAVING SUM(wide) {condition})")
        assert hits == 0, condition


def test_sequence_values_in_arithmetic(conn, ifx_target):
    name = f"seq_{uuid.uuid4().hex[:10]}"
    cur = conn.cursor()
    cur.execute(f"CREATE SEQUENCE {name} START WITH 10")
    try:
        (value,), desc = one(conn, f"SELECT {name}.NEXTVAL * 2 FROM systables WHERE tabid = 1")
        assert value == 20                      # described once, NEXTVAL stepped once
    finally:
        cur.execute(f"DROP SEQUENCE {name}")


def test_in_list_with_decimal_arithmetic(conn, table):
    hits = conn.cursor()
    hits.execute(f"SELECT COUNT(*) FROM {table} WHERE price * 2 IN (0.2, 0.4)")
    assert hits.fetchall() == [(1,)]
    hits.execute(f"SELECT COUNT(*) FROM {table} WHERE price * 2 IN (?, 0.5)", (Decimal("0.2"),))
    assert hits.fetchall() == [(1,)]
    hits.execute(f"SELECT COUNT(*) FROM {table} WHERE price * 2 NOT IN (0.2)")
    assert hits.fetchall() == [(0,)]
    hits.execute(f"SELECT COUNT(*) FROM {table} WHERE i + 0 IN (2147483647)")
    assert hits.fetchall() == [(1,)]


def test_cast_overflow_is_an_error(conn, table):
    # Value exceeds limit of INTEGER precision (IBM -1215), as for a bound value.
    assert sqlcode(conn, f"SELECT wide::INTEGER FROM {table}") == -1215


def test_avg_of_integers_is_an_exact_decimal(conn):
    name = f"avg_{uuid.uuid4().hex[:10]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {name} (n INTEGER)")
    try:
        cur.executemany(f"INSERT INTO {name} VALUES (?)", [(1,), (2,), (2,)])
        (avg,), desc = one(conn, f"SELECT AVG(n) FROM {name}")
        # AVG is a DECIMAL (the emulator's description, as before); its value
        # a dec_t quotient (31 digits here: "01" leads 1.666...), not a double's
        # 1.6666666666666667.
        assert desc[0][1] == TC_DECIMAL
        assert avg == Decimal("1." + "6" * 29 + "7")
    finally:
        cur.execute(f"DROP TABLE {name}")


def test_insert_select_star_still_copies_rows(conn):
    src, dst = f"src_{uuid.uuid4().hex[:10]}", f"dst_{uuid.uuid4().hex[:10]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {src} (n INTEGER, price DECIMAL(10,2))")
    cur.execute(f"CREATE TABLE {dst} (n INTEGER, price DECIMAL(10,2))")
    try:
        cur.execute(f"INSERT INTO {src} VALUES (3, 1.25)")
        cur.execute(f"INSERT INTO {dst} SELECT * FROM {src}")
        cur.execute(f"INSERT INTO {dst} SELECT n + 1, price * 2 FROM {src}")
        cur.execute(f"SELECT n, price FROM {dst} ORDER BY n")
        assert cur.fetchall() == [(3, Decimal("1.25")), (4, Decimal("2.50"))]
    finally:
        cur.execute(f"DROP TABLE {src}")
        cur.execute(f"DROP TABLE {dst}")
