/* SPDX-License-Identifier: MIT */
/* completer.c - completion handlers stored on catalog entries. */
#include "catalog/completer.h"

#include <stdlib.h>

void mcp__completers_free(mcp__completer *c, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(c[i].name);
    if (c[i].free_user_data)
      c[i].free_user_data(c[i].user_data);
  }
  free(c);
}
