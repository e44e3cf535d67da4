"""Adversary: the per-connection cache of named ROW types' fields
(core/named_rows.py) must never answer with a stale definition, whoever
changed the schema (this connection, another one, a transaction that was
rolled back) and however the connection was reached (a kept statement, a
pool).  Each test changes the type so a stale cache would give the wrong
field names or values without any error (same field types, other order)."""

from __future__ import annotations

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, PASSWORD, SERVER, USER, connect
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(60)


@pytest.fixture()
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        yield srv


def _one(cur, sql: str):
    cur.execute(sql)
    (value,) = cur.fetchone()
    return value


def _recreate(cur, fields: str, row: str) -> None:
    for sql in ("DROP TABLE IF EXISTS p", "DROP ROW TYPE IF EXISTS pair_t RESTRICT",
                f"CREATE ROW TYPE pair_t ({fields})", "CREATE TABLE p (id INT, v pair_t)",
                f"INSERT INTO p VALUES (1, ROW{row})"):
        cur.execute(sql)


def test_a_type_created_in_a_rolled_back_transaction_is_not_read_again(server):
    """Found by this suite: the emulator gave the type created after a
    ROLLBACK the extended id of the rolled-back one (its high-water mark was
    undone with the transaction), so the driver, which keeps fields by id,
    read (b, a) as (a, b): names swapped, no error.  A SERIAL never hands a
    number out twice, rollback or not."""
    conn = connect(server)                       # a transaction is open from the start
    cur = conn.cursor()
    _recreate(cur, "a INT, b INT", "(1, 2)")
    first = _one(cur, "SELECT v FROM p")
    assert first._fields == ("a", "b") and first == (1, 2)
    conn.rollback()
    _recreate(cur, "b INT, a INT", "(20, 10)")
    again = _one(cur, "SELECT v FROM p")
    assert again._fields == ("b", "a") and again.b == 20 and again.a == 10
    conn.close()


def test_another_connection_changes_the_type_under_a_kept_statement(server):
    a, b = connect(server, autocommit=True), connect(server, autocommit=True)
    ca, cb = a.cursor(), b.cursor()
    _recreate(cb, "a INT, b INT", "(1, 2)")
    assert _one(ca, "SELECT v FROM p")._fields == ("a", "b")      # kept on a, fields cached
    _recreate(cb, "b INT, a INT", "(20, 10)")
    row = _one(ca, "SELECT v FROM p")                              # the same SQL text
    assert row._fields == ("b", "a") and (row.a, row.b) == (10, 20)
    a.close(), b.close()


def test_a_streaming_cursor_keeps_its_fields_while_the_type_is_recreated(server):
    """A cursor that started reading keeps the fields it was opened with
    while another connection drops and recreates the table and the type
    with the fields swapped: every later row is one of the rows it was
    opened on, with their own names (or the change is refused)."""
    a, b = connect(server, autocommit=True), connect(server, autocommit=True)
    cb = b.cursor()
    _recreate(cb, "a INT, b INT", "(1, -1)")
    cb.executemany("INSERT INTO p VALUES (?, ?)", [(i, (i, -i)) for i in range(2, 400)])
    stream = a.cursor(fetch_buffer_size=512)
    stream.execute("SELECT id, v FROM p ORDER BY id")
    head = [stream.fetchone() for _ in range(3)]
    try:
        _recreate(cb, "b INT, a INT", "(-1, 1)")
        cb.executemany("INSERT INTO p VALUES (?, ?)", [(i, (-i, i)) for i in range(2, 400)])
    except ifx.DatabaseError:
        pass                                    # refused while the table is read: fine
    rows = head + stream.fetchall()
    assert [i for i, _ in rows] == list(range(1, 400))
    assert all(v._fields == ("a", "b") and (v.a, v.b) == (i, -i) for i, v in rows)
    a.close(), b.close()


def test_a_pooled_connection_reads_the_type_as_it_is_now(server):
    with ifx.ConnectionPool(min_size=1, max_size=1, host=server.host, port=server.port,
                            user=USER, password=PASSWORD, database=DATABASE,
                            server=SERVER, autocommit=True) as pool:
        other = connect(server, autocommit=True)
        _recreate(other.cursor(), "a INT, b INT", "(1, 2)")
        with pool.connection() as conn:
            assert _one(conn.cursor(), "SELECT v FROM p")._fields == ("a", "b")
        _recreate(other.cursor(), "b INT, a INT", "(20, 10)")
        with pool.connection() as conn:
            row = _one(conn.cursor(), "SELECT v FROM p")
            assert row._fields == ("b", "a") and (row.a, row.b) == (10, 20)
        other.close()


def test_the_same_name_in_another_database_is_another_type(server):
    """The cache is per database: after DATABASE otherdb the same name (and
    the same extended id: ids are per database) has other fields."""
    conn = connect(server, autocommit=True)
    cur = conn.cursor()
    _recreate(cur, "a INT, b INT", "(1, 2)")
    assert _one(cur, "SELECT v FROM p")._fields == ("a", "b")
    try:
        cur.execute("CREATE DATABASE adv_other WITH LOG")
    except ifx.DatabaseError as exc:
        pytest.skip(f"the emulator cannot create a database here: {exc}")
    _recreate(cur, "b INT, a INT", "(20, 10)")
    row = _one(cur, "SELECT v FROM p")
    assert row._fields == ("b", "a") and (row.a, row.b) == (10, 20)
    cur.execute(f"DATABASE {DATABASE}")
    row = _one(cur, "SELECT v FROM p")
    assert row._fields == ("a", "b") and (row.a, row.b) == (1, 2)
    conn.close()


def test_found_by_name_another_connections_change_is_seen(server, monkeypatch):
    """Found by this suite: when a DESCRIBE names the type without its id
    (the by-name path of core/named_rows.py), a change made on another
    connection ran no statement here that dropped the name entry, so a
    pooled connection read (b, a) as (a, b): the fields are now looked up
    again for each newly prepared statement."""
    from informix_stream.core import named_rows
    real = named_rows.named_columns
    monkeypatch.setattr(named_rows, "named_columns",
                        lambda prepared: [(i, 0, n) for i, _, n in real(prepared)])
    with ifx.ConnectionPool(min_size=1, max_size=1, host=server.host, port=server.port,
                            user=USER, password=PASSWORD, database=DATABASE,
                            server=SERVER, autocommit=True) as pool:
        other = connect(server, autocommit=True)
        _recreate(other.cursor(), "a INT, b INT", "(1, 2)")
        with pool.connection() as conn:
            assert _one(conn.cursor(), "SELECT v FROM p")._fields == ("a", "b")
        _recreate(other.cursor(), "b INT, a INT", "(20, 10)")
        with pool.connection() as conn:
            row = _one(conn.cursor(), "SELECT v FROM p WHERE id = 1")
            assert row._fields == ("b", "a") and (row.a, row.b) == (10, 20)
        other.close()
