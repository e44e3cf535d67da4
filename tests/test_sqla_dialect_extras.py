"""The SQLAlchemy dialect's Identity() columns and temp-table reflection
(issue 15; SQLAlchemy's IdentityAutoincrementTest and the temp-table tests
of ComponentReflectionTest)."""

from __future__ import annotations

import pytest

sa = pytest.importorskip("sqlalchemy", reason="the sqlalchemy extra is not installed")

from sqlalchemy.dialects import registry  # noqa: E402

from informix_stream.emulator.server import EmulatorServer  # noqa: E402
from informix_stream.sqlalchemy import InformixDialect_informix_stream  # noqa: E402

registry.register("informix.informix_stream", "informix_stream.sqlalchemy.sync",
                  "InformixDialect_informix_stream")


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("sqlxdb",)) as srv:
        yield srv


@pytest.fixture
def engine(server):
    eng = sa.create_engine(
        f"informix+informix_stream://informix:in4mix@127.0.0.1:{server.port}/sqlxdb",
        poolclass=sa.pool.StaticPool)
    yield eng
    eng.dispose()


def _ddl(*columns) -> str:
    t = sa.Table("t", sa.MetaData(), *columns)
    return str(sa.schema.CreateTable(t).compile(dialect=InformixDialect_informix_stream()))


@pytest.mark.parametrize("column, spelled", [
    (sa.Column("id", sa.Integer, sa.Identity(), primary_key=True), "id SERIAL NOT NULL"),
    (sa.Column("id", sa.BigInteger, sa.Identity(start=42), primary_key=True),
     "id BIGSERIAL(42) NOT NULL"),
    (sa.Column("n", sa.Integer, sa.Identity(start=1, increment=1)), "n SERIAL"),
])
def test_identity_is_spelled_serial(column, spelled):
    """Informix has no GENERATED ... AS IDENTITY: SERIAL(n) is its numbered
    column (Guide to SQL: Reference, "SERIAL(n) data type")."""
    assert spelled in _ddl(column)


@pytest.mark.parametrize("identity, named", [
    (sa.Identity(always=True), "always=True"), (sa.Identity(increment=2), "increment"),
    (sa.Identity(cycle=True), "cycle"), (sa.Identity(maxvalue=10), "maxvalue"),
])
def test_identity_options_serial_cannot_spell_are_compile_errors(identity, named):
    with pytest.raises(sa.exc.CompileError, match=named):
        _ddl(sa.Column("id", sa.Integer, identity, primary_key=True))


def test_identity_on_a_non_integer_is_a_compile_error():
    with pytest.raises(sa.exc.CompileError, match="SERIAL"):
        _ddl(sa.Column("id", sa.Numeric(10, 0), sa.Identity(), primary_key=True))


def test_identity_column_numbers_rows_and_returns_the_key(engine):
    md = sa.MetaData()
    t = sa.Table("ident_t", md, sa.Column("id", sa.Integer, sa.Identity(start=10),
                                          primary_key=True),
                 sa.Column("d", sa.String(10)))
    md.create_all(engine)
    try:
        with engine.begin() as c:
            keys = [c.execute(t.insert(), {"d": d}).inserted_primary_key[0] for d in "ab"]
            assert keys == [10, 11]
            assert c.execute(sa.select(t).order_by(t.c.id)).all() == [(10, "a"), (11, "b")]
    finally:
        md.drop_all(engine)


def test_a_temp_table_is_not_in_the_catalog_the_dialect_reflects(engine):
    """Informix keeps no catalog rows for a TEMP table (see
    tests/sqla/requirements.py, temp_table_reflection): reflection says
    there is no such table rather than answer from another table."""
    with engine.connect() as c:
        c.exec_driver_sql("CREATE TEMP TABLE tmp_refl (id INTEGER, name VARCHAR(10))")
        try:
            insp = sa.inspect(c)
            assert not insp.has_table("tmp_refl")
            assert "tmp_refl" not in insp.get_table_names()
            with pytest.raises(sa.exc.NoSuchTableError):
                insp.get_columns("tmp_refl")
            assert c.exec_driver_sql("SELECT COUNT(*) FROM tmp_refl").scalar() == 0
        finally:
            c.exec_driver_sql("DROP TABLE tmp_refl")
