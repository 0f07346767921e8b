/* builder.c - placeholder */
#include "schema/internal.h"
