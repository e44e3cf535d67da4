"""numpy and pyarrow, imported on first use: the driver itself needs only the
standard library, and the Arrow methods say which extra to install."""

from __future__ import annotations

from types import ModuleType

from ..errors import NotSupportedError

EXTRA_HINT = "pip install 'informix-stream[arrow]'"


def load() -> tuple[ModuleType, ModuleType]:
    """(numpy, pyarrow), or NotSupportedError naming the ``arrow`` extra."""
    try:
        import numpy
        import pyarrow
    except ImportError as exc:
        raise NotSupportedError(f"Arrow results need numpy and pyarrow ({exc.name} is "
                                f"missing): {EXTRA_HINT}") from None
    return numpy, pyarrow
