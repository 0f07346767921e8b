/* SPDX-License-Identifier: MIT */
/* skills_server.c - a server's published skills: their resources, the
 * extension's declaration and its methods skills/list, skills/get and
 * resources/directory/read (2026-07-28 only).
 */
#include "skills/skills_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cursor.h"
#include "core/feature.h"
#include "mcp/resource.h"

struct mcp__skills {
  pthread_mutex_t lock;
  mcp_skill_t **items; /* published order */
  size_t n, cap;
  bool directory_read;
};

static void skills_state_free(void *state) { mcp__skills_free(state); }
/* The server's skills: its feature slot, made when the module registers. */
static const mcp__slot_key skills_slot = {"skills", skills_state_free};

static mcp__skills *skills_of(const mcp_server_t *s) {
  return mcp__server_slot(s, &skills_slot);
}

void mcp__skills_free(mcp__skills *k) {
  if (k == NULL)
    return;
  for (size_t i = 0; i < k->n; i++)
    mcp__skill_release(k->items[i]);
  free(k->items);
  pthread_mutex_destroy(&k->lock);
  free(k);
}

/* ---- resources ----------------------------------------------------------- */
typedef struct file_ref {
  mcp_skill_t *skill; /* counted */
  size_t index;
} file_ref;

static void file_ref_free(void *p) {
  file_ref *r = p;
  mcp__skill_release(r->skill);
  free(r);
}

static mcp_status read_file(mcp_call_t *call, const char *uri, json_t *vars,
                            mcp_read_result_t *out, void *ud) {
  (void)call, (void)vars, (void)uri;
  file_ref *r = ud;
  const mcp__skill_file *f = &r->skill->files[r->index];
  if (f->text) {
    char *text = strndup((const char *)f->data, f->len);
    if (text == NULL)
      return MCP_ERR_NOMEM;
    mcp_status st = mcp_read_result_add_text(out, f->uri, text, f->mime_type);
    free(text);
    return st;
  }
  return mcp_read_result_add_blob(out, f->uri, f->data, f->len, f->mime_type);
}

static mcp_status file_resource(mcp_skill_t *k, size_t i,
                                mcp_resource_t **out) {
  const mcp__skill_file *f = &k->files[i];
  mcp_resource_t *r = NULL;
  file_ref *ref = malloc(sizeof *ref);
  mcp_status st = ref ? mcp_resource_new(f->uri, i == 0 ? k->name : f->path, &r)
                      : MCP_ERR_NOMEM;
  if (st == MCP_OK && i == 0)
    st = mcp_resource_set_description(
        r, json_string_value(json_object_get(k->frontmatter, "description")));
  if (st == MCP_OK)
    st = mcp_resource_set_mime_type(r, f->mime_type);
  if (st == MCP_OK)
    st = mcp_resource_set_size(r, f->len);
  if (st == MCP_OK) {
    ref->skill = k;
    ref->index = i;
    mcp__skill_retain(k);
    st = mcp_resource_set_handler(r, read_file, ref, file_ref_free);
    if (st != MCP_OK)
      mcp__skill_release(k);
    else
      ref = NULL;
  }
  free(ref);
  if (st != MCP_OK) {
    mcp_resource_free(r);
    return st;
  }
  *out = r;
  return MCP_OK;
}

mcp_status mcp_server_add_skill(mcp_server_t *s, mcp_skill_t *k,
                                mcp_error_t *err) {
  if (s == NULL || k == NULL) {
    mcp_skill_free(k);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "mcp_server_add_skill: the %s is NULL",
                         s == NULL ? "server" : "skill");
  }
  mcp__skills *all = skills_of(s);
  if (all == NULL) {
    mcp_skill_free(k);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  pthread_mutex_lock(&all->lock);
  mcp_status st = MCP_OK;
  for (size_t i = 0; i < all->n; i++)
    if (strcmp(all->items[i]->name, k->name) == 0)
      st = mcp_error_set(err, MCP_ERR_EXISTS, "skill '%s' is already published",
                         k->name);
  if (st == MCP_OK && all->n == all->cap) {
    size_t ncap = all->cap ? all->cap * 2 : 8;
    mcp_skill_t **grown = realloc(all->items, ncap * sizeof *grown);
    if (grown == NULL)
      st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    else
      all->items = grown, all->cap = ncap;
  }
  /* the files become resources; on any failure none stays */
  size_t added = 0;
  for (; st == MCP_OK && added < k->nfiles; added++) {
    mcp_resource_t *r = NULL;
    st = file_resource(k, added, &r);
    if (st == MCP_OK && (st = mcp_server_add_resource(s, r)) != MCP_OK)
      mcp_error_set(err, st, "cannot publish %s: %s", k->files[added].uri,
                    mcp_strerror(st));
    else if (st != MCP_OK)
      mcp_error_set(err, st, "%s", mcp_strerror(st));
    if (st != MCP_OK)
      break;
  }
  if (st != MCP_OK) {
    for (size_t i = 0; i < added; i++)
      mcp_server_remove_resource(s, k->files[i].uri);
    pthread_mutex_unlock(&all->lock);
    mcp_skill_free(k);
    return st;
  }
  all->items[all->n++] = k;
  pthread_mutex_unlock(&all->lock);
  return MCP_OK;
}

mcp_status mcp_server_set_skills_directory_read(mcp_server_t *s, bool on) {
  mcp__skills *k = s ? skills_of(s) : NULL;
  if (k == NULL)
    return s ? MCP_ERR_NOMEM : MCP_ERR_INVALID_ARG;
  pthread_mutex_lock(&k->lock);
  k->directory_read = on;
  pthread_mutex_unlock(&k->lock);
  return MCP_OK;
}

/* 2026-07-28 only: extensions["io.modelcontextprotocol/skills"] while a
 * skill is published */
static void skills_capabilities(const mcp_server_t *cs, json_t *caps,
                                unsigned era) {
  if (era != MCP__ERA_MODERN)
    return;
  mcp__skills *k = skills_of(cs);
  if (k == NULL)
    return;
  pthread_mutex_lock(&k->lock);
  size_t n = k->n;
  bool dir = k->directory_read;
  pthread_mutex_unlock(&k->lock);
  if (n == 0)
    return;
  json_t *settings = json_object();
  if (settings && dir)
    json_object_set_new(settings, "directoryRead", json_true());
  mcp__capability_extension(caps, MCP__SKILLS_EXT, settings);
}

/* ---- methods ------------------------------------------------------------- */
static mcp_status not_declared(mcp_call_t *call) {
  char msg[200];
  snprintf(msg, sizeof msg, "Method not found: %.150s", mcp_call_method(call));
  return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND, msg);
}

/* The published skills (counted references; release each and free). */
static mcp_skill_t **snapshot(mcp_call_t *call, size_t *n, bool *dir) {
  mcp__skills *k = skills_of(mcp_call_server(call));
  *n = 0;
  if (k == NULL)
    return NULL;
  pthread_mutex_lock(&k->lock);
  mcp_skill_t **copy = k->n ? malloc(k->n * sizeof *copy) : NULL;
  if (copy) {
    for (size_t i = 0; i < k->n; i++) {
      copy[i] = k->items[i];
      mcp__skill_retain(copy[i]);
    }
    *n = k->n;
  }
  if (dir)
    *dir = k->directory_read;
  pthread_mutex_unlock(&k->lock);
  return copy;
}

static void release_all(mcp_skill_t **items, size_t n) {
  for (size_t i = 0; i < n; i++)
    mcp__skill_release(items[i]);
  free(items);
}

static mcp_status handle_skills_list(mcp_call_t *call, json_t **result) {
  size_t n;
  mcp_skill_t **items = snapshot(call, &n, NULL);
  if (n == 0)
    return not_declared(call);
  uint64_t from;
  mcp_status st = MCP_OK;
  if (!mcp__cursor_decode(
          "skills", json_object_get(mcp_call_params(call), "cursor"), &from) ||
      from > n)
    st = mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                        "Invalid params: unknown or malformed cursor");
  json_t *list = json_array();
  json_t *res = json_pack("{s:o}", "skills", list);
  if (st == MCP_OK && res == NULL)
    st = MCP_ERR_NOMEM;
  size_t page =
      mcp__server_page_size(mcp_call_server(call))
          ? mcp__server_page_size(mcp_call_server(call))
          : n;
  size_t i = (size_t)from;
  for (; st == MCP_OK && i < n && i < from + page; i++)
    if (json_array_append_new(list, mcp__skill_entry(items[i])) != 0)
      st = MCP_ERR_NOMEM;
  if (st == MCP_OK && i < n &&
      json_object_set_new(res, "nextCursor", mcp__cursor_encode("skills", i)))
    st = MCP_ERR_NOMEM;
  if (st == MCP_OK)
    st = mcp__call_add_cache_hint(call, res, MCP_CACHE_RESOURCES_LIST, NULL);
  release_all(items, n);
  if (st != MCP_OK) {
    json_decref(res);
    return st;
  }
  *result = res;
  return MCP_OK;
}

/* The skill a URI names: its SKILL.md, or its directory (with or without a
 * trailing '/'). */
static mcp_skill_t *find_skill(mcp_skill_t **items, size_t n, const char *uri) {
  for (size_t i = 0; i < n; i++) {
    const char *md = items[i]->files[0].uri;
    size_t dir = strlen(md) - strlen("/SKILL.md");
    if (strcmp(uri, md) == 0 ||
        (strncmp(uri, md, dir) == 0 &&
         (uri[dir] == '\0' || (uri[dir] == '/' && uri[dir + 1] == '\0'))))
      return items[i];
  }
  return NULL;
}

static mcp_status handle_skills_get(mcp_call_t *call, json_t **result) {
  size_t n;
  mcp_skill_t **items = snapshot(call, &n, NULL);
  if (n == 0)
    return not_declared(call);
  json_t *uri = json_object_get(mcp_call_params(call), "uri");
  mcp_skill_t *k =
      json_is_string(uri) ? find_skill(items, n, json_string_value(uri)) : NULL;
  mcp_status st = MCP_OK;
  json_t *res = NULL;
  if (!json_is_string(uri))
    st = mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                        "Invalid params: uri must be a string");
  else if (k == NULL) {
    char msg[300];
    snprintf(msg, sizeof msg, "Invalid params: no skill at %.200s",
             json_string_value(uri));
    st = mcp__call_fail(call, MCP_RPC_INVALID_PARAMS, msg);
  } else if ((res = json_pack("{s:o}", "skill", mcp__skill_entry(k))) == NULL) {
    st = MCP_ERR_NOMEM;
  } else {
    st = mcp__call_add_cache_hint(call, res, MCP_CACHE_RESOURCES_LIST, NULL);
  }
  release_all(items, n);
  if (st != MCP_OK) {
    json_decref(res);
    return st;
  }
  *result = res;
  return MCP_OK;
}

/* Appends the direct children of directory path (""= the skill root) of k
 * to list; false when path is not a directory of k. */
static bool children(const mcp_skill_t *k, const char *path, json_t *list) {
  size_t pl = strlen(path);
  bool found = pl == 0;
  json_t *seen = json_object();
  for (size_t i = 0; seen && i < k->nfiles; i++) {
    const mcp__skill_file *f = &k->files[i];
    if (pl && (strncmp(f->path, path, pl) != 0 || f->path[pl] != '/'))
      continue;
    found = true;
    const char *rest = f->path + (pl ? pl + 1 : 0);
    const char *slash = strchr(rest, '/');
    if (slash == NULL) {
      json_array_append_new(list,
                            json_pack("{s:s,s:s,s:s,s:I}", "uri", f->uri,
                                      "name", rest, "mimeType", f->mime_type,
                                      "size", (json_int_t)f->len));
      continue;
    }
    char *sub = strndup(rest, (size_t)(slash - rest));
    if (sub && json_object_get(seen, sub) == NULL) {
      json_object_set_new(seen, sub, json_true());
      char *uri = NULL;
      if (asprintf(&uri, "skill://%s/%s%s%s", k->name, path, pl ? "/" : "",
                   sub) >= 0)
        json_array_append_new(list,
                              json_pack("{s:s,s:s,s:s}", "uri", uri, "name",
                                        sub, "mimeType", "inode/directory"));
      free(uri);
    }
    free(sub);
  }
  json_decref(seen);
  return found;
}

static mcp_status handle_directory_read(mcp_call_t *call, json_t **result) {
  size_t n;
  bool dir = false;
  mcp_skill_t **items = snapshot(call, &n, &dir);
  if (n == 0 || !dir) {
    release_all(items, n);
    return not_declared(call);
  }
  json_t *juri = json_object_get(mcp_call_params(call), "uri");
  const char *uri = json_string_value(juri);
  mcp_status st = MCP_OK;
  json_t *list = json_array();
  json_t *res = json_pack("{s:o}", "resources", list);
  bool ok = false;
  uint64_t from = 0;
  if (uri && strncmp(uri, "skill://", 8) == 0 && res) {
    /* skill://<name>[/<dir>][/] */
    const char *name = uri + 8;
    const char *slash = strchr(name, '/');
    size_t nl = slash ? (size_t)(slash - name) : strlen(name);
    char *path = strdup(slash ? slash + 1 : "");
    size_t pl = path ? strlen(path) : 0;
    if (pl && path[pl - 1] == '/')
      path[--pl] = '\0';
    for (size_t i = 0; path && i < n; i++)
      if (strlen(items[i]->name) == nl &&
          strncmp(items[i]->name, name, nl) == 0)
        ok = children(items[i], path, list);
    free(path);
  }
  if (!ok)
    st = mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                        "Invalid params: uri is not a directory of a "
                        "published skill");
  else if (!mcp__cursor_decode("directory",
                               json_object_get(mcp_call_params(call), "cursor"),
                               &from))
    st = mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                        "Invalid params: unknown or malformed cursor");
  size_t page = mcp__server_page_size(mcp_call_server(call));
  if (st == MCP_OK && page && (from > 0 || json_array_size(list) > page)) {
    /* one page of the children, in the same order every time */
    json_t *all = json_copy(list);
    json_array_clear(list);
    size_t total = json_array_size(all), i = (size_t)from;
    for (; i < total && i < from + page; i++)
      json_array_append(list, json_array_get(all, i));
    json_decref(all);
    if (i < total)
      json_object_set_new(res, "nextCursor",
                          mcp__cursor_encode("directory", i));
  }
  if (st == MCP_OK)
    st = mcp__call_add_cache_hint(call, res, MCP_CACHE_RESOURCES_LIST, NULL);
  release_all(items, n);
  if (st != MCP_OK) {
    json_decref(res);
    return st;
  }
  *result = res;
  return MCP_OK;
}

static const mcp__method skill_methods[] = {
    {"skills/list", handle_skills_list, MCP__ERA_MODERN},
    {"skills/get", handle_skills_get, MCP__ERA_MODERN},
    {"resources/directory/read", handle_directory_read, MCP__ERA_MODERN},
};

mcp_status mcp__skills_register(struct mcp_server *s) {
  mcp__skills *k = calloc(1, sizeof *k);
  if (k == NULL)
    return MCP_ERR_NOMEM;
  pthread_mutex_init(&k->lock, NULL);
  mcp_status st = mcp__server_set_slot(s, &skills_slot, k);
  if (st != MCP_OK) {
    mcp__skills_free(k);
    return st;
  }
  st = mcp__server_add_methods(s, skill_methods,
                               sizeof skill_methods / sizeof skill_methods[0]);
  return st == MCP_OK ? mcp__server_add_capability(s, skills_capabilities)
                      : st;
}
