/* SPDX-License-Identifier: MIT */
/* modern.c - the 2026-07-28 era of the client: server/discover, the
 * per-request _meta (version, capabilities, identity), the HTTP routing
 * headers (Mcp-Method, Mcp-Name, Mcp-Param-* from x-mcp-header tool
 * properties, with the tools that carry invalid annotations dropped),
 * multi-round input_required answered through the application's handlers,
 * and task results of tools/call followed to their end. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "mcp/call.h"
#include "util/header_value.h"

enum { MAX_ROUNDS = 32 };

/* ---- per-request _meta -------------------------------------------------- */

mcp_status mcp__modern_meta(mcp_client_t *c, json_t *params) {
  json_t *meta = json_object_get(params, "_meta");
  if (!json_is_object(meta)) {
    meta = json_object();
    if (meta == NULL || json_object_set_new(params, "_meta", meta) != 0)
      return MCP_ERR_NOMEM;
  }
  json_object_set_new(meta, "io.modelcontextprotocol/protocolVersion",
                      json_string(MCP__MODERN_VERSION));
  /* a request may narrow the capabilities it declares (a plain tools/call
   * leaves out the tasks extension): a value already there is kept */
  if (json_object_get(meta, "io.modelcontextprotocol/clientCapabilities") ==
      NULL)
    json_object_set_new(meta, "io.modelcontextprotocol/clientCapabilities",
                        json_deep_copy(c->modern_caps));
  json_object_set_new(
      meta, "io.modelcontextprotocol/clientInfo",
      json_pack("{s:s,s:s}", "name", c->opts.name, "version", c->opts.version));
  pthread_mutex_lock(&c->lock); /* mcp_client_set_log_level may run */
  if (c->log_level != NULL)
    json_object_set_new(meta, "io.modelcontextprotocol/logLevel",
                        json_string(c->log_level));
  pthread_mutex_unlock(&c->lock);
  return MCP_OK;
}

/* ---- routing headers ----------------------------------------------------- */

/* A body value as its header (SEP-2243): numbers and booleans as text,
 * strings through mcp__header_value_encode. NULL: omit the header. */
static char *header_value(const json_t *v) {
  char num[64];
  if (json_is_integer(v)) {
    snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    return strdup(num);
  }
  if (json_is_real(v)) {
    snprintf(num, sizeof num, "%.17g", json_real_value(v));
    return strdup(num);
  }
  if (json_is_true(v))
    return strdup("true");
  if (json_is_false(v))
    return strdup("false");
  if (!json_is_string(v))
    return NULL;
  return mcp__header_value_encode(json_string_value(v), json_string_length(v));
}

/* Appends "Name: value" (curl's "Name;" for an empty value) to *h. */
static bool add_header(char ***h, size_t *n, const char *name,
                       const char *value) {
  size_t need = strlen(name) + strlen(value) + 4;
  char *line = malloc(need);
  char **grown = realloc(*h, (*n + 2) * sizeof **h);
  if (line == NULL || grown == NULL) {
    free(line);
    if (grown != NULL)
      *h = grown;
    return false;
  }
  *h = grown;
  if (value[0] == '\0')
    snprintf(line, need, "%s;", name);
  else
    snprintf(line, need, "%s: %s", name, value);
  (*h)[(*n)++] = line;
  (*h)[*n] = NULL;
  return true;
}

void mcp__headers_free(char **h) {
  for (size_t i = 0; h != NULL && h[i] != NULL; i++)
    free(h[i]);
  free(h);
}

char **mcp__modern_headers(mcp_client_t *c, const char *method,
                           const json_t *params) {
  char **h = NULL;
  size_t n = 0;
  bool ok = add_header(&h, &n, "Mcp-Method", method);
  const char *field = mcp__header_name_field(method);
  if (ok && field != NULL) {
    char *v = header_value(json_object_get(params, field));
    if (v != NULL)
      ok = add_header(&h, &n, "Mcp-Name", v);
    free(v);
  }
  if (ok && strcmp(method, "tools/call") == 0) {
    const char *tool = json_string_value(json_object_get(params, "name"));
    json_t *args = json_object_get(params, "arguments");
    pthread_mutex_lock(&c->lock);
    json_t *map = tool ? json_object_get(c->tool_headers, tool) : NULL;
    const char *hname;
    json_t *path;
    json_object_foreach(map, hname, path) {
      const json_t *v = args;
      size_t i;
      json_t *seg;
      json_array_foreach(path, i, seg) {
        v = json_object_get(v, json_string_value(seg));
      }
      char *value = v != NULL && !json_is_null(v) ? header_value(v) : NULL;
      if (value != NULL) {
        char full[300];
        snprintf(full, sizeof full, "Mcp-Param-%s", hname);
        ok = ok && add_header(&h, &n, full, value);
      }
      free(value);
    }
    pthread_mutex_unlock(&c->lock);
  }
  if (!ok) {
    mcp__headers_free(h);
    return NULL;
  }
  return h;
}

/* ---- x-mcp-header validation -------------------------------------------- */

static bool is_tchar(unsigned char ch) {
  return isalnum(ch) || (ch != 0 && strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

/* Collects the x-mcp-header annotations reachable through "properties"
 * chains into map (header -> path). False when one breaks the rules: empty
 * or not a token, not on a string/integer/boolean property, or a duplicate
 * (case-insensitive). */
static bool collect(const json_t *schema, json_t *path, json_t *map,
                    json_t *seen, int depth) {
  json_t *props = json_object_get(schema, "properties");
  if (!json_is_object(props) || depth > 16)
    return true;
  const char *key;
  json_t *prop;
  json_object_foreach(props, key, prop) {
    json_t *sub = json_copy(path);
    json_array_append_new(sub, json_string(key));
    json_t *hdr = json_object_get(prop, "x-mcp-header");
    bool ok = true;
    if (hdr != NULL) {
      const char *name = json_string_value(hdr);
      const char *type = json_string_value(json_object_get(prop, "type"));
      ok = name != NULL && name[0] != '\0' && type != NULL &&
           (strcmp(type, "string") == 0 || strcmp(type, "integer") == 0 ||
            strcmp(type, "boolean") == 0);
      for (const char *p = name; ok && *p; p++)
        ok = is_tchar((unsigned char)*p);
      char lower[256];
      if (ok && strlen(name) < sizeof lower) {
        size_t i = 0;
        for (; name[i]; i++)
          lower[i] = (char)tolower((unsigned char)name[i]);
        lower[i] = '\0';
        ok = json_object_get(seen, lower) == NULL;
        json_object_set_new(seen, lower, json_true());
        if (ok)
          json_object_set(map, name, sub);
      } else {
        ok = false;
      }
    }
    if (ok)
      ok = collect(prop, sub, map, seen, depth + 1);
    json_decref(sub);
    if (!ok)
      return false;
  }
  return true;
}

void mcp__modern_after(mcp_client_t *c, const char *method, json_t *result) {
  if (strcmp(method, "tools/list") != 0)
    return;
  json_t *tools = json_object_get(result, "tools");
  if (!json_is_array(tools))
    return;
  json_t *kept = json_array();
  size_t i;
  json_t *tool;
  pthread_mutex_lock(&c->lock);
  json_array_foreach(tools, i, tool) {
    const char *name = json_string_value(json_object_get(tool, "name"));
    json_t *map = json_object(), *seen = json_object(), *path = json_array();
    /* spec (SEP-2243): a client MUST exclude a tool whose x-mcp-header
     * annotations are invalid, and keep using the others */
    bool ok = name != NULL &&
              collect(json_object_get(tool, "inputSchema"), path, map, seen, 0);
    if (ok) {
      json_array_append(kept, tool);
      json_object_set(c->tool_headers, name, map);
    }
    json_decref(map);
    json_decref(seen);
    json_decref(path);
  }
  c->tools_listed = true;
  pthread_mutex_unlock(&c->lock);
  json_object_set_new(result, "tools", kept);
}

/* ---- server/discover ------------------------------------------------------
 */

/* Whether a failed discover means "this server does not speak 2026-07-28"
 * (fall back to initialize) rather than "cannot reach it". */
static bool legacy_answer(mcp_status st, const mcp_error_t *e) {
  if (st == MCP_ERR_PEER || st == MCP_ERR_PARSE || st == MCP_ERR_UNSUPPORTED)
    return true;
  return st == MCP_ERR_IO && e != NULL && strstr(e->message, "HTTP 4") != NULL;
}

mcp_status mcp__modern_discover(mcp_client_t *c, mcp_error_t *err) {
  mcp_error_t e = {0};
  json_t *result = NULL;
  mcp_status st = MCP_OK;
  /* -32022 names the versions the server speaks: the one modern version
   * this client knows is tried once more (a server may refuse the first
   * choice and accept it on the retry). */
  for (int attempt = 0; attempt < 2; attempt++) {
    memset(&e, 0, sizeof e);
    st = mcp__client_request_once(c, "server/discover", json_object(), NULL,
                                  NULL, 0, NULL, &result, &e);
    if (!(st == MCP_ERR_PEER && e.rpc_code == -32022))
      break;
  }
  if (st == MCP_OK) {
    json_t *versions = json_object_get(result, "supportedVersions");
    bool speaks = false;
    size_t i;
    json_t *v;
    json_array_foreach(versions, i, v) {
      speaks =
          speaks || (json_is_string(v) &&
                     strcmp(json_string_value(v), MCP__MODERN_VERSION) == 0);
    }
    if (!speaks) {
      json_decref(result);
      return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                           "the server does not offer %s in server/discover",
                           MCP__MODERN_VERSION);
    }
    pthread_mutex_lock(&c->lock);
    c->init_result = result;
    free(c->protocol_version);
    c->protocol_version = strdup(MCP__MODERN_VERSION);
    pthread_mutex_unlock(&c->lock);
    return c->protocol_version ? MCP_OK
                               : mcp_error_set(err, MCP_ERR_NOMEM, "no memory");
  }
  if (err != NULL)
    *err = e;
  if (legacy_answer(st, &e))
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "server/discover: %s (the server does not speak %s)",
                         e.message, MCP__MODERN_VERSION);
  return st;
}

/* ---- multi-round requests and tasks --------------------------------------
 */

static bool mrtr_method(const char *method) {
  return strcmp(method, "tools/call") == 0 ||
         strcmp(method, "prompts/get") == 0 ||
         strcmp(method, "resources/read") == 0;
}

/* Answers every entry of inputRequests through the handlers: *out returns
 * the inputResponses object. */
static mcp_status answer_inputs(mcp_client_t *c, json_t *requests, json_t **out,
                                mcp_error_t *err) {
  *out = json_object();
  const char *key;
  json_t *req;
  json_object_foreach(requests, key, req) {
    const char *m = json_string_value(json_object_get(req, "method"));
    json_t *p = json_object_get(req, "params");
    json_t *r = NULL;
    mcp_status st =
        m ? mcp__client_handle(c, m, p, &r, err)
          : mcp_error_set(err, MCP_ERR_PARSE,
                          "input request \"%s\" has no method", key);
    if (st != MCP_OK) {
      json_decref(*out);
      *out = NULL;
      return st;
    }
    json_object_set_new(*out, key, r);
  }
  return MCP_OK;
}

/* Follows a task created by tools/call to its end: waits on status
 * notifications or polls tasks/get, answers input_required through the
 * handlers with tasks/update, and returns the inline result. */
static mcp_status follow_task(mcp_client_t *c, json_t *created, json_t **result,
                              mcp_error_t *err) {
  const char *id = json_string_value(json_object_get(created, "taskId"));
  if (id == NULL)
    return mcp_error_set(err, MCP_ERR_PARSE, "a task result without taskId");
  char *task_id = strdup(id);
  if (task_id == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  mcp_status st;
  for (int rounds = 0;; rounds++) {
    json_t *t = NULL;
    st = mcp_client_task_wait(c, task_id, 0, NULL, NULL, &t, err);
    if (st != MCP_OK)
      break;
    const char *status = json_string_value(json_object_get(t, "status"));
    if (status != NULL && strcmp(status, "input_required") == 0 &&
        rounds < MAX_ROUNDS) {
      json_t *responses = NULL;
      st = answer_inputs(c, json_object_get(t, "inputRequests"), &responses,
                         err);
      json_decref(t);
      if (st != MCP_OK)
        break;
      st = mcp_client_task_update(c, task_id, responses, err);
      json_decref(responses);
      if (st != MCP_OK)
        break;
      continue;
    }
    if (status != NULL && strcmp(status, "completed") == 0 &&
        json_is_object(json_object_get(t, "result"))) {
      *result = json_incref(json_object_get(t, "result"));
    } else if (status != NULL && strcmp(status, "failed") == 0) {
      json_t *e = json_object_get(t, "error");
      const char *msg = json_string_value(json_object_get(e, "message"));
      st = mcp_error_set(err, MCP_ERR_PEER, "task %s failed: %s", task_id,
                         msg ? msg : "no reason given");
      if (err != NULL)
        err->rpc_code = (int)json_integer_value(json_object_get(e, "code"));
    } else {
      st = mcp_error_set(err, MCP_ERR_CANCELLED, "task %s ended %s", task_id,
                         status ? status : "without a status");
    }
    json_decref(t);
    break;
  }
  free(task_id);
  return st;
}

mcp_status mcp__modern_request(mcp_client_t *c, const char *method,
                               json_t *params, mcp_client_progress_fn progress,
                               void *ud, bool wait_task, json_t **result,
                               mcp_error_t *err) {
  if (result != NULL)
    *result = NULL;
  if (params == NULL)
    params = json_object();
  json_t *cached = mcp__cache_get(c, method, params);
  if (cached == NULL) {
    /* another client's public result: new to this client, so remember
     * what it tells (tools' header maps) as for an answer */
    cached = mcp__cache_shared_get(c, method, params);
    if (cached != NULL)
      mcp__modern_after(c, method, cached);
  }
  if (cached != NULL) {
    json_decref(params);
    if (result != NULL)
      *result = cached;
    else
      json_decref(cached);
    return MCP_OK;
  }
  json_t *responses = NULL, *state = NULL;
  mcp_status st = MCP_OK;
  json_t *r = NULL;
  for (int round = 0;; round++) {
    json_t *p = json_deep_copy(params);
    if (p == NULL) {
      st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
      break;
    }
    /* spec (SEP-2322): the retry is a new request (new id) with the
     * original params plus inputResponses and, only when the server sent
     * one, the exact requestState */
    if (responses != NULL)
      json_object_set(p, "inputResponses", responses);
    if (state != NULL)
      json_object_set(p, "requestState", state);
    st = mcp__client_request_once(c, method, p, progress, ud, 0, NULL, &r, err);
    json_decref(responses);
    json_decref(state);
    responses = state = NULL;
    if (st != MCP_OK)
      break;
    const char *type = json_string_value(json_object_get(r, "resultType"));
    if (type == NULL || strcmp(type, "complete") == 0) {
      mcp__modern_after(c, method, r);
      if (round == 0)
        mcp__cache_put(c, method, params, r);
      break;
    }
    if (strcmp(type, "input_required") == 0) {
      if (!mrtr_method(method) || round >= MAX_ROUNDS) {
        st = mcp_error_set(err, MCP_ERR_PARSE, "%s: input_required %s", method,
                           round >= MAX_ROUNDS ? "after too many rounds"
                                               : "is not allowed here");
        break;
      }
      json_t *reqs = json_object_get(r, "inputRequests");
      if (json_is_object(reqs))
        st = answer_inputs(c, reqs, &responses, err);
      state = json_incref(json_object_get(r, "requestState"));
      if (state != NULL && !json_is_string(state)) {
        json_decref(state);
        state = NULL;
      }
      json_decref(r);
      r = NULL;
      if (st != MCP_OK)
        break;
      continue;
    }
    if (strcmp(type, "task") == 0 && strcmp(method, "tools/call") == 0) {
      if (wait_task) {
        json_t *final = NULL;
        st = follow_task(c, r, &final, err);
        json_decref(r);
        r = final;
      }
      break;
    }
    st = mcp_error_set(err, MCP_ERR_PARSE, "%s: unknown resultType \"%s\"",
                       method, type);
    break;
  }
  json_decref(params);
  if (st != MCP_OK) {
    json_decref(r);
    return st;
  }
  if (result != NULL)
    *result = r;
  else
    json_decref(r);
  return MCP_OK;
}
