/* SPDX-License-Identifier: MIT */
/* http_frame_probe.c - the own engine's framing decisions for the
 * differential test (http_diff.py): each input line is one request's bytes
 * in hex; each output line is what the engine would do with them, decided
 * by the same functions http_conn.c calls (http_parse.h) and the one check
 * it adds (Host required in HTTP/1.1):
 *
 *   ok END BODYHEX   the request ends after END bytes; its body (decoded)
 *   refuse STATUS    answered STATUS, connection closed
 *   incomplete       the bytes end before the request does
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/http_parse.h"

static int hexval(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

static void print_hex(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    printf("%02x", (unsigned char)p[i]);
}

/* The engine's verdict on in[0..len). */
static void decide(const char *in, size_t len) {
  size_t end = mcp__hp_head_end(in, len, 0);
  if (end == 0) {
    puts("incomplete");
    return;
  }
  char *head = malloc(end + 1);
  if (head == NULL)
    abort();
  memcpy(head, in, end);
  head[end] = '\0';
  mcp__hp_field fields[MCP__HP_MAX_FIELDS];
  mcp__hp_head h;
  enum mcp__hp_result r = mcp__hp_parse_head(head, end, fields, &h);
  if (r != MCP__HP_OK) {
    printf("refuse %d\n", r == MCP__HP_TOO_LARGE ? 431
                          : r == MCP__HP_VERSION ? 505
                                                 : 400);
    free(head);
    return;
  }
  if (h.minor == 1 && mcp__hp_field_get(&h, "Host") == NULL) {
    puts("refuse 400"); /* http_conn.c start_request */
    free(head);
    return;
  }
  enum mcp__hp_body body = h.body;
  uint64_t length = h.content_length;
  free(head);
  if (body == MCP__HP_BODY_UNKNOWN) {
    puts("refuse 501");
    return;
  }
  if (body == MCP__HP_BODY_NONE) {
    printf("ok %zu \n", end);
    return;
  }
  if (body == MCP__HP_BODY_LENGTH) {
    if (len - end < length) {
      puts("incomplete");
      return;
    }
    printf("ok %zu ", end + (size_t)length);
    print_hex(in + end, (size_t)length);
    putchar('\n');
    return;
  }
  mcp__hp_chunked c;
  mcp__hp_chunked_init(&c);
  size_t off = end;
  char *out = malloc(len + 1);
  size_t n = 0;
  if (out == NULL)
    abort();
  for (;;) {
    size_t used = 0, dlen = 0;
    const char *data = NULL;
    enum mcp__hp_chunk_result cr =
        mcp__hp_chunked_feed(&c, in + off, len - off, &used, &data, &dlen);
    off += used;
    if (cr == MCP__HP_CHUNK_DATA) {
      memcpy(out + n, data, dlen);
      n += dlen;
    } else if (cr == MCP__HP_CHUNK_DONE) {
      printf("ok %zu ", off);
      print_hex(out, n);
      putchar('\n');
      break;
    } else if (cr == MCP__HP_CHUNK_BAD) {
      puts("refuse 400");
      break;
    } else {
      puts("incomplete");
      break;
    }
  }
  free(out);
}

int main(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t got;
  while ((got = getline(&line, &cap, stdin)) > 0) {
    size_t hl = (size_t)got;
    while (hl > 0 && (line[hl - 1] == '\n' || line[hl - 1] == '\r'))
      hl--;
    size_t len = hl / 2;
    char *bytes = malloc(len + 1);
    if (bytes == NULL)
      abort();
    for (size_t i = 0; i < len; i++) {
      int hi = hexval(line[2 * i]), lo = hexval(line[2 * i + 1]);
      if (hi < 0 || lo < 0) {
        fprintf(stderr, "http_frame_probe: bad hex input\n");
        return 2;
      }
      bytes[i] = (char)(hi * 16 + lo);
    }
    decide(bytes, len);
    fflush(stdout);
    free(bytes);
  }
  free(line);
  return 0;
}
