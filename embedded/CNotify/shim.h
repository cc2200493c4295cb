#include <glibc.h>
#include "../../Sources/CNotify/shim.h"
