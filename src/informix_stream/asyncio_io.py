"""asyncio I/O for the client core: the same operations as ``blocking``, awaited.

``AsyncIO.run(op)`` drives one generator operation (``core``) over an
asyncio stream pair.  Writes go to the transport without waiting for it to
drain -- the transport sends in the background while replies are read, so a
pipelined chunk cannot deadlock against a server whose replies fill our
receive buffer; one chunk of requests is the most it ever holds.

Task cancellation (``asyncio.timeout``, ``wait_for``, a failing TaskGroup)
mid-exchange follows the rule of the blocking layer: the session is left at
a point it can account for or marked broken, never misaligned.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Generator
from typing import Any

from .blocking import RECV_SIZE, close_quietly, send_cancel, transport_failure
from .core.session import FLUSH, ClientSession
from .errors import OperationalError


async def open_stream(host: str, port: int, *, connect_timeout: float | None,
                      tls: ssl.SSLContext | None, server_hostname: str | None,
                      keepalive: bool) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    kw: dict[str, Any] = {"limit": RECV_SIZE}
    if tls is not None:
        kw.update(ssl=tls, server_hostname=server_hostname or host)
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, **kw),
                                                connect_timeout)
    except (OSError, ssl.SSLError, asyncio.TimeoutError) as exc:
        what = "TLS handshake with" if isinstance(exc, ssl.SSLError) else "cannot connect to"
        raise OperationalError(f"{what} {host}:{port} failed: {exc}") from exc
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if keepalive:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    return reader, writer


class AsyncIO:
    """Moves bytes between one asyncio stream pair and one ClientSession."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 session: ClientSession) -> None:
        self.reader = reader
        self.writer = writer
        self.session = session
        self.timeout: float | None = None

    async def run(self, op: Generator[Any, None, Any]) -> Any:
        session = self.session
        session.check()
        session.begin_op()
        step = None
        try:
            try:
                step = next(op)
                while True:
                    await self._until(step)
                    step = op.send(None)
            except StopIteration as stop:
                self._write()
                result = stop.value
        except BaseException as exc:
            close_quietly(op)       # the operation's own cleanup runs now, not at GC
            session.end_op(exc, step)
            if session.broken is not None:
                self.close()
            raise
        session.end_op(None)
        if self.writer.transport.get_write_buffer_size() > RECV_SIZE:
            await self.writer.drain()
        return result

    def _write(self) -> None:
        out = self.session.data_to_send()
        if out:
            self.session.handing(len(out))
            try:
                self.writer.write(bytes(out))
            except (OSError, RuntimeError) as exc:
                raise self._fail(exc) from exc
            self.session.sent(len(out))

    async def _until(self, step) -> None:
        self._write()
        while self.session.data_to_send():
            # A streamed request (LOB parameters): writing took what was
            # queued and queued the next buffer read from the source.
            await self._drain()
            self._write()
        if step is FLUSH:
            return
        while not step.done:
            try:
                if self.timeout is None:
                    data = await self.reader.read(RECV_SIZE)
                else:
                    data = await asyncio.wait_for(self.reader.read(RECV_SIZE), self.timeout)
            except asyncio.TimeoutError as exc:
                raise self._fail(TimeoutError("no reply within read_timeout")) from exc
            except (OSError, ssl.SSLError) as exc:
                raise self._fail(exc) from exc
            if not data:
                raise self._fail(ConnectionResetError("the server closed the connection"))
            self.session.receive(data)

    async def _drain(self) -> None:
        try:
            if self.timeout is None:
                await self.writer.drain()
            else:
                await asyncio.wait_for(self.writer.drain(), self.timeout)
        except asyncio.TimeoutError as exc:
            raise self._fail(TimeoutError("the server stopped reading the request")) from exc
        except (OSError, ssl.SSLError) as exc:
            raise self._fail(exc) from exc

    def check_idle(self) -> None:
        """Bytes buffered when no reply is owed: a server out of step."""
        session = self.session
        if session.awaiting_reply or session.broken is not None or session.closed:
            return
        if self.reader._buffer:  # noqa: SLF001 - the only way to see unsolicited bytes
            data = bytes(self.reader._buffer)  # noqa: SLF001
            self.reader._buffer.clear()  # noqa: SLF001
            try:
                session.receive(data)
            finally:
                self.close()

    def cancel(self) -> None:
        sock = self.writer.get_extra_info("socket")
        if sock is None:
            raise OperationalError("no socket to send the cancel on")
        send_cancel(sock)

    def _fail(self, exc: BaseException) -> OperationalError:
        error = transport_failure(self.session, exc)
        self.close()
        return error

    def close(self) -> None:
        try:
            self.writer.close()
        except (OSError, RuntimeError):
            pass
