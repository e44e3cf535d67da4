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


def pytest_unconfigure(config: pytest.Config) -> None:
    _sqla.pytest_unconfigure(config)
    if _server is not None:
        _server.stop()
