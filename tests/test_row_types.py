"""Named ROW types in the emulator (issue 12 item 4): CREATE ROW TYPE, DROP
ROW TYPE, their sysxtdtypes/sysattrtypes rows (IBM Guide to SQL: Reference,
SYSXTDTYPES/SYSATTRTYPES, in the layout IBM's JDBC reads back in
IfxSqliConnect.loadStructInfo) and columns declared with them.  Error codes:
IBM JDBC 15.0.1.0 message catalog (sql_en_US.properties).  JDBC and
informix-driver reading such columns: tests/interop/test_composite_interop.py."""

from __future__ import annotations

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(60)

PERSON = "CREATE ROW TYPE person_t (name VARCHAR(20), age INT NOT NULL, tags SET(INT NOT NULL))"


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        yield srv


@pytest.fixture()
def cur(server):
    c = connect(server, autocommit=True)
    cur = c.cursor()
    for sql in ("DROP TABLE IF EXISTS p", "DROP ROW TYPE IF EXISTS person_t RESTRICT"):
        cur.execute(sql)
    cur.execute(PERSON)
    yield cur
    c.close()


def _code(cur, sql: str) -> int:
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(sql)
    return info.value.sqlcode


def test_catalog_rows_as_a_server_keeps_them(cur):
    cur.execute("SELECT extended_id, mode, owner, name, type FROM sysxtdtypes"
                " ORDER BY extended_id")
    (row_id, *row), (set_id, *coll) = cur.fetchall()
    assert row == ["R", "informix", "person_t", 22]
    assert coll == ["C", "informix", "set(integer not null)", 19]
    cur.execute("SELECT extended_id, seqno, levelno, parent_no, fieldname, fieldno, type,"
                " length, xtd_type_id FROM sysattrtypes ORDER BY extended_id, seqno")
    assert cur.fetchall() == [
        (row_id, 1, 0, 0, None, 0, 22 | 0x1000, 0, row_id),     # the type itself
        (row_id, 2, 1, 1, "name", 1, 13, 20, 0),
        (row_id, 3, 1, 1, "age", 2, 2 | 0x100, 4, 0),            # NOT NULL field
        (row_id, 4, 1, 1, "tags", 3, 19, 0, set_id),             # its own unnamed type
        (set_id, 1, 0, 0, None, 0, 19, 0, set_id),
        (set_id, 2, 1, 1, None, 1, 2 | 0x100, 4, 0),
    ]


def test_column_of_a_named_row_type_stores_and_checks_values(cur):
    cur.execute("CREATE TABLE p (id INT, who person_t)")
    cur.execute("INSERT INTO p VALUES (1, ROW('Al', 30, SET{1,2})::person_t)")
    cur.execute("INSERT INTO p VALUES (2, ROW('Bo', 31, SET{}))")
    cur.execute("INSERT INTO p VALUES (3, NULL)")
    cur.execute("SELECT coltype FROM syscolumns WHERE colname = 'who'")
    assert cur.fetchall() == [(4118,)]              # ROW (named), IBM SYSCOLUMNS
    assert _code(cur, "INSERT INTO p VALUES (9, ROW('Cy'))") == -9989
    assert _code(cur, "INSERT INTO p VALUES (9, SET{1})") == -9634   # no cast to a ROW
    cur.execute("SELECT count(*) FROM p")
    assert cur.fetchone() == (3,)


def test_our_driver_refuses_named_row_columns_loudly(cur):
    """A DESCRIBE carries only the type's name; the driver does not read
    sysattrtypes yet, so it refuses rather than guess the fields."""
    cur.execute("CREATE TABLE p (id INT, who person_t)")
    cur.execute("INSERT INTO p VALUES (1, ROW('Al', 30, SET{1}))")
    with pytest.raises(ifx.NotSupportedError, match="person_t"):
        cur.execute("SELECT who FROM p")
    cur.execute("SELECT id FROM p")                   # the connection stays usable
    assert cur.fetchall() == [(1,)]


@pytest.mark.parametrize("sql, code", [
    ("CREATE ROW TYPE person_t (x INT)", -9991),              # exists
    ("DROP ROW TYPE nosuch_t RESTRICT", -9992),               # not found
    ("CREATE TABLE q (x nosuch_t)", -9628),                   # column type not found
    ("DROP ROW TYPE person_t", -201),                         # RESTRICT is required
    ("CREATE ROW TYPE bad_t (a INT, a INT)", -201),
])
def test_errors_are_the_servers(cur, sql, code):
    assert _code(cur, sql) == code


def test_drop_is_refused_while_a_column_uses_the_type(cur):
    cur.execute("CREATE TABLE p (id INT, who person_t)")
    assert _code(cur, "DROP ROW TYPE person_t RESTRICT") == -9990
    cur.execute("DROP TABLE p")
    cur.execute("DROP ROW TYPE person_t RESTRICT")
    cur.execute("SELECT count(*) FROM sysxtdtypes")
    assert cur.fetchone() == (0,)
    cur.execute("SELECT count(*) FROM sysattrtypes")
    assert cur.fetchone() == (0,)
    cur.execute("CREATE ROW TYPE IF NOT EXISTS person_t (x INT)")
    cur.execute("CREATE ROW TYPE IF NOT EXISTS person_t (y INT)")     # no error, no change
    cur.execute("SELECT fieldname FROM sysattrtypes WHERE seqno = 2")
    assert cur.fetchall() == [("x",)]


@pytest.mark.parametrize("sql", [
    "CREATE ROW TYPE emp_t (salary INT) UNDER person_t",      # inheritance
    "INSERT INTO p VALUES (1, ROW('Al', 30, SET{1})::other_t)",
])
def test_valid_sql_the_emulator_lacks_says_so(cur, sql):
    cur.execute("CREATE TABLE p (id INT, who person_t)")
    with pytest.raises(ifx.DatabaseError, match="not supported by the emulator"):
        cur.execute(sql)
