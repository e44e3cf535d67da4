"""The SQL scanner: markers only outside literals, comments, DATETIME/INTERVAL
literals, casts and db:table names (issue 9 item 4)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from informix_stream.core.statement import opens_transaction
from informix_stream.errors import ProgrammingError
from informix_stream.placeholders import convert, convert_named, first_keyword
from informix_stream.sqllex import leading_words, scan


@pytest.mark.parametrize("sql, count", [
    ("SELECT * FROM t WHERE a = ?", 1),
    ("SELECT '?', \"?\" FROM t WHERE a = ?", 1),
    ("SELECT 'it''s ?' FROM t WHERE a = ? -- why? :1\n AND b = ?", 2),
    ("SELECT {a ? comment :2} a FROM t /* ? :3 */ WHERE b = ?", 1),
    ("SELECT DATETIME (12:30) HOUR TO MINUTE FROM t WHERE a = ?", 1),
    ("SELECT INTERVAL (1:30) HOUR TO MINUTE, datetime(2024-01-01 12:30:00.5) "
     "YEAR TO FRACTION(1) FROM t", 0),
    ("SELECT a::INT, b ::DECIMAL(10,2) FROM t WHERE c = ?", 1),
    ("SELECT 'http://host:8080' FROM stores:customer WHERE a = ?", 1),
    ("SELECT * FROM db@srv:owner.tab", 0),
])
def test_marker_counts(sql, count):
    assert convert(sql)[2] == count


def test_datetime_literal_is_not_a_marker():
    # Before: ':30' was taken for a marker and a parameter bound into a literal.
    sql = "INSERT INTO t VALUES (DATETIME (12:30) HOUR TO MINUTE, :1)"
    out, order, count = convert(sql)
    assert out == "INSERT INTO t VALUES (DATETIME (12:30) HOUR TO MINUTE, ?)"
    assert order == [0] and count == 1


def test_numbered_markers_repeat_and_reorder():
    out, order, count = convert("SELECT :2, :1, :2 FROM t")
    assert out == "SELECT ?, ?, ? FROM t" and order == [1, 0, 1] and count == 3


def test_named_markers():
    out, names = convert_named("SELECT * FROM db:t WHERE a = :a AND b = :b_2 OR a = :a "
                               "AND c = x::INT AND d = 'x:y'")
    assert out == "SELECT * FROM db:t WHERE a = ? AND b = ? OR a = ? AND c = x::INT AND d = 'x:y'"
    assert names == ("a", "b_2", "a")


@pytest.mark.parametrize("sql, why", [
    ("SELECT ? FROM t WHERE a = :1", "mixes"),
    ("SELECT :0 FROM t", ":0"),
    ("SELECT 'open FROM t", "unterminated"),
    ("SELECT \"open FROM t", "unterminated"),
    ("SELECT 'it''s FROM t", "unterminated"),
    ("SELECT 1 /* never closed", "unterminated"),
    ("SELECT 1 { never closed", "unterminated"),
    ("SELECT DATETIME (12:30 FROM t", "unterminated"),
    ("SELECT :name FROM t", "mapping"),
])
def test_refused(sql, why):
    with pytest.raises(ProgrammingError, match=why):
        convert(sql)


def test_named_needs_only_names():
    with pytest.raises(ProgrammingError):
        convert_named("SELECT ? FROM t WHERE a = :a")


@pytest.mark.parametrize("sql, word", [
    ("  -- hi\n /* x */ {y} ((SELECT 1", "SELECT"),
    ("WITH x AS (SELECT 1) SELECT * FROM x", "WITH"),
    ("", ""),
])
def test_first_keyword(sql, word):
    assert first_keyword(sql) == word


# -- generated SQL: the expected markers are known by construction -------------

OPAQUE = st.sampled_from([
    "'?'", "'a:1'", "'it''s ?'", '"?"', "-- ? :1\n", "{ ? :2 }", "/* ? :3 */",
    "DATETIME (12:30) HOUR TO MINUTE", "INTERVAL (1:30:00) HOUR TO SECOND",
    "x::INT", "stores:customer", "db@srv:owner.t", "'http://h:8080'", "a = b", " ", "\n",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(OPAQUE, st.just("?")), max_size=30))
def test_generated_question_marks(parts):
    sql = " ".join(parts)
    assert convert(sql)[2] == parts.count("?")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(OPAQUE, st.integers(1, 9).map(lambda n: f":{n}")), max_size=30))
def test_generated_numbered_markers(parts):
    sql = " ".join(parts)
    want = [int(p[1:]) - 1 for p in parts if p.startswith(":")]
    out, order, count = convert(sql)
    assert count == len(want)
    assert (order or []) == want
    assert out.count("?") >= count


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_scans_or_refuses_quickly(text):
    started = time.perf_counter()
    try:
        scan(text)
        convert_named(text) if ":" in text else convert(text)
    except ProgrammingError:
        pass
    assert time.perf_counter() - started < 1.0


# db@server names are the one fragment the emulator does not tokenize (it has
# no remote servers to name).
LOCAL = OPAQUE.filter(lambda p: "@" not in p)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(LOCAL, st.just("?"), st.just("SET{1, ?}")), max_size=20))
def test_the_emulator_reads_the_same_markers(parts):
    """One lexer: the emulator's tokenizer sees exactly the driver's markers."""
    from informix_stream.emulator.tokens import tokenize
    sql = "SELECT " + " ".join(parts)
    driver = sum(1 for m in scan(sql) if m.kind == "?")
    emulator = sum(1 for t in tokenize(sql) if t.kind == "param")
    emulator += sum(t.raw.count("?") for t in tokenize(sql) if t.kind == "coll")
    assert driver == emulator


@pytest.mark.parametrize("sql, words", [
    ("  -- hi\n /* x */ {y} ((SELECT a FROM t", ("SELECT", "A")),
    ("-- set\nset /* c */ isolation to dirty read", ("SET", "ISOLATION")),
    ("COMMIT", ("COMMIT",)),
    ("", ()),
])
def test_leading_words(sql, words):
    assert leading_words(sql, 2) == words


@pytest.mark.parametrize("sql, opens", [
    ("CREATE DATABASE d", False),
    # the second word is found after comments too: a leading comment once
    # made CREATE DATABASE look like a statement that opens a transaction
    ("-- make it\nCREATE /* here */ DATABASE d", False),
    ("CREATE TABLE t (a INT)", True),
    ("INSERT INTO t VALUES (1)", True),
    ("BEGIN WORK", False),
    ("DATABASE d", False),
])
def test_which_statements_open_a_transaction(sql, opens):
    assert opens_transaction(sql) is opens
