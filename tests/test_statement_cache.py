"""Prepared statements kept per connection: re-execution skips PREPARE, a
kept statement is never shared by two live cursors, DDL and -710 make it
prepare again, and eviction releases it on the server."""

from __future__ import annotations

import pytest

import informix_stream as ifx
from informix_stream.messages import Command, Tag
from test_driver import connect, private, unique  # noqa: F401 - private is a fixture


def prepares(rec, start: int) -> int:
    return sum(1 for req in rec.messages(start) for m in req
               if isinstance(m, Command) and m.tag == Tag.PREPARE)


def releases(rec, start: int) -> int:
    return sum(1 for req in rec.messages(start) for m in req if m is Tag.RELEASE)


def test_re_execution_skips_prepare(private):
    c = connect(private, autocommit=True)
    t = unique("sc")
    cur = c.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER, v VARCHAR(10))")
    start = len(private.rec)
    for i in range(20):
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (i, f"v{i}"))
        cur.execute(f"SELECT v FROM {t} WHERE id = ?", (i,))
        assert cur.fetchall() == [(f"v{i}",)]
    assert prepares(private.rec, start) == 2
    assert releases(private.rec, start) == 0
    c.close()


def test_two_live_cursors_on_the_same_sql_get_their_own_statements(private):
    c = connect(private, autocommit=True, fetch_buffer_size=128)
    t = unique("sc")
    cur = c.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER)")
    cur.executemany(f"INSERT INTO {t} VALUES (?)", [(i,) for i in range(300)])
    sql = f"SELECT id FROM {t} WHERE id >= ? ORDER BY id"
    a, b = c.cursor(), c.cursor()
    a.execute(sql, (0,))
    b.execute(sql, (100,))
    got_a, got_b = [], []
    for _ in range(200):
        got_a.append(a.fetchone()[0])
        got_b.append(b.fetchone()[0])
    assert got_a == list(range(200)) and got_b == list(range(100, 300))
    a.close()
    b.close()
    a = c.cursor()
    a.execute(sql, (299,))
    assert a.fetchall() == [(299,)]
    c.close()


def test_ddl_and_a_stale_statement_prepare_again(private, ifx_target):
    c = connect(private, autocommit=True)
    t = unique("sc")
    cur = c.cursor()
    cur.execute(f"CREATE TABLE {t} (a INTEGER, b INTEGER)")
    cur.execute(f"INSERT INTO {t} VALUES (1, 2)")
    cur.execute(f"SELECT * FROM {t}")
    assert cur.fetchall() == [(1, 2)]
    # Another session recreates the table with its columns swapped and typed
    # differently: the kept statement must not decode the new rows with the
    # old description.
    other = ifx.connect(host=private.host, port=private.port, password="in4mix",
                        database="testdb", autocommit=True)
    oc = other.cursor()
    oc.execute(f"DROP TABLE {t}")
    oc.execute(f"CREATE TABLE {t} (b VARCHAR(5), a INTEGER)")
    oc.execute(f"INSERT INTO {t} VALUES ('x', 7)")
    other.close()
    start = len(private.rec)
    cur.execute(f"SELECT * FROM {t}")
    assert cur.fetchall() == [("x", 7)]
    assert cur.description[0][0] == "b"
    assert prepares(private.rec, start) == 1          # after the server's -710
    # DDL on this connection empties the cache
    cur.execute(f"CREATE TABLE {t}_2 (z INTEGER)")
    start = len(private.rec)
    cur.execute(f"SELECT * FROM {t}")
    assert cur.fetchall() == [("x", 7)]
    assert prepares(private.rec, start) == 1
    c.close()


def test_eviction_releases_least_recently_used(private):
    c = connect(private, autocommit=True, prepare_cache_size=2)
    cur = c.cursor()
    start = len(private.rec)
    for i in range(5):
        cur.execute(f"SELECT {i} FROM systables WHERE tabid = 1")
        assert cur.fetchall() == [(i,)]
    cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = 1")   # carries the releases
    assert releases(private.rec, start) == 3
    assert c._statements.hits == 0
    cur.execute("SELECT 4 FROM systables WHERE tabid = 1")
    assert cur.fetchall() == [(4,)]
    assert c._statements.hits == 1
    c.close()


def test_a_failing_kept_statement_stays_usable(private):
    c = connect(private, autocommit=True)
    t = unique("sc")
    cur = c.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY)")
    sql = f"INSERT INTO {t} VALUES (?)"
    cur.execute(sql, (1,))
    with pytest.raises(ifx.IntegrityError):
        cur.execute(sql, (1,))
    cur.execute(sql, (2,))
    cur.execute(f"SELECT COUNT(*) FROM {t}")
    assert cur.fetchone() == (2,)
    c.close()


def test_cache_off(private):
    c = connect(private, autocommit=True, prepare_cache_size=0)
    cur = c.cursor()
    start = len(private.rec)
    for _ in range(3):
        cur.execute("SELECT 1 FROM systables WHERE tabid = 1")
        cur.fetchall()
    assert prepares(private.rec, start) == 3
    c.close()
