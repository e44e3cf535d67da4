"""``informix+informix_stream://``: the dialect on the blocking driver."""

from __future__ import annotations

from .base import InformixDialect


class InformixDialect_informix_stream(InformixDialect):  # noqa: N801 - SQLAlchemy's naming
    """Blocking connections from ``informix_stream.connect``."""

    supports_statement_cache = True


dialect = InformixDialect_informix_stream
