"""executemany on statements the connection keeps (issue 15's ORM bulk path).

SQLAlchemy's ORM splits a bulk insert into many small executemany calls (a
new batch whenever a row's set of non-NULL keys changes), so the fixed cost
of a call matters: a repeated call reuses the kept INSERT and executemany's
own SAVEPOINT statement and costs one round trip.  Here: that round-trip
count, the rows it stores on both send paths, the kept statement going stale
(-710) -- prepared again and every row sent again, exactly once -- and the
error contract on a kept statement.
"""

from __future__ import annotations

import asyncio

import pytest

import informix_stream as ifx
from informix_stream.messages import Command, Tag
from test_driver import connect, private, unique  # noqa: F401 - private is a fixture


def prepares(rec, start: int) -> int:
    return sum(1 for req in rec.messages(start) for m in req
               if isinstance(m, Command) and m.tag == Tag.PREPARE)


def count_round_trips(c: ifx.Connection) -> list[int]:
    """Counts each time the client sends what it queued and then waits:
    one flush of requests is one round trip (a pipelined chunk is one)."""
    io, flush, seen = c._io, c._io._flush, [0]

    def counted() -> None:
        if io.session.data_to_send():
            seen[0] += 1
        flush()
    io._flush = counted
    return seen


def table(cur) -> str:
    t = unique("kept")
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, name VARCHAR(20))")
    return t


def ids(cur, t: str) -> list[int]:
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    return [r[0] for r in cur.fetchall()]


def other_session(private) -> ifx.Connection:
    return ifx.connect(host=private.host, port=private.port, password="in4mix",
                       database="testdb", autocommit=True, read_timeout=60)


@pytest.mark.parametrize("put", [True, False], ids=["insert-cursor", "bind-execute"])
def test_a_repeated_small_executemany_costs_one_round_trip(private, put):
    c = connect(private)                           # a transaction: savepoint per chunk
    cur = c.cursor()
    t = table(cur)
    c.commit()
    sql = f"INSERT INTO {t} VALUES (?, ?)"
    cur.executemany(sql, [(0, "a")], insert_cursor=put)    # prepares and keeps
    start = len(private.rec)
    trips = count_round_trips(c)
    for call in range(1, 21):
        cur.executemany(sql, [(call * 10 + i, "b") for i in range(9)], insert_cursor=put)
        assert cur.rowcount == 9
    assert trips[0] == 20
    assert prepares(private.rec, start) == 0
    if put:
        # per call one request, OPEN+PUT: a one-request chunk needs no
        # savepoint, and the last call's CLOSE of the insert cursor rides in
        # front of it, never alone
        assert len(private.rec) - start == 20
    c.commit()
    assert ids(cur, t) == [0] + [call * 10 + i for call in range(1, 21) for i in range(9)]
    c.close()


def test_named_markers_and_execute_share_the_kept_statement(private):
    c = connect(private, autocommit=True)
    cur = c.cursor()
    t = table(cur)
    sql = f"INSERT INTO {t} VALUES (:id, :name)"
    cur.executemany(sql, [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}])
    start = len(private.rec)
    cur.execute(sql, {"id": 3, "name": "c"})
    cur.executemany(sql, [{"id": 4, "name": "d"}])
    positional = f"INSERT INTO {t} VALUES (?, ?)"
    cur.executemany(positional, [(5, "e"), (6, "f")])     # the insert cursor
    cur.execute(positional, (7, "g"))                      # after its CLOSE
    cur.executemany(positional, [(8, "h")])
    # ":id, :name" is sent as "?, ?": one statement text, kept since the first call
    assert prepares(private.rec, start) == 0
    assert ids(cur, t) == list(range(1, 9))
    c.close()


@pytest.mark.parametrize("autocommit", [True, False])
@pytest.mark.parametrize("put", [True, False], ids=["insert-cursor", "bind-execute"])
@pytest.mark.parametrize("batch_errors", [False, True])
def test_a_stale_kept_statement_is_prepared_again_and_no_row_twice(private, autocommit,
                                                                  put, batch_errors):
    c = connect(private, autocommit=autocommit)
    cur = c.cursor()
    t = unique("stale")
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, name VARCHAR(20))")
    c.commit()
    sql = f"INSERT INTO {t} VALUES (?, ?)"
    cur.executemany(sql, [(0, "a")], insert_cursor=put, batch_errors=batch_errors)
    c.commit()
    # another session swaps the columns' order and types: the kept INSERT
    # must not put the old row images into the new table
    with other_session(private) as other:
        oc = other.cursor()
        oc.execute(f"DROP TABLE {t}")
        oc.execute(f"CREATE TABLE {t} (name VARCHAR(20), id INTEGER PRIMARY KEY)")
    start = len(private.rec)
    rows = [(f"n{i}", i) for i in range(1, 40)]
    cur.executemany(sql, rows, insert_cursor=put, batch_errors=batch_errors, chunk_size=16)
    assert cur.rowcount == 39
    assert not cur.batch_errors
    assert prepares(private.rec, start) == 1
    c.commit()
    cur.execute(f"SELECT name, id FROM {t} ORDER BY id")
    assert cur.fetchall() == rows
    c.close()


def test_rows_from_a_generator_never_run_on_a_kept_statement(private):
    """They cannot be sent a second time, so a stale statement could not be
    repaired: executemany prepares for them (and keeps that statement)."""
    c = connect(private, autocommit=True)
    cur = c.cursor()
    t = table(cur)
    sql = f"INSERT INTO {t} VALUES (?, ?)"
    cur.executemany(sql, [(0, "a")])
    with other_session(private) as other:
        other.cursor().execute(f"ALTER TABLE {t} ADD (extra INTEGER)")
    start = len(private.rec)
    cur.executemany(f"INSERT INTO {t} (id, name) VALUES (?, ?)", ((i, "g") for i in range(1, 5)))
    cur.executemany(f"INSERT INTO {t} (id, name) VALUES (?, ?)", ((i, "g") for i in range(5, 9)))
    assert prepares(private.rec, start) == 2
    assert ids(cur, t) == list(range(9))
    c.close()


@pytest.mark.parametrize("autocommit", [True, False])
@pytest.mark.parametrize("put", [True, False], ids=["insert-cursor", "bind-execute"])
def test_the_error_contract_holds_on_a_kept_statement(private, autocommit, put):
    c = connect(private, autocommit=autocommit)
    cur = c.cursor()
    t = table(cur)
    c.commit()
    sql = f"INSERT INTO {t} VALUES (?, ?)"
    cur.executemany(sql, [(100, "x")], insert_cursor=put)
    rows = [(i, "y") for i in range(10)]
    rows[6] = (100, "dup")
    with pytest.raises(ifx.IntegrityError) as info:
        cur.executemany(sql, rows, insert_cursor=put)
    assert info.value.row_index == 6
    cur.executemany(sql, [(200, "z")], insert_cursor=put)   # still usable
    c.commit()
    assert ids(cur, t) == list(range(6)) + [100, 200]
    c.close()


def test_savepoint_statement_survives_ddl_and_a_database_change(private):
    c = connect(private)
    cur = c.cursor()
    t = table(cur)
    c.commit()
    sql = f"INSERT INTO {t} VALUES (?, ?)"
    cur.executemany(sql, [(1, "a")])
    cur.execute(f"CREATE TABLE {t}_x (z INTEGER)")           # empties the cache
    cur.executemany(sql, [(2, "b")])
    c.commit()
    c.autocommit = True
    cur.execute("DATABASE testdb")                           # the server frees them all
    c.autocommit = False
    cur.executemany(sql, [(3, "c")])
    c.commit()
    assert ids(cur, t) == [1, 2, 3]
    c.close()


def test_without_a_statement_cache_every_call_prepares(private):
    c = connect(private, autocommit=True, prepare_cache_size=0)
    cur = c.cursor()
    t = table(cur)
    start = len(private.rec)
    for i in range(3):
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(i, "a")])
    assert prepares(private.rec, start) == 3
    assert len(c._statements) == 0
    c.close()


def test_ansi_database_repeated_calls(private):
    """In an ANSI database CLOSE of a cursor the COMMIT closed fails: the
    insert cursor's CLOSE travels on its own and its answer is ignored."""
    name = unique("ansi")
    with connect(private, autocommit=True) as c:
        c.cursor().execute(f"CREATE DATABASE {name} WITH LOG MODE ANSI")
    for autocommit in (True, False):
        with ifx.connect(host=private.host, port=private.port, user=private.user,
                         password=private.password, database=name, server=private.server,
                         autocommit=autocommit, read_timeout=60) as c:
            cur = c.cursor()
            t = table(cur)
            c.commit()
            for call in range(4):
                cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                                [(call * 10 + i, "a") for i in range(3)])
                cur.execute(f"SELECT COUNT(*) FROM {t}")
                assert cur.fetchone() == (call * 3 + 3,)
            c.commit()
            assert ids(cur, t) == [call * 10 + i for call in range(4) for i in range(3)]


def test_asyncio_stale_kept_statement_and_reuse(private):
    """The asyncio cursor takes the same path: kept statement reused, a stale
    one prepared again with every row sent once."""
    async def main() -> list:
        c = await asyncio.wait_for(ifx.connect_async(
            host=private.host, port=private.port, user=private.user,
            password=private.password, database=private.database, server=private.server), 30)
        cur = c.cursor()
        t = unique("akept")
        await cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, name VARCHAR(20))")
        await c.commit()
        sql = f"INSERT INTO {t} VALUES (?, ?)"
        await cur.executemany(sql, [(0, "a")])
        await cur.executemany(sql, [(1, "b"), (2, "c")])
        await c.commit()
        with other_session(private) as other:
            oc = other.cursor()
            oc.execute(f"DROP TABLE {t}")
            oc.execute(f"CREATE TABLE {t} (name VARCHAR(20), id INTEGER PRIMARY KEY)")
        start = len(private.rec)
        await cur.executemany(sql, [("x", 5), ("y", 6)])
        assert prepares(private.rec, start) == 1
        await c.commit()
        await cur.execute(f"SELECT name, id FROM {t} ORDER BY id")
        got = await cur.fetchall()
        await c.close()
        return got
    assert asyncio.run(asyncio.wait_for(main(), 60)) == [("x", 5), ("y", 6)]


@pytest.mark.parametrize("k", [0, 4, 11, 17])
def test_a_one_request_chunk_without_savepoint_keeps_exactly_the_rows_before(private, k):
    """Names of several lengths make several SQ_PUT messages in the one
    request; the failing row is in the first, a middle or the last one."""
    c = connect(private)
    cur = c.cursor()
    t = table(cur)
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(100, "old")])   # keeps both
    c.commit()
    rows = [(i, "n" * (1 + i // 6)) for i in range(18)]
    rows[k] = (100, "dup")
    trips = count_round_trips(c)
    with pytest.raises(ifx.IntegrityError) as info:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows)
    assert trips[0] == 1                      # no savepoint, nothing to repair
    assert info.value.row_index == k
    assert cur.rowcount == k
    assert ids(cur, t) == list(range(k)) + [100]     # the caller's transaction goes on
    c.rollback()
    assert ids(cur, t) == [100]
    c.close()


def test_one_row_chunks_by_bind_execute_without_savepoint(private):
    c = connect(private)
    cur = c.cursor()
    t = table(cur)
    c.commit()
    rows = [(i, "x") for i in range(6)]
    rows[3] = (1, "dup")
    with pytest.raises(ifx.IntegrityError) as info:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", rows, chunk_size=1,
                        insert_cursor=False)
    assert info.value.row_index == 3 and cur.rowcount == 3
    c.commit()
    assert ids(cur, t) == [0, 1, 2]
    c.close()
