"""A fault-injecting TCP proxy on loopback, and a Ctrl-C that lands on a byte.

``FaultProxy(upstream)`` listens on 127.0.0.1 and relays every accepted
connection to ``upstream`` in both directions, one thread per direction.
``arm(Fault(...))`` picks a byte of the newest connection's client->server
(``C2S``) or server->client (``S2C``) stream, counted from the moment of
arming, and acts there: drop both sockets (RST), stall, truncate (FIN after
the byte), inject bytes, or call a function -- ``Interrupter.fire`` raises a
real KeyboardInterrupt in the main thread exactly then, so a recv() blocked
on the rest of the reply is interrupted as a user's Ctrl-C would.

Offsets are counted from arming so that a scenario recorded once (``counts``
before and after) can be replayed with the fault at every byte of it.
"""

from __future__ import annotations

import random
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

C2S, S2C = "c2s", "s2c"
DROP, STALL, TRUNCATE, INJECT, CALL = "drop", "stall", "truncate", "inject", "call"
_CHUNK = 65536


@dataclass
class Fault:
    """What to do once ``offset`` bytes of ``direction`` were relayed after arming."""

    direction: str
    offset: int
    action: str
    seconds: float = 0.0                       # STALL: how long nothing moves
    data: bytes = b""                          # INJECT: the bytes slipped in
    callback: Callable[[], None] | None = None  # CALL
    pause: float = 0.0                         # CALL: hold the rest back this long
    drop: bool = False                         # CALL: then drop both sockets (RST)
    at: int = -1                               # absolute offset, set by arm()


class _Link:
    """One relayed client connection: two sockets, two byte counters."""

    def __init__(self, client: socket.socket, server: socket.socket) -> None:
        self.client, self.server = client, server
        self.count = {C2S: 0, S2C: 0}
        self.closed = False

    def kill(self, rst: bool) -> None:
        self.closed = True
        for s in (self.client, self.server):
            # shutdown() first: it wakes the other relay thread's recv(),
            # which would otherwise keep the socket open past close().
            try:
                if rst:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


class FaultProxy:
    """See the module docstring.  A context manager; loopback only."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        if upstream[0] not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("the fault proxy relays to loopback only")
        self.upstream = upstream
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self.host, self.port = self._listener.getsockname()[:2]
        self._lock = threading.Lock()
        self._links: list[_Link] = []
        self._fault: Fault | None = None
        self._fault_link: _Link | None = None
        self.fired = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    # -- lifecycle -------------------------------------------------------------
    def __enter__(self) -> FaultProxy:
        t = threading.Thread(target=self._accept_loop, name="fault-proxy", daemon=True)
        t.start()
        self._threads.append(t)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._listener.close()
        with self._lock:
            links = list(self._links)
        for link in links:
            link.kill(rst=False)
        for t in self._threads:
            t.join(timeout=5)

    # -- faults ----------------------------------------------------------------
    def counts(self) -> tuple[int, int]:
        """(client->server, server->client) bytes relayed on the newest connection."""
        with self._lock:
            link = self._links[-1]
            return link.count[C2S], link.count[S2C]

    def arm(self, fault: Fault) -> None:
        """Aim ``fault`` at the newest connection, ``fault.offset`` bytes from now."""
        with self._lock:
            link = self._links[-1]
            fault.at = link.count[fault.direction] + fault.offset
            self._fault, self._fault_link = fault, link
            self.fired.clear()

    def arm_next(self, fault: Fault) -> None:
        """Aim ``fault`` at the next connection accepted, from its first byte
        (for faults inside a login)."""
        with self._lock:
            fault.at = fault.offset
            self._fault, self._fault_link = fault, None
            self.fired.clear()

    def disarm(self) -> bool:
        """Cancel the armed fault; True if it had already fired.  Once this
        returns, the fault can no longer fire."""
        with self._lock:
            self._fault = self._fault_link = None
            return self.fired.is_set()

    # -- relaying --------------------------------------------------------------
    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            for s in (client, server):
                s.settimeout(None)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            link = _Link(client, server)
            with self._lock:
                self._links.append(link)
                if self._fault is not None and self._fault_link is None:
                    self._fault_link = link
            for direction, src, dst in ((C2S, client, server), (S2C, server, client)):
                t = threading.Thread(target=self._relay, args=(link, direction, src, dst),
                                     name=f"fault-proxy-{direction}", daemon=True)
                t.start()
                self._threads.append(t)

    def _relay(self, link: _Link, direction: str, src: socket.socket,
               dst: socket.socket) -> None:
        try:
            while not link.closed:
                data = src.recv(_CHUNK)
                if not data:
                    dst.shutdown(socket.SHUT_WR)
                    return
                if not self._forward(link, direction, data, dst):
                    return
        except OSError:
            link.kill(rst=False)

    def _forward(self, link: _Link, direction: str, data: bytes, dst: socket.socket) -> bool:
        """Send ``data``, acting on the fault if its byte is in it; False once
        the fault ended the connection."""
        with self._lock:
            fault = self._fault
            pos = link.count[direction]
            hit = (fault is not None and self._fault_link is link
                   and fault.direction == direction and pos <= fault.at <= pos + len(data))
            if hit:
                self._fault = None
                self.fired.set()
            link.count[direction] = pos + len(data)
        if not hit:
            dst.sendall(data)
            return True
        cut = fault.at - pos
        head, tail = data[:cut], data[cut:]
        if head:
            dst.sendall(head)
        return self._act(link, fault, tail, dst)

    def _act(self, link: _Link, fault: Fault, tail: bytes, dst: socket.socket) -> bool:
        if fault.action in (DROP, TRUNCATE):
            link.kill(rst=fault.action == DROP)
            return False
        if fault.action == STALL:
            self._stop.wait(fault.seconds)
        elif fault.action == INJECT:
            dst.sendall(fault.data)
        elif fault.action == CALL:
            assert fault.callback is not None
            fault.callback()
            if fault.pause:
                time.sleep(fault.pause)
            if fault.drop:
                link.kill(rst=True)
                return False
        else:
            raise ValueError(f"unknown fault action {fault.action!r}")
        if tail and not link.closed:
            dst.sendall(tail)
        return not link.closed


class Interrupter:
    """A SIGINT sent to the main thread from a proxy thread, delivered as the
    KeyboardInterrupt a user's Ctrl-C raises.

    ``fire`` is the fault callback.  After the operation under test (inside
    its ``try``), the main thread calls ``settle`` with the proxy: the fault
    is disarmed, and if it fired, the main thread waits until the
    KeyboardInterrupt has been raised -- so it can never escape later, into
    the test's checks.
    """

    def __init__(self) -> None:
        self._main = threading.main_thread().ident
        self.delivered = threading.Event()
        self._previous = None

    def __enter__(self) -> Interrupter:
        self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.signal(signal.SIGINT, self._previous)

    def _handler(self, signum, frame) -> None:
        self.delivered.set()
        raise KeyboardInterrupt("injected by the fault proxy")

    def reset(self) -> None:
        self.delivered.clear()

    def fire(self) -> None:
        signal.pthread_kill(self._main, signal.SIGINT)

    def fire_and_wait(self, limit: float = 5.0) -> None:
        """``fire``, then hold the proxy thread until the main thread has
        raised the KeyboardInterrupt (bounded): the bytes after the fault
        reach the client only once it was interrupted."""
        self.fire()
        if not self.delivered.wait(limit):
            raise AssertionError("the injected SIGINT was never delivered")

    def settle(self, proxy: FaultProxy, limit: float = 5.0) -> None:
        """Call inside the ``try`` that catches KeyboardInterrupt."""
        if proxy.disarm():
            deadline = time.monotonic() + limit
            while not self.delivered.is_set():
                if time.monotonic() > deadline:
                    raise AssertionError("the injected SIGINT was never delivered")
                time.sleep(0.001)


def sweep(length: int, sample: int | None, seed: int = 9) -> list[int]:
    """Every offset 0..length, or ``sample`` of them (always the ends)."""
    every = range(length + 1)
    if sample is None or length + 1 <= sample:
        return list(every)
    picked = set(random.Random(seed * 1_000_003 + length).sample(every, sample))
    return sorted(picked | {0, 1, 2, length - 1, length})
