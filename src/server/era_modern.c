/* SPDX-License-Identifier: MIT */
/* era_modern.c - what a 2026-07-28 request must carry before it runs.
 *
 * Order matters and follows the spec and its conformance probes: the _meta
 * keys first (-32602), then the HTTP headers against the body (-32020,
 * SEP-2243; before the version check, so a header/body disagreement is
 * reported as such even when the body names an unknown version), then
 * version support (-32022), then the optional log level.
 */
#include "server/era_modern.h"
#include "util/header_value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/internal.h"
#include "util/base64.h"
#include "json/load.h"

#define META_VERSION  MCP__META_VERSION
#define META_CAPS     "io.modelcontextprotocol/clientCapabilities"
#define META_INFO     "io.modelcontextprotocol/clientInfo"
#define META_LOGLEVEL "io.modelcontextprotocol/logLevel"

static void answer(mcp_call_t *call, int code, const char *message,
                   json_t *data) {
  mcp__call_reply_error(call, code, message, data);
  json_decref(data);
}

/* One standard header against its body value (n bytes); NULL when they
 * agree, else the reason (a static string). */
static const char *header_mismatch(const char *header, const char *body,
                                   size_t n) {
  if (header == NULL)
    return "missing";
  if (mcp__header_value_equalsn(header, body, n))
    return NULL; /* the common case, without a copy */
  char *value;
  mcp_status st = mcp__header_value_decode(header, &value);
  if (st != MCP_OK)
    return st == MCP_ERR_NOMEM ? "unreadable" : "not a valid header value";
  bool same = strlen(value) == n && memcmp(value, body, n) == 0;
  free(value);
  return same ? NULL : "does not match the body";
}

static bool check_headers(mcp_call_t *call, const char *version) {
  const mcp__peer *p = mcp__call_peer(call);
  char msg[200];
  const char *why = NULL, *which = NULL;
  const char *method = mcp_call_method(call);
  if (p->repeated_header) {
    which = "MCP-Protocol-Version, Mcp-Method or Mcp-Name";
    why = "sent more than once";
  } else if (p->protocol_header == NULL ||
             strcmp(p->protocol_header, version) != 0) {
    which = "MCP-Protocol-Version";
    why =
        p->protocol_header ? "does not match _meta protocolVersion" : "missing";
  } else if ((why = header_mismatch(p->method_header, method,
                                    strlen(method)))) {
    which = "Mcp-Method";
  } else {
    const char *key = mcp__header_name_field(method);
    const char *v;
    size_t len;
    if (key && mcp__call_param_string(call, key, &v, &len)) {
      /* straight from the tape: no NUL among the len bytes */
      if ((why = header_mismatch(p->name_header, v, len)))
        which = "Mcp-Name";
    } else if (key) {
      /* a string holding U+0000: compared as before, as a C string */
      json_t *jv = mcp__call_param(call, key);
      if (json_is_string(jv) &&
          (why = header_mismatch(p->name_header, json_string_value(jv),
                                 strlen(json_string_value(jv)))))
        which = "Mcp-Name";
    }
  }
  if (why == NULL)
    return true;
  snprintf(msg, sizeof msg, "Header mismatch: %s header %s", which, why);
  answer(call, MCP_RPC_HEADER_MISMATCH, msg, NULL);
  return false;
}

/* The members of _meta this era reads, found in one pass (their names are
 * long: a hashed lookup each would hash each name). */
typedef struct meta_members {
  json_t *version, *caps, *info, *level;
} meta_members;

static meta_members read_meta(json_t *meta) {
  meta_members m = {NULL, NULL, NULL, NULL};
  const char *key;
  size_t len;
  json_t *value;
#define IS(name) (len == sizeof(name) - 1 && memcmp(key, name, len) == 0)
  json_object_keylen_foreach(meta, key, len, value) {
    if (IS(META_VERSION))
      m.version = value;
    else if (IS(META_CAPS))
      m.caps = value;
    else if (IS(META_INFO))
      m.info = value;
    else if (IS(META_LOGLEVEL))
      m.level = value;
  }
#undef IS
  return m;
}

/* The checks of mcp__modern_bind on what they read: version and level as
 * C strings (or NULL), whether the capabilities are an object. false after
 * answering the request with the error. */
static bool admit_checked(mcp_call_t *call, const char *version,
                          bool caps_object, bool level_given,
                          const char *level) {
  mcp_log_level parsed;
  if (version == NULL || !caps_object) {
    answer(call, MCP_RPC_INVALID_PARAMS,
           "Invalid params: _meta must carry " META_VERSION
           " (a string) and " META_CAPS " (an object)",
           NULL);
  } else if (mcp__call_peer(call)->http && !check_headers(call, version)) {
    /* answered */
  } else if (!mcp__version_is_modern(version)) {
    answer(call, MCP_RPC_UNSUPPORTED_PROTOCOL_VERSION,
           "Unsupported protocol version",
           json_pack("{s:o,s:s}", "supported", mcp__supported_versions_json(),
                     "requested", version));
  } else if (level_given &&
             (level == NULL || mcp_log_level_parse(level, &parsed) != MCP_OK)) {
    answer(call, MCP_RPC_INVALID_PARAMS,
           "Invalid params: " META_LOGLEVEL " must be one of debug, info, "
           "notice, warning, error, critical, alert, emergency",
           NULL);
  } else {
    return true;
  }
  return false;
}

/* A string node of a params tape as a C string in buf (n bytes), or NULL
 * when it is not a string or does not fit. (It holds no NUL: see
 * mcp__message.params_tape.) */
static const char *tape_string(const mcp__tnode *v, char *buf, size_t n) {
  if (v == NULL || v->type != MCP__J_STRING || v->n >= n)
    return NULL;
  memcpy(buf, v->n ? v->v.s : "", v->n);
  buf[v->n] = '\0';
  return buf;
}

/* Whether an object key in the subtree at root holds a NUL byte (jansson
 * cannot build such an object). The decoder refuses such keys in a request
 * already; this keeps the lazy build of the capabilities and info from
 * failing should a call ever come another way. */
static bool nul_in_keys(const mcp__tnode *root) {
  for (const mcp__tnode *o = root, *end = root + root->skip; o != end; o++) {
    if (o->type != MCP__J_OBJECT)
      continue;
    for (const mcp__tnode *k = o + 1, *kend = o + o->skip; k != kend;
         k += 1 + k[1].skip)
      if (k->n && memchr(k->v.s, '\0', k->n) != NULL)
        return true;
  }
  return false;
}

/* mcp__modern_bind while the params are still a tape: the client's
 * capabilities and info stay there until something asks for them
 * (mcp__call_bind_modern_tape). false with *fallback when the general path
 * must decide (a value too long for the buffers here, a key jansson cannot
 * hold). */
static bool bind_from_tape(mcp_call_t *call, const mcp__tnode *meta,
                           bool *fallback) {
  const mcp__tnode *v = NULL, *caps = NULL, *info = NULL, *level = NULL;
  if (meta != NULL && meta->type == MCP__J_OBJECT)
    for (const mcp__tnode *k = meta + 1, *end = meta + meta->skip; k != end;
         k += 1 + k[1].skip) {
      if (k->dead)
        continue;
#define IS(name) (k->n == sizeof(name) - 1 && memcmp(k->v.s, name, k->n) == 0)
      if (IS(META_VERSION))
        v = k + 1;
      else if (IS(META_CAPS))
        caps = k + 1;
      else if (IS(META_INFO))
        info = k + 1;
      else if (IS(META_LOGLEVEL))
        level = k + 1;
#undef IS
    }
  char vbuf[64], lbuf[32];
  const char *version = tape_string(v, vbuf, sizeof vbuf);
  const char *lvl = tape_string(level, lbuf, sizeof lbuf);
  if (caps != NULL && caps->type != MCP__J_OBJECT)
    caps = NULL;
  if (info != NULL && (info->type != MCP__J_OBJECT || caps == NULL))
    info = NULL;
  if ((v != NULL && v->type == MCP__J_STRING && version == NULL) ||
      (level != NULL && level->type == MCP__J_STRING && lvl == NULL) ||
      (caps != NULL && nul_in_keys(caps)) ||
      (info != NULL && nul_in_keys(info))) {
    *fallback = true; /* the general path says how */
    return false;
  }
  if (!admit_checked(call, version, caps != NULL, level != NULL, lvl))
    return false;
  mcp__call_bind_modern_tape(call, version, caps, info);
  return true;
}

bool mcp__modern_bind(mcp_call_t *call) {
  const mcp__tnode *tape =
      mcp__call_params_built(call) ? NULL : mcp__call_params_tape(call);
  bool fallback = false;
  if (tape != NULL) {
    bool bound = bind_from_tape(call, mcp__call_meta_tape(call), &fallback);
    if (!fallback)
      return bound;
  }
  meta_members m = read_meta(mcp__call_meta_object(call));
  if (!admit_checked(call, json_string_value(m.version), json_is_object(m.caps),
                     m.level != NULL, json_string_value(m.level)))
    return false;
  mcp__call_bind_modern(call, json_string_value(m.version), m.caps,
                        json_is_object(m.info) ? m.info : NULL);
  return true;
}

bool mcp__is_modern_request(const mcp__peer *peer, bool meta_version) {
  const char *header = peer ? peer->protocol_header : NULL;
  if (mcp__version_is_modern(header))
    return true;
  /* An HTTP header naming no version we know is not a legacy client: answer
   * it in the era that can say so (-32022 with the request's id). */
  if (header && !mcp__version_is_supported(header))
    return true;
  return meta_version;
}
