"""TEMP tables as Informix has them (issue 11 item 1).

What a real server does (IBM Informix Guide to SQL: Syntax, "CREATE TEMP
TABLE" and "Declaring a name for a temporary table"): a temp table belongs
to the session that made it; another session may make one of the same name;
in its session it takes precedence over a permanent table of the same name;
it is not listed in the database's systables; it is dropped when the session
ends.  ``SELECT ... INTO TEMP`` makes one from a query (sqlstype SQ_SELINTO).
Each behaviour is checked with this driver and with informix-driver, whose
authors test it against real servers.
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from informix_stream.emulator.engine import Engine
from test_driver import connect, theirs, unique


@pytest.fixture
def two(ifx_target):
    a, b = connect(ifx_target, autocommit=True), connect(ifx_target, autocommit=True)
    yield a.cursor(), b.cursor()
    a.close()
    b.close()


def rows(cur, sql, params=()):
    cur.execute(sql, params)
    return cur.fetchall()


def test_temp_table_is_private_and_shadows_a_permanent_one(two):
    a, b = two
    t = unique("shadow")
    a.execute(f"CREATE TABLE {t} (id INTEGER, name VARCHAR(10))")
    a.execute(f"INSERT INTO {t} VALUES (1, 'permanent')")
    assert rows(a, f"SELECT * FROM {t}") == [(1, "permanent")]    # prepared and kept
    a.execute(f"CREATE TEMP TABLE {t} (id INTEGER, note VARCHAR(10)) WITH NO LOG")
    a.execute(f"INSERT INTO {t} VALUES (2, 'temp')")
    assert rows(a, f"SELECT * FROM {t}") == [(2, "temp")]
    assert [d[0] for d in a.description] == ["id", "note"]
    assert rows(a, f"SELECT {t}.note FROM {t} WHERE {t}.id = 2") == [("temp",)]
    assert rows(b, f"SELECT * FROM {t}") == [(1, "permanent")]     # b sees the permanent one
    b.execute(f"CREATE TEMP TABLE {t} (x INTEGER)")                 # same name, no clash
    b.execute(f"INSERT INTO {t} VALUES (42)")
    assert rows(b, f"SELECT x FROM {t}") == [(42,)]
    assert rows(a, f"SELECT * FROM {t}") == [(2, "temp")]
    a.execute(f"UPDATE {t} SET note = 'changed' WHERE {t}.id = 2")
    assert a.rowcount == 1
    a.execute(f"DROP TABLE {t}")                                     # the temp one
    assert rows(a, f"SELECT * FROM {t}") == [(1, "permanent")]
    a.execute(f"DROP TABLE {t}")


def test_temp_table_is_not_in_systables_and_is_dropped_with_the_session(ifx_target):
    name = unique("gone")
    c = connect(ifx_target, autocommit=True)
    cur = c.cursor()
    cur.execute(f"CREATE TEMP TABLE {name} (id SERIAL, v INTEGER)")
    cur.execute(f"INSERT INTO {name} (v) VALUES (7)")
    assert rows(cur, f"SELECT id, v FROM {name}") == [(1, 7)]
    assert rows(cur, "SELECT count(*) FROM systables WHERE tabname = ?", (name,)) == [(0,)]
    c.close()
    other = connect(ifx_target, autocommit=True).cursor()
    with pytest.raises(ifx.ProgrammingError) as info:
        other.execute(f"SELECT * FROM {name}")
    assert info.value.sqlcode == -206
    assert name in str(info.value)          # its own name, not the emulator's storage name
    other.connection.close()


def test_select_into_temp(two):
    a, b = two
    src, tmp = unique("src"), unique("tmp")
    a.execute(f"CREATE TABLE {src} (id INTEGER, amount DECIMAL(12,2))")
    a.executemany(f"INSERT INTO {src} VALUES (?, ?)", [(i, i * 1.5) for i in range(1, 11)])
    a.execute(f"SELECT id, amount FROM {src} WHERE id > ? INTO TEMP {tmp} WITH NO LOG", (7,))
    assert a.rowcount == 3
    assert rows(a, f"SELECT id FROM {tmp} ORDER BY id") == [(8,), (9,), (10,)]
    assert [d[1] for d in rows_description(a, f"SELECT * FROM {tmp}")] == \
        [ifx.NUMBER, ifx.NUMBER]
    with pytest.raises(ifx.ProgrammingError):
        b.execute(f"SELECT * FROM {tmp}")
    with pytest.raises(ifx.ProgrammingError) as info:          # the name is taken
        a.execute(f"SELECT id FROM {src} INTO TEMP {tmp}")
    assert info.value.sqlcode == -958     # a temp table's own code, not -310
    a.execute(f"DROP TABLE {src}")


def rows_description(cur, sql):
    cur.execute(sql)
    cur.fetchall()
    return cur.description


def test_temp_table_created_in_a_rolled_back_transaction_is_gone(ifx_target):
    c = connect(ifx_target)
    cur = c.cursor()
    t = unique("txtemp")
    cur.execute(f"CREATE TEMP TABLE {t} (id INTEGER)")
    cur.execute(f"INSERT INTO {t} VALUES (1)")
    c.rollback()
    with pytest.raises(ifx.ProgrammingError) as info:
        cur.execute(f"SELECT * FROM {t}")
    assert info.value.sqlcode == -206
    c.close()


def test_index_on_a_temp_table_and_its_unique_constraint(two):
    a, b = two
    t = unique("tidx")
    a.execute(f"CREATE TEMP TABLE {t} (id INTEGER, UNIQUE (id))")
    a.execute(f"CREATE INDEX ix_{t} ON {t} (id)")
    b.execute(f"CREATE TEMP TABLE {t} (id INTEGER)")
    b.execute(f"CREATE INDEX ix_{t} ON {t} (id)")             # index names are per session too
    a.execute(f"INSERT INTO {t} VALUES (1)")
    with pytest.raises(ifx.IntegrityError):
        a.execute(f"INSERT INTO {t} VALUES (1)")
    a.execute(f"DROP INDEX ix_{t}")
    assert rows(b, f"SELECT count(*) FROM {t}") == [(0,)]


def test_informix_driver_uses_temp_tables_the_same_way(ifx_target):
    """informix-driver (tested by its authors on Informix 12.10-15) creates,
    fills and reads a temp table and a SELECT INTO TEMP result."""
    conn = theirs(ifx_target, autocommit=True)
    cur = conn.cursor()
    t, into = unique("jt"), unique("jinto")
    cur.execute(f"CREATE TEMP TABLE {t} (id INTEGER, name VARCHAR(20))")
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (1, "one"))
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (2, "two"))
    cur.execute(f"SELECT id, name FROM {t} WHERE id = 2 INTO TEMP {into}")
    cur.execute(f"SELECT name FROM {into}")
    assert cur.fetchall() == [("two",)]
    conn.close()


def test_storage_of_an_unclosed_session_is_dropped_when_the_database_opens(tmp_path):
    """An emulator that stopped without closing a session left the temp
    table's storage in the database file; the next start removes it."""
    engine = Engine(["testdb"], data_dir=tmp_path)
    closed = engine.connect("testdb")
    closed.execute(closed.prepare("CREATE TEMP TABLE dropped (id INTEGER)"))
    closed.close()
    s = engine.connect("testdb")
    s.execute(s.prepare("CREATE TEMP TABLE left_over (id INTEGER)"))
    assert [n for (n,) in engine.databases.get("testdb").keeper.execute(
        "SELECT name FROM sqlite_master WHERE name LIKE '%dropped%' OR name LIKE '%left%'")] \
        == ["_ifx_tmp2_left_over"]
    engine.databases.get("testdb").keeper.close()        # stop without closing the session
    engine = Engine(["testdb"], data_dir=tmp_path)
    names = [n for (n,) in engine.databases.get("testdb").keeper.execute(
        "SELECT name FROM sqlite_master WHERE name LIKE '%left_over%'")]
    assert names == []
    engine.close()


# -- temp tables made by SPL routines (issue 11) --------------------------------
# IBM, Guide to SQL: Syntax, "Duration of temporary tables" (ids_sqs_0583): a
# temporary table lasts until the application disconnects, DROP TABLE drops
# it or the database is closed; nothing there (nor in "SQL Statements Valid
# in SPL Statement Blocks", ids_sqs_1752, which allows SELECT ... INTO TEMP
# in a routine) ends it with the routine that made it.  Temp tables are
# logged and "support ... rollback" (Administrator's Guide, "Temp tables",
# ids_admin_0515), so a ROLLBACK undoes a CREATE TEMP TABLE as it undoes
# other logged DDL.  IBM says nothing about a WITH NO LOG table's CREATE in
# a rolled-back transaction ("Using the WITH NO LOG option", ids_sqs_0575,
# speaks of DML only): the emulator treats both alike and that is left.

_SPL_FORMS = {
    "create": "CREATE TEMP TABLE {t} (a INTEGER); INSERT INTO {t} VALUES (5);",
    "into_temp": "SELECT a FROM {src} INTO TEMP {t};",
}


def _spl_maker(cur, form: str) -> tuple[str, str, str]:
    """A procedure making a temp table by ``form``: (procedure, table, source)."""
    proc, t, src = unique("mkp"), unique("spltmp"), unique("splsrc")
    cur.execute(f"CREATE TABLE {src} (a INTEGER)")
    cur.execute(f"INSERT INTO {src} VALUES (5)")
    body = _SPL_FORMS[form].format(t=t, src=src)
    cur.execute(f"CREATE PROCEDURE {proc}() {body} END PROCEDURE")
    return proc, t, src


@pytest.mark.parametrize("form", sorted(_SPL_FORMS))
def test_a_temp_table_made_in_a_procedure_outlives_the_call(two, form):
    a, b = two
    proc, t, src = _spl_maker(a, form)
    a.execute(f"EXECUTE PROCEDURE {proc}()")
    assert rows(a, f"SELECT a FROM {t}") == [(5,)]
    with pytest.raises(ifx.ProgrammingError) as info:       # still the session's own
        b.execute(f"SELECT * FROM {t}")
    assert info.value.sqlcode == -206
    with pytest.raises(ifx.ProgrammingError):                # a second call finds it there
        a.execute(f"EXECUTE PROCEDURE {proc}()")
    a.execute(f"DROP TABLE {t}")
    a.execute(f"EXECUTE PROCEDURE {proc}()")                 # dropped: made again
    assert rows(a, f"SELECT a FROM {t}") == [(5,)]
    a.execute(f"DROP PROCEDURE {proc}")
    a.execute(f"DROP TABLE {src}")


@pytest.mark.parametrize("form", sorted(_SPL_FORMS))
def test_a_temp_table_made_in_a_procedure_goes_with_a_rollback(ifx_target, form):
    setup = connect(ifx_target, autocommit=True)
    proc, t, src = _spl_maker(setup.cursor(), form)
    c = connect(ifx_target)
    try:
        cur = c.cursor()
        cur.execute(f"EXECUTE PROCEDURE {proc}()")
        assert rows(cur, f"SELECT a FROM {t}") == [(5,)]
        c.rollback()
        with pytest.raises(ifx.ProgrammingError) as info:
            cur.execute(f"SELECT * FROM {t}")
        assert info.value.sqlcode == -206
        cur.execute(f"EXECUTE PROCEDURE {proc}()")           # the name is free again
        c.commit()
        assert rows(cur, f"SELECT a FROM {t}") == [(5,)]
    finally:
        c.close()
        setup.cursor().execute(f"DROP PROCEDURE {proc}")
        setup.cursor().execute(f"DROP TABLE {src}")
        setup.close()


def test_a_temp_table_made_in_a_procedure_goes_with_the_session(ifx_target):
    c = connect(ifx_target, autocommit=True)
    proc, t, src = _spl_maker(c.cursor(), "into_temp")
    c.cursor().execute(f"EXECUTE PROCEDURE {proc}()")
    c.close()
    other = connect(ifx_target, autocommit=True)
    try:
        cur = other.cursor()
        cur.execute(f"EXECUTE PROCEDURE {proc}()")           # a new session: made afresh
        assert rows(cur, f"SELECT a FROM {t}") == [(5,)]
        cur.execute(f"DROP PROCEDURE {proc}")
        cur.execute(f"DROP TABLE {src}")
    finally:
        other.close()
