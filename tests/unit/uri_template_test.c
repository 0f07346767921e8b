/* SPDX-License-Identifier: MIT */
/* uri_template_test.c - RFC 6570 templates read backwards: parsing, each
 * operator, explode and prefix modifiers, percent-decoding, edge cases and
 * a hostile input that must stay cheap. */
#include "testutil.h"

#include <string.h>

#include "resources/uri_template.h"

typedef struct tcase {
  const char *tpl, *uri, *vars; /* vars: expected JSON, NULL = no match */
} tcase;

static const tcase cases[] = {
    /* level 1 */
    {"test://template/{id}/data", "test://template/123/data",
     "{\"id\":\"123\"}"},
    {"test://template/{id}/data", "test://template//data", NULL},
    {"test://template/{id}/data", "test://template/1/2/data", NULL},
    {"test://template/{id}/data", "test://template/123/datax", NULL},
    {"x://{a}", "x://hello%20world", "{\"a\":\"hello world\"}"},
    {"x://{a}", "x://caf%C3%A9", "{\"a\":\"caf\\u00e9\"}"},
    {"x://{a}", "x://bad%zz", NULL},
    {"x://{a}", "x://nul%00", NULL},
    {"x://{a}", "x://bad%FF", NULL}, /* not UTF-8 */
    {"x://{a}", "x://a?b", NULL},    /* reserved char in a simple value */
    {"reports://sales/{period}", "reports://sales/2024-Q1",
     "{\"period\":\"2024-Q1\"}"},
    /* level 2: reserved and fragment */
    {"file:///{+path}", "file:///a/b/c.txt", "{\"path\":\"a/b/c.txt\"}"},
    {"x://h{#frag}", "x://h#sec/1", "{\"frag\":\"sec/1\"}"},
    {"x://h{#frag}", "x://h", "{}"},
    {"x://{+a}/end", "x://p/q/end", "{\"a\":\"p/q\"}"},
    /* level 3: several variables, label, path, params, query */
    {"x://{a,b}", "x://1,2", "{\"a\":\"1\",\"b\":\"2\"}"},
    {"x://{a,b}", "x://1", "{\"a\":\"1\"}"},
    {"x://h{.ext}", "x://h.json", "{\"ext\":\"json\"}"},
    {"x://h{/a,b}", "x://h/1/2", "{\"a\":\"1\",\"b\":\"2\"}"},
    {"x://h{/a,b}", "x://h/1/2/3", NULL},
    {"x://h{;x,y}", "x://h;y=2;x=1", "{\"x\":\"1\",\"y\":\"2\"}"},
    {"x://h{;x}", "x://h;x", "{\"x\":\"\"}"},
    {"x://s{?q,lang}", "x://s?q=cat&lang=en",
     "{\"q\":\"cat\",\"lang\":\"en\"}"},
    {"x://s{?q,lang}", "x://s?lang=en", "{\"lang\":\"en\"}"},
    {"x://s{?q,lang}", "x://s", "{}"},
    {"x://s{?q}", "x://s?other=1", NULL},
    {"x://s{?q}", "x://s?q=1&q=2", NULL},
    {"x://s{?q}{&page}", "x://s?q=a&page=2", "{\"q\":\"a\",\"page\":\"2\"}"},
    /* level 4: explode and prefix */
    {"x://h{/segs*}", "x://h/a/b/c", "{\"segs\":[\"a\",\"b\",\"c\"]}"},
    {"x://s{?tag*}", "x://s?tag=a&tag=b", "{\"tag\":[\"a\",\"b\"]}"},
    {"x://{list*}", "x://a,b", "{\"list\":[\"a\",\"b\"]}"},
    {"x://{id:3}", "x://abc", "{\"id\":\"abc\"}"},
    {"x://{id:3}", "x://abcd", NULL},
    /* repeated variable must agree */
    {"x://{a}/{a}", "x://1/1", "{\"a\":\"1\"}"},
    {"x://{a}/{a}", "x://1/2", NULL},
    /* literals only */
    {"x://static", "x://static", "{}"},
    {"x://static", "x://static2", NULL},
};

static void test_matching_table(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mcp__uritpl *t = NULL;
    char why[128];
    assert_int_equal(mcp__uritpl_parse(cases[i].tpl, &t, why, sizeof why),
                     MCP_OK);
    json_t *vars = NULL;
    bool ok = mcp__uritpl_match(t, cases[i].uri, &vars);
    if (cases[i].vars == NULL) {
      if (ok)
        fail_msg("%s should not match %s", cases[i].tpl, cases[i].uri);
      assert_null(vars);
    } else {
      if (!ok)
        fail_msg("%s should match %s", cases[i].tpl, cases[i].uri);
      json_t *want = json_loads(cases[i].vars, 0, NULL);
      assert_non_null(want);
      if (!json_equal(want, vars)) {
        char *got = json_dumps(vars, JSON_COMPACT);
        fail_msg("%s vs %s: got %s", cases[i].tpl, cases[i].uri, got);
      }
      json_decref(want);
    }
    json_decref(vars);
    mcp__uritpl_free(t);
  }
}

static void test_malformed_templates(void **state) {
  (void)state;
  const char *bad[] = {
      "",          "x://{",    "x://{}",    "x://{a",        "x://a}",
      "x://{=a}",  "x://{a,}", "x://{a:0}", "x://{a:12345}", "x://{a b}",
      "x://{{a}}", "x:// y",   "x://{a.}",  "x://%zz",       "x://{!a}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    mcp__uritpl *t = NULL;
    char why[128] = "";
    if (mcp__uritpl_parse(bad[i], &t, why, sizeof why) == MCP_OK)
      fail_msg("'%s' should not parse", bad[i]);
    assert_null(t);
  }
  mcp__uritpl *t = NULL;
  assert_int_equal(mcp__uritpl_parse("x://{a.b,c*}{?d:5}", &t, NULL, 0),
                   MCP_OK);
  assert_true(mcp__uritpl_has_var(t, "a.b"));
  assert_true(mcp__uritpl_has_var(t, "c"));
  assert_true(mcp__uritpl_has_var(t, "d"));
  assert_false(mcp__uritpl_has_var(t, "e"));
  mcp__uritpl_free(t);
}

static void test_hostile_input_is_bounded(void **state) {
  (void)state;
  mcp__uritpl *t = NULL;
  assert_int_equal(
      mcp__uritpl_parse("x://{+a}/{+b}/{+c}/{+d}/{+e}/end", &t, NULL, 0),
      MCP_OK);
  size_t n = 6000;
  char *uri = malloc(n + 16);
  strcpy(uri, "x://");
  for (size_t i = 4; i < n; i++)
    uri[i] = (i % 2) ? '/' : 'a';
  strcpy(uri + n, "/nope");
  json_t *vars = NULL;
  assert_false(mcp__uritpl_match(t, uri, &vars)); /* returns, and quickly */
  assert_null(vars);
  free(uri);
  mcp__uritpl_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matching_table),
      cmocka_unit_test(test_malformed_templates),
      cmocka_unit_test(test_hostile_input_is_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
