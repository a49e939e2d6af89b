/* json.c - a small strict JSON reader (see json.h). Recursive descent, depth-limited. */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct parser {
    const char *p, *start, *end;
    char *err;
    size_t err_size;
    bool failed;
} parser_t;

static void fail(parser_t *ps, const char *what)
{
    if (ps->failed)
        return;
    ps->failed = true;
    size_t line = 1, col = 1;
    for (const char *c = ps->start; c < ps->p && c < ps->end; c++) {
        if (*c == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(ps->err, ps->err_size, "line %zu, column %zu: %s", line, col, what);
}

static void *xcalloc(parser_t *ps, size_t n, size_t size)
{
    void *p = calloc(n == 0 ? 1 : n, size);
    if (p == NULL)
        fail(ps, "out of memory");
    return p;
}

static void skip_space(parser_t *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static bool literal(parser_t *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, word, n) == 0) {
        ps->p += n;
        return true;
    }
    return false;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool read_hex4(parser_t *ps, unsigned *out)
{
    unsigned v = 0;
    if (ps->end - ps->p < 4) {
        fail(ps, "short \\u escape");
        return false;
    }
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(ps->p[i]);
        if (d < 0) {
            fail(ps, "bad \\u escape");
            return false;
        }
        v = v * 16 + (unsigned)d;
    }
    ps->p += 4;
    *out = v;
    return true;
}

static size_t put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Reads a string after its opening quote; the result is at most as long as the source. */
static char *read_string(parser_t *ps)
{
    const char *q = ps->p;
    while (q < ps->end && *q != '"') {
        if (*q == '\\')
            q++;
        q++;
    }
    char *out = xcalloc(ps, (size_t)(q - ps->p) + 1, 1);
    if (out == NULL)
        return NULL;
    size_t n = 0;
    while (ps->p < ps->end && *ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20) {
            fail(ps, "control character in a string");
            free(out);
            return NULL;
        }
        if (c != '\\') {
            out[n++] = (char)c;
            ps->p++;
            continue;
        }
        ps->p++;
        if (ps->p >= ps->end)
            break;
        char e = *ps->p++;
        switch (e) {
        case '"': out[n++] = '"'; break;
        case '\\': out[n++] = '\\'; break;
        case '/': out[n++] = '/'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            unsigned cp, low;
            if (!read_hex4(ps, &cp)) {
                free(out);
                return NULL;
            }
            if (cp >= 0xD800 && cp < 0xDC00) {
                if (!literal(ps, "\\u") || !read_hex4(ps, &low) || low < 0xDC00 || low > 0xDFFF) {
                    fail(ps, "unpaired surrogate in a string");
                    free(out);
                    return NULL;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                fail(ps, "unpaired surrogate in a string");
                free(out);
                return NULL;
            }
            if (cp == 0) {
                fail(ps, "\\u0000 in a string");
                free(out);
                return NULL;
            }
            n += put_utf8(out + n, cp);
            break;
        }
        default:
            fail(ps, "bad escape in a string");
            free(out);
            return NULL;
        }
    }
    if (ps->p >= ps->end) {
        fail(ps, "unterminated string");
        free(out);
        return NULL;
    }
    ps->p++; /* the closing quote */
    out[n] = '\0';
    return out;
}

static char *read_number(parser_t *ps)
{
    const char *s = ps->p;
    if (ps->p < ps->end && *ps->p == '-')
        ps->p++;
    if (ps->p < ps->end && *ps->p == '0') {
        ps->p++;
    } else if (ps->p < ps->end && *ps->p >= '1' && *ps->p <= '9') {
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    } else {
        fail(ps, "bad number");
        return NULL;
    }
    if (ps->p < ps->end && *ps->p == '.') {
        ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
            fail(ps, "bad number");
            return NULL;
        }
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
            ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
            fail(ps, "bad number");
            return NULL;
        }
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    char *text = xcalloc(ps, (size_t)(ps->p - s) + 1, 1);
    if (text != NULL)
        memcpy(text, s, (size_t)(ps->p - s));
    return text;
}

static json_t *read_value(parser_t *ps, int depth);

/* Appends v (and key) to a growing array or object. */
static bool append(parser_t *ps, json_t *c, size_t *cap, json_t *v, char *key)
{
    if (c->count == *cap) {
        size_t ncap = *cap == 0 ? 8 : *cap * 2;
        json_t **items = realloc(c->items, ncap * sizeof *items);
        if (items == NULL) {
            fail(ps, "out of memory");
            return false;
        }
        c->items = items;
        if (c->type == JSON_OBJECT) {
            char **keys = realloc(c->keys, ncap * sizeof *keys);
            if (keys == NULL) {
                fail(ps, "out of memory");
                return false;
            }
            c->keys = keys;
        }
        *cap = ncap;
    }
    c->items[c->count] = v;
    if (c->type == JSON_OBJECT)
        c->keys[c->count] = key;
    c->count++;
    return true;
}

static json_t *read_container(parser_t *ps, json_t *c, int depth)
{
    bool object = c->type == JSON_OBJECT;
    char close = object ? '}' : ']';
    size_t cap = 0;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return c;
    }
    for (;;) {
        char *key = NULL;
        skip_space(ps);
        if (object) {
            if (ps->p >= ps->end || *ps->p != '"') {
                fail(ps, "expected a member name in quotes");
                break;
            }
            ps->p++;
            key = read_string(ps);
            if (key == NULL)
                break;
            skip_space(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                free(key);
                fail(ps, "expected ':' after a member name");
                break;
            }
            ps->p++;
        }
        json_t *v = read_value(ps, depth + 1);
        if (v == NULL || !append(ps, c, &cap, v, key)) {
            free(key);
            json_free(v);
            break;
        }
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return c;
        }
        fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
        break;
    }
    json_free(c);
    return NULL;
}

static json_t *read_value(parser_t *ps, int depth)
{
    if (depth > MAX_DEPTH) {
        fail(ps, "nested too deeply");
        return NULL;
    }
    skip_space(ps);
    if (ps->p >= ps->end) {
        fail(ps, "unexpected end of input");
        return NULL;
    }
    json_t *v = xcalloc(ps, 1, sizeof *v);
    if (v == NULL)
        return NULL;
    char c = *ps->p;
    if (c == '{' || c == '[') {
        ps->p++;
        v->type = c == '{' ? JSON_OBJECT : JSON_ARRAY;
        return read_container(ps, v, depth);
    }
    if (c == '"') {
        ps->p++;
        v->type = JSON_STRING;
        v->text = read_string(ps);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        v->type = JSON_NUMBER;
        v->text = read_number(ps);
    } else if (literal(ps, "true") || literal(ps, "false")) {
        v->type = JSON_BOOL;
        v->boolean = c == 't';
        return v;
    } else if (literal(ps, "null")) {
        v->type = JSON_NULL;
        return v;
    } else {
        fail(ps, "expected a value");
    }
    if (v->text == NULL) {
        free(v);
        return NULL;
    }
    return v;
}

json_t *json_parse(const char *text, size_t len, char *err, size_t err_size)
{
    parser_t ps = {text, text, text + len, err, err_size, false};
    json_t *v = read_value(&ps, 0);
    if (v != NULL) {
        skip_space(&ps);
        if (ps.p != ps.end) {
            fail(&ps, "text after the end of the value");
            json_free(v);
            return NULL;
        }
    }
    return v;
}

void json_free(json_t *v)
{
    if (v == NULL)
        return;
    for (size_t i = 0; i < v->count; i++) {
        json_free(v->items[i]);
        if (v->keys != NULL)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
    free(v);
}

const json_t *json_get(const json_t *v, const char *key)
{
    if (v == NULL || v->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->count; i++)
        if (strcmp(v->keys[i], key) == 0)
            return v->items[i];
    return NULL;
}
