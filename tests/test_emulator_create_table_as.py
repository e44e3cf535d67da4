"""CREATE TABLE ... AS SELECT (IBM Informix 12.10 Guide to SQL: Syntax,
CREATE TABLE, "AS SELECT clause", ids_sqs_0403): a new permanent table with
the query's columns (or the names listed after the table's), filled with its
rows; IF NOT EXISTS leaves an existing table alone; the syntax has no TEMP
(SELECT ... INTO TEMP is that)."""

from __future__ import annotations

import pytest

import informix_stream as ifx
from test_driver import connect, theirs, unique


@pytest.fixture
def src(ifx_target):
    con = connect(ifx_target, autocommit=True)
    cur = con.cursor()
    t = unique("src")
    cur.execute(f"CREATE TABLE {t} (id INTEGER, name VARCHAR(50), value INTEGER)")
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)",
                    [(1, "alice", 100), (2, "bob", 200), (3, "charlie", 300)])
    yield con, cur, t
    con.close()


def test_table_from_a_query_has_its_columns_and_rows(src):
    _, cur, t = src
    d = unique("dest")
    cur.execute(f"CREATE TABLE {d} AS SELECT {t}.id, {t}.name \nFROM {t} WHERE {t}.value > 100")
    assert cur.rowcount == 2
    cur.execute(f"SELECT * FROM {d} ORDER BY id")
    assert cur.fetchall() == [(2, "bob"), (3, "charlie")]
    cur.execute("SELECT c.colname, c.coltype, c.collength FROM syscolumns c, systables s "
                "WHERE s.tabid = c.tabid AND s.tabname = ? ORDER BY c.colno", (d,))
    assert cur.fetchall() == [("id", 2, 4), ("name", 13, 50)]
    cur.execute(f"INSERT INTO {d} VALUES (9, 'new')")       # an ordinary table after
    cur.execute(f"SELECT COUNT(*) FROM {d}")
    assert cur.fetchone() == (3,)


def test_column_list_names_computed_columns_and_parameters_bind(src):
    _, cur, t = src
    d = unique("dest")
    cur.execute(f"CREATE TABLE {d} (a, b) AS SELECT id * 2, name || '!' FROM {t} "
                "WHERE value > ?", (150,))
    cur.execute(f"SELECT a, b FROM {d} ORDER BY a")
    assert cur.fetchall() == [(4, "bob!"), (6, "charlie!")]


def test_if_not_exists_leaves_the_table_and_its_rows(src):
    _, cur, t = src
    d = unique("dest")
    cur.execute(f"CREATE TABLE {d} AS SELECT id FROM {t} WHERE id = 1")
    cur.execute(f"CREATE TABLE IF NOT EXISTS {d} AS SELECT id FROM {t}")
    cur.execute(f"SELECT COUNT(*) FROM {d}")
    assert cur.fetchone() == (1,)
    with pytest.raises(ifx.ProgrammingError) as info:
        cur.execute(f"CREATE TABLE {d} AS SELECT id FROM {t}")
    assert info.value.sqlcode == -310


@pytest.mark.parametrize("tail", [
    "AS SELECT id * 2 FROM {t}",             # an expression needs a name
    "(x) AS SELECT id, name FROM {t}",       # the column list does not match
])
def test_unnamed_or_miscounted_columns_are_refused(src, tail):
    _, cur, t = src
    with pytest.raises(ifx.ProgrammingError) as info:
        cur.execute(f"CREATE TABLE {unique('dest')} " + tail.format(t=t))
    assert info.value.sqlcode == -201


def test_temp_table_as_select_is_a_syntax_error(src):
    _, cur, t = src
    with pytest.raises(ifx.ProgrammingError) as info:
        cur.execute(f"CREATE TEMP TABLE {unique('tmp')} AS SELECT id FROM {t}")
    assert info.value.sqlcode == -201


def test_rolled_back_with_its_transaction(ifx_target, src):
    _, _, t = src
    con = connect(ifx_target)
    try:
        cur = con.cursor()
        d = unique("dest")
        cur.execute(f"CREATE TABLE {d} AS SELECT id FROM {t}")
        con.rollback()
        cur.execute("SELECT COUNT(*) FROM systables WHERE tabname = ?", (d,))
        assert cur.fetchone() == (0,)
    finally:
        con.close()


def test_informix_driver_runs_it(ifx_target, src):
    _, _, t = src
    d = unique("dest")
    con = theirs(ifx_target, autocommit=True)
    try:
        c = con.cursor()
        c.execute(f"CREATE TABLE {d} AS SELECT name FROM {t} WHERE id > 1")
        c.execute(f"SELECT name FROM {d} ORDER BY name")
        assert c.fetchall() == [("bob",), ("charlie",)]
    finally:
        con.close()
