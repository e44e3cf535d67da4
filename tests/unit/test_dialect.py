"""Translation of Informix SQL to SQLite, checked on the generated text."""

import pytest

from informix_stream.codecs import TypeCode, parse_type
from informix_stream.emulator.dialect import translate
from informix_stream.emulator.statements import (ColumnDef, CreateIndex, CreateTable, Drop,
                                                 SqlError, StatementKind, TableDef)
from informix_stream.emulator.tokens import tokenize

T = TableDef("t", [ColumnDef("id", parse_type("serial")),
                   ColumnDef("name", parse_type("varchar(64)")),
                   ColumnDef("d", parse_type("date")),
                   ColumnDef("amt", parse_type("decimal(10,2)"))])
LOOKUP = {"t": T}.get


def tr(sql):
    return translate(sql, LOOKUP)


def test_tokenizer_drops_all_comment_styles_and_unescapes_strings():
    toks = tokenize("select 'it''s' {brace} /* block */ -- line\n , \"dq\" ;")
    assert [(t.kind, t.text) for t in toks] == [
        ("word", "SELECT"), ("str", "it's"), ("op", ","), ("str", "dq")]


def test_unterminated_string_is_syntax_error():
    with pytest.raises(SqlError) as exc:
        tokenize("select 'abc from t")
    assert exc.value.sqlcode == -201


def test_placeholders_inside_strings_and_comments_are_not_counted():
    t = tr("select id from t where name = '?' and id = ? -- ?\n {?}")
    assert t.param_count == 1
    assert len(t.binds) == 1 and "'?'" in t.sql


def test_first_and_skip_become_limit_offset_in_either_order():
    assert tr("select first 10 skip 5 id from t").sql.endswith("LIMIT 10 OFFSET 5")
    assert tr("select skip 5 first 10 id from t").sql.endswith("LIMIT 10 OFFSET 5")
    assert tr("select skip 3 id from t").sql.endswith("LIMIT -1 OFFSET 3")
    assert tr("select limit 2 id from t").sql.endswith("LIMIT 2")


def test_parameter_in_first_keeps_client_order():
    t = tr("select first ? id from t where name = ?")
    assert [b.index for b in t.binds] == [1, 0]


def test_first_inside_subquery_is_translated_there():
    sql = tr("select id from t where id in (select first 1 id from t)").sql
    assert "( SELECT id from t LIMIT 1 )" in sql


def test_owner_prefix_is_dropped_from_table_names():
    t = tr('select id from informix.t x, "informix".t y')
    assert "informix" not in t.sql


def test_today_current_matches_and_dbinfo():
    sql = tr("select today, current hour to second, dbinfo('sqlca.sqlerrd1') from t"
             " where name matches 'a*'").sql
    assert "julianday('now','localtime')" in sql
    assert "substr(strftime('%Y-%m-%d %H:%M:%f','now','localtime'), 12, 8)" in sql
    assert "ifx_dbinfo (" in sql and "GLOB 'a*'" in sql


def test_result_columns_use_informix_names_and_types():
    cols = tr("select id, name n, count(*), count(id), sum(amt), max(d), id + 1, 'x', today"
              " from t").columns
    assert [c.name for c in cols] == ["id", "n", "(count(*))", "(count)", "(sum)", "(max)",
                                      "(expression)", "(constant)", "(today)"]
    assert cols[0].type.code == TypeCode.SERIAL and cols[0].stored
    assert cols[2].type.code == TypeCode.INTEGER and not cols[2].stored
    assert cols[4].type.sql() == "DECIMAL(32,2)"
    assert cols[5].type.code == TypeCode.DATE
    assert cols[7].type.sql() == "CHAR(1)"


def test_star_expands_catalog_columns():
    cols = tr("select * from t").columns
    assert [(c.name, c.type.sql()) for c in cols] == [
        ("id", "SERIAL"), ("name", "VARCHAR(64)"), ("d", "DATE"), ("amt", "DECIMAL(10,2)")]


def test_parameter_types_follow_compared_columns():
    t = tr("select id from t where d > ? and name = ? and amt between ? and ? and id in (?, ?)")
    codes = [b.type.code for b in t.binds]
    assert codes == [TypeCode.DATE, TypeCode.VARCHAR, TypeCode.DECIMAL, TypeCode.DECIMAL,
                     TypeCode.SERIAL, TypeCode.SERIAL]


def test_date_literal_compared_with_date_column_becomes_typed_bind():
    t = tr("select id from t where d = '01/02/2024'")
    assert t.sql.endswith("d = ?")
    assert t.binds[0].const == "01/02/2024" and t.binds[0].index is None


def test_insert_adds_omitted_serial_and_wraps_given_one():
    t = tr("insert into t (name) values (?)")
    # catalog names reach SQLite double-quoted (statements.sql_ident)
    assert t.sql == 'INSERT INTO "t" ( "name", "id" ) VALUES ( ?, ifx_serial(\'t\', 6, NULL) )'
    t = tr("insert into t values (?, ?, ?, ?)")
    assert "ifx_serial('t', 6, ?)" in t.sql
    assert [b.type.code for b in t.binds] == [TypeCode.SERIAL, TypeCode.VARCHAR,
                                              TypeCode.DATE, TypeCode.DECIMAL]


def test_insert_errors():
    with pytest.raises(SqlError) as exc:
        tr("insert into t (name, d) values (?)")
    assert exc.value.sqlcode == -236
    with pytest.raises(SqlError) as exc:
        tr("insert into t (nope) values (1)")
    assert (exc.value.sqlcode, exc.value.near) == (-217, "nope")
    with pytest.raises(SqlError) as exc:
        tr("insert into missing values (1)")
    assert (exc.value.sqlcode, exc.value.isam, exc.value.near) == (-206, -111, "missing")


def test_update_and_delete_without_from():
    t = tr("update t set amt = ?, name = 'x' where id = ?")
    assert t.kind is StatementKind.UPDATE and t.table == "t"
    # the quoted literal is bound too, so the column's writer cuts it to size
    assert [b.type.code for b in t.binds] == [TypeCode.DECIMAL, TypeCode.VARCHAR,
                                              TypeCode.SERIAL]
    assert [b.const for b in t.binds] == [None, "x", None]
    assert tr("delete t where id = 1").sql == 'DELETE FROM "t" where id = 1'


def test_create_table_parses_types_constraints_and_serial_start():
    t = tr("create table if not exists u (id serial(100) primary key constraint pk_u,"
           " v datetime year to fraction(3) default current year to fraction(3),"
           " c char(10) not null unique, m money, n int8 default -5, check (n > 0))")
    spec = t.ddl
    assert isinstance(spec, CreateTable) and spec.if_not_exists
    cols = {c.name: c for c in spec.columns}
    assert cols["id"].serial_start == 100 and not cols["id"].type.nullable
    assert cols["v"].type.sql() == "DATETIME YEAR TO FRACTION(3)"
    assert cols["c"].type.sql() == "CHAR(10)" and not cols["c"].type.nullable
    assert cols["m"].type.sql() == "MONEY(16,2)"
    assert cols["n"].default.const == "-5"
    assert spec.uniques == [("pk_u", ["id"], True), (None, ["c"], False)]
    assert spec.checks == ["( n > 0 )"]


def test_index_and_drop_statements():
    assert tr("create unique index ix on t (name, d)").ddl == CreateIndex(
        "ix", "t", ["name", "d"], True)
    assert tr("drop table if exists t").ddl == Drop("TABLE", "t", True)
    assert tr("drop index ix").ddl == Drop("INDEX", "ix", False)


@pytest.mark.parametrize("sql,kind", [
    ("BEGIN WORK", StatementKind.BEGIN), ("commit work", StatementKind.COMMIT),
    ("ROLLBACK", StatementKind.ROLLBACK), ("database other", StatementKind.DATABASE),
    ("set lock mode to wait 5", StatementKind.OTHER),
    ("set isolation to dirty read", StatementKind.OTHER),
    ("update statistics", StatementKind.OTHER)])
def test_statement_kinds(sql, kind):
    assert tr(sql).kind is kind


def test_garbage_is_syntax_error():
    with pytest.raises(SqlError) as exc:
        tr("frobnicate the table")
    assert exc.value.sqlcode == -201


IMG = TableDef("img", [ColumnDef("a", parse_type("int")), ColumnDef("b", parse_type("varchar(9)")),
                       ColumnDef("w", parse_type("decimal(30,4)"))], image=True)
LOOKUP_IMG = {"t": T, "img": IMG}.get


def test_braces_after_collection_keywords_are_literals_not_comments():
    toks = tokenize("select * from table(set{1, '}'}) {a comment}")
    assert [(t.kind, t.text) for t in toks][-3:] == [("word", "SET"), ("coll", "1, '}'"),
                                                     ("op", ")")]
    assert [t.kind for t in tokenize("update t set {note} name = 'x'")].count("coll") == 0


def test_collection_derived_table_becomes_a_union_subquery():
    t = tr("select dbinfo('version','full') from  table (set{1});")
    assert t.sql == "SELECT ifx_dbinfo ( 'version' , 'full' ) from (SELECT 1 AS \"unnamed_col_1\")"
    t = tr("select v from table(list{2, -1, 'x'}) as c(v)")
    assert "SELECT 2 AS \"v\" UNION ALL SELECT -1 AS \"v\" UNION ALL SELECT 'x' AS \"v\"" in t.sql
    assert [(c.name, c.type.code) for c in t.columns] == [("v", TypeCode.VARCHAR)]
    with pytest.raises(SqlError) as exc:
        tr("select * from table(set{id})")
    assert exc.value.sqlcode == -201


def test_interval_and_wide_decimal_literals_become_exact_binds():
    t = translate("select a from img where w < -12345678901234567890.5 and a = 5"
                  " and w > interval(1-06) year to month", LOOKUP_IMG)
    assert t.sql.endswith("w < ? and a = 5 and w > ?")
    assert [(b.const, b.type.sql()) for b in t.binds] == [
        ("-12345678901234567890.5", "DECIMAL(32)"), ("1-06", "INTERVAL YEAR(4) TO MONTH")]
    assert "amt < 0" in tr("select id from t where amt < 0").sql   # a double holds it


def test_sum_and_avg_of_wide_decimals_use_exact_aggregates():
    t = translate("select sum(w), avg(distinct img.w), sum(a) from img", LOOKUP_IMG)
    assert "ifx_exact_sum ( w )" in t.sql and "ifx_exact_avg ( distinct img . w )" in t.sql
    assert "sum ( a )" in t.sql


def test_whole_row_select_reads_the_image_column():
    t = translate("select first 2 a, img.b, w from informix.img where a > ? order by b",
                  LOOKUP_IMG)
    assert t.encoded and t.sql == "SELECT _ifx_row from img where a > ? order by b LIMIT 2"
    assert [c.name for c in t.columns] == ["a", "b", "w"]
    assert not translate("select * from img order by 1", LOOKUP_IMG).encoded
    assert not translate("select * from t", LOOKUP_IMG).encoded      # no images kept


def test_star_over_imaged_tables_lists_the_real_columns():
    t = translate("select *, i.* from img i, t where i.a = t.id", LOOKUP_IMG)
    assert t.sql.startswith('SELECT "i"."a", "i"."b", "i"."w", "t"."id", "t"."name", "t"."d",'
                            ' "t"."amt", "i"."a", "i"."b", "i"."w" from img i')
    with pytest.raises(SqlError) as exc:
        translate("select _ifx_row from img", LOOKUP_IMG)
    assert exc.value.sqlcode == -217


def test_insert_binding_every_column_supplies_the_image():
    t = translate("insert into img (w, a, b) values (?, ?, 'l' || 'it')", LOOKUP_IMG)
    assert t.image_binds is None and "_ifx_row" not in t.sql   # a trigger computes it
    # a quoted literal is a bound constant (cut to the column's bytes): the image too
    t = translate("insert into img (w, a, b) values (?, ?, 'lit')", LOOKUP_IMG)
    assert t.image_binds == [1, 2, 0]
    t = translate("insert into img (w, b, a) values (?, ?, 7)", LOOKUP_IMG)
    assert t.sql == 'INSERT INTO "img" ( "w", "b", "a", _ifx_row ) VALUES ( ?, ?, ?, ? )'
    assert t.image_binds == [2, 1, 0]
    assert translate("insert into img (a) values (?)", LOOKUP_IMG).image_binds is None
    assert tr("insert into t values (?, ?, ?, ?)").image_binds is None


def test_octet_length_of_char_counts_its_padding_and_length_is_integer():
    t = translate("select octet_length(b), length(b) from img", LOOKUP_IMG)
    assert "ifx_octet_length ( b , 0 )" in t.sql and "ifx_length ( b )" in t.sql
    assert [c.type.code for c in t.columns] == [TypeCode.INTEGER, TypeCode.INTEGER]
    c10 = TableDef("c", [ColumnDef("x", parse_type("char(10)"))])
    assert "ifx_octet_length ( x , 10 )" in translate("select octet_length(x) from c",
                                                      {"c": c10}.get).sql
