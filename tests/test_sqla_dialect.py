"""The SQLAlchemy dialect against the emulator: SQL it writes, keys it returns,
reflection, async engine, disconnect detection, and double-quoted
identifiers under DELIMIDENT."""

from __future__ import annotations

import asyncio
import datetime
import decimal

import pytest

sa = pytest.importorskip("sqlalchemy", reason="the sqlalchemy extra is not installed")
pytest.importorskip("greenlet", reason="sqlalchemy[asyncio] needs greenlet")

from sqlalchemy.dialects import registry  # noqa: E402
from sqlalchemy.ext.asyncio import create_async_engine  # noqa: E402

import informix_stream  # noqa: E402
from informix_stream.emulator.server import EmulatorServer  # noqa: E402
from informix_stream.sqlalchemy import InformixDialect_informix_stream  # noqa: E402

registry.register("informix.informix_stream", "informix_stream.sqlalchemy.sync",
                  "InformixDialect_informix_stream")
registry.register("informix.informix_stream_async", "informix_stream.sqlalchemy.async_dialect",
                  "InformixDialectAsync_informix_stream")


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("sqladb",)) as srv:
        yield srv


@pytest.fixture
def engine(server):
    eng = sa.create_engine(f"informix+informix_stream://informix:in4mix@127.0.0.1:{server.port}/sqladb")
    md = sa.MetaData()
    sa.Table("orders", md, sa.Column("id", sa.Integer, primary_key=True),
             sa.Column("name", sa.String(30), nullable=False, server_default="x"),
             sa.Column("amount", sa.Numeric(10, 2)), sa.Column("ok", sa.Boolean))
    md.drop_all(eng)
    md.create_all(eng)
    yield eng, md.tables["orders"]
    md.drop_all(eng)
    eng.dispose()


def _sql(stmt) -> str:
    return str(stmt.compile(dialect=InformixDialect_informix_stream(),
                            compile_kwargs={"literal_binds": True})).replace("\n", "")


def test_limit_offset_compile_to_skip_first():
    t = sa.table("t", sa.column("a"))
    assert _sql(sa.select(t.c.a).limit(5).offset(10)) == "SELECT SKIP 10 FIRST 5 t.a FROM t"


def test_bound_limit_and_offset_render_as_integer_literals(engine):
    """FIRST/SKIP take an integer: a bindparam() without a type is rendered
    as the integer it carries, and a non-integer value is refused."""
    eng, t = engine
    stmt = sa.select(t.c.id).order_by(t.c.id).limit(sa.bindparam("l")).offset(sa.bindparam("o"))
    with eng.begin() as c:
        c.execute(t.insert(), [{"amount": i} for i in range(6)])
        assert c.execute(stmt, {"l": 2, "o": 3}).scalars().all() == [4, 5]
        with pytest.raises(sa.exc.StatementError):
            c.execute(stmt, {"l": "2; DROP TABLE orders", "o": 0})


def test_limit_given_as_an_expression_is_a_compile_error():
    t = sa.table("t", sa.column("a"))
    with pytest.raises(sa.exc.CompileError, match="SKIP/FIRST take an integer"):
        _sql(sa.select(t.c.a).limit(sa.literal_column("1") + 1))
    with pytest.raises(sa.exc.CompileError, match="offset"):
        _sql(sa.select(t.c.a).offset(sa.literal(1) + sa.literal(1)))


def test_parameter_in_select_list_is_cast_to_its_type(engine):
    """The server has no column to type a bare ? in a select list by, so the
    dialect CASTs it; the value then reads back as its own type."""
    stmt = sa.select(sa.literal(datetime.date(2012, 10, 15)), sa.literal(decimal.Decimal("1.5")),
                     sa.literal("s"))
    sql = str(stmt.compile(dialect=InformixDialect_informix_stream()))
    assert sql.startswith("SELECT CAST(? AS DATE) AS anon_1, CAST(? AS DECIMAL(32)) AS anon_2, "
                          "? AS anon_3 FROM")
    eng, _ = engine
    with eng.connect() as c:
        assert c.execute(stmt).one() == (datetime.date(2012, 10, 15), decimal.Decimal("1.5"), "s")


def test_enum_is_sized_in_bytes_and_wide_decimals_are_refused():
    """VARCHAR(n) counts bytes and a non-ANSI database truncates silently, so
    an Enum is sized by its widest UTF-8 value; DECIMAL stops at 32 digits."""
    md = sa.MetaData()
    t = sa.Table("e", md, sa.Column("x", sa.Enum("a", "réveillé", name="m")))
    assert "x VARCHAR(10)" in str(sa.schema.CreateTable(t).compile(
        dialect=InformixDialect_informix_stream()))
    with pytest.raises(sa.exc.CompileError, match=r"DECIMAL\(38\) is not supported by Informix"):
        _sql(sa.select(sa.cast(sa.literal_column("1"), sa.Numeric(38, 20))))
    assert "DECIMAL(32,20)" in _sql(sa.select(sa.cast(sa.literal_column("1"),
                                                      sa.Numeric(32, 20))))


def test_enum_with_multibyte_value_round_trips(engine):
    eng, _ = engine
    md = sa.MetaData()
    t = sa.Table("enum_t", md, sa.Column("x", sa.Enum("a", "réveillé", name="m")))
    md.create_all(eng)
    try:
        with eng.begin() as c:
            c.execute(t.insert(), [{"x": "réveillé"}, {"x": "a"}])
            assert sorted(c.execute(sa.select(t.c.x)).scalars()) == ["a", "réveillé"]
    finally:
        md.drop_all(eng)


def test_select_without_table_gets_a_from_clause():
    assert "FROM (SELECT 1 FROM systables WHERE tabid = 1)" in _sql(sa.select(sa.literal(1)))


def test_ddl_serial_key_and_trailing_constraint_names():
    md = sa.MetaData()
    t = sa.Table("p", md, sa.Column("id", sa.BigInteger, primary_key=True),
                 sa.Column("q", sa.Integer), sa.UniqueConstraint("q", name="uq_q"))
    ddl = str(sa.schema.CreateTable(t).compile(dialect=InformixDialect_informix_stream()))
    assert "id BIGSERIAL NOT NULL" in ddl
    assert "UNIQUE (q) CONSTRAINT uq_q" in ddl


def test_unsupported_constructs_raise_compile_error():
    md = sa.MetaData()
    sa.Table("a", md, sa.Column("id", sa.Integer, primary_key=True))
    b = sa.Table("b", md, sa.Column("id", sa.Integer, primary_key=True),
                 sa.Column("a_id", sa.ForeignKey("a.id", ondelete="SET NULL")))
    with pytest.raises(sa.exc.CompileError, match="ON DELETE SET NULL"):
        sa.schema.CreateTable(b).compile(dialect=InformixDialect_informix_stream())
    with pytest.raises(sa.exc.CompileError, match="RETURNING"):
        _sql(sa.insert(b).returning(b.c.id))


def test_url_query_becomes_connect_keywords_with_delimident():
    url = sa.engine.make_url("informix+informix_stream://u:p@h:9090/db?server=ol_x&client_locale=en_US.utf8")
    args, kw = InformixDialect_informix_stream().create_connect_args(url)
    assert (args, kw) == ([], {"server": "ol_x", "client_locale": "en_US.utf8", "host": "h",
                               "port": 9090, "user": "u", "password": "p", "database": "db",
                               "env": {"DELIMIDENT": "y"}})


def test_serial_key_returned_and_rows_round_trip(engine):
    eng, t = engine
    with eng.begin() as c:
        first = c.execute(t.insert().values(name="a", amount=decimal.Decimal("1.50"), ok=True))
        second = c.execute(t.insert().values(amount=2))
        assert (first.inserted_primary_key[0], second.inserted_primary_key[0]) == (1, 2)
        c.execute(t.insert(), [{"name": f"n{i}", "amount": i} for i in range(3, 6)])
        rows = c.execute(sa.select(t).order_by(t.c.id).limit(2).offset(1)).all()
    assert rows == [(2, "x", decimal.Decimal("2.00"), None),
                    (3, "n3", decimal.Decimal("3.00"), None)]


def test_reflection_reads_the_catalog(engine):
    eng, _ = engine
    insp = sa.inspect(eng)
    cols = {c["name"]: c for c in insp.get_columns("orders")}
    assert str(cols["amount"]["type"]) == "DECIMAL(10, 2)"
    assert cols["id"]["autoincrement"] is True and cols["name"]["nullable"] is False
    assert cols["name"]["default"] == "'x'"
    assert isinstance(cols["ok"]["type"], sa.Boolean)
    assert insp.get_pk_constraint("orders")["constrained_columns"] == ["id"]
    assert "orders" in insp.get_table_names()


def test_stream_results_uses_the_streaming_cursor(engine):
    eng, t = engine
    with eng.begin() as c:
        c.execute(t.insert(), [{"amount": i} for i in range(50)])
    with eng.connect() as c:
        result = c.execution_options(yield_per=7).execute(sa.select(t.c.amount).order_by(t.c.id))
        assert isinstance(result.cursor, informix_stream.Cursor)
        assert [r[0] for r in result][-1] == decimal.Decimal("49.00")


def test_broken_connection_is_a_disconnect(engine, server):
    eng, t = engine
    with eng.connect() as c:
        raw = c.connection.dbapi_connection
        raw._session.mark_broken("test: the socket went away")
        with pytest.raises(sa.exc.OperationalError) as info:
            c.execute(sa.select(t.c.id))
        assert info.value.connection_invalidated
    with eng.connect() as c:                  # the pool handed out a new connection
        assert c.execute(sa.select(sa.func.count()).select_from(t)).scalar() == 0


def test_server_error_keeps_the_sqlcode(engine):
    eng, _ = engine
    with eng.connect() as c, pytest.raises(sa.exc.ProgrammingError) as info:
        c.exec_driver_sql("SELECT nosuch FROM orders")
    assert info.value.orig.sqlcode == -217


def test_async_engine(engine, server):
    eng, t = engine

    async def run():
        aeng = create_async_engine(
            f"informix+informix_stream_async://informix:in4mix@127.0.0.1:{server.port}/sqladb")
        try:
            async with aeng.begin() as c:
                r = await c.execute(t.insert().values(name="z", amount=7))
                key = r.inserted_primary_key[0]
                rows = (await c.execute(sa.select(t.c.name, t.c.amount))).all()
            async with aeng.connect() as c:
                streamed = [row async for row in await c.stream(sa.select(t.c.id))]
            return key, rows, streamed
        finally:
            await aeng.dispose()

    key, rows, streamed = asyncio.run(asyncio.wait_for(run(), 60))
    assert (key, rows, streamed) == (1, [("z", decimal.Decimal("7.00"))], [(1,)])


def test_emulator_reads_double_quotes_as_identifiers_under_delimident(server):
    """DELIMIDENT (which the dialect sends): "x" names, 'x' is a string
    (IBM Informix Guide to SQL: Syntax, "Delimited Identifiers")."""
    conn = informix_stream.connect(host="127.0.0.1", port=server.port, password="in4mix",
                                   database="sqladb", env={"DELIMIDENT": "y"})
    try:
        cur = conn.cursor()
        cur.execute('SELECT "tabname", \'tabname\' FROM systables WHERE tabid = 1')
        assert cur.fetchall() == [("systables", "tabname")]
    finally:
        conn.close()
