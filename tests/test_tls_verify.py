"""Issue 9 item 6: TLS verifies by default, and the password never reaches
a server whose certificate was not verified.

An impostor with a self-signed certificate records every byte a client
sends it after the handshake: with ``tls=True`` it must record nothing.
``tls=SSLContext`` trusting the certificate works, ``tls_server_hostname``
names the certificate's host when connecting by IP, and only
``tls_insecure_skip_verify=True`` turns verification off.
"""

from __future__ import annotations

import shutil
import ssl
import subprocess
import time

import pytest

import informix_stream as ifx
from faults.emu import PASSWORD, TrackedEmulator, connect
from faults.hostile import Impostor

pytestmark = pytest.mark.timeout(60)


def make_cert(directory, name: str, san: str) -> tuple[str, str]:
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", f"/CN={name}", "-addext", f"subjectAltName={san}",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return str(cert), str(key)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed, so no test certificate can be made")
    d = tmp_path_factory.mktemp("tls9")
    return {"local": make_cert(d, "localhost", "DNS:localhost,IP:127.0.0.1"),
            "named": make_cert(d, "ifx.example.test", "DNS:ifx.example.test")}


def server_context(cert: str, key: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    return ctx


def trusting(cert: str) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=cert)


@pytest.fixture
def tls_emu(certs, monkeypatch):
    with TrackedEmulator(monkeypatch, tls=server_context(*certs["local"])) as e:
        e.cert = certs["local"][0]
        yield e


@pytest.fixture
def named_emu(certs, monkeypatch):
    with TrackedEmulator(monkeypatch, tls=server_context(*certs["named"])) as e:
        yield e


def works(conn: ifx.Connection) -> None:
    cur = conn.cursor()
    cur.execute("SELECT tabid FROM systables WHERE tabid = ?", (1,))
    assert cur.fetchall() == [(1,)]
    conn.close()


def test_impostor_with_self_signed_certificate_never_gets_the_password(certs):
    with Impostor(*certs["local"]) as imp:
        start = time.monotonic()
        with pytest.raises(ifx.OperationalError, match="(?i)certificate|verify|TLS"):
            connect(imp, tls=True, connect_timeout=5)
        assert time.monotonic() - start < 5
        time.sleep(0.3)
        assert bytes(imp.received) == b""


def test_impostor_sees_the_password_when_verification_is_turned_off(certs):
    """The check above can fail: without verification the login reaches it."""
    with Impostor(*certs["local"]) as imp:
        with pytest.raises(ifx.OperationalError):
            connect(imp, tls=True, tls_insecure_skip_verify=True, connect_timeout=2)
        deadline = time.monotonic() + 5
        while PASSWORD.encode() not in imp.received and time.monotonic() < deadline:
            time.sleep(0.05)
        assert PASSWORD.encode() in imp.received


@pytest.mark.parametrize("tls", [True, "default-context"])
def test_no_login_reaches_a_server_that_was_not_verified(tls_emu, tls):
    ctx = ssl.create_default_context() if tls == "default-context" else True
    with pytest.raises(ifx.OperationalError):
        connect(tls_emu, tls=ctx, connect_timeout=5)
    time.sleep(0.2)
    assert list(tls_emu.sessions) == []            # no session: no login arrived
    conn = connect(tls_emu, tls=trusting(tls_emu.cert))
    assert len(list(tls_emu.sessions)) == 1         # ... whereas a verified one logs in
    works(conn)


def test_context_trusting_the_certificate_connects(tls_emu, certs):
    works(connect(tls_emu, tls=trusting(certs["local"][0])))


def test_insecure_skip_verify_connects(tls_emu):
    works(connect(tls_emu, tls=True, tls_insecure_skip_verify=True))


def test_server_hostname_names_the_certificate_when_connecting_by_ip(named_emu, certs):
    ctx = trusting(certs["named"][0])
    with pytest.raises(ifx.OperationalError, match="(?i)hostname|match|certificate"):
        connect(named_emu, tls=ctx, connect_timeout=5)
    with pytest.raises(ifx.OperationalError):
        connect(named_emu, tls=ctx, tls_server_hostname="other.example.test",
                connect_timeout=5)
    works(connect(named_emu, tls=ctx, tls_server_hostname="ifx.example.test"))


def test_tls_client_never_falls_back_to_clear_text(monkeypatch):
    """A plain server (a downgrade) gets a TLS hello, never the login."""
    with TrackedEmulator(monkeypatch) as plain:
        with pytest.raises(ifx.OperationalError):
            connect(plain, tls=True, tls_insecure_skip_verify=True, connect_timeout=3)
        time.sleep(0.2)
        assert list(plain.sessions) == []


@pytest.mark.parametrize("kw", [{"tls_insecure_skip_verify": True},
                                {"tls_server_hostname": "ifx.example.test"},
                                {"tls": "ctx", "tls_insecure_skip_verify": True}])
def test_tls_options_that_contradict_each_other_are_refused(tls_emu, kw):
    if kw.get("tls") == "ctx":
        kw = dict(kw, tls=ssl.create_default_context())
    with pytest.raises(ifx.InterfaceError):
        connect(tls_emu, **kw)
