/* Everything is inline in the header; SwiftPM wants one source file. */
#include "tocsin_system.h"
