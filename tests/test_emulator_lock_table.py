"""LOCK TABLE and UNLOCK TABLE in the emulator (issue 11, emulator
fidelity).  LOCK TABLE used to succeed and change nothing.

What the server does, and where it was learned (IBM Informix Guide to SQL:
Syntax; codes from IBM JDBC 15.0.1.0 message catalog, sql_en_US.properties
and isam_en_US.properties):
* SHARE lets other sessions read and not change the table, EXCLUSIVE lets
  them do neither, and LOCK TABLE fails with -289 when another session
  holds the table EXCLUSIVE, or SHARE while EXCLUSIVE is asked ("LOCK TABLE
  statement", ids_sqs_0889);
* table locks do not stop Dirty Read readers ("Concurrent Access to Tables
  with Exclusive Locks", Guide to SQL: Syntax 11.50);
* another session's statement on a locked table gets its kind's lock error
  with ISAM -113 "the file is locked" (IBM finderr -113: a table locked
  "explicitly using the LOCK TABLE statement"); SET LOCK MODE TO WAIT makes
  it wait for the lock;
* with logging, LOCK TABLE only inside a transaction (-524), the locks go at
  COMMIT/ROLLBACK, and the mode cannot be switched in the transaction (-291)
  ("Databases with transaction logging", ids_sqs_0892);
* without logging the locks last until UNLOCK TABLE, closing the database or
  the end of the session ("Databases without transaction logging",
  ids_sqs_0893); UNLOCK TABLE inside a transaction is -327, of a table the
  session did not lock -288 ("UNLOCK TABLE statement", ids_sqs_1253);
* a system catalog table cannot be locked (ids_sqs_0892): refused here as
  not supported, its code unknown.
"""

from __future__ import annotations

import threading
import time

import informix_db
import pytest

import informix_stream as ifx
from faults.emu import connect, log_mode_server

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def server():
    with log_mode_server() as srv:
        yield srv


def _connect(srv, database: str, **kw) -> ifx.Connection:
    kw.setdefault("autocommit", True)
    return connect(srv, database=database, **kw)


def _n(counter=[0]) -> int:       # noqa: B006 - a module-wide counter
    counter[0] += 1
    return counter[0]


@pytest.fixture
def pair(server, request):
    """Two sessions on the database ``request.param`` (default ldb) and a
    table of one row there."""
    db = getattr(request, "param", "ldb")
    a, b = _connect(server, db), _connect(server, db)
    name = f"lk{_n()}"
    ca, cb = a.cursor(), b.cursor()
    ca.execute(f"CREATE TABLE {name} (id INTEGER)")
    ca.execute(f"INSERT INTO {name} VALUES (1)")
    yield ca, cb, name
    a.close()
    b.close()


def _error(cur, sql: str) -> tuple[int, int]:
    with pytest.raises(ifx.DatabaseError) as info:
        cur.execute(sql)
    return info.value.sqlcode, info.value.isam_code


def _lock(cur, table: str, mode: str) -> None:
    cur.execute("BEGIN WORK")
    cur.execute(f"LOCK TABLE {table} IN {mode} MODE")


def test_exclusive_keeps_other_sessions_out(pair):
    a, b, t = pair
    _lock(a, t, "EXCLUSIVE")
    assert _error(b, f"SELECT * FROM {t}") == (-244, -113)
    assert _error(b, f"INSERT INTO {t} VALUES (2)") == (-271, -113)
    assert _error(b, f"UPDATE {t} SET id = 2") == (-346, -113)
    assert _error(b, f"DELETE FROM {t}") == (-240, -113)
    assert _error(b, f"DROP TABLE {t}") == (-242, -113)
    a.execute(f"INSERT INTO {t} VALUES (3)")             # the holder goes on
    a.execute("COMMIT WORK")
    b.execute(f"SELECT id FROM {t} ORDER BY id")        # released at COMMIT
    assert b.fetchall() == [(1,), (3,)]


def test_share_lets_others_read_but_not_write(pair):
    a, b, t = pair
    _lock(a, t, "SHARE")
    b.execute(f"SELECT id FROM {t}")
    assert b.fetchall() == [(1,)]
    assert _error(b, f"INSERT INTO {t} VALUES (2)") == (-271, -113)
    assert _error(b, f"ALTER TABLE {t} ADD (w INTEGER)") == (-242, -113)
    a.execute(f"UPDATE {t} SET id = 5")                  # the holder may write
    a.execute("ROLLBACK WORK")                           # released at ROLLBACK
    b.execute(f"INSERT INTO {t} VALUES (2)")
    b.execute(f"SELECT id FROM {t} ORDER BY id")
    assert b.fetchall() == [(1,), (2,)]


def test_a_dirty_reader_is_not_kept_out(pair):
    a, b, t = pair
    _lock(a, t, "EXCLUSIVE")
    b.execute("SET ISOLATION TO DIRTY READ")
    b.execute(f"SELECT id FROM {t}")
    assert b.fetchall() == [(1,)]
    assert _error(b, f"DELETE FROM {t}") == (-240, -113)   # a write still is


@pytest.mark.parametrize("held, asked, ok", [
    ("SHARE", "SHARE", True), ("SHARE", "EXCLUSIVE", False),
    ("EXCLUSIVE", "SHARE", False), ("EXCLUSIVE", "EXCLUSIVE", False),
])
def test_lock_table_against_another_sessions_lock(pair, held, asked, ok):
    a, b, t = pair
    _lock(a, t, held)
    b.execute("BEGIN WORK")
    if ok:
        b.execute(f"LOCK TABLE {t} IN {asked} MODE")
    else:
        assert _error(b, f"LOCK TABLE {t} IN {asked} MODE") == (-289, -113)
    b.execute("ROLLBACK WORK")


def test_lock_table_against_rows_another_transaction_wrote(pair):
    a, b, t = pair
    a.execute("BEGIN WORK")
    a.execute(f"INSERT INTO {t} VALUES (7)")
    b.execute("BEGIN WORK")
    assert _error(b, f"LOCK TABLE {t} IN EXCLUSIVE MODE") == (-289, -107)
    a.execute("COMMIT WORK")
    b.execute(f"LOCK TABLE {t} IN EXCLUSIVE MODE")
    b.execute("COMMIT WORK")


def test_lock_mode_wait_waits_for_the_commit(pair):
    a, b, t = pair
    _lock(a, t, "EXCLUSIVE")
    b.execute("SET LOCK MODE TO WAIT 20")
    timer = threading.Timer(0.5, lambda: a.execute("COMMIT WORK"))
    started = time.monotonic()
    timer.start()
    try:
        b.execute(f"SELECT id FROM {t}")
        assert b.fetchall() == [(1,)]
    finally:
        timer.join(10)
    assert 0.4 < time.monotonic() - started < 15


def test_lock_mode_wait_n_gives_up_after_n_seconds(pair):
    a, b, t = pair
    _lock(a, t, "SHARE")
    b.execute("SET LOCK MODE TO WAIT 1")
    started = time.monotonic()
    assert _error(b, f"UPDATE {t} SET id = 9") == (-346, -113)
    assert 0.9 < time.monotonic() - started < 10
    b.execute("BEGIN WORK")
    started = time.monotonic()
    assert _error(b, f"LOCK TABLE {t} IN EXCLUSIVE MODE") == (-289, -113)
    assert 0.9 < time.monotonic() - started < 10


def test_outside_a_transaction_in_a_logged_database_is_524(pair):
    a, _, t = pair
    assert _error(a, f"LOCK TABLE {t} IN SHARE MODE") == (-524, 0)


def test_the_mode_cannot_change_in_the_transaction(pair):
    a, _, t = pair
    _lock(a, t, "SHARE")
    a.execute(f"LOCK TABLE {t} IN SHARE MODE")            # the same mode again
    assert _error(a, f"LOCK TABLE {t} IN EXCLUSIVE MODE") == (-291, 0)
    a.execute("COMMIT WORK")
    _lock(a, t, "EXCLUSIVE")                              # a new transaction may
    a.execute("COMMIT WORK")


def test_unlock_in_a_transaction_is_327_and_outside_288(pair):
    a, _, t = pair
    _lock(a, t, "SHARE")
    assert _error(a, f"UNLOCK TABLE {t}") == (-327, 0)
    a.execute("COMMIT WORK")
    assert _error(a, f"UNLOCK TABLE {t}") == (-288, 0)    # COMMIT released it


@pytest.mark.parametrize("pair", ["adb"], indirect=True)
def test_an_ansi_database_locks_in_its_implicit_transaction(server, pair):
    _, b, t = pair
    with _connect(server, "adb", autocommit=False) as conn:   # autocommit would end it
        a = conn.cursor()
        a.execute(f"LOCK TABLE {t} IN EXCLUSIVE MODE")
        assert _error(b, f"INSERT INTO {t} VALUES (2)") == (-271, -113)
        conn.commit()
        b.execute(f"INSERT INTO {t} VALUES (2)")


@pytest.mark.parametrize("pair", ["nolog"], indirect=True)
def test_without_logging_the_lock_lasts_until_unlock(pair):
    a, b, t = pair
    a.execute(f"LOCK TABLE {t} IN SHARE MODE")
    assert _error(a, f"LOCK TABLE {t} IN EXCLUSIVE MODE") == (-291, 0)
    assert _error(b, f"INSERT INTO {t} VALUES (2)") == (-271, -113)
    assert _error(b, f"UNLOCK TABLE {t}") == (-288, 0)    # not b's lock
    a.execute(f"UNLOCK TABLE {t}")
    a.execute(f"LOCK TABLE {t} IN EXCLUSIVE MODE")        # a new mode after UNLOCK
    a.execute(f"UNLOCK TABLE {t}")
    b.execute(f"INSERT INTO {t} VALUES (2)")


@pytest.mark.parametrize("pair", ["nolog"], indirect=True)
def test_without_logging_the_lock_goes_with_the_database(server, pair):
    a, b, t = pair
    a.execute(f"LOCK TABLE {t} IN EXCLUSIVE MODE")
    assert _error(b, f"DELETE FROM {t}") == (-240, -113)
    a.execute("CLOSE DATABASE")
    b.execute(f"DELETE FROM {t}")
    a.execute("DATABASE nolog")
    a.execute(f"LOCK TABLE {t} IN EXCLUSIVE MODE")
    a.connection.close()                                   # the session ends
    b.execute("SET LOCK MODE TO WAIT 10")    # until the server has seen it end
    b.execute(f"INSERT INTO {t} VALUES (4)")


def test_a_temp_table_is_the_sessions_own(pair):
    a, b, t = pair
    a.execute(f"CREATE TEMP TABLE {t}_tmp (id INTEGER)")
    _lock(a, f"{t}_tmp", "EXCLUSIVE")
    b.execute(f"INSERT INTO {t} VALUES (2)")               # another table: untouched
    a.execute("COMMIT WORK")


@pytest.mark.parametrize("sql, code", [
    ("LOCK TABLE systables IN SHARE MODE", -9999), ("LOCK TABLE nosuch IN SHARE MODE", -206),
    ("LOCK TABLE {t} IN SHARED MODE", -201), ("LOCK TABLE {t}", -201),
    ("UNLOCK TABLE {t} IN SHARE MODE", -201),
])
def test_what_cannot_be_locked(pair, sql, code):
    a, _, t = pair
    a.execute("BEGIN WORK")
    assert _error(a, sql.format(t=t))[0] == code
    a.execute("ROLLBACK WORK")


def test_a_view_is_refused_as_not_supported(pair):
    a, _, t = pair
    a.execute(f"CREATE VIEW {t}_v AS SELECT id FROM {t}")
    a.execute("BEGIN WORK")
    assert _error(a, f"LOCK TABLE {t}_v IN SHARE MODE")[0] == -9999
    a.execute("ROLLBACK WORK")


def test_two_sessions_waiting_for_each_other_get_a_deadlock_not_a_hang(server):
    """A holds t1 and waits for t2, B holds t2 and asks for t1: under SET
    LOCK MODE TO WAIT (no limit) the server reports ISAM -143 "deadlock
    detected" (IBM JDBC 15.0.1.0 message catalog) to the one that would
    close the circle, rather than let both wait forever."""
    a, b = _connect(server, "ldb"), _connect(server, "ldb")
    ca, cb = a.cursor(), b.cursor()
    t1, t2 = f"dl{_n()}", f"dl{_n()}"
    try:
        for t in (t1, t2):
            ca.execute(f"CREATE TABLE {t} (id INTEGER)")
        for cur in (ca, cb):
            cur.execute("SET LOCK MODE TO WAIT")
        _lock(ca, t1, "EXCLUSIVE")
        _lock(cb, t2, "EXCLUSIVE")
        waited: list[object] = []
        waiter = threading.Thread(target=lambda: waited.append(
            _run(ca, f"INSERT INTO {t2} VALUES (1)")))
        waiter.start()
        time.sleep(0.5)                               # A is waiting for B now
        assert _error(cb, f"SELECT * FROM {t1}") == (-244, -143)
        cb.execute("ROLLBACK WORK")                   # B gives up: A goes on
        waiter.join(10)
        assert waited == [None]
        ca.execute("COMMIT WORK")
    finally:
        a.close()
        b.close()


def _run(cur, sql: str) -> object:
    try:
        cur.execute(sql)
    except ifx.DatabaseError as exc:
        return exc.sqlcode
    return None


def test_a_routines_statements_meet_the_lock_too(pair):
    a, b, t = pair
    b.execute(f"CREATE PROCEDURE {t}_w() INSERT INTO {t} VALUES (8); END PROCEDURE")
    _lock(a, t, "SHARE")
    assert _error(b, f"EXECUTE PROCEDURE {t}_w()") == (-271, -113)
    a.execute("COMMIT WORK")
    b.execute(f"EXECUTE PROCEDURE {t}_w()")
    b.execute(f"SELECT COUNT(*) FROM {t} WHERE id = 8")
    assert b.fetchone() == (1,)


def test_informix_driver_meets_the_lock_and_goes_on(server, pair):
    """informix-driver (verified on real servers) reads the lock error the
    emulator sends and its connection stays usable."""
    a, _, t = pair
    _lock(a, t, "EXCLUSIVE")
    conn = informix_db.connect(host="127.0.0.1", port=server.port, user="informix",
                               password="in4mix", database="ldb", read_timeout=10,
                               autocommit=True)
    try:
        cur = conn.cursor()
        with pytest.raises(informix_db.Error) as info:
            cur.execute(f"SELECT id FROM {t}")
            cur.fetchall()
        assert "-244" in str(info.value)
        a.execute("COMMIT WORK")
        cur.execute(f"SELECT id FROM {t}")
        assert cur.fetchall() == [(1,)]
    finally:
        conn.close()
