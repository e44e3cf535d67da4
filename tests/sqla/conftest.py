"""Runs SQLAlchemy's dialect compliance suite; starts an emulator unless --dburi is given.

SQLAlchemy's pytest plugin owns this session (its hooks are imported below,
as README.dialects.rst prescribes).  Our pytest_configure runs first: it
registers the dialect names (the entry points do this once the package is
installed) and, without --dburi, starts an EmulatorServer on loopback whose
URL becomes the --dburi SQLAlchemy's plugin reads.
"""

from __future__ import annotations

import pytest
from sqlalchemy.dialects import registry

registry.register("informix", "informix_stream.sqlalchemy.sync",
                  "InformixDialect_informix_stream")
registry.register("informix.informix_stream", "informix_stream.sqlalchemy.sync",
                  "InformixDialect_informix_stream")
registry.register("informix.informix_stream_async", "informix_stream.sqlalchemy.async_dialect",
                  "InformixDialectAsync_informix_stream")

pytest.register_assert_rewrite("sqlalchemy.testing.assertions")

from sqlalchemy.testing.plugin import pytestplugin as _sqla  # noqa: E402
from sqlalchemy.testing.plugin.pytestplugin import *  # noqa: E402,F401,F403

from sqlalchemy.testing.provision import temp_table_keyword_args  # noqa: E402

_server = None


@temp_table_keyword_args.for_db("informix")
def _temp_table_keyword_args(cfg, eng):
    """CREATE TEMP TABLE (IBM Informix Guide to SQL: Syntax, CREATE TEMP TABLE)."""
    return {"prefixes": ["TEMP"]}


def pytest_configure(config: pytest.Config) -> None:
    """Point SQLAlchemy's plugin at an emulator when no server was named."""
    global _server
    if not config.option.dburi and not config.option.db:
        from informix_stream.emulator.server import EmulatorServer
        _server = EmulatorServer(databases={"sqla_test": "en_US.utf8"}).start()
        config.option.dburi = [f"informix+informix_stream://informix:in4mix@"
                               f"{_server.host}:{_server.port}/sqla_test"
                               "?client_locale=en_US.utf8&db_locale=en_US.utf8"]
    _sqla.pytest_configure(config)


# Tests no requirement of SQLAlchemy's covers, each skipped with its reason:
# something Informix does not do, or (SUITE) something the suite cannot see
# in a third-party driver.  Matched against the node id.
_SS = ("SUITE: ServerSideCursorsTest._is_server_side recognises only SQLAlchemy's own "
       "drivers by name (its TODO says so) and answers False for any other cursor; "
       "stream_results on this dialect is tested in tests/test_sqla_dialect.py")
_RETURNING = ("Informix has no RETURNING clause (Guide to SQL: Syntax, INSERT, UPDATE and "
              "DELETE statements); the dialect refuses it with CompileError (issue 15, "
              "'Bad input') where this test wants the server to refuse it")
NOT_INFORMIX = {
    "ServerSideCursorsTest::test_conn_option": _SS,
    **{f"ServerSideCursorsTest::test_ss_cursor_status[{case}]": _SS
       for case in ("global_expr", "global_string", "global_text", "stmt_option",
                    "text_ss_option", "for_update_expr", "for_update_string")},
    "ReturningGuardsTest::": _RETURNING,
    "test_truediv_divisor[numeric_tiny_divisor":
        "not in Informix: Numeric(38, 20): DECIMAL precision is 1 to 32 (Guide to SQL: Reference, "
        "DECIMAL(p,s) data types); the dialect refuses it with CompileError",
    "test_truediv_divisor[numeric_38_digit_divisor":
        "not in Informix: Numeric(38, 0): DECIMAL precision is 1 to 32 (Guide to SQL: Reference, "
        "DECIMAL(p,s) data types); the dialect refuses it with CompileError",
}


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """SQLAlchemy's plugin first, then skip what NOT_INFORMIX names, with its reason."""
    _sqla.pytest_collection_modifyitems(session, config, items)
    from known_failures import normalise    # beside this file
    for item in items:
        nodeid = normalise(item.nodeid)
        for key, reason in NOT_INFORMIX.items():
            if key in nodeid:
                item.add_marker(pytest.mark.skip(reason=reason))


def pytest_unconfigure(config: pytest.Config) -> None:
    _sqla.pytest_unconfigure(config)
    if _server is not None:
        _server.stop()
