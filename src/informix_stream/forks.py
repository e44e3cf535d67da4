"""Telling a forked child from its parent without a system call per statement.

A connection or pool records the generation it was made in; the child side
of every ``fork()`` starts a new generation, so a child that touches its
parent's socket is refused (``InterfaceError``) instead of interleaving
bytes with the parent on the same server session.
"""

from __future__ import annotations

import os

_generation = 0


def _new_generation() -> None:
    global _generation
    _generation += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_generation)


def generation() -> int:
    return _generation
