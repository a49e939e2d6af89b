/* libs_jansson.c - a host of Debian's jansson for the real-library benchmark
 * (tools/bench/libs.c): documents built value by value (objects of strings, numbers and
 * arrays), written out as text, parsed back, walked, changed and written again; prints a
 * checksum of what it read.
 *
 *   libs_jansson [SCALE]      (SCALE 1: 40 rounds of a 2,000-record document)
 *
 * jansson allocates through its hook table, which holds the process's malloc and free by
 * default, as cJSON's and libyaml's do: those calls reach the tracker through the process's
 * allocator.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static void die(const char *what)
{
    fprintf(stderr, "libs_jansson: %s\n", what);
    exit(1);
}

/* A document of n records, each an object of a dozen members. */
static json_t *build(int n, int round)
{
    json_t *doc = json_object();
    json_t *items = json_array();
    char text[96];
    for (int i = 0; i < n; i++) {
        json_t *o = json_object();
        snprintf(text, sizeof text, "record %d of round %d", i, round);
        json_object_set_new(o, "id", json_integer(i));
        json_object_set_new(o, "name", json_string(text));
        json_object_set_new(o, "score", json_real(i * 0.5 + round));
        json_object_set_new(o, "active", json_boolean(i % 3 != 0));
        json_t *tags = json_array();
        for (int k = 0; k < i % 6; k++) {
            snprintf(text, sizeof text, "tag-%d", (i + k) % 40);
            json_array_append_new(tags, json_string(text));
        }
        json_object_set_new(o, "tags", tags);
        json_t *where = json_object();
        json_object_set_new(where, "x", json_integer(i % 640));
        json_object_set_new(where, "y", json_integer(i % 480));
        json_object_set_new(o, "where", where);
        json_array_append_new(items, o);
    }
    json_object_set_new(doc, "items", items);
    json_object_set_new(doc, "round", json_integer(round));
    return doc;
}

/* Reads every record of a parsed document; changes some. */
static uint64_t walk(json_t *doc)
{
    uint64_t sum = 0;
    json_t *items = json_object_get(doc, "items");
    size_t i;
    json_t *o;
    json_array_foreach(items, i, o)
    {
        sum += (uint64_t)json_integer_value(json_object_get(o, "id"));
        sum += strlen(json_string_value(json_object_get(o, "name")));
        sum += json_array_size(json_object_get(o, "tags"));
        if (i % 4 == 0) {
            json_object_del(o, "where");
            json_object_set_new(o, "seen", json_true());
        }
    }
    return sum;
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    int rounds = (int)(40 * scale);
    uint64_t check = 0;
    for (int r = 0; r < rounds; r++) {
        json_t *doc = build(2000, r);
        char *text = json_dumps(doc, JSON_COMPACT);
        json_decref(doc);
        if (text == NULL)
            die("dump");
        json_error_t err;
        json_t *back = json_loads(text, 0, &err);
        if (back == NULL)
            die(err.text);
        check += strlen(text) + walk(back);
        char *again = json_dumps(back, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (again == NULL)
            die("dump");
        check += strlen(again);
        free(again);
        free(text);
        json_decref(back);
    }
    printf("check=%" PRIu64 "\n", check);
    return 0;
}
