"""Arrow record batches from query results (issue 13): the cursor mixins,
the type map (``types``), the columnar decoder (``columnar``) and its plain
reference (``reference``).

numpy and pyarrow are the optional ``arrow`` extra
(``pip install 'informix-stream[arrow]'``); importing this package does not
import them, and without them the cursor methods raise NotSupportedError
naming the extra.
"""

from __future__ import annotations

from .cursor import DEFAULT_BATCH_ROWS, ArrowCursorMixin, AsyncArrowCursorMixin

__all__ = ["ArrowCursorMixin", "AsyncArrowCursorMixin", "DEFAULT_BATCH_ROWS"]
