#include <glibc.h>
#include "../../Sources/CCanberra/shim.h"
