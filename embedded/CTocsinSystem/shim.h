#include <glibc.h>
#include "../../Sources/CTocsinSystem/include/tocsin_system.h"
#include "../../Sources/CTocsinSystem/include/tocsin_lock.h"
#include "../../Sources/CTocsinSystem/include/tocsin_intl.h"
