/* words.h - a word joined from parts, in a static archive. */
#ifndef WORDS_H
#define WORDS_H
char *words_join(const char *a, const char *b);
#endif
