/* SPDX-License-Identifier: MIT */
/* fuzz_http_head.c - libFuzzer: the own engine's request parser
 * (http_parse.h: the head's end found from every resume point the input
 * suggests, the head parsed in place, what follows it decoded as a chunked
 * body in two parts), then what the HTTP transport decides from a request
 * head by itself: the request line's target, every header line's value
 * through the checks of http_guard.h (Accept negotiation, Content-Type,
 * Transfer-Encoding, Origin/Host allow-lists) and host:port parsing.
 * Input: an HTTP/1.1 head, maybe followed by a body. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "transport/http_guard.h"
#include "transport/http_parse.h"
#include "transport/http_serve.h"

static char *const allowed[] = {"http://localhost:8808", "127.0.0.1:8808",
                                "[::1]:8808"};

static void header(const char *name, const char *value) {
  if (strcasecmp(name, "Accept") == 0) {
    static const char *const both[] = {"application/json",
                                       "text/event-stream"};
    unsigned want = (unsigned)mcp__http_accepts(value, both[0]) |
                    (unsigned)mcp__http_accepts(value, both[1]) << 1;
    if (mcp__http_accepts_each(value, both, 2) != want)
      abort();
  } else if (strcasecmp(name, "Content-Type") == 0) {
    mcp__http_media_type_is(value, "application/json");
  } else if (strcasecmp(name, "Transfer-Encoding") == 0) {
    mcp__hp_te te = {0};
    enum mcp__hp_body body;
    mcp__hp_te_add(&te, value);
    (void)mcp__hp_te_body(&te, &body);
  } else if (strcasecmp(name, "Host") == 0 || strcasecmp(name, "Origin") == 0) {
    mcp__http_list_has(allowed, 3, value);
    char host[256];
    uint16_t port;
    mcp__http_parse_host_port(value, host, sizeof host, &port);
  } else {
    /* any other header meets every check once */
    mcp__http_accepts(value, "text/event-stream");
    mcp__http_media_type_is(value, "application/json");
    mcp__http_coding_is_identity(value);
  }
}

/* The engine's parser over the input; aborts on a broken invariant. */
static void engine_parse(const uint8_t *data, size_t size) {
  const char *in = (const char *)data;
  size_t hint = size ? data[0] % (size + 1) : 0;
  size_t end = mcp__hp_head_end(in, size, 0);
  /* a resume point is valid when the bytes before it hold no end */
  if (end > size || (mcp__hp_head_end(in, hint, 0) == 0 &&
                     mcp__hp_head_end(in, size, hint) != end))
    abort();
  if (end == 0)
    return;
  char *head = malloc(end + 1);
  if (head == NULL)
    return;
  memcpy(head, in, end);
  head[end] = '\0';
  mcp__hp_field fields[MCP__HP_MAX_FIELDS];
  mcp__hp_head h;
  if (mcp__hp_parse_head(head, end, fields, &h) == MCP__HP_OK) {
    if (h.nfields > MCP__HP_MAX_FIELDS || h.path == NULL)
      abort();
    for (size_t i = 0; i < h.nfields; i++)
      if (strlen(fields[i].name) == 0 || strchr(fields[i].value, '\n'))
        abort();
    /* the index of known fields agrees with a search over every field */
    for (int k = 0; k < MCP__HK_COUNT; k++) {
      const char *first = NULL;
      unsigned count = 0;
      for (size_t i = 0; i < h.nfields; i++)
        if (mcp__hp_known_of(fields[i].name, strlen(fields[i].name)) ==
            (enum mcp__hp_known)k) {
          if (first == NULL)
            first = fields[i].value;
          count++;
        }
      if (mcp__hp_known_get(&h, (enum mcp__hp_known)k) != first ||
          h.known_n[k] != (count > 255 ? 255 : count))
        abort();
    }
  }
  free(head);
  /* the rest as a chunked body, split where its first byte says */
  const char *body = in + end;
  size_t blen = size - end, split = blen ? (unsigned char)body[0] % blen : 0;
  mcp__hp_chunked c;
  mcp__hp_chunked_init(&c);
  size_t off = 0, total = 0;
  for (int part = 0; part < 2; part++) {
    size_t stop = part == 0 ? split : blen;
    while (off < stop) {
      size_t used = 0, dlen = 0;
      const char *d = NULL;
      enum mcp__hp_chunk_result r =
          mcp__hp_chunked_feed(&c, body + off, stop - off, &used, &d, &dlen);
      if (used > stop - off)
        abort();
      off += used;
      if (r == MCP__HP_CHUNK_DATA) {
        if (d < body || d + dlen > body + off)
          abort();
        total += dlen;
      }
      /* an accepted body ends with an empty line, CRLF-terminated (RFC
       * 9112 7.1: no bare CR or LF is taken as a line end) */
      if (r == MCP__HP_CHUNK_DONE &&
          (off < 5 || memcmp(body + off - 4, "\r\n\r\n", 4) != 0))
        abort();
      if (r == MCP__HP_CHUNK_BAD || r == MCP__HP_CHUNK_DONE)
        return;
      if (r == MCP__HP_CHUNK_MORE && off != stop)
        abort();
    }
  }
  if (total > blen)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  engine_parse(data, size);
  char *text = malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char *save = NULL;
  bool first = true;
  for (char *line = strtok_r(text, "\r\n", &save); line;
       line = strtok_r(NULL, "\r\n", &save)) {
    if (first) { /* "METHOD target HTTP/1.1" */
      first = false;
      char *target = strchr(line, ' ');
      if (target) {
        char host[256];
        uint16_t port;
        mcp__http_parse_host_port(target + 1, host, sizeof host, &port);
      }
      continue;
    }
    char *colon = strchr(line, ':');
    if (colon == NULL)
      continue;
    *colon = '\0';
    const char *value = colon + 1;
    while (*value == ' ' || *value == '\t')
      value++;
    header(line, value);
  }
  free(text);
  return 0;
}
