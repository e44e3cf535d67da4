"""Issue 15's two benchmark paths through the dialect, pinned.

* Results: no result processor runs per row where the driver already hands
  out what SQLAlchemy wants (Decimal, datetime, date, str, bool; floats from
  FLOAT/SMALLFLOAT columns), while a float-typed expression the driver
  reads as Decimal is still converted.
* ORM bulk insert: SQLAlchemy splits ``session.execute(insert(Model),
  dicts)`` into a batch per run of rows with the same non-NULL keys; each
  batch is one round trip on the connection's kept statements, the rows
  land as given, and a failing batch rolls back with the session.
"""

from __future__ import annotations

import datetime
import decimal

import pytest

sa = pytest.importorskip("sqlalchemy", reason="the sqlalchemy extra is not installed")

from sqlalchemy import event, insert  # noqa: E402
from sqlalchemy.dialects import registry  # noqa: E402
from sqlalchemy.orm import DeclarativeBase, Session, mapped_column  # noqa: E402

from informix_stream.codec.typeinfo import TypeCode  # noqa: E402
from informix_stream.emulator.server import EmulatorServer  # noqa: E402
from informix_stream.sqlalchemy import InformixDialect_informix_stream  # noqa: E402
from informix_stream.sqlalchemy import types as ifx_types  # noqa: E402

registry.register("informix.informix_stream", "informix_stream.sqlalchemy.sync",
                  "InformixDialect_informix_stream")


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("bulkdb",)) as srv:
        yield srv


@pytest.fixture
def engine(server):
    eng = sa.create_engine(f"informix+informix_stream://informix:in4mix@127.0.0.1:{server.port}"
                           "/bulkdb?read_timeout=60")
    yield eng
    eng.dispose()


class Base(DeclarativeBase):
    pass


class Sale(Base):
    __tablename__ = "bulk_sales"
    id = mapped_column(sa.Integer, primary_key=True, autoincrement=False)
    sku = mapped_column(sa.String(32))
    amount = mapped_column(sa.Numeric(12, 2))
    sold = mapped_column(sa.DateTime)
    day = mapped_column(sa.Date)
    note = mapped_column(sa.String(64), nullable=True)


def sale(i: int) -> dict:
    return {"id": i, "sku": f"SKU-{i % 97}", "amount": decimal.Decimal(i) / 4,
            "sold": datetime.datetime(2024, 1, 1) + datetime.timedelta(seconds=37 * i),
            "day": datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 900),
            "note": None if i % 10 == 3 else f"n{i}"}


@pytest.fixture
def sales(engine):
    Base.metadata.drop_all(engine)
    Base.metadata.create_all(engine)
    yield Sale
    Base.metadata.drop_all(engine)


# -- results --------------------------------------------------------------------

NATIVE = [sa.Numeric(12, 2), sa.DECIMAL(12, 2), ifx_types.MONEY(10, 2), sa.DateTime(),
          ifx_types.DATETIME(), ifx_types.DATETIME("YEAR", "DAY"), sa.Date(), sa.Time(),
          sa.String(10), sa.Unicode(10), sa.Text(), sa.Integer(), sa.BigInteger(),
          sa.Boolean(), sa.Interval(), ifx_types.INTERVAL()]


@pytest.mark.parametrize("type_", NATIVE, ids=repr)
def test_no_result_processor_where_the_driver_returns_the_value(type_):
    dialect = InformixDialect_informix_stream()
    assert dialect.supports_native_decimal and dialect.supports_native_boolean
    impl = type_.dialect_impl(dialect)
    assert impl.result_processor(dialect, None) is None


@pytest.mark.parametrize("code", [TypeCode.FLOAT, TypeCode.SMALLFLOAT])
def test_floats_from_float_columns_are_not_converted_again(code):
    dialect = InformixDialect_informix_stream()
    for type_ in (sa.Float(), sa.REAL(), sa.Double(), ifx_types.SMALLFLOAT()):
        assert type_.dialect_impl(dialect).result_processor(dialect, int(code)) is None


# Parameters: SQLAlchemy hands these values to the driver as they are (the
# driver binds Decimal, datetime, date, time, timedelta, str, bytes, int and
# float itself), so no per-row bind function runs for them.
PASSED_AS_IS = [sa.Integer(), sa.BigInteger(), sa.SmallInteger(), sa.String(32),
                sa.Unicode(10), sa.Text(), sa.Numeric(12, 2), sa.DECIMAL(12, 2),
                ifx_types.MONEY(10, 2), sa.DateTime(), ifx_types.DATETIME(), sa.Date(),
                sa.Time(), sa.Float(), sa.Interval(), ifx_types.INTERVAL(),
                sa.LargeBinary(), ifx_types.LVARCHAR(100)]


@pytest.mark.parametrize("type_", PASSED_AS_IS, ids=repr)
def test_no_bind_processor_where_the_driver_takes_the_value(type_):
    dialect = InformixDialect_informix_stream()
    assert type_.dialect_impl(dialect).bind_processor(dialect) is None


def test_boolean_parameters_are_still_checked():
    """Boolean keeps SQLAlchemy's strict check (only True/False/None, 0/1):
    dropping it for speed would let 2 reach the server as an integer."""
    dialect = InformixDialect_informix_stream()
    process = sa.Boolean().dialect_impl(dialect).bind_processor(dialect)
    assert [process(v) for v in (True, False, None, 1, 0)] == [True, False, None, True, False]
    with pytest.raises((TypeError, ValueError)):
        process(2)


def test_a_float_typed_decimal_is_still_converted(engine):
    dialect = InformixDialect_informix_stream()
    convert = sa.Float().dialect_impl(dialect).result_processor(dialect, int(TypeCode.DECIMAL))
    assert convert(decimal.Decimal("1.25")) == 1.25
    md = sa.MetaData()
    t = sa.Table("bulk_floats", md, sa.Column("f", sa.Float), sa.Column("d", sa.Numeric(8, 2)))
    md.drop_all(engine)
    md.create_all(engine)
    try:
        with engine.begin() as conn:
            conn.execute(t.insert(), [{"f": 0.5, "d": decimal.Decimal("2.25")}])
            row = conn.execute(sa.select(t.c.f, sa.type_coerce(t.c.d, sa.Float),
                                         t.c.d)).one()
        assert row == (0.5, 2.25, decimal.Decimal("2.25"))
        assert [type(v) for v in row] == [float, float, decimal.Decimal]
    finally:
        md.drop_all(engine)


# -- ORM bulk insert ------------------------------------------------------------------

def count_round_trips(dbapi_connection) -> list[int]:
    """One flush of queued requests is one round trip (see
    test_executemany_kept.py)."""
    io, flush, seen = dbapi_connection._io, dbapi_connection._io._flush, [0]

    def counted() -> None:
        if io.session.data_to_send():
            seen[0] += 1
        flush()
    io._flush = counted
    return seen


def test_orm_bulk_insert_costs_one_round_trip_per_batch(engine, sales):
    rows = [sale(i) for i in range(200)]
    with Session(engine) as session:
        session.execute(insert(sales), rows[:20])           # both statements kept
        raw = session.connection().connection.driver_connection
        batches = []
        event.listen(session.connection(), "before_cursor_execute",
                     lambda *args: batches.append(args[2]))
        trips = count_round_trips(raw)
        session.execute(insert(sales), rows[20:])
        # 20-22, 23 (NULL note), 24-32, 33, ... 193, 194-199
        assert len(batches) == 37
        assert trips[0] == len(batches)
        session.commit()
    with engine.connect() as conn:
        got = conn.execute(sa.select(sales.__table__).order_by(sales.id)).all()
    assert [tuple(r) for r in got] == [tuple(r.values()) for r in rows]


def test_orm_bulk_insert_failing_batch_rolls_back_with_the_session(engine, sales):
    rows = [sale(i) for i in range(60)]
    rows[47]["id"] = 5                                       # a key already in the batch
    with Session(engine) as session:
        with pytest.raises(sa.exc.IntegrityError) as info:
            session.execute(insert(sales), rows)
        assert info.value.orig.sqlcode in (-239, -268)
        assert info.value.orig.row_index is not None
        session.rollback()
        session.execute(insert(sales), [sale(1000)])         # the kept statement still works
        session.commit()
    with engine.connect() as conn:
        assert conn.execute(sa.select(sales.id)).scalars().all() == [1000]


def test_orm_bulk_insert_with_render_nulls_is_one_executemany(engine, sales):
    """render_nulls (and rows without NULLs) keep one key set: one
    executemany for the whole list, NULLs stored as NULL (the benchmark's
    one-batch paths)."""
    rows = [sale(i) for i in range(120)]
    full = [{**sale(i), "note": f"n{i}"} for i in range(120, 200)]
    with Session(engine) as session:
        calls = []
        event.listen(session.connection(), "before_cursor_execute",
                     lambda *args: calls.append((args[2], len(args[3]), args[5])))
        session.execute(insert(sales).execution_options(render_nulls=True), rows)
        session.execute(insert(sales), full)
        session.commit()
    assert [(n, many) for _, n, many in calls] == [(120, True), (80, True)]
    assert all(sql.count("?") == 6 for sql, _, _ in calls)
    with engine.connect() as conn:
        got = conn.execute(sa.select(sales.__table__).order_by(sales.id)).all()
    assert [tuple(r) for r in got] == [tuple(r.values()) for r in rows + full]
    assert sum(r.note is None for r in got) == 12
