"""Is a socket readable, writable, or holding urgent data, within a timeout.

poll() where the platform has it: select() refuses a descriptor numbered
1024 or more, which a process with many open files (a server, a test suite,
a job holding many connections) reaches, and then every statement of the
driver, or every session of the in-process emulator, would fail.  Shared by
the driver's blocking I/O layer and the emulator's server: neither owns it.
"""

from __future__ import annotations

import select
import socket

_HANGUP = getattr(select, "POLLHUP", 0) | getattr(select, "POLLERR", 0) | getattr(
    select, "POLLNVAL", 0)


def _poll(sock: socket.socket, mask: int, timeout: float | None) -> int:
    poller = select.poll()
    poller.register(sock, mask)
    events = poller.poll(None if timeout is None else max(0, int(timeout * 1000 + 0.999)))
    return events[0][1] if events else 0


def ready(sock: socket.socket, write: bool, timeout: float | None) -> tuple[bool, bool]:
    """(readable, writable) within ``timeout`` seconds (None: no limit).  A
    hang-up or an error reads as readable: recv() then says what happened."""
    if not hasattr(select, "poll"):
        r, w, _ = select.select([sock], [sock] if write else [], [], timeout)
        return bool(r), bool(w)
    flags = _poll(sock, select.POLLIN | (select.POLLOUT if write else 0), timeout)
    return bool(flags & (select.POLLIN | _HANGUP)), bool(flags & select.POLLOUT)


def urgent(sock: socket.socket) -> bool:
    """TCP urgent data is waiting (what select() reports as exceptional)."""
    if not hasattr(select, "poll"):
        return bool(select.select([], [], [sock], 0)[2])
    return bool(_poll(sock, select.POLLPRI, 0) & select.POLLPRI)
