/* options_man.c - memtrack(1)'s list of options, from the same table that the library
 * parses and `memtrack --options` prints (MT_OPTION_LIST, src/base/options.h).
 *
 * The table's texts are plain words written for a terminal; as roff text lines they need
 * only a backslash escaped and a leading '.' or '\'' made literal, and a function's name
 * (a word such as "memtrack_check()") its own .Fn line. Each ends with a full
 * stop; its first letter stays as the table has it, as `memtrack --options` prints it (it
 * may be a value, "all:", or a function, "realloc").
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/options.h"
#include "options_man.h"

/* The longest text line written, as mandoc's style check wants it. */
#define MT_MAN_LINE_MAX 80

/* The length of the function name when word (n bytes) is a call such as "memtrack_check()",
 * maybe followed by punctuation; else 0. */
static size_t function_name(const char *word, size_t n)
{
    size_t id = 0;
    while (id < n &&
           (word[id] == '_' || (word[id] >= 'a' && word[id] <= 'z') ||
            (word[id] >= 'A' && word[id] <= 'Z') || (id > 0 && word[id] >= '0' && word[id] <= '9')))
        id++;
    if (id == 0 || id + 2 > n || word[id] != '(' || word[id + 1] != ')')
        return 0;
    for (size_t i = id + 2; i < n; i++)
        if (strchr(".,;:)", word[i]) == NULL)
            return 0;
    return id;
}

/* The text lines of one sentence: text escaped for roff, with a full stop, in lines of at
 * most 80 bytes where the words allow (mandoc -T lint asks it). */
static void sentence(FILE *out, const char *text)
{
    size_t column = 0;
    for (const char *p = text + strspn(text, " "); *p != '\0'; p += strspn(p, " ")) {
        size_t n = strcspn(p, " "), width = n;
        bool last = p[n + strspn(p + n, " ")] == '\0', stop = last && p[n - 1] != '.';
        for (size_t i = 0; i < n; i++)
            width += p[i] == '\\';
        width += stop;
        size_t fn = function_name(p, n);
        if (fn > 0) { /* a function, marked up as one (mandoc's style check asks it) */
            if (column > 0)
                fputc('\n', out);
            fprintf(out, ".Fn %.*s", (int)fn, p);
            for (size_t i = fn + 2; i < n; i++)
                fprintf(out, " %c", p[i]);
            fputs(stop ? " .\n" : "\n", out);
            column = 0;
            p += n;
            continue;
        }
        if (column > 0 && column + 1 + width > MT_MAN_LINE_MAX) {
            fputc('\n', out);
            column = 0;
        }
        if (column > 0) {
            fputc(' ', out);
            column++;
        } else if (p[0] == '.' || p[0] == '\'') { /* not a request: literal text */
            fputs("\\&", out);
            column += 2;
        }
        for (size_t i = 0; i < n; i++) {
            if (p[i] == '\\')
                fputs("\\e", out);
            else
                fputc(p[i], out);
        }
        if (stop)
            fputc('.', out);
        column += width;
        p += n;
    }
    if (column > 0)
        fputc('\n', out);
}

/* A word given to a macro: quoted, so that "0|1" or "-1" stays one argument. */
static void macro_word(FILE *out, const char *word)
{
    fputc('"', out);
    for (const char *p = word; *p != '\0'; p++) {
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '"')
            fputs("\\(dq", out);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

int mt_options_write_man(FILE *out)
{
    fputs(".Bl -tag -width Ds\n", out);
    for (size_t i = 0; i < mt_option_count(); i++) {
        const char *def = mt_option_default(i);
        fputs(".It Cm ", out);
        macro_word(out, mt_option_name(i));
        fputs(" Ns = Ns Ar ", out);
        macro_word(out, mt_option_type_word(mt_option_type(i)));
        fputc('\n', out);
        sentence(out, mt_option_help(i));
        if (def[0] != '\0') {
            fputs("The default is\n.Cm ", out);
            macro_word(out, def);
            fputs(" .\n", out);
        }
        if (mt_option_fixed_at_first_block(i))
            fputs("It cannot change once the first block exists.\n", out);
    }
    fputs(".El\n", out);
    return fflush(out) == 0 && !ferror(out) ? 0 : 2;
}
