"""Locales judged by IBM's JDBC driver (issue 12 item 1): text written by
JDBC, by our driver and by informix-driver into a UTF-8 and a Latin-1
emulator database reads back the same through all three.

JDBC names its locales in the URL (CLIENT_LOCALE/DB_LOCALE); without
DB_LOCALE it learns the database's locale from systables' ' GL_COLLATE' row
after the database opens (IfxSqliConnect.setDatabaseLocale), which the
emulator serves.
"""

from __future__ import annotations

from dataclasses import dataclass

import informix_db
import pytest

import informix_stream
from informix_stream.emulator import EmulatorServer

from .jdbc_runner import URL_EXTRA_ENV

USER, PASSWORD = "informix", "in4mix"
CASES = {
    "utf8db": ("en_US.utf8", ["日本語テキスト", "emoji 😀 ok", "ñandú Ελληνικά"]),
    "latindb": ("en_US.8859-1", ["héllo wörld", "Ærøskøbing", "¿qué?"]),
}


@dataclass
class _Target:
    host: str
    port: int
    database: str
    user: str = USER
    password: str = PASSWORD
    server: str = "informix"


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases={"latindb": "en_US.8859-1", "utf8db": "en_US.utf8"}) as srv:
        yield srv


def _escape(text: str) -> str:
    """Every non-ASCII UTF-16 unit as a backslash-u escape (argv carries ASCII)."""
    units = text.encode("utf-16-be")
    out = []
    for i in range(0, len(units), 2):
        code = int.from_bytes(units[i:i + 2], "big")
        out.append(chr(code) if code < 0x80 and chr(code) != "\\" else f"\\u{code:04x}")
    return "".join(out)


def _from_java(text: str | None) -> str | None:
    """The runner's unescape gives UTF-16 surrogates for astral characters."""
    return None if text is None else text.encode("utf-16", "surrogatepass").decode("utf-16")


@pytest.mark.parametrize("database", sorted(CASES))
@pytest.mark.parametrize("jdbc_names_locale", [True, False], ids=["url-locale", "learned"])
def test_three_clients_read_the_same_text(jdbc, server, monkeypatch, database,
                                          jdbc_names_locale):
    locale, texts = CASES[database]
    table = f"li_{database}_{int(jdbc_names_locale)}"
    with informix_stream.connect(host="127.0.0.1", port=server.port, user=USER,
                                 password=PASSWORD, database=database, db_locale=locale,
                                 autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {table} (id INTEGER, v VARCHAR(60), l LVARCHAR(100))")
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?)",
                        [(i, t, t) for i, t in enumerate(texts)])
    with informix_db.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD,
                             database=database, client_locale=locale,
                             env={"DB_LOCALE": locale}, read_timeout=10) as other:
        c = other.cursor()
        c.execute(f"INSERT INTO {table} VALUES (?, ?, ?)", (10, texts[0], texts[0]))
        other.commit()
    if jdbc_names_locale:
        monkeypatch.setenv(URL_EXTRA_ENV, f"CLIENT_LOCALE={locale};DB_LOCALE={locale}")
    else:
        monkeypatch.delenv(URL_EXTRA_ENV, raising=False)
    insert = f"INSERT INTO {table} (id, v, l) VALUES (?, ?, NULL)"
    select = f"SELECT id, v FROM {table} ORDER BY id"
    result = jdbc.run(_Target("127.0.0.1", server.port, database), "text",
                      insert, select, "20", _escape(texts[2])).check()
    errors = [r for r in result.records if r[0] == "ERROR"]
    assert errors == []
    seen_by_jdbc = [(int(r[1]), _from_java(r[2])) for r in result.records if r[0] == "row"]
    expected = [(i, t) for i, t in enumerate(texts)] + [(10, texts[0]), (20, texts[2])]
    assert seen_by_jdbc == expected
    with informix_stream.connect(host="127.0.0.1", port=server.port, user=USER,
                                 password=PASSWORD, database=database) as conn:
        cur = conn.cursor()
        cur.execute(select)
        assert cur.fetchall() == expected
    with informix_db.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD,
                             database=database, client_locale=locale,
                             env={"DB_LOCALE": locale}, read_timeout=10) as other:
        c = other.cursor()
        c.execute(select)
        assert [tuple(r) for r in c.fetchall()] == expected
