"""An executemany error as the error of one row of the call: ``row_index``
set and the message prefixed (or noted: ``with_note``), for the BIND+EXECUTE and the insert-cursor
paths alike (executemany.py) and for a chunk the server aborted
(txabort.py)."""

from __future__ import annotations

from .core import statement as st
from .errors import Error


def at_row(exc: Error, index: int) -> Error:
    """``exc`` as the error of row ``index`` of an executemany call."""
    exc.row_index = index
    exc.args = (f"row {index}: {exc.args[0]}",)
    return exc


def with_note(exc: Error, note: str) -> Error:
    """``exc`` with ``note`` added to its message in parentheses: what the
    call knows of the rows in the table that the server's text does not say."""
    exc.args = (f"{exc.args[0]} ({note})",)
    return exc


def row_error(index: int, reply) -> Error:
    """The error a failed reply carries, as row ``index``'s."""
    try:
        st.raise_for(reply)
    except Error as exc:
        return at_row(exc, index)
    raise AssertionError("a failed reply without an error")  # pragma: no cover


def ranges(indices: list[int]) -> str:
    """Row indices for a message: ``a..b`` or one index."""
    return f"{indices[0]}..{indices[-1]}" if len(indices) > 1 else str(indices[0])
