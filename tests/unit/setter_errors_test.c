/* SPDX-License-Identifier: MIT */
/* setter_errors_test.c - a refused argument says why (issue 24, item 7):
 * tool setters keep their reason in the tool and mcp_server_add_tool
 * refuses the tool with it in err and the log; a refused tool name is
 * explained; err->message is never cut silently, and a list too long for it
 * says where the whole list is (the log, which is not cut). */
#include "testutil.h"

#include <string.h>

#include "mcp/client.h"
#include "util/str.h"

static mcp_status noop(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)call, (void)args, (void)r, (void)ud;
  return MCP_OK;
}

typedef struct logbook {
  char text[8192];
} logbook;

static void keep_log(mcp_log_level level, const char *message, void *ud) {
  (void)level;
  logbook *b = ud;
  size_t used = strlen(b->text);
  snprintf(b->text + used, sizeof b->text - used, "%s\n", message);
}

static mcp_server_t *server_with_log(logbook *b) {
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("errs", "1", &s), MCP_OK);
  memset(b, 0, sizeof *b);
  mcp_server_set_log_handler(s, keep_log, b);
  return s;
}

static mcp_tool_t *tool_named(const char *name) {
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new(name, &t), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, noop, NULL, NULL), MCP_OK);
  return t;
}

static void test_icon_refusal_says_why(void **state) {
  (void)state;
  logbook log;
  mcp_server_t *s = server_with_log(&log);
  mcp_tool_t *t = tool_named("get_flight");
  assert_int_equal(mcp_tool_add_icon(t, "http://example.com/plane.png", NULL,
                                     NULL, NULL),
                   MCP_ERR_INVALID_ARG);
  const char *why = mcp_tool_definition_errors(t);
  assert_non_null(why);
  assert_string_equal(why,
                      "mcp_tool_add_icon(\"http://example.com/plane.png\"):"
                      " an icon's src must be an https: or data: URI "
                      "(SEP-973)");
  /* the status was ignored, as in the README: registration refuses it */
  mcp_error_t err;
  memset(&err, 0, sizeof err);
  assert_int_equal(mcp_server_add_tool(s, t, &err), MCP_ERR_INVALID_ARG);
  assert_string_equal(err.message,
                      "tool 'get_flight': 1 definition error: "
                      "mcp_tool_add_icon(\"http://example.com/plane.png\"): an "
                      "icon's src must be an https: or data: URI (SEP-973)");
  assert_string_equal(err.pointer, "/icons");
  assert_non_null(strstr(log.text, "tool 'get_flight' not added"));
  assert_non_null(strstr(log.text, "http://example.com/plane.png"));
  assert_int_equal(mcp_server_tool_count(s), 0);

  /* a good icon after a bad theme: the theme is named */
  t = tool_named("themed");
  assert_int_equal(
      mcp_tool_add_icon(t, "https://example.com/a.svg", NULL, NULL, "blue"),
      MCP_ERR_INVALID_ARG);
  assert_string_equal(mcp_tool_definition_errors(t),
                      "mcp_tool_add_icon(\"https://example.com/a.svg\", theme "
                      "\"blue\"): an icon's theme must be NULL, \"light\" or "
                      "\"dark\"");
  mcp_tool_free(t);
  mcp_server_free(s);
}

static void test_other_tool_setters_say_why(void **state) {
  (void)state;
  mcp_tool_t *t = tool_named("t");
  assert_int_equal(mcp_tool_set_hint(t, (mcp_tool_hint)9, true),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_tool_set_task_support(t, (mcp_task_support)7),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_tool_set_meta(t, json_string("x")),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_tool_set_handler(t, NULL, NULL, NULL),
                   MCP_ERR_INVALID_ARG);
  assert_string_equal(mcp_tool_definition_errors(t),
                      "mcp_tool_set_hint: hint 9 is not a mcp_tool_hint\n"
                      "mcp_tool_set_task_support: 7 is not a mcp_task_support\n"
                      "mcp_tool_set_meta: _meta must be an object\n"
                      "mcp_tool_set_handler: the handler is NULL");
  mcp_tool_free(t);
  /* accepted arguments leave nothing behind */
  t = tool_named("fine");
  assert_int_equal(mcp_tool_add_icon(t, "data:image/png;base64,AA", NULL,
                                     "any", "dark"),
                   MCP_OK);
  assert_int_equal(mcp_tool_set_hint(t, MCP_HINT_READ_ONLY, true), MCP_OK);
  assert_null(mcp_tool_definition_errors(t));
  mcp_tool_free(t);
}

static void test_tool_name_refusal_says_why(void **state) {
  (void)state;
  mcp_error_t err;
  assert_int_equal(mcp_tool_check_name("get_flight", &err), MCP_OK);
  assert_int_equal(mcp_tool_check_name("get flight", &err),
                   MCP_ERR_INVALID_ARG);
  assert_string_equal(err.message, "tool name \"get flight\": 0x20 at byte 3 "
                                   "is not allowed (1-128 of A-Z a-z 0-9 _ "
                                   "- .)");
  assert_int_equal(mcp_tool_check_name("a/b", &err), MCP_ERR_INVALID_ARG);
  assert_string_equal(err.message, "tool name \"a/b\": '/' at byte 1 is not "
                                   "allowed (1-128 of A-Z a-z 0-9 _ - .)");
  assert_int_equal(mcp_tool_check_name("", &err), MCP_ERR_INVALID_ARG);
  assert_string_equal(err.message, "the tool name is empty");
  assert_int_equal(mcp_tool_check_name(NULL, &err), MCP_ERR_INVALID_ARG);
  assert_string_equal(err.message, "the tool name is NULL");
  char long_name[140];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  assert_int_equal(mcp_tool_check_name(long_name, NULL), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_tool_check_name(long_name, &err), MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "is 139 characters long, at most 128"));
  long_name[128] = '\0';
  assert_int_equal(mcp_tool_check_name(long_name, &err), MCP_OK);
  /* it agrees with mcp_tool_new */
  mcp_tool_t *t = (mcp_tool_t *)1;
  assert_int_equal(mcp_tool_new("get flight", &t), MCP_ERR_INVALID_ARG);
  assert_null(t);

  /* the declared form and a NULL tool say it in err */
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("errs", "1", &s), MCP_OK);
  assert_int_equal(mcp_server_add_tool_decl(
                       s,
                       &(mcp_tool_decl){.name = "get flight",
                                        .call_fn = NULL,
                                        .fn = NULL},
                       &err),
                   MCP_ERR_INVALID_ARG);
  assert_string_equal(err.message,
                      "cannot declare tool: tool name \"get flight\": 0x20 at "
                      "byte 3 is not allowed (1-128 of A-Z a-z 0-9 _ - .)");
  assert_int_equal(mcp_server_add_tool(s, NULL, &err), MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "mcp_tool_check_name says why"));
  mcp_server_free(s);
}

/* mcp_error_set never cuts silently: a message too long for the 255 bytes
 * ends with an ellipsis, on a whole UTF-8 character. */
static void test_error_message_cut_is_marked(void **state) {
  (void)state;
  mcp_error_t err;
  char text[400];
  memset(text, 'a', 250);
  strcpy(text + 250, "\xc3\xa9\xc3\xa9\xc3\xa9 and more"); /* é at 250.. */
  assert_int_equal(mcp_error_set(&err, MCP_ERR_SCHEMA, "%s", text),
                   MCP_ERR_SCHEMA);
  size_t n = strlen(err.message);
  assert_true(n <= 255);
  /* 250 'a', é (2 bytes) would end at 252, then "…" (3): 255 */
  assert_int_equal(n, 255);
  assert_memory_equal(err.message + 250, "\xc3\xa9\xe2\x80\xa6", 5);
  memset(text, 'a', 251);
  strcpy(text + 251, "\xc3\xa9\xc3\xa9 tail"); /* é would straddle 252 */
  mcp_error_set(&err, MCP_ERR_SCHEMA, "%s", text);
  assert_int_equal(strlen(err.message), 254);
  assert_memory_equal(err.message + 251, "\xe2\x80\xa6", 4);
  /* a message that fits is left alone */
  mcp_error_set(&err, MCP_ERR_SCHEMA, "%s", "short");
  assert_string_equal(err.message, "short");
}

/* A definition list longer than err->message: the message keeps whole
 * entries and says the whole list is in the server log, which has all of it
 * however long (the log used to stop at 1023 bytes). */
static void test_long_definition_list_points_to_the_log(void **state) {
  (void)state;
  logbook log;
  mcp_server_t *s = server_with_log(&log);
  mcp_tool_t *t = tool_named("many");
  char src[200];
  for (int i = 0; i < 12; i++) {
    snprintf(src, sizeof src,
             "http://example.com/icons/a-rather-long-path/number-%02d.png", i);
    assert_int_equal(mcp_tool_add_icon(t, src, NULL, NULL, NULL),
                     MCP_ERR_INVALID_ARG);
  }
  mcp_error_t err;
  assert_int_equal(mcp_server_add_tool(s, t, &err), MCP_ERR_INVALID_ARG);
  const char *tail = " \xe2\x80\xa6 (all 12 in the server log)";
  size_t n = strlen(err.message), tl = strlen(tail);
  assert_true(n <= 255);
  assert_true(n > tl);
  assert_string_equal(err.message + n - tl, tail);
  assert_memory_equal(err.message, "tool 'many': 12 definition errors: ", 35);
  /* every one of them in the log, the last too */
  assert_true(strlen(log.text) > 1024);
  for (int i = 0; i < 12; i++) {
    snprintf(src, sizeof src, "number-%02d.png", i);
    assert_non_null(strstr(log.text, src));
  }
  mcp_server_free(s);
}

/* Server setters say why in the server's log (the default handler prints
 * errors on stderr). */
static void test_server_setters_log_why(void **state) {
  (void)state;
  logbook log;
  mcp_server_t *s = server_with_log(&log);
  assert_int_equal(mcp_server_set_page_size(s, 0), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_set_worker_threads(s, 5000), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_add_icon(s, "ftp://x/i.png", NULL, NULL, NULL),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_set_request_state_key(s, "short", 5),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_set_cache_hint(s, MCP_CACHE_ALL, -1,
                                             MCP_CACHE_PUBLIC),
                   MCP_ERR_INVALID_ARG);
  assert_string_equal(
      log.text,
      "mcp_server_set_page_size: 0 items; at least 1\n"
      "mcp_server_set_worker_threads: 5000; from 1 to 1024\n"
      "mcp_server_add_icon(\"ftp://x/i.png\"): an icon's src must be an "
      "https: or data: URI (SEP-973)\n"
      "mcp_server_set_request_state_key: 5 bytes; 32 to 64\n"
      "mcp_server_set_cache_hint: ttl_ms -1 (0 to 2^53 - 1) or scope 0 (a "
      "mcp_cache_scope) out of range\n");
  mcp_server_free(s);
}

static mcp_status prompt_noop(mcp_call_t *call, json_t *args,
                              mcp_prompt_result_t *out, void *ud) {
  (void)call, (void)args, (void)out, (void)ud;
  return MCP_OK;
}

static mcp_status read_noop(mcp_call_t *call, const char *uri, json_t *vars,
                            mcp_read_result_t *out, void *ud) {
  (void)call, (void)uri, (void)vars, (void)out, (void)ud;
  return MCP_OK;
}

/* Prompts, resources and templates keep a refused setter's reason and are
 * refused at registration with it in the log. */
static void test_prompt_and_resource_setters_say_why(void **state) {
  (void)state;
  logbook log;
  mcp_server_t *s = server_with_log(&log);
  mcp_prompt_t *p;
  assert_int_equal(mcp_prompt_new("greet", &p), MCP_OK);
  assert_int_equal(mcp_prompt_set_handler(p, prompt_noop, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_prompt_add_icon(p, "http://x/i.png", NULL, NULL, NULL),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_prompt_add_argument(p, "", NULL, NULL, false),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_add_prompt(s, p), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_prompt_count(s), 0);

  mcp_resource_t *r;
  assert_int_equal(mcp_resource_new("file:///a.txt", "a", &r), MCP_OK);
  assert_int_equal(mcp_resource_set_handler(r, read_noop, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_resource_set_annotations(r, 9, 0.5, NULL),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_add_resource(s, r), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_resource_count(s), 0);

  mcp_resource_template_t *t;
  assert_int_equal(mcp_resource_template_new("file:///{name}", "files", &t),
                   MCP_OK);
  assert_int_equal(mcp_resource_template_set_meta(t, json_integer(1)),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_add_resource_template(s, t),
                   MCP_ERR_INVALID_ARG);
  assert_string_equal(
      log.text,
      "prompt 'greet' not added:\n"
      "mcp_prompt_add_icon: an icon's src must be an https: or data: URI "
      "(SEP-973)\n"
      "mcp_prompt_add_argument: an argument name must be 1-128 characters "
      "without control characters\n"
      "resource 'file:///a.txt' not added:\n"
      "mcp_resource_set_annotations: audience must be MCP_AUDIENCE_USER "
      "and/or MCP_AUDIENCE_ASSISTANT\n"
      "resource template 'file:///{name}' not added:\n"
      "mcp_resource_template_set_meta: _meta must be an object\n");
  /* a NULL object (its constructor refused) is said too */
  log.text[0] = '\0';
  p = (mcp_prompt_t *)1;
  assert_int_equal(mcp_prompt_new("bad\nname", &p), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_add_prompt(s, p), MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(log.text, "mcp_server_add_prompt: the prompt is NULL "
                                   "(did mcp_prompt_new refuse its name?"));
  r = (mcp_resource_t *)1;
  assert_int_equal(mcp_resource_new("relative/path", "x", &r),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_add_resource(s, r), MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(log.text, "did mcp_resource_new refuse it?"));
  /* a handler missing is said too */
  log.text[0] = '\0';
  assert_int_equal(mcp_resource_template_new("file:///{name}", "files", &t),
                   MCP_OK);
  assert_int_equal(mcp_server_add_resource_template(s, t), MCP_ERR_STATE);
  assert_string_equal(log.text, "resource template 'file:///{name}' not "
                                "added: it has no handler\n");
  mcp_server_free(s);
}

/* Task options keep a refused setter's reason; mcp_server_enable_tasks
 * refuses them with it in err and the log. */
static void test_task_options_say_why(void **state) {
  (void)state;
  logbook log;
  mcp_server_t *s = server_with_log(&log);
  mcp_store_t *store;
  assert_int_equal(mcp_store_memory_new(&store), MCP_OK);
  mcp_task_options_t *o;
  assert_int_equal(mcp_task_options_new(&o), MCP_OK);
  assert_int_equal(mcp_task_options_set_threads(o, 0), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_task_options_set_immediate_response(o, "%d done"),
                   MCP_ERR_INVALID_ARG);
  mcp_error_t err;
  assert_int_equal(mcp_server_enable_tasks(s, store, o, &err),
                   MCP_ERR_INVALID_ARG);
  assert_string_equal(err.message,
                      "tasks not enabled: options refused: "
                      "mcp_task_options_set_threads: from 1 to 1024; "
                      "mcp_task_options_set_immediate_response: the text may "
                      "hold one %s and no other %");
  assert_non_null(strstr(log.text, "tasks not enabled"));
  assert_null(mcp_server_tasks(s));
  mcp_task_options_free(o);
  /* accepted options enable them */
  assert_int_equal(mcp_task_options_new(&o), MCP_OK);
  assert_int_equal(mcp_task_options_set_threads(o, 2), MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(s, store, o, &err), MCP_OK);
  mcp_task_options_free(o);
  mcp_server_free(s);
  mcp_store_free(store);
}

/* HTTP options keep a refused setter's reason (the condition it broke,
 * for the range setters); mcp_http_server_start refuses them with it in err
 * before binding anything. */
static void test_http_options_say_why(void **state) {
  (void)state;
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("errs", "1", &s), MCP_OK);
  mcp_http_options_t *o;
  assert_int_equal(mcp_http_options_new(&o), MCP_OK);
  assert_int_equal(mcp_http_options_set_bind(o, "127.0.0.1", 0), MCP_OK);
  assert_int_equal(mcp_http_options_set_max_body_bytes(o, 10),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_endpoint(o, "mcp"),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_add_cors_origin(o, "https://a.example/x"),
                   MCP_ERR_INVALID_ARG);
  mcp_http_server_t *h = (mcp_http_server_t *)1;
  mcp_error_t err;
  assert_int_equal(mcp_http_server_start(s, o, &h, &err), MCP_ERR_INVALID_ARG);
  assert_null(h);
  assert_string_equal(
      err.message,
      "options refused: mcp_http_options_set_max_body_bytes: needs v >= 64; "
      "mcp_http_options_set_endpoint: the path must start with '/'; "
      "mcp_http_options_add_cors_origin: an origin is scheme://host[:port] "
      "(no path, spaces or commas) or \"*\"");
  mcp_http_options_free(o);
  mcp_server_free(s);
}

/* Client options keep a refused setter's reason; mcp_client_connect
 * refuses them with it in err (before "set exactly one of a command or a
 * URL", which a refused URL would otherwise cause). */
static void test_client_options_say_why(void **state) {
  (void)state;
  mcp_client_options_t *o;
  assert_int_equal(mcp_client_options_new(&o), MCP_OK);
  assert_int_equal(mcp_client_options_set_url(o, "ftp://example.com/mcp"),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_client_options_add_header(o, "X-A:b", "c"),
                   MCP_ERR_INVALID_ARG);
  mcp_client_t *c = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_client_connect(o, &c, &err), MCP_ERR_INVALID_ARG);
  assert_null(c);
  assert_string_equal(
      err.message,
      "options refused: mcp_client_options_set_url: the URL must start with "
      "http:// or https://; mcp_client_options_add_header: the name needs no "
      "':' or line break, the value no line break");
  json_t *caps = json_integer(1);
  assert_int_equal(mcp_client_options_set_sampling_handler(o, NULL, caps, NULL),
                   MCP_ERR_INVALID_ARG);
  json_decref(caps);
  assert_int_equal(mcp_client_connect(o, &c, &err), MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "; mcp_client_options_set_sampling_"
                                      "handler: capabilities must be an "
                                      "object"));
  mcp_client_options_free(o);
  /* an OTLP metrics endpoint libmcp cannot post to */
  assert_int_equal(mcp_client_options_new(&o), MCP_OK);
  assert_int_equal(mcp_client_options_set_url(o, "http://127.0.0.1:1/mcp"),
                   MCP_OK);
  assert_int_equal(
      mcp_client_options_set_otlp_metrics(o, "https://collector/v1/metrics",
                                          NULL),
      MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_client_connect(o, &c, &err), MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "mcp_client_options_set_otlp_metrics: "
                                      "the OTLP endpoint must be an http:// "
                                      "URL"));
  mcp_client_options_free(o);
}

/* A setter called again with an accepted value takes back its refusal (the
 * last call wins, as for the value); adders keep theirs. */
static void test_last_call_wins(void **state) {
  (void)state;
  char *list = NULL;
  assert_int_equal(mcp__str_add_line(&list, "a_set: no"), MCP_OK);
  assert_int_equal(mcp__str_add_line(&list, "a_set_more(\"x\"): no"), MCP_OK);
  assert_int_equal(mcp__str_add_line(&list, "b_set: no"), MCP_OK);
  assert_int_equal(mcp__str_add_line(&list, "a_set(\"y\"): no"), MCP_OK);
  mcp__str_drop_lines(&list, "a_set");
  assert_string_equal(list, "a_set_more(\"x\"): no\nb_set: no");
  char one[64];
  mcp__str_one_line(list, one, sizeof one);
  assert_string_equal(one, "a_set_more(\"x\"): no; b_set: no");
  mcp__str_drop_lines(&list, "b_set");
  mcp__str_drop_lines(&list, "a_set_more");
  assert_null(list);

  mcp_tool_t *t = tool_named("t");
  assert_int_equal(mcp_tool_set_meta(t, json_integer(1)), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_tool_add_icon(t, "http://x/i.png", NULL, NULL, NULL),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_tool_set_meta(t, json_object()), MCP_OK);
  assert_string_equal(mcp_tool_definition_errors(t),
                      "mcp_tool_add_icon(\"http://x/i.png\"): an icon's src "
                      "must be an https: or data: URI (SEP-973)");
  mcp_tool_free(t);

  mcp_server_t *s;
  assert_int_equal(mcp_server_new("errs", "1", &s), MCP_OK);
  mcp_store_t *store;
  assert_int_equal(mcp_store_memory_new(&store), MCP_OK);
  mcp_task_options_t *o;
  assert_int_equal(mcp_task_options_new(&o), MCP_OK);
  assert_int_equal(mcp_task_options_set_threads(o, 0), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_task_options_set_threads(o, 3), MCP_OK);
  mcp_error_t err;
  assert_int_equal(mcp_server_enable_tasks(s, store, o, &err), MCP_OK);
  mcp_task_options_free(o);
  mcp_server_free(s);
  mcp_store_free(store);

  mcp_http_options_t *h;
  assert_int_equal(mcp_http_options_new(&h), MCP_OK);
  assert_int_equal(mcp_http_options_set_max_body_bytes(h, 1),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_max_body_bytes(h, 4096), MCP_OK);
  assert_int_equal(mcp_http_options_set_endpoint(h, "x"), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_endpoint(h, "/x"), MCP_OK);
  assert_int_equal(mcp_http_options_set_bind(h, "127.0.0.1", 0), MCP_OK);
  assert_int_equal(mcp_server_new("errs", "1", &s), MCP_OK);
  mcp_http_server_t *srv = NULL;
  assert_int_equal(mcp_http_server_start(s, h, &srv, &err), MCP_OK);
  mcp_http_server_stop(srv);
  mcp_http_options_free(h);
  mcp_server_free(s);

  mcp_client_options_t *c;
  assert_int_equal(mcp_client_options_new(&c), MCP_OK);
  assert_int_equal(mcp_client_options_set_url(c, "mailto:x"),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_client_options_set_url(c, "http://127.0.0.1:1/mcp"),
                   MCP_OK);
  assert_int_equal(mcp_client_options_add_header(c, "", "v"),
                   MCP_ERR_INVALID_ARG);
  mcp_client_t *client = NULL;
  assert_int_equal(mcp_client_connect(c, &client, &err), MCP_ERR_INVALID_ARG);
  assert_string_equal(err.message,
                      "options refused: mcp_client_options_add_header: the "
                      "name needs no ':' or line break, the value no line "
                      "break");
  mcp_client_options_free(c);
}

/* A sampling request keeps a refused setter's reason; mcp_call_sample
 * refuses the request with it in err, before sending anything. */
static char sample_why[256];

static mcp_status bad_sample(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)args, (void)ud;
  mcp_sampling_t *req;
  assert_int_equal(mcp_sampling_new(100, &req), MCP_OK);
  assert_int_equal(mcp_sampling_add_text(req, MCP_ROLE_USER, "hi"), MCP_OK);
  assert_int_equal(mcp_sampling_set_temperature(req, -1), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_sampling_set_tool_choice(req, "maybe"),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_sampling_set_tool_choice(req, "auto"), MCP_OK);
  json_t *res = NULL;
  mcp_error_t err;
  mcp_status st = mcp_call_sample(call, req, 1000, &res, &err);
  mcp_sampling_free(req);
  snprintf(sample_why, sizeof sample_why, "%s", err.message);
  mcp_result_add_text(r, "done");
  return st == MCP_ERR_INVALID_ARG ? MCP_OK : MCP_ERR_INTERNAL;
}

static void test_sampling_request_says_why(void **state) {
  (void)state;
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("errs", "1", &s), MCP_OK);
  mcp_tool_t *t = tool_named("sample");
  mcp_tool_set_handler(t, bad_sample, NULL, NULL);
  assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, "{\"sampling\":{\"tools\":{}}}");
  json_t *r = tu_request(s, se, "tools/call", "{\"name\":\"sample\"}");
  assert_int_equal(tu_error_code(r), 0);
  json_decref(r);
  assert_string_equal(sample_why, "request refused: "
                                  "mcp_sampling_set_temperature: must be 0 or "
                                  "more");
  mcp__session_release(se);
  mcp_server_free(s);
}

/* The list of tools that need tasks on a server without them: too long
 * for err->message, it is logged whole and the message says so. */
static void test_long_task_tool_list_points_to_the_log(void **state) {
  (void)state;
  logbook log;
  mcp_server_t *s = server_with_log(&log);
  char name[64];
  for (int i = 0; i < 8; i++) {
    snprintf(name, sizeof name, "a_tool_that_runs_as_a_task_%d", i);
    mcp_tool_t *t = tool_named(name);
    mcp_tool_set_task_support(t, MCP_TASK_REQUIRED);
    assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
  }
  mcp_http_options_t *o;
  assert_int_equal(mcp_http_options_new(&o), MCP_OK);
  assert_int_equal(mcp_http_options_set_bind(o, "127.0.0.1", 0), MCP_OK);
  mcp_http_server_t *h = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_http_server_start(s, o, &h, &err), MCP_ERR_STATE);
  assert_null(h);
  assert_non_null(strstr(err.message, "8 tools need tasks, which are not "
                                      "enabled (mcp_server_enable_tasks), all "
                                      "in the server log: "));
  assert_string_equal(err.message + strlen(err.message) - 3, "\xe2\x80\xa6");
  assert_non_null(strstr(log.text, "'a_tool_that_runs_as_a_task_7'"));
  mcp_http_options_free(o);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_icon_refusal_says_why),
      cmocka_unit_test(test_other_tool_setters_say_why),
      cmocka_unit_test(test_tool_name_refusal_says_why),
      cmocka_unit_test(test_error_message_cut_is_marked),
      cmocka_unit_test(test_long_definition_list_points_to_the_log),
      cmocka_unit_test(test_server_setters_log_why),
      cmocka_unit_test(test_prompt_and_resource_setters_say_why),
      cmocka_unit_test(test_task_options_say_why),
      cmocka_unit_test(test_http_options_say_why),
      cmocka_unit_test(test_client_options_say_why),
      cmocka_unit_test(test_last_call_wins),
      cmocka_unit_test(test_sampling_request_says_why),
      cmocka_unit_test(test_long_task_tool_list_points_to_the_log),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
