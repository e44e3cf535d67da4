"""Request parsing on the exact byte sequences the two outside clients send."""

from __future__ import annotations

import pytest

from informix_stream.errors import ProtocolError
from informix_stream.framing import Incomplete, Reader, Writer
from informix_stream.messages import (Bind, Command, CurName, DbOpen, Info, NFetch,
                                      Protocols, Rollback, SFetch, StmtId, Tag,
                                      parse_request, write_describe, DescribeColumn,
                                      write_insertdone)


def _no_params(r: Reader):
    raise AssertionError("no parameters expected")


def _int_params(r: Reader):
    """Just enough of SQ_BIND's value layout for INTEGER and NULL."""
    code, ind, _prec = r.short(), r.short(), r.short()
    if ind == -1:
        return None
    assert code == 2
    return r.int()


def parse(hexstr: str, read_param=_no_params):
    data = bytes.fromhex(hexstr.replace(" ", ""))
    msgs, end = parse_request(data, 0, read_param)
    assert end == len(data)
    return msgs


def test_jdbc_prepare_with_describe_and_wantdone():
    sql = b"select 1 from t"          # odd length: one pad byte after it
    w = Writer().short(2).short(0).int(len(sql)).padded(sql).short(22).short(49).short(12)
    msgs, end = parse_request(w.getvalue(), 0, _no_params)
    assert msgs == [Command(Tag.PREPARE, 0, sql), Tag.NDESCRIBE, Tag.WANTDONE]
    assert end == len(w)


def test_informix_driver_curname_open_nfetch():
    # [SQ_ID][stmt 0][CURNAME "_ifxc1" ][OPEN][SQ_ID][stmt 0][NFETCH 4096, 0][EOT]
    msgs = parse("0004 0000 0003 0006 5f6966786331 0006 0004 0000 0009 00001000 0000 000c")
    assert msgs == [StmtId(0), CurName(b"_ifxc1"), Tag.OPEN, StmtId(0), NFetch(4096, 0)]


def test_bind_execute_with_null_and_int():
    msgs = parse("0004 0001 0005 0002 0002 0000 0000 0000002a 0000 ffff 0000 0007 000c",
                 _int_params)
    assert msgs == [StmtId(1), Bind([42, None]), Tag.EXECUTE]


def test_session_messages():
    assert parse("007e 0009 fffc7ffc3c8caa9706 00 000c") == [
        Protocols(bytes.fromhex("fffc7ffc3c8caa9706"))]
    assert parse("0024 0006 74657374646200 00 0000 000c".replace("00 00 0000", "0000")) == [
        DbOpen(b"testdb", 0)]
    assert parse("0014 0000 000c") == [Rollback(0)]
    assert parse("0017 0004 00000005 00001000 000c") == [SFetch(4, 5, 4096)]


def test_jdbc_env_info():
    msgs = parse("005100060026000c00040006444254454d5000042f746d70"
                 "000b535542514341434845535a000002313000000000000c")
    assert len(msgs) == 1 and isinstance(msgs[0], Info)
    assert msgs[0].sections[0][0] == 6


def test_bare_exit_ends_a_request_without_eot():
    assert parse("0038") == [Tag.EXIT]


def test_pipelined_requests_parse_one_at_a_time():
    one = bytes.fromhex("0004 0000 0007 000c".replace(" ", ""))
    data = one * 3
    pos, seen = 0, 0
    while pos < len(data):
        msgs, pos = parse_request(data, pos, _no_params)
        assert msgs == [StmtId(0), Tag.EXECUTE]
        seen += 1
    assert seen == 3


@pytest.mark.parametrize("cut", range(1, 14))
def test_truncation_anywhere_is_incomplete(cut):
    data = bytes.fromhex("0004000000030006 5f6966786331 0006 000c".replace(" ", ""))
    with pytest.raises(Incomplete):
        parse_request(data[:cut], 0, _no_params)


@pytest.mark.parametrize("hexstr", [
    "7fff 000c",                  # unknown tag
    "0002 0000 ffffffff 000c",    # negative SQL length
    "0005 ffff 000c",             # negative parameter count
    "0028 000c",                  # SQ_BBIND: blobs are not supported
])
def test_malformed_requests_are_protocol_errors(hexstr):
    with pytest.raises(ProtocolError):
        parse_request(bytes.fromhex(hexstr.replace(" ", "")), 0, _no_params)


def test_oversized_sql_length_is_rejected_before_waiting_for_it():
    with pytest.raises(ProtocolError):
        parse_request(bytes.fromhex("0002 0000 7fffffff".replace(" ", "")), 0, _no_params)


def test_describe_layout():
    w = Writer()
    write_describe(w, 2, 0, 0, 4, [DescribeColumn(b"id", 2 | 0x100, 4, 0)])
    r = Reader(w.getvalue())
    assert [r.short(), r.short(), r.short(), r.int(), r.short(), r.short(), r.int()] == [
        8, 2, 0, 0, 4, 1, 3]
    assert [r.int(), r.int(), r.short(), r.int()] == [0, 0, 0x102, 0]
    assert [r.short(), r.short(), r.short(), r.short(), r.int(), r.int()] == [0, 0, 0, 0, 0, 4]
    assert r.padded(3) == b"id\x00" and r.remaining() == 0


def test_insertdone_int8_word_order():
    w = Writer()
    write_insertdone(w, (7 << 32) | 5, 9)
    assert w.getvalue() == bytes.fromhex("005e 0001 00000005 00000007 0000000000000009".replace(" ", ""))
