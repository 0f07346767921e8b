/* SPDX-License-Identifier: MIT */
/* prescan.c - one pass over a JSON-RPC message: kind, depth, method,
 * params.name, era marker.
 *
 * Brackets are counted outside strings; strings are skipped eight bytes at
 * a time for their first 32 bytes, then with memchr.
 * Keys matter only in the top object, in params and in params._meta, so
 * the scanner keeps a context for the first three levels and only counts
 * deeper ones.
 */
#include "jsonrpc/prescan.h"

#include <stdint.h>
#include <string.h>

enum key {
  K_OTHER = 0,
  K_METHOD,
  K_ID,
  K_RESULT,
  K_ERROR,
  K_PARAMS,
  K_NAME,
  K_META,
  K_VERSION
};

#define TRACKED 3 /* levels with a key context: top, params, _meta */

typedef struct level {
  bool object;
  bool expect_key;
  enum key key;    /* the member being read */
  enum key parent; /* the member this container is the value of */
} level;

static bool same(const char *s, size_t n, const char *lit) {
  size_t m = strlen(lit);
  return n == m && memcmp(s, lit, m) == 0;
}

static enum key classify(const level *lv, size_t depth, const char *s,
                         size_t n) {
  if (depth == 1) {
    return same(s, n, "method")   ? K_METHOD
           : same(s, n, "id")     ? K_ID
           : same(s, n, "result") ? K_RESULT
           : same(s, n, "error")  ? K_ERROR
           : same(s, n, "params") ? K_PARAMS
                                  : K_OTHER;
  }
  if (depth == 2 && lv[2].parent == K_PARAMS)
    return same(s, n, "name") ? K_NAME : same(s, n, "_meta") ? K_META : K_OTHER;
  if (depth == 3 && lv[3].parent == K_META && lv[2].parent == K_PARAMS &&
      same(s, n, "io.modelcontextprotocol/protocolVersion"))
    return K_VERSION;
  return K_OTHER;
}

/* The index of the quote that closes the string opening at text[open], or
 * len when it never closes; *escaped when it holds a backslash. */
static size_t string_end(const char *text, size_t len, size_t open,
                         bool *escaped) {
  *escaped = false;
  size_t i = open + 1;
  /* Most strings here are short (keys, the method, a tool name): eight
   * bytes at a time over their first bytes costs less than two memchr
   * calls. */
  size_t stop = len - i > 32 ? i + 32 : len;
  while (i < stop) {
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (stop - i >= 8) {
      const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
      uint64_t x;
      memcpy(&x, text + i, 8);
      uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
      /* the lowest marked byte is a quote or backslash (marks above it
       * may be wrong) */
      uint64_t m = (((q - ones) & ~q) | ((b - ones) & ~b)) & high;
      if (m == 0) {
        i += 8;
        continue;
      }
      i += (size_t)(__builtin_ctzll(m) >> 3);
    }
#endif
    if (text[i] == '"')
      return i;
    if (text[i] == '\\') {
      *escaped = true;
      if (++i == len) /* the escaped byte is skipped */
        return len;
    }
    i++;
  }
  for (;;) {
    const char *q = memchr(text + i, '"', len - i);
    if (q == NULL)
      return len;
    size_t at = (size_t)(q - text);
    if (!*escaped && memchr(text + i, '\\', at - i) != NULL)
      *escaped = true;
    size_t slashes = 0;
    while (at - slashes > open + 1 && text[at - slashes - 1] == '\\')
      slashes++;
    if (slashes % 2 == 0)
      return at;
    i = at + 1;
  }
}

void mcp__jsonrpc_prescan(const char *text, size_t len, mcp__prescan *out) {
  memset(out, 0, sizeof *out);
  level lv[TRACKED + 1];
  memset(lv, 0, sizeof lv);
  size_t depth = 0;
  bool top_object = false, has_method = false, has_id = false,
       has_response = false, first = true;
  for (size_t i = 0; i < len;) {
    char c = text[i];
    switch (c) {
    case ' ':
    case '\t':
    case '\n':
    case '\r':
      i++;
      continue;
    case '{':
    case '[':
      if (first) {
        top_object = c == '{';
        if (c == '[')
          out->kind = MCP__SCAN_BATCH;
      }
      depth++;
      if (depth > out->depth)
        out->depth = depth;
      if (depth <= TRACKED) {
        lv[depth].object = c == '{';
        lv[depth].expect_key = c == '{';
        lv[depth].key = K_OTHER;
        lv[depth].parent = depth > 1 ? lv[depth - 1].key : K_OTHER;
      }
      i++;
      break;
    case '}':
    case ']':
      if (depth > 0)
        depth--;
      i++;
      break;
    case ',':
      if (depth >= 1 && depth <= TRACKED && lv[depth].object)
        lv[depth].expect_key = true;
      i++;
      break;
    case ':':
      if (depth >= 1 && depth <= TRACKED)
        lv[depth].expect_key = false;
      i++;
      break;
    case '"': {
      bool escaped;
      size_t end = string_end(text, len, i, &escaped);
      const char *s = text + i + 1;
      size_t n = end - i - 1;
      if (depth >= 1 && depth <= TRACKED && lv[depth].object) {
        if (lv[depth].expect_key) {
          enum key k = escaped ? K_OTHER : classify(lv, depth, s, n);
          lv[depth].key = k;
          if (depth == 1) {
            has_method |= k == K_METHOD;
            has_id |= k == K_ID;
            has_response |= k == K_RESULT || k == K_ERROR;
          }
          if (k == K_VERSION)
            out->modern = true;
        } else if (!escaped && depth == 1 && lv[1].key == K_METHOD) {
          out->method = s;
          out->method_len = n;
        } else if (!escaped && depth == 2 && lv[2].key == K_NAME) {
          out->name = s;
          out->name_len = n;
        }
      }
      i = end < len ? end + 1 : len;
      break;
    }
    default:
      i++; /* numbers, literals, stray bytes */
      break;
    }
    first = false;
  }
  if (top_object)
    out->kind = has_method && has_id ? MCP__SCAN_REQUEST
                : has_method         ? MCP__SCAN_NOTIFICATION
                : has_response       ? MCP__SCAN_RESPONSE
                                     : MCP__SCAN_OTHER;
}

/* A string node's text, when it is a string without a NUL byte (only a
 * tape with decoded_nul can have one). */
static void string_of(const mcp__tape *t, const mcp__tnode *n,
                      const char **s, size_t *len) {
  if (n != NULL && n->type == MCP__J_STRING &&
      (n->n == 0 || !t->decoded_nul || memchr(n->v.s, '\0', n->n) == NULL)) {
    *s = n->n ? n->v.s : "";
    *len = n->n;
  }
}

void mcp__jsonrpc_scan(const char *text, size_t len, mcp__tape *t,
                       mcp__prescan *out) {
  if (mcp__tape_parse(t, text, len) != MCP_OK) {
    mcp__jsonrpc_prescan(text, len, out);
    return;
  }
  memset(out, 0, sizeof *out);
  out->tape = t;
  out->depth = t->depth;
  const mcp__tnode *root = t->nodes;
  if (root->type == MCP__J_ARRAY) {
    out->kind = MCP__SCAN_BATCH;
    return;
  }
  if (root->type != MCP__J_OBJECT)
    return;
  /* one walk over the members each of the envelope (the decoder's) and of
   * params (the last of duplicate keys counts: dead ones are skipped) */
  mcp__envelope env;
  mcp__jsonrpc_read_envelope(root, &env);
  const mcp__tnode *method = env.method, *params = env.params, *name = NULL,
                   *meta = NULL;
  if (params != NULL && params->type == MCP__J_OBJECT)
    for (const mcp__tnode *k = params + 1, *end = params + params->skip;
         k != end; k += 1 + k[1].skip) {
      if (k->dead)
        continue;
      if (k->n == 4 && memcmp(k->v.s, "name", 4) == 0)
        name = k + 1;
      else if (k->n == 5 && memcmp(k->v.s, "_meta", 5) == 0)
        meta = k + 1;
    }
  out->kind = method && env.id ? MCP__SCAN_REQUEST
              : method         ? MCP__SCAN_NOTIFICATION
              : env.response   ? MCP__SCAN_RESPONSE
                               : MCP__SCAN_OTHER;
  string_of(t, method, &out->method, &out->method_len);
  string_of(t, name, &out->name, &out->name_len);
  static const char version[] = "io.modelcontextprotocol/protocolVersion";
  out->modern = mcp__tnode_member(meta, version, sizeof version - 1) != NULL;
}
