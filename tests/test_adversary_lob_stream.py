"""Adversary: ``cursor(lob="stream")`` readers when the wire fails under
them (a dropped socket, a Ctrl-C, an asyncio cancellation in the middle of
a read): a read either returns the value's own next bytes or raises a PEP
249 error; the bytes handed out never skip, repeat or end early without an
error, and the connection is usable afterwards or says it is broken."""

from __future__ import annotations

import asyncio
import uuid

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, connect, connect_async, rows
from faults.proxy import CALL, DROP, S2C, STALL, Fault, FaultProxy, Interrupter
from informix_stream import lobstream
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)
VALUE = bytes(range(251)) * 10_000                 # 2.5 MB: several chunks, no period 256


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        yield srv


@pytest.fixture(scope="module")
def name(server):
    t = f"as_{uuid.uuid4().hex[:8]}"
    with connect(server, autocommit=True) as c:
        c.cursor().execute(f"CREATE TABLE {t} (id INT, bl BLOB, by BYTE)")
        c.cursor().execute(f"INSERT INTO {t} VALUES (1, ?, ?)", (VALUE, VALUE))
    return t


def _read_until_error(reader, got: bytearray) -> BaseException | None:
    try:
        while True:
            part = reader.read(lobstream.CHUNK // 3)
            if not part:
                return None
            got += part
    except (ifx.Error, KeyboardInterrupt) as exc:
        return exc


@pytest.mark.parametrize("action", [DROP, CALL])
@pytest.mark.parametrize("offset", [0, 7, 100, 40_000])
def test_blob_reader_when_the_wire_fails_mid_read(server, name, action, offset):
    with FaultProxy((server.host, server.port)) as proxy, Interrupter() as intr:
        conn = connect(proxy, autocommit=True, read_timeout=10)
        cur = conn.cursor(lob="stream")
        cur.execute(f"SELECT bl FROM {name} WHERE id = 1")
        (reader,) = cur.fetchone()
        got = bytearray(reader.read(1000))
        proxy.arm(Fault(S2C, offset, action, callback=intr.fire, pause=0.003))
        try:
            failed = _read_until_error(reader, got)
            if action == CALL:
                intr.settle(proxy)
            proxy.disarm()
        except KeyboardInterrupt as exc:        # landed outside the read's own handler
            failed = exc
        assert bytes(got) == VALUE[:len(got)]    # a prefix, never other bytes
        assert failed is not None and len(got) < len(VALUE)     # the fault landed mid-value
        with pytest.raises(ifx.Error):           # a failed reader never reads on
            reader.read(10)
        try:
            assert rows(conn, f"SELECT id FROM {name}") == [(1,)]
        except (ifx.OperationalError, ifx.InterfaceError):
            pass                                 # marked broken: said so
        conn.close()


def test_async_cancel_in_the_middle_of_a_read(server, name):
    async def run() -> tuple[bytes, bool]:
        with FaultProxy((server.host, server.port)) as proxy:
            conn = await connect_async(proxy, autocommit=True, read_timeout=10)
            try:
                cur = conn.cursor(lob="stream")
                await cur.execute(f"SELECT bl FROM {name} WHERE id = 1")
                (reader,) = await cur.fetchone()
                got = bytearray(await reader.read(1000))
                got += await reader.read(lobstream.CHUNK - 1000)    # the buffer drained
                proxy.arm(Fault(S2C, 50, STALL, seconds=1.0))
                task = asyncio.ensure_future(reader.read(lobstream.CHUNK))
                await asyncio.sleep(0.3)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                try:
                    while part := await reader.read(lobstream.CHUNK // 3):
                        got += part
                except ifx.Error:
                    return bytes(got), False
                return bytes(got), True
            finally:
                await conn.close()
    got, whole = asyncio.run(asyncio.wait_for(run(), 60))
    assert got == (VALUE if whole else VALUE[:len(got)])


@pytest.mark.parametrize("change", ["UPDATE {t} SET bl = ?, by = ? WHERE id = 9",
                                    "DELETE FROM {t} WHERE id = 9"])
@pytest.mark.parametrize("where", ["same", "other"])
def test_a_reader_never_gives_the_value_that_replaced_its_own(server, name, change, where):
    """The row is changed after the reader was handed out and before it was
    read: the reader gives the value the row had, or an error; never the
    new value (what a locator naming "the row's column" would read)."""
    a, b = connect(server, autocommit=True), connect(server, autocommit=True)
    a.cursor().execute(f"DELETE FROM {name} WHERE id = 9")
    a.cursor().execute(f"INSERT INTO {name} VALUES (9, ?, ?)", (VALUE, VALUE))
    cur = a.cursor(lob="stream")
    cur.execute(f"SELECT bl, by FROM {name} WHERE id = 9")
    readers = cur.fetchone()
    other = VALUE[::-1]
    params = (other, other) if change.startswith("UPDATE") else None
    (a if where == "same" else b).cursor().execute(change.format(t=name), params)
    for reader in readers:
        try:
            assert reader.read() == VALUE
        except ifx.DatabaseError:
            pass
    assert rows(a, f"SELECT count(*) FROM {name} WHERE id = 9")[0][0] in (0, 1)
    a.cursor().execute(f"DELETE FROM {name} WHERE id = 9")
    a.close(), b.close()


def test_hold_cursor_readers_survive_commit_and_non_hold_ones_say_so(server, name):
    conn = connect(server)
    held = conn.cursor(lob="stream", hold=True)
    held.execute(f"SELECT bl, by FROM {name} WHERE id = 1")
    h_bl, h_by = held.fetchone()
    plain = conn.cursor(lob="stream")
    plain.execute(f"SELECT bl FROM {name} WHERE id = 1")
    (p_bl,) = plain.fetchone()
    assert h_bl.read(10) == VALUE[:10]
    conn.commit()
    assert h_bl.read() == VALUE[10:] and h_by.read() == VALUE
    try:
        assert p_bl.read() == VALUE
    except ifx.Error:
        pass                                     # its cursor ended with the transaction
    conn.close()
