"""Issue 9 item 7: executemany tells exactly what landed.

When row k fails, the call raises that row's PEP 249 error with
``e.row_index == k`` and afterwards exactly ``rows[:k]`` are applied --
whether k is the first, a middle or the last row of its chunk, in
autocommit mode and inside a transaction (checked from a second connection
after the commit).  ``batch_errors=True`` applies every good row and lists
each failing row's error.  The connection is the caller's for the whole
call: another thread's statement never lands between a chunk and its undo.
"""

from __future__ import annotations

import threading
import time

import pytest

import informix_stream as ifx
from both_drivers import AsyncDriver, SyncDriver
from test_driver import connect, unique

N, CHUNK = 50, 10
# first row, middle / first / last of a chunk, last row
POSITIONS = [0, 3, 10, 19, 25, 49]


@pytest.fixture(autouse=True, params=["put", "bind"])
def path(request, monkeypatch):
    """Every test runs on both send paths: the insert cursor (PUT, the
    default where it applies) and BIND+EXECUTE (insert_cursor=False)."""
    from informix_stream import executemany as em
    if request.param == "bind":
        init = em.Plan.__init__

        def bind_only(self, *args, insert_cursor=None, **kw):
            init(self, *args, insert_cursor=False if insert_cursor is None else insert_cursor,
                 **kw)
        monkeypatch.setattr(em.Plan, "__init__", bind_only)
    return request.param


@pytest.fixture(params=["sync", "async"])
def drv(request):
    """The blocking and the asyncio driver, through one face (both_drivers.py)."""
    d = SyncDriver() if request.param == "sync" else AsyncDriver()
    yield d
    d.close()


@pytest.fixture
def two(ifx_target, drv):
    """(factory of connections under test, a blocking checking connection)."""
    made: list = []

    def open_(autocommit: bool):
        c = drv.connect(ifx_target, autocommit=autocommit)
        made.append(c)
        return c
    check = connect(ifx_target, autocommit=True)
    yield open_, check
    for c in made:
        c.close()
    check.close()


def table(check) -> str:
    t = unique("emc")
    cur = check.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL)")
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (-1, "already there"))
    return t


def ids(check, t: str) -> list[int]:
    cur = check.cursor()
    cur.execute(f"SELECT id FROM {t} WHERE id >= 0 ORDER BY id")
    return [r[0] for r in cur.fetchall()]


def data(bad: dict[int, tuple]) -> list[tuple]:
    return [bad.get(i, (i, f"row {i}")) for i in range(N)]


DUPLICATE = (-1, "duplicate key")


@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
@pytest.mark.parametrize("k", POSITIONS)
@pytest.mark.parametrize("bad", [DUPLICATE, (7777, None)], ids=["duplicate", "not-null"])
def test_failing_row_leaves_exactly_the_rows_before_it(two, autocommit, k, bad):
    open_, check = two
    t = table(check)
    conn = open_(autocommit)
    cur = conn.cursor()
    if not autocommit:
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (1000, "earlier in the transaction"))
    with pytest.raises(ifx.IntegrityError) as info:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", data({k: bad}), chunk_size=CHUNK)
    assert info.value.row_index == k
    assert cur.rowcount == k
    if not autocommit:
        assert ids(check, t) == []               # nothing committed yet
        conn.commit()
    expected = list(range(k)) + ([] if autocommit else [1000])
    assert ids(check, t) == sorted(expected)
    # The connection goes on normally afterwards.
    cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (5000, "after"))
    conn.commit()
    assert 5000 in ids(check, t)


@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
@pytest.mark.parametrize("k", [3, 10, 19])
def test_row_the_client_cannot_encode_leaves_exactly_the_rows_before_it(two, autocommit, k):
    open_, check = two
    t = table(check)
    conn = open_(autocommit)
    cur = conn.cursor()
    with pytest.raises((ifx.DataError, ifx.ProgrammingError)) as info:
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", data({k: (k, object())}),
                        chunk_size=CHUNK)
    assert info.value.row_index == k
    if not autocommit:
        conn.commit()
    assert ids(check, t) == list(range(k))


@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
def test_batch_errors_apply_every_good_row_and_list_the_bad_ones(two, autocommit):
    open_, check = two
    t = table(check)
    conn = open_(autocommit)
    cur = conn.cursor()
    failing = [0, 3, 10, 19, 49]
    bad = {i: (DUPLICATE if i % 2 else (8000 + i, None)) for i in failing}
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", data(bad), chunk_size=CHUNK,
                    batch_errors=True)
    assert [e.row_index for e in cur.batch_errors] == failing
    assert all(isinstance(e, ifx.IntegrityError) for e in cur.batch_errors)
    assert cur.rowcount == N - len(failing)
    if not autocommit:
        conn.commit()
    assert ids(check, t) == [i for i in range(N) if i not in failing]


def test_batch_errors_without_errors_is_an_empty_list(two):
    open_, check = two
    t = table(check)
    cur = open_(True).cursor()
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", data({}), batch_errors=True)
    assert cur.batch_errors == [] and cur.rowcount == N
    assert ids(check, t) == list(range(N))


@pytest.fixture
def two_sync(ifx_target):
    """Threads share a blocking connection (an asyncio one belongs to its loop)."""
    made: list = []

    def open_(autocommit: bool) -> ifx.Connection:
        c = connect(ifx_target, autocommit=autocommit)
        made.append(c)
        return c
    check = open_(True)
    yield open_, check
    for c in made:
        c.close()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
def test_other_threads_statement_never_lands_between_a_chunk_and_its_undo(two_sync,
                                                                          autocommit):
    """Thread B writes on the same connection while A's executemany runs and
    then fails mid-chunk: B's row is neither undone with A's chunk nor
    committed on A's behalf, and A's table holds exactly rows[:k]."""
    open_, check = two_sync
    t, marks = table(check), table(check)
    conn = open_(autocommit)
    k = 25
    go = threading.Event()

    def slow_rows():
        for i, row in enumerate(data({k: DUPLICATE})):
            if i == 22:
                go.set()
                time.sleep(0.3)           # B is waiting for the connection now
            yield row

    b_error: list = []

    def b():
        go.wait(10)
        try:
            conn.cursor().execute(f"INSERT INTO {marks} VALUES (?, ?)", (1, "from B"))
        except Exception as exc:  # noqa: BLE001 - reported below
            b_error.append(exc)

    tb = threading.Thread(target=b, daemon=True)
    tb.start()
    with pytest.raises(ifx.IntegrityError) as info:
        conn.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)", slow_rows(),
                                  chunk_size=CHUNK)
    tb.join(20)
    assert not tb.is_alive() and not b_error, b_error
    assert info.value.row_index == k
    if autocommit:
        assert ids(check, marks) == [1]          # B's autocommit row is committed
    else:
        conn.rollback()
        assert ids(check, marks) == []           # ... or undone with the transaction
    assert ids(check, t) == ([] if not autocommit else list(range(k)))


@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
@pytest.mark.parametrize("k", [0, 4, 10, 19])
def test_failing_update_leaves_exactly_the_updates_before_it(two, autocommit, k):
    """The contract holds for UPDATE as for INSERT: updates before row k are
    applied, row k's and every later one are not."""
    open_, check = two
    t = table(check)
    check.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)",
                               [(i, f"row {i}") for i in range(30)])
    conn = open_(autocommit)
    cur = conn.cursor()
    # row i renames id i to 100 + i; row k collides with the row already at -1
    params = [(-1 if i == k else 100 + i, i) for i in range(30)]
    with pytest.raises(ifx.IntegrityError) as info:
        cur.executemany(f"UPDATE {t} SET id = ? WHERE id = ?", params, chunk_size=CHUNK)
    assert info.value.row_index == k
    assert cur.rowcount == k
    if not autocommit:
        conn.commit()
    want = sorted([100 + i for i in range(k)] + list(range(k, 30)))
    assert ids(check, t) == want


# -- a database without logging (the emulator serves logged ones: the DBOPEN
# -- reply is rewritten to say "not logged", so no transaction is ever begun)

def _unlogged_server():
    from faults.hostile import HostileServer
    from informix_stream.framing import Writer
    from informix_stream.messages import DbOpen, write_done

    srv = HostileServer()

    def tamper(messages, reply):
        if any(isinstance(m, DbOpen) for m in messages):
            w = Writer()
            write_done(w, 0, warnings=0x04)          # IDS, but no 0x01 "logged"
            return [w.getvalue() + b"\x00\x0c"]
        return None
    srv.tamper = tamper
    return srv


class _At:
    user, password, database, server = "informix", "in4mix", "testdb", "informix"

    def __init__(self, srv) -> None:
        self.host, self.port = srv.host, srv.port


@pytest.mark.parametrize("chunk, k", [(10, 13), (10, 10), (1, 13), (10, 49)])
def test_unlogged_database_stops_at_the_failing_row_and_says_what_else_landed(drv, chunk, k,
                                                                             path):
    if path == "put":
        pytest.skip("the faked unlogged database is a logged one underneath, where an insert "
                    "cursor needs a transaction: test_insert_cursor.py covers a real unlogged one")
    with _unlogged_server() as srv:
        conn = drv.connect(_At(srv), autocommit=False)
        check = connect(_At(srv), autocommit=True)
        t = table(check)
        cur = conn.cursor()
        with pytest.raises(ifx.IntegrityError) as info:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", data({k: DUPLICATE}),
                            chunk_size=chunk)
        e = info.value
        assert e.row_index == k
        chunk_end = min((k // chunk + 1) * chunk, N)
        after = list(range(k + 1, chunk_end))
        assert ids(check, t) == [i for i in range(chunk_end) if i != k]
        assert list(getattr(e, "applied_after", None) or []) == after
        if after:
            assert "without logging" in str(e)
        conn.close()
        check.close()
