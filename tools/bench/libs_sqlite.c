/* libs_sqlite.c - a host of Debian's SQLite for the real-library benchmark
 * (tools/bench/libs.c): an in-memory database (no disk in the timing) filled by prepared
 * inserts in transactions, indexed, queried by key, range and aggregate, updated and
 * partly deleted; prints a checksum of what the queries read.
 *
 *   libs_sqlite [SCALE]       (SCALE 1: 60,000 rows)
 *
 * SQLite allocates through the process's malloc, realloc and free (its default memory
 * methods), which is what a tracked program's copy of it would use.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <sqlite3.h>

static sqlite3 *db;

static void die(const char *what)
{
    fprintf(stderr, "libs_sqlite: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void exec(const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "libs_sqlite: %s: %s\n", sql, err != NULL ? err : "?");
        sqlite3_free(err);
        exit(1);
    }
}

static sqlite3_stmt *prepare(const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        die(sql);
    return st;
}

/* Steps st to its end; returns the sum of its first column over the rows. */
static int64_t drain(sqlite3_stmt *st)
{
    int64_t sum = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        sum += sqlite3_column_int64(st, 0);
    if (rc != SQLITE_DONE)
        die("step");
    sqlite3_reset(st);
    return sum;
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    int rows = (int)(60000 * scale);
    uint64_t check = 0;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        die("open");
    exec("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, price REAL, "
         "note TEXT)");

    /* Inserts: prepared once, bound per row, a transaction per 1,000 rows. */
    sqlite3_stmt *ins = prepare("INSERT INTO item(name, grp, price, note) VALUES (?, ?, ?, ?)");
    char name[64], note[160];
    for (int i = 0; i < rows; i++) {
        if (i % 1000 == 0)
            exec("BEGIN");
        snprintf(name, sizeof name, "item-%07d-%x", (i * 7919) % rows, (unsigned)i * 2654435761u);
        snprintf(note, sizeof note, "note %d for group %d: %.*s", i, i % 97, 20 + i % 80,
                 "the quick brown fox jumps over the lazy dog, again and again and again, "
                 "until the end");
        sqlite3_bind_text(ins, 1, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(ins, 2, i % 97);
        sqlite3_bind_double(ins, 3, (i % 1000) * 0.25);
        sqlite3_bind_text(ins, 4, note, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(ins) != SQLITE_DONE)
            die("insert");
        sqlite3_reset(ins);
        if (i % 1000 == 999 || i == rows - 1)
            exec("COMMIT");
    }
    sqlite3_finalize(ins);

    /* An index on each of two columns. */
    exec("CREATE INDEX item_name ON item(name)");
    exec("CREATE INDEX item_grp ON item(grp, price)");

    /* Selects: by name (the index), by group range, aggregates, a join with itself. */
    sqlite3_stmt *by_name = prepare("SELECT id FROM item WHERE name >= ? ORDER BY name LIMIT 5");
    for (int i = 0; i < rows / 4; i++) {
        snprintf(name, sizeof name, "item-%07d", (i * 104729) % rows);
        sqlite3_bind_text(by_name, 1, name, -1, SQLITE_TRANSIENT);
        check += (uint64_t)drain(by_name);
    }
    sqlite3_finalize(by_name);
    sqlite3_stmt *groups = prepare(
        "SELECT count(*) + CAST(sum(price) AS INTEGER) FROM item WHERE grp BETWEEN ? AND ?");
    for (int g = 0; g < 97; g++) {
        sqlite3_bind_int(groups, 1, g);
        sqlite3_bind_int(groups, 2, g + 5);
        check += (uint64_t)drain(groups);
    }
    sqlite3_finalize(groups);
    sqlite3_stmt *agg = prepare("SELECT grp * 1000 + count(*) FROM item GROUP BY grp "
                                "ORDER BY max(length(note)) DESC, grp");
    check += (uint64_t)drain(agg);
    sqlite3_finalize(agg);
    sqlite3_stmt *words = prepare("SELECT count(*) FROM item a JOIN item b ON a.id = b.id + 1 "
                                  "WHERE a.note LIKE '%again, until%' AND b.grp < 50");
    check += (uint64_t)drain(words);
    sqlite3_finalize(words);

    /* Updates: by group (the index), a text column rewritten; then deletes. */
    sqlite3_stmt *upd = prepare("UPDATE item SET price = price * 1.01, note = note || '!' "
                                "WHERE grp = ?");
    exec("BEGIN");
    for (int g = 0; g < 97; g += 2) {
        sqlite3_bind_int(upd, 1, g);
        if (sqlite3_step(upd) != SQLITE_DONE)
            die("update");
        sqlite3_reset(upd);
    }
    exec("COMMIT");
    sqlite3_finalize(upd);
    exec("DELETE FROM item WHERE id % 3 = 0");
    sqlite3_stmt *left = prepare("SELECT count(*) + CAST(sum(price) AS INTEGER) FROM item");
    check += (uint64_t)drain(left);
    sqlite3_finalize(left);

    if (sqlite3_close(db) != SQLITE_OK)
        die("close");
    printf("check=%" PRIu64 "\n", check);
    return 0;
}
