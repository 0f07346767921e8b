/* SPDX-License-Identifier: MIT */
/* skills_test.c - the skills extension (SEP-2640): front matter read as a
 * YAML parser reads it, skills from memory and from real directories, the
 * refusals (a path with "..", a symbolic link, oversize files and skills,
 * too deep, bad front matter, a name that is not the directory's) each with
 * a clear error and nothing served, and the methods: discover, skills/list
 * (pages, cache hints), skills/get, resources/read of skill:// files and
 * resources/directory/read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mcp/mcp.h"
#include "skills/skills_internal.h"
#include "testutil.h"

#define MD(name, desc) "---\nname: " name "\ndescription: " desc "\n---\nBody\n"

static json_t *fm(const char *text, mcp_status want, const char *msg_part) {
  json_t *out = NULL;
  mcp_error_t err = {0};
  mcp_status st = mcp__skill_frontmatter(text, strlen(text), &out, &err);
  if (st != want)
    fail_msg("status %d for %s (%s)", st, text, err.message);
  if (msg_part && strstr(err.message, msg_part) == NULL)
    fail_msg("message '%s' lacks '%s'", err.message, msg_part);
  return out;
}

static void test_frontmatter_subset(void **state) {
  (void)state;
  json_t *o = fm("---\n"
                 "name: pdf-tools\n"
                 "description: \"Fill: forms\" # comment\n"
                 "version: 1.5\n"
                 "count: 12\n"
                 "draft: false\n"
                 "nothing: ~\n"
                 "quote: 'it''s'\n"
                 "long: >\n"
                 "  folded\n"
                 "  text\n"
                 "lit: |-\n"
                 "  line one\n"
                 "  line two\n"
                 "metadata:\n"
                 "  author: me\n"
                 "  n: 2\n"
                 "---\nbody",
                 MCP_OK, NULL);
  json_t *want = json_loads(
      "{\"name\":\"pdf-tools\",\"description\":\"Fill: forms\",\"version\":"
      "1.5,\"count\":12,\"draft\":false,\"nothing\":null,\"quote\":\"it's\","
      "\"long\":\"folded text\\n\",\"lit\":\"line one\\nline two\","
      "\"metadata\":{\"author\":\"me\",\"n\":2}}",
      0, NULL);
  assert_true(json_equal(o, want));
  json_decref(o);
  json_decref(want);
  /* refused, never guessed */
  fm("name: x\n", MCP_ERR_INVALID, "must begin");
  fm("---\nname: x\n", MCP_ERR_INVALID, "not closed");
  fm("---\nname: x\nname: y\n---\n", MCP_ERR_INVALID, "duplicate");
  fm("---\ntags: [a, b]\n---\n", MCP_ERR_INVALID, "line 2");
  fm("---\ntags:\n  - a\n---\n", MCP_ERR_INVALID, "sequences");
  fm("---\na:\n  b:\n    c: 1\n---\n", MCP_ERR_INVALID, "nested");
  fm("---\njust text\n---\n", MCP_ERR_INVALID, "key: value");
  fm("---\nd: \"open\n---\n", MCP_ERR_INVALID, "unterminated");
  fm("---\nx: &a 1\n---\n", MCP_ERR_INVALID, "anchors");
}

static void test_skill_in_memory(void **state) {
  (void)state;
  mcp_skill_t *k = NULL;
  mcp_error_t err = {0};
  const char *md = MD("flight-helper", "Find and book flights");
  assert_int_equal(mcp_skill_new(md, strlen(md), NULL, &k, &err), MCP_OK);
  assert_string_equal(mcp_skill_name(k), "flight-helper");
  assert_int_equal(mcp_skill_add_file(k, "ref/a.md", "x", 1, NULL, &err),
                   MCP_OK);
  static const char *const bad[] = {"../x", "a/../b", "/abs", "a//b",    "./a",
                                    "a b",  "a\\b",   "",     "SKILL.md"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    assert_int_not_equal(mcp_skill_add_file(k, bad[i], "x", 1, NULL, &err),
                         MCP_OK);
  assert_int_equal(mcp_skill_add_file(k, "ref/a.md", "y", 1, NULL, &err),
                   MCP_ERR_EXISTS);
  assert_int_equal(mcp_skill_add_file(k, "ref", "y", 1, NULL, &err),
                   MCP_ERR_EXISTS); /* a directory of that name exists */
  assert_int_equal(mcp_skill_file_count(k), 2);
  mcp_skill_free(k);

  /* names and descriptions */
  static const char *const names[] = {"-a", "a-", "a--b", "Abc", "a_b", ""};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char text[200];
    snprintf(text, sizeof text, "---\nname: \"%s\"\ndescription: d\n---\n",
             names[i]);
    assert_int_equal(mcp_skill_new(text, strlen(text), NULL, &k, &err),
                     MCP_ERR_INVALID);
    assert_null(k);
    assert_non_null(strstr(err.message, "name"));
  }
  const char *nodesc = "---\nname: ok\n---\n";
  assert_int_equal(mcp_skill_new(nodesc, strlen(nodesc), NULL, &k, &err),
                   MCP_ERR_INVALID);
  assert_non_null(strstr(err.message, "description"));

  /* limits */
  mcp_skill_limits lim = {.max_files = 2, .max_total_bytes = 100};
  assert_int_equal(mcp_skill_new(md, strlen(md), &lim, &k, &err), MCP_OK);
  char big[101] = {0};
  memset(big, 'a', 100);
  assert_int_equal(mcp_skill_add_file(k, "big.txt", big, 100, NULL, &err),
                   MCP_ERR_LIMIT);
  assert_int_equal(mcp_skill_add_file(k, "one.txt", "1", 1, NULL, &err),
                   MCP_OK);
  assert_int_equal(mcp_skill_add_file(k, "two.txt", "2", 1, NULL, &err),
                   MCP_ERR_LIMIT);
  mcp_skill_free(k);
  lim = (mcp_skill_limits){.max_depth = 1};
  assert_int_equal(mcp_skill_new(md, strlen(md), &lim, &k, &err), MCP_OK);
  assert_int_equal(mcp_skill_add_file(k, "a/b.txt", "1", 1, NULL, &err),
                   MCP_OK);
  assert_int_equal(mcp_skill_add_file(k, "a/b/c.txt", "1", 1, NULL, &err),
                   MCP_ERR_LIMIT);
  mcp_skill_free(k);
}

/* ---- directories --------------------------------------------------------- */
static char root[256];

static void write_file(const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void mkdir_rel(const char *rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  assert_int_equal(mkdir(path, 0755), 0);
}

static void rm_tree(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  assert_int_equal(system(cmd), 0);
}

static mcp_status load(const char *rel, const mcp_skill_limits *lim,
                       mcp_skill_t **k, mcp_error_t *err) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  return mcp_skill_load_dir(path, lim, k, err);
}

static void test_directory_refusals(void **state) {
  (void)state;
  snprintf(root, sizeof root, "/tmp/mcp-skills-test-%d", (int)getpid());
  rm_tree();
  assert_int_equal(mkdir(root, 0755), 0);
  mkdir_rel("good");
  write_file("good/SKILL.md", MD("good", "A good skill"));
  mkdir_rel("good/references");
  write_file("good/references/GUIDE.md", "# Guide\n");
  write_file("good/data.bin", "\x01\x02");
  mcp_skill_t *k = NULL;
  mcp_error_t err = {0};
  assert_int_equal(load("good", NULL, &k, &err), MCP_OK);
  assert_int_equal(mcp_skill_file_count(k), 3);
  mcp_skill_free(k);

  /* a symbolic link anywhere: refused */
  char target[512], link_path[512];
  snprintf(target, sizeof target, "%s/good/references/GUIDE.md", root);
  snprintf(link_path, sizeof link_path, "%s/good/escape.md", root);
  assert_int_equal(symlink("/etc/passwd", link_path), 0);
  assert_int_equal(load("good", NULL, &k, &err), MCP_ERR_INVALID);
  assert_null(k);
  assert_non_null(strstr(err.message, "symbolic link"));
  unlink(link_path);
  snprintf(link_path, sizeof link_path, "%s/linked", root);
  snprintf(target, sizeof target, "%s/good", root);
  assert_int_equal(symlink(target, link_path), 0);
  assert_int_equal(load("linked", NULL, &k, &err), MCP_ERR_INVALID);
  assert_non_null(strstr(err.message, "symbolic link"));
  /* the directory itself holds a link to a directory outside */
  snprintf(link_path, sizeof link_path, "%s/good/up", root);
  assert_int_equal(symlink("..", link_path), 0);
  assert_int_equal(load("good", NULL, &k, &err), MCP_ERR_INVALID);
  unlink(link_path);

  /* oversize: one file, and the whole */
  mcp_skill_limits lim = {.max_file_bytes = 4};
  assert_int_equal(load("good", &lim, &k, &err), MCP_ERR_LIMIT);
  assert_non_null(strstr(err.message, "bytes"));
  lim = (mcp_skill_limits){.max_total_bytes = 50};
  assert_int_equal(load("good", &lim, &k, &err), MCP_ERR_LIMIT);
  lim = (mcp_skill_limits){.max_depth = 0, .max_files = 2};
  assert_int_equal(load("good", &lim, &k, &err), MCP_ERR_LIMIT);

  /* bad front matter, wrong name, no SKILL.md, a bad file name */
  mkdir_rel("bad");
  write_file("bad/SKILL.md", "---\nname: bad\ndescription: [x]\n---\n");
  assert_int_equal(load("bad", NULL, &k, &err), MCP_ERR_INVALID);
  assert_non_null(strstr(err.message, "front matter"));
  write_file("bad/SKILL.md", MD("other", "Named otherwise"));
  assert_int_equal(load("bad", NULL, &k, &err), MCP_ERR_INVALID);
  assert_non_null(strstr(err.message, "directory"));
  mkdir_rel("empty");
  assert_int_not_equal(load("empty", NULL, &k, &err), MCP_OK);
  write_file("bad/SKILL.md", MD("bad", "Fine"));
  write_file("bad/with space.md", "x");
  assert_int_equal(load("bad", NULL, &k, &err), MCP_ERR_INVALID);
  assert_null(k);
  rm_tree();
}

/* ---- served -------------------------------------------------------------- */
#define CAPS "{}"

static mcp_server_t *server_with_skills(size_t n) {
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("skills-test", "1.0", &s), MCP_OK);
  for (size_t i = 0; i < n; i++) {
    char md[200];
    snprintf(md, sizeof md, MD("skill-%zu", "Skill number %zu"), i, i);
    mcp_skill_t *k = NULL;
    assert_int_equal(mcp_skill_new(md, strlen(md), NULL, &k, NULL), MCP_OK);
    assert_int_equal(mcp_skill_add_file(k, "references/notes.md", "# Notes\n",
                                        8, NULL, NULL),
                     MCP_OK);
    assert_int_equal(mcp_server_add_skill(s, k, NULL), MCP_OK);
  }
  return s;
}

static mcp_status read_nothing(mcp_call_t *call, const char *uri, json_t *vars,
                               mcp_read_result_t *out, void *ud) {
  (void)call, (void)uri, (void)vars, (void)out, (void)ud;
  return MCP_OK;
}

static void test_served(void **state) {
  (void)state;
  mcp_server_t *s = server_with_skills(3);
  assert_int_equal(mcp_server_set_page_size(s, 2), MCP_OK);
  mcp_error_t err = {0};
  mcp_skill_t *dup = NULL;
  const char *md = MD("skill-1", "again");
  assert_int_equal(mcp_skill_new(md, strlen(md), NULL, &dup, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_skill(s, dup, &err), MCP_ERR_EXISTS);

  json_t *d = tu_modern_request(s, "server/discover", NULL, CAPS);
  json_t *caps = json_object_get(json_object_get(d, "result"), "capabilities");
  assert_non_null(json_object_get(json_object_get(caps, "extensions"),
                                  "io.modelcontextprotocol/skills"));
  assert_non_null(json_object_get(caps, "resources"));
  json_decref(d);

  /* two pages, entries whole, cache hints */
  json_t *p1 = tu_modern_request(s, "skills/list", NULL, CAPS);
  json_t *r1 = json_object_get(p1, "result");
  assert_int_equal(json_array_size(json_object_get(r1, "skills")), 2);
  assert_non_null(json_object_get(r1, "ttlMs"));
  assert_non_null(json_object_get(r1, "cacheScope"));
  json_t *e = json_array_get(json_object_get(r1, "skills"), 0);
  assert_string_equal(json_string_value(json_object_get(e, "uri")),
                      "skill://skill-0/SKILL.md");
  json_t *files = json_object_get(e, "resources");
  assert_int_equal(json_array_size(files), 2);
  const char *digest =
      json_string_value(json_object_get(json_array_get(files, 0), "digest"));
  assert_int_equal(strlen(digest), 7 + 64);
  assert_int_equal(
      json_integer_value(json_object_get(json_array_get(files, 0), "size")),
      (json_int_t)strlen(MD("skill-0", "Skill number 0")));
  char params[256];
  snprintf(params, sizeof params, "{\"cursor\":\"%s\"}",
           json_string_value(json_object_get(r1, "nextCursor")));
  json_t *p2 = tu_modern_request(s, "skills/list", params, CAPS);
  assert_int_equal(
      json_array_size(json_object_get(json_object_get(p2, "result"), "skills")),
      1);
  assert_null(json_object_get(json_object_get(p2, "result"), "nextCursor"));
  json_decref(p1);
  json_decref(p2);
  json_t *bad =
      tu_modern_request(s, "skills/list", "{\"cursor\":\"zz\"}", CAPS);
  assert_int_equal(tu_error_code(bad), -32602);
  json_decref(bad);

  /* skills/get */
  json_t *g = tu_modern_request(s, "skills/get",
                                "{\"uri\":\"skill://skill-2/SKILL.md\"}", CAPS);
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(
              json_object_get(json_object_get(g, "result"), "skill"),
              "frontmatter"),
          "name")),
      "skill-2");
  assert_null(json_object_get(json_object_get(g, "result"), "nextCursor"));
  json_decref(g);
  g = tu_modern_request(s, "skills/get", "{\"uri\":\"skill://nope/SKILL.md\"}",
                        CAPS);
  assert_int_equal(tu_error_code(g), -32602);
  json_decref(g);

  /* the files are resources */
  json_t *rd = tu_modern_request(
      s, "resources/read", "{\"uri\":\"skill://skill-1/references/notes.md\"}",
      CAPS);
  json_t *c0 = json_array_get(
      json_object_get(json_object_get(rd, "result"), "contents"), 0);
  assert_string_equal(json_string_value(json_object_get(c0, "text")),
                      "# Notes\n");
  assert_string_equal(json_string_value(json_object_get(c0, "mimeType")),
                      "text/markdown");
  json_decref(rd);

  /* directory reads only when enabled */
  json_t *dr = tu_modern_request(s, "resources/directory/read",
                                 "{\"uri\":\"skill://skill-0\"}", CAPS);
  assert_int_equal(tu_error_code(dr), -32601);
  json_decref(dr);
  assert_int_equal(mcp_server_set_skills_directory_read(s, true), MCP_OK);
  dr = tu_modern_request(s, "resources/directory/read",
                         "{\"uri\":\"skill://skill-0/\"}", CAPS);
  json_t *kids = json_object_get(json_object_get(dr, "result"), "resources");
  assert_int_equal(json_array_size(kids), 2);
  assert_string_equal(
      json_string_value(json_object_get(json_array_get(kids, 1), "mimeType")),
      "inode/directory");
  json_decref(dr);
  dr = tu_modern_request(s, "resources/directory/read",
                         "{\"uri\":\"skill://skill-0/references\"}", CAPS);
  kids = json_object_get(json_object_get(dr, "result"), "resources");
  assert_int_equal(json_array_size(kids), 1);
  json_decref(dr);
  dr = tu_modern_request(s, "resources/directory/read",
                         "{\"uri\":\"skill://skill-0/SKILL.md\"}", CAPS);
  assert_int_equal(tu_error_code(dr), -32602);
  json_decref(dr);
  mcp_server_free(s);

  /* a clash with a resource already there: refused whole, nothing served */
  s = server_with_skills(0);
  mcp_resource_t *r = NULL;
  assert_int_equal(
      mcp_resource_new("skill://clash/references/notes.md", "taken", &r),
      MCP_OK);
  assert_int_equal(mcp_resource_set_handler(r, read_nothing, NULL, NULL),
                   MCP_OK);
  assert_int_equal(mcp_server_add_resource(s, r), MCP_OK);
  const char *cmd = MD("clash", "Clashes");
  mcp_skill_t *k = NULL;
  assert_int_equal(mcp_skill_new(cmd, strlen(cmd), NULL, &k, NULL), MCP_OK);
  assert_int_equal(
      mcp_skill_add_file(k, "references/notes.md", "x", 1, NULL, NULL), MCP_OK);
  assert_int_not_equal(mcp_server_add_skill(s, k, &err), MCP_OK);
  assert_int_equal(mcp_server_resource_count(s), 1); /* SKILL.md rolled back */
  g = tu_modern_request(s, "skills/list", NULL, CAPS);
  assert_int_equal(tu_error_code(g), -32601);
  json_decref(g);
  mcp_server_free(s);

  /* no skills: no extension, no methods */
  s = server_with_skills(0);
  d = tu_modern_request(s, "server/discover", NULL, CAPS);
  caps = json_object_get(json_object_get(d, "result"), "capabilities");
  assert_null(json_object_get(json_object_get(caps, "extensions"),
                              "io.modelcontextprotocol/skills"));
  json_decref(d);
  g = tu_modern_request(s, "skills/list", NULL, CAPS);
  assert_int_equal(tu_error_code(g), -32601);
  json_decref(g);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_frontmatter_subset),
      cmocka_unit_test(test_skill_in_memory),
      cmocka_unit_test(test_directory_refusals),
      cmocka_unit_test(test_served),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
