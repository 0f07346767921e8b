/* SPDX-License-Identifier: MIT */
/* tape_args_test.c - requests whose params stay a tape (the server's
 * decoder, src/jsonrpc/decode.c): a declared tool reads its arguments from
 * the tape with the getters' rules and the params are never built; anybody
 * asking for them (mcp_call_params) gets them built once, also from two
 * threads at a time; the task hook, progress tokens and argument errors
 * still see what they saw when every request was built in jansson. */
#include "testutil.h"

#include <pthread.h>
#include <string.h>

#include "core/feature.h"
#include "core/sessions.h"
#include "mcp/tool_decl.h"

typedef struct scalars {
  const char *s;
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  double d;
  float f;
  bool b;
} scalars;

static const mcp_field scalar_args[] = {
    MCP_STRING(scalars, s, "Text", .default_value = MCP_DEFAULT_STRING("dflt")),
    MCP_INTEGER(scalars, i8, NULL, .optional = true),
    MCP_INTEGER(scalars, i16, NULL, .default_value = MCP_DEFAULT(-7)),
    MCP_INTEGER(scalars, i32, NULL, .optional = true),
    MCP_INTEGER(scalars, i64, NULL, .optional = true),
    MCP_NUMBER(scalars, d, NULL, .default_value = MCP_DEFAULT(2.5)),
    MCP_NUMBER(scalars, f, NULL, .optional = true),
    MCP_BOOLEAN(scalars, b, NULL, .default_value = MCP_DEFAULT(true)),
    MCP_FIELDS_END};

/* Whether the last run of describe saw the params built. */
static bool built_in_handler;

/* Prints every member, so that a test sees exactly what was filled. */
MCP_TOOL_CALL_HANDLER(describe, scalars, void) {
  built_in_handler = mcp__call_params_built(call);
  return mcp_result_add_textf(
             result, "s=%s i8=%d i16=%d i32=%d i64=%lld d=%g f=%g b=%d",
             in->s ? in->s : "(null)", in->i8, in->i16, in->i32,
             (long long)in->i64, in->d, (double)in->f, in->b)
             ? MCP_OK
             : MCP_ERR_NOMEM;
}

typedef struct sum_out {
  int64_t sum;
} sum_out;
static const mcp_field sum_result[] = {MCP_INTEGER(sum_out, sum, NULL),
                                       MCP_FIELDS_END};

/* Reads its arguments itself from mcp_call_params: built on demand. */
MCP_TOOL_CALL_HANDLER(sum_from_params, void, sum_out) {
  json_t *args = json_object_get(mcp_call_params(call), "arguments");
  out->sum = json_integer_value(json_object_get(args, "a")) +
             json_integer_value(json_object_get(args, "b"));
  return MCP_OK;
}

/* Tells what the call knows of the client (2026-07-28: from _meta). */
MCP_TOOL_CALL_HANDLER(who, void, void) {
  built_in_handler = mcp__call_params_built(call);
  json_t *info = mcp_call_client_info(call);
  /* asked before the capabilities are built (2026-07-28: read on the
   * tape), then built, once */
  int has = mcp_call_client_has(call, "elicitation");
  json_t *caps = mcp_call_client_capabilities(call);
  if (caps != mcp_call_client_capabilities(call) ||
      has != (json_object_get(caps, "elicitation") != NULL) ||
      info != mcp_call_client_info(call))
    return MCP_ERR_INVALID;
  return mcp_result_add_textf(
             result, "%s %s %d",
             info ? json_string_value(json_object_get(info, "name")) : "-",
             mcp_call_protocol_version(call), has)
             ? MCP_OK
             : MCP_ERR_NOMEM;
}

static mcp_server_t *server(void) {
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("tape", "1.0", &s), MCP_OK);
  mcp_error_t err;
  assert_int_equal(
      mcp_server_add_tool_decl(s,
                               &(mcp_tool_decl){.name = "describe",
                                                .input = scalar_args,
                                                .call_fn = describe},
                               &err),
      MCP_OK);
  assert_int_equal(
      mcp_server_add_tool_decl(s,
                               &(mcp_tool_decl){.name = "sum",
                                                .output = sum_result,
                                                .call_fn = sum_from_params},
                               &err),
      MCP_OK);
  assert_int_equal(
      mcp_server_add_tool_decl(
          s, &(mcp_tool_decl){.name = "who", .call_fn = who}, &err),
      MCP_OK);
  return s;
}

/* tools/call of name with params members extra (text after "name"). */
static json_t *call(mcp_server_t *s, const char *name, const char *rest) {
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  char params[1024];
  snprintf(params, sizeof params, "{\"name\":\"%s\"%s%s}", name,
           rest ? "," : "", rest ? rest : "");
  json_t *r = tu_request(s, se, "tools/call", params);
  mcp__session_release(se);
  assert_non_null(r);
  return r;
}

static const char *text_of(json_t *r) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(json_object_get(r, "result"), "content"),
                     0),
      "text"));
}

static bool is_error(json_t *r) {
  return json_is_true(json_object_get(json_object_get(r, "result"), "isError"));
}

static void expect_text(mcp_server_t *s, const char *rest, const char *want) {
  json_t *r = call(s, "describe", rest);
  const char *got = text_of(r);
  if (got == NULL || strcmp(got, want) != 0) {
    char *t = json_dumps(r, JSON_COMPACT);
    fprintf(stderr, "params %s\n got: %s\nwant: %s\n", rest, t, want);
    free(t);
    fail();
  }
  assert_false(is_error(r));
  assert_false(built_in_handler); /* read from the tape, params unbuilt */
  json_decref(r);
}

static void test_arguments_filled_from_the_tape(void **state) {
  (void)state;
  mcp_server_t *s = server();
  expect_text(s,
              "\"arguments\":{\"s\":\"xyz\",\"i8\":-5,\"i16\":300,"
              "\"i32\":70000,\"i64\":9007199254740993,\"d\":-1.25,"
              "\"f\":0.5,\"b\":false}",
              "s=xyz i8=-5 i16=300 i32=70000 i64=9007199254740993 d=-1.25 "
              "f=0.5 b=0");
  /* no arguments, null arguments, no members: the defaults */
  const char *dflt = "s=dflt i8=0 i16=-7 i32=0 i64=0 d=2.5 f=0 b=1";
  expect_text(s, NULL, dflt);
  expect_text(s, "\"arguments\":null", dflt);
  expect_text(s, "\"arguments\":{}", dflt);
  /* escapes decoded, the last of duplicate keys, integral reals as
   * integers, integers as numbers */
  expect_text(s,
              "\"arguments\":{\"s\":\"x\",\"s\":\"a\\u00e9\\\"b\",\"i64\":3.0,"
              "\"i8\":-1e2,\"d\":7}",
              "s=a\xc3\xa9\"b i8=-100 i16=-7 i32=0 i64=3 d=7 f=0 b=1");
  /* members before and after the arguments, _meta with a progress token
   * included: only _meta is built */
  expect_text(s,
              "\"_meta\":{\"progressToken\":5},\"arguments\":{\"i32\":1},"
              "\"other\":[1]",
              "s=dflt i8=0 i16=-7 i32=1 i64=0 d=2.5 f=0 b=1");
  /* a 2026-07-28 request: its era facts come from _meta alone */
  json_t *r = tu_modern_request(
      s, "tools/call", "{\"name\":\"describe\",\"arguments\":{\"i8\":4}}",
      NULL);
  assert_string_equal(text_of(r),
                      "s=dflt i8=4 i16=-7 i32=0 i64=0 d=2.5 f=0 b=1");
  assert_false(built_in_handler);
  json_decref(r);
  mcp_server_free(s);
}

static void test_faults_and_violations(void **state) {
  (void)state;
  mcp_server_t *s = server();
  /* U+0000 cannot be in a C string; 1e19 is an integer beyond int64 */
  json_t *r = call(s, "describe", "\"arguments\":{\"s\":\"a\\u0000b\"}");
  assert_true(is_error(r));
  assert_non_null(strstr(text_of(r), "Invalid argument 's'"));
  json_decref(r);
  r = call(s, "describe", "\"arguments\":{\"i64\":1e19}");
  assert_true(is_error(r));
  assert_non_null(strstr(text_of(r), "Invalid argument 'i64'"));
  json_decref(r);
  /* a schema violation names every one (the general path explains) */
  r = call(s, "describe", "\"arguments\":{\"i8\":\"x\",\"b\":3}");
  assert_true(is_error(r));
  assert_non_null(strstr(text_of(r), "Invalid arguments for tool 'describe'"));
  assert_non_null(strstr(text_of(r), "/i8"));
  assert_non_null(strstr(text_of(r), "/b"));
  json_decref(r);
  /* protocol errors as before */
  r = call(s, "describe", "\"arguments\":[1]");
  assert_int_equal(tu_error_code(r), -32602);
  json_decref(r);
  r = call(s, "nope", NULL);
  assert_int_equal(tu_error_code(r), -32602);
  assert_non_null(strstr(json_string_value(json_object_get(
                             json_object_get(r, "error"), "message")),
                         "Unknown tool: nope"));
  json_decref(r);
  mcp_server_free(s);
}

static void test_params_built_on_demand(void **state) {
  (void)state;
  mcp_server_t *s = server();
  json_t *r = call(s, "sum", "\"arguments\":{\"a\":40,\"b\":2}");
  json_t *sc =
      json_object_get(json_object_get(r, "result"), "structuredContent");
  assert_int_equal(json_integer_value(json_object_get(sc, "sum")), 42);
  json_decref(r);
  mcp_server_free(s);
}

static void *params_of(void *call) {
  return mcp_call_params(call);
}

/* Two threads asking at once get the same params (one build wins). */
static void test_params_built_once(void **state) {
  (void)state;
  mcp_server_t *s = server();
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  tu_capture c;
  tu_capture_init(&c);
  const char *text =
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
      "{\"name\":\"sum\",\"arguments\":{\"a\":1,\"b\":2},\"k\":\"v\"}}";
  for (int round = 0; round < 20; round++) {
    mcp_call_t *cl = NULL;
    assert_int_equal(mcp__server_accept(s, se, NULL, text, strlen(text),
                                        tu_capture_channel(&c), &cl),
                     MCP__ACCEPT_REQUEST);
    assert_non_null(mcp__call_params_tape(cl));
    assert_false(mcp__call_params_built(cl));
    assert_null(mcp__call_param(cl, "absent")); /* builds nothing */
    assert_false(mcp__call_params_built(cl));
    pthread_t t1, t2;
    void *p1, *p2;
    pthread_create(&t1, NULL, params_of, cl);
    pthread_create(&t2, NULL, params_of, cl);
    pthread_join(t1, &p1);
    pthread_join(t2, &p2);
    assert_ptr_equal(p1, p2);
    assert_ptr_equal(p1, mcp_call_params(cl));
    assert_string_equal(json_string_value(json_object_get(p1, "k")), "v");
    assert_ptr_equal(mcp__call_param(cl, "k"), json_object_get(p1, "k"));
    mcp__call_run(cl); /* answers and frees */
  }
  assert_int_equal(json_array_size(c.messages), 20);
  tu_capture_destroy(&c);
  mcp__session_release(se);
  mcp_server_free(s);
}

/* A 2026-07-28 request's era facts read from _meta on the tape: the same
 * binding and the same errors as from jansson values. */
static json_t *modern(mcp_server_t *s, const char *meta) {
  char text[1024];
  snprintf(text, sizeof text,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
           "\"params\":{\"name\":\"who\",\"_meta\":{%s}}}",
           meta);
  return tu_rpc(s, NULL, text);
}

#define V "\"io.modelcontextprotocol/protocolVersion\""
#define C "\"io.modelcontextprotocol/clientCapabilities\""
#define I "\"io.modelcontextprotocol/clientInfo\""
#define L "\"io.modelcontextprotocol/logLevel\""

static void test_modern_era_from_the_tape(void **state) {
  (void)state;
  mcp_server_t *s = server();
  json_t *r =
      modern(s, V ":\"2026-07-28\"," C ":{\"elicitation\":{}}," I
                  ":{\"name\":\"cli\",\"version\":\"1\"}," L ":\"info\"");
  assert_string_equal(text_of(r), "cli 2026-07-28 1");
  assert_false(built_in_handler);
  json_decref(r);
  r = modern(s, V ":\"2026-07-28\"," C ":{}");
  assert_string_equal(text_of(r), "- 2026-07-28 0");
  json_decref(r);
  /* errors: the general path's codes */
  r = modern(s, V ":\"2026-07-28\"," C ":{}," L ":\"loud\"");
  assert_int_equal(tu_error_code(r), -32602);
  json_decref(r);
  r = modern(s, V ":\"2026-07-28\"," C ":[]");
  assert_int_equal(tu_error_code(r), -32602);
  json_decref(r);
  r = modern(s, V ":7," C ":{}");
  assert_int_equal(tu_error_code(r), -32602);
  json_decref(r);
  /* a key jansson cannot hold (U+0000) in the capabilities or the info:
   * the request is refused before it is bound, as when they were built at
   * once */
  r = modern(s, V ":\"2026-07-28\"," C ":{\"a\\u0000b\":{}}");
  assert_int_equal(tu_error_code(r), -32600);
  json_decref(r);
  r = modern(s, V ":\"2026-07-28\"," C ":{}," I ":{\"n\":{\"x\\u0000\":1}}");
  assert_int_equal(tu_error_code(r), -32600);
  json_decref(r);
  /* info that is no object is none; capabilities nested deeper are read */
  r = modern(s, V ":\"2026-07-28\"," C ":{\"roots\":{\"listChanged\":true},"
                  "\"elicitation\":{\"form\":{}}}," I ":\"cli\"");
  assert_string_equal(text_of(r), "- 2026-07-28 1");
  json_decref(r);
  /* a version too long for the tape path's buffer: the general path */
  r = modern(s, V ":\"2026-07-28-and-a-very-long-suffix-that-no-server-"
                  "knows-of-at-all-xxxxxxxxxxxxxxxx\"," C ":{}");
  assert_int_equal(tu_error_code(r), -32022);
  char *e = json_dumps(json_object_get(r, "error"), 0);
  assert_non_null(strstr(e, "very-long-suffix"));
  free(e);
  json_decref(r);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arguments_filled_from_the_tape),
      cmocka_unit_test(test_faults_and_violations),
      cmocka_unit_test(test_params_built_on_demand),
      cmocka_unit_test(test_params_built_once),
      cmocka_unit_test(test_modern_era_from_the_tape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
