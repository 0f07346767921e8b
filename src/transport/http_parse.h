/* SPDX-License-Identifier: MIT */
/* http_parse.h - HTTP/1.1 request parsing of the transport's own engine
 * (http_engine.c): the request head (RFC 9112 2-5) and chunked request
 * bodies (RFC 9112 7.1). Pure functions over caller memory, no I/O, no
 * allocation except where stated, so unit tests and the fuzz target can
 * feed them any bytes split anywhere.
 */
#ifndef MCP_TRANSPORT_HTTP_PARSE_H
#define MCP_TRANSPORT_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Header fields kept per request; more is a 431. */
#define MCP__HP_MAX_FIELDS 100

/* What a parse gives. */
enum mcp__hp_result {
  MCP__HP_OK = 0,
  MCP__HP_INCOMPLETE, /* need more bytes */
  MCP__HP_BAD,        /* malformed: 400 */
  MCP__HP_TOO_LARGE,  /* head over the limit or too many fields: 431 */
  MCP__HP_VERSION     /* not HTTP/1.x: 505 */
};

typedef struct mcp__hp_field {
  const char *name, *value; /* NUL-terminated, inside the head block */
  size_t name_len;          /* lookups compare lengths first */
} mcp__hp_field;

/* Header fields read on every request (by the parser itself, the engine or
 * the request layer), indexed while the head is parsed: reading one is then
 * a table lookup instead of a comparison with every field's name, and a
 * repeat is counted without another pass over the fields. */
enum mcp__hp_known {
  MCP__HK_HOST = 0,
  MCP__HK_CONTENT_LENGTH,
  MCP__HK_TRANSFER_ENCODING,
  MCP__HK_CONNECTION,
  MCP__HK_EXPECT,
  MCP__HK_ORIGIN,
  MCP__HK_ACCEPT,
  MCP__HK_CONTENT_TYPE,
  MCP__HK_CONTENT_ENCODING,
  MCP__HK_AUTHORIZATION,
  MCP__HK_DPOP,
  MCP__HK_LAST_EVENT_ID,
  MCP__HK_MCP_PROTOCOL_VERSION,
  MCP__HK_MCP_SESSION_ID,
  MCP__HK_MCP_METHOD,
  MCP__HK_MCP_NAME,
  MCP__HK_TRACEPARENT, /* W3C trace context (OpenTelemetry spans) */
  MCP__HK_COUNT
};

/* Fields whose name starts with this (SEP-2243's Mcp-Param-*) are counted. */
#define MCP__HP_PARAM_PREFIX     "Mcp-Param-"
#define MCP__HP_PARAM_PREFIX_LEN 10

/* How the body of a request is delimited. */
enum mcp__hp_body {
  MCP__HP_BODY_NONE = 0, /* no body */
  MCP__HP_BODY_LENGTH,   /* content_length bytes */
  MCP__HP_BODY_CHUNKED,  /* chunked transfer coding */
  MCP__HP_BODY_UNKNOWN   /* a transfer coding other than chunked before the
                            final chunked: 501, then close */
};

/* A parsed request head. All strings point into the block the head was
 * parsed in (mcp__hp_parse_head rewrites it in place). */
typedef struct mcp__hp_head {
  const char *method;
  const char *path;    /* the target's path, percent-decoded, no query */
  const char *version; /* "HTTP/1.x" as received */
  int minor;           /* 0, or 1 for 1.1 and later 1.x (RFC 9110 2.5) */
  size_t nfields;
  mcp__hp_field *fields; /* caller's array of MCP__HP_MAX_FIELDS */
  enum mcp__hp_body body;
  uint64_t content_length;
  bool keep_alive;      /* per version and Connection */
  bool expect_continue; /* Expect: 100-continue */
  /* absolute-form (RFC 9112 3.2.2): the target's authority, which is also
   * what the Host field reads as from then on (the received Host value,
   * if any, is ignored); NULL for origin-form */
  const char *authority;
  /* At MCP__HP_BAD: why, for the 400's body (static text). */
  const char *error;
  /* Per known name: 1 + the index of its first field (0: absent), and how
   * many fields carry it (255 at most); fields named Mcp-Param-*. */
  uint8_t known_at[MCP__HK_COUNT];
  uint8_t known_n[MCP__HK_COUNT];
  uint8_t params;
} mcp__hp_head;

/* Length of the head at the start of buf (request line through the empty
 * line, both CRLF and bare LF line ends accepted), or 0 when the empty line
 * has not arrived. from: bytes already searched before (a hint; 0 is
 * always right). Empty lines before the request line are part of the head
 * (RFC 9112 2.2 lets a server ignore them). */
size_t mcp__hp_head_end(const char *buf, size_t len, size_t from);

/* Parses the complete head in buf[0..len) (as measured by mcp__hp_head_end)
 * in place: it NUL-terminates the parts and decodes the path. fields must
 * hold MCP__HP_MAX_FIELDS entries.
 *
 * Every framing decision of the engine is made here (RFC 9112 6): a
 * request with Transfer-Encoding and Content-Length, Transfer-Encoding in
 * HTTP/1.0, a transfer coding list whose final coding is not chunked (or
 * that names chunked twice), Content-Length values that differ, and more
 * than one Host field are MCP__HP_BAD (400, and the connection closes, so
 * no byte after the head is ever read as a request); a coding other than
 * chunked before a final chunked is MCP__HP_BODY_UNKNOWN (501, close). */
enum mcp__hp_result mcp__hp_parse_head(char *buf, size_t len,
                                       mcp__hp_field *fields,
                                       mcp__hp_head *out);

/* The transfer codings of a request's Transfer-Encoding fields, fed field
 * by field in order. */
typedef struct mcp__hp_te {
  unsigned fields;   /* Transfer-Encoding fields seen */
  unsigned chunked;  /* times "chunked" was named */
  bool others;       /* a coding other than chunked was named */
  bool last_chunked; /* the final coding so far is chunked */
} mcp__hp_te;

void mcp__hp_te_add(mcp__hp_te *te, const char *value);
/* The body framing the codings give: MCP__HP_BODY_CHUNKED, or
 * MCP__HP_BODY_UNKNOWN when other codings come before the final chunked
 * (501). False when the final coding is not chunked or chunked is named
 * twice: the length cannot be known (RFC 9112 6.3: 400, then close). */
bool mcp__hp_te_body(const mcp__hp_te *te, enum mcp__hp_body *body);

/* The first value of a header field (ASCII case-insensitive) or NULL. */
const char *mcp__hp_field_get(const mcp__hp_head *h, const char *name);

/* The known name of a header field (ASCII case-insensitive; len its
 * length), or MCP__HK_COUNT. */
enum mcp__hp_known mcp__hp_known_of(const char *name, size_t len);

/* The first value of the known field k, or NULL. */
static inline const char *mcp__hp_known_get(const mcp__hp_head *h,
                                            enum mcp__hp_known k) {
  return h->known_at[k] ? h->fields[h->known_at[k] - 1].value : NULL;
}

/* Incremental decoder of a chunked body (RFC 9112 7.1): extensions are
 * checked against their grammar (BWS ";" token ["=" token / quoted-string])
 * and skipped, trailer fields checked (name ":" value) and dropped. Every
 * line of the body ends in CRLF; a CR anywhere else, a bare LF or any other
 * byte after the size is MCP__HP_CHUNK_BAD (whitespace before a size line's
 * CRLF is tolerated, as h11 and nginx do). Feed it bytes split anywhere. */
typedef struct mcp__hp_chunked {
  uint64_t left;   /* data bytes left in the current chunk */
  uint32_t extra;  /* bytes of extensions or trailers seen (bounded) */
  uint8_t state;   /* internal */
  uint8_t digits;  /* 1 once the size has a hex digit */
  uint8_t after_cr; /* the state a line's LF leads to (internal) */
} mcp__hp_chunked;

enum mcp__hp_chunk_result {
  MCP__HP_CHUNK_MORE = 0, /* all input consumed, body not finished */
  MCP__HP_CHUNK_DATA,     /* data, dlen hold body bytes; call again */
  MCP__HP_CHUNK_DONE,     /* the last chunk and the trailers are in */
  MCP__HP_CHUNK_BAD       /* malformed (400) */
};

void mcp__hp_chunked_init(mcp__hp_chunked *c);
/* Decodes from in[0..len); *used: bytes consumed. At DATA, the body bytes
 * are in[...] (data points into in) and the rest of in is still to feed. */
enum mcp__hp_chunk_result mcp__hp_chunked_feed(mcp__hp_chunked *c,
                                               const char *in, size_t len,
                                               size_t *used, const char **data,
                                               size_t *dlen);

#endif
