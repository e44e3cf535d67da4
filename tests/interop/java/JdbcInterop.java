import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.informix.lang.IntervalDF;
import com.informix.lang.IntervalYM;

/**
 * Drives IBM's Informix JDBC driver through one interop scenario and reports
 * what it observed, so that the Python tests can judge a server (normally our
 * SQLI emulator) by the behaviour of a client we did not write.
 *
 * Usage: JdbcInterop HOST PORT DATABASE USER PASSWORD SERVER SCENARIO [ARG...]
 * Extra URL properties (e.g. PROTOCOLTRACE=2;PROTOCOLTRACEFILE=/tmp/t) may be
 * given with -Dinterop.urlExtra=...
 *
 * Output: one record per line, fields separated by TAB. Every field is escaped
 * (backslash, TAB, CR, LF, and anything outside printable ASCII as a \\uXXXX
 * escape) so the output is plain ASCII; SQL NULL is the two characters \N.
 * Errors a scenario provokes on purpose are reported as
 * ERROR, getErrorCode(), getMessage(). Anything unexpected is left to escape
 * main(): the stack trace goes to stderr and the exit status is non-zero.
 */
public final class JdbcInterop {

    private static final String NULL_TOKEN = "\\N";

    private final String host;
    private final String port;
    private final String database;
    private final String user;
    private final String password;
    private final String server;

    private JdbcInterop(String[] settings) {
        host = settings[0];
        port = settings[1];
        database = settings[2];
        user = settings[3];
        password = settings[4];
        server = settings[5];
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 7) {
            System.err.println("usage: JdbcInterop HOST PORT DATABASE USER PASSWORD SERVER SCENARIO [ARG...]");
            System.exit(2);
        }
        JdbcInterop client = new JdbcInterop(args);
        String[] extra = Arrays.copyOfRange(args, 7, args.length);
        client.run(args[6], extra);
        System.out.flush();
    }

    private void run(String scenario, String[] args) throws Exception {
        switch (scenario) {
            case "connect": connect(); break;
            case "connect_error": connectError(); break;
            case "ddl": ddl(); break;
            case "values": values(); break;
            case "metadata": metadata(); break;
            case "stream": stream(args.length > 0 ? args[0] : "batch"); break;
            case "transactions": transactions(); break;
            case "errors": errors(); break;
            case "hold": hold(); break;
            case "query": query(args); break;
            case "reopen": reopen(args); break;
            case "putbatch": putBatch(args); break;
            case "routines": routines(args[0]); break;
            case "lobs": lobs(args); break;
            case "slobs": slobs(args[0]); break;
            case "conformance": conformance(args); break;
            case "text": text(args); break;
            case "script": script(args); break;
            case "fkeys": fkeys(args[0]); break;
            case "composite": composite(args[0]); break;
            case "documents": documents(args[0]); break;
            case "warnings": warnings(); break;
            case "ddl_exclusive": ddlExclusive(); break;
            case "long_tx": longTx(args[0], args[1], Integer.parseInt(args[2])); break;
            default:
                System.err.println("unknown scenario: " + scenario);
                System.exit(2);
        }
    }

    // ---------------------------------------------------------------- output

    /** Prints one record; nulls become the NULL token. */
    static void emit(Object... fields) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) {
                line.append('\t');
            }
            line.append(fields[i] == null ? NULL_TOKEN : escape(String.valueOf(fields[i])));
        }
        System.out.println(line);
    }

    /** Makes any string safe for one TAB-separated ASCII field. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\': out.append("\\\\"); break;
                case '\t': out.append("\\t"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                default:
                    if (c < 0x20 || c > 0x7e) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        return out.toString();
    }

    static void emitError(SQLException e) {
        emit("ERROR", e.getErrorCode(), e.getMessage());
    }

    // ------------------------------------------------------------ connection

    private Connection session() throws SQLException {
        StringBuilder url = new StringBuilder("jdbc:informix-sqli://")
            .append(host).append(':').append(port).append('/').append(database)
            .append(":INFORMIXSERVER=").append(server)
            .append(";user=").append(user)
            .append(";password=").append(password);
        String extra = System.getProperty("interop.urlExtra", "");
        if (!extra.isEmpty()) {
            url.append(';').append(extra);
        }
        return DriverManager.getConnection(url.toString());
    }

    /** A query every Informix database answers with exactly 1: systables describes itself. */
    private static long health(Connection c) throws SQLException {
        return queryLong(c, "SELECT COUNT(*) FROM systables WHERE tabid = 1");
    }

    private static long queryLong(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            if (!rs.next()) {
                throw new IllegalStateException("no row from: " + sql);
            }
            long value = rs.getLong(1);
            if (rs.next()) {
                throw new IllegalStateException("more than one row from: " + sql);
            }
            return value;
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.executeUpdate(sql);
        }
    }

    /**
     * The SQLWarnings the driver makes of the server's SQ_DONE warning flags:
     * after connecting (database traits) and after preparing a DELETE with and
     * without a WHERE clause (statement events). The driver hands statement
     * warnings to the connection (IfxSqliConnect.getWarnings pulls them).
     */
    private void warnings() throws SQLException {
        try (Connection c = session()) {
            emitWarnings("connect", c.getWarnings());
            dropIfExists(c, "jdbc_warn");
            exec(c, "CREATE TABLE jdbc_warn (id INTEGER)");
            exec(c, "INSERT INTO jdbc_warn VALUES (1)");
            c.clearWarnings();
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM jdbc_warn WHERE id = ?")) {
                emitWarnings("prepare_where", c.getWarnings());
                emitWarnings("prepare_where_statement", ps.getWarnings());
            }
            c.clearWarnings();
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM jdbc_warn")) {
                emitWarnings("prepare_no_where", c.getWarnings());
                emitWarnings("prepare_no_where_statement", ps.getWarnings());
                c.clearWarnings();
                emit("deleted", ps.executeUpdate());
                emitWarnings("execute_no_where_statement", ps.getWarnings());
            }
            exec(c, "DROP TABLE jdbc_warn");
        }
    }

    private static void emitWarnings(String label, SQLWarning w) {
        if (w == null) {
            emit(label, "none");
        }
        for (; w != null; w = w.getNextWarning()) {
            emit(label, w.getSQLState());
        }
    }

    /** Drops a table left over from an earlier run; -206 (no such table) is the normal case. */
    private static void dropIfExists(Connection c, String table) throws SQLException {
        try {
            exec(c, "DROP TABLE " + table);
        } catch (SQLException e) {
            if (e.getErrorCode() != -206) {
                throw e;
            }
        }
    }

    // ------------------------------------------------------- table layouts

    /** How a column is bound and read back. */
    enum Kind { SHORT, INT, LONG, FLOAT, DOUBLE, DECIMAL, STRING, BOOL, DATE, TIMESTAMP, TIME, IYM, IDF }

    static final class Col {
        final String name;
        final String ddl;
        final Kind kind;
        final int nullType;

        Col(String name, String ddl, Kind kind, int nullType) {
            this.name = name;
            this.ddl = ddl;
            this.kind = kind;
            this.nullType = nullType;
        }
    }

    /** The columns the value round trip writes and reads (after the SERIAL id). */
    static final Col[] VALUE_COLS = {
        new Col("c_smallint", "SMALLINT", Kind.SHORT, Types.SMALLINT),
        new Col("c_integer", "INTEGER", Kind.INT, Types.INTEGER),
        new Col("c_bigint", "BIGINT", Kind.LONG, Types.BIGINT),
        new Col("c_int8", "INT8", Kind.LONG, Types.BIGINT),
        new Col("c_smallfloat", "SMALLFLOAT", Kind.FLOAT, Types.REAL),
        new Col("c_float", "FLOAT", Kind.DOUBLE, Types.DOUBLE),
        new Col("c_dec16", "DECIMAL(16,4)", Kind.DECIMAL, Types.DECIMAL),
        new Col("c_dec32", "DECIMAL(32,10)", Kind.DECIMAL, Types.DECIMAL),
        new Col("c_money", "MONEY(12,2)", Kind.DECIMAL, Types.DECIMAL),
        new Col("c_char", "CHAR(10)", Kind.STRING, Types.CHAR),
        new Col("c_nchar", "NCHAR(10)", Kind.STRING, Types.CHAR),
        new Col("c_varchar", "VARCHAR(64)", Kind.STRING, Types.VARCHAR),
        new Col("c_nvarchar", "NVARCHAR(64)", Kind.STRING, Types.VARCHAR),
        new Col("c_lvarchar", "LVARCHAR(2000)", Kind.STRING, Types.LONGVARCHAR),
        new Col("c_bool", "BOOLEAN", Kind.BOOL, Types.BOOLEAN),
        new Col("c_date", "DATE", Kind.DATE, Types.DATE),
        new Col("c_dt_ys", "DATETIME YEAR TO SECOND", Kind.TIMESTAMP, Types.TIMESTAMP),
        new Col("c_dt_yf5", "DATETIME YEAR TO FRACTION(5)", Kind.TIMESTAMP, Types.TIMESTAMP),
        new Col("c_dt_hm", "DATETIME HOUR TO MINUTE", Kind.TIME, Types.TIME),
        new Col("c_dt_yd", "DATETIME YEAR TO DAY", Kind.TIMESTAMP, Types.TIMESTAMP),
        // The driver itself reports INTERVAL columns as Types.CHAR.
        new Col("c_iv_ym", "INTERVAL YEAR TO MONTH", Kind.IYM, Types.CHAR),
        new Col("c_iv_df3", "INTERVAL DAY TO FRACTION(3)", Kind.IDF, Types.CHAR),
        new Col("c_iv_hs", "INTERVAL HOUR TO SECOND", Kind.IDF, Types.CHAR),
    };

    /** Qualifiers that only the DDL and metadata scenarios need. */
    static final String[][] EXTRA_COLS = {
        {"c_dt_hf3", "DATETIME HOUR TO FRACTION(3)"},
        {"c_dt_md", "DATETIME MONTH TO DAY"},
        {"c_iv_ds", "INTERVAL DAY(3) TO SECOND"},
        {"c_iv_m", "INTERVAL MINUTE(5) TO MINUTE"},
    };

    private static String typesTableDdl(String table, boolean withExtras, String... more) {
        List<String> cols = new ArrayList<>();
        cols.add("id SERIAL");
        for (Col col : VALUE_COLS) {
            cols.add(col.name + " " + col.ddl);
        }
        if (withExtras) {
            for (String[] col : EXTRA_COLS) {
                cols.add(col[0] + " " + col[1]);
            }
        }
        cols.addAll(Arrays.asList(more));
        return "CREATE TABLE " + table + " (" + String.join(", ", cols) + ")";
    }

    // ------------------------------------------------------------ scenarios

    /** Connection set-up, what the driver learnt at login, isValid and close. */
    private void connect() throws SQLException {
        Connection c = session();
        emit("valid", c.isValid(5));
        emit("closed", c.isClosed());
        emit("autocommit", c.getAutoCommit());
        emit("isolation", c.getTransactionIsolation());
        emit("catalog", c.getCatalog());
        DatabaseMetaData md = c.getMetaData();
        emit("product_name", md.getDatabaseProductName());
        emit("product_version", md.getDatabaseProductVersion());
        emit("user_name", md.getUserName());
        emit("supports_transactions", md.supportsTransactions());
        emit("health", health(c));
        c.close();
        emit("closed_after_close", c.isClosed());
        emit("valid_after_close", c.isValid(0));
    }

    /** Login that the server must refuse (wrong password, unknown database). */
    private void connectError() {
        try (Connection c = session()) {
            emit("CONNECTED", c.getCatalog());
        } catch (SQLException e) {
            emitError(e);
        }
    }

    /** CREATE TABLE with every type, checked through the system catalog. */
    private void ddl() throws SQLException {
        try (Connection c = session(); Statement st = c.createStatement()) {
            String[] tables = {"jd_types", "jd_serial8", "jd_bigserial"};
            for (String table : tables) {
                dropIfExists(c, table);
            }
            emit("create", "jd_types", st.executeUpdate(typesTableDdl("jd_types", true, "c_req INTEGER NOT NULL")));
            emit("create", "jd_serial8", st.executeUpdate("CREATE TABLE jd_serial8 (id SERIAL8, note VARCHAR(20))"));
            emit("create", "jd_bigserial", st.executeUpdate("CREATE TABLE jd_bigserial (id BIGSERIAL, note VARCHAR(20))"));
            for (String table : tables) {
                catalogColumns(c, table);
            }
            for (String table : new String[] {"jd_serial8", "jd_bigserial"}) {
                st.executeUpdate("INSERT INTO " + table + " (note) VALUES ('first')");
                st.executeUpdate("INSERT INTO " + table + " (id, note) VALUES (100, 'explicit')");
                st.executeUpdate("INSERT INTO " + table + " (note) VALUES ('after')");
                try (ResultSet rs = st.executeQuery("SELECT id, note FROM " + table + " ORDER BY id")) {
                    while (rs.next()) {
                        emit("serial", table, rs.getLong(1), rs.getString(2));
                    }
                }
            }
        }
    }

    private static void catalogColumns(Connection c, String table) throws SQLException {
        String sql = "SELECT t.ncols, c.colno, c.colname, c.coltype, c.collength"
            + " FROM systables t, syscolumns c"
            + " WHERE t.tabname = ? AND c.tabid = t.tabid ORDER BY c.colno";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    emit("column", table, rs.getInt(1), rs.getInt(2), rs.getString(3).trim(),
                         rs.getInt(4), rs.getInt(5));
                }
            }
        }
    }

    /** Rows of edge values bound through PreparedStatement, in VALUE_COLS order. */
    static Object[][] valueRows() {
        String lvarcharMax = "0123456789".repeat(200);
        return new Object[][] {
            {   // 1: largest values
                (short) 32767, 2147483647, 9223372036854775807L, 9223372036854775807L,
                3.4028235E38f, 1.7976931348623157E308,
                new BigDecimal("999999999999.9999"),
                new BigDecimal("9999999999999999999999.9999999999"),
                new BigDecimal("9999999999.99"),
                "ABCDEFGHIJ", "0123456789", "v".repeat(64), "n".repeat(64), lvarcharMax,
                true,
                Date.valueOf("9999-12-31"),
                Timestamp.valueOf("9999-12-31 23:59:59"),
                Timestamp.valueOf("9999-12-31 23:59:59.99999"),
                Time.valueOf("23:59:00"),
                Timestamp.valueOf("9999-12-31 00:00:00"),
                new IntervalYM(9999, 11),
                new IntervalDF(99L * 86400 + 86399, 999000000L),
                new IntervalDF(99L * 3600 + 59 * 60 + 59, 0L),
            },
            {   // 2: smallest values (Informix keeps the type minimum for NULL)
                (short) -32767, -2147483647, -9223372036854775807L, -9223372036854775807L,
                -3.4028235E38f, -1.7976931348623157E308,
                new BigDecimal("-999999999999.9999"),
                new BigDecimal("-9999999999999999999999.9999999999"),
                new BigDecimal("-9999999999.99"),
                "", "", "", "", "",
                false,
                Date.valueOf("0001-01-01"),
                Timestamp.valueOf("0001-01-01 00:00:00"),
                Timestamp.valueOf("0001-01-01 00:00:00.00001"),
                Time.valueOf("00:00:00"),
                Timestamp.valueOf("0001-01-01 00:00:00"),
                new IntervalYM(-9999, -11),
                new IntervalDF(-(99L * 86400 + 86399), -999000000L),
                new IntervalDF(-(99L * 3600 + 59 * 60 + 59), 0L),
            },
            {   // 3: zeros and blanks
                (short) 0, 0, 0L, 0L, 0.0f, 0.0,
                BigDecimal.ZERO, BigDecimal.ZERO, BigDecimal.ZERO,
                "x  ", " ", "trail   ", "  both  ", "end   ",
                false,
                Date.valueOf("1899-12-31"),
                Timestamp.valueOf("1970-01-01 00:00:00"),
                Timestamp.valueOf("1970-01-01 00:00:00"),
                Time.valueOf("12:00:00"),
                Timestamp.valueOf("2000-01-01 00:00:00"),
                new IntervalYM(0, 0),
                new IntervalDF(0L, 0L),
                new IntervalDF(0L, 0L),
            },
            null,   // 4: setNull for every column
            {   // 5: ordinary values, fractions, Latin-1 text, negative intervals
                (short) -1, 42, -42L, 1234567890123L, -0.15625f, 0.1,
                new BigDecimal("-0.0001"), new BigDecimal("3.1415926535"), new BigDecimal("1234.5"),
                "h\u00e9llo", "Z\u00fcrich", "caf\u00e9 \u00fc", "\u00dcn\u00efc\u00f6d\u00e9", "na\u00efve fa\u00e7ade",
                true,
                Date.valueOf("2024-02-29"),
                Timestamp.valueOf("2024-02-29 12:34:56"),
                Timestamp.valueOf("2024-02-29 12:34:56.12345"),
                Time.valueOf("07:05:00"),
                Timestamp.valueOf("2024-02-29 00:00:00"),
                new IntervalYM(-5, -3),
                new IntervalDF(-(86400L + 2 * 3600 + 3 * 60 + 4), -567000000L),
                new IntervalDF(3661L, 0L),
            },
        };
    }

    private static void bind(PreparedStatement ps, int index, Col col, Object value) throws SQLException {
        if (value == null) {
            ps.setNull(index, col.nullType);
            return;
        }
        switch (col.kind) {
            case SHORT: ps.setShort(index, (Short) value); break;
            case INT: ps.setInt(index, (Integer) value); break;
            case LONG: ps.setLong(index, (Long) value); break;
            case FLOAT: ps.setFloat(index, (Float) value); break;
            case DOUBLE: ps.setDouble(index, (Double) value); break;
            case DECIMAL: ps.setBigDecimal(index, (BigDecimal) value); break;
            case STRING: ps.setString(index, (String) value); break;
            case BOOL: ps.setBoolean(index, (Boolean) value); break;
            case DATE: ps.setDate(index, (Date) value); break;
            case TIMESTAMP: ps.setTimestamp(index, (Timestamp) value); break;
            case TIME: ps.setTime(index, (Time) value); break;
            default: ps.setObject(index, value);
        }
    }

    /** Reads one column in an unambiguous text form; null when SQL NULL. */
    private static String read(ResultSet rs, int index, Col col) throws SQLException {
        String text;
        switch (col.kind) {
            case SHORT: text = Short.toString(rs.getShort(index)); break;
            case INT: text = Integer.toString(rs.getInt(index)); break;
            case LONG: text = Long.toString(rs.getLong(index)); break;
            case FLOAT: text = Float.toString(rs.getFloat(index)); break;
            case DOUBLE: text = Double.toString(rs.getDouble(index)); break;
            case DECIMAL: text = plain(rs.getBigDecimal(index)); break;
            case STRING: text = rs.getString(index); break;
            case BOOL: text = Boolean.toString(rs.getBoolean(index)); break;
            case DATE: text = String.valueOf(rs.getDate(index)); break;
            case TIMESTAMP: text = String.valueOf(rs.getTimestamp(index)); break;
            case TIME: text = String.valueOf(rs.getTime(index)); break;
            default: text = interval(rs.getObject(index));
        }
        return rs.wasNull() ? null : text;
    }

    private static String plain(BigDecimal value) {
        return value == null ? null : value.toPlainString();
    }

    /** Intervals as exact numbers: months, or seconds and nanoseconds. */
    private static String interval(Object value) {
        if (value instanceof IntervalYM) {
            return Long.toString(((IntervalYM) value).getMonths());
        }
        if (value instanceof IntervalDF) {
            IntervalDF df = (IntervalDF) value;
            return df.getSeconds() + " " + df.getNanoSeconds();
        }
        return value == null ? null : "unexpected " + value.getClass().getName() + ": " + value;
    }

    /** Every type written with PreparedStatement and read back from a ResultSet. */
    private void values() throws SQLException {
        try (Connection c = session()) {
            dropIfExists(c, "jv_types");
            exec(c, typesTableDdl("jv_types", false));
            List<String> names = new ArrayList<>();
            names.add("id");
            for (Col col : VALUE_COLS) {
                names.add(col.name);
            }
            String marks = String.join(", ", java.util.Collections.nCopies(names.size(), "?"));
            String insert = "INSERT INTO jv_types (" + String.join(", ", names) + ") VALUES (" + marks + ")";
            Object[][] rows = valueRows();
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                for (int r = 0; r < rows.length; r++) {
                    ps.setInt(1, r + 1);
                    for (int i = 0; i < VALUE_COLS.length; i++) {
                        bind(ps, i + 2, VALUE_COLS[i], rows[r] == null ? null : rows[r][i]);
                    }
                    emit("inserted", r + 1, ps.executeUpdate());
                }
            }
            serverSideChecks(c);
            String select = "SELECT " + String.join(", ", names) + " FROM jv_types ORDER BY id";
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(select)) {
                while (rs.next()) {
                    int id = rs.getInt(1);
                    for (int i = 0; i < VALUE_COLS.length; i++) {
                        emit("value", id, VALUE_COLS[i].name, read(rs, i + 2, VALUE_COLS[i]));
                    }
                }
            }
        }
    }

    /**
     * Conditions written with Informix literals, each matching some of the rows
     * values() bound. The driver both encodes and decodes bound values, so a
     * server that merely stored the bytes would pass the round trip; these make
     * the server interpret what it stored.
     */
    static final String[][] SERVER_SIDE_CHECKS = {
        {"date_max", "c_date = MDY(12, 31, 9999)"},
        {"date_min", "c_date = MDY(1, 1, 1)"},
        {"date_day_zero", "c_date = MDY(12, 31, 1899)"},
        {"datetime_second", "c_dt_ys = DATETIME(2024-02-29 12:34:56) YEAR TO SECOND"},
        {"datetime_fraction", "c_dt_yf5 = DATETIME(0001-01-01 00:00:00.00001) YEAR TO FRACTION(5)"},
        {"datetime_hour_minute", "c_dt_hm = DATETIME(07:05) HOUR TO MINUTE"},
        {"interval_year_month", "c_iv_ym = INTERVAL(-5-03) YEAR TO MONTH"},
        {"interval_day_fraction", "c_iv_df3 = INTERVAL(-1 02:03:04.567) DAY TO FRACTION(3)"},
        {"decimal_extreme", "c_dec32 = -9999999999999999999999.9999999999"},
        {"decimal_negative", "c_dec32 < 0"},
        {"decimal_order", "ORDER BY c_dec16, id"},
        {"money", "c_money = 1234.50"},
        {"bigint_max", "c_bigint = 9223372036854775807"},
        {"int8_min", "c_int8 = -9223372036854775807"},
        {"smallint_min", "c_smallint = -32767"},
        {"float", "c_float = 0.1"},
        {"char_blank_padded", "c_char = 'x'"},
        {"empty_varchar", "c_varchar = ''"},
        {"latin1_text", "c_varchar = 'caf\u00e9 \u00fc'"},
        {"boolean_true", "c_bool = 't'"},
        {"null", "c_integer IS NULL"},
    };

    /** A bare condition selects ids in id order; a tail starting with ORDER BY tests ordering. */
    private static String checkTail(String check) {
        return check.startsWith("ORDER BY") ? check : "WHERE " + check + " ORDER BY id";
    }

    private static void serverSideChecks(Connection c) throws SQLException {
        for (String[] check : SERVER_SIDE_CHECKS) {
            List<String> ids = new ArrayList<>();
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT id FROM jv_types " + checkTail(check[1]))) {
                while (rs.next()) {
                    ids.add(Integer.toString(rs.getInt(1)));
                }
            } catch (SQLException e) {
                // Reported, not thrown: one unsupported literal must not hide the other checks.
                ids.add("ERROR " + e.getErrorCode() + " " + e.getMessage());
            }
            emit("where", check[0], String.join(",", ids));
        }
    }

    /** Diagnostic aid, not used by the tests: runs each argument as a query and prints the rows. */
    private void query(String[] statements) throws SQLException {
        try (Connection c = session(); Statement st = c.createStatement()) {
            for (String sql : statements) {
                emit("sql", sql);
                try (ResultSet rs = st.executeQuery(sql)) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        Object[] row = new Object[n + 1];
                        row[0] = "row";
                        for (int i = 1; i <= n; i++) {
                            row[i] = rs.getString(i);
                        }
                        emit(row);
                    }
                } catch (SQLException e) {
                    emitError(e);
                }
            }
        }
    }

    /**
     * Statements run in order on one autocommit connection. An argument
     * "@prepare SQL" prepares SQL (kept for later), "@run" executes the
     * statement prepared last (the server may have changed its table since);
     * any other argument runs through Statement.execute. Prints each result's
     * column names and rows, or its update count; an error prints its code,
     * message and the statement offset the driver read from SQ_ERR.
     */
    private void script(String[] args) throws SQLException {
        try (Connection c = session(); Statement st = c.createStatement()) {
            PreparedStatement prepared = null;
            for (String arg : args) {
                emit("sql", arg);
                try {
                    boolean rows;
                    Statement used;
                    if (arg.startsWith("@prepare ")) {
                        prepared = c.prepareStatement(arg.substring(9));
                        continue;
                    } else if (arg.equals("@run")) {
                        rows = prepared.execute();
                        used = prepared;
                    } else {
                        rows = st.execute(arg);
                        used = st;
                    }
                    if (rows) {
                        emitRows(used.getResultSet());
                    } else {
                        emit("count", used.getUpdateCount());
                    }
                } catch (SQLException e) {
                    emitError(e);
                    emit("offset", statementOffset(c));
                }
            }
        }
    }

    private static void emitRows(ResultSet rs) throws SQLException {
        try (ResultSet r = rs) {
            int n = r.getMetaData().getColumnCount();
            Object[] names = new Object[n + 1];
            names[0] = "columns";
            for (int i = 1; i <= n; i++) {
                names[i] = r.getMetaData().getColumnName(i);
            }
            emit(names);
            while (r.next()) {
                Object[] row = new Object[n + 1];
                row[0] = "row";
                for (int i = 1; i <= n; i++) {
                    row[i] = r.getString(i);
                }
                emit(row);
            }
        }
    }

    /** IfxSqliConnect.getSQLStatementOffset: SQ_ERR's offset of the last error. */
    private static Object statementOffset(Connection c) {
        try {
            return c.getClass().getMethod("getSQLStatementOffset").invoke(c);
        } catch (ReflectiveOperationException e) {
            return "unavailable: " + e;
        }
    }

    /** DatabaseMetaData's foreign keys of TABLE, as the driver reads them from the catalog. */
    private void fkeys(String table) throws SQLException {
        try (Connection c = session()) {
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet rs = md.getImportedKeys(null, null, table)) {
                while (rs.next()) {
                    emit("fk", rs.getString("FK_NAME"), rs.getString("FKCOLUMN_NAME"),
                         rs.getString("PKTABLE_NAME"), rs.getString("PKCOLUMN_NAME"),
                         rs.getInt("KEY_SEQ"), rs.getInt("DELETE_RULE"));
                }
            } catch (SQLException e) {
                emitError(e);
            }
        }
    }

    /**
     * Text through setString/getString. Arguments: INSERT_SQL (two markers: an
     * INTEGER and a text), SELECT_SQL, then ID TEXT pairs; every argument may
     * hold backslash-u escapes (argv is not trusted with non-ASCII). Inserts
     * each pair, then prints every row of SELECT_SQL, and the database's
     * locale as the driver learned it.
     */
    private void text(String[] args) throws SQLException {
        try (Connection c = session()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(unescapeArg(args[0]))) {
                for (int i = 2; i + 1 < args.length; i += 2) {
                    ps.setInt(1, Integer.parseInt(args[i]));
                    ps.setString(2, unescapeArg(args[i + 1]));
                    ps.executeUpdate();
                }
            } catch (SQLException e) {
                emitError(e);
            }
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery(unescapeArg(args[1]))) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    Object[] row = new Object[n + 1];
                    row[0] = "row";
                    for (int i = 1; i <= n; i++) {
                        row[i] = rs.getString(i);
                    }
                    emit(row);
                }
            } catch (SQLException e) {
                emitError(e);
            }
        }
    }

    /**
     * JSON and BSON columns (table: id INT, j JSON, b BSON): rows 10 and 11
     * inserted by setString / setBytes and by setObject, then every row read
     * back: getString for JSON, getBytes (hex) for BSON, and getObject's
     * class and value for both.  Each failure is emitted, not thrown, so the
     * Python side sees exactly what JDBC accepted.
     */
    private void documents(String table) throws SQLException {
        byte[] bson = {0x0c, 0, 0, 0, 0x10, 0x62, 0, 0x02, 0, 0, 0, 0};   // {"b": 2}
        try (Connection c = session()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?, ?)")) {
                ps.setInt(1, 10);
                ps.setString(2, "{\"k\": \"caf\u00e9\"}");
                ps.setBytes(3, bson);
                emit("insert", "setString/setBytes", ps.executeUpdate());
            } catch (SQLException e) {
                emitError(e);
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?, ?)")) {
                ps.setInt(1, 11);
                ps.setObject(2, "{\"n\": [1, 2]}");
                ps.setObject(3, bson);
                emit("insert", "setObject", ps.executeUpdate());
            } catch (SQLException e) {
                emitError(e);
            }
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT id, j, b FROM " + table + " ORDER BY id")) {
                ResultSetMetaData md = rs.getMetaData();
                emit("meta", md.getColumnType(2), md.getColumnTypeName(2),
                     md.getColumnType(3), md.getColumnTypeName(3));
                while (rs.next()) {
                    byte[] b = rs.getBytes(3);
                    Object jo = rs.getObject(2);
                    Object bo = rs.getObject(3);
                    emit("doc", rs.getInt(1), rs.getString(2), b == null ? null : hexOf(b),
                         jo == null ? "NULL" : jo.getClass().getName(),
                         bo == null ? "NULL" : bo.getClass().getName(),
                         jo == null ? null : jo.toString(),
                         bo instanceof byte[] ? hexOf((byte[]) bo) : String.valueOf(bo));
                }
            } catch (SQLException e) {
                emitError(e);
            }
        }
    }

    private static String hexOf(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x & 0xff));
        }
        return sb.toString();
    }

    /**
     * ROW/SET/MULTISET/LIST columns read through getObject, getArray and
     * Struct.getAttributes, once by a Statement and once by a
     * PreparedStatement (whose SQ_RET_TYPE goes once); values rendered by
     * render() so the Python side can compare them with our driver's.
     */
    private void composite(String query) throws SQLException {
        try (Connection c = session()) {
            c.setAutoCommit(true);
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
                compositeRows("stmt", rs);
            } catch (SQLException e) {
                emitError(e);
            }
            try (PreparedStatement ps = c.prepareStatement(query); ResultSet rs = ps.executeQuery()) {
                compositeRows("pstmt", rs);
            } catch (SQLException e) {
                emitError(e);
            }
            // a scroll cursor: SQ_RET_TYPE rides with each SQ_SFETCH, after the OPEN
            try (Statement st = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE,
                                                  ResultSet.CONCUR_READ_ONLY);
                 ResultSet rs = st.executeQuery(query)) {
                int n = rs.getMetaData().getColumnCount();
                if (rs.last()) {
                    do {
                        Object[] row = new Object[n + 2];
                        row[0] = "scroll";
                        row[1] = rs.getRow();
                        for (int i = 1; i <= n; i++) {
                            row[i + 1] = render(rs.getObject(i));
                        }
                        emit(row);
                    } while (rs.previous());
                }
            } catch (SQLException e) {
                emitError(e);
            }
        }
    }

    private static void compositeRows(String how, ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        for (int i = 1; i <= n; i++) {
            emit("meta", how, i, md.getColumnType(i), md.getColumnTypeName(i));
        }
        while (rs.next()) {
            Object[] row = new Object[n + 2];
            row[0] = "row";
            row[1] = how;
            for (int i = 1; i <= n; i++) {
                row[i + 1] = render(rs.getObject(i));
                int type = md.getColumnType(i);
                if (type == Types.ARRAY || type == Types.OTHER) {
                    java.sql.Array arr = rs.getArray(i);
                    emit("array", how, i, arr == null ? "NULL" : render(arr));
                } else if (type == Types.STRUCT) {
                    Object o = rs.getObject(i);
                    emit("struct", how, i, o == null ? "NULL"
                         : render(Arrays.asList(((java.sql.Struct) o).getAttributes())));
                }
            }
            emit(row);
        }
    }

    /** A canonical text for a composite value: SET elements sorted. */
    static String render(Object v) throws SQLException {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof java.sql.Struct) {
            List<String> fields = new ArrayList<>();
            for (Object f : ((java.sql.Struct) v).getAttributes()) {
                fields.add(render(f));
            }
            return "ROW(" + String.join(",", fields) + ")";
        }
        if (v instanceof java.sql.Array) {
            Object arr = ((java.sql.Array) v).getArray();     // int[] for SET(INT)
            List<Object> items = new ArrayList<>();
            for (int k = 0; k < java.lang.reflect.Array.getLength(arr); k++) {
                items.add(java.lang.reflect.Array.get(arr, k));
            }
            return render(items);
        }
        if (v instanceof java.util.Collection) {
            List<String> parts = new ArrayList<>();
            for (Object e : (java.util.Collection<?>) v) {
                parts.add(render(e));
            }
            if (v instanceof java.util.Set) {
                java.util.Collections.sort(parts);
                return "{" + String.join(",", parts) + "}";
            }
            return "[" + String.join(",", parts) + "]";
        }
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).toPlainString();
        }
        if (v instanceof String) {
            return "'" + v + "'";
        }
        return String.valueOf(v);   // numbers, Boolean, java.sql.Date
    }

    /** Backslash-u escapes (as escape() writes them) back to characters. */
    static String unescapeArg(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch == '\\' && i + 5 < text.length() && text.charAt(i + 1) == 'u') {
                out.append((char) Integer.parseInt(text.substring(i + 2, i + 6), 16));
                i += 5;
            } else {
                out.append(ch);
            }
        }
        return out.toString();
    }

    /**
     * executeBatch of a plain INSERT with IFX_USEPUT=1, so the driver loads
     * through an insert cursor (PUT/FLUSH). Arguments: TABLE (id INTEGER
     * UNIQUE, name VARCHAR, amount DECIMAL(10,2), day DATE), ROWS, DUPLICATE
     * (a row index whose id repeats row 0's, or -1). Prints the update
     * counts, or the error and the counts it carries, then commits.
     */
    private void putBatch(String[] args) throws SQLException {
        String extra = System.getProperty("interop.urlExtra", "");
        System.setProperty("interop.urlExtra", extra.isEmpty() ? "IFX_USEPUT=1" : extra + ";IFX_USEPUT=1");
        int rows = Integer.parseInt(args[1]);
        int duplicate = Integer.parseInt(args[2]);
        try (Connection c = session()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + args[0] + " VALUES (?, ?, ?, ?)")) {
                for (int i = 0; i < rows; i++) {
                    ps.setInt(1, i == duplicate ? 0 : i);
                    ps.setString(2, "name " + i);
                    ps.setBigDecimal(3, new BigDecimal(i).movePointLeft(2));
                    ps.setDate(4, Date.valueOf(java.time.LocalDate.of(2020, 1, 1).plusDays(i % 1000)));
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                emit("counts", counts.length, Arrays.stream(counts).sum(),
                     Arrays.stream(counts).distinct().sorted().boxed().toList().toString());
            } catch (java.sql.BatchUpdateException e) {
                emitError(e);
                emit("batch_counts", e.getUpdateCounts().length);
            } catch (SQLException e) {
                emitError(e);
            }
            c.commit();
        }
    }

    /**
     * A prepared query executed again while its first result set is still
     * open. Arguments: SELECT_SQL (one INTEGER parameter), FIRST, SECOND.
     * Prints the first row of the first execution, then every row of the second.
     */
    private void reopen(String[] args) throws SQLException {
        try (Connection c = session(); PreparedStatement ps = c.prepareStatement(args[0])) {
            ps.setInt(1, Integer.parseInt(args[1]));
            ResultSet first = ps.executeQuery();
            if (first.next()) {
                emit("first", first.getString(1));
            }
            ps.setInt(1, Integer.parseInt(args[2]));
            try (ResultSet second = ps.executeQuery()) {
                while (second.next()) {
                    emit("row", second.getString(1));
                }
            } catch (SQLException e) {
                emitError(e);
            }
        }
    }

    /**
     * SPL routines (issue 11 item 3). Argument: a fresh routine NAME. Creates
     * NAME(n INT) returning n rows (i, 'r' || i) with RETURN WITH RESUME and
     * NAME_boom raising -746; prints the rows of {call NAME(?)} through a
     * CallableStatement, of EXECUTE PROCEDURE through a Statement, the
     * column labels, and the error of the failing routine.
     */
    private void routines(String name) throws SQLException {
        try (Connection c = session(); Statement s = c.createStatement()) {
            s.execute("CREATE PROCEDURE " + name + "(n INT) RETURNING INT AS i, VARCHAR(10) AS label;"
                + " DEFINE i INT; FOR i = 1 TO n RETURN i, 'r' || i WITH RESUME; END FOR"
                + " END PROCEDURE");
            s.execute("CREATE PROCEDURE " + name + "_boom() RAISE EXCEPTION -746, 0, 'spl says no';"
                + " END PROCEDURE");
            try (java.sql.CallableStatement cs = c.prepareCall("{call " + name + "(?)}")) {
                cs.setInt(1, 3);
                try (ResultSet rs = cs.executeQuery()) {
                    ResultSetMetaData md = rs.getMetaData();
                    emit("columns", md.getColumnCount(), md.getColumnName(1), md.getColumnName(2));
                    while (rs.next()) {
                        emit("call", rs.getInt(1), rs.getString(2));
                    }
                }
            }
            try (ResultSet rs = s.executeQuery("EXECUTE PROCEDURE " + name + "(2)")) {
                while (rs.next()) {
                    emit("execute", rs.getInt(1), rs.getString(2));
                }
            }
            try {
                s.execute("EXECUTE PROCEDURE " + name + "_boom()");
                emit("boom", "no error");
            } catch (SQLException e) {
                emitError(e);
            }
            s.execute("DROP PROCEDURE " + name);
            s.execute("DROP PROCEDURE " + name + "_boom");
        }
    }

    /**
     * BYTE/TEXT written and read by IBM's driver. Argument: TABLE (id INTEGER,
     * b BYTE, t TEXT), which may already hold rows another client wrote.
     * Writes rows 1 (setBytes, setString), 2 (setBinaryStream and
     * setAsciiStream with lengths, 300000 bytes each), 3 (setNull), 4
     * (executeBatch of two rows, 4 and 5); then prints every row read three
     * ways: getBytes/getString, getBinaryStream/getAsciiStream, and the
     * length and SHA-256 of each.
     */
    private void lobs(String[] args) throws Exception {
        String table = args[0];
        try (Connection c = session()) {
            String insert = "INSERT INTO " + table + " VALUES (?, ?, ?)";
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                ps.setInt(1, 1);
                ps.setBytes(2, lobPattern(1000, 7));
                ps.setString(3, "cafe text");
                ps.executeUpdate();
                ps.setInt(1, 2);
                ps.setBinaryStream(2, new java.io.ByteArrayInputStream(lobPattern(300000, 3)), 300000);
                byte[] ascii = new byte[300000];
                Arrays.fill(ascii, (byte) 'a');
                ps.setAsciiStream(3, new java.io.ByteArrayInputStream(ascii), 300000);
                ps.executeUpdate();
                ps.setInt(1, 3);
                ps.setNull(2, Types.LONGVARBINARY);
                ps.setNull(3, Types.LONGVARCHAR);
                ps.executeUpdate();
                for (int id = 4; id <= 5; id++) {
                    ps.setInt(1, id);
                    ps.setBytes(2, lobPattern(id * 100, id));
                    ps.setString(3, "batch " + id);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            String select = "SELECT id, b, t FROM " + table + " ORDER BY id";
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(select)) {
                while (rs.next()) {
                    byte[] b = rs.getBytes(2);
                    String t = rs.getString(3);
                    emit("row", rs.getInt(1), lobDigest(b), t == null ? null : lobDigest(t.getBytes("ISO-8859-1")),
                         t == null || t.length() > 40 ? null : t);
                }
            }
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(select)) {
                while (rs.next()) {
                    java.io.InputStream bs = rs.getBinaryStream(2);
                    java.io.InputStream as = rs.getAsciiStream(3);
                    emit("stream", rs.getInt(1), bs == null ? null : lobDigest(bs.readAllBytes()),
                         as == null ? null : lobDigest(as.readAllBytes()));
                }
            }
        }
    }

    /**
     * BLOB, CLOB and BOOLEAN columns another client wrote, read by IBM's
     * driver (which asks their binary form with SQ_RET_TYPE). Argument:
     * TABLE (id INTEGER, b BLOB, c CLOB, f BOOLEAN). Prints per row the BLOB
     * through getBytes and getBlob, the CLOB through getString and getClob
     * (length:sha256 each, and the CLOB text when short), and getBoolean.
     */
    private void slobs(String table) throws Exception {
        String select = "SELECT id, b, c, f FROM " + table + " ORDER BY id";
        try (Connection c = session(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(select)) {
            while (rs.next()) {
                byte[] bytes = rs.getBytes(2);
                java.sql.Blob blob = rs.getBlob(2);
                byte[] viaBlob = blob == null ? null : blob.getBytes(1, (int) blob.length());
                String text = rs.getString(3);
                java.sql.Clob clob = rs.getClob(3);
                String viaClob = clob == null ? null : clob.getSubString(1, (int) clob.length());
                boolean flag = rs.getBoolean(4);
                String f = rs.wasNull() ? null : Boolean.toString(flag);
                emit("row", rs.getInt(1), lobDigest(bytes), lobDigest(viaBlob),
                     text == null ? null : lobDigest(text.getBytes("ISO-8859-1")),
                     viaClob == null ? null : lobDigest(viaClob.getBytes("ISO-8859-1")),
                     text == null || text.length() > 40 ? null : text, f);
            }
        }
    }

    /** length:sha256-hex of a value, or null. */
    private static String lobDigest(byte[] data) throws Exception {
        if (data == null) {
            return null;
        }
        byte[] sum = java.security.MessageDigest.getInstance("SHA-256").digest(data);
        StringBuilder hex = new StringBuilder();
        for (byte x : sum) {
            hex.append(String.format("%02x", x & 0xff));
        }
        return data.length + ":" + hex;
    }

    /** Bytes i*step mod 256: every byte value, NULs included. */
    static byte[] lobPattern(int length, int step) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            out[i] = (byte) (i * step);
        }
        return out;
    }

    /**
     * The wire-conformance script: the same operations the Python clients run,
     * so the server can compare the request PDUs of all three.
     * Arguments: INSERT_SQL SELECT_SQL ID NAME AMOUNT ID NAME AMOUNT SELECT_PARAM
     * (first row committed, second rolled back). Prints each selected row.
     */
    private void conformance(String[] args) throws SQLException {
        try (Connection c = session()) {
            c.setAutoCommit(false);
            conformanceInsert(c, args[0], args[2], args[3], args[4]);
            c.commit();
            try (PreparedStatement ps = c.prepareStatement(args[1])) {
                ps.setInt(1, Integer.parseInt(args[8]));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        emit("row", rs.getInt(1), rs.getString(2), plain(rs.getBigDecimal(3)));
                    }
                }
            }
            conformanceInsert(c, args[0], args[5], args[6], args[7]);
            c.rollback();
        }
    }

    private static void conformanceInsert(Connection c, String sql, String id, String name, String amount)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, Integer.parseInt(id));
            ps.setString(2, name);
            ps.setBigDecimal(3, new BigDecimal(amount));
            emit("inserted", ps.executeUpdate());
        }
    }

    /** ResultSetMetaData as the driver derives it from the server's DESCRIBE. */
    private void metadata() throws SQLException {
        try (Connection c = session()) {
            dropIfExists(c, "jm_types");
            exec(c, typesTableDdl("jm_types", true,
                "c_req_int INTEGER NOT NULL", "c_req_char CHAR(5) NOT NULL",
                "c_req_dec DECIMAL(8,3) NOT NULL", "c_req_dt DATETIME YEAR TO DAY NOT NULL",
                "c_dec_float DECIMAL(20)"));
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM jm_types")) {
                ResultSetMetaData md = rs.getMetaData();
                emit("count", md.getColumnCount());
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    emit("meta", md.getColumnName(i), md.getColumnType(i), md.getColumnTypeName(i),
                         md.getPrecision(i), md.getScale(i), md.isNullable(i), md.isAutoIncrement(i),
                         md.isCurrency(i), md.isSigned(i), md.getColumnClassName(i));
                }
                emit("has_row", rs.next());
            }
        }
    }

    /** 12,000 rows in, streamed out with a small fetch size, then an early close. */
    private void stream(String insertMode) throws SQLException {
        final int total = 12000;
        try (Connection c = session()) {
            dropIfExists(c, "js_rows");
            exec(c, "CREATE TABLE js_rows (id INTEGER NOT NULL, label VARCHAR(32), amount DECIMAL(12,2))");
            long inserted = 0;
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO js_rows (id, label, amount) VALUES (?, ?, ?)")) {
                for (int id = 1; id <= total; id++) {
                    ps.setInt(1, id);
                    ps.setString(2, "row-" + id);
                    ps.setBigDecimal(3, BigDecimal.valueOf(id, 2));
                    if (insertMode.equals("batch")) {
                        ps.addBatch();
                        if (id % 1000 == 0) {
                            inserted += Arrays.stream(ps.executeBatch()).sum();
                        }
                    } else {
                        inserted += ps.executeUpdate();
                    }
                }
            }
            emit("inserted", inserted);
            readAll(c);
            earlyClose(c);
        }
    }

    private static void readAll(Connection c) throws SQLException {
        long rows = 0;
        long idSum = 0;
        long mismatches = 0;
        try (Statement st = c.createStatement()) {
            st.setFetchSize(100);
            try (ResultSet rs = st.executeQuery("SELECT id, label, amount FROM js_rows ORDER BY id")) {
                while (rs.next()) {
                    int id = rs.getInt(1);
                    String label = rs.getString(2);
                    BigDecimal amount = rs.getBigDecimal(3);
                    rows++;
                    idSum += id;
                    if (id != rows || !label.equals("row-" + id) || !amount.equals(BigDecimal.valueOf(id, 2))) {
                        mismatches++;
                    }
                    if (id == 1 || id == 5000 || id == 12000) {
                        emit("sample", id, label, plain(amount));
                    }
                }
            }
        }
        emit("rows", rows);
        emit("id_sum", idSum);
        emit("mismatches", mismatches);
    }

    private static void earlyClose(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.setFetchSize(100);
            ResultSet rs = st.executeQuery("SELECT id FROM js_rows ORDER BY id");
            int last = 0;
            for (int i = 0; i < 10 && rs.next(); i++) {
                last = rs.getInt(1);
            }
            rs.close();
            emit("early_last", last);
        }
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*), SUM(id) FROM js_rows WHERE id > 11990")) {
            rs.next();
            emit("after_close", rs.getLong(1), rs.getLong(2));
        }
        emit("health", health(c));
    }

    /**
     * A logged transaction the server aborts as too long (-458; the emulator
     * started with a small long_transaction_rows). Arguments: MODE
     * ("statements": one INSERT statement per row until one fails;
     * "continue": the same, then one more INSERT before rollback(); "batch":
     * one executeBatch of a prepared INSERT; "putbatch": the same with
     * IFX_USEPUT=1, through an insert cursor), TABLE (a INTEGER), ROWS.
     * Prints where it failed (the row index, or the BatchUpdateException's
     * update counts), what commit() and then rollback() did, whether the
     * connection takes a new transaction, and every row a fresh connection
     * sees afterwards.
     */
    private void longTx(String mode, String table, int rows) throws SQLException {
        if (mode.equals("putbatch")) {
            String extra = System.getProperty("interop.urlExtra", "");
            System.setProperty("interop.urlExtra", extra.isEmpty() ? "IFX_USEPUT=1" : extra + ";IFX_USEPUT=1");
        }
        try (Connection c = session()) {
            c.setAutoCommit(false);
            if (mode.endsWith("batch")) {
                longTxBatch(c, table, rows);
            } else {
                longTxStatements(c, table, rows);
            }
            if (mode.equals("continue")) {
                step(c, "insert_after_abort", update("INSERT INTO " + table + " VALUES (100)"));
                step(c, "rollback", Connection::rollback);
                step(c, "commit", Connection::commit);
            } else {
                step(c, "commit", Connection::commit);
                step(c, "rollback", Connection::rollback);
            }
            step(c, "new_tx", x -> {
                exec(x, "INSERT INTO " + table + " VALUES (-1)");
                x.commit();
            });
        }
        try (Connection fresh = session(); Statement st = fresh.createStatement()) {
            emitRows(st.executeQuery("SELECT a FROM " + table + " ORDER BY a"));
        }
    }

    private static void longTxStatements(Connection c, String table, int rows) throws SQLException {
        for (int i = 0; i < rows; i++) {
            try {
                exec(c, "INSERT INTO " + table + " VALUES (" + i + ")");
            } catch (SQLException e) {
                emit("failed_at", i);
                emitError(e);
                return;
            }
        }
        emit("failed_at", "none");
    }

    private static void longTxBatch(Connection c, String table, int rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " VALUES (?)")) {
            for (int i = 0; i < rows; i++) {
                ps.setInt(1, i);
                ps.addBatch();
            }
            emit("counts", Arrays.toString(ps.executeBatch()));
        } catch (java.sql.BatchUpdateException e) {
            emitError(e);
            emit("batch_counts", Arrays.toString(e.getUpdateCounts()));
        }
    }

    /**
     * DDL needs the table alone: a second connection's DROP TABLE while the
     * first has a cursor open on it under REPEATABLE READ in a transaction,
     * after that cursor is closed with the transaction still open, and after
     * the commit; then the same under DIRTY READ in autocommit, where closing
     * the cursor is enough. Each DROP prints its SQLException's error code
     * and the ISAM code the driver chains as its cause (IfxSqli reads SQ_ERR
     * and calls initCause with the ISAM error), or "ok".
     */
    private void ddlExclusive() throws SQLException {
        try (Connection c1 = session(); Connection c2 = session()) {
            for (String level : new String[] {"repeatable", "dirty"}) {
                dropIfExists(c1, "jx_rows");
                exec(c1, "CREATE TABLE jx_rows (id INTEGER, v VARCHAR(40))");
                try (PreparedStatement ps = c1.prepareStatement("INSERT INTO jx_rows VALUES (?, ?)")) {
                    for (int id = 0; id < 3000; id++) {
                        ps.setInt(1, id);
                        ps.setString(2, "value number " + id);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                boolean inTx = level.equals("repeatable");
                c1.setAutoCommit(!inTx);
                c1.setTransactionIsolation(inTx ? Connection.TRANSACTION_REPEATABLE_READ
                                                : Connection.TRANSACTION_READ_UNCOMMITTED);
                Statement st = c1.createStatement();
                ResultSet rs = st.executeQuery("SELECT id, v FROM jx_rows ORDER BY id");
                rs.next();
                emit(level + "_first", rs.getInt(1));
                tryDrop(c2, level + "_while_open");
                rs.close();
                st.close();
                if (inTx) {
                    tryDrop(c2, level + "_after_close");
                    c1.commit();
                    tryDrop(c2, level + "_after_commit");
                    c1.setAutoCommit(true);
                } else {
                    tryDrop(c2, level + "_after_close");
                }
                c1.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            emit("health", health(c2));
        }
    }

    private static void tryDrop(Connection c, String label) throws SQLException {
        try {
            exec(c, "DROP TABLE jx_rows");
            emit(label, "ok");
        } catch (SQLException e) {
            Throwable cause = e.getCause();
            emit(label, e.getErrorCode(),
                 cause instanceof SQLException ? ((SQLException) cause).getErrorCode() : "none");
        }
    }

    /** Rollback discards, commit keeps, and a second session sees only committed rows. */
    private void transactions() throws SQLException {
        try (Connection c1 = session(); Connection c2 = session()) {
            dropIfExists(c1, "jt_rows");
            exec(c1, "CREATE TABLE jt_rows (id INTEGER, note VARCHAR(20))");
            String count = "SELECT COUNT(*) FROM jt_rows WHERE id = ";
            c1.setAutoCommit(false);
            emit("autocommit", c1.getAutoCommit());
            exec(c1, "INSERT INTO jt_rows VALUES (1, 'rolled back')");
            emit("inside_tx_id1", queryLong(c1, count + 1));
            c1.rollback();
            emit("after_rollback_id1", queryLong(c1, count + 1));
            exec(c1, "INSERT INTO jt_rows VALUES (2, 'committed')");
            c1.commit();
            emit("after_commit_id2", queryLong(c1, count + 2));
            emit("other_session_id1", queryLong(c2, count + 1));
            emit("other_session_id2", queryLong(c2, count + 2));
            c1.setAutoCommit(true);
            exec(c1, "INSERT INTO jt_rows VALUES (3, 'autocommit')");
            emit("other_session_id3", queryLong(c2, count + 3));
        }
    }

    /**
     * Hold cursors: HOLD_CURSORS_OVER_COMMIT keeps a result streaming across
     * commits (and a rollback) of writes on the same connection;
     * CLOSE_CURSORS_AT_COMMIT results are closed by the server at commit and
     * rollback, so their next fetch fails with the server's error.
     */
    private static final int HOLD_ROWS = 5000;

    private void hold() throws SQLException {
        final int total = HOLD_ROWS;
        try (Connection c = session()) {
            dropIfExists(c, "jh_rows");
            dropIfExists(c, "jh_log");
            exec(c, "CREATE TABLE jh_rows (id INTEGER NOT NULL, label VARCHAR(20))");
            exec(c, "CREATE TABLE jh_log (id INTEGER NOT NULL)");
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO jh_rows VALUES (?, ?)")) {
                for (int id = 1; id <= total; id++) {
                    ps.setInt(1, id);
                    ps.setString(2, "r" + id);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
            emit("default_holdability", c.getHoldability());
            heldRead(c);
            for (String end : new String[] {"commit", "rollback"}) {
                cutRead(c, end);
            }
            emit("log_rows", queryLong(c, "SELECT COUNT(*) FROM jh_log"));
            emit("health", health(c));
            c.commit();
        }
    }

    private static void heldRead(Connection c) throws SQLException {
        long rows = 0;
        long idSum = 0;
        long disorder = 0;
        try (PreparedStatement held = c.prepareStatement(
                 "SELECT id, label FROM jh_rows WHERE id > ? ORDER BY id",
                 ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY,
                 ResultSet.HOLD_CURSORS_OVER_COMMIT);
             PreparedStatement log = c.prepareStatement("INSERT INTO jh_log VALUES (?)")) {
            emit("held_holdability", held.getResultSetHoldability());
            held.setInt(1, 0);
            try (ResultSet rs = held.executeQuery()) {
                while (rs.next()) {
                    int id = rs.getInt(1);
                    rows++;
                    idSum += id;
                    if (id != rows || !rs.getString(2).equals("r" + id)) {
                        disorder++;
                    }
                    if (id % 500 == 0) {
                        log.setInt(1, id);
                        log.executeUpdate();
                        if (id == 2500) {
                            c.rollback();
                        } else {
                            c.commit();
                        }
                    }
                }
            }
        }
        emit("held_rows", rows);
        emit("held_id_sum", idSum);
        emit("held_disorder", disorder);
    }

    private static void cutRead(Connection c, String end) throws SQLException {
        long rows = 0;
        try (Statement plain = c.createStatement(ResultSet.TYPE_FORWARD_ONLY,
                 ResultSet.CONCUR_READ_ONLY, ResultSet.CLOSE_CURSORS_AT_COMMIT)) {
            ResultSet rs = plain.executeQuery("SELECT id, label FROM jh_rows ORDER BY id");
            try {
                for (int i = 0; i < 10 && rs.next(); i++) {
                    rows++;
                }
                exec(c, "INSERT INTO jh_log VALUES (0)");
                if (end.equals("commit")) {
                    c.commit();
                } else {
                    c.rollback();
                }
                while (rs.next()) {
                    rows++;
                }
                emit("cut_" + end, "NO_ERROR", rows);
            } catch (SQLException e) {
                emit("cut_" + end, e.getErrorCode(), rows < HOLD_ROWS ? "short" : "all");
            }
            try {
                rs.close();
            } catch (SQLException e) {
                emit("cut_close_" + end, e.getErrorCode());
            }
        }
    }

    /** A statement that must fail, reported with its SQLCODE; then the session must still work. */
    private interface Step {
        void run(Connection c) throws SQLException;
    }

    private static void step(Connection c, String label, Step body) throws SQLException {
        emit("STEP", label);
        try {
            body.run(c);
            emit("NO_ERROR");
        } catch (SQLException e) {
            emitError(e);
        }
        emit("HEALTH", health(c));
    }

    private static Step update(String sql) {
        return c -> exec(c, sql);
    }

    private static Step query(String sql) {
        return c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                while (rs.next()) {
                    // Draining the cursor is the point: errors may surface at fetch time.
                }
            }
        };
    }

    private static Step execute(String sql) {
        return c -> {
            try (Statement st = c.createStatement()) {
                st.execute(sql);
            }
        };
    }

    /** Server errors through SQLException.getErrorCode(). */
    private void errors() throws SQLException {
        try (Connection c = session()) {
            dropIfExists(c, "je_pk");
            dropIfExists(c, "je_uniq");
            exec(c, "CREATE TABLE je_pk (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL)");
            exec(c, "CREATE TABLE je_uniq (id INTEGER)");
            exec(c, "CREATE UNIQUE INDEX je_uniq_ix ON je_uniq (id)");
            exec(c, "INSERT INTO je_pk VALUES (1, 'one')");
            exec(c, "INSERT INTO je_uniq VALUES (1)");

            step(c, "syntax", query("SELEC tabid FROM systables"));
            step(c, "unknown_table", query("SELECT * FROM je_no_such_table"));
            step(c, "unknown_table_prepared", x -> x.prepareStatement("SELECT * FROM je_no_such_table").close());
            step(c, "unknown_column", query("SELECT no_such_column FROM systables"));
            step(c, "duplicate_primary_key", update("INSERT INTO je_pk VALUES (1, 'again')"));
            step(c, "duplicate_unique_index", update("INSERT INTO je_uniq VALUES (1)"));
            step(c, "null_into_not_null", update("INSERT INTO je_pk (id, name) VALUES (2, NULL)"));
            step(c, "null_into_not_null_bound", x -> {
                try (PreparedStatement ps = x.prepareStatement("INSERT INTO je_pk (id, name) VALUES (?, ?)")) {
                    ps.setInt(1, 3);
                    ps.setNull(2, Types.VARCHAR);
                    ps.executeUpdate();
                }
            });
            step(c, "commit_outside_tx", execute("COMMIT WORK"));
            step(c, "rollback_outside_tx", execute("ROLLBACK WORK"));
            emit("table_rows", "je_pk", queryLong(c, "SELECT COUNT(*) FROM je_pk"));
            emit("table_rows", "je_uniq", queryLong(c, "SELECT COUNT(*) FROM je_uniq"));
        }
    }
}
