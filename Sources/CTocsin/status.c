/* Status texts and the version, generated from the header's one list. */
#include "tocsin.h"

const char *tocsin_strerror(int status) {
    switch (status) {
    case TOCSIN_OK:
        return "success";
#define TOCSIN_XX_(name, code, text)                                           \
    case TOCSIN_##name:                                                        \
        return text;
        TOCSIN_ERRNO_MAP(TOCSIN_XX_)
#undef TOCSIN_XX_
    default:
        return "unknown error";
    }
}

const char *tocsin_err_name(int status) {
    switch (status) {
    case TOCSIN_OK:
        return "TOCSIN_OK";
#define TOCSIN_XX_(name, code, text)                                           \
    case TOCSIN_##name:                                                        \
        return "TOCSIN_" #name;
        TOCSIN_ERRNO_MAP(TOCSIN_XX_)
#undef TOCSIN_XX_
    default:
        return "TOCSIN_UNKNOWN";
    }
}

const char *tocsin_version(void) { return TOCSIN_VERSION_STRING; }

unsigned tocsin_version_hex(void) { return TOCSIN_VERSION_HEX; }
