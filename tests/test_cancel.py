"""conn.cancel() and statement time limits: the server ends the running
statement with -213, the call raises OperationalError, the connection lives.
The wire form is TCP urgent data, as IBM's JDBC sends it (docs/protocol.md 7.14)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import informix_stream as ifx
from test_driver import connect, unique

# A statement that takes seconds on the emulator: a triple cross join.
SLOW = "SELECT COUNT(*) FROM {t} a, {t} b, {t} c WHERE a.id + b.id + c.id >= 0"


@pytest.fixture
def slow_table(ifx_target) -> str:
    t = unique("slow")
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        cur.execute(f"CREATE TABLE {t} (id INTEGER)")
        cur.executemany(f"INSERT INTO {t} VALUES (?)", [(i,) for i in range(400)])
    return t


def test_cancel_from_another_thread(ifx_target, slow_table):
    c = connect(ifx_target, autocommit=True)
    timer = threading.Timer(0.3, c.cancel)
    timer.start()
    started = time.monotonic()
    with pytest.raises(ifx.OperationalError) as info:
        c.cursor().execute(SLOW.format(t=slow_table))
    assert info.value.sqlcode == -213
    assert time.monotonic() - started < 5
    cur = c.cursor()
    cur.execute(f"SELECT COUNT(*) FROM {slow_table}")
    assert cur.fetchone() == (400,)
    c.close()


def test_statement_timeout_cancels(ifx_target, slow_table):
    c = connect(ifx_target, autocommit=True, statement_timeout=0.3)
    with pytest.raises(ifx.OperationalError) as info:
        c.cursor().execute(SLOW.format(t=slow_table))
    assert info.value.sqlcode == -213
    cur = c.cursor()
    cur.execute(f"SELECT COUNT(*) FROM {slow_table}", timeout=10)
    assert cur.fetchone() == (400,)
    c.close()


def test_async_cancel(ifx_target, slow_table):
    async def main() -> None:
        c = await ifx.connect_async(host=ifx_target.host, port=ifx_target.port,
                                    user=ifx_target.user, password=ifx_target.password,
                                    database=ifx_target.database, autocommit=True)
        asyncio.get_running_loop().call_later(0.3, c.cancel)
        with pytest.raises(ifx.OperationalError) as info:
            await c.cursor().execute(SLOW.format(t=slow_table))
        assert info.value.sqlcode == -213
        cur = c.cursor()
        await cur.execute(f"SELECT COUNT(*) FROM {slow_table}")
        assert await cur.fetchone() == (400,)
        await c.close()
    asyncio.run(main())


def test_cancel_with_nothing_running_is_harmless(ifx_target):
    c = connect(ifx_target, autocommit=True)
    c.cancel()
    time.sleep(0.1)
    cur = c.cursor()
    cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = 1")
    assert cur.fetchone() == (1,)
    c.close()
    c.cancel()                                     # closed: nothing to do


def test_cancel_over_tls_goes_beneath_the_tls_layer(tmp_path):
    import shutil
    import ssl
    import subprocess

    from informix_stream.emulator import EmulatorServer
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed, so no test certificate can be made")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
                   check=True, capture_output=True)
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    with EmulatorServer(tls=server_ctx) as srv:
        c = ifx.connect(host="127.0.0.1", port=srv.port, password="in4mix", database="testdb",
                        autocommit=True,
                        tls=ssl.create_default_context(cafile=str(tmp_path / "cert.pem")))
        t = unique("slow")
        cur = c.cursor()
        cur.execute(f"CREATE TABLE {t} (id INTEGER)")
        cur.executemany(f"INSERT INTO {t} VALUES (?)", [(i,) for i in range(400)])
        threading.Timer(0.3, c.cancel).start()
        with pytest.raises(ifx.OperationalError) as info:
            cur.execute(SLOW.format(t=t))
        assert info.value.sqlcode == -213
        cur.execute(f"SELECT COUNT(*) FROM {t}")
        assert cur.fetchone() == (400,)           # the TLS stream is intact
        c.close()
