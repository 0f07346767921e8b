/* SPDX-License-Identifier: MIT */
/* dispatch_mutation_test.c - hostile input through the whole dispatch path.
 *
 * Deterministic mutation testing: valid MCP messages are corrupted (bytes
 * flipped, inserted, deleted, truncated, nested deeper, types swapped) with
 * a fixed seed and fed to an initialized in-process server under ASan/UBSan.
 * Every answer must be one valid JSON-RPC response (or nothing, for
 * notification-shaped input), never a crash, leak or invalid JSON. */
#include "testutil.h"

#include <string.h>

static mcp_status echo(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)call, (void)ud;
  const char *s = mcp_arg_string_or(args, "text", "");
  mcp_result_add_text(r, s);
  return mcp_result_set_structured(r, json_pack("{s:s}", "echo", s));
}

static const char *seeds[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
    "\"name\":\"echo\",\"arguments\":{\"text\":\"hi\",\"n\":[1,2,{\"x\":null}]"
    "}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\",\"params\":{"
    "\"cursor\":\"dG9vbHM6MQ==\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"_meta\":{"
    "\"progressToken\":5}}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
    "\"requestId\":1,\"reason\":\"x\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"logging/setLevel\",\"params\":{"
    "\"level\":\"info\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"roots\":[]}}",
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
    "\"name\":\"echo\",\"arguments\":{\"text\":\"x\"},\"_meta\":{"
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint32_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)rng;
}

static const char *fragments[] = {"{",
                                  "}",
                                  "[",
                                  "]",
                                  "\"",
                                  "\\",
                                  ",",
                                  ":",
                                  "null",
                                  "1e999",
                                  "-0",
                                  "\\u0000",
                                  "\\ud800",
                                  "\xff",
                                  "\xc3\x28",
                                  "[[[[[[[[",
                                  "true",
                                  "\"id\":",
                                  "\"method\":\"initialize\""};

static size_t mutate(const char *in, char *out, size_t cap) {
  size_t len = strlen(in);
  memcpy(out, in, len);
  int rounds = 1 + (int)(next_rand() % 4);
  for (int r = 0; r < rounds && len > 0; r++) {
    size_t pos = next_rand() % len;
    switch (next_rand() % 5) {
    case 0: /* flip a byte */
      out[pos] = (char)(next_rand() & 0xff);
      break;
    case 1: /* delete a run */
    {
      size_t n = 1 + next_rand() % 8;
      if (pos + n > len)
        n = len - pos;
      memmove(out + pos, out + pos + n, len - pos - n);
      len -= n;
      break;
    }
    case 2: /* insert a fragment */
    {
      const char *f =
          fragments[next_rand() % (sizeof fragments / sizeof fragments[0])];
      size_t n = strlen(f);
      if (len + n >= cap)
        break;
      memmove(out + pos + n, out + pos, len - pos);
      memcpy(out + pos, f, n);
      len += n;
      break;
    }
    case 3: /* truncate */
      len = pos;
      break;
    default: /* duplicate a run (repeated keys, longer strings) */
    {
      size_t n = 1 + next_rand() % 16;
      if (pos + n > len)
        n = len - pos;
      if (len + n >= cap)
        break;
      memmove(out + pos + n, out + pos, len - pos);
      len += n;
      break;
    }
    }
  }
  out[len] = '\0';
  return len;
}

static void test_mutated_messages_never_break_the_server(void **state) {
  (void)state;
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("mut", "1", &s), MCP_OK);
  mcp_tool_t *t;
  mcp_tool_new("echo", &t);
  mcp_tool_set_input_schema_text(
      t, "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
         "\"maxLength\":64}},\"additionalProperties\":true}");
  mcp_tool_set_handler(t, echo, NULL, NULL);
  assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  char buf[4096];
  int answered = 0, silent = 0;
  for (int i = 0; i < 20000; i++) {
    const char *seed = seeds[next_rand() % (sizeof seeds / sizeof seeds[0])];
    mutate(seed, buf, sizeof buf);
    tu_capture c;
    tu_capture_init(&c);
    tu_send(s, se, &c, buf);
    size_t n = json_array_size(c.messages);
    assert_true(n <= 1);
    if (n == 1) {
      json_t *m = json_array_get(c.messages, 0);
      assert_true(json_is_object(m));
      assert_string_equal(json_string_value(json_object_get(m, "jsonrpc")),
                          "2.0");
      assert_true((json_object_get(m, "result") != NULL) !=
                  (json_object_get(m, "error") != NULL));
      answered++;
    } else
      silent++;
    tu_capture_destroy(&c);
  }
  fprintf(stderr, "mutations: %d answered, %d silent\n", answered, silent);
  assert_true(answered > 10000);
  /* still healthy */
  json_t *r = tu_rpc(s, se,
                     "{\"jsonrpc\":\"2.0\",\"id\":\"ok\",\"method\":"
                     "\"ping\"}");
  assert_non_null(json_object_get(r, "result"));
  json_decref(r);
  mcp__session_release(se);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mutated_messages_never_break_the_server),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
