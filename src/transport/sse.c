/* SPDX-License-Identifier: MIT */
/* sse.c - Server-Sent Events framing; see sse.h. */
#include "transport/sse.h"

#include <stdio.h>
#include <string.h>

bool mcp__sse_append_event(mcp__buf *out, const char *id, const char *data,
                           size_t len) {
  size_t mark = out->len;
  bool ok = true;
  if (id)
    ok = mcp__buf_append_str(out, "id: ") && mcp__buf_append_str(out, id) &&
         mcp__buf_append_char(out, '\n');
  /* n line breaks make n + 1 data lines, so a trailing break survives the
   * client's "join with LF, drop the last LF" rule. */
  for (size_t i = 0; ok;) {
    size_t j = i;
    while (j < len && data[j] != '\n' && data[j] != '\r')
      j++;
    ok = mcp__buf_append(out, "data: ", 6) &&
         mcp__buf_append(out, data + i, j - i) &&
         mcp__buf_append_char(out, '\n');
    if (j >= len)
      break;
    if (data[j] == '\r' && j + 1 < len && data[j + 1] == '\n')
      j++;
    i = j + 1;
  }
  ok = ok && mcp__buf_append_char(out, '\n');
  if (!ok && out->data) {
    out->len = mark;
    out->data[mark] = '\0';
  }
  return ok;
}

bool mcp__sse_append_priming(mcp__buf *out, const char *id, int retry_ms) {
  char line[32];
  size_t mark = out->len;
  bool ok = mcp__buf_append_str(out, "id: ") && mcp__buf_append_str(out, id) &&
            mcp__buf_append_char(out, '\n');
  if (ok && retry_ms > 0) {
    snprintf(line, sizeof line, "retry: %d\n", retry_ms);
    ok = mcp__buf_append_str(out, line);
  }
  ok = ok && mcp__buf_append_str(out, "data: \n\n");
  if (!ok && out->data) {
    out->len = mark;
    out->data[mark] = '\0';
  }
  return ok;
}

bool mcp__sse_append_comment(mcp__buf *out, const char *text) {
  return mcp__buf_append_str(out, ": ") && mcp__buf_append_str(out, text) &&
         mcp__buf_append_str(out, "\n\n");
}
