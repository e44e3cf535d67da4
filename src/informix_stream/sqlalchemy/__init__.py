"""SQLAlchemy 2 dialect for Informix on informix_stream (needs the ``sqlalchemy`` extra).

``create_engine("informix+informix_stream://user:password@host:port/database?server=name")``
and ``create_async_engine("informix+informix_stream_async://...")``.  Query
options become ``informix_stream.connect`` keywords (server, client_locale,
db_locale, tls, fetch_buffer_size, ...).  The entry points in pyproject.toml
register both names; importing this package imports SQLAlchemy (and, when it
is installed, Alembic, to register the ``informix`` migration impl); nothing
else in informix_stream does.
"""

from __future__ import annotations

from .async_dialect import InformixDialectAsync_informix_stream
from .base import InformixDialect
from .sync import InformixDialect_informix_stream
from .types import (BIGSERIAL, BOOLEAN, BYTE, DATETIME, INT8, INTERVAL, LVARCHAR, MONEY,
                    NCHAR, NVARCHAR, SERIAL, SERIAL8, SMALLFLOAT, TEXT)

try:    # Alembic finds its impl by dialect name, so it must be defined before a migration
    from . import alembic_impl  # noqa: F401
except ImportError:   # Alembic is not installed: nothing to register
    pass

__all__ = ["InformixDialect", "InformixDialect_informix_stream",
           "InformixDialectAsync_informix_stream", "BIGSERIAL", "BOOLEAN", "BYTE",
           "DATETIME", "INT8", "INTERVAL", "LVARCHAR", "MONEY", "NCHAR", "NVARCHAR",
           "SERIAL", "SERIAL8", "SMALLFLOAT", "TEXT"]
