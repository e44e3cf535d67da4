"""Named ROW types in the emulator (issue 12 item 4): CREATE ROW TYPE, DROP
ROW TYPE, their sysxtdtypes/sysattrtypes rows (IBM Guide to SQL: Reference,
SYSXTDTYPES/SYSATTRTYPES, in the layout IBM's JDBC reads back in
IfxSqliConnect.loadStructInfo) and columns declared with them.  Error codes:
IBM JDBC 15.0.1.0 message catalog (sql_en_US.properties).  JDBC and
informix-driver reading such columns: tests/interop/test_composite_interop.py."""

from __future__ import annotations

from decimal import Decimal

import pytest

import informix_stream as ifx
from faults.emu import connect

pytestmark = pytest.mark.timeout(60)

PERSON = "CREATE ROW TYPE person_t (name VARCHAR(20), age INT NOT NULL, tags SET(INT NOT NULL))"


@pytest.fixture()
def cur(server):
    c = connect(server, autocommit=True)
    cur = c.cursor()
    for sql in ("DROP TABLE IF EXISTS p", "DROP TABLE IF EXISTS big",
                "DROP ROW TYPE IF EXISTS team_t RESTRICT",
                "DROP ROW TYPE IF EXISTS person_t RESTRICT"):
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


def test_our_driver_reads_named_row_columns(cur):
    """The DESCRIBE names the type (and its extended id); the driver reads
    the fields from sysattrtypes once and decodes as for unnamed ROWs."""
    cur.execute("CREATE TABLE p (id INT, who person_t)")
    cur.execute("INSERT INTO p VALUES (1, ROW('Al', 30, SET{1,2})::person_t)")
    cur.execute("INSERT INTO p VALUES (2, NULL)")
    cur.execute("INSERT INTO p VALUES (?, ?)", (3, ("Cy", 5, {7})))        # bound as a tuple
    cur.execute("INSERT INTO p VALUES (?, ?)", (4, {"name": "Di", "age": 6, "tags": set()}))
    cur.execute("SELECT who, id FROM p ORDER BY id")
    rows = cur.fetchall()
    assert rows == [(("Al", 30, {1, 2}), 1), (None, 2), (("Cy", 5, {7}), 3),
                    (("Di", 6, set()), 4)]
    assert rows[0][0].name == "Al" and rows[0][0]._fields == ("name", "age", "tags")
    assert cur.description[0][1] == 22
    dict_cur = cur.connection.cursor()
    dict_cur.composite_rows = "dict"
    dict_cur.execute("SELECT who FROM p WHERE id = 1")
    assert dict_cur.fetchall() == [({"name": "Al", "age": 30, "tags": {1, 2}},)]


def test_the_describe_carries_the_types_extended_id(cur):
    """A named ROW column is described with its type's sysxtdtypes id (as
    syscolumns.extended_id has it); ids are never reused."""
    cur.execute("CREATE TABLE p (who person_t)")
    cur.execute("SELECT extended_id FROM sysxtdtypes WHERE name = 'person_t'")
    (xid,) = cur.fetchone()
    cur.execute("SELECT extended_id FROM syscolumns WHERE colname = 'who'")
    assert cur.fetchone() == (xid,)
    prepared = cur.connection._statements.checkout("SELECT who FROM p")
    assert prepared is None or prepared.describe.columns[0].extended_id == xid
    cur.execute("DROP TABLE p")
    cur.execute("DROP ROW TYPE person_t RESTRICT")
    cur.execute(PERSON)
    cur.execute("SELECT extended_id FROM sysxtdtypes WHERE name = 'person_t'")
    assert cur.fetchone()[0] > xid + 1       # past the old type and its SET's type


def test_a_type_created_again_is_read_with_its_new_fields(cur):
    cur.execute("CREATE TABLE p (who person_t)")
    cur.execute("INSERT INTO p VALUES (ROW('Al', 30, SET{1}))")
    cur.execute("SELECT who FROM p")
    assert cur.fetchone()[0]._fields == ("name", "age", "tags")
    cur.execute("DROP TABLE p")
    cur.execute("DROP ROW TYPE person_t RESTRICT")
    cur.execute("CREATE ROW TYPE person_t (nick VARCHAR(5), score DECIMAL(5,1), n INT)")
    cur.execute("CREATE TABLE p (who person_t)")
    cur.execute("INSERT INTO p VALUES (ROW('x', 1.5, 2))")
    cur.execute("SELECT who FROM p")
    row = cur.fetchone()[0]
    assert row._fields == ("nick", "score", "n") and row == ("x", Decimal("1.5"), 2)


def test_nested_row_collection_and_opaque_fields(cur):
    cur.execute("DROP ROW TYPE IF EXISTS team_t RESTRICT")
    cur.execute("CREATE ROW TYPE team_t (title VARCHAR(10), lead ROW(name VARCHAR(9), n INT),"
                " members LIST(ROW(name VARCHAR(9), n INT) NOT NULL), flag BOOLEAN,"
                " note LVARCHAR(40))")
    try:
        cur.execute("CREATE TABLE p (t team_t)")
        cur.execute("INSERT INTO p VALUES (ROW('red', ROW('Al', 1),"
                    " LIST{ROW('Bo', 2)}, 't', 'hi'))")
        cur.execute("SELECT t FROM p")
        (team,) = cur.fetchone()
        assert team == ("red", ("Al", 1), [("Bo", 2)], True, "hi")
        assert team.lead.name == "Al" and team.members[0].n == 2
    finally:
        cur.execute("DROP TABLE IF EXISTS p")
        cur.execute("DROP ROW TYPE IF EXISTS team_t RESTRICT")


def test_the_lookup_leaves_a_streaming_cursor_alone(cur):
    """The catalog look-up is a side statement queued behind the other
    cursor's read-ahead NFETCH: that cursor still gets every row, in order."""
    conn = cur.connection
    cur.execute("CREATE TABLE big (n INT, pad CHAR(100))")
    cur.executemany("INSERT INTO big VALUES (?, 'x')", [(i,) for i in range(2000)])
    cur.execute("CREATE TABLE p (who person_t)")
    cur.execute("INSERT INTO p VALUES (ROW('Al', 30, SET{1}))")
    try:
        stream = conn.cursor(fetch_buffer_size=4096)
        stream.execute("SELECT n FROM big ORDER BY n")
        first = [stream.fetchone()[0] for _ in range(50)]      # read-ahead is out now
        other = conn.cursor()
        other.execute("SELECT who FROM p")                      # triggers the look-up
        assert other.fetchall() == [(("Al", 30, {1}),)]
        rest = [r[0] for r in stream.fetchall()]
        assert first + rest == list(range(2000))
    finally:
        cur.execute("DROP TABLE big")


@pytest.mark.parametrize("sql, code", [
    ("CREATE ROW TYPE person_t (x INT)", -9991),              # exists
    ("DROP ROW TYPE nosuch_t RESTRICT", -9992),               # not found
    ("CREATE TABLE q (x nosuch_t)", -9628),                   # column type not found
    ("DROP ROW TYPE person_t", -201),                         # RESTRICT is required
    ("CREATE ROW TYPE bad_t (a INT, a INT)", -201),
    ("CREATE ROW TYPE bad_t (a INT, b person_t)", -9999),     # not supported by the emulator
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
