/* SPDX-License-Identifier: MIT */
/* runner.c - runs JSON-Schema-Test-Suite draft2020-12 against libmcp.
 *
 * Required tests (every file of tests/draft2020-12) must all pass; optional
 * ones (optional/ and optional/format/, run with format assertion on) must pass
 * at 98% or more. Every file under remotes/ is registered at
 * http://localhost:1234/<relative path>. Prints counts and each failure.
 *
 * Every case also goes through mcp_schema_validate_text on the instance
 * serialized by jansson (compact): that path must reach the expected verdict
 * wherever the jansson path does, i.e. agree with it on every case, required
 * and optional alike.
 * Usage: schema_suite_runner [-v] [substring-filter]
 * Exit: 0 pass, 1 fail, 77 suite not found (CTest skip). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcp/schema.h"

typedef struct tally {
  size_t pass, fail;
  size_t text_pass, text_disagree; /* mcp_schema_validate_text */
} tally;

static bool verbose;
static const char *filter;

static json_t *load_json(const char *path) {
  json_error_t e;
  json_t *j = json_load_file(path, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
  if (j == NULL) /* bignums: retry reading every integer as a double */
    j = json_load_file(
        path, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &e);
  if (j == NULL)
    fprintf(stderr, "cannot parse %s: %s\n", path, e.text);
  return j;
}

static int add_remotes(mcp_schema_registry_t *reg, const char *root,
                       const char *rel) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
  DIR *d = opendir(dir);
  if (d == NULL)
    return -1;
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(d)) != NULL && rc == 0) {
    if (e->d_name[0] == '.')
      continue;
    char sub[4096], full[8192];
    snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    snprintf(full, sizeof full, "%s/%s", root, sub);
    struct stat st;
    if (stat(full, &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode)) {
      rc = add_remotes(reg, root, sub);
    } else if (strlen(e->d_name) > 5 &&
               strcmp(e->d_name + strlen(e->d_name) - 5, ".json") == 0) {
      char uri[8300];
      snprintf(uri, sizeof uri, "http://localhost:1234/%s", sub);
      mcp_error_t err;
      if (mcp_schema_registry_add(reg, uri, load_json(full), &err) != MCP_OK) {
        fprintf(stderr, "register %s: %s\n", uri, err.message);
        rc = -1;
      }
    }
  }
  closedir(d);
  return rc;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_file(const char *path, const char *label,
                     const mcp_schema_options_t *opts, tally *t) {
  if (filter && !strstr(path, filter))
    return;
  json_t *groups = load_json(path);
  if (!json_is_array(groups)) {
    printf("FAIL %s: unreadable test file\n", label);
    t->fail++;
    json_decref(groups);
    return;
  }
  size_t gi;
  json_t *g;
  json_array_foreach(groups, gi, g) {
    const char *gdesc = json_string_value(json_object_get(g, "description"));
    json_t *tests = json_object_get(g, "tests");
    mcp_schema_t *s = NULL;
    mcp_error_t err = {0};
    mcp_status st =
        mcp_schema_compile(json_object_get(g, "schema"), opts, &s, &err);
    size_t ti;
    json_t *tc;
    json_array_foreach(tests, ti, tc) {
      const char *tdesc = json_string_value(json_object_get(tc, "description"));
      bool want = json_is_true(json_object_get(tc, "valid"));
      if (st != MCP_OK) {
        printf("FAIL %s | %s | %s: compile error %s: %s (at %s)\n", label,
               gdesc, tdesc, mcp_status_name(st), err.message, err.pointer);
        t->fail++;
        continue;
      }
      json_t *data = json_object_get(tc, "data");
      bool fast = mcp_schema_is_valid(s, data);
      mcp_validation_t *v = NULL;
      mcp_status vs = mcp_schema_validate(s, data, &v);
      bool detailed = vs == MCP_OK;
      char *text = json_dumps(data, JSON_ENCODE_ANY | JSON_COMPACT);
      mcp_status ts = text ? mcp_schema_validate_text(s, text, strlen(text))
                           : MCP_ERR_NOMEM;
      free(text);
      bool text_ok = ts == MCP_OK;
      if (text_ok == want && (ts == MCP_OK || ts == MCP_ERR_INVALID))
        t->text_pass++;
      if (text_ok != fast || (ts != MCP_OK && ts != MCP_ERR_INVALID)) {
        t->text_disagree++;
        printf("TEXT %s | %s | %s: expected %s, is_valid %s, validate_text "
               "%s\n",
               label, gdesc, tdesc, want ? "valid" : "invalid",
               fast ? "valid" : "invalid", mcp_status_name(ts));
      }
      if (fast == want && detailed == want) {
        t->pass++;
        if (verbose)
          printf("ok   %s | %s | %s\n", label, gdesc, tdesc);
      } else {
        t->fail++;
        printf("FAIL %s | %s | %s: expected %s, is_valid %s, validate %s\n",
               label, gdesc, tdesc, want ? "valid" : "invalid",
               fast ? "valid" : "invalid", mcp_status_name(vs));
        for (size_t i = 0; verbose && i < mcp_validation_count(v); i++)
          printf("     %s: %s (%s)\n", mcp_validation_instance_location(v, i),
                 mcp_validation_message(v, i),
                 mcp_validation_keyword_location(v, i));
      }
      mcp_validation_free(v);
    }
    mcp_schema_free(s);
  }
  json_decref(groups);
}

static void run_dir(const char *dir, const char *prefix,
                    const mcp_schema_options_t *opts, tally *t) {
  DIR *d = opendir(dir);
  if (d == NULL)
    return;
  char *names[256];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 256) {
    size_t l = strlen(e->d_name);
    if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0)
      names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof names[0], cmp_str);
  for (size_t i = 0; i < n; i++) {
    char path[4096], label[512];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    snprintf(label, sizeof label, "%s%s", prefix, names[i]);
    run_file(path, label, opts, t);
    free(names[i]);
  }
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-v") == 0)
      verbose = true;
    else
      filter = argv[i];
  }
  const char *shared = getenv("MCP_SHARED_DIR");
  if (shared == NULL || *shared == '\0')
    shared = MCP_SHARED_DIR;
  char suite[4096], tests[4200], remotes[4200], opt[4300], fmt[4400];
  snprintf(suite, sizeof suite, "%s/testdata/JSON-Schema-Test-Suite", shared);
  snprintf(tests, sizeof tests, "%s/tests/draft2020-12", suite);
  snprintf(remotes, sizeof remotes, "%s/remotes", suite);
  snprintf(opt, sizeof opt, "%s/optional", tests);
  snprintf(fmt, sizeof fmt, "%s/format", opt);
  struct stat st;
  if (stat(tests, &st) != 0 || !S_ISDIR(st.st_mode)) {
    printf("%s: JSON-Schema-Test-Suite not found at %s "
           "(expected ../shared/testdata/JSON-Schema-Test-Suite)\n",
           getenv("CI") ? "FAIL" : "SKIP", suite);
    return getenv("CI") ? 1 : 77; /* CI must have it */
  }
  mcp_schema_registry_t *reg = NULL;
  mcp_schema_options_t *o_req = NULL, *o_opt = NULL;
  if (mcp_schema_registry_new(&reg) != MCP_OK ||
      add_remotes(reg, remotes, "") != 0 ||
      mcp_schema_options_new(&o_req) != MCP_OK ||
      mcp_schema_options_new(&o_opt) != MCP_OK) {
    fprintf(stderr, "setup failed\n");
    return 1;
  }
  mcp_schema_options_set_registry(o_req, reg);
  mcp_schema_options_set_registry(o_opt, reg);
  mcp_schema_options_set_format_assertion(o_opt, true);
  tally req = {0}, optional = {0};
  run_dir(tests, "", o_req, &req);
  run_dir(opt, "optional/", o_opt, &optional);
  run_dir(fmt, "optional/format/", o_opt, &optional);
  size_t rt = req.pass + req.fail, ot = optional.pass + optional.fail;
  printf("required: %zu/%zu passed (%.2f%%)\n", req.pass, rt,
         rt ? 100.0 * (double)req.pass / (double)rt : 100.0);
  printf("optional: %zu/%zu passed (%.2f%%)\n", optional.pass, ot,
         ot ? 100.0 * (double)optional.pass / (double)ot : 100.0);
  printf("text path: required %zu/%zu, optional %zu/%zu passed; "
         "%zu disagreement(s) with the jansson path\n",
         req.text_pass, rt, optional.text_pass, ot,
         req.text_disagree + optional.text_disagree);
  mcp_schema_options_free(o_req);
  mcp_schema_options_free(o_opt);
  mcp_schema_registry_free(reg);
  if (filter != NULL)
    return req.fail || optional.fail || req.text_disagree ||
                   optional.text_disagree
               ? 1
               : 0;
  bool ok = req.fail == 0 && optional.pass * 100 >= ot * 98 &&
            req.text_pass == rt && req.text_disagree == 0 &&
            optional.text_disagree == 0;
  printf("%s\n", ok ? "PASS"
                    : "FAIL (need required 100%, optional >= 98%, "
                      "text path required 100% and no disagreement)");
  return ok ? 0 : 1;
}
