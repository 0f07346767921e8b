/* SPDX-License-Identifier: MIT */
/* diagnose.c - a failed request explained: the server's JSON-RPC error as
 * it came; an HTTP failure with the URL, the status and a hint on what is
 * likely wrong; a stdio server that died with its exit status (or signal)
 * and its last stderr lines (stdio_watch.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util/http_status.h"

static const char *target_url; /* NULL over stdio */

void mcpc_diagnose_target(const char *url) {
  target_url = url;
}

static const char *reason_phrase(long status) {
  const char *phrase = mcp__http_reason(status);
  return phrase ? phrase : "";
}

/* The path of target_url ("/" when it has none). */
static const char *url_path(void) {
  const char *p = strstr(target_url, "://");
  p = p ? strchr(p + 3, '/') : NULL;
  return p ? p : "/";
}

static const char *hint_for(long status) {
  switch (status) {
  case 400:
    return "the server refused the request: is this a Streamable HTTP MCP "
           "endpoint?";
  case 401:
    return "the server wants credentials: --bearer TOKEN or -H "
           "'Authorization: ...'";
  case 403:
    return "access denied: check the token, or which Origin and Host the "
           "server allows";
  case 404:
    return strcmp(url_path(), "/mcp") == 0
               ? "nothing at /mcp: where does this server serve MCP?"
               : "is the MCP endpoint /mcp?";
  case 405:
    return "the URL does not take POST: is it the MCP endpoint (often /mcp)?";
  case 406:
  case 415:
    return "the server does not take MCP's JSON and SSE: is it an MCP "
           "server?";
  default:
    return status >= 500 ? "the server failed: its log should say why" : NULL;
  }
}

/* An HTTP status in a client library message ("POST: HTTP 404: body"):
 * fills details and the sentence; false when there is none. */
static bool explain_http(const char *msg, json_t *details, char *out,
                         size_t n) {
  const char *h = strstr(msg, "HTTP ");
  char *end;
  long status = h ? strtol(h + 5, &end, 10) : 0;
  if (status < 100 || status > 599)
    return false;
  const char *body = strncmp(end, ": ", 2) == 0 ? end + 2 : "";
  const char *hint = hint_for(status);
  const char *phrase = reason_phrase(status);
  snprintf(out, n, "%s answered HTTP %ld%s%s%s%s", target_url, status,
           phrase[0] ? " " : "", phrase, hint ? ": " : "", hint ? hint : "");
  if (body[0] != '\0')
    json_object_set_new(details, "body", json_string(body));
  json_object_set_new(details, "url", json_string(target_url));
  json_object_set_new(details, "httpStatus", json_integer(status));
  if (hint != NULL)
    json_object_set_new(details, "hint", json_string(hint));
  return true;
}

int mcpc_fail(const char *what, mcp_status st, const mcp_error_t *err) {
  json_t *details = json_pack("{s:s}", "what", what);
  const char *msg =
      err != NULL && err->message[0] != '\0' ? err->message : mcp_strerror(st);
  char text[1024];
  if (err != NULL && err->rpc_code != 0) {
    json_object_set_new(details, "code", json_integer(err->rpc_code));
    return mcpc_error(MCPC_PROTOCOL, details, "%s: %s (JSON-RPC error %d)",
                      what, msg, err->rpc_code);
  }
  if (target_url != NULL && st == MCP_ERR_IO &&
      explain_http(msg, details, text, sizeof text)) {
    const char *body = json_string_value(json_object_get(details, "body"));
    char said[300] = "";
    if (body != NULL) /* copied: mcpc_error takes details */
      snprintf(said, sizeof said, "  the server said: %.200s\n", body);
    int rc = mcpc_error(MCPC_PROTOCOL, details, "%s: %s", what, text);
    fputs(said, stderr);
    return rc;
  }
  if (target_url != NULL && st == MCP_ERR_IO && strstr(msg, "onnect") != NULL)
    json_object_set_new(details, "hint",
                        json_string("is the server running at that address?"));
  char died[200], lines[2600];
  if (target_url == NULL && (st == MCP_ERR_CLOSED || st == MCP_ERR_IO) &&
      mcpc_watch_report(3000, details, died, sizeof died, lines,
                        sizeof lines)) {
    /* the stderr lines were shown as they came; repeated here so the
     * cause sits next to the error */
    int rc = mcpc_error(MCPC_PROTOCOL, details, "%s: %s; %s%s", what, msg, died,
                        lines[0] ? "; its last stderr lines:" : "");
    fputs(lines, stderr);
    return rc;
  }
  const char *hint =
      json_string_value(json_object_get(details, "hint")); /* borrowed */
  if (hint != NULL)
    return mcpc_error(MCPC_PROTOCOL, details, "%s: %s (%s)", what, msg, hint);
  return mcpc_error(MCPC_PROTOCOL, details, "%s: %s", what, msg);
}
