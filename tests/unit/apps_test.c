/* SPDX-License-Identifier: MIT */
/* apps_test.c - MCP Apps (apps.h, SEP-1865): UI resources listed and read
 * with text/html;profile=mcp-app and their _meta.ui (text, blob, a file, a
 * handler of the caller's), tools linked with _meta.ui from the setter, from
 * _meta and from a declaration, the extension in the capabilities of both
 * eras, what a client without the extension sees (app-only tools hidden and
 * uncallable), mcp_call_supports_apps in both eras, and every refusal with
 * a message naming the culprit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mcp/mcp.h"
#include "testutil.h"

#define HTML "<!DOCTYPE html><html><body><p>orders</p></body></html>"
#define UI_CAPS                                                                \
  "{\"extensions\":{\"io.modelcontextprotocol/ui\":{\"mimeTypes\":"            \
  "[\"text/html;profile=mcp-app\"]}}}"

static mcp_status echo_support(mcp_call_t *call, json_t *args,
                               mcp_result_t *result, void *ud) {
  (void)args, (void)ud;
  return mcp_result_add_text(result, mcp_call_supports_apps(call)
                                         ? "apps: yes"
                                         : "apps: no")
             ? MCP_OK
             : MCP_ERR_NOMEM;
}

static mcp_tool_t *ui_tool(const char *name, const char *uri,
                           unsigned visibility) {
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new(name, &t), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, echo_support, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_tool_set_ui(t, uri, visibility), MCP_OK);
  return t;
}

static mcp_resource_t *view(const char *uri) {
  mcp_resource_t *r = NULL;
  mcp_error_t err = {0};
  assert_int_equal(mcp_ui_resource_new(uri, "Orders", &r, &err), MCP_OK);
  assert_int_equal(mcp_ui_resource_set_html(r, HTML, strlen(HTML)), MCP_OK);
  return r;
}

/* A server with ui://demo/orders (CSP, permissions, domain, border), a tool
 * for the model and the app, and an app-only tool. */
static mcp_server_t *apps_server(void) {
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("apps", "1.0", &s), MCP_OK);
  mcp_resource_t *r = view("ui://demo/orders");
  assert_int_equal(
      mcp_ui_resource_add_csp(r, MCP_UI_CSP_CONNECT, "https://api.example.com"),
      MCP_OK);
  assert_int_equal(mcp_ui_resource_add_csp(r, MCP_UI_CSP_RESOURCE,
                                           "https://*.cdn.example.com"),
                   MCP_OK);
  assert_int_equal(mcp_ui_resource_add_csp(r, MCP_UI_CSP_FRAME,
                                           "https://www.youtube.com"),
                   MCP_OK);
  assert_int_equal(mcp_ui_resource_add_csp(r, MCP_UI_CSP_BASE_URI,
                                           "https://cdn.example.com:8443"),
                   MCP_OK);
  assert_int_equal(
      mcp_ui_resource_set_permissions(r, MCP_UI_PERMISSION_CAMERA |
                                             MCP_UI_PERMISSION_CLIPBOARD_WRITE),
      MCP_OK);
  assert_int_equal(mcp_ui_resource_set_domain(r, "a904.claudemcpcontent.com"),
                   MCP_OK);
  assert_int_equal(mcp_ui_resource_set_prefers_border(r, true), MCP_OK);
  mcp_error_t err = {0};
  assert_int_equal(mcp_server_add_ui_resource(s, r, &err), MCP_OK);
  assert_int_equal(
      mcp_server_add_tool(s,
                          ui_tool("show_orders", "ui://demo/orders",
                                  MCP_APP_VISIBLE_MODEL | MCP_APP_VISIBLE_APP),
                          &err),
      MCP_OK);
  assert_int_equal(mcp_server_add_tool(s,
                                       ui_tool("refresh_orders",
                                               "ui://demo/orders",
                                               MCP_APP_VISIBLE_APP),
                                       &err),
                   MCP_OK);
  mcp_tool_t *plain = NULL;
  assert_int_equal(mcp_tool_new("plain", &plain), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(plain, echo_support, NULL, NULL),
                   MCP_OK);
  assert_int_equal(mcp_server_add_tool(s, plain, &err), MCP_OK);
  assert_int_equal(mcp__server_start_serving(s, &err), MCP_OK);
  return s;
}

static const json_t *find_named(const json_t *array, const char *key,
                                const char *value) {
  size_t i;
  json_t *v;
  json_array_foreach(array, i, v) {
    const char *s = json_string_value(json_object_get(v, key));
    if (s && strcmp(s, value) == 0)
      return v;
  }
  return NULL;
}

static void check_ui_meta(const json_t *meta) {
  json_t *want = json_loads(
      "{\"ui\":{\"csp\":{\"connectDomains\":[\"https://api.example.com\"],"
      "\"resourceDomains\":[\"https://*.cdn.example.com\"],"
      "\"frameDomains\":[\"https://www.youtube.com\"],"
      "\"baseUriDomains\":[\"https://cdn.example.com:8443\"]},"
      "\"permissions\":{\"camera\":{},\"clipboardWrite\":{}},"
      "\"domain\":\"a904.claudemcpcontent.com\",\"prefersBorder\":true}}",
      0, NULL);
  assert_non_null(want);
  if (!json_equal(meta, want)) {
    char *got = json_dumps(meta, JSON_COMPACT);
    fail_msg("_meta %s", got);
  }
  json_decref(want);
}

/* The listing and the read of the view, in one era. */
static void check_view(json_t *list, json_t *read) {
  const json_t *entry = find_named(
      json_object_get(json_object_get(list, "result"), "resources"), "uri",
      "ui://demo/orders");
  assert_non_null(entry);
  assert_string_equal(json_string_value(json_object_get(entry, "mimeType")),
                      "text/html;profile=mcp-app");
  check_ui_meta(json_object_get(entry, "_meta"));
  json_t *c = json_array_get(
      json_object_get(json_object_get(read, "result"), "contents"), 0);
  assert_string_equal(json_string_value(json_object_get(c, "uri")),
                      "ui://demo/orders");
  assert_string_equal(json_string_value(json_object_get(c, "mimeType")),
                      "text/html;profile=mcp-app");
  assert_string_equal(json_string_value(json_object_get(c, "text")), HTML);
  check_ui_meta(json_object_get(c, "_meta"));
}

static void check_extension(const json_t *caps) {
  json_t *ext = json_object_get(json_object_get(caps, "extensions"),
                                "io.modelcontextprotocol/ui");
  json_t *want = json_loads("{\"mimeTypes\":[\"text/html;profile=mcp-app\"]}",
                            0, NULL);
  assert_true(json_equal(ext, want));
  json_decref(want);
}

static void test_legacy_era(void **state) {
  (void)state;
  mcp_server_t *s = apps_server();
  /* a host with the extension */
  mcp_session_t *host = tu_session(s, NULL);
  json_t *init = tu_request(
      s, host, "initialize",
      "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":" UI_CAPS
      ",\"clientInfo\":{\"name\":\"h\",\"version\":\"1\"}}");
  check_extension(
      json_object_get(json_object_get(init, "result"), "capabilities"));
  json_decref(init);
  tu_send(s, host, NULL,
          "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  json_t *list = tu_request(s, host, "resources/list", NULL);
  json_t *read =
      tu_request(s, host, "resources/read", "{\"uri\":\"ui://demo/orders\"}");
  check_view(list, read);
  json_decref(list);
  json_decref(read);
  json_t *tools = tu_request(s, host, "tools/list", NULL);
  json_t *arr = json_object_get(json_object_get(tools, "result"), "tools");
  assert_int_equal(json_array_size(arr), 3);
  json_t *want = json_loads("{\"ui\":{\"resourceUri\":\"ui://demo/orders\","
                            "\"visibility\":[\"model\",\"app\"]}}",
                            0, NULL);
  assert_true(json_equal(
      json_object_get(find_named(arr, "name", "show_orders"), "_meta"), want));
  json_decref(want);
  assert_null(json_object_get(find_named(arr, "name", "plain"), "_meta"));
  json_decref(tools);
  json_t *call = tu_request(s, host, "tools/call",
                            "{\"name\":\"refresh_orders\",\"arguments\":{}}");
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(json_object_get(json_object_get(call, "result"),
                                         "content"),
                         0),
          "text")),
      "apps: yes");
  json_decref(call);

  /* a client without it: no app-only tool, in the list or to call */
  mcp_session_t *text = tu_session(s, NULL);
  tu_initialize(s, text, "{}");
  tools = tu_request(s, text, "tools/list", NULL);
  arr = json_object_get(json_object_get(tools, "result"), "tools");
  assert_int_equal(json_array_size(arr), 2);
  assert_null(find_named(arr, "name", "refresh_orders"));
  assert_non_null(find_named(arr, "name", "show_orders"));
  json_decref(tools);
  call = tu_request(s, text, "tools/call",
                    "{\"name\":\"refresh_orders\",\"arguments\":{}}");
  assert_int_equal(tu_error_code(call), -32602);
  assert_non_null(strstr(json_string_value(json_object_get(
                             json_object_get(call, "error"), "message")),
                         "Unknown tool: refresh_orders"));
  json_decref(call);
  call = tu_request(s, text, "tools/call",
                    "{\"name\":\"show_orders\",\"arguments\":{}}");
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(json_object_get(json_object_get(call, "result"),
                                         "content"),
                         0),
          "text")),
      "apps: no");
  json_decref(call);
  /* a mimeTypes list without ours is no support */
  mcp_session_t *other = tu_session(s, NULL);
  tu_initialize(s, other,
                "{\"extensions\":{\"io.modelcontextprotocol/ui\":"
                "{\"mimeTypes\":[\"text/uri-list\"]}}}");
  call = tu_request(s, other, "tools/call",
                    "{\"name\":\"refresh_orders\",\"arguments\":{}}");
  assert_int_equal(tu_error_code(call), -32602);
  json_decref(call);
  mcp__session_release(host);
  mcp__session_release(text);
  mcp__session_release(other);
  mcp_server_free(s);
}

static void test_modern_era(void **state) {
  (void)state;
  mcp_server_t *s = apps_server();
  json_t *d = tu_modern_request(s, "server/discover", NULL, UI_CAPS);
  check_extension(json_object_get(json_object_get(d, "result"), "capabilities"));
  json_decref(d);
  json_t *list = tu_modern_request(s, "resources/list", NULL, UI_CAPS);
  json_t *read = tu_modern_request(s, "resources/read",
                                   "{\"uri\":\"ui://demo/orders\"}", UI_CAPS);
  check_view(list, read);
  json_decref(list);
  json_decref(read);
  json_t *tools = tu_modern_request(s, "tools/list", NULL, UI_CAPS);
  assert_int_equal(json_array_size(json_object_get(
                       json_object_get(tools, "result"), "tools")),
                   3);
  json_decref(tools);
  json_t *call = tu_modern_request(
      s, "tools/call", "{\"name\":\"refresh_orders\",\"arguments\":{}}",
      UI_CAPS);
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(json_object_get(json_object_get(call, "result"),
                                         "content"),
                         0),
          "text")),
      "apps: yes");
  json_decref(call);
  /* the same server to a 2026-07-28 client without the extension */
  tools = tu_modern_request(s, "tools/list", NULL, "{}");
  assert_int_equal(json_array_size(json_object_get(
                       json_object_get(tools, "result"), "tools")),
                   2);
  json_decref(tools);
  call = tu_modern_request(
      s, "tools/call", "{\"name\":\"refresh_orders\",\"arguments\":{}}", "{}");
  assert_int_equal(tu_error_code(call), -32602);
  json_decref(call);
  mcp_server_free(s);
}

static void test_no_view_no_extension(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("plain", "1.0", &s), MCP_OK);
  mcp_session_t *se = tu_session(s, NULL);
  json_t *init = tu_request(s, se, "initialize",
                            "{\"protocolVersion\":\"2025-11-25\","
                            "\"capabilities\":{},\"clientInfo\":{\"name\":"
                            "\"c\",\"version\":\"1\"}}");
  assert_null(json_object_get(
      json_object_get(json_object_get(init, "result"), "capabilities"),
      "extensions"));
  json_decref(init);
  json_t *d = tu_modern_request(s, "server/discover", NULL, UI_CAPS);
  assert_null(json_object_get(
      json_object_get(json_object_get(d, "result"), "capabilities"),
      "extensions"));
  json_decref(d);
  mcp__session_release(se);
  mcp_server_free(s);
}

static mcp_status own_read(mcp_call_t *call, const char *uri, json_t *vars,
                           mcp_read_result_t *out, void *ud) {
  (void)call, (void)vars, (void)ud;
  return mcp_read_result_add_text(out, uri, "<html>dynamic</html>", NULL);
}

static void test_blob_file_and_handler(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  mcp_error_t err = {0};
  assert_int_equal(mcp_server_new("apps", "1.0", &s), MCP_OK);
  /* blob */
  mcp_resource_t *b = view("ui://t/blob");
  assert_int_equal(mcp_ui_resource_set_blob(b, true), MCP_OK);
  assert_int_equal(mcp_server_add_ui_resource(s, b, &err), MCP_OK);
  /* file */
  char path[] = "/tmp/apps_test_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, HTML, strlen(HTML)), (ssize_t)strlen(HTML));
  close(fd);
  mcp_resource_t *f = NULL;
  assert_int_equal(mcp_ui_resource_new("ui://t/file", "File", &f, &err),
                   MCP_OK);
  assert_int_equal(mcp_ui_resource_set_html_file(f, path, &err), MCP_OK);
  unlink(path);
  assert_int_equal(mcp_server_add_ui_resource(s, f, &err), MCP_OK);
  mcp_resource_t *missing = NULL;
  assert_int_equal(mcp_ui_resource_new("ui://t/missing", "M", &missing, &err),
                   MCP_OK);
  assert_int_equal(mcp_ui_resource_set_html_file(missing, path, &err),
                   MCP_ERR_IO);
  assert_non_null(strstr(err.message, path));
  mcp_resource_free(missing);
  /* the caller's handler: MIME type and _meta.ui filled in */
  mcp_resource_t *h = NULL;
  assert_int_equal(mcp_ui_resource_new("ui://t/dyn", "Dyn", &h, &err), MCP_OK);
  assert_int_equal(mcp_ui_resource_set_prefers_border(h, false), MCP_OK);
  assert_int_equal(mcp_resource_set_handler(h, own_read, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_ui_resource(s, h, &err), MCP_OK);

  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, UI_CAPS);
  json_t *r = tu_request(s, se, "resources/read", "{\"uri\":\"ui://t/blob\"}");
  json_t *c = json_array_get(
      json_object_get(json_object_get(r, "result"), "contents"), 0);
  assert_null(json_object_get(c, "text"));
  assert_non_null(json_object_get(c, "blob"));
  assert_string_equal(json_string_value(json_object_get(c, "mimeType")),
                      "text/html;profile=mcp-app");
  json_decref(r);
  r = tu_request(s, se, "resources/read", "{\"uri\":\"ui://t/file\"}");
  c = json_array_get(json_object_get(json_object_get(r, "result"), "contents"),
                     0);
  assert_string_equal(json_string_value(json_object_get(c, "text")), HTML);
  json_decref(r);
  r = tu_request(s, se, "resources/read", "{\"uri\":\"ui://t/dyn\"}");
  c = json_array_get(json_object_get(json_object_get(r, "result"), "contents"),
                     0);
  assert_string_equal(json_string_value(json_object_get(c, "mimeType")),
                      "text/html;profile=mcp-app");
  assert_true(json_is_false(json_object_get(
      json_object_get(json_object_get(c, "_meta"), "ui"), "prefersBorder")));
  json_decref(r);
  mcp__session_release(se);
  mcp_server_free(s);
}

static void test_resource_refusals(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  mcp_error_t err = {0};
  assert_int_equal(mcp_server_new("apps", "1.0", &s), MCP_OK);
  mcp_resource_t *r = NULL;
  /* a view that is not ui:// */
  assert_int_equal(
      mcp_ui_resource_new("https://example.com/orders", "O", &r, &err),
      MCP_ERR_INVALID_ARG);
  assert_null(r);
  assert_non_null(strstr(err.message, "'https://example.com/orders'"));
  assert_non_null(strstr(err.message, "ui://"));
  /* CSP entries that are not origins, each kept and reported */
  static const char *const bad[] = {
      "api.example.com",  "https://a.com; script-src *", "https://a b.com",
      "https://'self'",   "https://a.com/path",          "https://",
      "https://a.com:99999x"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    r = view("ui://t/csp");
    assert_int_equal(mcp_ui_resource_add_csp(r, MCP_UI_CSP_CONNECT, bad[i]),
                     MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_server_add_ui_resource(s, r, &err),
                     MCP_ERR_INVALID_ARG);
    if (strstr(err.message, bad[i]) == NULL ||
        strstr(err.message, "connectDomains") == NULL)
      fail_msg("message '%s' for '%s'", err.message, bad[i]);
  }
  /* through mcp_server_add_resource too (the message is logged) */
  r = view("ui://t/csp");
  mcp_ui_resource_add_csp(r, MCP_UI_CSP_FRAME, "javascript:alert(1)");
  assert_int_equal(mcp_server_add_resource(s, r), MCP_ERR_INVALID_ARG);
  /* permissions and domain */
  r = view("ui://t/perm");
  assert_int_equal(mcp_ui_resource_set_permissions(r, 1u << 9),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_add_ui_resource(s, r, &err),
                   MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "permissions"));
  r = view("ui://t/dom");
  assert_int_equal(mcp_ui_resource_set_domain(r, "a.com; evil"),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_add_ui_resource(s, r, &err),
                   MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "a.com; evil"));
  /* no HTML */
  assert_int_equal(mcp_ui_resource_new("ui://t/empty", "E", &r, &err), MCP_OK);
  assert_int_equal(mcp_server_add_ui_resource(s, r, &err), MCP_ERR_STATE);
  assert_non_null(strstr(err.message, "ui://t/empty"));
  /* another MIME type on a view, or on a plain ui:// resource */
  r = view("ui://t/mime");
  assert_int_equal(mcp_resource_set_mime_type(r, "text/html"), MCP_OK);
  assert_int_equal(mcp_server_add_ui_resource(s, r, &err),
                   MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "text/html"));
  assert_int_equal(mcp_resource_new("ui://t/plain", "P", &r), MCP_OK);
  assert_int_equal(mcp_resource_set_mime_type(r, "text/plain"), MCP_OK);
  assert_int_equal(mcp_resource_set_handler(r, own_read, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_resource(s, r), MCP_ERR_INVALID_ARG);
  /* text that is not UTF-8 must be a blob */
  r = view("ui://t/latin1");
  assert_int_equal(mcp_ui_resource_set_html(r, "caf\xe9", 4), MCP_OK);
  assert_int_equal(mcp_server_add_ui_resource(s, r, &err),
                   MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "blob"));
  assert_int_equal(mcp_server_resource_count(s), 0);
  mcp_server_free(s);
}

static void test_tool_refusals(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  mcp_error_t err = {0};
  assert_int_equal(mcp_server_new("apps", "1.0", &s), MCP_OK);
  /* the setter: a URI that is not ui://, visibility bits beyond the two */
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new("bad_uri", &t), MCP_OK);
  mcp_tool_set_handler(t, echo_support, NULL, NULL);
  assert_int_equal(mcp_tool_set_ui(t, "https://x/y", 0), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_add_tool(s, t, &err), MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "'bad_uri'"));
  assert_non_null(strstr(err.message, "https://x/y"));
  assert_int_equal(mcp_tool_new("bad_vis", &t), MCP_OK);
  mcp_tool_set_handler(t, echo_support, NULL, NULL);
  assert_int_equal(mcp_tool_set_ui(t, "ui://x/y", 4), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_add_tool(s, t, &err), MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "visibility"));
  /* _meta.ui through mcp_tool_set_meta: checked the same way */
  static const char *const metas[] = {
      "{\"ui\":{\"visibility\":[\"model\",\"agent\"]}}",
      "{\"ui\":{\"visibility\":[]}}",
      "{\"ui\":{\"visibility\":[\"app\",\"app\"]}}",
      "{\"ui\":{\"visibility\":\"model\"}}",
      "{\"ui\":{\"resourceUri\":\"file:///x.html\"}}",
      "{\"ui\":{\"resourceUri\":42}}",
      "{\"ui\":\"ui://x\"}"};
  static const char *const culprits[] = {"\"agent\"", "non-empty", "duplicate",
                                         "array", "file:///x.html", "42",
                                         "object"};
  for (size_t i = 0; i < sizeof metas / sizeof *metas; i++) {
    assert_int_equal(mcp_tool_new("meta_tool", &t), MCP_OK);
    mcp_tool_set_handler(t, echo_support, NULL, NULL);
    assert_int_equal(mcp_tool_set_meta(t, json_loads(metas[i], 0, NULL)),
                     MCP_OK);
    assert_int_equal(mcp_server_add_tool(s, t, &err), MCP_ERR_INVALID_ARG);
    if (strstr(err.message, culprits[i]) == NULL ||
        strstr(err.message, "'meta_tool'") == NULL)
      fail_msg("message '%s' for %s", err.message, metas[i]);
  }
  /* a link to nothing: refused when serving starts, naming tool and URI */
  assert_int_equal(mcp_server_add_tool(s,
                                       ui_tool("dangling", "ui://x/none",
                                               MCP_APP_VISIBLE_MODEL),
                                       &err),
                   MCP_OK);
  assert_int_equal(mcp__server_start_serving(s, &err), MCP_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "'dangling' -> ui://x/none"));
  /* registering the view fixes it; a later bad link is refused at once */
  assert_int_equal(mcp_server_add_ui_resource(s, view("ui://x/none"), &err),
                   MCP_OK);
  assert_int_equal(mcp__server_start_serving(s, &err), MCP_OK);
  assert_int_equal(
      mcp_server_add_tool(s, ui_tool("late", "ui://x/other", 0), &err),
      MCP_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "'late'"));
  assert_non_null(strstr(err.message, "ui://x/other"));
  assert_int_equal(mcp_server_tool_count(s), 1);
  mcp_server_free(s);
}

/* The link merges into whatever _meta the tool has, set before or after. */
static void test_setter_merges_meta(void **state) {
  (void)state;
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new("merge", &t), MCP_OK);
  assert_int_equal(mcp_tool_set_ui(t, "ui://m/v", MCP_APP_VISIBLE_APP), MCP_OK);
  assert_int_equal(
      mcp_tool_set_meta(t, json_loads("{\"vendor/x\":1,\"ui\":{\"resourceUri\":"
                                      "\"ui://old\",\"extra\":true}}",
                                      0, NULL)),
      MCP_OK);
  json_t *j = mcp_tool_to_json(t);
  json_t *want = json_loads(
      "{\"vendor/x\":1,\"ui\":{\"resourceUri\":\"ui://m/v\",\"extra\":true,"
      "\"visibility\":[\"app\"]}}",
      0, NULL);
  assert_true(json_equal(json_object_get(j, "_meta"), want));
  json_decref(want);
  json_decref(j);
  /* NULL and 0 take the link away again */
  assert_int_equal(mcp_tool_set_ui(t, NULL, 0), MCP_OK);
  j = mcp_tool_to_json(t);
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(json_object_get(j, "_meta"), "ui"),
                          "resourceUri")),
                      "ui://old");
  json_decref(j);
  mcp_tool_free(t);
}

typedef struct orders_out {
  int64_t count;
} orders_out;

MCP_TOOL_HANDLER(count_orders, void, orders_out) {
  out->count = 3;
  return mcp_result_add_text(result, "3 orders") ? MCP_OK : MCP_ERR_NOMEM;
}

static const mcp_field orders_fields[] = {
    MCP_INTEGER(orders_out, count, "Orders"), MCP_FIELDS_END};

static void test_declaration(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  mcp_error_t err = {0};
  assert_int_equal(mcp_server_new("apps", "1.0", &s), MCP_OK);
  assert_int_equal(mcp_server_add_ui_resource(s, view("ui://d/v"), &err),
                   MCP_OK);
  assert_int_equal(
      mcp_server_add_tool_decl(
          s,
          &(mcp_tool_decl){.name = "decl_ui",
                           .output = orders_fields,
                           .fn = count_orders,
                           MCP_TOOL_DECL_UI(&(mcp_tool_ui){
                               .resource_uri = "ui://d/v",
                               .visibility = MCP_APP_VISIBLE_MODEL})},
          &err),
      MCP_OK);
  /* a bad link in a declaration is one of its definition errors */
  assert_int_equal(
      mcp_server_add_tool_decl(
          s,
          &(mcp_tool_decl){.name = "decl_bad",
                           .fn = count_orders,
                           .output = orders_fields,
                           MCP_TOOL_DECL_UI(&(mcp_tool_ui){
                               .resource_uri = "http://d/v"})},
          &err),
      MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "http://d/v"));
  /* the other reserved members stay reserved */
  assert_int_equal(mcp_server_add_tool_decl(
                       s,
                       &(mcp_tool_decl){.name = "decl_res",
                                        .fn = count_orders,
                                        .output = orders_fields,
                                        .reserved = {NULL, "x"}},
                       &err),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp__server_start_serving(s, &err), MCP_OK);
  json_t *tools = tu_modern_request(s, "tools/list", NULL, UI_CAPS);
  json_t *t = json_array_get(
      json_object_get(json_object_get(tools, "result"), "tools"), 0);
  json_t *want = json_loads(
      "{\"ui\":{\"resourceUri\":\"ui://d/v\",\"visibility\":[\"model\"]}}", 0,
      NULL);
  assert_true(json_equal(json_object_get(t, "_meta"), want));
  json_decref(want);
  json_decref(tools);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_legacy_era),
      cmocka_unit_test(test_modern_era),
      cmocka_unit_test(test_no_view_no_extension),
      cmocka_unit_test(test_blob_file_and_handler),
      cmocka_unit_test(test_resource_refusals),
      cmocka_unit_test(test_tool_refusals),
      cmocka_unit_test(test_setter_merges_meta),
      cmocka_unit_test(test_declaration),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
