"""Engine semantics: Informix types, errors, SERIAL, transactions, catalog."""

import datetime as dt
import struct
import threading
import time
from decimal import Decimal

import pytest

from informix_stream.codecs import IntervalYM, TypeCode, make_row_decoder
from informix_stream.emulator.engine import Engine
from informix_stream.emulator.statements import NOT_SUPPORTED, SqlError, StatementKind


@pytest.fixture
def engine():
    eng = Engine(["testdb"])
    yield eng
    eng.close()


@pytest.fixture
def s(engine):
    return engine.connect("testdb")


def run(session, sql, params=()):
    """Execute; a SELECT's rows as values, decoding stored row images the way
    a client would (so every whole-row SELECT also checks the images)."""
    stmt = session.prepare(sql)
    if stmt.kind is StatementKind.SELECT:
        rows = session.open_cursor(stmt, params)
        out = []
        while batch := rows.fetch(100):
            out += batch
        return [decode_tuple(stmt.columns, m) for m in out] if rows.encoded else out
    return session.execute(stmt, params)


def decode_tuple(columns, message):
    """Values of one SQ_TUPLE message: tag 14, no warnings, size, row image."""
    tag, warnings, size = struct.unpack_from("!hhi", message)
    assert (tag, warnings) == (14, 0) and len(message) == 8 + size + (size & 1)
    row, end = make_row_decoder([c.type for c in columns])(message, 8)
    assert end == 8 + size
    return row


def error_of(session, sql, params=()):
    with pytest.raises(SqlError) as exc:
        run(session, sql, params)
    return exc.value.sqlcode, exc.value.isam, exc.value.near


def test_unknown_database(engine):
    assert engine.has_database("TESTDB") and not engine.has_database("nope")
    with pytest.raises(SqlError) as exc:
        engine.connect("nope")
    assert (exc.value.sqlcode, exc.value.isam) == (-329, -111)


def test_types_round_trip_exactly(s):
    run(s, "create table v (c char(5), vc varchar(10), lv lvarchar(100), si smallint,"
           " i integer, b8 bigint, i8 int8, f float, sf smallfloat, d date,"
           " dec decimal(10,2), big decimal(30,10), fl decimal(16), m money(8,2),"
           " dt datetime year to fraction(3), dd datetime year to day,"
           " tm datetime hour to second, iv interval day(3) to fraction(5),"
           " ym interval year to month, bo boolean)")
    values = ("ab", "xyz", "long text", -32767, 2147483647, -(2**63) + 1, 2**62, 1.25,
              0.5, dt.date(1899, 12, 31), Decimal("-12345678.91"),
              Decimal("12345678901234567890.1234567891"), Decimal("3.14159"),
              Decimal("19.99"), dt.datetime(2024, 2, 29, 23, 59, 58, 123000),
              dt.date(2024, 1, 2), dt.time(10, 11, 12),
              dt.timedelta(days=-3, seconds=5, microseconds=10), IntervalYM(-14), False)
    run(s, "insert into v values (" + ", ".join("?" * len(values)) + ")", values)
    (row,) = run(s, "select * from v")
    assert row[0] == "ab   "
    assert row[1:] == values[1:]
    assert [type(x) for x in row[10:14]] == [Decimal] * 4


def test_string_parameters_are_converted_to_column_types(s):
    run(s, "create table c (d date, n decimal(6,2), i int, t datetime year to second, b boolean)")
    run(s, "insert into c values (?, ?, ?, ?, ?)",
        ["12/31/2023", "1.005", " 42 ", "2024-01-02 03:04:05", "t"])
    assert run(s, "select * from c") == [(dt.date(2023, 12, 31), Decimal("1.01"), 42,
                                          dt.datetime(2024, 1, 2, 3, 4, 5), True)]
    assert run(s, "select count(*) from c where d = '12/31/2023' and t > '2024-01-01 00:00:00'"
               ) == [(1,)]


@pytest.mark.parametrize("col,value,code", [
    ("n", "12345.6", -1226), ("n", "12a", -1213), ("i", 2**31, -1215),
    ("s", 40000, -1214), ("d", "13/01/2024", -1205), ("d", "02/30/2024", -1206),
    ("d", "yesterday", -1218), ("t", "2024-01-02 10:aa:00", -1262)])
def test_conversion_errors(s, col, value, code):
    run(s, "create table c (n decimal(6,2), i int, s smallint, d date,"
           " t datetime year to second)")
    assert error_of(s, f"insert into c ({col}) values (?)", [value])[0] == code


def test_serial_generation_and_counter(s):
    run(s, "create table t (id serial(10), v int)")
    assert run(s, "insert into t (v) values (1)").serial == 10
    assert run(s, "insert into t values (0, 2)").serial == 11
    assert run(s, "insert into t values (?, 3)", [None]).serial == 12
    assert run(s, "insert into t values (100, 4)").serial == 100
    run(s, "delete from t where id = 100")
    assert run(s, "insert into t (v) values (5)").serial == 101
    assert run(s, "select dbinfo('sqlca.sqlerrd1') from systables where tabid = 1") == [(101,)]
    assert [r[0] for r in run(s, "select id from t order by id")] == [10, 11, 12, 101]


def test_serial8_and_bigserial_report_serial8(s):
    run(s, "create table t8 (id serial8, v int)")
    run(s, "create table tb (id bigserial(5), v int)")
    assert run(s, "insert into t8 (v) values (1)").serial8 == 1
    result = run(s, "insert into tb (v) values (1)")
    assert (result.serial, result.serial8) == (0, 5)


def test_insert_select_generates_serials(s):
    run(s, "create table src (v int)")
    run(s, "create table dst (id serial, v int)")
    for v in (7, 8, 9):
        run(s, "insert into src values (?)", [v])
    assert run(s, "insert into dst (v) select v from src").rowcount == 3
    assert run(s, "select id, v from dst order by id") == [(1, 7), (2, 8), (3, 9)]


def test_error_codes_and_near_text(s):
    run(s, "create table t (id int primary key, name varchar(20) not null, u int)")
    run(s, "create unique index ix_u on t (u)")
    run(s, "insert into t values (1, 'a', 1)")
    assert error_of(s, "select * from nope") == (-206, -111, "nope")
    assert error_of(s, "select nope from t")[::2] == (-217, "nope")
    assert error_of(s, "select from where")[0] == -201
    assert error_of(s, "insert into t values (1, 'b', 2)") == (-268, -100, "informix.u100_1")
    assert error_of(s, "insert into t values (2, 'b', 1)") == (-239, -100, "ix_u")
    assert error_of(s, "insert into t (id) values (3)")[::2] == (-391, "t.name")
    assert error_of(s, "create table t (x int)")[::2] == (-310, "t")
    assert error_of(s, "insert into t values (1, 2)")[0] == -236
    assert error_of(s, "insert into t values (?, ?, ?)", [1])[0] == -254
    assert error_of(s, "drop table nope")[0] == -206


def test_if_exists_variants(s):
    run(s, "create table t (x int)")
    run(s, "create table if not exists t (x int)")
    run(s, "drop table t")
    run(s, "drop table if exists t")
    assert run(s, "select count(*) from systables where tabname = 't'") == [(0,)]


def test_catalog_queries(s):
    run(s, "create table cat (id serial not null, name varchar(64,4), amt decimal(10,2))")
    assert run(s, "select tabname from systables where tabid >= 100") == [("cat",)]
    assert run(s, "select first 1 tabname, tabid from systables order by tabid") == [
        ("systables", 1)]
    cols = run(s, "select colname, coltype, collength from syscolumns c, systables t"
                  " where t.tabid = c.tabid and t.tabname = 'cat' order by colno")
    assert cols == [("id", TypeCode.SERIAL + 256, 4), ("name", TypeCode.VARCHAR, (4 << 8) | 64),
                    ("amt", TypeCode.DECIMAL, (10 << 8) | 2)]
    stmt = s.prepare("select tabname, ncols, created from informix.systables where tabid = 100")
    assert [c.type.code for c in stmt.columns] == [TypeCode.VARCHAR, TypeCode.SMALLINT,
                                                   TypeCode.DATE]
    assert run(s, "select ncols, created from systables where tabid = 100") == [
        (3, dt.date.today())]


def test_prepare_reports_columns_and_param_types(s):
    run(s, "create table p (id int not null, d date, amt money(8,2))")
    stmt = s.prepare("select id, amt, count(*) from p where d = ? group by 1, 2")
    assert [(c.name, c.type.sql(), c.type.nullable) for c in stmt.columns] == [
        ("id", "INTEGER", False), ("amt", "MONEY(8,2)", True), ("(count(*))", "INTEGER", True)]
    assert stmt.param_count == 1 and stmt.param_types[0].code == TypeCode.DATE
    ins = s.prepare("insert into p values (?, ?, ?)")
    assert [t.code for t in ins.param_types] == [TypeCode.INTEGER, TypeCode.DATE,
                                                 TypeCode.MONEY]
    assert ins.table == "p" and ins.kind is StatementKind.INSERT


def test_first_skip_and_streaming_batches(s):
    run(s, "create table n (i int)")
    s.execute_many(s.prepare("insert into n values (?)"), ([i] for i in range(1000)))
    rows = s.open_cursor(s.prepare("select i from n order by i"))
    assert [len(rows.fetch(300)) for _ in range(5)] == [300, 300, 300, 100, 0]
    assert run(s, "select skip 10 first 3 i from n order by i") == [(10,), (11,), (12,)]
    assert run(s, "select first ? i from n where i > ? order by i", [2, 500]) == [(501,), (502,)]


def test_transactions_and_isolation(engine):
    a, b = engine.connect("testdb"), engine.connect("testdb")
    run(a, "create table t (v int)")
    with pytest.raises(SqlError) as exc:
        a.commit()
    assert exc.value.sqlcode == -255
    run(a, "begin work")
    assert a.in_transaction
    with pytest.raises(SqlError) as exc:
        a.begin()
    assert exc.value.sqlcode == -535
    run(a, "insert into t values (1)")
    assert run(b, "select count(*) from t") == [(0,)]
    run(a, "commit work")
    assert run(b, "select count(*) from t") == [(1,)]
    a.begin()
    run(a, "insert into t values (2)")
    a.rollback()
    assert run(b, "select count(*) from t") == [(1,)]


def test_write_conflict_is_a_lock_error_after_the_wait(engine):
    a, b = engine.connect("testdb"), engine.connect("testdb")
    run(a, "create table t (v int)")
    a.begin()
    run(a, "insert into t values (1)")
    run(b, "set lock mode to wait 1")
    started = time.monotonic()
    assert error_of(b, "insert into t values (2)")[:2] == (-271, -107)
    assert 0.9 <= time.monotonic() - started < 5
    a.commit()
    run(b, "insert into t values (2)")


def test_concurrent_sessions_on_threads(engine):
    run(engine.connect("testdb"), "create table t (id serial, w int)")

    def work(w):
        session = engine.connect("testdb")
        stmt = session.prepare("insert into t (w) values (?)")
        for _ in range(50):
            session.execute(stmt, [w])
        session.close()

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert run(engine.connect("testdb"), "select count(*), count(distinct id) from t") == [
        (200, 200)]


def test_rolled_back_ddl_leaves_catalog(s):
    s.begin()
    run(s, "create table gone (x int)")
    s.rollback()
    assert error_of(s, "select * from gone")[0] == -206


def test_close_rolls_back(engine):
    a = engine.connect("testdb")
    run(a, "create table t (v int)")
    a.begin()
    run(a, "insert into t values (1)")
    a.close()
    assert run(engine.connect("testdb"), "select count(*) from t") == [(0,)]


def test_autocommit_write_visible_while_own_cursor_open(engine):
    a, b = engine.connect("testdb"), engine.connect("testdb")
    run(a, "create table t (v int)")
    run(a, "insert into t values (1)")
    rows = a.open_cursor(a.prepare("select v from t"))
    run(a, "insert into t values (2)")
    assert run(b, "select count(*) from t") == [(2,)]
    rows.close()


def test_data_dir_persists_across_engines(tmp_path):
    eng = Engine(["keep"], tmp_path)
    s = eng.connect("keep")
    run(s, "create table t (id serial, amt decimal(20,4))")
    run(s, "insert into t (amt) values (?)", ["1234567890123456.1234"])
    run(s, "insert into t (amt) values (?)", ["2"])
    run(s, "delete from t where id = 2")
    eng.close()
    eng = Engine(["keep"], tmp_path)
    s = eng.connect("keep")
    assert run(s, "insert into t (amt) values (0)").serial == 3
    assert run(s, "select * from t order by id") == [
        (1, Decimal("1234567890123456.1234")), (3, Decimal("0.0000"))]
    eng.close()


# -- collection-derived tables, dbinfo ----------------------------------------

def test_jdbc_product_version_query(s):
    assert run(s, "select dbinfo('version','full') from  table (set{1});") == [
        ("IBM Informix Dynamic Server Version 14.10.FC10",)]


def test_collection_derived_tables_yield_one_row_per_element(s):
    assert sorted(run(s, "select * from table(set{3, 1, 3, -2})")) == [(-2,), (1,), (3,)]
    assert run(s, "select * from table(list{3, 1, 3})") == [(3,), (1,), (3,)]
    assert sorted(run(s, "select x.v from table(multiset{'b', 'a', 'b'}) x(v)")) == [
        ("a",), ("b",), ("b",)]
    stmt = s.prepare("select * from table(list{1.5, 2}) as t(amount) where amount > 1.6")
    assert [c.name for c in stmt.columns] == ["amount"]
    assert run(s, "select * from table(list{1.5, 2}) as t(amount) where amount > 1.6") == [
        (Decimal("2"),)]


# -- catalog and DESCRIBE of SERIAL and opaque built-ins ------------------------

def test_catalog_codes_of_serials_and_builtin_opaque_types(s):
    run(s, "create table k (a serial, b serial8, c bigserial, d lvarchar(300), e boolean)")
    assert run(s, "select colname, coltype, collength, extended_id from syscolumns"
                  " where tabid = 100 order by colno") == [
        ("a", 262, 4, 0), ("b", 274, 10, 0), ("c", 309, 8, 0), ("d", 40, 300, 1),
        ("e", 41, 1, 5)]
    stmt = s.prepare("select a, b, c, d, e from k")
    assert [c.type.nullable for c in stmt.columns] == [False, False, False, True, True]
    assert [c.type.code for c in stmt.columns][3:] == [TypeCode.LVARCHAR, TypeCode.BOOLEAN]
    run(s, "insert into k (d, e) values ('x', 't')")
    assert run(s, "select a, b, c, d, e from k") == [(1, 1, 1, "x", True)]


# -- INTERVAL literals ---------------------------------------------------------

def test_interval_literals_insert_compare_and_select(s):
    run(s, "create table iv (id int, ym interval year to month, df interval day to fraction(3),"
           " hs interval hour to second)")
    run(s, "insert into iv values (1, interval(1-06) year to month,"
           " interval(1 10:00:00.000) day to fraction(3), interval(1:01:01) hour to second)")
    run(s, "insert into iv values (2, INTERVAL(-2-03) YEAR TO MONTH,"
           " INTERVAL(-1 02:03:04.567) DAY TO FRACTION(3), INTERVAL(-0:00:01) HOUR TO SECOND)")
    assert run(s, "select ym, df, hs from iv order by id") == [
        (IntervalYM(18), dt.timedelta(days=1, hours=10), dt.timedelta(seconds=3661)),
        (IntervalYM(-27), -dt.timedelta(days=1, hours=2, minutes=3, seconds=4,
                                        milliseconds=567), dt.timedelta(seconds=-1))]
    assert run(s, "select id from iv where ym = interval(-2-03) year to month") == [(2,)]
    assert run(s, "select id from iv where df > interval(0 00:00:00.000) day to fraction(3)"
               ) == [(1,)]
    assert run(s, "select interval(-5-03) year to month, interval(2 03:04:05.600) day to"
                  " fraction(3) from iv where id = 1") == [
        (IntervalYM(-63), dt.timedelta(days=2, hours=3, minutes=4, seconds=5,
                                       milliseconds=600))]


# -- DECIMAL wider than a double ----------------------------------------------

@pytest.fixture
def decimals(s):
    run(s, "create table dz (id int, wide decimal(32,10), fl decimal(16), narrow decimal(10,2))")
    rows = [(1, "-9999999999999999999999.9999999999", "1234567890123456", "-1.5"),
            (2, "0.0000000001", "2", "3"), (3, "12345678901234567890.5", "-7", "0"),
            (4, None, None, None), (5, "-0.5", "1234567890123455.5", "99999999.99")]
    for row in rows:
        run(s, "insert into dz values (?, ?, ?, ?)", row)
    return s


def test_floating_decimal_keeps_what_its_pairs_hold(s):
    """A floating DECIMAL(p) row image has (p + 4) // 2 bytes (the clients'
    length formula with scale 255), one the exponent; IBM's compatibility run
    (tests/compat/ibm_dbcompat, dataTypeTest_DECIMAL.json) read the 17-digit
    4.9393689715768056E45 back from a DECIMAL column unchanged."""
    run(s, "create table fz (id int, d16 decimal, d5 decimal(5))")
    rows = [(1, "4.9393689715768056E45", "123456"), (2, "1234567890123456789", "12345.67"),
            (3, "0.012345678901234567891", "0.0123456")]
    for row in rows:
        run(s, "insert into fz values (?, ?, ?)", row)
    assert run(s, "select d16, d5 from fz order by id") == [
        (Decimal("4.9393689715768056E45"), Decimal("123456")),   # 9 / 3 full pairs
        (Decimal("1234567890123456800"), Decimal("12346")),      # odd point: 17 / 5 digits
        (Decimal("0.012345678901234568"), Decimal("0.012346"))]  # pair '01' holds one digit


def test_wide_decimals_compare_and_sort_numerically(decimals):
    s = decimals
    ids = lambda sql: [r[0] for r in run(s, sql)]  # noqa: E731
    assert ids("select id from dz where wide < 0 order by id") == [1, 5]
    assert ids("select id from dz where wide = -9999999999999999999999.9999999999") == [1]
    assert ids("select id from dz where wide = '12345678901234567890.5'") == [3]
    assert ids("select id from dz where wide between -1 and 0.0000000001 order by id") == [2, 5]
    # DECIMAL(16) keeps 9 base-100 pairs (18 digits here), so row 5 keeps its .5
    assert ids("select id from dz where fl is not null order by fl, id") == [3, 2, 5, 1]
    assert ids("select id from dz where wide is not null order by wide desc") == [3, 2, 5, 1]
    assert ids("select id from dz where narrow > -2 order by narrow") == [1, 3, 2, 5]
    assert run(s, "select min(wide), max(wide) from dz") == [
        (Decimal("-9999999999999999999999.9999999999"), Decimal("12345678901234567890.5"))]


def test_wide_decimal_parameters_and_aggregates_are_exact(decimals):
    s = decimals
    assert run(s, "select id from dz where wide > ? order by id", ["-0.6"]) == [(2,), (3,), (5,)]
    assert run(s, "select sum(wide), sum(fl) from dz") == [
        (Decimal("-9987654321098765432109.9999999998"), Decimal("2469135780246906.5"))]
    assert run(s, "select avg(wide) from dz where id in (2, 5)") == [
        (Decimal("-0.24999999995"),)]
    assert run(s, "select count(distinct fl), sum(narrow) from dz") == [
        (4, Decimal("100000001.49"))]


def test_unique_index_on_wide_decimal_compares_values(s):
    run(s, "create table du (v decimal(20,2) unique)")
    run(s, "insert into du values (?)", ["12345678901234567.10"])
    assert error_of(s, "insert into du values (?)", ["12345678901234567.1"])[0] == -268
    run(s, "insert into du values (?)", ["12345678901234567.11"])


# -- stored row images -----------------------------------------------------------

def whole_rows(session, sql, params=()):
    """Rows of a SELECT that must be served from stored images."""
    stmt = session.prepare(sql)
    source = session.open_cursor(stmt, params)
    assert source.encoded
    out = []
    while batch := source.fetch(7):
        assert all(isinstance(m, bytes) for m in batch)
        out += [decode_tuple(stmt.columns, m) for m in batch]
    return out


def test_whole_row_selects_are_served_from_images(s):
    run(s, "create table im (id serial, c char(4), v varchar(10), d date default today,"
           " m decimal(20,3))")
    run(s, "insert into im (c, v, m) values ('a', 'x', 1.5)")
    run(s, "insert into im values (0, ?, ?, ?, ?)", [None, None, None, None])
    run(s, "insert into im (c) select c from im where id = 1")
    today = dt.date.today()
    expected = [(1, "a   ", "x", today, Decimal("1.500")),
                (2, None, None, None, None), (3, "a   ", None, today, None)]
    assert whole_rows(s, "select * from im order by id") == expected
    assert whole_rows(s, "select first 1 skip 1 im.id, c, im.v, d, m from informix.im"
                         " where id > ? order by id", [0]) == expected[1:2]
    assert whole_rows(s, "select x.* from im x where m is null order by c desc, id") == [
        expected[2], expected[1]]


def test_tables_with_opaque_columns_keep_no_images(s):
    # a BOOLEAN/BLOB/CLOB cell's form (text or binary) is the client's choice
    # (SQ_RET_TYPE, emulator/composite_wire.py), so no prebuilt image fits all
    run(s, "create table ib (id int, b boolean)")
    run(s, "insert into ib values (1, 't')")
    source = s.open_cursor(s.prepare("select * from ib"), ())
    assert not source.encoded
    assert source.fetch(7) == [(1, True)]


def test_images_follow_updates_and_rollbacks(s):
    run(s, "create table up (id int, name char(6), n int)")
    run(s, "insert into up values (?, ?, ?)", [1, "one", 10])
    run(s, "insert into up values (2, 'two', 20)")
    run(s, "update up set n = n + 1, name = name || '!' where id = 1")
    assert whole_rows(s, "select * from up order by id") == [(1, "one!  ", 11),
                                                             (2, "two   ", 20)]
    s.begin()
    run(s, "update up set n = null where id = 2")
    run(s, "delete from up where id = 1")
    run(s, "insert into up values (?, ?, ?)", [3, "three", 30])
    assert whole_rows(s, "select * from up order by id") == [(2, "two   ", None),
                                                             (3, "three ", 30)]
    s.rollback()
    assert whole_rows(s, "select * from up order by id") == [(1, "one!  ", 11),
                                                             (2, "two   ", 20)]


def test_image_column_stays_hidden(s):
    run(s, "create table h (a int, b varchar(5))")
    run(s, "insert into h values (1, 'x')")
    assert [c.name for c in s.prepare("select * from h").columns] == ["a", "b"]
    assert run(s, "select count(*) from syscolumns where tabid = 100") == [(2,)]
    assert run(s, "select ncols from systables where tabid = 100") == [(2,)]
    assert run(s, "select * from h, h g") == [(1, "x", 1, "x")]
    assert run(s, "select * from (select * from h) q") == [(1, "x")]
    assert error_of(s, "insert into h values (1, 'x', null)")[0] == -236
    assert error_of(s, "select _ifx_row from h")[0] == -217


def test_only_plain_columns_of_one_table_are_served_from_images(s):
    run(s, "create table w (a int, b int)")
    run(s, "insert into w values (1, 2)")
    # Any list of plain columns: cells cut out of the row images (image_slice).
    for sql, row in (("select b, a from w", (2, 1)), ("select a from w", (1,)),
                     ("select a, b, a from w", (1, 2, 1)), ("select w.b from w", (2,))):
        assert s.prepare(sql).translation.encoded, sql
        assert run(s, sql) == [row], sql
    for sql in ("select a, b from w order by 2", "select distinct * from w",
                "select a x, b from w", "select * from w, w v", "select a, b from w group by a, b",
                "select * from w union all select * from w", "select a, b + 0 from w"):
        stmt = s.prepare(sql)
        source = s.open_cursor(stmt)
        assert not source.encoded, sql
        assert source.fetch(10)[0][:2] in ((1, 2), (2, 1), (1,)), sql
        source.close()


def test_text_outside_the_codeset_is_rejected_on_insert(s):
    run(s, "create table cs (id int, v varchar(10))")
    assert error_of(s, "insert into cs values (?, ?)", [1, "\u20ac"])[0] == -23103
    assert error_of(s, "insert into cs (v) values (?)", ["\u20ac"])[0] == -23103
    assert run(s, "select count(*) from cs") == [(0,)]


def test_translations_are_shared_and_forgotten_when_the_catalog_changes(engine):
    """The translation cache (issue 11's per-statement cost): a second
    session's PREPARE of the same text reuses the first one's translation,
    and a DDL statement from either makes both see the new table shape."""
    a, b = engine.connect("testdb"), engine.connect("testdb")
    run(a, "CREATE TABLE shape (x INTEGER)")
    run(a, "INSERT INTO shape VALUES (1)")
    first = a.prepare("SELECT * FROM shape")
    again = b.prepare("SELECT * FROM shape")
    assert again.translation is first.translation          # shared, not re-translated
    assert again is not first                               # each PREPARE its own handle
    run(b, "DROP TABLE shape")
    run(b, "CREATE TABLE shape (x INTEGER, y VARCHAR(10))")
    run(b, "INSERT INTO shape VALUES (2, 'two')")
    fresh = a.prepare("SELECT * FROM shape")
    assert [c.name for c in fresh.columns] == ["x", "y"]
    assert run(a, "SELECT * FROM shape") == [(2, "two")]
    with pytest.raises(SqlError) as info:                   # the old handle is stale
        a.check_current(first)
    assert info.value.sqlcode == -710


def test_a_failed_translation_is_not_remembered(engine):
    """A PREPARE that failed because a table was missing succeeds once the
    table exists: failures are never cached."""
    s = engine.connect("testdb")
    with pytest.raises(SqlError) as info:
        s.prepare("SELECT * FROM later")
    assert info.value.sqlcode == -206
    run(s, "CREATE TABLE later (x INTEGER)")
    assert [c.name for c in s.prepare("SELECT * FROM later").columns] == ["x"]


def test_day_time_interval_beyond_storage_is_refused_as_unsupported(s):
    """INTERVAL DAY(9) TO FRACTION(5) holds up to 999,999,999 days on a real
    server; the emulator stores microseconds in a 64-bit integer (about
    106.75 million days) and says so beyond that, instead of failing
    internally (-999) as it did, or storing something else."""
    run(s, "CREATE TABLE iv (i INTERVAL DAY(9) TO FRACTION(5))")
    run(s, "INSERT INTO iv VALUES (?)", (dt.timedelta(days=100_000_000, microseconds=10),))
    assert error_of(s, "INSERT INTO iv VALUES (?)", (dt.timedelta(days=999_999_999),))[:2] == \
        (NOT_SUPPORTED, 0)
    assert error_of(s, "INSERT INTO iv VALUES (?)", (dt.timedelta(days=-200_000_000),))[:2] == \
        (NOT_SUPPORTED, 0)
    assert run(s, "SELECT i FROM iv") == [(dt.timedelta(days=100_000_000, microseconds=10),)]


def test_sequence_counter_survives_a_restart_with_a_data_dir(tmp_path):
    """NEXTVAL is outside transactions (kept in memory); closing the engine
    writes it back, so a restarted emulator never hands a number out twice."""
    engine = Engine(["testdb"], data_dir=tmp_path)
    s = engine.connect("testdb")
    run(s, "CREATE SEQUENCE counter")
    assert [run(s, "SELECT counter.NEXTVAL FROM systables WHERE tabid = 1") for _ in range(2)] \
        == [[(1,)], [(2,)]]
    engine.close()
    engine = Engine(["testdb"], data_dir=tmp_path)
    s = engine.connect("testdb")
    assert run(s, "SELECT counter.NEXTVAL FROM systables WHERE tabid = 1") == [(3,)]
    engine.close()
