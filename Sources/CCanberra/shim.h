/* libcanberra for Swift: its variadic calls are not importable, so sounds are
   played with ca_context_play_full and a proplist. */
#include <canberra.h>
