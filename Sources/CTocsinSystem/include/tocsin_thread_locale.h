/* A locale for one thread's texts (the timer service's: it follows the
   session's language without setlocale(), which is not safe while other
   threads run). Not used by the libraries. */
#ifndef TOCSIN_THREAD_LOCALE_H
#define TOCSIN_THREAD_LOCALE_H

/* A locale with everything from `base`, LC_MESSAGES from `messages`, LC_TIME
   from `time` and LC_NUMERIC "C" (numbers a program reads stay C); a part
   whose locale is not installed stays the base's, a base not installed is
   C.UTF-8. Never NULL; never freed (a thread may still be using it). */
void *tocsin_thread_locale_new(const char *base, const char *messages, const char *time);

/* Makes `locale` the calling thread's (uselocale). */
void tocsin_thread_locale_use(void *locale);

/* 1 if a locale of this name is installed (newlocale accepts it). */
int tocsin_thread_locale_exists(const char *name);

#endif
