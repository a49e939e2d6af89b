/* names.h - a name table kept by a shared library. */
#ifndef NAMES_H
#define NAMES_H
const char *names_intern(const char *name);
void names_clear(void);
#endif
