/* SPDX-License-Identifier: MIT */
/* sse.c - incremental text/event-stream parser (see sse.h). Follows the
 * WHATWG "interpreting an event stream" steps; the only departure is that
 * the event type buffer defaults to "message" at dispatch. */
#include "client/sse.h"

#include <stdlib.h>
#include <string.h>

void mcp__sse_init(mcp__sse *p, mcp__sse_event_fn fn, void *user_data) {
  memset(p, 0, sizeof *p);
  mcp__buf_init(&p->line);
  mcp__buf_init(&p->data);
  mcp__buf_init(&p->event);
  mcp__buf_init(&p->id_buf);
  p->retry_ms = -1;
  p->fn = fn;
  p->user_data = user_data;
}

void mcp__sse_free(mcp__sse *p) {
  mcp__buf_free(&p->line);
  mcp__buf_free(&p->data);
  mcp__buf_free(&p->event);
  mcp__buf_free(&p->id_buf);
  free(p->last_id);
  p->last_id = NULL;
}

const char *mcp__sse_last_id(const mcp__sse *p) {
  return p->last_id ? p->last_id : "";
}

static bool dispatch(mcp__sse *p) {
  /* The id buffer becomes the last event id even when no data follows: a
   * priming event "id: x" + empty data must still move Last-Event-ID. */
  if (p->has_id) {
    char *id = strdup(p->id_buf.data ? p->id_buf.data : "");
    if (id == NULL)
      return false;
    free(p->last_id);
    p->last_id = id;
  }
  mcp__buf_reset(&p->id_buf);
  p->has_id = false;
  if (p->has_data && p->fn != NULL) {
    size_t len = p->data.len;
    if (len > 0 && p->data.data[len - 1] == '\n')
      p->data.data[--len] = '\0';
    p->fn(p->event.len ? p->event.data : "message", mcp__sse_last_id(p),
          p->data.data ? p->data.data : "", len, p->user_data);
  }
  mcp__buf_reset(&p->data);
  mcp__buf_reset(&p->event);
  p->has_data = false;
  return true;
}

static bool process_line(mcp__sse *p, const char *line, size_t n) {
  if (n == 0)
    return dispatch(p);
  if (line[0] == ':')
    return true; /* comment */
  const char *colon = memchr(line, ':', n);
  size_t name_len = colon ? (size_t)(colon - line) : n;
  const char *value = colon ? colon + 1 : line + n;
  size_t value_len = colon ? n - name_len - 1 : 0;
  if (value_len > 0 && value[0] == ' ') {
    value++;
    value_len--;
  }
#define FIELD_IS(s)                                                            \
  (name_len == sizeof(s) - 1 && memcmp(line, s, name_len) == 0)
  if (FIELD_IS("data")) {
    p->has_data = true;
    return mcp__buf_append(&p->data, value, value_len) &&
           mcp__buf_append_char(&p->data, '\n');
  }
  if (FIELD_IS("event")) {
    mcp__buf_reset(&p->event);
    return mcp__buf_append(&p->event, value, value_len);
  }
  if (FIELD_IS("id")) {
    if (memchr(value, '\0', value_len) != NULL)
      return true; /* ids containing NUL are ignored */
    mcp__buf_reset(&p->id_buf);
    p->has_id = true; /* "id:" alone resets the last event id to "" */
    return mcp__buf_append(&p->id_buf, value, value_len);
  }
  if (FIELD_IS("retry")) {
    if (value_len == 0 || value_len > 9)
      return true;
    long ms = 0;
    for (size_t i = 0; i < value_len; i++) {
      if (value[i] < '0' || value[i] > '9')
        return true; /* not all digits: ignored */
      ms = ms * 10 + (value[i] - '0');
    }
    p->retry_ms = ms;
    return true;
  }
#undef FIELD_IS
  return true; /* unknown fields are ignored */
}

bool mcp__sse_feed(mcp__sse *p, const char *bytes, size_t n) {
  size_t i = 0;
  if (!p->started && n > 0) {
    /* a UTF-8 BOM may only appear as the first bytes; this parser assumes
     * the first chunk holds all three when present */
    p->started = true;
    if (n >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0)
      i = 3;
  }
  while (i < n) {
    char c = bytes[i];
    if (p->after_cr) {
      p->after_cr = false;
      if (c == '\n') {
        i++;
        continue;
      }
    }
    size_t start = i;
    while (i < n && bytes[i] != '\n' && bytes[i] != '\r')
      i++;
    if (i > start && !mcp__buf_append(&p->line, bytes + start, i - start))
      return false;
    if (i == n)
      break;
    p->after_cr = bytes[i] == '\r';
    i++;
    if (!process_line(p, p->line.data ? p->line.data : "", p->line.len))
      return false;
    mcp__buf_reset(&p->line);
  }
  return true;
}
