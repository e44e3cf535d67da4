"""An SQLI server emulator backed by SQLite, for tests, benchmarks and demos.

``EmulatorServer`` runs in-process (a context manager yielding host and
port); ``python -m informix_stream.emulator`` runs it from the command line.

The server is imported on first use of the name, not with the package: the
pytest plugin (``pytest_plugin``, loaded into every pytest run of a project
that installs this package) lives in this package and must not pull the
emulator and SQLite into runs that never use its fixtures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import EmulatorServer

__all__ = ["EmulatorServer"]


def __getattr__(name: str) -> Any:
    if name == "EmulatorServer":
        from .server import EmulatorServer
        return EmulatorServer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
