#include <glibc.h>
#include "../../Sources/CTocsin/include/tocsin.h"
