"""Locales end to end (issue 12 item 1): our driver and informix-driver
against emulator databases in ISO 8859-1 and in UTF-8.

The wire carries text in the database's code set; a session whose DB_LOCALE
differs is told so (SQLWARN7) and goes on in the database's locale; VARCHAR(n)
holds n bytes, a longer value cut at a character boundary; bytes invalid in
the code set are a DataError naming the column, the connection usable after.
"""

from __future__ import annotations

import informix_db
import pytest

import informix_stream
from informix_stream import DataError, NotSupportedError, OperationalError
from informix_stream.emulator import EmulatorServer
from informix_stream.locales import fit_bytes, parse_locale

USER, PASSWORD = "informix", "in4mix"
UTF8_TEXTS = ["héllo wörld", "日本語のテキスト", "emoji 😀🎉", "Ελληνικά", "中文 한국어", ""]
LATIN1_TEXTS = ["héllo wörld", "Ærøskøbing", "ñandú ¿qué?", "plain ascii", ""]


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases={"latindb": "en_US.8859-1", "utf8db": "en_US.utf8"}) as srv:
        yield srv


def ours(server, database: str, **kw):
    return informix_stream.connect(host="127.0.0.1", port=server.port, user=USER,
                                   password=PASSWORD, database=database, **kw)


def theirs(server, database: str, locale: str):
    return informix_db.connect(host="127.0.0.1", port=server.port, user=USER,
                               password=PASSWORD, database=database, client_locale=locale,
                               env={"DB_LOCALE": locale}, read_timeout=10)


def test_utf8_database_learned_without_db_locale(server):
    """No db_locale: the login's DB_LOCALE (the default) mismatches, the
    server sets SQLWARN7 and the driver asks the catalog, as JDBC does."""
    with ours(server, "utf8db") as conn:
        assert (conn.encoding, conn.db_locale) == ("utf-8", "en_US.57372")
    with ours(server, "utf8db", db_locale="en_US.utf8", client_locale="en_US.utf8") as conn:
        assert (conn.encoding, conn.db_locale) == ("utf-8", "en_US.57372")
    with ours(server, "latindb") as conn:
        assert (conn.encoding, conn.db_locale) == ("iso-8859-1", "en_US.819")


@pytest.mark.parametrize("database,locale,texts", [
    ("utf8db", "en_US.utf8", UTF8_TEXTS), ("latindb", "en_US.8859-1", LATIN1_TEXTS)])
def test_text_round_trips_through_both_drivers(server, database, locale, texts):
    table = f"rt_{database}"
    with ours(server, database, db_locale=locale, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {table} (id INTEGER, v VARCHAR(60), c CHAR(40),"
                    " n NVARCHAR(60), l LVARCHAR(200))")
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)",
                        [(i, t, t, t, t) for i, t in enumerate(texts)])
    with theirs(server, database, locale) as other:
        cur = other.cursor()
        cur.execute(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)",
                    (100, texts[1], texts[1], texts[1], texts[1]))
        other.commit()
        cur.execute(f"SELECT id, v, n, l FROM {table} ORDER BY id")
        seen_by_them = [tuple(r) for r in cur.fetchall()]
    with ours(server, database) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT id, v, n, l FROM {table} ORDER BY id")
        seen_by_us = cur.fetchall()
        cur.execute(f"SELECT c FROM {table} WHERE id = 1")
        (char_value,) = cur.fetchone()
    expected = [(i, t, t, t) for i, t in enumerate(texts)] + [(100,) + (texts[1],) * 3]
    assert seen_by_us == expected
    assert seen_by_them == expected
    # CHAR(40) is 40 bytes of the code set, blank padded
    assert len(char_value.encode(parse_locale(locale).codec)) == 40
    assert char_value.rstrip() == texts[1]


def test_sql_text_and_names_travel_in_the_code_set(server):
    with ours(server, "utf8db", autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("SELECT '日本' || 'ü' AS grüße FROM systables WHERE tabid = 1")
        assert cur.fetchone() == ("日本ü",)
        assert cur.description[0][0] == "grüße"


def test_varchar_holds_bytes_and_is_cut_at_a_character_boundary(server):
    with ours(server, "utf8db", autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE cut (id INTEGER, v VARCHAR(10), c CHAR(5))")
        cur.execute("INSERT INTO cut VALUES (1, ?, ?)", ("日本語テキスト", "äöü"))
        cur.execute("INSERT INTO cut VALUES (2, '😀😀😀', 'aé€')")
        cur.execute("SELECT id, v, c, LENGTH(v) FROM cut ORDER BY id")
        rows = cur.fetchall()
    # 3 bytes each: 3 characters are 9 bytes, the 4th would end past 10
    # ä ö are 2 bytes each: ü would end at byte 6 of CHAR(5), so it goes and
    # the value is blank padded to 5 bytes; € (3 bytes) after a é (3) likewise
    assert rows == [(1, "日本語", "äö ", 9), (2, "😀😀", "aé  ", 8)]


def test_latin1_varchar_cut_at_its_bytes(server):
    with ours(server, "latindb", autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE cut1 (v VARCHAR(4))")
        cur.execute("INSERT INTO cut1 VALUES (?)", ("éèêëxyz",))
        cur.execute("SELECT v FROM cut1")
        assert cur.fetchall() == [("éèêë",)]


def test_text_the_code_set_lacks_is_a_data_error(server):
    with ours(server, "latindb", autocommit=True) as conn:
        cur = conn.cursor()
        with pytest.raises(DataError, match="iso-8859-1"):
            cur.execute("SELECT 1 FROM systables WHERE tabname = ?", ("日本",))
        with pytest.raises(DataError, match="code set"):
            cur.execute("SELECT '日本' FROM systables")
        cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = 1")
        assert cur.fetchone() == (1,)


def test_invalid_bytes_from_the_server_name_the_column(server):
    """A UTF-8 session reading a Latin-1 database's bytes as if they were
    UTF-8 (env overrides what the driver would learn) gets DataError naming
    the column, and the connection stays usable."""
    with ours(server, "latindb", autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE badbytes (id INTEGER, v VARCHAR(20))")
        cur.execute("INSERT INTO badbytes VALUES (1, ?)", ("café",))
    with ours(server, "latindb", db_locale="en_US.utf8") as conn:
        # the server flags the mismatch and the driver follows the database
        assert conn.encoding == "iso-8859-1"
    conn = ours(server, "latindb")
    try:
        conn._session.encoding = "utf-8"   # what a driver trusting its own guess would do
        cur = conn.cursor()
        with pytest.raises(DataError, match=r"column 2 \(VARCHAR\(20\)\)") as info:
            cur.execute("SELECT id, v FROM badbytes")
            cur.fetchall()
        assert not isinstance(info.value, UnicodeError)
        cur.execute("SELECT id FROM badbytes")
        assert cur.fetchall() == [(1,)]
    finally:
        conn.close()


def test_locale_the_server_cannot_load_is_its_error(server):
    with pytest.raises(OperationalError) as info:
        ours(server, "utf8db", client_locale="zz_ZZ.utf8")
    assert info.value.sqlcode == -23101
    assert "zz_ZZ.utf8" in str(info.value)
    with ours(server, "utf8db") as conn:     # the server goes on serving
        assert conn.encoding == "utf-8"


@pytest.mark.parametrize("name", ["en_US.bogus", "en_US", "utf8"])
def test_unknown_code_set_refused_before_connecting(name):
    with pytest.raises(NotSupportedError, match="code set|locale"):
        informix_stream.connect(host="127.0.0.1", port=1, user=USER, password=PASSWORD,
                                client_locale=name)


@pytest.mark.parametrize("name,codec,number", [
    ("en_US.8859-1", "iso-8859-1", 819), ("en_US.819", "iso-8859-1", 819),
    ("en_US.utf8", "utf-8", 57372), ("en_US.57372", "utf-8", 57372),
    ("de_DE.8859-15", "iso-8859-15", 923), ("en_US.1252", "cp1252", 1252),
    ("en_US.CP1252", "cp1252", 1252)])
def test_locale_names_as_informix_spells_them(name, codec, number):
    loc = parse_locale(name)
    assert (loc.codec, loc.code_set) == (codec, number)


def test_locales_from_dsn_and_environment(monkeypatch):
    from informix_stream.connect_params import resolve
    monkeypatch.setenv("IFX_DB_LOCALE", "en_US.utf8")
    params = resolve("informix://u:p@127.0.0.1:9/db?client_locale=de_DE.8859-15", {})
    assert (params.client_locale, params.db_locale) == ("de_DE.8859-15", "en_US.utf8")


def test_fit_bytes_never_cuts_inside_a_character():
    assert fit_bytes("aé", 2, "utf-8") == ("a", b"a")
    assert fit_bytes("😀x", 3, "utf-8") == ("", b"")
    assert fit_bytes("éé", 3, "iso-8859-1") == ("éé", "éé".encode("iso-8859-1"))


def test_command_line_gives_databases_their_locales(capsys):
    from informix_stream.emulator.__main__ import _databases, main
    assert _databases(["testdb", "u8=en_US.utf8"]) == {"testdb": None, "u8": "en_US.utf8"}
    with pytest.raises(SystemExit) as info:
        main(["--port", "0", "--database", "bad=en_US.klingon"])
    assert info.value.code == 2
    assert "klingon" in capsys.readouterr().err


def test_login_field_outside_latin1_is_an_interface_error(server):
    from informix_stream.errors import InterfaceError
    with pytest.raises(InterfaceError, match="ISO 8859-1"):
        informix_stream.connect(host="127.0.0.1", port=server.port, user="用户", password="x",
                                connect_timeout=5)


def test_arrow_batches_carry_utf8_text_and_refuse_invalid_bytes(server):
    pa = pytest.importorskip("pyarrow", reason="the arrow extra is not installed")
    texts = ["日本語テキスト", "emoji 😀", None, "ascii", "Ελληνικά"]
    with ours(server, "utf8db", autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE arrow_u8 (id INTEGER, v VARCHAR(60), c CHAR(24))")
        cur.executemany("INSERT INTO arrow_u8 VALUES (?, ?, ?)",
                        [(i, t, t) for i, t in enumerate(texts)])
        cur.execute("SELECT v, c FROM arrow_u8 ORDER BY id")
        table = cur.fetch_arrow_table()
    assert table.column("v").to_pylist() == texts
    assert [None if t is None else t.rstrip() for t in table.column("c").to_pylist()] == texts
    assert isinstance(table.column("v").type, type(pa.string()))
    with ours(server, "latindb", autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE arrow_l1 (id INTEGER, v VARCHAR(20))")
        cur.execute("INSERT INTO arrow_l1 VALUES (1, ?)", ("café",))
        conn._session.encoding = "utf-8"   # bytes that are not UTF-8 arrive
        with pytest.raises(DataError, match=r"VARCHAR\(20\)"):
            cur.execute("SELECT id, v FROM arrow_l1")
            cur.fetch_arrow_table()
        cur.execute("SELECT COUNT(*) FROM arrow_l1")
        assert cur.fetchone() == (1,)


def test_create_database_takes_the_sessions_db_locale(server):
    """CREATE DATABASE makes the database in the creating session's
    DB_LOCALE (IBM GLS User's Guide, "The database locale")."""
    with ours(server, None, db_locale="en_US.utf8", autocommit=True) as conn:
        conn.cursor().execute("CREATE DATABASE made_utf8 WITH LOG")
    with ours(server, "made_utf8") as conn:
        assert conn.db_locale == "en_US.57372"
