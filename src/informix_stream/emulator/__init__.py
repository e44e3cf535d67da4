"""An SQLI server emulator backed by SQLite, for tests, benchmarks and demos.

``EmulatorServer`` runs in-process (a context manager yielding host and
port); ``python -m informix_stream.emulator`` runs it from the command line.
"""

from .server import EmulatorServer

__all__ = ["EmulatorServer"]
