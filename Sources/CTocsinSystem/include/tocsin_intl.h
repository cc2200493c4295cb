/* Translated text: the gettext domain "tocsin", used as a library must
   (GNU gettext manual, "Preparing Library Sources"): bound once, on first
   use, from whichever thread; translated with dgettext/dngettext; never
   setlocale() or textdomain(), which belong to the program. */
#ifndef TOCSIN_INTL_H
#define TOCSIN_INTL_H

/* Hidden: the libraries' own, not part of their C ABI. */
#define TOCSIN_INTL_HIDDEN __attribute__((visibility("hidden")))

/* The translation of msgid in the program's locale (LANGUAGE, LC_ALL,
   LC_MESSAGES, LANG), as UTF-8; msgid itself if there is none. */
TOCSIN_INTL_HIDDEN const char *tocsin_gettext(const char *msgid);

/* The same for a text that depends on a count: `one` or `many` in English,
   the language's own plural form otherwise. */
TOCSIN_INTL_HIDDEN const char *tocsin_ngettext(const char *one, const char *many, unsigned long count);

/* The folder the translations are read from: $TOCSIN_LOCALEDIR, else
   PREFIX/share/locale of the library or program this code is in (PREFIX/lib,
   PREFIX/lib/<multiarch> or PREFIX/bin), else /usr/share/locale. */
TOCSIN_INTL_HIDDEN const char *tocsin_locale_folder(void);

#endif
