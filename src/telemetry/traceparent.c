/* SPDX-License-Identifier: MIT */
/* traceparent.c - W3C traceparent values (traceparent.h). */
#include "telemetry/traceparent.h"

#include <string.h>

#include "util/hex.h"

/* W3C: lowercase only (HEXDIGLC) */
static int lower_hex(char c) {
  return c >= 'A' && c <= 'F' ? -1 : mcp__hex_digit((unsigned char)c);
}

/* n bytes from 2n lowercase hex digits; false when one is not, or when all
 * bytes are zero (an invalid id). */
static bool id_from_hex(const char *s, unsigned char *out, size_t n) {
  bool nonzero = false;
  for (size_t i = 0; i < n; i++) {
    int hi = lower_hex(s[2 * i]), lo = lower_hex(s[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    out[i] = (unsigned char)(hi << 4 | lo);
    nonzero |= out[i] != 0;
  }
  return nonzero;
}

bool mcp__traceparent_parse(const char *text, unsigned char trace_id[16],
                            unsigned char parent_id[8], bool *sampled) {
  const char *tp = text;
  if (tp == NULL || strlen(tp) < 55 || tp[2] != '-' || tp[35] != '-' ||
      tp[52] != '-' || strncmp(tp, "ff", 2) == 0 || lower_hex(tp[0]) < 0 ||
      lower_hex(tp[1]) < 0 || (strncmp(tp, "00", 2) == 0 && tp[55] != '\0'))
    return false;
  if (!id_from_hex(tp + 3, trace_id, 16) || !id_from_hex(tp + 36, parent_id, 8))
    return false;
  int hi = lower_hex(tp[53]), lo = lower_hex(tp[54]);
  if (hi < 0 || lo < 0)
    return false;
  *sampled = ((hi << 4 | lo) & 1) != 0;
  return true;
}

void mcp__traceparent_format(char out[MCP__TRACEPARENT_SIZE],
                             const unsigned char trace_id[16],
                             const unsigned char span_id[8]) {
  memcpy(out, "00-", 3);
  mcp__hex_lower(out + 3, trace_id, 16);
  out[35] = '-';
  mcp__hex_lower(out + 36, span_id, 8);
  memcpy(out + 52, "-01", 4); /* with the NUL */
}
