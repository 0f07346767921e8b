/* SPDX-License-Identifier: MIT */
/* compile.c - turns a schema document into the node graph of internal.h.
 *
 * Two passes per document: index() walks the known subschema keywords,
 * recording for each subschema its base URI, dialect and resource, and
 * registering $id resources and $anchor / $dynamicAnchor names; then
 * compile_node() decodes keywords, resolving $ref targets through that
 * index (loading registered or built-in documents on demand). Nodes are
 * memoized by json_t address and registered before their keywords are
 * compiled, so reference cycles terminate here and become graph cycles. */
#include "schema/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/formats.h"
#include "schema/jsonval.h"
#include "schema/uri.h"
#include "json/load.h"

#define URI_2020     "https://json-schema.org/draft/2020-12/schema"
#define URI_DRAFT7   "http://json-schema.org/draft-07/schema"
#define VOCAB_PREFIX "https://json-schema.org/draft/2020-12/vocab/"

typedef struct info {
  const char *base; /* base URI without fragment */
  mcp__resource *res;
  mcp__dialect d;
} info;

typedef struct cctx {
  mcp_schema_t *s;
  /* What only compile needs (subschema infos, map keys, the JSON Pointers of
   * error messages) lives here and is released when compile returns; what
   * the compiled schema keeps goes to its own arena. */
  mcp__arena scratch;
  const mcp_schema_options_t *opt;
  mcp_error_t *err;
  mcp__map resources; /* uri (no fragment) -> json_t* */
  mcp__map anchors;   /* "uri#name" -> json_t* */
  mcp__map infos;     /* json_t* -> info* */
  mcp__map nodes;     /* json_t* -> mcp__node* */
  mcp__map res_objs;  /* uri -> mcp__resource* */
  mcp__resource **reslist;
  size_t nres, capres;
  unsigned depth;
  unsigned max_depth;
  bool failed;
} cctx;

static bool fail(cctx *c, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static bool fail(cctx *c, const char *where, const char *fmt, ...) {
  if (c->failed)
    return false;
  c->failed = true;
  if (c->err != NULL) {
    c->err->status = MCP_ERR_SCHEMA;
    c->err->rpc_code = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err->message, sizeof c->err->message, fmt, ap);
    va_end(ap);
    snprintf(c->err->pointer, sizeof c->err->pointer, "%s", where ? where : "");
  }
  return false;
}

static bool oom(cctx *c) {
  if (!c->failed && c->err != NULL) {
    mcp_error_set(c->err, MCP_ERR_NOMEM, "out of memory compiling schema");
  }
  c->failed = true;
  if (c->err != NULL)
    c->err->status = MCP_ERR_NOMEM;
  return false;
}

static char *astrdup(cctx *c, const char *s) {
  char *p = mcp__arena_strdup(&c->s->arena, s);
  if (p == NULL)
    oom(c);
  return p;
}

static void *aalloc(cctx *c, size_t n) {
  void *p = mcp__arena_alloc(&c->s->arena, n);
  if (p == NULL)
    oom(c);
  return p;
}

static char *sstrdup(cctx *c, const char *s) {
  char *p = mcp__arena_strdup(&c->scratch, s);
  if (p == NULL)
    oom(c);
  return p;
}

static void *salloc(cctx *c, size_t n) {
  void *p = mcp__arena_alloc(&c->scratch, n);
  if (p == NULL)
    oom(c);
  return p;
}

/* Keeps a reference to a document for the schema's lifetime. */
static bool keep_doc(cctx *c, json_t *doc) {
  json_t **nd = realloc(c->s->docs, (c->s->ndocs + 1) * sizeof *nd);
  if (nd == NULL)
    return oom(c);
  c->s->docs = nd;
  nd[c->s->ndocs++] = json_incref(doc);
  return true;
}

/* ---- dialects ------------------------------------------------------------ */

static json_t *find_document(cctx *c, const char *uri, const char **doc_uri);

static bool dialect_for(cctx *c, const char *uri, const char *where,
                        mcp__dialect *d, int hops) {
  if (mcp__uri_same(uri, URI_2020)) {
    *d = (mcp__dialect){MCP__DRAFT_2020, MCP__V_ALL_2020};
    return true;
  }
  if (mcp__uri_same(uri, URI_DRAFT7)) {
    *d = (mcp__dialect){MCP__DRAFT_7, MCP__V_ALL_2020 & ~MCP__V_UNEVALUATED};
    return true;
  }
  /* A custom meta-schema: registered documents only. */
  const char *doc_uri = NULL;
  json_t *meta = hops < 8 ? find_document(c, uri, &doc_uri) : NULL;
  if (meta == NULL || !json_is_object(meta))
    return fail(c, where, "unsupported JSON Schema dialect \"%s\"", uri);
  json_t *ms = json_object_get(meta, "$schema");
  mcp__dialect base = {MCP__DRAFT_2020, MCP__V_ALL_2020};
  if (json_is_string(ms) && !mcp__uri_same(json_string_value(ms), uri)) {
    if (!dialect_for(c, json_string_value(ms), where, &base, hops + 1))
      return false;
  }
  json_t *vocab = json_object_get(meta, "$vocabulary");
  if (json_is_object(vocab) && base.draft == MCP__DRAFT_2020) {
    static const struct {
      const char *name;
      unsigned bit;
    } known[] = {{"core", MCP__V_CORE},
                 {"applicator", MCP__V_APPLICATOR},
                 {"unevaluated", MCP__V_UNEVALUATED},
                 {"validation", MCP__V_VALIDATION},
                 {"meta-data", MCP__V_METADATA},
                 {"format-annotation", MCP__V_FORMAT_ANNOTATION},
                 {"format-assertion", MCP__V_FORMAT_ASSERTION},
                 {"content", MCP__V_CONTENT}};
    unsigned bits = 0;
    const char *k;
    json_t *v;
    json_object_foreach(vocab, k, v) {
      bool found = false;
      if (strncmp(k, VOCAB_PREFIX, strlen(VOCAB_PREFIX)) == 0) {
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
          if (strcmp(k + strlen(VOCAB_PREFIX), known[i].name) == 0) {
            bits |= known[i].bit;
            found = true;
          }
      }
      if (!found && json_is_true(v))
        return fail(c, where, "unsupported required vocabulary \"%s\"", k);
    }
    base.vocab = bits | MCP__V_CORE;
  }
  *d = base;
  return true;
}

/* ---- indexing --------------------------------------------------------------
 */

static mcp__resource *new_resource(cctx *c, const char *uri) {
  mcp__resource *r = mcp__map_get(&c->res_objs, uri);
  if (r != NULL)
    return r;
  r = aalloc(c, sizeof *r);
  if (r == NULL)
    return NULL;
  r->uri = astrdup(c, uri);
  if (r->uri == NULL)
    return NULL;
  if (!mcp__map_put(&c->res_objs, r->uri, r)) {
    oom(c);
    return NULL;
  }
  if (c->nres == c->capres) {
    size_t nc = c->capres ? c->capres * 2 : 16;
    mcp__resource **nl = realloc(c->reslist, nc * sizeof *nl);
    if (nl == NULL) {
      oom(c);
      return NULL;
    }
    c->reslist = nl;
    c->capres = nc;
  }
  c->reslist[c->nres++] = r;
  return r;
}

static bool add_dyn_anchor(cctx *c, mcp__resource *r, const char *name,
                           json_t *js) {
  for (size_t i = 0; i < r->ndyn; i++)
    if (strcmp(r->dyn[i].name, name) == 0)
      return true;
  if (r->ndyn == r->capdyn) {
    size_t nc = r->capdyn ? r->capdyn * 2 : 4;
    mcp__dyn_anchor *nd = aalloc(c, nc * sizeof *nd);
    if (nd == NULL)
      return false;
    if (r->ndyn)
      memcpy(nd, r->dyn, r->ndyn * sizeof *nd);
    r->dyn = nd;
    r->capdyn = nc;
  }
  const char *nm = astrdup(c, name);
  if (nm == NULL)
    return false;
  r->dyn[r->ndyn++] = (mcp__dyn_anchor){nm, js, NULL};
  return true;
}

static bool put_anchor(cctx *c, const char *base, const char *name,
                       json_t *js) {
  size_t n = strlen(base) + strlen(name) + 2;
  char *key = salloc(c, n);
  if (key == NULL)
    return false;
  snprintf(key, n, "%s#%s", base, name);
  if (mcp__map_get(&c->anchors, key) == NULL &&
      !mcp__map_put(&c->anchors, key, js))
    return oom(c);
  return true;
}

static bool index_schema(cctx *c, json_t *js, const char *base,
                         mcp__resource *res, mcp__dialect d, bool doc_root,
                         unsigned depth);

static bool index_map(cctx *c, json_t *obj, const char *base,
                      mcp__resource *res, mcp__dialect d, unsigned depth) {
  if (!json_is_object(obj))
    return true;
  const char *k;
  json_t *v;
  json_object_foreach(obj, k, v) {
    if (!index_schema(c, v, base, res, d, false, depth + 1))
      return false;
  }
  return true;
}

static bool index_list(cctx *c, json_t *arr, const char *base,
                       mcp__resource *res, mcp__dialect d, unsigned depth) {
  if (!json_is_array(arr))
    return true;
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) {
    if (!index_schema(c, v, base, res, d, false, depth + 1))
      return false;
  }
  return true;
}

static bool index_schema(cctx *c, json_t *js, const char *base,
                         mcp__resource *res, mcp__dialect d, bool doc_root,
                         unsigned depth) {
  if (!json_is_object(js) && !json_is_boolean(js))
    return true;
  if (mcp__map_get(&c->infos, js) != NULL)
    return true;
  if (depth > c->max_depth)
    return fail(c, "", "schema nesting exceeds the depth limit of %u",
                c->max_depth);
  if (json_is_object(js)) {
    json_t *id = json_object_get(js, "$id");
    bool ref_only =
        d.draft == MCP__DRAFT_7 && json_object_get(js, "$ref") != NULL;
    json_t *sch = json_object_get(js, "$schema");
    if (json_is_string(sch) &&
        (doc_root || (json_is_string(id) && !ref_only))) {
      if (!dialect_for(c, json_string_value(sch), "/$schema", &d, 0))
        return false;
      ref_only = d.draft == MCP__DRAFT_7 && json_object_get(js, "$ref");
    }
    if (json_is_string(id) && !ref_only) {
      const char *ids = json_string_value(id);
      if (d.draft == MCP__DRAFT_7 && ids[0] == '#') {
        if (!put_anchor(c, base, ids + 1, js))
          return false;
      } else {
        char *full = mcp__uri_resolve(base, ids);
        if (full == NULL)
          return oom(c);
        size_t sl = mcp__uri_strip_len(full);
        if (d.draft == MCP__DRAFT_7 && full[sl] == '#' && full[sl + 1]) {
          full[sl] = '\0';
          if (!put_anchor(c, full, full + sl + 1, js)) {
            free(full);
            return false;
          }
        }
        full[sl] = '\0';
        base = sstrdup(c, full);
        free(full);
        if (base == NULL)
          return false;
        res = new_resource(c, base);
        if (res == NULL)
          return false;
        if (mcp__map_get(&c->resources, base) == NULL &&
            !mcp__map_put(&c->resources, base, js))
          return oom(c);
      }
    }
  }
  info *inf = salloc(c, sizeof *inf);
  if (inf == NULL)
    return false;
  inf->base = base;
  inf->res = res;
  inf->d = d;
  if (!mcp__map_put(&c->infos, js, inf))
    return oom(c);
  if (!json_is_object(js))
    return true;
  if (d.draft == MCP__DRAFT_7 && json_object_get(js, "$ref") != NULL)
    return true;
  if (d.draft == MCP__DRAFT_2020) {
    json_t *a = json_object_get(js, "$anchor");
    if (json_is_string(a) && !put_anchor(c, base, json_string_value(a), js))
      return false;
    json_t *da = json_object_get(js, "$dynamicAnchor");
    if (json_is_string(da)) {
      if (!put_anchor(c, base, json_string_value(da), js) ||
          !add_dyn_anchor(c, res, json_string_value(da), js))
        return false;
    }
  }
  static const char *const maps[] = {"$defs", "definitions", "properties",
                                     "patternProperties", "dependentSchemas"};
  static const char *const singles[] = {"additionalProperties",
                                        "propertyNames",
                                        "unevaluatedProperties",
                                        "unevaluatedItems",
                                        "contains",
                                        "not",
                                        "if",
                                        "then",
                                        "else",
                                        "additionalItems",
                                        "contentSchema",
                                        "items"};
  static const char *const lists[] = {"allOf", "anyOf", "oneOf", "prefixItems",
                                      "items"};
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
    if (!index_map(c, json_object_get(js, maps[i]), base, res, d, depth))
      return false;
  for (size_t i = 0; i < sizeof singles / sizeof singles[0]; i++)
    if (!index_schema(c, json_object_get(js, singles[i]), base, res, d, false,
                      depth + 1))
      return false;
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    if (!index_list(c, json_object_get(js, lists[i]), base, res, d, depth))
      return false;
  if (!index_map(c, json_object_get(js, "dependencies"), base, res, d, depth))
    return false;
  return true;
}

/* Indexes a whole document registered (or built in) under uri. */
static bool load_document(cctx *c, json_t *doc, const char *uri) {
  if (mcp__map_get(&c->infos, doc) != NULL)
    return true;
  const char *u = sstrdup(c, uri);
  if (u == NULL)
    return false;
  mcp__resource *res = new_resource(c, u);
  if (res == NULL)
    return false;
  if (mcp__map_get(&c->resources, u) == NULL &&
      !mcp__map_put(&c->resources, u, doc))
    return oom(c);
  mcp__dialect d = {MCP__DRAFT_2020, MCP__V_ALL_2020};
  return index_schema(c, doc, u, res, d, true, 0);
}

/* A registered or built-in document whose URI (or embedded $id) is uri.
 * *doc_uri receives the document's own URI (borrowed: the registry outlives
 * compile, built-in URIs are static). Borrowed result. */
static json_t *find_document(cctx *c, const char *uri, const char **doc_uri) {
  size_t ul = mcp__uri_strip_len(uri);
  const mcp_schema_registry_t *reg = c->opt ? c->opt->registry : NULL;
  if (reg != NULL) {
    for (size_t i = 0; i < reg->count; i++) {
      const char *du = reg->docs[i].uri;
      if (strlen(du) == ul && strncmp(du, uri, ul) == 0) {
        *doc_uri = du;
        return reg->docs[i].doc;
      }
    }
  }
  size_t nb;
  const mcp__builtin_doc *b = mcp__metaschemas(&nb);
  for (size_t i = 0; i < nb; i++) {
    const char *du = b[i].uri;
    if (strlen(du) == ul && strncmp(du, uri, ul) == 0) {
      /* Parse on demand; the schema keeps the parsed copy. */
      for (size_t k = 0; k < c->s->ndocs; k++) {
        json_t *id = json_object_get(c->s->docs[k], "$id");
        if (json_is_string(id) && mcp__uri_same(json_string_value(id), du)) {
          *doc_uri = du;
          return c->s->docs[k];
        }
      }
      json_t *doc = json_loads(b[i].text, 0, NULL);
      if (doc == NULL)
        return NULL;
      bool ok = keep_doc(c, doc);
      json_decref(doc);
      if (!ok)
        return NULL;
      *doc_uri = du;
      return doc;
    }
  }
  return NULL;
}

/* Makes sure the resource uri (no fragment) is indexed; its root or NULL. */
static json_t *ensure_resource(cctx *c, const char *uri) {
  json_t *r = mcp__map_get(&c->resources, uri);
  if (r != NULL)
    return r;
  const char *doc_uri = NULL;
  json_t *doc = find_document(c, uri, &doc_uri);
  if (doc == NULL) {
    /* Registered documents may embed the resource under an $id. */
    const mcp_schema_registry_t *reg = c->opt ? c->opt->registry : NULL;
    for (size_t i = 0; reg != NULL && i < reg->count; i++) {
      if (mcp__map_get(&c->infos, reg->docs[i].doc) != NULL)
        continue;
      if (!load_document(c, reg->docs[i].doc, reg->docs[i].uri))
        return NULL;
      if (!keep_doc(c, reg->docs[i].doc))
        return NULL;
      r = mcp__map_get(&c->resources, uri);
      if (r != NULL)
        return r;
    }
    return NULL;
  }
  bool ok = load_document(c, doc, doc_uri);
  if (ok && c->opt && c->opt->registry) {
    /* registry documents: hold a reference (idempotent enough) */
    for (size_t i = 0; i < c->opt->registry->count; i++)
      if (c->opt->registry->docs[i].doc == doc) {
        ok = keep_doc(c, doc);
        break;
      }
  }
  if (!ok)
    return NULL;
  return mcp__map_get(&c->resources, uri);
}

typedef struct walk_state {
  cctx *c;
  const info *last;
} walk_state;

static void walk_visit(json_t *v, void *ud) {
  walk_state *w = ud;
  const info *i = mcp__map_get(&w->c->infos, v);
  if (i != NULL)
    w->last = i;
}

/* Resolves ref (already absolute or relative to base) to a subschema that is
 * indexed. NULL (and c->failed) when it does not resolve. *frag_out, when
 * asked for, receives the fragment (scratch) or NULL. */
static json_t *resolve_ref(cctx *c, const char *base, const char *ref,
                           const char *where, const char **frag_out) {
  char *full = mcp__uri_resolve(base, ref);
  if (full == NULL) {
    oom(c);
    return NULL;
  }
  size_t sl = mcp__uri_strip_len(full);
  char *frag = full[sl] == '#' ? full + sl + 1 : NULL;
  full[sl] = '\0';
  json_t *root = ensure_resource(c, full);
  json_t *target = NULL;
  if (root == NULL) {
    if (!c->failed)
      fail(c, where, "cannot resolve $ref \"%s\": unknown resource \"%s\"", ref,
           full);
    free(full);
    return NULL;
  }
  if (frag == NULL || frag[0] == '\0') {
    target = root;
  } else if (frag[0] == '/') {
    if (!mcp__uri_percent_decode(frag)) {
      fail(c, where, "malformed $ref \"%s\"", ref);
      free(full);
      return NULL;
    }
    walk_state w = {c, NULL};
    target = mcp__pointer_get(root, frag, walk_visit, &w);
    if (target != NULL && mcp__map_get(&c->infos, target) == NULL &&
        w.last != NULL) {
      /* A subschema under an unknown keyword: index it in the scope of its
       * nearest known ancestor. */
      if (!index_schema(c, target, w.last->base, w.last->res, w.last->d, false,
                        0)) {
        free(full);
        return NULL;
      }
    }
  } else {
    size_t n = strlen(full) + strlen(frag) + 2;
    char *key = salloc(c, n);
    if (key == NULL) {
      free(full);
      return NULL;
    }
    snprintf(key, n, "%s#%s", full, frag);
    target = mcp__map_get(&c->anchors, key);
  }
  if (target == NULL) {
    fail(c, where, "cannot resolve $ref \"%s\"", ref);
    free(full);
    return NULL;
  }
  if (frag_out != NULL)
    *frag_out = frag ? sstrdup(c, frag) : NULL;
  free(full);
  return target;
}

/* ---- keyword compilation ---------------------------------------------------
 */

static mcp__node *compile_node(cctx *c, json_t *js, const char *where);

typedef struct kwlist {
  mcp__kw *items;
  size_t count, cap;
} kwlist;

static mcp__kw *kw_add(cctx *c, kwlist *l, mcp__op op, unsigned tmask,
                       const char *loc) {
  if (l->count == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 8;
    mcp__kw *ni = realloc(l->items, nc * sizeof *ni);
    if (ni == NULL) {
      oom(c);
      return NULL;
    }
    l->items = ni;
    l->cap = nc;
  }
  mcp__kw *k = &l->items[l->count++];
  memset(k, 0, sizeof *k);
  k->op = op;
  k->tmask = tmask;
  k->loc = loc;
  return k;
}

/* "<where>/<kw>" for error pointers and child locations (scratch). */
static char *path_join(cctx *c, const char *where, const char *seg) {
  char *r = mcp__pointer_join(&c->scratch, where, seg);
  if (r == NULL)
    oom(c);
  return r;
}

/* "kw/<escaped name>" relative location, kept by the compiled schema. */
static char *rel_loc(cctx *c, const char *kw, const char *name) {
  char *r = mcp__pointer_join(&c->s->arena, kw, name);
  if (r == NULL)
    oom(c);
  return r;
}

static bool get_count(cctx *c, json_t *v, const char *where, const char *kw,
                      size_t *out) {
  if (json_is_integer(v) && json_integer_value(v) >= 0) {
    *out = (size_t)json_integer_value(v);
    return true;
  }
  if (json_is_real(v) && mcp__num_is_integral(v) && json_real_value(v) >= 0) {
    double d = json_real_value(v);
    *out = d > 1e18 ? (size_t)1e18 : (size_t)d;
    return true;
  }
  return fail(c, where, "\"%s\" must be a non-negative integer", kw);
}

static mcp__node **compile_array(cctx *c, json_t *arr, const char *where,
                                 const char *kw, const char ***locs_out,
                                 size_t *count) {
  char *kwpath = path_join(c, where, kw);
  if (kwpath == NULL)
    return NULL;
  if (!json_is_array(arr) || json_array_size(arr) == 0) {
    fail(c, kwpath, "\"%s\" must be a non-empty array of schemas", kw);
    return NULL;
  }
  size_t n = json_array_size(arr);
  mcp__node **nodes = aalloc(c, n * sizeof *nodes);
  const char **locs = aalloc(c, n * sizeof *locs);
  if (nodes == NULL || locs == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    char idx[24];
    snprintf(idx, sizeof idx, "%zu", i);
    locs[i] = rel_loc(c, kw, idx);
    char *cw = path_join(c, kwpath, idx);
    if (locs[i] == NULL || cw == NULL)
      return NULL;
    nodes[i] = compile_node(c, json_array_get(arr, i), cw);
    if (nodes[i] == NULL)
      return NULL;
  }
  if (locs_out)
    *locs_out = locs;
  *count = n;
  return nodes;
}

static mcp__node *compile_child(cctx *c, json_t *v, const char *where,
                                const char *kw) {
  char *cw = path_join(c, where, kw);
  if (cw == NULL)
    return NULL;
  return compile_node(c, v, cw);
}

/* Looks for a multiplier that sends the names' signatures to distinct slots
 * of a table of 2^bits bytes (bits from ceil(log2(count)) + 1 up to + 3);
 * leaves t->ph NULL when the table is large or no multiplier is found within
 * a bounded number of tries (signatures may even collide). */
static void build_phash(cctx *c, mcp__ptable *t) {
  t->ph = NULL;
  if (t->count == 0 || t->count > 64)
    return;
  uint32_t sig[64];
  for (size_t i = 0; i < t->count; i++)
    sig[i] = t->props[i].sig;
  unsigned lg = 0;
  while ((1u << lg) < t->count)
    lg++;
  uint8_t tab[1u << 10];
  uint32_t mul = 0x9E3779B1u; /* walks a fixed sequence: deterministic */
  for (unsigned bits = lg + 1; bits <= lg + 3 && bits <= 10; bits++) {
    size_t size = (size_t)1 << bits;
    for (int attempt = 0; attempt < 256; attempt++) {
      mul = mul * 1664525u + 1013904223u;
      uint32_t m = mul | 1u;
      memset(tab, 0, size);
      size_t i;
      for (i = 0; i < t->count; i++) {
        uint32_t h = (sig[i] * m) >> (32 - bits);
        if (tab[h] != 0)
          break;
        tab[h] = (uint8_t)(i + 1);
      }
      if (i < t->count)
        continue;
      t->ph = aalloc(c, size);
      if (t->ph == NULL)
        return; /* the slots table still works; c->failed is set by aalloc */
      memcpy(t->ph, tab, size);
      t->ph_mul = m;
      t->ph_shift = (uint8_t)(32 - bits);
      return;
    }
  }
}

static bool build_ptable(cctx *c, mcp__ptable *t, json_t *obj,
                         const char *where, const char *kw, bool schemas) {
  char *kwpath = path_join(c, where, kw);
  if (kwpath == NULL)
    return false;
  if (!json_is_object(obj))
    return fail(c, kwpath, "\"%s\" must be an object", kw);
  size_t n = json_object_size(obj);
  t->count = n;
  t->props = aalloc(c, (n ? n : 1) * sizeof *t->props);
  size_t cap = 4;
  while (cap < n * 2)
    cap *= 2;
  t->mask = cap - 1;
  t->slots = aalloc(c, cap * sizeof *t->slots);
  if (t->props == NULL || t->slots == NULL)
    return false;
  size_t i = 0;
  const char *k;
  size_t kl;
  json_t *v;
  json_object_keylen_foreach(obj, k, kl, v) {
    mcp__prop *p = &t->props[i];
    p->name = mcp__arena_strndup(&c->s->arena, k, kl);
    p->len = kl;
    p->hash = mcp__hash_bytes(k, kl);
    p->sig = mcp__key_sig(k, kl);
    p->loc = rel_loc(c, kw, k);
    if (p->name == NULL || p->loc == NULL)
      return oom(c);
    if (schemas) {
      char *cw = path_join(c, kwpath, k);
      if (cw == NULL)
        return false;
      p->node = compile_node(c, v, cw);
      if (p->node == NULL)
        return false;
    }
    size_t s = p->hash & t->mask;
    while (t->slots[s] != 0)
      s = (s + 1) & t->mask;
    t->slots[s] = (uint32_t)(i + 1);
    i++;
  }
  build_phash(c, t);
  return true;
}

static bool string_array(cctx *c, json_t *arr, const char *where,
                         const char *kw, const char ***names, size_t **lens,
                         size_t *count) {
  if (!json_is_array(arr))
    return fail(c, where, "\"%s\" must be an array of strings", kw);
  size_t n = json_array_size(arr);
  *names = aalloc(c, (n ? n : 1) * sizeof **names);
  *lens = aalloc(c, (n ? n : 1) * sizeof **lens);
  if (*names == NULL || *lens == NULL)
    return false;
  for (size_t i = 0; i < n; i++) {
    json_t *v = json_array_get(arr, i);
    if (!json_is_string(v))
      return fail(c, where, "\"%s\" must be an array of strings", kw);
    (*names)[i] = mcp__arena_strndup(&c->s->arena, json_string_value(v),
                                     json_string_length(v));
    (*lens)[i] = json_string_length(v);
    if ((*names)[i] == NULL)
      return oom(c);
  }
  *count = n;
  return true;
}

/* k->u.depreq from an object of string arrays: "dependentRequired", or the
 * array entries of draft-07 "dependencies". */
static bool compile_dep_required(cctx *c, mcp__kw *k, json_t *obj,
                                 const char *where, const char *kw) {
  size_t n = json_object_size(obj), i = 0;
  k->u.depreq.deps = aalloc(c, (n ? n : 1) * sizeof(mcp__dep_req));
  if (k->u.depreq.deps == NULL)
    return false;
  k->u.depreq.count = n;
  const char *key;
  size_t kl;
  json_t *arr;
  json_object_keylen_foreach(obj, key, kl, arr) {
    mcp__dep_req *dr = &k->u.depreq.deps[i++];
    dr->name = mcp__arena_strndup(&c->s->arena, key, kl);
    dr->len = kl;
    if (dr->name == NULL ||
        !string_array(c, arr, where, kw, &dr->req, &dr->req_len, &dr->nreq))
      return false;
  }
  return true;
}

static mcp__regex *compile_regex(cctx *c, json_t *v, const char *where) {
  if (!json_is_string(v)) {
    fail(c, where, "a regular expression must be a string");
    return NULL;
  }
  char msg[200];
  mcp__regex *re = mcp__regex_compile(json_string_value(v),
                                      json_string_length(v), msg, sizeof msg);
  if (re == NULL) {
    fail(c, where, "%s", msg);
    return NULL;
  }
  mcp__regex **nr = realloc(c->s->regexes, (c->s->nregexes + 1) * sizeof *nr);
  if (nr == NULL) {
    mcp__regex_free(re);
    oom(c);
    return NULL;
  }
  c->s->regexes = nr;
  nr[c->s->nregexes++] = re;
  return re;
}

static bool compile_type(cctx *c, kwlist *l, json_t *v, const char *where) {
  static const struct {
    const char *name;
    unsigned bit;
  } names[] = {{"null", MCP__T_NULL},       {"boolean", MCP__T_BOOL},
               {"integer", MCP__T_INTEGER}, {"number", MCP__T_NUMBER},
               {"string", MCP__T_STRING},   {"array", MCP__T_ARRAY},
               {"object", MCP__T_OBJECT}};
  unsigned mask = 0;
  size_t n = json_is_array(v) ? json_array_size(v) : 1;
  for (size_t i = 0; i < n; i++) {
    json_t *t = json_is_array(v) ? json_array_get(v, i) : v;
    bool ok = false;
    for (size_t k = 0; json_is_string(t) && k < 7; k++)
      if (strcmp(json_string_value(t), names[k].name) == 0) {
        mask |= names[k].bit;
        ok = true;
      }
    if (!ok)
      return fail(c, where, "\"type\" must name JSON types");
  }
  mcp__kw *k = kw_add(c, l, MCP__OP_TYPE, MCP__T_ANY, "type");
  if (k == NULL)
    return false;
  k->u.types = mask;
  return true;
}

/* u.val for const and numeric bounds: the value and its decoded form. */
static void set_val(mcp__kw *k, const json_t *v) {
  k->u.val.value = v;
  k->u.val.kind = MCP__VAL_OTHER;
  if (json_is_integer(v)) {
    k->u.val.kind = MCP__VAL_INT;
    k->u.val.i = json_integer_value(v);
  } else if (json_is_real(v)) {
    k->u.val.kind = MCP__VAL_REAL;
    k->u.val.d = json_real_value(v);
  } else if (json_is_string(v)) {
    k->u.val.kind = MCP__VAL_STRING;
    k->u.val.s = json_string_value(v);
    k->u.val.slen = json_string_length(v);
  }
}

static bool compile_enum(cctx *c, kwlist *l, json_t *v, const char *where) {
  if (!json_is_array(v))
    return fail(c, where, "\"enum\" must be an array");
  size_t n = json_array_size(v);
  mcp__kw *k = kw_add(c, l, MCP__OP_ENUM, MCP__T_ANY, "enum");
  if (k == NULL)
    return false;
  k->u.en.count = n;
  k->u.en.values = aalloc(c, (n ? n : 1) * sizeof(json_t *));
  k->u.en.hashes = aalloc(c, (n ? n : 1) * sizeof(uint64_t));
  k->u.en.strs = aalloc(c, (n ? n : 1) * sizeof(char *));
  k->u.en.lens = aalloc(c, (n ? n : 1) * sizeof(size_t));
  if (k->u.en.values == NULL || k->u.en.hashes == NULL ||
      k->u.en.strs == NULL || k->u.en.lens == NULL)
    return false;
  for (size_t i = 0; i < n; i++) {
    json_t *e = json_array_get(v, i);
    k->u.en.values[i] = e;
    k->u.en.hashes[i] = mcp__json_hash(e);
    k->u.en.strs[i] = json_is_string(e) ? json_string_value(e) : NULL;
    k->u.en.lens[i] = json_is_string(e) ? json_string_length(e) : SIZE_MAX;
  }
  return true;
}

/* Keywords that evaluate no subschema. */
static bool op_is_leaf(mcp__op op) {
  switch (op) {
  case MCP__OP_TYPE:
  case MCP__OP_CONST:
  case MCP__OP_ENUM:
  case MCP__OP_MULTIPLE_OF:
  case MCP__OP_MAXIMUM:
  case MCP__OP_EXCL_MAXIMUM:
  case MCP__OP_MINIMUM:
  case MCP__OP_EXCL_MINIMUM:
  case MCP__OP_MAX_LENGTH:
  case MCP__OP_MIN_LENGTH:
  case MCP__OP_PATTERN:
  case MCP__OP_FORMAT:
  case MCP__OP_MAX_ITEMS:
  case MCP__OP_MIN_ITEMS:
  case MCP__OP_UNIQUE_ITEMS:
  case MCP__OP_MAX_PROPERTIES:
  case MCP__OP_MIN_PROPERTIES:
  case MCP__OP_REQUIRED:
  case MCP__OP_DEP_REQUIRED:
    return true;
  default:
    return false;
  }
}

static unsigned op_rank(mcp__op op) {
  switch (op) {
  case MCP__OP_TYPE:
    return 0;
  case MCP__OP_UNEVAL_ITEMS:
  case MCP__OP_UNEVAL_PROPS:
    return 4;
  case MCP__OP_REF:
  case MCP__OP_DYNREF:
  case MCP__OP_ALLOF:
  case MCP__OP_ANYOF:
  case MCP__OP_ONEOF:
  case MCP__OP_NOT:
  case MCP__OP_IF:
  case MCP__OP_DEP_SCHEMAS:
    return 3;
  case MCP__OP_PROPERTIES:
  case MCP__OP_ITEMS:
  case MCP__OP_CONTAINS:
  case MCP__OP_PROPERTY_NAMES:
    return 2;
  default:
    return 1;
  }
}

/* Moves "required" names that "properties" also lists into the properties
 * table, so one pass over the members checks both; errors keep the
 * "required" keyword location. */
static void fuse_required(kwlist *l) {
  mcp__kw *props = NULL, *req = NULL;
  for (size_t i = 0; i < l->count; i++) {
    if (l->items[i].op == MCP__OP_PROPERTIES)
      props = &l->items[i];
    if (l->items[i].op == MCP__OP_REQUIRED)
      req = &l->items[i];
  }
  if (props == NULL || req == NULL)
    return;
  mcp__ptable *t = &props->u.props.table;
  size_t kept = 0;
  for (size_t i = 0; i < req->u.req.count; i++) {
    mcp__prop *found = NULL;
    for (size_t k = 0; k < t->count; k++)
      if (t->props[k].len == req->u.req.lens[i] &&
          memcmp(t->props[k].name, req->u.req.names[i], t->props[k].len) == 0)
        found = &t->props[k];
    if (found != NULL && !found->required) {
      found->required = true;
      props->u.props.nrequired++;
    } else if (found == NULL) {
      req->u.req.names[kept] = req->u.req.names[i];
      req->u.req.lens[kept] = req->u.req.lens[i];
      kept++;
    }
  }
  req->u.req.count = kept;
  if (kept == 0) {
    size_t idx = (size_t)(req - l->items);
    memmove(req, req + 1, (l->count - idx - 1) * sizeof *req);
    l->count--;
  }
}

static bool compile_keywords(cctx *c, mcp__node *node, json_t *js,
                             const info *inf, const char *where) {
  kwlist l = {0};
  bool ok = false;
  const mcp__dialect d = inf->d;
  const bool d7 = d.draft == MCP__DRAFT_7;
  const unsigned V = d.vocab;
  json_t *v;
  char *kp = NULL; /* pointer of the keyword being compiled */
#define KW(name)                                                               \
  ((v = json_object_get(js, name)) != NULL &&                                  \
   (kp = path_join(c, where, name)) != NULL)
#define CHECK(expr)                                                            \
  do {                                                                         \
    if (!(expr))                                                               \
      goto done;                                                               \
  } while (0)

  if (KW("$ref")) {
    if (!json_is_string(v)) {
      fail(c, kp, "\"$ref\" must be a string");
      goto done;
    }
    json_t *t = resolve_ref(c, inf->base, json_string_value(v), kp, NULL);
    CHECK(t != NULL);
    mcp__kw *k = kw_add(c, &l, MCP__OP_REF, MCP__T_ANY, "$ref");
    CHECK(k != NULL);
    k->u.ref.target = compile_node(c, t, kp);
    CHECK(k->u.ref.target != NULL);
    if (d7) {
      ok = true;
      goto done;
    }
  }
  if (c->failed)
    goto done;
  if (!d7 && KW("$dynamicRef")) {
    if (!json_is_string(v)) {
      fail(c, kp, "\"$dynamicRef\" must be a string");
      goto done;
    }
    const char *frag = NULL;
    json_t *t = resolve_ref(c, inf->base, json_string_value(v), kp, &frag);
    CHECK(t != NULL);
    mcp__kw *k = kw_add(c, &l, MCP__OP_DYNREF, MCP__T_ANY, "$dynamicRef");
    CHECK(k != NULL);
    json_t *da =
        json_is_object(t) ? json_object_get(t, "$dynamicAnchor") : NULL;
    if (frag != NULL && frag[0] != '/' && json_is_string(da) &&
        strcmp(json_string_value(da), frag) == 0) {
      k->u.ref.dynamic = true;
      k->u.ref.name = astrdup(c, frag);
      c->s->has_dynamic = true;
    }
    k->u.ref.target = compile_node(c, t, kp);
    CHECK(k->u.ref.target != NULL);
  }
  if (c->failed)
    goto done;

  if (V & MCP__V_VALIDATION) {
    if (KW("type"))
      CHECK(compile_type(c, &l, v, kp));
    if (KW("enum"))
      CHECK(compile_enum(c, &l, v, kp));
    if (KW("const")) {
      mcp__kw *k = kw_add(c, &l, MCP__OP_CONST, MCP__T_ANY, "const");
      CHECK(k != NULL);
      set_val(k, v);
    }
    static const struct {
      const char *name;
      mcp__op op;
    } nums[] = {{"maximum", MCP__OP_MAXIMUM},
                {"exclusiveMaximum", MCP__OP_EXCL_MAXIMUM},
                {"minimum", MCP__OP_MINIMUM},
                {"exclusiveMinimum", MCP__OP_EXCL_MINIMUM},
                {"multipleOf", MCP__OP_MULTIPLE_OF}};
    for (size_t i = 0; i < 5; i++) {
      if (KW(nums[i].name)) {
        if (!json_is_number(v)) {
          fail(c, kp, "\"%s\" must be a number", nums[i].name);
          goto done;
        }
        if (nums[i].op == MCP__OP_MULTIPLE_OF && !(json_number_value(v) > 0)) {
          fail(c, kp, "\"multipleOf\" must be greater than 0");
          goto done;
        }
        mcp__kw *k = kw_add(c, &l, nums[i].op, MCP__T_NUMBER, nums[i].name);
        CHECK(k != NULL);
        set_val(k, v);
      }
    }
    static const struct {
      const char *name;
      mcp__op op;
      unsigned t;
    } counts[] = {{"maxLength", MCP__OP_MAX_LENGTH, MCP__T_STRING},
                  {"minLength", MCP__OP_MIN_LENGTH, MCP__T_STRING},
                  {"maxItems", MCP__OP_MAX_ITEMS, MCP__T_ARRAY},
                  {"minItems", MCP__OP_MIN_ITEMS, MCP__T_ARRAY},
                  {"maxProperties", MCP__OP_MAX_PROPERTIES, MCP__T_OBJECT},
                  {"minProperties", MCP__OP_MIN_PROPERTIES, MCP__T_OBJECT}};
    for (size_t i = 0; i < 6; i++) {
      if (KW(counts[i].name)) {
        size_t cnt;
        CHECK(get_count(c, v, kp, counts[i].name, &cnt));
        mcp__kw *k = kw_add(c, &l, counts[i].op, counts[i].t, counts[i].name);
        CHECK(k != NULL);
        k->u.count = cnt;
      }
    }
    if (KW("pattern")) {
      mcp__regex *re = compile_regex(c, v, kp);
      CHECK(re != NULL);
      mcp__kw *k = kw_add(c, &l, MCP__OP_PATTERN, MCP__T_STRING, "pattern");
      CHECK(k != NULL);
      k->u.re = re;
    }
    if (KW("uniqueItems")) {
      if (!json_is_boolean(v)) {
        fail(c, kp, "\"uniqueItems\" must be a boolean");
        goto done;
      }
      if (json_is_true(v))
        CHECK(kw_add(c, &l, MCP__OP_UNIQUE_ITEMS, MCP__T_ARRAY,
                     "uniqueItems") != NULL);
    }
    if (KW("required")) {
      mcp__kw *k = kw_add(c, &l, MCP__OP_REQUIRED, MCP__T_OBJECT, "required");
      CHECK(k != NULL);
      CHECK(string_array(c, v, kp, "required", &k->u.req.names, &k->u.req.lens,
                         &k->u.req.count));
    }
    if (!d7 && KW("dependentRequired")) {
      if (!json_is_object(v)) {
        fail(c, kp, "\"dependentRequired\" must be an object");
        goto done;
      }
      mcp__kw *k = kw_add(c, &l, MCP__OP_DEP_REQUIRED, MCP__T_OBJECT,
                          "dependentRequired");
      CHECK(k != NULL);
      CHECK(compile_dep_required(c, k, v, kp, "dependentRequired"));
    }
  }
  if (V & MCP__V_APPLICATOR) {
    static const struct {
      const char *name;
      mcp__op op;
    } lists[] = {{"allOf", MCP__OP_ALLOF},
                 {"anyOf", MCP__OP_ANYOF},
                 {"oneOf", MCP__OP_ONEOF}};
    for (size_t i = 0; i < 3; i++) {
      if (KW(lists[i].name)) {
        const char **locs;
        size_t cnt;
        mcp__node **nodes =
            compile_array(c, v, where, lists[i].name, &locs, &cnt);
        CHECK(nodes != NULL);
        mcp__kw *k = kw_add(c, &l, lists[i].op, MCP__T_ANY, lists[i].name);
        CHECK(k != NULL);
        k->u.list.nodes = nodes;
        k->u.list.locs = locs;
        k->u.list.count = cnt;
      }
    }
    if (KW("not")) {
      mcp__node *nn = compile_child(c, v, where, "not");
      CHECK(nn != NULL);
      mcp__kw *k = kw_add(c, &l, MCP__OP_NOT, MCP__T_ANY, "not");
      CHECK(k != NULL);
      k->u.one.node = nn;
    }
    if (KW("if")) {
      mcp__node *in = compile_child(c, v, where, "if"), *tn = NULL, *en = NULL;
      CHECK(in != NULL);
      json_t *t = json_object_get(js, "then"), *e = json_object_get(js, "else");
      if (t != NULL)
        CHECK((tn = compile_child(c, t, where, "then")) != NULL);
      if (e != NULL)
        CHECK((en = compile_child(c, e, where, "else")) != NULL);
      /* Kept even without then/else: unevaluated* sees its annotations. */
      mcp__kw *k = kw_add(c, &l, MCP__OP_IF, MCP__T_ANY, "if");
      CHECK(k != NULL);
      k->u.cond.if_node = in;
      k->u.cond.then_node = tn;
      k->u.cond.else_node = en;
    }
    if (!d7 && KW("dependentSchemas")) {
      mcp__ptable t = {0};
      CHECK(build_ptable(c, &t, v, where, "dependentSchemas", true));
      mcp__kw *k =
          kw_add(c, &l, MCP__OP_DEP_SCHEMAS, MCP__T_OBJECT, "dependentSchemas");
      CHECK(k != NULL);
      k->u.deps = t;
    }
    /* draft-07 "dependencies"; also honoured in 2020-12 documents for
     * compatibility (optional suite: dependencies-compatibility). */
    if (KW("dependencies")) {
      if (!json_is_object(v)) {
        fail(c, kp, "\"dependencies\" must be an object");
        goto done;
      }
      /* Split into the two 2019+ keywords, keeping the location. */
      json_t *req = json_object(), *sch = json_object();
      const char *key;
      json_t *dv;
      bool good = req && sch;
      json_object_foreach(v, key, dv) {
        if (!good)
          break;
        if (json_is_array(dv))
          good = json_object_set(req, key, dv) == 0;
        else
          good = json_object_set(sch, key, dv) == 0;
      }
      bool kept = good && keep_doc(c, req) && keep_doc(c, sch);
      size_t nreq = json_object_size(req), nsch = json_object_size(sch);
      json_decref(req);
      json_decref(sch);
      if (!kept) {
        oom(c);
        goto done;
      }
      if (nsch > 0) {
        mcp__ptable t = {0};
        CHECK(build_ptable(c, &t, sch, where, "dependencies", true));
        mcp__kw *k =
            kw_add(c, &l, MCP__OP_DEP_SCHEMAS, MCP__T_OBJECT, "dependencies");
        CHECK(k != NULL);
        k->u.deps = t;
      }
      if (nreq > 0) {
        mcp__kw *k =
            kw_add(c, &l, MCP__OP_DEP_REQUIRED, MCP__T_OBJECT, "dependencies");
        CHECK(k != NULL);
        CHECK(compile_dep_required(c, k, req, kp, "dependencies"));
      }
    }
    if (KW("propertyNames")) {
      mcp__node *pn = compile_child(c, v, where, "propertyNames");
      CHECK(pn != NULL);
      mcp__kw *k =
          kw_add(c, &l, MCP__OP_PROPERTY_NAMES, MCP__T_OBJECT, "propertyNames");
      CHECK(k != NULL);
      k->u.one.node = pn;
    }
    json_t *props = json_object_get(js, "properties");
    json_t *pprops = json_object_get(js, "patternProperties");
    json_t *addl = json_object_get(js, "additionalProperties");
    if (props || pprops || addl) {
      mcp__kw tmp = {.op = MCP__OP_PROPERTIES, .tmask = MCP__T_OBJECT};
      tmp.loc = props    ? "properties"
                : pprops ? "patternProperties"
                         : "additionalProperties";
      if (props) {
        CHECK(build_ptable(c, &tmp.u.props.table, props, where, "properties",
                           true));
      }
      if (pprops) {
        char *pp = path_join(c, where, "patternProperties");
        CHECK(pp != NULL);
        if (!json_is_object(pprops)) {
          fail(c, pp, "\"patternProperties\" must be an object");
          goto done;
        }
        size_t n = json_object_size(pprops), i = 0;
        tmp.u.props.patterns =
            aalloc(c, (n ? n : 1) * sizeof(mcp__pattern_prop));
        CHECK(tmp.u.props.patterns != NULL);
        tmp.u.props.npatterns = n;
        const char *key;
        json_t *pv;
        json_object_foreach(pprops, key, pv) {
          mcp__pattern_prop *p = &tmp.u.props.patterns[i++];
          char *cw = path_join(c, pp, key);
          CHECK(cw != NULL);
          json_t *ks = json_string(key);
          if (ks == NULL) {
            oom(c);
            goto done;
          }
          p->re = compile_regex(c, ks, cw);
          json_decref(ks);
          CHECK(p->re != NULL);
          p->loc = rel_loc(c, "patternProperties", key);
          CHECK(p->loc != NULL);
          p->node = compile_node(c, pv, cw);
          CHECK(p->node != NULL);
        }
      }
      if (addl) {
        tmp.u.props.additional =
            compile_child(c, addl, where, "additionalProperties");
        CHECK(tmp.u.props.additional != NULL);
        tmp.u.props.additional_loc = "additionalProperties";
      }
      mcp__kw *k = kw_add(c, &l, MCP__OP_PROPERTIES, MCP__T_OBJECT, tmp.loc);
      CHECK(k != NULL);
      *k = tmp;
    }
    /* Arrays: 2020-12 prefixItems + items; draft-07 items[] + additionalItems
     */
    json_t *items = json_object_get(js, "items");
    json_t *prefix = d7 ? (json_is_array(items) ? items : NULL)
                        : json_object_get(js, "prefixItems");
    json_t *rest =
        d7 ? (json_is_array(items) ? json_object_get(js, "additionalItems")
                                   : items)
           : items;
    if (prefix || rest) {
      mcp__kw tmp = {.op = MCP__OP_ITEMS, .tmask = MCP__T_ARRAY};
      const char *pkw = d7 ? "items" : "prefixItems";
      const char *rkw = d7 && prefix ? "additionalItems" : "items";
      tmp.u.items.prefix_kw = pkw;
      tmp.loc = prefix ? pkw : rkw;
      if (prefix) {
        tmp.u.items.prefix =
            compile_array(c, prefix, where, pkw, NULL, &tmp.u.items.nprefix);
        CHECK(tmp.u.items.prefix != NULL);
      }
      if (rest) {
        if (!d7 && json_is_array(rest)) {
          fail(c, kp, "\"items\" must be a schema in draft 2020-12");
          goto done;
        }
        tmp.u.items.rest = compile_child(c, rest, where, rkw);
        CHECK(tmp.u.items.rest != NULL);
        tmp.u.items.rest_loc = rkw;
      }
      mcp__kw *k = kw_add(c, &l, MCP__OP_ITEMS, MCP__T_ARRAY, tmp.loc);
      CHECK(k != NULL);
      *k = tmp;
    }
    if (KW("contains")) {
      mcp__node *cn = compile_child(c, v, where, "contains");
      CHECK(cn != NULL);
      size_t mn = 1, mx = SIZE_MAX;
      json_t *mnv = (V & MCP__V_VALIDATION) && !d7
                        ? json_object_get(js, "minContains")
                        : NULL;
      json_t *mxv = (V & MCP__V_VALIDATION) && !d7
                        ? json_object_get(js, "maxContains")
                        : NULL;
      if (mnv)
        CHECK(get_count(c, mnv, where, "minContains", &mn));
      if (mxv)
        CHECK(get_count(c, mxv, where, "maxContains", &mx));
      mcp__kw *k = kw_add(c, &l, MCP__OP_CONTAINS, MCP__T_ARRAY, "contains");
      CHECK(k != NULL);
      k->u.contains.node = cn;
      k->u.contains.min = mn;
      k->u.contains.max = mx;
      k->u.contains.min_loc = mnv ? "minContains" : "contains";
      k->u.contains.max_loc = "maxContains";
    }
  }
  if (!d7 && (V & MCP__V_UNEVALUATED)) {
    if (KW("unevaluatedItems")) {
      mcp__node *un = compile_child(c, v, where, "unevaluatedItems");
      CHECK(un != NULL);
      mcp__kw *k =
          kw_add(c, &l, MCP__OP_UNEVAL_ITEMS, MCP__T_ARRAY, "unevaluatedItems");
      CHECK(k != NULL);
      k->u.one.node = un;
      node->uneval = true;
    }
    if (KW("unevaluatedProperties")) {
      mcp__node *un = compile_child(c, v, where, "unevaluatedProperties");
      CHECK(un != NULL);
      mcp__kw *k = kw_add(c, &l, MCP__OP_UNEVAL_PROPS, MCP__T_OBJECT,
                          "unevaluatedProperties");
      CHECK(k != NULL);
      k->u.one.node = un;
      node->uneval = true;
      node->uneval_props = true;
    }
  }
  if (KW("format")) {
    bool assert_fmt =
        (c->opt && c->opt->assert_formats) || (V & MCP__V_FORMAT_ASSERTION);
    if (!json_is_string(v)) {
      fail(c, kp, "\"format\" must be a string");
      goto done;
    }
    mcp__format_fn fn = mcp__format_lookup(json_string_value(v));
    if (assert_fmt && fn != NULL) {
      mcp__kw *k = kw_add(c, &l, MCP__OP_FORMAT, MCP__T_STRING, "format");
      CHECK(k != NULL);
      k->u.format.fn = fn;
      k->u.format.name = astrdup(c, json_string_value(v));
    }
  }
  ok = !c->failed;
done:
#undef KW
#undef CHECK
  if (ok)
    fuse_required(&l);
  if (ok) {
    /* stable sort by rank: cheap assertions first, unevaluated* last */
    for (size_t i = 1; i < l.count; i++) {
      mcp__kw t = l.items[i];
      size_t j = i;
      while (j > 0 && op_rank(l.items[j - 1].op) > op_rank(t.op)) {
        l.items[j] = l.items[j - 1];
        j--;
      }
      l.items[j] = t;
    }
    node->kw = aalloc(c, (l.count ? l.count : 1) * sizeof *node->kw);
    if (node->kw == NULL) {
      ok = false;
    } else {
      if (l.count)
        memcpy(node->kw, l.items, l.count * sizeof *node->kw);
      node->nkw = (uint16_t)l.count;
      node->leaf = !node->uneval;
      node->types = MCP__T_ANY;
      node->type_first = 0;
      if (l.count && l.items[0].op == MCP__OP_TYPE) {
        node->types = l.items[0].u.types;
        node->type_first = 1;
      }
      node->flat = !node->uneval && l.count == node->type_first + 1u &&
                   l.items[node->type_first].op == MCP__OP_PROPERTIES &&
                   l.items[node->type_first].u.props.npatterns == 0;
      for (size_t i = 0; i < l.count; i++)
        if (!op_is_leaf(l.items[i].op))
          node->leaf = false;
    }
  }
  free(l.items);
  return ok;
}

static mcp__node *compile_node(cctx *c, json_t *js, const char *where) {
  if (c->failed)
    return NULL;
  mcp__node *n = mcp__map_get(&c->nodes, js);
  if (n != NULL)
    return n;
  if (!json_is_object(js) && !json_is_boolean(js)) {
    fail(c, where, "a schema must be an object or a boolean");
    return NULL;
  }
  const info *inf = mcp__map_get(&c->infos, js);
  if (inf == NULL) {
    /* Reached through a keyword index() does not walk (draft-07 copies of
     * "dependencies" entries): inherits nothing better than the root's. */
    inf = mcp__map_get(&c->infos, c->s->document);
    if (inf == NULL ||
        !index_schema(c, js, inf->base, inf->res, inf->d, false, 0))
      return NULL;
    inf = mcp__map_get(&c->infos, js);
  }
  if (++c->depth > c->max_depth) {
    fail(c, where, "schema nesting exceeds the depth limit of %u",
         c->max_depth);
    return NULL;
  }
  n = aalloc(c, sizeof *n);
  if (n == NULL || !mcp__map_put(&c->nodes, js, n)) {
    oom(c);
    return NULL;
  }
  n->res = inf->res;
  if (json_is_true(js)) {
    n->kind = MCP__NODE_TRUE;
  } else if (json_is_false(js)) {
    n->kind = MCP__NODE_FALSE;
  } else {
    n->kind = MCP__NODE_SCHEMA;
    if (!compile_keywords(c, n, js, inf, where)) {
      c->depth--;
      return NULL;
    }
    if (n->nkw == 0)
      n->kind = MCP__NODE_TRUE; /* no assertions: accepts everything */
  }
  c->depth--;
  return n;
}

/* Compiles every $dynamicAnchor of every loaded resource; compiling may load
 * more resources, so repeat until nothing changes. */
static bool compile_dynamic_anchors(cctx *c) {
  bool again = true;
  while (again && !c->failed) {
    again = false;
    for (size_t i = 0; i < c->nres; i++) {
      mcp__resource *r = c->reslist[i];
      for (size_t k = 0; k < r->ndyn; k++) {
        if (r->dyn[k].node == NULL) {
          r->dyn[k].node = compile_node(c, r->dyn[k].js, r->uri);
          if (r->dyn[k].node == NULL)
            return false;
          again = true;
        }
      }
    }
  }
  return !c->failed;
}

/* ---- public
 * ------------------------------------------------------------------ */

mcp_status mcp_schema_compile(json_t *schema,
                              const mcp_schema_options_t *options,
                              mcp_schema_t **out, mcp_error_t *err) {
  if (out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "out is NULL");
  *out = NULL;
  if (schema == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "schema is NULL");
  if (!json_is_object(schema) && !json_is_boolean(schema))
    return mcp_error_set(err, MCP_ERR_SCHEMA,
                         "a schema must be an object or a boolean");
  mcp_schema_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  s->document = json_incref(schema);
  s->match_limit = options && options->match_limit ? options->match_limit
                                                   : MCP__DEFAULT_MATCH_LIMIT;
  s->max_depth = options && options->max_depth ? options->max_depth
                                               : MCP__DEFAULT_MAX_DEPTH;
  cctx c = {.s = s, .opt = options, .err = err, .max_depth = s->max_depth};
  mcp__map_init(&c.resources, true);
  mcp__map_init(&c.anchors, true);
  mcp__map_init(&c.infos, false);
  mcp__map_init(&c.nodes, false);
  mcp__map_init(&c.res_objs, true);
  if (err != NULL) {
    err->status = MCP_OK;
    err->message[0] = err->pointer[0] = '\0';
  }
  const char *base = options && options->base_uri ? options->base_uri : "";
  bool ok = (s->match_context = mcp__regex_match_context_new(s->match_limit));
  if (!ok)
    oom(&c);
  if (ok) {
    char *b = sstrdup(&c, base);
    mcp__resource *r = b ? new_resource(&c, b) : NULL;
    ok = r != NULL && mcp__map_put(&c.resources, b, schema);
    if (!ok)
      oom(&c);
    else
      ok = index_schema(&c, schema, b, r,
                        (mcp__dialect){MCP__DRAFT_2020, MCP__V_ALL_2020}, true,
                        0);
  }
  if (ok) {
    s->root = compile_node(&c, schema, "");
    ok = s->root != NULL && compile_dynamic_anchors(&c);
  }
  mcp_status st = MCP_OK;
  if (!ok || c.failed)
    st = err && err->status != MCP_OK ? err->status : MCP_ERR_SCHEMA;
  mcp__map_release(&c.resources);
  mcp__map_release(&c.anchors);
  mcp__map_release(&c.infos);
  mcp__map_release(&c.nodes);
  mcp__map_release(&c.res_objs);
  free(c.reslist);
  mcp__arena_release(&c.scratch);
  if (st != MCP_OK) {
    mcp_schema_free(s);
    return st;
  }
  *out = s;
  return MCP_OK;
}

mcp_status mcp_schema_compile_text(const char *text, size_t len,
                                   const mcp_schema_options_t *options,
                                   mcp_schema_t **out, mcp_error_t *err) {
  if (out != NULL)
    *out = NULL;
  if (text == NULL || out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "text or out is NULL");
  json_error_t je;
  /* the loader requests go through: the same documents, "\u0000" in
   * strings and integers beyond int64 (as reals) included */
  json_t *doc = mcp__json_load(text, len, &je);
  if (doc == NULL)
    return mcp_error_set(err, MCP_ERR_PARSE, "malformed JSON at line %d: %s",
                         je.line, je.text);
  mcp_status st = mcp_schema_compile(doc, options, out, err);
  json_decref(doc);
  return st;
}

void mcp_schema_free(mcp_schema_t *s) {
  if (s == NULL)
    return;
  for (size_t i = 0; i < s->nregexes; i++)
    mcp__regex_free(s->regexes[i]);
  free(s->regexes);
  for (size_t i = 0; i < s->ndocs; i++)
    json_decref(s->docs[i]);
  free(s->docs);
  if (s->match_context)
    mcp__regex_match_context_free(s->match_context);
  mcp__arena_release(&s->arena);
  json_decref(s->document);
  free(s);
}

json_t *mcp_schema_document(const mcp_schema_t *schema) {
  return schema ? schema->document : NULL;
}
