"""Parameter markers: ``?``, ``:1``-style and (with a mapping) ``:name``.

Parameters are always bound on the wire; the only rewriting done here is
turning ``:1`` and ``:name`` markers into the ``?`` markers Informix
understands and working out which argument feeds each marker.  Where the
markers are is ``sqllex``'s job (literals, comments, DATETIME/INTERVAL
literals, casts and ``db:table`` names are not markers).
"""

from __future__ import annotations

import functools

from .errors import ProgrammingError
from .sqllex import first_keyword, scan

__all__ = ["convert", "convert_named", "first_keyword"]


@functools.lru_cache(maxsize=512)
def convert(sql: str) -> tuple[str, list[int] | None, int]:
    """Return (SQL with ``?`` markers, argument order or None, marker count).

    The order list maps each ``?`` in the returned SQL to a zero-based
    argument index when the statement used ``:N`` markers; None means the
    arguments are taken in order.  ``:name`` markers need a mapping
    (``convert_named``).
    """
    markers = scan(sql)
    kinds = {m.kind for m in markers}
    if "name" in kinds:
        raise ProgrammingError("the SQL has :name markers: pass the parameters as a mapping")
    if "?" in kinds and "number" in kinds:
        raise ProgrammingError("SQL mixes ? and :N parameter markers")
    if "number" not in kinds:
        return sql, None, len(markers)
    order = []
    for m in markers:
        if m.value < 1:
            raise ProgrammingError(":0 is not a valid parameter marker; markers start at :1")
        order.append(m.value - 1)
    return _rewrite(sql, markers), order, len(order)


@functools.lru_cache(maxsize=512)
def convert_named(sql: str) -> tuple[str, tuple[str, ...]]:
    """Return (SQL with ``?`` markers, the name feeding each ``?``).

    A name may repeat (bound to the same value each time).
    """
    markers = scan(sql)
    if any(m.kind != "name" for m in markers):
        raise ProgrammingError("with a mapping of parameters, use only :name markers")
    return _rewrite(sql, markers), tuple(m.value for m in markers)


def _rewrite(sql: str, markers) -> str:
    out, at = [], 0
    for m in markers:
        out.append(sql[at:m.start])
        out.append("?")
        at = m.end
    out.append(sql[at:])
    return "".join(out)
