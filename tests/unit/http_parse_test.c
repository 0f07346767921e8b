/* SPDX-License-Identifier: MIT */
/* http_parse_test.c - the own engine's request parser (http_parse.c) from
 * tables (issue #25): each head and each chunked body is fed whole and as
 * every incomplete prefix (which must ask for more, never decide), NUL,
 * TAB, DEL and CR are put into each part of a head, and the framing
 * decisions of RFC 9112 6 (Transfer-Encoding with Content-Length, in
 * HTTP/1.0, coding lists, Content-Length values that differ, repeated
 * Host, the absolute-form's authority) and chunk-line grammar (extensions
 * valid and invalid, CR only before LF) are checked row by row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "transport/http_parse.h"

/* ---- heads --------------------------------------------------------------- */

typedef struct head_row {
  const char *text;
  enum mcp__hp_result result;
  enum mcp__hp_body body; /* at MCP__HP_OK */
  uint64_t length;        /* at MCP__HP_BODY_LENGTH */
  bool keep_alive;        /* at MCP__HP_OK */
  const char *host;       /* at MCP__HP_OK: what Host reads as (NULL: none) */
} head_row;

#define GET_    "GET /mcp HTTP/1.1\r\nHost: a\r\n"
#define POST_   "POST /mcp HTTP/1.1\r\nHost: a\r\n"
#define POST10_ "POST /mcp HTTP/1.0\r\nHost: a\r\n"

static const head_row heads[] = {
    /* plain requests */
    {GET_ "\r\n", MCP__HP_OK, MCP__HP_BODY_NONE, 0, true, "a"},
    {"GET /mcp HTTP/1.1\nHost: a\n\n", MCP__HP_OK, MCP__HP_BODY_NONE, 0, true,
     "a"},
    {"\r\n\r\nGET / HTTP/1.0\r\n\r\n", MCP__HP_OK, MCP__HP_BODY_NONE, 0, false,
     NULL},
    {POST_ "Content-Length: 5\r\n\r\n", MCP__HP_OK, MCP__HP_BODY_LENGTH, 5,
     true, "a"},
    {POST_ "Content-Length: 0\r\n\r\n", MCP__HP_OK, MCP__HP_BODY_NONE, 0, true,
     "a"},
    {POST_ "Content-Length: 5\r\nContent-Length: 5\r\n\r\n", MCP__HP_OK,
     MCP__HP_BODY_LENGTH, 5, true, "a"},
    {POST_ "Transfer-Encoding: chunked\r\n\r\n", MCP__HP_OK,
     MCP__HP_BODY_CHUNKED, 0, true, "a"},
    {POST_ "Transfer-Encoding: CHUNKED \r\nConnection: close\r\n\r\n",
     MCP__HP_OK, MCP__HP_BODY_CHUNKED, 0, false, "a"},
    {POST_ "Transfer-Encoding: ,chunked,\r\n\r\n", MCP__HP_OK,
     MCP__HP_BODY_CHUNKED, 0, true, "a"},
    {POST10_ "Connection: keep-alive\r\nContent-Length: 2\r\n\r\n", MCP__HP_OK,
     MCP__HP_BODY_LENGTH, 2, true, "a"},
    /* N1: Transfer-Encoding with Content-Length, in either order, and in
     * HTTP/1.0, is refused (and the engine closes) */
    {POST_ "Content-Length: 30\r\nTransfer-Encoding: chunked\r\n\r\n",
     MCP__HP_BAD, 0, 0, false, NULL},
    {POST_ "Transfer-Encoding: chunked\r\nContent-Length: 30\r\n\r\n",
     MCP__HP_BAD, 0, 0, false, NULL},
    {POST_ "Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n",
     MCP__HP_BAD, 0, 0, false, NULL},
    {POST10_ "Transfer-Encoding: chunked\r\n\r\n", MCP__HP_BAD, 0, 0, false,
     NULL},
    {POST10_ "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
     MCP__HP_BAD, 0, 0, false, NULL},
    /* coding lists: chunked must be final and once; others before it are
     * not implemented */
    {POST_ "Transfer-Encoding: gzip\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {POST_ "Transfer-Encoding: chunked, gzip\r\n\r\n", MCP__HP_BAD, 0, 0, false,
     NULL},
    {POST_ "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n",
     MCP__HP_BAD, 0, 0, false, NULL},
    {POST_ "Transfer-Encoding: chunked, chunked\r\n\r\n", MCP__HP_BAD, 0, 0,
     false, NULL},
    {POST_ "Transfer-Encoding: \r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {POST_ "Transfer-Encoding: chunked;x=1\r\n\r\n", MCP__HP_BAD, 0, 0, false,
     NULL},
    {POST_ "Transfer-Encoding: gzip, chunked\r\n\r\n", MCP__HP_OK,
     MCP__HP_BODY_UNKNOWN, 0, false, "a"},
    {POST_ "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n",
     MCP__HP_OK, MCP__HP_BODY_UNKNOWN, 0, false, "a"},
    /* Content-Length */
    {POST_ "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", MCP__HP_BAD, 0, 0,
     false, NULL},
    {POST_ "Content-Length: 5, 5\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {POST_ "Content-Length: +5\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {POST_ "Content-Length: 0x5\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {POST_ "Content-Length:\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {POST_ "Content-Length: 18446744073709551616\r\n\r\n", MCP__HP_BAD, 0, 0,
     false, NULL},
    /* Host: one; the absolute-form's authority wins (RFC 9112 3.2.2) */
    {"GET /mcp HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", MCP__HP_BAD, 0, 0,
     false, NULL},
    {"GET /mcp HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", MCP__HP_BAD, 0, 0,
     false, NULL},
    {"POST http://other:8/mcp HTTP/1.1\r\nHost: a\r\n\r\n", MCP__HP_OK,
     MCP__HP_BODY_NONE, 0, true, "other:8"},
    {"POST HTTPS://other HTTP/1.1\r\nHost: a\r\n\r\n", MCP__HP_OK,
     MCP__HP_BODY_NONE, 0, true, "other"},
    {"POST http://other?x HTTP/1.1\r\nHost: a\r\n\r\n", MCP__HP_OK,
     MCP__HP_BODY_NONE, 0, true, "other"},
    {"GET http://[::1]:9/mcp HTTP/1.0\r\n\r\n", MCP__HP_OK, MCP__HP_BODY_NONE,
     0, false, "[::1]:9"},
    {"GET http://b/mcp HTTP/1.1\r\n\r\n", MCP__HP_OK, MCP__HP_BODY_NONE, 0,
     true, NULL}, /* no Host: the engine's 400 */
    {"POST http:///mcp HTTP/1.1\r\nHost: a\r\n\r\n", MCP__HP_BAD, 0, 0, false,
     NULL},
    {"POST http://u@other/mcp HTTP/1.1\r\nHost: a\r\n\r\n", MCP__HP_BAD, 0, 0,
     false, NULL},
    /* request lines and fields */
    {"GET  /mcp HTTP/1.1\r\nHost: a\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {"GET /mcp  HTTP/1.1\r\nHost: a\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {"GET /mcp HTTP/1.1 \r\nHost: a\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {"GET /mcp http/1.1\r\nHost: a\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {"GET /mcp HTTP/1.10\r\nHost: a\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {"GET /mcp HTTP/2.0\r\nHost: a\r\n\r\n", MCP__HP_VERSION, 0, 0, false,
     NULL},
    {"GET /mcp HTTP/1.2\r\nHost: a\r\n\r\n", MCP__HP_OK, MCP__HP_BODY_NONE,
     0, true, "a"},
    {"GET /m\x80 HTTP/1.1\r\nHost: a\r\n\r\n", MCP__HP_BAD, 0, 0, false,
     NULL},
    {"GET mcp HTTP/1.1\r\nHost: a\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {GET_ " folded\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {GET_ "X : v\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {GET_ ": v\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {GET_ "NoColon\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {GET_ "X: a\rb\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
    {GET_ "X: a\r\r\n\r\n", MCP__HP_BAD, 0, 0, false, NULL},
};

static enum mcp__hp_result parse(const char *text, size_t len, char *buf,
                                 mcp__hp_field *fields, mcp__hp_head *h) {
  memcpy(buf, text, len);
  buf[len] = '\0';
  return mcp__hp_parse_head(buf, len, fields, h);
}

static void test_head_table(void **state) {
  (void)state;
  char buf[1024];
  mcp__hp_field fields[MCP__HP_MAX_FIELDS];
  for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
    const head_row *row = &heads[i];
    size_t len = strlen(row->text);
    /* every incomplete prefix asks for more, from any resume point */
    for (size_t k = 0; k < len; k++) {
      if (mcp__hp_head_end(row->text, k, 0) != 0)
        fail_msg("row %zu: the head ended after %zu of %zu bytes", i, k, len);
      if (mcp__hp_head_end(row->text, len, k) != len)
        fail_msg("row %zu: resuming at %zu missed the end", i, k);
    }
    assert_int_equal(mcp__hp_head_end(row->text, len, 0), len);
    mcp__hp_head h;
    enum mcp__hp_result r = parse(row->text, len, buf, fields, &h);
    if (r != row->result)
      fail_msg("row %zu (%s): result %d, expected %d", i, row->text, (int)r,
               (int)row->result);
    if (r == MCP__HP_BAD)
      assert_non_null(h.error); /* a reason for the 400 */
    if (r != MCP__HP_OK)
      continue;
    if (h.body != row->body)
      fail_msg("row %zu (%s): body %d, expected %d", i, row->text, (int)h.body,
               (int)row->body);
    if (row->body == MCP__HP_BODY_LENGTH)
      assert_int_equal(h.content_length, row->length);
    if (h.keep_alive != row->keep_alive)
      fail_msg("row %zu (%s): keep-alive %d", i, row->text, h.keep_alive);
    const char *host = mcp__hp_field_get(&h, "Host");
    if (row->host == NULL)
      assert_null(host);
    else
      assert_string_equal(host, row->host);
  }
}

/* The absolute-form keeps its path and query handling after the authority
 * was cut out of it in place. */
static void test_absolute_form_path(void **state) {
  (void)state;
  char buf[256];
  mcp__hp_field fields[MCP__HP_MAX_FIELDS];
  mcp__hp_head h;
  const char *t = "POST http://other:8/m%63p?x=1 HTTP/1.1\r\nHost: a\r\n\r\n";
  assert_int_equal(parse(t, strlen(t), buf, fields, &h), MCP__HP_OK);
  assert_string_equal(h.path, "/mcp");
  assert_string_equal(h.authority, "other:8");
  assert_string_equal(mcp__hp_field_get(&h, "host"), "other:8");
  t = "POST /mcp HTTP/1.1\r\nHost: a\r\n\r\n";
  assert_int_equal(parse(t, strlen(t), buf, fields, &h), MCP__HP_OK);
  assert_null(h.authority);
}

/* ---- the index of known fields ------------------------------------------ */

static const struct {
  const char *name;
  enum mcp__hp_known k;
} known_names[] = {
    {"Host", MCP__HK_HOST},
    {"Content-Length", MCP__HK_CONTENT_LENGTH},
    {"Transfer-Encoding", MCP__HK_TRANSFER_ENCODING},
    {"Connection", MCP__HK_CONNECTION},
    {"Expect", MCP__HK_EXPECT},
    {"Origin", MCP__HK_ORIGIN},
    {"Accept", MCP__HK_ACCEPT},
    {"Content-Type", MCP__HK_CONTENT_TYPE},
    {"Content-Encoding", MCP__HK_CONTENT_ENCODING},
    {"Authorization", MCP__HK_AUTHORIZATION},
    {"DPoP", MCP__HK_DPOP},
    {"Last-Event-ID", MCP__HK_LAST_EVENT_ID},
    {"MCP-Protocol-Version", MCP__HK_MCP_PROTOCOL_VERSION},
    {"Mcp-Session-Id", MCP__HK_MCP_SESSION_ID},
    {"Mcp-Method", MCP__HK_MCP_METHOD},
    {"Mcp-Name", MCP__HK_MCP_NAME},
    {"traceparent", MCP__HK_TRACEPARENT},
};

/* Every known name in any case is recognised; the same name with any one
 * byte changed to another token character (or its case-twin outside the
 * letters) is not. */
static void test_known_names(void **state) {
  (void)state;
  static const char others[] = "-_~^.09aAzZ";
  assert_int_equal(sizeof known_names / sizeof *known_names, MCP__HK_COUNT);
  for (size_t i = 0; i < MCP__HK_COUNT; i++) {
    char name[32];
    size_t n = strlen(known_names[i].name);
    strcpy(name, known_names[i].name);
    assert_int_equal(mcp__hp_known_of(name, n), known_names[i].k);
    for (size_t j = 0; j < n; j++) /* upper, then lower case */
      if (name[j] >= 'a' && name[j] <= 'z')
        name[j] = (char)(name[j] - 32);
    assert_int_equal(mcp__hp_known_of(name, n), known_names[i].k);
    for (size_t j = 0; j < n; j++)
      if (name[j] >= 'A' && name[j] <= 'Z')
        name[j] = (char)(name[j] + 32);
    assert_int_equal(mcp__hp_known_of(name, n), known_names[i].k);
    for (size_t j = 0; j < n; j++) {
      char was = name[j];
      for (const char *o = others; *o; o++) {
        if ((*o | 0x20) == (was | 0x20))
          continue;
        name[j] = *o;
        if (mcp__hp_known_of(name, n) != MCP__HK_COUNT)
          fail_msg("%s taken for %s", name, known_names[i].name);
      }
      name[j] = was;
    }
    /* a prefix or an extension is another name */
    assert_int_equal(mcp__hp_known_of(name, n - 1), MCP__HK_COUNT);
    name[n] = 'x';
    assert_int_equal(mcp__hp_known_of(name, n + 1), MCP__HK_COUNT);
  }
}

/* The linear search the index replaces. */
static const char *first_field(const mcp__hp_head *h, const char *name,
                               unsigned *count) {
  const char *first = NULL;
  *count = 0;
  for (size_t i = 0; i < h->nfields; i++)
    if (strcasecmp(h->fields[i].name, name) == 0) {
      if (first == NULL)
        first = h->fields[i].value;
      (*count)++;
    }
  return first;
}

/* The index answers as a search over every field would: first value and
 * count of each known name, in any case, repeated or absent, and the
 * Mcp-Param-* fields counted. */
static void test_known_index(void **state) {
  (void)state;
  static const char *const texts[] = {
      "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
      "Accept: x\r\nmcp-protocol-version: 2026-07-28\r\nMcp-Method: "
      "tools/call\r\nMCP-NAME: add\r\nContent-Length: 2\r\n\r\n",
      "POST /mcp HTTP/1.1\r\nhost: a\r\nOrigin: o1\r\nX-Other: 1\r\n"
      "origin: o2\r\nMcp-Method: a\r\nMcp-Method: b\r\nMcp-Param-Region: "
      "eu\r\nmcp-param-x: 1\r\nMcp-Param-: short\r\nMcp-Params: no\r\n"
      "DPoP: p\r\nAuthorization: t1\r\nAuthorization: t2\r\n\r\n",
      "GET /mcp HTTP/1.1\r\nHost: a\r\nLast-Event-ID: 7\r\nAccept: "
      "text/event-stream\r\nMcp-Session-Id: s\r\nContent-Encoding: "
      "identity\r\nConnection: keep-alive\r\nExpect: nothing\r\n\r\n",
      "POST http://b:1/mcp HTTP/1.0\r\nContent-Length: 0\r\n\r\n",
  };
  static const unsigned params[] = {0, 2, 0, 0};
  char buf[1024];
  mcp__hp_field fields[MCP__HP_MAX_FIELDS];
  for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
    mcp__hp_head h;
    assert_int_equal(parse(texts[t], strlen(texts[t]), buf, fields, &h),
                     MCP__HP_OK);
    assert_int_equal(h.params, params[t]);
    for (size_t i = 0; i < MCP__HK_COUNT; i++) {
      unsigned count;
      const char *want = first_field(&h, known_names[i].name, &count);
      const char *got = mcp__hp_known_get(&h, known_names[i].k);
      if (want == NULL)
        assert_null(got);
      else
        assert_ptr_equal(got, want);
      assert_int_equal(h.known_n[known_names[i].k], count);
      assert_ptr_equal(mcp__hp_field_get(&h, known_names[i].name), want);
    }
  }
}

/* ---- one byte in each part ----------------------------------------------- */

enum part { P_METHOD, P_TARGET, P_VERSION, P_NAME, P_VALUE, P_COUNT };

/* "GET /mcp HTTP/1.1\r\nX-Name: val ue\r\n\r\n" with ch put inside the
 * part (not at its edge). */
static size_t with_byte(char *out, enum part p, char ch) {
  static const char *const parts[P_COUNT] = {"GET", "/mcp", "HTTP/1.1",
                                             "X-Name", "val"};
  size_t n = 0;
  for (int i = 0; i < P_COUNT; i++) {
    size_t pl = strlen(parts[i]);
    memcpy(out + n, parts[i], pl);
    if ((enum part)i == p) { /* after the first byte */
      memmove(out + n + 2, out + n + 1, pl - 1);
      out[n + 1] = ch;
      pl++;
    }
    n += pl;
    static const char *const after[P_COUNT] = {" ", " ", "\r\n", ": ",
                                               "ue\r\n\r\n"};
    memcpy(out + n, after[i], strlen(after[i]));
    n += strlen(after[i]);
  }
  return n;
}

static void test_control_bytes_in_each_part(void **state) {
  (void)state;
  static const char bytes[] = {'\0', '\t', 0x7f, '\r'};
  static const char *const names[] = {"NUL", "TAB", "DEL", "CR"};
  static const char *const part_names[P_COUNT] = {"method", "target",
                                                  "version", "name", "value"};
  char text[128], buf[128];
  mcp__hp_field fields[MCP__HP_MAX_FIELDS];
  for (int p = 0; p < P_COUNT; p++) {
    for (size_t b = 0; b < sizeof bytes; b++) {
      size_t len = with_byte(text, (enum part)p, bytes[b]);
      assert_int_equal(mcp__hp_head_end(text, len, 0), len);
      mcp__hp_head h;
      enum mcp__hp_result r = parse(text, len, buf, fields, &h);
      /* Only a value may hold TAB (RFC 9110 5.5) or DEL (invalid, but
       * kept for the request layer to answer, as RFC 9110 5.5 allows);
       * NUL and a bare CR are refused everywhere. */
      bool ok = p == P_VALUE && (bytes[b] == '\t' || bytes[b] == 0x7f);
      if ((r == MCP__HP_OK) != ok)
        fail_msg("%s in the %s: result %d", names[b], part_names[p], (int)r);
      if (ok) {
        char want[8] = {'v', bytes[b], 'a', 'l', 'u', 'e', '\0'};
        assert_string_equal(mcp__hp_field_get(&h, "x-name"), want);
      } else if (p == P_VERSION && bytes[b] != '\0' && bytes[b] != '\r') {
        assert_int_equal(r, MCP__HP_BAD); /* not a version, malformed */
      }
    }
  }
}

/* Header names of 1 to 40 bytes (the name check steps sixteen bytes at a
 * time over the first 32), each with one byte changed at every position:
 * another token character keeps the name, a space, '@', a bare CR or a
 * byte from 0x80 up refuses the head; a line and a head that end at every
 * offset of the sixteen-byte steps are cut where they end. */
static void test_names_and_line_ends_at_every_offset(void **state) {
  (void)state;
  static const char subst[] = {'!', '_', '~', '9', ' ', '@', '\r', '\x80',
                               '\x7f'};
  char text[256], buf[256], name[48];
  mcp__hp_field fields[MCP__HP_MAX_FIELDS];
  for (size_t n = 1; n <= 40; n++)
    for (size_t at = 0; at <= n; at++)
      for (size_t k = 0; k < sizeof subst; k++) {
        if (at == n && k > 0)
          break; /* at == n: the name unchanged, once */
        for (size_t i = 0; i < n; i++)
          name[i] = (char)("Ab-9z"[i % 5]);
        if (at < n)
          name[at] = subst[k];
        name[n] = '\0';
        size_t len = (size_t)snprintf(
            text, sizeof text, "POST /mcp HTTP/1.1\r\nHost: a\r\n%s: v%zu\r\n"
                               "Accept: x\r\n\r\n",
            name, n);
        mcp__hp_head h;
        enum mcp__hp_result r = parse(text, len, buf, fields, &h);
        bool ok = at == n || k < 4;
        if ((r == MCP__HP_OK) != ok)
          fail_msg("name %zu bytes, 0x%02x at %zu: result %d", n,
                   (unsigned char)subst[k], at, (int)r);
        if (ok) {
          char want[8];
          snprintf(want, sizeof want, "v%zu", n);
          assert_string_equal(mcp__hp_field_get(&h, name), want);
          assert_string_equal(mcp__hp_field_get(&h, "accept"), "x");
        }
      }
  /* a value of every length up to 40, in CRLF and in bare-LF form: the head
   * ends right after the empty line, found at every offset */
  for (size_t v = 0; v <= 40; v++)
    for (int lf_only = 0; lf_only < 2; lf_only++) {
      const char *eol = lf_only ? "\n" : "\r\n";
      size_t len = (size_t)snprintf(text, sizeof text,
                                    "GET / HTTP/1.1%sHost: a%sX: %.*s%s%s",
                                    eol, eol, (int)v,
                                    "0123456789012345678901234567890123456789",
                                    eol, eol);
      memcpy(text + len, "GET / HTTP/1.1\r\n", 16); /* a pipelined next */
      assert_int_equal(mcp__hp_head_end(text, len + 16, 0), len);
      for (size_t from = 0; from <= len; from++)
        assert_int_equal(mcp__hp_head_end(text, len, from), len);
      mcp__hp_head h;
      assert_int_equal(parse(text, len, buf, fields, &h), MCP__HP_OK);
      assert_int_equal(strlen(mcp__hp_field_get(&h, "x")), v);
    }
}

/* ---- chunked bodies ------------------------------------------------------ */

typedef struct chunk_row {
  const char *text;
  const char *body; /* the decoded body; NULL: malformed */
} chunk_row;

static const chunk_row chunks[] = {
    {"0\r\n\r\n", ""},
    {"5\r\nhello\r\n0\r\n\r\n", "hello"},
    {"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world"},
    {"A\r\n0123456789\r\n0\r\n\r\n", "0123456789"},
    {"000005\r\nhello\r\n0000\r\n\r\n", "hello"},
    /* extensions: token or quoted-string values, BWS around ';' and '=' */
    {"5;a\r\nhello\r\n0\r\n\r\n", "hello"},
    {"5;a=b\r\nhello\r\n0;z\r\n\r\n", "hello"},
    {"5 ;a = b ; c\r\nhello\r\n0\r\n\r\n", "hello"},
    {"5;a=\"q \\\" ;=\"\r\nhello\r\n0\r\n\r\n", "hello"},
    {"5;a=\"\"\r\nhello\r\n0\r\n\r\n", "hello"},
    {"5\t;\ta\r\nhello\r\n0\r\n\r\n", "hello"},
    {"5 \r\nhello\r\n0\r\n\r\n", "hello"},
    {"5;a=\"\xc3\xa9\"\r\nhello\r\n0\r\n\r\n", "hello"},
    /* trailers */
    {"5\r\nhello\r\n0\r\nX-T: 1\r\nY:\r\n\r\n", "hello"},
    {"5\r\nhello\r\n0\r\nX-T:\tv v\r\n\r\n", "hello"},
    /* N2: a CR only before LF; nothing but extensions after the size */
    {"5;a\rX\r\nhello\r\n0\r\n\r\n", NULL},
    {"5 junk\r\nhello\r\n0\r\n\r\n", NULL},
    {"5junk\r\nhello\r\n0\r\n\r\n", NULL},
    {"5\rX\nhello\r\n0\r\n\r\n", NULL},
    {"5;a=\"b\rc\"\r\nhello\r\n0\r\n\r\n", NULL},
    {"5;a=b c\r\nhello\r\n0\r\n\r\n", NULL},
    {"5;\r\nhello\r\n0\r\n\r\n", NULL},
    {"5;=b\r\nhello\r\n0\r\n\r\n", NULL},
    {"5;a=\r\nhello\r\n0\r\n\r\n", NULL},
    {"5;a=\"b\r\nhello\r\n0\r\n\r\n", NULL},
    {"5;a=\"b\"c\r\nhello\r\n0\r\n\r\n", NULL},
    {"5;a\x01\r\nhello\r\n0\r\n\r\n", NULL},
    {"5;a=\"\x7f\"\r\nhello\r\n0\r\n\r\n", NULL},
    {"5;a,b\r\nhello\r\n0\r\n\r\n", NULL},
    /* sizes and line ends */
    {"\r\nhello\r\n0\r\n\r\n", NULL},
    {" 5\r\nhello\r\n0\r\n\r\n", NULL},
    {"-5\r\nhello\r\n0\r\n\r\n", NULL},
    {"0x5\r\nhello\r\n0\r\n\r\n", NULL},
    {"1234567890abcdef0\r\n", NULL},
    {"10000000000000000\r\n", NULL},
    {"00000000000000000000000000000005\r\nhello\r\n0\r\n\r\n", "hello"},
    {"5\nhello\r\n0\r\n\r\n", NULL},
    {"5\r\nhello\n0\r\n\r\n", NULL},
    {"5\r\nhelloX\r\n0\r\n\r\n", NULL},
    {"5\r\nhello\r\n0\r\n\n", NULL},
    {"5\r\nhello\r\n0\n\r\n", NULL},
    {"5\r\nhello\r\n0\r\n\r\r\n", NULL},
    /* trailers that are not fields */
    {"5\r\nhello\r\n0\r\nno colon\r\n\r\n", NULL},
    {"5\r\nhello\r\n0\r\n folded\r\n\r\n", NULL},
    {"5\r\nhello\r\n0\r\nX: a\rb\r\n\r\n", NULL},
    {"5\r\nhello\r\n0\r\nX: a\x7f\r\n\r\n", NULL},
};

/* Feeds text[0..len) in pieces of at most step bytes. Returns the result
 * where decoding stopped; *consumed: bytes taken; body: the data. */
static enum mcp__hp_chunk_result feed(const char *text, size_t len,
                                      size_t step, size_t *consumed,
                                      char *body, size_t cap) {
  mcp__hp_chunked c;
  mcp__hp_chunked_init(&c);
  size_t off = 0, n = 0;
  enum mcp__hp_chunk_result r = MCP__HP_CHUNK_MORE;
  while (off < len) {
    size_t end = off + step < len ? off + step : len;
    while (off < end) {
      size_t used = 0, dlen = 0;
      const char *data = NULL;
      r = mcp__hp_chunked_feed(&c, text + off, end - off, &used, &data, &dlen);
      assert_true(used <= end - off);
      off += used;
      if (r == MCP__HP_CHUNK_BAD || r == MCP__HP_CHUNK_DONE) {
        *consumed = off;
        body[n] = '\0';
        return r;
      }
      if (r == MCP__HP_CHUNK_DATA) {
        assert_true(n + dlen < cap);
        memcpy(body + n, data, dlen);
        n += dlen;
      } else {
        assert_int_equal(off, end); /* MORE takes everything */
      }
    }
  }
  *consumed = off;
  body[n] = '\0';
  return r == MCP__HP_CHUNK_DATA ? MCP__HP_CHUNK_MORE : r;
}

static void test_chunk_table(void **state) {
  (void)state;
  char with_next[256], body[256];
  for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
    const chunk_row *row = &chunks[i];
    size_t len = strlen(row->text);
    /* the next request follows at once: the end must be exact */
    snprintf(with_next, sizeof with_next, "%sGET / HTTP/1.1\r\n", row->text);
    size_t total = strlen(with_next);
    for (size_t step = 1; step <= total; step++) {
      size_t used = 0;
      enum mcp__hp_chunk_result r =
          feed(with_next, total, step, &used, body, sizeof body);
      if (row->body == NULL) {
        if (r != MCP__HP_CHUNK_BAD)
          fail_msg("row %zu (%s), step %zu: accepted", i, row->text, step);
        continue;
      }
      if (r != MCP__HP_CHUNK_DONE)
        fail_msg("row %zu (%s), step %zu: result %d", i, row->text, step,
                 (int)r);
      assert_int_equal(used, len);
      assert_string_equal(body, row->body);
    }
    if (row->body == NULL)
      continue;
    /* every incomplete prefix asks for more */
    for (size_t k = 0; k < len; k++) {
      size_t used = 0;
      enum mcp__hp_chunk_result r = feed(row->text, k, k ? k : 1, &used, body,
                                         sizeof body);
      if (r != MCP__HP_CHUNK_MORE)
        fail_msg("row %zu (%s): prefix of %zu gave %d", i, row->text, k,
                 (int)r);
    }
  }
}

/* Extensions and trailers together are bounded. */
static void test_chunk_extension_bound(void **state) {
  (void)state;
  size_t n = 9000;
  char *text = malloc(n + 64);
  assert_non_null(text);
  strcpy(text, "5;a=");
  memset(text + 4, 'x', n);
  strcpy(text + 4 + n, "\r\nhello\r\n0\r\n\r\n");
  char body[64];
  size_t used = 0;
  assert_int_equal(feed(text, strlen(text), 4096, &used, body, sizeof body),
                   MCP__HP_CHUNK_BAD);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_head_table),
      cmocka_unit_test(test_absolute_form_path),
      cmocka_unit_test(test_known_names),
      cmocka_unit_test(test_known_index),
      cmocka_unit_test(test_control_bytes_in_each_part),
      cmocka_unit_test(test_names_and_line_ends_at_every_offset),
      cmocka_unit_test(test_chunk_table),
      cmocka_unit_test(test_chunk_extension_bound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
