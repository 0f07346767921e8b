/* SPDX-License-Identifier: MIT */
/* decode.c - parse and classify one JSON-RPC message.
 *
 * Depth is checked by a linear pre-scan so that hostile input (100,000 open
 * brackets) is refused before jansson allocates anything for it.
 */
#include "jsonrpc/jsonrpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/call.h"
#include "json/load.h"
#include "json/scan.h"

bool mcp__jsonrpc_id_is_valid(const json_t *id) {
  return id != NULL && (json_is_string(id) || json_is_integer(id));
}

static mcp_status fail(mcp__decode_error *err, mcp_status st, int code,
                       json_t *id, bool reply, const char *message) {
  err->code = code;
  snprintf(err->message, sizeof err->message, "%.*s",
           (int)sizeof err->message - 1, message);
  err->id = id ? json_incref(id) : NULL;
  err->reply = reply;
  return st;
}

mcp_status mcp__jsonrpc_decode(const char *bytes, size_t len, size_t max_depth,
                               mcp__message *out, mcp__decode_error *err) {
  return mcp__jsonrpc_decode_scanned(bytes, len, max_depth, NULL, out, err);
}

mcp_status mcp__jsonrpc_decode_scanned(const char *bytes, size_t len,
                                       size_t max_depth,
                                       const mcp__prescan *scan,
                                       mcp__message *out,
                                       mcp__decode_error *err) {
  memset(out, 0, sizeof *out);
  memset(err, 0, sizeof *err);
  bool too_deep = scan ? scan->depth > max_depth
                       : mcp__json_too_deep(bytes, len, max_depth);
  if (max_depth && too_deep) {
    char msg[96];
    snprintf(msg, sizeof msg, "Parse error: JSON nesting deeper than %zu",
             max_depth);
    return fail(err, MCP_ERR_TOO_DEEP, MCP_RPC_PARSE_ERROR, NULL, true, msg);
  }
  json_error_t jerr;
  /* JSON_ALLOW_NUL: "\u0000" inside string values is valid JSON. C-string
   * views of such values end at the NUL; names that matter (method, tool
   * name) are checked for embedded NULs where they are used. */
  json_t *root = mcp__json_load(bytes, len, &jerr);
  if (root == NULL && json_error_code(&jerr) == json_error_null_byte_in_key)
    return fail(err, MCP_ERR_INVALID_REQUEST, MCP_RPC_INVALID_REQUEST, NULL,
                true,
                "Invalid Request: object keys containing U+0000 are not "
                "supported");
  if (root == NULL) {
    char msg[240];
    snprintf(msg, sizeof msg, "Parse error: %.120s (line %d, column %d)",
             jerr.text, jerr.line, jerr.column);
    return fail(err, MCP_ERR_PARSE, MCP_RPC_PARSE_ERROR, NULL, true, msg);
  }
  mcp_status st = MCP_ERR_INVALID_REQUEST;
  if (json_is_array(root)) {
    fail(err, st, MCP_RPC_INVALID_REQUEST, NULL, true,
         "Invalid Request: batch arrays are not supported");
    goto bad;
  }
  if (!json_is_object(root)) {
    fail(err, st, MCP_RPC_INVALID_REQUEST, NULL, true,
         "Invalid Request: a message must be a JSON object");
    goto bad;
  }
  /* One pass over the envelope's members instead of a hashed lookup per
   * name: a handful of members, and a lookup hashes its key each time. */
  json_t *id = NULL, *method = NULL, *version = NULL, *params = NULL,
         *result = NULL, *error = NULL;
  struct {
    const char *name;
    size_t len;
    json_t **slot;
  } const wanted[] = {{"id", 2, &id},           {"method", 6, &method},
                      {"jsonrpc", 7, &version}, {"params", 6, &params},
                      {"result", 6, &result},   {"error", 5, &error}};
  const char *key;
  size_t key_len;
  json_t *member;
  /* names matched whole, lengths too: a key may hold a NUL */
  json_object_keylen_foreach(root, key, key_len, member) {
    for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++)
      if (key_len == wanted[w].len && memcmp(key, wanted[w].name, key_len) == 0)
        *wanted[w].slot = member;
  }
  bool id_ok = mcp__jsonrpc_id_is_valid(id);
  /* A message with a method and no id is a notification: never answered,
   * not even with an error. */
  bool notification_shaped = method != NULL && id == NULL;
  if (!json_is_string(version) || strcmp(json_string_value(version), "2.0")) {
    fail(err, st, MCP_RPC_INVALID_REQUEST, id_ok ? id : NULL,
         !notification_shaped, "Invalid Request: jsonrpc must be \"2.0\"");
    goto bad;
  }
  if (method != NULL) {
    if (!json_is_string(method) ||
        strlen(json_string_value(method)) != json_string_length(method)) {
      fail(err, st, MCP_RPC_INVALID_REQUEST, id_ok ? id : NULL,
           !notification_shaped, "Invalid Request: method must be a string");
      goto bad;
    }
    if (id != NULL && !id_ok) {
      fail(err, st, MCP_RPC_INVALID_REQUEST, NULL, true,
           "Invalid Request: id must be a string or an integer");
      goto bad;
    }
    if (params != NULL && !json_is_object(params)) {
      fail(err, MCP_ERR_INVALID_PARAMS, MCP_RPC_INVALID_PARAMS,
           id_ok ? id : NULL, !notification_shaped,
           "Invalid params: params must be an object");
      goto bad;
    }
    out->kind = id ? MCP__MSG_REQUEST : MCP__MSG_NOTIFICATION;
    out->root = root;
    out->id = id;
    out->method = json_string_value(method);
    out->params = params;
    return MCP_OK;
  }
  if ((result != NULL) != (error != NULL) && (id_ok || error != NULL)) {
    if (error != NULL && (!json_is_object(error) ||
                          !json_is_integer(json_object_get(error, "code")))) {
      fail(err, st, MCP_RPC_INVALID_REQUEST, NULL, false,
           "Invalid Request: malformed error object");
      goto bad;
    }
    out->kind = result ? MCP__MSG_RESULT : MCP__MSG_ERROR;
    out->root = root;
    out->id = id_ok ? id : NULL;
    out->result = result;
    out->error = error;
    return MCP_OK;
  }
  fail(err, st, MCP_RPC_INVALID_REQUEST, id_ok ? id : NULL, true,
       "Invalid Request: not a request, notification or response");
bad:
  json_decref(root);
  return err->code == MCP_RPC_INVALID_PARAMS ? MCP_ERR_INVALID_PARAMS : st;
}

void mcp__jsonrpc_read_envelope(const mcp__tnode *root, mcp__envelope *e) {
  memset(e, 0, sizeof *e);
  for (const mcp__tnode *k = root + 1, *end = root + root->skip; k != end;
       k += 1 + k[1].skip) {
    if (k->dead)
      continue;
    const char *s = k->v.s;
    switch (k->n) {
    case 2:
      if (memcmp(s, "id", 2) == 0)
        e->id = k + 1;
      break;
    case 5:
      if (memcmp(s, "error", 5) == 0)
        e->response = true;
      break;
    case 6:
      if (memcmp(s, "method", 6) == 0)
        e->method = k + 1;
      else if (memcmp(s, "params", 6) == 0)
        e->params = k + 1;
      else if (memcmp(s, "result", 6) == 0)
        e->response = true;
      break;
    case 7:
      if (memcmp(s, "jsonrpc", 7) == 0)
        e->version = k + 1;
      break;
    }
  }
}

/* The entry of interned (NULL-terminated, or NULL) that is the method s
 * of n bytes, or NULL. */
static const char *interned_name(const char *const *interned, const char *s,
                                 size_t n) {
  for (; interned != NULL && *interned != NULL; interned++)
    if (strncmp(*interned, s, n) == 0 && (*interned)[n] == '\0')
      return *interned;
  return NULL;
}

/* A well-formed request or notification, decoded from the tape; false
 * leaves *out untouched for the general path (which also reports every
 * error exactly as before). */
static bool decode_from_tape(const mcp__tape *t, const char *bytes, size_t len,
                             const char *const *interned, mcp__message *out) {
  const mcp__tnode *root = t->nodes;
  if (root->type != MCP__J_OBJECT)
    return false;
  mcp__envelope e;
  mcp__jsonrpc_read_envelope(root, &e);
  if (e.response || e.method == NULL || e.method->type != MCP__J_STRING ||
      e.version == NULL || e.version->type != MCP__J_STRING ||
      e.version->n != 3 || memcmp(e.version->v.s, "2.0", 3) != 0 ||
      (e.id != NULL && e.id->type != MCP__J_STRING &&
       e.id->type != MCP__J_INT) ||
      (e.params != NULL && e.params->type != MCP__J_OBJECT) ||
      (t->decoded_nul && mcp__tape_has_decoded_nul(root, bytes, len)))
    return false;
  mcp__message m = {.kind = e.id ? MCP__MSG_REQUEST : MCP__MSG_NOTIFICATION,
                    .parts_owned = true};
  m.method = interned_name(interned, e.method->v.s, e.method->n);
  if (m.method == NULL) {
    m.method_copy = malloc(e.method->n + 1);
    if (m.method_copy == NULL)
      return false;
    memcpy(m.method_copy, e.method->v.s, e.method->n);
    m.method_copy[e.method->n] = '\0';
    m.method = m.method_copy;
  }
  bool ok = true;
  if (e.id != NULL)
    ok = (m.id = mcp__json_from_tnode(e.id)) != NULL;
  if (ok && e.params != NULL) {
    /* a notification is handled at once: nothing to gain from waiting */
    if (m.kind == MCP__MSG_REQUEST)
      ok = (m.params_tape = mcp__tape_keep(e.params)) != NULL;
    else
      ok = (m.params = mcp__json_from_tnode(e.params)) != NULL;
  }
  if (!ok) {
    mcp__message_clear(&m);
    return false; /* out of memory: the general path says so */
  }
  *out = m;
  return true;
}

mcp_status mcp__jsonrpc_decode_server(const char *bytes, size_t len,
                                      size_t max_depth,
                                      const mcp__prescan *scan,
                                      const char *const *interned,
                                      mcp__message *out,
                                      mcp__decode_error *err) {
  bool too_deep = scan ? scan->depth > max_depth
                       : mcp__json_too_deep(bytes, len, max_depth);
  if (!(max_depth && too_deep)) {
    bool done;
    if (scan != NULL && scan->tape != NULL) {
      done = decode_from_tape(scan->tape, bytes, len, interned, out);
    } else {
      mcp__tape t;
      done = mcp__tape_parse(&t, bytes, len) == MCP_OK &&
             decode_from_tape(&t, bytes, len, interned, out);
      mcp__tape_release(&t);
    }
    if (done) {
      memset(err, 0, sizeof *err);
      return MCP_OK;
    }
  }
  return mcp__jsonrpc_decode_scanned(bytes, len, max_depth, scan, out, err);
}

void mcp__message_clear(mcp__message *m) {
  json_decref(m->root);
  if (m->parts_owned) {
    json_decref(m->id);
    json_decref(m->params);
    free(m->method_copy);
  }
  free(m->params_tape);
  memset(m, 0, sizeof *m);
}

void mcp__decode_error_clear(mcp__decode_error *err) {
  json_decref(err->id);
  err->id = NULL;
}
