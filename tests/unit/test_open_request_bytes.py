"""The OPEN request of a cursor is built by two struct packs (the per-execute
request of a cached SELECT); these must be exactly the message sequence the
protocol notes give (docs/protocol.md: SQ_ID, SQ_CURNAME, [SQ_BIND], [SQ_SCROLL],
[SQ_HOLD], SQ_OPEN, then SQ_ID + SQ_NFETCH when the first fetch rides along),
written here the plain way with the framing Writer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from informix_stream.core import requests as rq
from informix_stream.framing import Writer
from informix_stream.messages import Tag


def plain(stmt_id, name, encoded, scroll, hold, first_fetch) -> bytes:
    w = Writer().short(Tag.ID).short(stmt_id).short(Tag.CURNAME).short_string(name)
    if encoded:
        w.short(Tag.BIND).short(len(encoded))
        for block in encoded:
            w.raw(block)
    if scroll:
        w.short(Tag.SCROLL)
    if hold:
        w.short(Tag.HOLD)
    w.short(Tag.OPEN)
    if first_fetch is not None:
        w.short(Tag.ID).short(stmt_id).short(Tag.NFETCH).int(first_fetch).short(0)
    return w.getvalue()


@given(st.integers(0, 32767), st.binary(min_size=1, max_size=40), st.booleans(), st.booleans(),
       st.one_of(st.none(), st.integers(1, 2**31 - 1)),
       st.lists(st.sampled_from([b"\x00\x02\x00\x00\x0a\x00\x00\x00\x00\x07"]), max_size=3))
def test_open_request_is_the_plain_message_sequence(stmt_id, name, scroll, hold, first_fetch,
                                                     encoded):
    built = rq.open_cursor(stmt_id, name, encoded, scroll=scroll, hold=hold,
                           first_fetch=first_fetch)
    assert built == plain(stmt_id, name, encoded, scroll, hold, first_fetch)


@pytest.mark.parametrize("bufsize", [1, 4096, 65536, 2**31 - 1])
def test_nfetch_bytes(bufsize):
    assert rq.nfetch(7, bufsize) == Writer().short(Tag.ID).short(7).short(Tag.NFETCH) \
        .int(bufsize).short(0).getvalue()
