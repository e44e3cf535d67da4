"""Row images with one cell bent, for tests that serve them in a later
fetch reply (``HostileServer.tamper``) and check what a streaming cursor
then reports: the reference decoder's error, and the rows before it."""

from __future__ import annotations

from typing import Any

import informix_stream as ifx
from faults.hostile import HostileServer, done, eot, is_later_fetch, tuple_msg
from informix_stream.codec.rowdecode_ref import reference_decoder


def bent(image: bytes, at: int, value: bytes) -> bytes:
    """``image`` with ``value`` written over its bytes from ``at``."""
    return image[:at] + value + image[at + len(value):]


def serve_in_later_fetch(h: HostileServer, images: list[bytes]) -> None:
    """``h`` answers each fetch after an OPEN's first with ``images``, as
    one reply (the rows read the way a cursor reads them by then)."""
    reply = b"".join(tuple_msg(len(m), m) for m in images) + done(len(images)) + eot()
    h.tamper = lambda messages, real: [reply] if is_later_fetch(messages) else None


def reference_error(types: list, image: bytes) -> str:
    """The message the plain reference decoder gives for ``image``."""
    try:
        reference_decoder(types)(image)
    except ifx.DataError as exc:
        return str(exc)
    raise AssertionError("the bent row decodes")


def read_until_error(cur: Any, most: int) -> tuple[list[tuple], BaseException | None]:
    """Rows fetched one at a time until the cursor ends, raises (the
    exception is returned) or ``most`` rows have come."""
    got: list[tuple] = []
    try:
        while len(got) < most:
            row = cur.fetchone()
            if row is None:
                break
            got.append(row)
    except ifx.Error as exc:
        return got, exc
    return got, None
