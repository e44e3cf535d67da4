"""The pytest plugin users get from the installed package (entry point informix_stream).

Each scenario runs pytest in a subprocess (``runpytest_subprocess``), so the
plugin is loaded through its entry point exactly as in a user's project.
"""

from __future__ import annotations

import os
import sys

import pytest

import informix_stream

pytest_plugins = ["pytester"]

_SRC = os.path.dirname(os.path.dirname(informix_stream.__file__))


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """Run pytest on the files made in ``pytester``'s directory, bounded in time."""
    # The subprocess imports this checkout's package, whatever is installed.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [_SRC, os.environ.get("PYTHONPATH")])))

    def go(*args: str) -> pytest.RunResult:
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", *args, timeout=120)
    return go


def test_informix_emulator_fixture_serves_testdb(informix_emulator):
    with informix_stream.connect(host=informix_emulator.host, port=informix_emulator.port,
                                 password="in4mix", database="testdb") as conn:
        cur = conn.cursor()
        cur.execute("SELECT COUNT(*) FROM systables WHERE tabname = ?", ("systables",))
        assert cur.fetchone() == (1,)


def test_plugin_is_lazy(pytester, run):
    """A run that uses no fixture imports neither the emulator nor SQLite."""
    pytester.makeconftest("""
        import json, os, sys
        def pytest_sessionfinish(session):
            with open(os.path.join(str(session.config.rootpath), "modules.json"), "w") as f:
                json.dump(sorted(sys.modules), f)
    """)
    pytester.makepyfile(test_plain="def test_nothing():\n    assert 1 + 1 == 2\n")
    run().assert_outcomes(passed=1)
    import json
    modules = set(json.loads((pytester.path / "modules.json").read_text()))
    assert "informix_stream.emulator.pytest_plugin" in modules     # the plugin was loaded
    loaded = sorted(m for m in modules if m.startswith("informix_stream.emulator.")
                    and m != "informix_stream.emulator.pytest_plugin")
    assert loaded == []
    assert "sqlite3" not in modules and "_sqlite3" not in modules


def test_each_test_gets_a_fresh_database(pytester, run):
    """A row one test writes (and commits) is absent from the next test's database."""
    schema = pytester.path / "schema.sql"
    schema.write_text("CREATE TABLE items (id SERIAL, name VARCHAR(20));\n"
                      "INSERT INTO items (name) VALUES ('seed');\n")
    pytester.makepyfile(test_iso="""
        import informix_stream

        def rows(conn):
            cur = conn.cursor()
            cur.execute("SELECT name FROM items ORDER BY id")
            return [r[0] for r in cur.fetchall()]

        def test_first(informix_emulator_db):
            with informix_emulator_db.connect() as conn:
                assert rows(conn) == ["seed"]
                conn.cursor().execute("INSERT INTO items (name) VALUES ('first')")
                conn.commit()
                assert rows(conn) == ["seed", "first"]

        def test_second(informix_emulator_db):
            with informix_emulator_db.connect() as conn:
                assert rows(conn) == ["seed"]

        def test_names_differ(informix_emulator_db, informix_emulator_url):
            assert informix_emulator_url.endswith("/" + informix_emulator_db.name)
    """)
    run(f"--informix-schema={schema}").assert_outcomes(passed=3)


def test_schema_loaded_once_per_session(pytester, run):
    """The ini option's schema runs once into the template, not once per test:
    a SERIAL counter the schema's own insert moved stays where the template left it."""
    (pytester.path / "sql").mkdir()
    (pytester.path / "sql" / "schema.sql").write_text("""
        -- the schema file of a user's project; comments and literals with ; inside
        CREATE TABLE loads (n SERIAL, note VARCHAR(40));
        INSERT INTO loads (note) VALUES ('loaded; once');
    """)
    pytester.makeini("[pytest]\ninformix_emulator_schema = sql/schema.sql\n")
    pytester.makepyfile(test_once="""
        import pytest

        @pytest.mark.parametrize("i", range(3))
        def test_template_loaded_once(informix_emulator_db, informix_emulator, i):
            with informix_emulator_db.connect() as conn:
                cur = conn.cursor()
                cur.execute("SELECT n, note FROM loads")
                assert cur.fetchall() == [(1, "loaded; once")]
            # the template itself holds exactly one load
            with informix_emulator_db.__class__("pytest_template", informix_emulator.host,
                                                informix_emulator.port).connect() as conn:
                cur = conn.cursor()
                cur.execute("SELECT count(*) FROM loads")
                assert cur.fetchone() == (1,)
    """)
    run().assert_outcomes(passed=3)


def test_url_connects_and_database_dropped_after_test(pytester, run):
    pytester.makepyfile(test_url="""
        import informix_stream
        import pytest

        seen = []

        def test_url(informix_emulator_url):
            assert informix_emulator_url.startswith("informix://informix:in4mix@127.0.0.1:")
            with informix_stream.connect(informix_emulator_url, autocommit=True) as conn:
                cur = conn.cursor()
                cur.execute("CREATE TABLE t (a INT)")
                cur.execute("INSERT INTO t VALUES (7)")
                cur.execute("SELECT a FROM t")
                assert cur.fetchall() == [(7,)]
            seen.append(informix_emulator_url.rsplit("/", 1)[1])

        def test_left_open(informix_emulator_db):
            # a connection the test forgets to close does not stop the drop
            conn = informix_emulator_db.connect()
            conn.cursor().execute("SELECT 1 FROM systables WHERE tabid = 1")
            seen.append(informix_emulator_db.name)

        def test_previous_databases_are_gone(informix_emulator):
            assert len(seen) == 2
            for name in seen:
                assert not informix_emulator.engine.has_database(name)
                with pytest.raises(informix_stream.DatabaseError) as info:
                    informix_stream.connect(host=informix_emulator.host,
                                            port=informix_emulator.port,
                                            password="in4mix", database=name)
                assert info.value.sqlcode == -329
    """)
    run("-p", "no:randomly").assert_outcomes(passed=3)


def test_bad_schema_fails_with_its_place(pytester, run):
    schema = pytester.path / "bad.sql"
    schema.write_text("CREATE TABLE ok (a INT);\nCREATE TABLE broken (a NOSUCHTYPE);\n")
    pytester.makepyfile(test_bad="def test_x(informix_emulator_db):\n    pass\n")
    result = run(f"--informix-schema={schema}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*bad.sql: statement 2 failed*"])


def test_informix_driver_connects_to_the_fresh_database(pytester, run):
    """Interop: informix-driver (informix_db) reaches the per-test database too."""
    pytest.importorskip("informix_db", reason="informix-driver is not installed")
    pytester.makepyfile(test_interop="""
        import informix_db

        def test_with_informix_db(informix_emulator_db):
            conn = informix_db.connect(host=informix_emulator_db.host,
                                       port=informix_emulator_db.port,
                                       user=informix_emulator_db.user,
                                       password=informix_emulator_db.password,
                                       database=informix_emulator_db.name,
                                       server=informix_emulator_db.server)
            try:
                cur = conn.cursor()
                cur.execute("CREATE TABLE d (a INT)")
                cur.execute("INSERT INTO d VALUES (5)")
                conn.commit()
                cur.execute("SELECT a FROM d")
                assert cur.fetchall() == [(5,)]
            finally:
                conn.close()
    """)
    run().assert_outcomes(passed=1)
