#include <glibc.h>
#include "../CTocsin/shim.h"
#include "../../Sources/CTocsinNotify/include/tocsin_notify.h"
#include "../../Sources/CTocsinNotify/include/tocsin_engine_functions.h"
