"""Descriptors this process holds on emulator database files.

A stopped emulator must close every SQLite connection it opened: a leaked
one keeps its files' descriptors (and, for an in-memory emulator, its space
on /dev/shm) for the life of the process.  Read from /proc/self/fd, so the
count is what the kernel holds, not what the code believes it closed.
"""

from __future__ import annotations

import os
import time

FD_DIR = "/proc/self/fd"
# Engine.__init__ names its in-memory directories with this prefix.
MARK = f"{os.sep}ifx-emulator-"


def available() -> bool:
    """Whether this platform lists a process's descriptors (Linux does)."""
    return os.path.isdir(FD_DIR)


def descriptors(under: str | None = None) -> list[str]:
    """Targets of open descriptors into emulator directories (``under``: into
    that directory only), deleted files included."""
    out = []
    for fd in os.listdir(FD_DIR):
        try:
            target = os.readlink(f"{FD_DIR}/{fd}")
        except OSError:
            continue        # closed since the listing
        if (MARK in target) if under is None else target.startswith(under.rstrip(os.sep) + os.sep):
            out.append(target)
    return out


def settled(under: str | None = None, timeout: float = 5.0) -> list[str]:
    """``descriptors(under)`` once it is empty, or what is left at ``timeout``
    (session threads close theirs as they end)."""
    deadline = time.monotonic() + timeout
    while (left := descriptors(under)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left
