"""The emulator as a server: bad input, disconnects, concurrency, command line."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import informix_stream
from informix_stream.emulator import EmulatorServer
from informix_stream.framing import Reader
from informix_stream.login import LoginRequest, build_login_request, parse_login_reply, read_sl_pdu
from informix_stream.messages import Tag

SRC = str(Path(__file__).resolve().parent.parent / "src")


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=("testdb",)) as srv:
        yield srv


def _connect(srv, **kw):
    return informix_stream.connect(host=srv.host, port=srv.port, password="in4mix",
                                   database="testdb", read_timeout=10, **kw)


def _raw_login(srv) -> socket.socket:
    sock = socket.create_connection((srv.host, srv.port), timeout=10)
    sock.sendall(build_login_request(LoginRequest("informix", "in4mix", "informix")))
    buf = b""
    while True:
        buf += sock.recv(4096)
        try:
            sl_type, body, _ = read_sl_pdu(buf)
            break
        except Exception:  # noqa: BLE001 - Incomplete until the whole PDU is in
            continue
    assert parse_login_reply(sl_type, body).accepted
    return sock


def _recv_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


@pytest.mark.parametrize("garbage", [
    bytes.fromhex("7fff000c"),                    # unknown message tag
    bytes.fromhex("0002 0000 ffffffff".replace(" ", "")),  # negative SQL length
    bytes.fromhex("0005 ffff 000c".replace(" ", "")),      # negative parameter count
    bytes.fromhex("0005 0001 0009 0000 0000 000c".replace(" ", "")),  # unsupported bind type 9
])
def test_malformed_request_gets_protocol_error_and_only_that_connection_closes(server, garbage):
    bystander = _connect(server)
    sock = _raw_login(server)
    sock.sendall(garbage)
    reply = _recv_all(sock)          # the server answers, then closes
    r = Reader(reply)
    assert (r.short(), r.short()) == (Tag.ERR, -408)
    sock.close()
    cur = bystander.cursor()
    cur.execute("SELECT COUNT(*) FROM systables")
    assert cur.fetchone()[0] > 0
    bystander.close()


def test_oversized_or_garbage_login_is_refused_without_killing_the_server(server):
    for junk in (b"\xff\xff" + b"\x01" * 100, b"\x00\x10\x01\x3c\x00\x00" + bytes(10)):
        sock = socket.create_connection((server.host, server.port), timeout=10)
        sock.sendall(junk)
        assert _recv_all(sock) == b""
        sock.close()
    conn = _connect(server)
    conn.close()


def test_truncated_request_then_disconnect_is_harmless(server):
    sock = _raw_login(server)
    sock.sendall(bytes.fromhex("0002000000000100"))   # a PREPARE cut short
    sock.close()
    conn = _connect(server)
    conn.cursor().execute("SELECT COUNT(*) FROM systables")
    conn.close()


def test_client_vanishing_mid_fetch_frees_its_cursor(server):
    setup = _connect(server, autocommit=True)
    cur = setup.cursor()
    cur.execute("CREATE TABLE vanish (id INTEGER)")
    cur.executemany("INSERT INTO vanish VALUES (?)", [(i,) for i in range(5000)])
    before = threading.active_count()
    reader = _connect(server, fetch_buffer_size=256)
    rc = reader.cursor()
    rc.execute("SELECT id FROM vanish")
    assert rc.fetchone() == (0,)
    reader._io.sock.close()          # the client dies without a goodbye
    deadline = time.time() + 5
    while threading.active_count() >= before + 1 and time.time() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before   # its session thread ended
    cur.execute("DROP TABLE vanish")           # no lock or cursor left behind
    setup.close()


def test_many_concurrent_sessions(server):
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            with _connect(server) as conn:
                cur = conn.cursor()
                for _ in range(20):
                    cur.execute("SELECT COUNT(*) FROM systables WHERE tabid > ?", (n % 3,))
                    assert cur.fetchone()[0] >= 1
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []


def test_wrong_password_and_unknown_database(server):
    with pytest.raises(informix_stream.OperationalError) as info:
        informix_stream.connect(host=server.host, port=server.port, password="nope",
                                database="testdb")
    assert info.value.sqlcode == -951
    with pytest.raises(informix_stream.OperationalError) as info:
        informix_stream.connect(host=server.host, port=server.port, password="in4mix",
                                database="nosuchdb")
    assert info.value.sqlcode == -329 and info.value.isam_code == -111


def _start_cli(*args: str) -> tuple[subprocess.Popen, str, int]:
    proc = subprocess.Popen([sys.executable, "-m", "informix_stream.emulator", "--port", "0", *args],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": SRC})
    line = proc.stdout.readline().strip()
    assert line.startswith("listening on "), line
    host, port = line.removeprefix("listening on ").rsplit(":", 1)
    return proc, host, int(port)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_command_line_prints_address_and_stops_cleanly(sig):
    proc, host, port = _start_cli("--database", "one", "--database", "two")
    try:
        for db in ("one", "two"):
            informix_stream.connect(host=host, port=port, password="in4mix", database=db).close()
    finally:
        proc.send_signal(sig)
        assert proc.wait(timeout=10) == 0


def test_command_line_data_dir_persists_across_restarts(tmp_path):
    args = ("--database", "keep", "--data-dir", str(tmp_path), "--user", "etl",
            "--password", "s3cret")
    proc, host, port = _start_cli(*args)
    try:
        with informix_stream.connect(host=host, port=port, user="etl", password="s3cret",
                                     database="keep") as conn:
            cur = conn.cursor()
            cur.execute("CREATE TABLE kept (id INTEGER, name VARCHAR(10))")
            cur.execute("INSERT INTO kept VALUES (?, ?)", (7, "seven"))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    proc, host, port = _start_cli(*args)
    try:
        with informix_stream.connect(host=host, port=port, user="etl", password="s3cret",
                                     database="keep") as conn:
            cur = conn.cursor()
            cur.execute("SELECT id, name FROM kept")
            assert cur.fetchall() == [(7, "seven")]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_command_line_rejects_a_bad_port():
    proc = subprocess.run([sys.executable, "-m", "informix_stream.emulator", "--port", "70000"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC})
    assert proc.returncode == 2 and "--port" in proc.stderr


def test_in_process_context_manager_reports_its_port():
    with EmulatorServer(port=0) as srv:
        assert srv.port > 0
        informix_stream.connect(host=srv.host, port=srv.port, password="in4mix",
                                database="testdb").close()
    with pytest.raises(OSError):
        socket.create_connection((srv.host, srv.port), timeout=2)


def test_bare_exit_is_answered_with_exit_then_close(server):
    sock = _raw_login(server)
    sock.sendall(b"\x00\x38")
    assert _recv_all(sock) == b"\x00\x38"
    sock.close()


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    import shutil
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed, so no test certificate can be made")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")],
                   check=True, capture_output=True)
    return d / "cert.pem", d / "key.pem"


def test_tls_connections_verified_and_unverified(tls_files):
    import ssl
    cert, key = tls_files
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)
    with EmulatorServer(tls=server_ctx) as srv:
        verified = ssl.create_default_context(cafile=str(cert))
        for kw in ({"tls": verified}, {"tls": True, "tls_insecure_skip_verify": True}):
            with informix_stream.connect(host="127.0.0.1", port=srv.port, password="in4mix",
                                         database="testdb", **kw) as conn:
                cur = conn.cursor()
                cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = ?", (1,))
                assert cur.fetchone() == (1,)
        # tls=True verifies with the system trust store: a self-signed
        # certificate is refused before the password is sent.
        with pytest.raises(informix_stream.OperationalError, match="CERTIFICATE_VERIFY_FAILED"):
            informix_stream.connect(host="127.0.0.1", port=srv.port, password="in4mix",
                                    database="testdb", tls=True)
        with pytest.raises(informix_stream.OperationalError, match="TLS"):
            informix_stream.connect(host="127.0.0.1", port=srv.port, password="in4mix",
                                    database="testdb", tls=ssl.create_default_context())
        with pytest.raises(informix_stream.OperationalError):
            informix_stream.connect(host="127.0.0.1", port=srv.port, password="in4mix",
                                    database="testdb", connect_timeout=3, read_timeout=3)


def test_a_request_sent_a_byte_at_a_time_costs_linear_work():
    """Issue 9 item 10: an unterminated request is not re-parsed from its
    start for every byte (quadratic); another client is not held up."""
    from informix_stream.framing import Writer as W
    with EmulatorServer(databases=("testdb",)) as srv:
        slow = informix_stream.connect(host=srv.host, port=srv.port, password="in4mix",
                                       database="testdb", read_timeout=60)
        other = informix_stream.connect(host=srv.host, port=srv.port, password="in4mix",
                                        database="testdb", read_timeout=60)
        w = W()
        for _ in range(60_000):                 # 240 KB of small messages, then EOT
            w.short(Tag.ID).short(0)
        request = w.short(Tag.EOT).getvalue()
        sock = slow._io.sock
        started = time.monotonic()
        worst = 0.0
        for i in range(len(request)):
            sock.send(request[i:i + 1])
            if i % 60_000 == 0:
                t = time.monotonic()
                cur = other.cursor()
                cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = 1")
                assert cur.fetchone() == (1,)
                worst = max(worst, time.monotonic() - t)
        sock.settimeout(30)
        reply = b""
        while not reply.endswith(b"\x00\x0c"):
            reply += sock.recv(4096)
        elapsed = time.monotonic() - started
        assert reply[:2] == b"\x00\x0d"             # SQ_ERR: statement 0 does not exist
        assert elapsed < 20, elapsed
        assert worst < 1.0, worst
        slow.close()
        other.close()
