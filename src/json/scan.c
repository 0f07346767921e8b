/* SPDX-License-Identifier: MIT */
/* scan.c - see scan.h. */
#include "json/scan.h"

bool mcp__json_too_deep(const char *text, size_t len, size_t max_depth) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth)
        return true;
    } else if ((c == '}' || c == ']') && depth > 0) {
      depth--;
    }
  }
  return false;
}

bool mcp__json_is_array(const char *text, size_t len) {
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
      continue;
    return c == '[';
  }
  return false;
}
