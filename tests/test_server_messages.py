"""Issue 12 item 5: every server message a real server can send us is handled.

* SQ_DONE's warning flags (``sqlca.sqlwarn``) become PEP 249 Warnings on
  ``cursor.warnings`` (statement events) and ``connection.warnings`` (what
  the open database is); ``raise_warnings=True`` raises a statement's first
  one after its work is done, the connection usable;
* SQ_XACTSTAT is read and kept, SQ_DONEs of one reply add their flags up;
* a message IBM's JDBC driver knows but that we never ask for (and any
  code nobody knows) is an OperationalError naming it, the connection
  closed and no later request sent.
"""

from __future__ import annotations

import struct

import informix_db
import pytest

import informix_stream as ifx
from both_drivers import AsyncDriver, SyncDriver
from faults.emu import DATABASE, PASSWORD, SERVER, USER
from faults.hostile import HostileServer, eot, is_fetch, is_later_fetch
from informix_stream.connect_params import resolve
from informix_stream.emulator import EmulatorServer
from informix_stream.errors import ProtocolError
from informix_stream.framing import Writer
from informix_stream.messages import Bind, Reply, Tag, parse_reply, write_done, write_xactstat
from informix_stream.sqlwarn import WarningLog, open_warnings, statement_warnings

pytestmark = pytest.mark.timeout(60)


# -- the flags, without a server ---------------------------------------------------

def _reply_bytes(*parts: bytes) -> bytes:
    return b"".join(parts) + struct.pack("!h", Tag.EOT)


def _done(rows: int, warnings: int) -> bytes:
    w = Writer()
    write_done(w, rows, warnings=warnings)
    return w.getvalue()


def test_flags_of_every_done_in_a_reply_add_up_and_xactstat_is_kept():
    w = Writer()
    write_xactstat(w, 2, 1, 0)
    buf = _reply_bytes(_done(1, 0x08), w.getvalue(), _done(1, 0x02), _done(1, 0))
    reply = Reply()
    pos, finished = parse_reply(buf, 0, reply)
    assert (pos, finished) == (len(buf), True)
    assert reply.warnings == 0x0A
    assert reply.xactstat == (2, 1, 0)
    assert reply.done_rows == 3


def test_open_flags_are_ibms_sqlstates():
    got = [(w.sqlstate, w.flag) for w in open_warnings(0x01 | 0x04 | 0x40)]
    assert got == [("01I01", 0x01), ("01I04", 0x04), ("01000", 0x40)]
    assert "sqlwarn1" in str(open_warnings(0x01)[0])


def test_statement_flags_and_an_unknown_one_are_never_dropped():
    got = statement_warnings(0x08 | 0x02 | 0x80 | 0x8000)
    assert [(w.sqlstate, w.flag) for w in got] == [
        ("01003", 0x02), ("01I07", 0x08), ("01000", 0x80), ("01000", 0x8000)]
    assert "0x0080" in got[2].message and "0x8000" in got[3].message
    assert all(isinstance(w, ifx.Warning) and not isinstance(w, ifx.Error) for w in got)


def test_warning_log_lists_each_flag_once_and_raises_only_new_statement_ones():
    log = WarningLog()
    log.note(0x05, opened=True)
    log.raise_new()                                   # database traits: nothing raised
    log.note(0x08)
    log.note(0x08)                                    # executemany: every row says it
    assert [w.sqlstate for w in log.warnings] == ["01I01", "01I04", "01I07"]
    with pytest.raises(ifx.Warning) as info:
        log.raise_new()
    assert info.value.sqlstate == "01I07"
    log.raise_new()                                   # raised once


@pytest.mark.parametrize("tag", [26, 81, 86, 98, 125, 132, 135, 136, 4660])
def test_a_message_we_never_asked_for_is_named(tag):
    buf = struct.pack("!h", tag) + b"\x00" * 16 + struct.pack("!h", Tag.EOT)
    with pytest.raises(ProtocolError) as info:
        parse_reply(buf, 0, Reply())
    assert isinstance(info.value, ifx.OperationalError)
    name = {26: "SQ_DBLIST (26)", 81: "SQ_INFO (81)", 86: "SQ_REASSOC (86)",
            98: "SQ_FILE (98)", 125: "SQ_IDESCRIBE (125)", 132: "SQ_IFPDESCRIBE (132)",
            135: "SQ_SGKDESCRIBE (135)", 136: "SQ_SGKTUPLE (136)", 4660: "tag 4660"}[tag]
    assert name in str(info.value)


# -- against the emulator -------------------------------------------------------------

@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("logdb",)) as srv:
        with _connect(srv, "logdb", autocommit=True) as conn:
            conn.cursor().execute("CREATE DATABASE nolog")     # no WITH LOG: unlogged
        yield srv


class _Target:
    host, user, password, server = "127.0.0.1", USER, PASSWORD, SERVER

    def __init__(self, port: int, database: str) -> None:
        self.port, self.database = port, database


def _connect(srv, database: str, **kw):
    return ifx.connect(host="127.0.0.1", port=srv.port, user=USER, password=PASSWORD,
                       database=database, read_timeout=30, **kw)


@pytest.fixture(params=["sync", "async"])
def drv(request):
    d = SyncDriver() if request.param == "sync" else AsyncDriver()
    yield d
    d.close()


def _states(warnings) -> list[str]:
    return [w.sqlstate for w in warnings]


def test_connection_warnings_say_what_the_database_is(server):
    with _connect(server, "logdb") as conn:
        assert _states(conn.warnings) == ["01I01", "01I04"]     # logged, Informix
        cur = conn.cursor()
        cur.execute("DATABASE nolog")
        assert _states(cur.warnings) == ["01I04"]
        assert _states(conn.warnings) == ["01I04"]
        assert not conn.logged
        cur.execute("SELECT 1 FROM systables WHERE tabid = 1")
        assert cur.warnings == [] and _states(conn.warnings) == ["01I04"]
    with _connect(server, "logdb", raise_warnings=True) as conn:   # traits are not raised
        conn.cursor().execute("DATABASE nolog")


def test_update_or_delete_without_where_warns(server, drv):
    with drv.connect(_Target(server.port, "logdb"), autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE nw (id INTEGER, v VARCHAR(10))")
        try:
            cur.executemany("INSERT INTO nw VALUES (?, ?)", [(1, "a"), (2, "b"), (3, "c")])
            assert cur.warnings == []
            cur.execute("UPDATE nw SET v = 'x' WHERE id = 1")
            assert cur.warnings == []
            cur.execute("UPDATE nw SET v = (SELECT max(v) FROM nw WHERE id = 2)")
            assert [(w.sqlstate, w.flag) for w in cur.warnings] == [("01I07", 0x08)]
            assert cur.rowcount == 3
            cur.execute("SELECT count(*) FROM nw")           # a new execute starts afresh
            assert cur.warnings == [] and cur.fetchall() == [(3,)]
            cur.execute("DELETE FROM nw")                    # kept statement: warns again
            cur.execute("INSERT INTO nw VALUES (9, 'z')")
            cur.execute("DELETE FROM nw")
            assert _states(cur.warnings) == ["01I07"] and cur.rowcount == 1
            cur.executemany("DELETE FROM nw", [(), ()])
            assert _states(cur.warnings) == ["01I07"]
        finally:
            cur.execute("DROP TABLE nw")


def test_raise_warnings_raises_after_the_work_is_done(server, drv):
    with drv.connect(_Target(server.port, "logdb"), autocommit=True,
                     raise_warnings=True) as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE rw (id INTEGER)")
        try:
            cur.executemany("INSERT INTO rw VALUES (?)", [(1,), (2,)])
            with pytest.raises(ifx.Warning) as info:
                cur.execute("DELETE FROM rw")
            assert info.value.sqlstate == "01I07" and cur.rowcount == 2
            assert _states(cur.warnings) == ["01I07"]
            cur.execute("SELECT count(*) FROM rw")           # the delete happened
            assert cur.fetchall() == [(0,)]
            cur.executemany("INSERT INTO rw VALUES (?)", [(3,)])
            with pytest.raises(ifx.Warning):
                cur.executemany("UPDATE rw SET id = ?", [(4,), (5,)])
            cur.execute("SELECT id FROM rw")
            assert cur.fetchall() == [(5,)]
        finally:
            conn.cursor().execute("DROP TABLE rw")


def test_raise_warnings_in_a_connection_string():
    assert resolve("informix://u@h/db?raise_warnings=true", {}).raise_warnings is True
    assert resolve(None, {}).raise_warnings is False


# -- hostile replies --------------------------------------------------------------------

class _HostileTarget:
    user, password, database, server = USER, PASSWORD, DATABASE, SERVER

    def __init__(self, h: HostileServer) -> None:
        self.host, self.port = h.host, h.port


def _flag_execute(flags: int):
    """Set ``flags`` in the SQ_DONE that answers a BIND+EXECUTE."""
    def tamper(messages, reply):
        if any(isinstance(m, Bind) for m in messages) and Tag.EXECUTE in messages:
            assert reply[:2] == struct.pack("!h", Tag.DONE), reply[:16]
            return [reply[:2] + struct.pack("!H", flags) + reply[4:]]
        return None
    return tamper


def test_flags_a_server_sends_reach_the_cursor_and_unknown_ones_are_kept(drv):
    with HostileServer() as h:
        conn = drv.connect(_HostileTarget(h), autocommit=True, read_timeout=10)
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (id INTEGER)")
        h.tamper = _flag_execute(0x02 | 0x20 | 0x100)
        cur.execute("INSERT INTO t VALUES (?)", (1,))
        assert [(w.sqlstate, w.flag) for w in cur.warnings] == [
            ("01003", 0x02), ("01I11", 0x20), ("01000", 0x100)]
        h.tamper = None
        cur.execute("SELECT id FROM t")
        assert cur.fetchall() == [(1,)] and cur.warnings == []
        conn.close()


def test_flags_in_a_fetch_reply_are_listed(drv):
    with HostileServer() as h:
        conn = drv.connect(_HostileTarget(h), autocommit=True, read_timeout=10,
                           raise_warnings=True)
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (id INTEGER)")
        cur.executemany("INSERT INTO t VALUES (?)", [(1,), (2,)])

        def tamper(messages, reply):
            if not is_fetch(messages):
                return None
            at = reply.find(struct.pack("!h", Tag.DONE))
            return [reply[:at + 2] + struct.pack("!H", 0x02) + reply[at + 4:]]
        h.tamper = tamper
        with pytest.raises(ifx.Warning) as info:      # the first batch comes at execute
            cur.execute("SELECT max(id) FROM t")
        assert info.value.sqlstate == "01003"
        assert cur.fetchall() == [(2,)]                # the rows are still there
        conn.close()


@pytest.mark.parametrize("tag", [26, 81, 86, 98, 125, 132, 135, 136])
def test_a_message_we_never_asked_for_closes_the_connection(drv, tag):
    with HostileServer() as h:
        conn = drv.connect(_HostileTarget(h), autocommit=True, read_timeout=10)
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (id INTEGER)")
        h.tamper = lambda messages, reply: (
            [struct.pack("!h", tag) + b"\x00" * 8 + eot()] if is_fetch(messages) else None)
        with pytest.raises(ifx.OperationalError, match=rf"\({tag}\)"):
            cur.execute("SELECT id FROM t")
        seen = len(h.requests)
        assert conn.closed
        with pytest.raises((ifx.OperationalError, ifx.InterfaceError)):
            conn.cursor().execute("SELECT id FROM t")
        assert len(h.requests) == seen
        conn.close()



def test_informix_driver_runs_statements_whose_prepare_carries_a_flag(server):
    """informix-driver reads SQ_DONE's warnings short and drops it
    (cursors._consume_done): the flag must cost it nothing."""
    conn = informix_db.connect(host="127.0.0.1", port=server.port, user=USER,
                               password=PASSWORD, database="logdb", autocommit=True,
                               read_timeout=10)
    try:
        cur = conn.cursor()
        cur.execute("CREATE TABLE ifxw (id INTEGER)")
        cur.execute("INSERT INTO ifxw VALUES (1)")
        cur.execute("INSERT INTO ifxw VALUES (2)")
        cur.execute("UPDATE ifxw SET id = id + 10")
        cur.execute("DELETE FROM ifxw")
        assert cur.rowcount == 2
        cur.execute("SELECT count(*) FROM ifxw")
        assert cur.fetchall() == [(0,)]
        cur.execute("DROP TABLE ifxw")
    finally:
        conn.close()


# -- SQ_ERR's other layouts (JDBC IfxSqli.receiveError) ---------------------------------

def _err(sqlcode: int, near: bytes | None = b"", sqlstate: bytes = b"", message: bytes = b""
         ) -> bytes:
    """SQ_ERR; ``near`` None leaves out the sqlerrm (-368); sqlcode 0 and
    -937 carry a routine's SQLSTATE and message after it."""
    w = Writer()
    w.short(Tag.ERR).short(sqlcode).short(0).int(0)
    if near is not None:
        w.short_string(near)
    if sqlstate:
        w.padded(sqlstate).short_string(message)
    return w.getvalue()


def _on_insert(script: list):
    def tamper(messages, reply):
        if any(isinstance(m, Bind) for m in messages) and Tag.EXECUTE in messages:
            return script
        return None
    return tamper


def test_a_routines_warning_is_listed_and_the_stream_stays_aligned(drv):
    with HostileServer() as h:
        conn = drv.connect(_HostileTarget(h), autocommit=True, read_timeout=10)
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (id INTEGER)")
        h.tamper = _on_insert([_err(0, b"", b"01U01", b"watch out") + _done(1, 0)
                               + struct.pack("!h", Tag.EOT)])
        cur.execute("INSERT INTO t VALUES (?)", (1,))
        assert [(w.sqlstate, w.message) for w in cur.warnings] == [("01U01",
                                                                    "[01U01] watch out")]
        assert cur.rowcount == 1
        h.tamper = None
        cur.execute("SELECT count(*) FROM t")
        assert cur.fetchall() == [(1,)] and not conn.closed   # the emulator did insert
        conn.close()


def test_not_found_is_a_warning_not_an_error(drv):
    """sqlcode 100: an ANSI database's UPDATE/DELETE/INSERT ... SELECT that
    touched no row (IBM, sqlca "NOT FOUND"); JDBC makes it a warning."""
    with HostileServer() as h:
        conn = drv.connect(_HostileTarget(h), autocommit=True, read_timeout=10)
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (id INTEGER)")
        h.tamper = _on_insert([_err(100) + struct.pack("!h", Tag.EOT)])
        cur.execute("INSERT INTO t VALUES (?)", (1,))
        assert [w.sqlstate for w in cur.warnings] == ["02000"] and cur.rowcount == 0
        h.tamper = None
        cur.execute("SELECT count(*) FROM t")              # the emulator did insert
        assert cur.fetchall() == [(1,)] and not conn.closed
        conn.close()


@pytest.mark.parametrize("reply,code,text", [
    (_err(-937, b"", b"U0001", b"routine says no"), -937, "routine says no"),
    (_err(-368, None), -368, ""),
], ids=["routine-error", "no-sqlerrm"])
def test_errors_of_other_layouts_raise_and_keep_the_connection(drv, reply, code, text):
    with HostileServer() as h:
        conn = drv.connect(_HostileTarget(h), autocommit=True, read_timeout=10)
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (id INTEGER)")
        h.tamper = _on_insert([reply + struct.pack("!h", Tag.EOT)])
        with pytest.raises(ifx.DatabaseError) as info:
            cur.execute("INSERT INTO t VALUES (?)", (1,))
        assert info.value.sqlcode == code and text in str(info.value)
        h.tamper = None
        cur.execute("SELECT count(*) FROM t")                # the stream is still aligned
        assert cur.fetchall() == [(1,)] and not conn.closed
        conn.close()


def _flag_third_tuple(messages, reply):
    """Set sqlwarn2 in the third tuple of every later fetch's reply (the
    ones an Arrow fetch reads in bulk)."""
    if not is_later_fetch(messages) or reply.count(struct.pack("!hh", Tag.TUPLE, 0)) < 3:
        return None
    at = -1
    for _ in range(3):
        at = reply.index(struct.pack("!hh", Tag.TUPLE, 0), at + 1)
    return [reply[:at + 2] + struct.pack("!H", 0x02) + reply[at + 4:]]


@pytest.mark.parametrize("how,second", [
    ("tuples", "v VARCHAR(10)"), ("arrow", "v VARCHAR(10)"), ("arrow", "v INTEGER")])
def test_a_tuples_own_warning_flags_are_listed(how, second):
    """SQ_TUPLE's second short: a FETCH's sqlwarn flags (JDBC logs them,
    IfxSqli.receiveTuple).  The Arrow bulk reader (fixed and variable row
    shapes) leaves such a tuple to the per-row path, which records them;
    the rows are the same."""
    if how == "arrow":
        pytest.importorskip("pyarrow", reason="the arrow extra (numpy, pyarrow) is not installed")
    drv = SyncDriver()
    with HostileServer() as h:
        conn = drv.connect(_HostileTarget(h), autocommit=True, read_timeout=10)
        conn.cursor().execute(f"CREATE TABLE t (id INTEGER, {second})")
        value = (lambda i: f"v{i}") if "VARCHAR" in second else (lambda i: i * 7)
        expected = [(i, value(i)) for i in range(60)]
        conn.cursor().executemany("INSERT INTO t VALUES (?, ?)", expected)
        h.tamper = _flag_third_tuple
        cur = conn.cursor(fetch_buffer_size=256)
        cur.execute("SELECT id, v FROM t ORDER BY id")
        if how == "arrow":
            table = cur.fetch_arrow_table(batch_rows=1000)
            got = list(zip(table.column("id").to_pylist(), table.column("v").to_pylist()))
        else:
            got = cur.fetchall()
        assert sorted(got) == expected
        assert [w.sqlstate for w in cur.warnings] == ["01003"]
        conn.close()


def test_pep249_messages_mirror_the_warnings(server):
    with _connect(server, "logdb", autocommit=True) as conn:
        assert [(cls, w.sqlstate) for cls, w in conn.messages] == [
            (ifx.Warning, "01I01"), (ifx.Warning, "01I04")]
        cur = conn.cursor()
        cur.execute("CREATE TABLE pm (id INTEGER)")
        try:
            cur.execute("DELETE FROM pm")
            assert [(cls, w.sqlstate) for cls, w in cur.messages] == [(ifx.Warning, "01I07")]
            cur.execute("SELECT id FROM pm")
            assert cur.messages == []
        finally:
            cur.execute("DROP TABLE pm")
