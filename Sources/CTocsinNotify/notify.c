/* The notifier's header as a module; the implementation is Swift
   (Sources/TocsinNotifyC). SwiftPM wants one source file here. */
#include "tocsin_notify.h"
