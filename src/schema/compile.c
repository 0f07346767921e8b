/* SPDX-License-Identifier: MIT */
/* compile.c - turns a schema document into the node graph of internal.h.
 *
 * Two passes per document: index_schema() walks the known subschema
 * keywords, recording for each subschema its base URI, dialect and resource,
 * and registering $id resources and $anchor / $dynamicAnchor names; then
 * mcp__compile_node() compiles keywords through the vocabularies' keyword
 * tables (compile_keywords(), src/schema/vocab/), resolving $ref targets
 * through that index (loading registered or built-in documents on demand).
 * Nodes are memoized by json_t address and registered before their keywords
 * are compiled, so reference cycles terminate here and become graph
 * cycles. */
#include "schema/compiler.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/jsonval.h"
#include "schema/uri.h"
#include "json/load.h"

#define URI_2020     "https://json-schema.org/draft/2020-12/schema"
#define URI_DRAFT7   "http://json-schema.org/draft-07/schema"
#define VOCAB_PREFIX "https://json-schema.org/draft/2020-12/vocab/"

bool mcp__compile_fail(mcp__cctx *c, const char *where, const char *fmt, ...) {
  if (c->failed)
    return false;
  c->failed = true;
  if (c->err != NULL) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    mcp_error_set(c->err, MCP_ERR_SCHEMA, "%s", text); /* marks a cut */
    snprintf(c->err->pointer, sizeof c->err->pointer, "%s", where ? where : "");
  }
  return false;
}

bool mcp__compile_oom(mcp__cctx *c) {
  if (!c->failed && c->err != NULL) {
    mcp_error_set(c->err, MCP_ERR_NOMEM, "out of memory compiling schema");
  }
  c->failed = true;
  if (c->err != NULL)
    c->err->status = MCP_ERR_NOMEM;
  return false;
}

char *mcp__compile_strdup(mcp__cctx *c, const char *s) {
  char *p = mcp__arena_strdup(&c->s->arena, s);
  if (p == NULL)
    mcp__compile_oom(c);
  return p;
}

void *mcp__compile_alloc(mcp__cctx *c, size_t n) {
  void *p = mcp__arena_alloc(&c->s->arena, n);
  if (p == NULL)
    mcp__compile_oom(c);
  return p;
}

static char *sstrdup(mcp__cctx *c, const char *s) {
  char *p = mcp__arena_strdup(&c->scratch, s);
  if (p == NULL)
    mcp__compile_oom(c);
  return p;
}

static void *salloc(mcp__cctx *c, size_t n) {
  void *p = mcp__arena_alloc(&c->scratch, n);
  if (p == NULL)
    mcp__compile_oom(c);
  return p;
}

/* Keeps a reference to a document for the schema's lifetime. */
bool mcp__compile_keep(mcp__cctx *c, json_t *doc) {
  json_t **nd = realloc(c->s->docs, (c->s->ndocs + 1) * sizeof *nd);
  if (nd == NULL)
    return mcp__compile_oom(c);
  c->s->docs = nd;
  nd[c->s->ndocs++] = json_incref(doc);
  return true;
}

/* ---- dialects ------------------------------------------------------------ */

/* In compile order: a node's operations are listed in this order before the
 * stable sort by rank (so errors come in the same order as ever). */
static const mcp__vocabulary *const vocabularies[] = {
    &mcp__vocab_core,
    &mcp__vocab_validation,
    &mcp__vocab_applicator,
    &mcp__vocab_unevaluated,
    &mcp__vocab_format_annotation,
    &mcp__vocab_format_assertion,
    &mcp__vocab_content,
    &mcp__vocab_metadata,
};
#define NVOCABS (sizeof vocabularies / sizeof vocabularies[0])

static json_t *find_document(mcp__cctx *c, const char *uri,
                             const char **doc_uri);

static bool dialect_for(mcp__cctx *c, const char *uri, const char *where,
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
    return mcp__compile_fail(c, where, "unsupported JSON Schema dialect \"%s\"",
                             uri);
  json_t *ms = json_object_get(meta, "$schema");
  mcp__dialect base = {MCP__DRAFT_2020, MCP__V_ALL_2020};
  if (json_is_string(ms) && !mcp__uri_same(json_string_value(ms), uri)) {
    if (!dialect_for(c, json_string_value(ms), where, &base, hops + 1))
      return false;
  }
  json_t *vocab = json_object_get(meta, "$vocabulary");
  if (json_is_object(vocab) && base.draft == MCP__DRAFT_2020) {
    unsigned bits = 0;
    const char *k;
    json_t *v;
    json_object_foreach(vocab, k, v) {
      bool found = false;
      if (strncmp(k, VOCAB_PREFIX, strlen(VOCAB_PREFIX)) == 0) {
        for (size_t i = 0; i < NVOCABS; i++)
          if (strcmp(k + strlen(VOCAB_PREFIX), vocabularies[i]->name) == 0) {
            bits |= vocabularies[i]->bit;
            found = true;
          }
      }
      if (!found && json_is_true(v))
        return mcp__compile_fail(c, where,
                                 "unsupported required vocabulary \"%s\"", k);
    }
    base.vocab = bits | MCP__V_CORE;
  }
  *d = base;
  return true;
}

/* ---- indexing --------------------------------------------------------------
 */

static mcp__resource *new_resource(mcp__cctx *c, const char *uri) {
  mcp__resource *r = mcp__map_get(&c->res_objs, uri);
  if (r != NULL)
    return r;
  r = mcp__compile_alloc(c, sizeof *r);
  if (r == NULL)
    return NULL;
  r->uri = mcp__compile_strdup(c, uri);
  if (r->uri == NULL)
    return NULL;
  if (!mcp__map_put(&c->res_objs, r->uri, r)) {
    mcp__compile_oom(c);
    return NULL;
  }
  if (c->nres == c->capres) {
    size_t nc = c->capres ? c->capres * 2 : 16;
    mcp__resource **nl = realloc(c->reslist, nc * sizeof *nl);
    if (nl == NULL) {
      mcp__compile_oom(c);
      return NULL;
    }
    c->reslist = nl;
    c->capres = nc;
  }
  c->reslist[c->nres++] = r;
  return r;
}

static bool add_dyn_anchor(mcp__cctx *c, mcp__resource *r, const char *name,
                           json_t *js) {
  for (size_t i = 0; i < r->ndyn; i++)
    if (strcmp(r->dyn[i].name, name) == 0)
      return true;
  if (r->ndyn == r->capdyn) {
    size_t nc = r->capdyn ? r->capdyn * 2 : 4;
    mcp__dyn_anchor *nd = mcp__compile_alloc(c, nc * sizeof *nd);
    if (nd == NULL)
      return false;
    if (r->ndyn)
      memcpy(nd, r->dyn, r->ndyn * sizeof *nd);
    r->dyn = nd;
    r->capdyn = nc;
  }
  const char *nm = mcp__compile_strdup(c, name);
  if (nm == NULL)
    return false;
  r->dyn[r->ndyn++] = (mcp__dyn_anchor){nm, js, NULL};
  return true;
}

static bool put_anchor(mcp__cctx *c, const char *base, const char *name,
                       json_t *js) {
  size_t n = strlen(base) + strlen(name) + 2;
  char *key = salloc(c, n);
  if (key == NULL)
    return false;
  snprintf(key, n, "%s#%s", base, name);
  if (mcp__map_get(&c->anchors, key) == NULL &&
      !mcp__map_put(&c->anchors, key, js))
    return mcp__compile_oom(c);
  return true;
}

static bool index_schema(mcp__cctx *c, json_t *js, const char *base,
                         mcp__resource *res, mcp__dialect d, bool doc_root,
                         unsigned depth);

static bool index_map(mcp__cctx *c, json_t *obj, const char *base,
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

static bool index_list(mcp__cctx *c, json_t *arr, const char *base,
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

static bool index_schema(mcp__cctx *c, json_t *js, const char *base,
                         mcp__resource *res, mcp__dialect d, bool doc_root,
                         unsigned depth) {
  if (!json_is_object(js) && !json_is_boolean(js))
    return true;
  if (mcp__map_get(&c->infos, js) != NULL)
    return true;
  if (depth > c->max_depth)
    return mcp__compile_fail(
        c, "", "schema nesting exceeds the depth limit of %u", c->max_depth);
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
          return mcp__compile_oom(c);
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
          return mcp__compile_oom(c);
      }
    }
  }
  mcp__info *inf = salloc(c, sizeof *inf);
  if (inf == NULL)
    return false;
  inf->base = base;
  inf->res = res;
  inf->d = d;
  if (!mcp__map_put(&c->infos, js, inf))
    return mcp__compile_oom(c);
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
static bool load_document(mcp__cctx *c, json_t *doc, const char *uri) {
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
    return mcp__compile_oom(c);
  mcp__dialect d = {MCP__DRAFT_2020, MCP__V_ALL_2020};
  return index_schema(c, doc, u, res, d, true, 0);
}

/* A registered or built-in document whose URI (or embedded $id) is uri.
 * *doc_uri receives the document's own URI (borrowed: the registry outlives
 * compile, built-in URIs are static). Borrowed result. */
static json_t *find_document(mcp__cctx *c, const char *uri,
                             const char **doc_uri) {
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
      bool ok = mcp__compile_keep(c, doc);
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
static json_t *ensure_resource(mcp__cctx *c, const char *uri) {
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
      if (!mcp__compile_keep(c, reg->docs[i].doc))
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
        ok = mcp__compile_keep(c, doc);
        break;
      }
  }
  if (!ok)
    return NULL;
  return mcp__map_get(&c->resources, uri);
}

typedef struct walk_state {
  mcp__cctx *c;
  const mcp__info *last;
} walk_state;

static void walk_visit(json_t *v, void *ud) {
  walk_state *w = ud;
  const mcp__info *i = mcp__map_get(&w->c->infos, v);
  if (i != NULL)
    w->last = i;
}

/* Resolves ref (already absolute or relative to base) to a subschema that is
 * indexed. NULL (and c->failed) when it does not resolve. *frag_out, when
 * asked for, receives the fragment (scratch) or NULL. */
json_t *mcp__compile_ref(mcp__cctx *c, const char *base, const char *ref,
                         const char *where, const char **frag_out) {
  char *full = mcp__uri_resolve(base, ref);
  if (full == NULL) {
    mcp__compile_oom(c);
    return NULL;
  }
  size_t sl = mcp__uri_strip_len(full);
  char *frag = full[sl] == '#' ? full + sl + 1 : NULL;
  full[sl] = '\0';
  json_t *root = ensure_resource(c, full);
  json_t *target = NULL;
  if (root == NULL) {
    if (!c->failed)
      mcp__compile_fail(c, where,
                        "cannot resolve $ref \"%s\": unknown resource \"%s\"",
                        ref, full);
    free(full);
    return NULL;
  }
  if (frag == NULL || frag[0] == '\0') {
    target = root;
  } else if (frag[0] == '/') {
    if (!mcp__uri_percent_decode(frag)) {
      mcp__compile_fail(c, where, "malformed $ref \"%s\"", ref);
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
    mcp__compile_fail(c, where, "cannot resolve $ref \"%s\"", ref);
    free(full);
    return NULL;
  }
  if (frag_out != NULL)
    *frag_out = frag ? sstrdup(c, frag) : NULL;
  free(full);
  return target;
}

/* ---- keywords ------------------------------------------------------------ */

static const uint8_t op_rank[MCP__OP_COUNT] = {
#define MCP__OP_RANK_(op, rank, leaf, ev) [MCP__OP_##op] = rank,
    MCP__OPS(MCP__OP_RANK_)
#undef MCP__OP_RANK_
};

/* Operations that evaluate no subschema. */
static const bool op_leaf[MCP__OP_COUNT] = {
#define MCP__OP_LEAF_(op, rank, leaf, ev) [MCP__OP_##op] = leaf,
    MCP__OPS(MCP__OP_LEAF_)
#undef MCP__OP_LEAF_
};

/* Moves "required" names that "properties" also lists into the properties
 * table, so one pass over the members checks both; errors keep the
 * "required" keyword location. */
static void fuse_required(mcp__kwlist *l) {
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

/* Whether the schema object js has row's keyword or one of its siblings. */
static bool row_present(const mcp__keyword *row, json_t *js, json_t **v) {
  *v = json_object_get(js, row->name);
  if (*v != NULL)
    return true;
  for (const char *const *sib = row->siblings; sib != NULL && *sib; sib++)
    if (json_object_get(js, *sib) != NULL)
      return true;
  return false;
}

/* The node's operations: the keyword rows of the vocabularies its dialect
 * switches on, in the order of vocabularies[]; then the "required" names
 * fused into "properties", the operations sorted by rank and the node's
 * summary flags set. */
static bool compile_keywords(mcp__cctx *c, mcp__node *node, json_t *js,
                             const mcp__info *inf, const char *where) {
  mcp__kwlist l = {0};
  bool ok = false;
  mcp__kwsite site = {.node = node,
                      .schema = js,
                      .where = where,
                      .inf = inf,
                      .d7 = inf->d.draft == MCP__DRAFT_7};
  for (size_t vi = 0; vi < NVOCABS; vi++) {
    const mcp__vocabulary *voc = vocabularies[vi];
    if (voc->gate != 0 && !(inf->d.vocab & voc->gate))
      continue;
    for (size_t i = 0; i < voc->nkeywords; i++) {
      const mcp__keyword *row = &voc->keywords[i];
      json_t *v;
      if (row->compile == NULL || (site.d7 && (row->flags & MCP__KWF_NOT_D7)) ||
          !row_present(row, js, &v))
        continue;
      site.value = v;
      site.row = row;
      site.kp = mcp__compile_path(c, where, row->name);
      if (site.kp == NULL)
        goto done;
      mcp__kwres r = row->compile(c, &l, &site);
      if (r == MCP__KW_FAILED || c->failed)
        goto done;
      if (r == MCP__KW_LAST)
        goto last;
    }
  }
last:
  ok = !c->failed;
done:
  if (ok)
    fuse_required(&l);
  if (ok) {
    /* stable sort by rank: cheap assertions first, unevaluated* last */
    for (size_t i = 1; i < l.count; i++) {
      mcp__kw t = l.items[i];
      size_t j = i;
      while (j > 0 && op_rank[l.items[j - 1].op] > op_rank[t.op]) {
        l.items[j] = l.items[j - 1];
        j--;
      }
      l.items[j] = t;
    }
    node->kw =
        mcp__compile_alloc(c, (l.count ? l.count : 1) * sizeof *node->kw);
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
        if (!op_leaf[l.items[i].op])
          node->leaf = false;
    }
  }
  free(l.items);
  return ok;
}

mcp__node *mcp__compile_node(mcp__cctx *c, json_t *js, const char *where) {
  if (c->failed)
    return NULL;
  mcp__node *n = mcp__map_get(&c->nodes, js);
  if (n != NULL)
    return n;
  if (!json_is_object(js) && !json_is_boolean(js)) {
    mcp__compile_fail(c, where, "a schema must be an object or a boolean");
    return NULL;
  }
  const mcp__info *inf = mcp__map_get(&c->infos, js);
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
    mcp__compile_fail(c, where, "schema nesting exceeds the depth limit of %u",
                      c->max_depth);
    return NULL;
  }
  n = mcp__compile_alloc(c, sizeof *n);
  if (n == NULL || !mcp__map_put(&c->nodes, js, n)) {
    mcp__compile_oom(c);
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
static bool compile_dynamic_anchors(mcp__cctx *c) {
  bool again = true;
  while (again && !c->failed) {
    again = false;
    for (size_t i = 0; i < c->nres; i++) {
      mcp__resource *r = c->reslist[i];
      for (size_t k = 0; k < r->ndyn; k++) {
        if (r->dyn[k].node == NULL) {
          r->dyn[k].node = mcp__compile_node(c, r->dyn[k].js, r->uri);
          if (r->dyn[k].node == NULL)
            return false;
          again = true;
        }
      }
    }
  }
  return !c->failed;
}

/* ---- public -------------------------------------------------------------- */

mcp_status mcp_schema_compile(const json_t *schema,
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
  /* a reference, not a copy: the document is only read (Jansson's
   * reference count is the one field a const pointer does not cover) */
  s->document = json_incref((json_t *)schema);
  s->match_limit = options && options->match_limit ? options->match_limit
                                                   : MCP__DEFAULT_MATCH_LIMIT;
  s->max_depth = options && options->max_depth ? options->max_depth
                                               : MCP__DEFAULT_MAX_DEPTH;
  mcp__cctx c = {.s = s, .opt = options, .err = err, .max_depth = s->max_depth};
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
    mcp__compile_oom(&c);
  if (ok) {
    char *b = sstrdup(&c, base);
    mcp__resource *r = b ? new_resource(&c, b) : NULL;
    ok = r != NULL && mcp__map_put(&c.resources, b, s->document);
    if (!ok)
      mcp__compile_oom(&c);
    else
      ok = index_schema(&c, s->document, b, r,
                        (mcp__dialect){MCP__DRAFT_2020, MCP__V_ALL_2020}, true,
                        0);
  }
  if (ok) {
    s->root = mcp__compile_node(&c, s->document, "");
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
