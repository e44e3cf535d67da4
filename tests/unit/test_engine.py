"""Engine semantics: Informix types, errors, SERIAL, transactions, catalog."""

import datetime as dt
import threading
import time
from decimal import Decimal

import pytest

from informix_stream.codecs import IntervalYM, TypeCode
from informix_stream.emulator.engine import Engine, SqlError, StatementKind


@pytest.fixture
def engine():
    eng = Engine(["testdb"])
    yield eng
    eng.close()


@pytest.fixture
def s(engine):
    return engine.connect("testdb")


def run(session, sql, params=()):
    stmt = session.prepare(sql)
    if stmt.kind is StatementKind.SELECT:
        rows = session.open_cursor(stmt, params)
        out = []
        while batch := rows.fetch(100):
            out += batch
        return out
    return session.execute(stmt, params)


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
    assert run(s, "select count(*) from c where d = '2023-12-31' and t > '2024-01-01 00:00:00'"
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
