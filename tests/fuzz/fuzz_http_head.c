/* SPDX-License-Identifier: MIT */
/* fuzz_http_head.c - libFuzzer: what the HTTP transport decides from a
 * request head by itself (libmicrohttpd splits the lines): the request
 * line's target, every header line's value through the checks of
 * http_guard.h (Accept negotiation, Content-Type, Transfer-Encoding,
 * Origin/Host allow-lists) and host:port parsing. Input: an HTTP/1.1 head. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "transport/http_guard.h"
#include "transport/http_serve.h"

static char *const allowed[] = {"http://localhost:8808", "127.0.0.1:8808",
                                "[::1]:8808"};

static void header(const char *name, const char *value) {
  if (strcasecmp(name, "Accept") == 0) {
    mcp__http_accepts(value, "application/json");
    mcp__http_accepts(value, "text/event-stream");
  } else if (strcasecmp(name, "Content-Type") == 0) {
    mcp__http_media_type_is(value, "application/json");
  } else if (strcasecmp(name, "Transfer-Encoding") == 0) {
    mcp__http_te_is_chunked(value);
  } else if (strcasecmp(name, "Host") == 0 || strcasecmp(name, "Origin") == 0) {
    mcp__http_list_has(allowed, 3, value);
    char host[256];
    uint16_t port;
    mcp__http_parse_host_port(value, host, sizeof host, &port);
  } else {
    /* any other header meets every check once */
    mcp__http_accepts(value, "text/event-stream");
    mcp__http_media_type_is(value, "application/json");
    mcp__http_te_is_chunked(value);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
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
