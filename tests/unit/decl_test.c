/* SPDX-License-Identifier: MIT */
/* decl_test.c - resources, templates and prompts declared from structs
 * (decl.h): what they list and answer, handlers writing printf-style text
 * in messages, failures becoming JSON-RPC errors, and every declaration
 * mistake refused by the registration with a message naming the entry,
 * also in the server log when err is NULL. */
#include "testutil.h"

#include "mcp/decl.h"

#include <string.h>

static json_t *result_of(json_t *r) { return json_object_get(r, "result"); }

/* ---- handlers ------------------------------------------------------------ */
static mcp_status stock_text(mcp_text_request_t *req) {
  const int *stock = mcp_text_user_data(req);
  mcp_status st = mcp_text_printf(req, "%d mugs", stock[0]);
  if (st == MCP_OK)
    st = mcp_text_printf(req, ", %d shirts", stock[1]);
  if (st == MCP_OK) /* a second contents entry */
    st = mcp_text_message(req, MCP_ROLE_USER, "read %s", mcp_text_uri(req));
  return st;
}

static mcp_status item_text(mcp_text_request_t *req) {
  const char *id = mcp_text_arg(req, "id");
  if (strcmp(id, "none") == 0)
    return MCP_ERR_RESOURCE_NOT_FOUND;
  assert_null(mcp_text_arg(req, "absent"));
  assert_true(json_is_object(mcp_text_args(req)));
  assert_non_null(mcp_text_call(req));
  return mcp_text_printf(req, "item %s at %s", id, mcp_text_uri(req));
}

static mcp_status silent_text(mcp_text_request_t *req) {
  (void)req;
  return MCP_OK;
}

static mcp_status help_text(mcp_text_request_t *req) {
  assert_null(mcp_text_uri(req));
  const char *size = mcp_text_arg(req, "size");
  mcp_status st = mcp_text_printf(req, "Help me order %s", mcp_text_arg(req, "item"));
  if (st == MCP_OK && size)
    st = mcp_text_printf(req, " in size %s", size);
  if (st == MCP_OK)
    st = mcp_text_message(req, MCP_ROLE_ASSISTANT, "Which %s?", "colour");
  if (st == MCP_OK)
    st = mcp_text_message(req, (mcp_role)7, "bad role") == MCP_ERR_INVALID_ARG
             ? MCP_OK
             : MCP_ERR_INTERNAL;
  return st;
}

static int stock[2] = {3, 4};

static const mcp_resource_decl terms = {
    .uri = "shop://terms", .name = "terms", .title = "Terms",
    .description = "Delivery and returns",
    .text = "Delivery in 3 working days."};
static const mcp_resource_decl stock_res = {
    .uri = "shop://stock", .name = "stock", .mime_type = "text/markdown",
    .fn = stock_text, .user_data = stock};
static const mcp_resource_decl item_res = {
    .uri_template = "shop://item/{id}", .name = "item",
    .description = "One article", .fn = item_text};
static const mcp_resource_decl silent_res = {
    .uri = "shop://silent", .name = "silent", .fn = silent_text};

static const mcp_prompt_arg_decl help_args[] = {
    {.name = "item", .description = "What to order", .required = true},
    {.name = "size", .description = "Clothing size", .title = "Size"},
    {.name = NULL}};
static const mcp_prompt_decl help = {.name = "order_help",
                                     .description = "Helps to order",
                                     .arguments = help_args,
                                     .fn = help_text};

static int setup(void **state) {
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("decl", "1", &s), MCP_OK);
  mcp_error_t err;
  assert_int_equal(mcp_server_add_resource_decl(s, &terms, &err), MCP_OK);
  assert_int_equal(mcp_server_add_resource_decl(s, &stock_res, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_resource_decl(s, &item_res, &err), MCP_OK);
  assert_int_equal(mcp_server_add_resource_decl(s, &silent_res, &err), MCP_OK);
  assert_int_equal(mcp_server_add_prompt_decl(s, &help, &err), MCP_OK);
  *state = s;
  return 0;
}

static void test_resources(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = tu_request(s, se, "resources/list", NULL);
  json_t *list = json_object_get(result_of(r), "resources");
  assert_int_equal(json_array_size(list), 3);
  json_t *t = json_array_get(list, 0);
  assert_string_equal(json_string_value(json_object_get(t, "uri")),
                      "shop://terms");
  assert_string_equal(json_string_value(json_object_get(t, "title")), "Terms");
  assert_string_equal(json_string_value(json_object_get(t, "description")),
                      "Delivery and returns");
  assert_string_equal(json_string_value(json_object_get(t, "mimeType")),
                      "text/plain");
  json_decref(r);

  r = tu_request(s, se, "resources/read", "{\"uri\":\"shop://terms\"}");
  json_t *c = json_array_get(json_object_get(result_of(r), "contents"), 0);
  assert_string_equal(json_string_value(json_object_get(c, "text")),
                      "Delivery in 3 working days.");
  assert_string_equal(json_string_value(json_object_get(c, "uri")),
                      "shop://terms");
  json_decref(r);

  r = tu_request(s, se, "resources/read", "{\"uri\":\"shop://stock\"}");
  json_t *cs = json_object_get(result_of(r), "contents");
  assert_int_equal(json_array_size(cs), 2);
  c = json_array_get(cs, 0);
  assert_string_equal(json_string_value(json_object_get(c, "text")),
                      "3 mugs, 4 shirts");
  assert_string_equal(json_string_value(json_object_get(c, "mimeType")),
                      "text/markdown");
  assert_string_equal(
      json_string_value(json_object_get(json_array_get(cs, 1), "text")),
      "read shop://stock");
  json_decref(r);

  r = tu_request(s, se, "resources/read", "{\"uri\":\"shop://silent\"}");
  c = json_array_get(json_object_get(result_of(r), "contents"), 0);
  assert_string_equal(json_string_value(json_object_get(c, "text")), "");
  json_decref(r);

  r = tu_request(s, se, "resources/templates/list", NULL);
  t = json_array_get(json_object_get(result_of(r), "resourceTemplates"), 0);
  assert_string_equal(json_string_value(json_object_get(t, "uriTemplate")),
                      "shop://item/{id}");
  json_decref(r);

  r = tu_request(s, se, "resources/read", "{\"uri\":\"shop://item/42\"}");
  c = json_array_get(json_object_get(result_of(r), "contents"), 0);
  assert_string_equal(json_string_value(json_object_get(c, "text")),
                      "item 42 at shop://item/42");
  json_decref(r);
  r = tu_request(s, se, "resources/read", "{\"uri\":\"shop://item/none\"}");
  assert_int_equal(tu_error_code(r), -32002);
  json_decref(r);
  mcp__session_release(se);
}

static void test_prompt(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = tu_request(s, se, "prompts/list", NULL);
  json_t *p = json_array_get(json_object_get(result_of(r), "prompts"), 0);
  assert_string_equal(json_string_value(json_object_get(p, "name")),
                      "order_help");
  json_t *args = json_object_get(p, "arguments");
  assert_int_equal(json_array_size(args), 2);
  assert_string_equal(json_string_value(json_object_get(
                          json_array_get(args, 0), "description")),
                      "What to order");
  assert_true(json_is_true(json_object_get(json_array_get(args, 0), "required")));
  assert_null(json_object_get(json_array_get(args, 1), "required"));
  assert_string_equal(
      json_string_value(json_object_get(json_array_get(args, 1), "title")),
      "Size");
  json_decref(r);

  r = tu_request(s, se, "prompts/get",
                 "{\"name\":\"order_help\",\"arguments\":{\"item\":\"a mug\","
                 "\"size\":\"L\"}}");
  json_t *m = json_object_get(result_of(r), "messages");
  assert_int_equal(json_array_size(m), 2);
  json_t *m0 = json_array_get(m, 0), *m1 = json_array_get(m, 1);
  assert_string_equal(json_string_value(json_object_get(m0, "role")), "user");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(m0, "content"), "text")),
                      "Help me order a mug in size L");
  assert_string_equal(json_string_value(json_object_get(m1, "role")),
                      "assistant");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(m1, "content"), "text")),
                      "Which colour?");
  json_decref(r);

  r = tu_request(s, se, "prompts/get", "{\"name\":\"order_help\"}");
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  mcp__session_release(se);
}

/* ---- mistakes -------------------------------------------------------------
 */
typedef struct log_capture {
  char last[512];
  int count;
} log_capture;

static void on_log(mcp_log_level level, const char *message, void *ud) {
  log_capture *c = ud;
  if (level >= MCP_LOG_ERROR) {
    snprintf(c->last, sizeof c->last, "%s", message);
    c->count++;
  }
}

static void refused_resource(mcp_server_t *s, const mcp_resource_decl *d,
                             mcp_status want, const char *words) {
  mcp_error_t err;
  memset(&err, 0, sizeof err);
  assert_int_equal(mcp_server_add_resource_decl(s, d, &err), want);
  if (strstr(err.message, words) == NULL) {
    fprintf(stderr, "message: %s\nwanted: %s\n", err.message, words);
    fail();
  }
}

static void refused_prompt(mcp_server_t *s, const mcp_prompt_decl *d,
                           mcp_status want, const char *words) {
  mcp_error_t err;
  memset(&err, 0, sizeof err);
  assert_int_equal(mcp_server_add_prompt_decl(s, d, &err), want);
  if (strstr(err.message, words) == NULL) {
    fprintf(stderr, "message: %s\nwanted: %s\n", err.message, words);
    fail();
  }
}

static void test_mistakes_refused(void **state) {
  mcp_server_t *s = *state;
  log_capture log = {{0}, 0};
  mcp_server_set_log_handler(s, on_log, &log);
  static int dummy;
  refused_resource(s, &(mcp_resource_decl){.name = "x", .text = "t"},
                   MCP_ERR_INVALID_ARG,
                   "resource 'x': give exactly one of .uri and .uri_template "
                   "(neither is set)");
  refused_resource(s,
                   &(mcp_resource_decl){.uri = "a:b", .uri_template = "a:{b}",
                                        .name = "x", .text = "t"},
                   MCP_ERR_INVALID_ARG, "(both are set)");
  refused_resource(s, &(mcp_resource_decl){.uri = "shop://n", .text = "t"},
                   MCP_ERR_INVALID_ARG, "resource 'shop://n': .name is required");
  refused_resource(s, &(mcp_resource_decl){.uri = "shop://n", .name = "n"},
                   MCP_ERR_INVALID_ARG,
                   "resource 'shop://n': give exactly one of .text and .fn "
                   "(neither is set)");
  refused_resource(s,
                   &(mcp_resource_decl){.uri = "shop://n", .name = "n",
                                        .text = "t", .fn = silent_text},
                   MCP_ERR_INVALID_ARG, "of .text and .fn (both are set)");
  refused_resource(s,
                   &(mcp_resource_decl){.uri = "shop://{n}", .name = "n",
                                        .text = "t"},
                   MCP_ERR_INVALID_ARG, "declare it as .uri_template");
  refused_resource(s,
                   &(mcp_resource_decl){.uri = "no scheme", .name = "n",
                                        .text = "t"},
                   MCP_ERR_INVALID_ARG,
                   "resource 'no scheme': not an absolute URI");
  refused_resource(s,
                   &(mcp_resource_decl){.uri_template = "shop://{n", .name = "n",
                                        .text = "t"},
                   MCP_ERR_INVALID_ARG,
                   "resource template 'shop://{n': not an RFC 6570");
  refused_resource(s,
                   &(mcp_resource_decl){.uri = "shop://r", .name = "r",
                                        .text = "t", .reserved = {&dummy}},
                   MCP_ERR_INVALID_ARG, ".reserved must be zero");
  refused_resource(s, &terms, MCP_ERR_EXISTS,
                   "resource 'shop://terms': already registered");
  refused_resource(s, &item_res, MCP_ERR_EXISTS,
                   "resource template 'shop://item/{id}': already registered");
  refused_resource(s, NULL, MCP_ERR_INVALID_ARG, "the declaration is NULL");
  assert_int_equal(mcp_server_resource_count(s), 3);
  assert_int_equal(mcp_server_resource_template_count(s), 1);

  refused_prompt(s, &(mcp_prompt_decl){.name = "p"}, MCP_ERR_INVALID_ARG,
                 "prompt 'p': .fn is required");
  refused_prompt(s, &(mcp_prompt_decl){.name = "", .fn = help_text},
                 MCP_ERR_INVALID_ARG, "prompt '': a name is 1-128");
  refused_prompt(s,
                 &(mcp_prompt_decl){
                     .name = "twice",
                     .arguments = (const mcp_prompt_arg_decl[]){
                         {.name = "a"}, {.name = "a"}, {.name = NULL}},
                     .fn = help_text},
                 MCP_ERR_INVALID_ARG,
                 "prompt 'twice', argument 'a': declared twice");
  refused_prompt(s,
                 &(mcp_prompt_decl){
                     .name = "empty",
                     .arguments = (const mcp_prompt_arg_decl[]){
                         {.name = ""}, {.name = NULL}},
                     .fn = help_text},
                 MCP_ERR_INVALID_ARG, "prompt 'empty', argument ''");
  refused_prompt(s, &help, MCP_ERR_EXISTS,
                 "prompt 'order_help': already registered");
  assert_int_equal(mcp_server_prompt_count(s), 1);

  /* a NULL err is not silent: the server log says the same */
  int before = log.count;
  assert_int_equal(
      mcp_server_add_prompt_decl(s, &(mcp_prompt_decl){.name = "q"}, NULL),
      MCP_ERR_INVALID_ARG);
  assert_int_equal(log.count, before + 1);
  assert_non_null(strstr(log.last, "prompt 'q': .fn is required"));
  mcp_server_set_log_handler(s, NULL, NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resources),
      cmocka_unit_test(test_prompt),
      cmocka_unit_test(test_mistakes_refused),
  };
  return cmocka_run_group_tests(tests, setup, tu_free_server);
}
