/* SPDX-License-Identifier: MIT */
/* tools_test.c - tool definitions, the exact JSON of every content type,
 * typed argument getters and pagination cursors. */
#include "testutil.h"

#include <string.h>

#include "core/cursor.h"
#include "tools/result_internal.h"

static void assert_json_eq(json_t *got, const char *want_text) {
  json_t *want = json_loads(want_text, JSON_DECODE_ANY, NULL);
  assert_non_null(want);
  if (!json_equal(got, want)) {
    char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    char *w = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    fprintf(stderr, "got:  %s\nwant: %s\n", g, w);
    free(g);
    free(w);
    fail();
  }
  json_decref(want);
}

static void test_tool_names_follow_the_spec(void **state) {
  (void)state;
  assert_true(mcp_tool_name_is_valid("getUser"));
  assert_true(mcp_tool_name_is_valid("DATA_EXPORT_v2"));
  assert_true(mcp_tool_name_is_valid("admin.tools.list"));
  assert_true(mcp_tool_name_is_valid("a-b"));
  assert_false(mcp_tool_name_is_valid(""));
  assert_false(mcp_tool_name_is_valid("has space"));
  assert_false(mcp_tool_name_is_valid("comma,name"));
  assert_false(mcp_tool_name_is_valid("slash/name"));
  char long_name[130];
  memset(long_name, 'a', 128);
  long_name[128] = '\0';
  assert_true(mcp_tool_name_is_valid(long_name));
  long_name[128] = 'a';
  long_name[129] = '\0';
  assert_false(mcp_tool_name_is_valid(long_name));
  mcp_tool_t *t = (mcp_tool_t *)1;
  assert_int_equal(mcp_tool_new("bad name", &t), MCP_ERR_INVALID_ARG);
  assert_null(t);
}

static void test_tool_json_emits_explicit_false_hints(void **state) {
  (void)state;
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new("calc", &t), MCP_OK);
  assert_int_equal(mcp_tool_set_title(t, "Calculator"), MCP_OK);
  assert_int_equal(mcp_tool_set_description(t, "Adds"), MCP_OK);
  assert_int_equal(mcp_tool_set_annotation_title(t, "Calc"), MCP_OK);
  assert_int_equal(mcp_tool_set_hint(t, MCP_HINT_DESTRUCTIVE, false), MCP_OK);
  assert_int_equal(mcp_tool_set_hint(t, MCP_HINT_OPEN_WORLD, false), MCP_OK);
  assert_int_equal(mcp_tool_set_hint(t, MCP_HINT_READ_ONLY, true), MCP_OK);
  assert_int_equal(mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL), MCP_OK);
  assert_int_equal(mcp_tool_add_icon(t, "https://x.example/i.png", "image/png",
                                     "48x48 96x96", "dark"),
                   MCP_OK);
  assert_int_equal(
      mcp_tool_add_icon(t, "http://insecure/i.png", NULL, NULL, NULL),
      MCP_ERR_INVALID_ARG);
  assert_int_equal(
      mcp_tool_add_icon(t, "javascript:alert(1)", NULL, NULL, NULL),
      MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_tool_set_meta(t, json_pack("{s:i}", "com.example/x", 1)),
                   MCP_OK);
  json_t *j = mcp_tool_to_json(t);
  assert_json_eq(j,
                 "{\"name\":\"calc\",\"title\":\"Calculator\",\"description\":"
                 "\"Adds\",\"inputSchema\":{\"type\":\"object\"},"
                 "\"annotations\":{\"title\":\"Calc\",\"readOnlyHint\":true,"
                 "\"destructiveHint\":false,\"openWorldHint\":false},"
                 "\"execution\":{\"taskSupport\":\"optional\"},"
                 "\"icons\":[{\"src\":\"https://x.example/i.png\",\"mimeType\":"
                 "\"image/png\",\"sizes\":[\"48x48\",\"96x96\"],\"theme\":"
                 "\"dark\"}],\"_meta\":{\"com.example/x\":1}}");
  json_decref(j);
  mcp_tool_free(t);
}

static void
test_schemas_must_be_object_schemas_and_are_kept_verbatim(void **s) {
  (void)s;
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new("x", &t), MCP_OK);
  assert_int_equal(mcp_tool_set_input_schema_text(t, "{\"type\":\"string\"}"),
                   MCP_ERR_SCHEMA);
  assert_int_equal(mcp_tool_set_input_schema_text(t, "{nope"), MCP_ERR_PARSE);
  assert_int_equal(mcp_tool_set_input_schema(t, NULL), MCP_ERR_NOMEM);
  const char *rich =
      "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
      "\"type\":\"object\",\"$defs\":{\"n\":{\"type\":\"integer\"}},"
      "\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"}},\"allOf\":[{}],"
      "\"if\":{},\"then\":{},\"additionalProperties\":false}";
  assert_int_equal(mcp_tool_set_input_schema_text(t, rich), MCP_OK);
  json_t *j = mcp_tool_to_json(t);
  assert_json_eq(json_object_get(j, "inputSchema"), rich);
  json_decref(j);
  mcp_tool_free(t);
}

static mcp_status noop_tool(mcp_call_t *call, json_t *args,
                            mcp_result_t *result, void *user_data) {
  (void)call, (void)args, (void)result, (void)user_data;
  return MCP_OK;
}

static void keep_log(mcp_log_level level, const char *message, void *ud) {
  (void)level;
  snprintf(ud, 512, "%s", message);
}

/* Adds a tool named x whose input (or output) schema was set from text;
 * returns mcp_server_add_tool's status with err and the last log line. */
static mcp_status add_with_schema_text(bool output, const char *text,
                                       mcp_status set_status, mcp_error_t *err,
                                       char *logged) {
  mcp_server_t *srv;
  assert_int_equal(mcp_server_new("schema-faults", "1", &srv), MCP_OK);
  mcp_server_set_log_handler(srv, keep_log, logged);
  logged[0] = '\0';
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new("x", &t), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, noop_tool, NULL, NULL), MCP_OK);
  assert_int_equal(output ? mcp_tool_set_output_schema_text(t, text)
                          : mcp_tool_set_input_schema_text(t, text),
                   set_status);
  memset(err, 0, sizeof *err);
  mcp_status st = mcp_server_add_tool(srv, t, err);
  assert_int_equal(mcp_server_tool_count(srv), st == MCP_OK ? 1 : 0);
  mcp_server_free(srv);
  return st;
}

/* A schema setter's failure is not lost when nobody checks its status:
 * mcp_server_add_tool refuses the tool with the reason (and for text that
 * is not JSON, its line and column), in err and in the log. */
static void test_failed_schema_setter_refuses_the_tool(void **s) {
  (void)s;
  mcp_error_t err;
  char logged[512];
  assert_int_equal(
      add_with_schema_text(false,
                           "{\"type\": \"object\",\n"
                           " \"properties\": {\"a\": {\"type\": \"string\"},}}",
                           MCP_ERR_PARSE, &err, logged),
      MCP_ERR_SCHEMA);
  assert_non_null(
      strstr(err.message, "tool 'x': inputSchema is not JSON: line 2, column"));
  assert_string_equal(err.pointer, "/inputSchema");
  assert_non_null(strstr(logged, "tool 'x' not added: inputSchema is not JSON"));

  assert_int_equal(add_with_schema_text(false, "[{\"type\": \"object\"}]",
                                        MCP_ERR_SCHEMA, &err, logged),
                   MCP_ERR_SCHEMA);
  assert_non_null(strstr(err.message, "inputSchema: the root must be an object "
                                      "schema with \"type\": \"object\" (it "
                                      "is an array)"));

  assert_int_equal(add_with_schema_text(true, "{\"type\": \"string\"}",
                                        MCP_ERR_SCHEMA, &err, logged),
                   MCP_ERR_SCHEMA);
  assert_non_null(strstr(err.message, "outputSchema: the root must be an "
                                      "object schema"));
  assert_string_equal(err.pointer, "/outputSchema");
  assert_non_null(strstr(logged, "outputSchema"));

  /* err NULL: the log still says why */
  mcp_server_t *srv;
  assert_int_equal(mcp_server_new("schema-faults", "1", &srv), MCP_OK);
  mcp_server_set_log_handler(srv, keep_log, logged);
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new("y", &t), MCP_OK);
  mcp_tool_set_handler(t, noop_tool, NULL, NULL);
  mcp_tool_set_input_schema(t, json_loads("{nope", 0, NULL)); /* NULL */
  assert_int_equal(mcp_server_add_tool(srv, t, NULL), MCP_ERR_SCHEMA);
  assert_non_null(strstr(logged, "tool 'y' not added: inputSchema: no schema"));

  /* a later successful set of the same side clears the failure */
  assert_int_equal(mcp_tool_new("z", &t), MCP_OK);
  mcp_tool_set_handler(t, noop_tool, NULL, NULL);
  assert_int_equal(mcp_tool_set_input_schema_text(t, "{"), MCP_ERR_PARSE);
  assert_int_equal(mcp_tool_set_output_schema_text(t, "1"), MCP_ERR_SCHEMA);
  assert_int_equal(mcp_tool_set_input_schema_text(t, "{\"type\":\"object\"}"),
                   MCP_OK);
  assert_int_equal(mcp_tool_set_output_schema(t, json_pack("{s:s}", "type",
                                                           "object")),
                   MCP_OK);
  assert_int_equal(mcp_server_add_tool(srv, t, NULL), MCP_OK);
  mcp_server_free(srv);
}

/* The result exactly as the server sends it (mcp__result_encode, which
 * adds the structuredContent text mirror). */
static json_t *result_json(mcp_result_t *r) {
  mcp__buf text;
  mcp__buf_init(&text);
  assert_true(mcp__result_encode(r, &text));
  json_t *j = json_loadb(text.data, text.len, 0, NULL);
  assert_non_null(j);
  mcp__buf_free(&text);
  return j;
}

static void test_every_content_type_has_exact_fields(void **state) {
  (void)state;
  mcp_result_t *r;
  assert_int_equal(mcp_result_new(&r), MCP_OK);
  mcp_content_t *c = mcp_result_add_text(r, "hello");
  assert_int_equal(mcp_content_set_audience(c, MCP_AUDIENCE_ASSISTANT), MCP_OK);
  assert_int_equal(mcp_content_set_priority(c, 0.5), MCP_OK);
  assert_int_equal(mcp_content_set_last_modified(c, "2025-01-12T15:00:58Z"),
                   MCP_OK);
  assert_int_equal(mcp_content_set_priority(c, 1.5), MCP_ERR_INVALID_ARG);
  assert_non_null(mcp_result_add_image(r, "iVBORw0KGgo=", "image/png"));
  assert_null(mcp_result_add_image(r, "not base64!", "image/png"));
  assert_non_null(mcp_result_add_audio_bytes(r, "RIFF", 4, "audio/wav"));
  c = mcp_result_add_resource_link(r, "file:///a.txt", "a");
  assert_int_equal(mcp_content_set_title(c, "A"), MCP_OK);
  assert_int_equal(mcp_content_set_description(c, "the a"), MCP_OK);
  assert_int_equal(mcp_content_set_mime_type(c, "text/plain"), MCP_OK);
  assert_int_equal(mcp_content_set_size(c, 1024), MCP_OK);
  assert_int_equal(
      mcp_content_add_icon(c, "data:image/png;base64,AA==", NULL, NULL, NULL),
      MCP_OK);
  assert_non_null(
      mcp_result_add_text_resource(r, "test://t", "body", "text/plain"));
  assert_non_null(
      mcp_result_add_blob_resource(r, "test://b", "\x01\x02\x03", 3, NULL));
  /* title on a text block is not a thing */
  assert_int_equal(mcp_content_set_title(mcp_result_add_text(r, "x"), "t"),
                   MCP_ERR_INVALID_ARG);
  json_t *j = result_json(r);
  assert_json_eq(
      j,
      "{\"content\":["
      "{\"type\":\"text\",\"text\":\"hello\",\"annotations\":{\"audience\":"
      "[\"assistant\"],\"priority\":0.5,\"lastModified\":"
      "\"2025-01-12T15:00:58Z\"}},"
      "{\"type\":\"image\",\"data\":\"iVBORw0KGgo=\",\"mimeType\":\"image/"
      "png\"},"
      "{\"type\":\"audio\",\"data\":\"UklGRg==\",\"mimeType\":\"audio/wav\"},"
      "{\"type\":\"resource_link\",\"uri\":\"file:///a.txt\",\"name\":\"a\","
      "\"title\":\"A\",\"description\":\"the a\",\"mimeType\":\"text/plain\","
      "\"size\":1024,\"icons\":[{\"src\":\"data:image/png;base64,AA==\"}]},"
      "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://t\",\"mimeType\":"
      "\"text/plain\",\"text\":\"body\"}},"
      "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://b\",\"blob\":"
      "\"AQID\"}},"
      "{\"type\":\"text\",\"text\":\"x\"}]}");
  json_decref(j);
  mcp_result_free(r);
}

static void
test_structured_content_gets_a_text_mirror_unless_text_given(void **state) {
  (void)state;
  mcp_result_t *r;
  assert_int_equal(mcp_result_new(&r), MCP_OK);
  assert_int_equal(mcp_result_set_structured(r, json_pack("{s:i}", "sum", 3)),
                   MCP_OK);
  json_t *j = result_json(r);
  assert_json_eq(
      j, "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"sum\\\":3}\"}],"
         "\"structuredContent\":{\"sum\":3}}");
  json_decref(j);
  mcp_result_free(r);

  assert_int_equal(mcp_result_new(&r), MCP_OK);
  mcp_result_add_text(r, "three");
  mcp_result_set_structured(r, json_pack("{s:i}", "sum", 3));
  j = result_json(r);
  assert_json_eq(j, "{\"content\":[{\"type\":\"text\",\"text\":\"three\"}],"
                    "\"structuredContent\":{\"sum\":3}}");
  json_decref(j);
  /* structuredContent must be an object; the value is still released */
  assert_int_equal(mcp_result_set_structured(r, json_integer(3)),
                   MCP_ERR_INVALID_ARG);
  mcp_result_free(r);
}

static void test_error_results_set_is_error(void **state) {
  (void)state;
  mcp_result_t *r;
  assert_int_equal(mcp_result_new(&r), MCP_OK);
  assert_int_equal(mcp_result_set_error(r, "bad %s", "input"), MCP_OK);
  assert_true(mcp_result_is_error(r));
  json_t *j = result_json(r);
  assert_json_eq(j, "{\"content\":[{\"type\":\"text\",\"text\":\"bad input\"}],"
                    "\"isError\":true}");
  json_decref(j);
  mcp_result_free(r);
}

static void test_typed_getters_distinguish_missing_null_and_type(void **s) {
  (void)s;
  json_t *args = json_loads(
      "{\"s\":\"x\",\"i\":7,\"r\":2.0,\"f\":2.5,\"b\":false,\"n\":null,"
      "\"o\":{},\"a\":[],\"big\":1e300}",
      0, NULL);
  const char *str;
  int64_t i;
  double d;
  bool b;
  json_t *v;
  assert_int_equal(mcp_arg_string(args, "s", &str), MCP_OK);
  assert_string_equal(str, "x");
  assert_int_equal(mcp_arg_string(args, "zz", &str), MCP_ERR_ARG_MISSING);
  assert_int_equal(mcp_arg_string(args, "n", &str), MCP_ERR_ARG_NULL);
  assert_int_equal(mcp_arg_string(args, "i", &str), MCP_ERR_ARG_TYPE);
  assert_int_equal(mcp_arg_integer(args, "i", &i), MCP_OK);
  assert_int_equal(i, 7);
  assert_int_equal(mcp_arg_integer(args, "r", &i),
                   MCP_OK); /* 2.0 is integral */
  assert_int_equal(i, 2);
  assert_int_equal(mcp_arg_integer(args, "f", &i), MCP_ERR_ARG_TYPE);
  assert_int_equal(mcp_arg_integer(args, "big", &i), MCP_ERR_ARG_TYPE);
  assert_int_equal(mcp_arg_number(args, "i", &d), MCP_OK);
  assert_true(d == 7.0);
  assert_int_equal(mcp_arg_boolean(args, "b", &b), MCP_OK);
  assert_false(b);
  assert_int_equal(mcp_arg_object(args, "o", &v), MCP_OK);
  assert_int_equal(mcp_arg_array(args, "a", &v), MCP_OK);
  assert_int_equal(mcp_arg_array(args, "o", &v), MCP_ERR_ARG_TYPE);
  assert_string_equal(mcp_arg_string_or(args, "n", "dflt"), "dflt");
  json_decref(args);
}

/* Issue #16 item 12: a C string cannot carry U+0000; the C-string getters
 * refuse such a value instead of handing over the prefix, and the
 * length-aware getter gives all of it. */
static void test_string_getters_and_nul(void **s) {
  (void)s;
  json_t *args = json_loads("{\"id\":\"a\\u0000b\",\"x\":\"xy\",\"i\":1}",
                            JSON_ALLOW_NUL, NULL);
  assert_non_null(args);
  const char *str = NULL;
  size_t len = 0;
  assert_int_equal(mcp_arg_string(args, "id", &str), MCP_ERR_ARG_TYPE);
  assert_string_equal(mcp_arg_string_or(args, "id", "dflt"), "dflt");
  assert_int_equal(mcp_arg_string_len(args, "id", &str, &len), MCP_OK);
  assert_int_equal(len, 3);
  assert_memory_equal(str, "a\0b", 3);
  assert_int_equal(mcp_arg_string_len(args, "x", &str, &len), MCP_OK);
  assert_int_equal(len, 2);
  assert_string_equal(str, "xy"); /* still NUL-terminated */
  assert_int_equal(mcp_arg_string_len(args, "i", &str, &len), MCP_ERR_ARG_TYPE);
  assert_int_equal(mcp_arg_string_len(args, "zz", &str, &len),
                   MCP_ERR_ARG_MISSING);
  assert_int_equal(mcp_arg_string_len(args, "x", NULL, NULL), MCP_OK);
  json_decref(args);
  /* integral but beyond int64, as a big integer literal arrives */
  args = json_pack("{s:f,s:f}", "big", 18446744073709551615.0, "edge",
                   -9223372036854775808.0);
  int64_t i;
  assert_int_equal(mcp_arg_integer(args, "big", &i), MCP_ERR_ARG_TYPE);
  assert_int_equal(mcp_arg_integer(args, "edge", &i), MCP_OK);
  assert_true(i == INT64_MIN);
  json_decref(args);
}

static void test_cursors_round_trip_and_reject_forgeries(void **state) {
  (void)state;
  json_t *c = mcp__cursor_encode("tools", 42);
  uint64_t seq;
  assert_true(mcp__cursor_decode("tools", c, &seq));
  assert_int_equal(seq, 42);
  assert_false(mcp__cursor_decode("prompts", c, &seq));
  json_decref(c);
  assert_true(mcp__cursor_decode("tools", NULL, &seq));
  assert_int_equal(seq, 0);
  json_t *bad[] = {
      json_string("garbage!"),     json_string(""), json_integer(3),
      json_string("dG9vbHM6"),      /* "tools:" */
      json_string("dG9vbHM6eA=="),  /* "tools:x" */
      json_string("dG9vbHM6MA==")}; /* "tools:0" */
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    assert_false(mcp__cursor_decode("tools", bad[k], &seq));
    json_decref(bad[k]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tool_names_follow_the_spec),
      cmocka_unit_test(test_tool_json_emits_explicit_false_hints),
      cmocka_unit_test(
          test_schemas_must_be_object_schemas_and_are_kept_verbatim),
      cmocka_unit_test(test_failed_schema_setter_refuses_the_tool),
      cmocka_unit_test(test_every_content_type_has_exact_fields),
      cmocka_unit_test(
          test_structured_content_gets_a_text_mirror_unless_text_given),
      cmocka_unit_test(test_error_results_set_is_error),
      cmocka_unit_test(test_typed_getters_distinguish_missing_null_and_type),
      cmocka_unit_test(test_string_getters_and_nul),
      cmocka_unit_test(test_cursors_round_trip_and_reject_forgeries),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
