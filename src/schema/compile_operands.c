/* SPDX-License-Identifier: MIT */
/* compile_operands.c - decoding keyword operands for the vocabularies'
 * compilers (compiler.h): the operation list, JSON Pointers and locations,
 * counts, arrays and maps of subschemas (property tables with their perfect
 * hash), string lists and regexes. */
#include "schema/compiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/jsonval.h"
#include "schema/uri.h"

mcp__kw *mcp__compile_add(mcp__cctx *c, mcp__kwlist *l, mcp__op op,
                          unsigned tmask, const char *loc) {
  if (l->count == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 8;
    mcp__kw *ni = realloc(l->items, nc * sizeof *ni);
    if (ni == NULL) {
      mcp__compile_oom(c);
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
char *mcp__compile_path(mcp__cctx *c, const char *where, const char *seg) {
  char *r = mcp__pointer_join(&c->scratch, where, seg);
  if (r == NULL)
    mcp__compile_oom(c);
  return r;
}

/* "kw/<escaped name>" relative location, kept by the compiled schema. */
char *mcp__compile_loc(mcp__cctx *c, const char *kw, const char *name) {
  char *r = mcp__pointer_join(&c->s->arena, kw, name);
  if (r == NULL)
    mcp__compile_oom(c);
  return r;
}

bool mcp__compile_count(mcp__cctx *c, json_t *v, const char *where,
                        const char *kw, size_t *out) {
  if (json_is_integer(v) && json_integer_value(v) >= 0) {
    *out = (size_t)json_integer_value(v);
    return true;
  }
  if (json_is_real(v) && mcp__num_is_integral(v) && json_real_value(v) >= 0) {
    double d = json_real_value(v);
    *out = d > 1e18 ? (size_t)1e18 : (size_t)d;
    return true;
  }
  return mcp__compile_fail(c, where, "\"%s\" must be a non-negative integer",
                           kw);
}

mcp__node **mcp__compile_array(mcp__cctx *c, json_t *arr, const char *where,
                               const char *kw, const char ***locs_out,
                               size_t *count) {
  char *kwpath = mcp__compile_path(c, where, kw);
  if (kwpath == NULL)
    return NULL;
  if (!json_is_array(arr) || json_array_size(arr) == 0) {
    mcp__compile_fail(c, kwpath, "\"%s\" must be a non-empty array of schemas",
                      kw);
    return NULL;
  }
  size_t n = json_array_size(arr);
  mcp__node **nodes = mcp__compile_alloc(c, n * sizeof *nodes);
  const char **locs = mcp__compile_alloc(c, n * sizeof *locs);
  if (nodes == NULL || locs == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    char idx[24];
    snprintf(idx, sizeof idx, "%zu", i);
    locs[i] = mcp__compile_loc(c, kw, idx);
    char *cw = mcp__compile_path(c, kwpath, idx);
    if (locs[i] == NULL || cw == NULL)
      return NULL;
    nodes[i] = mcp__compile_node(c, json_array_get(arr, i), cw);
    if (nodes[i] == NULL)
      return NULL;
  }
  if (locs_out)
    *locs_out = locs;
  *count = n;
  return nodes;
}

mcp__node *mcp__compile_child(mcp__cctx *c, json_t *v, const char *where,
                              const char *kw) {
  char *cw = mcp__compile_path(c, where, kw);
  if (cw == NULL)
    return NULL;
  return mcp__compile_node(c, v, cw);
}

/* Looks for a multiplier that sends the names' signatures to distinct slots
 * of a table of 2^bits bytes (bits from ceil(log2(count)) + 1 up to + 3);
 * leaves t->ph NULL when the table is large or no multiplier is found within
 * a bounded number of tries (signatures may even collide). */
static void build_phash(mcp__cctx *c, mcp__ptable *t) {
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
      t->ph = mcp__compile_alloc(c, size);
      if (t->ph == NULL)
        return; /* the slots table still works; c->failed is set by aalloc */
      memcpy(t->ph, tab, size);
      t->ph_mul = m;
      t->ph_shift = (uint8_t)(32 - bits);
      return;
    }
  }
}

bool mcp__compile_ptable(mcp__cctx *c, mcp__ptable *t, json_t *obj,
                         const char *where, const char *kw, bool schemas) {
  char *kwpath = mcp__compile_path(c, where, kw);
  if (kwpath == NULL)
    return false;
  if (!json_is_object(obj))
    return mcp__compile_fail(c, kwpath, "\"%s\" must be an object", kw);
  size_t n = json_object_size(obj);
  t->count = n;
  t->props = mcp__compile_alloc(c, (n ? n : 1) * sizeof *t->props);
  size_t cap = 4;
  while (cap < n * 2)
    cap *= 2;
  t->mask = cap - 1;
  t->slots = mcp__compile_alloc(c, cap * sizeof *t->slots);
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
    p->loc = mcp__compile_loc(c, kw, k);
    if (p->name == NULL || p->loc == NULL)
      return mcp__compile_oom(c);
    if (schemas) {
      char *cw = mcp__compile_path(c, kwpath, k);
      if (cw == NULL)
        return false;
      p->node = mcp__compile_node(c, v, cw);
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

bool mcp__compile_strings(mcp__cctx *c, json_t *arr, const char *where,
                          const char *kw, const char ***names, size_t **lens,
                          size_t *count) {
  if (!json_is_array(arr))
    return mcp__compile_fail(c, where, "\"%s\" must be an array of strings",
                             kw);
  size_t n = json_array_size(arr);
  *names = mcp__compile_alloc(c, (n ? n : 1) * sizeof **names);
  *lens = mcp__compile_alloc(c, (n ? n : 1) * sizeof **lens);
  if (*names == NULL || *lens == NULL)
    return false;
  for (size_t i = 0; i < n; i++) {
    json_t *v = json_array_get(arr, i);
    if (!json_is_string(v))
      return mcp__compile_fail(c, where, "\"%s\" must be an array of strings",
                               kw);
    (*names)[i] = mcp__arena_strndup(&c->s->arena, json_string_value(v),
                                     json_string_length(v));
    (*lens)[i] = json_string_length(v);
    if ((*names)[i] == NULL)
      return mcp__compile_oom(c);
  }
  *count = n;
  return true;
}

/* k->u.depreq from an object of string arrays: "dependentRequired", or the
 * array entries of draft-07 "dependencies". */
bool mcp__compile_dep_required(mcp__cctx *c, mcp__kw *k, json_t *obj,
                               const char *where, const char *kw) {
  size_t n = json_object_size(obj), i = 0;
  k->u.depreq.deps = mcp__compile_alloc(c, (n ? n : 1) * sizeof(mcp__dep_req));
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
    if (dr->name == NULL || !mcp__compile_strings(c, arr, where, kw, &dr->req,
                                                  &dr->req_len, &dr->nreq))
      return false;
  }
  return true;
}

mcp__regex *mcp__compile_regex(mcp__cctx *c, json_t *v, const char *where) {
  if (!json_is_string(v)) {
    mcp__compile_fail(c, where, "a regular expression must be a string");
    return NULL;
  }
  char msg[200];
  mcp__regex *re = mcp__regex_compile(json_string_value(v),
                                      json_string_length(v), msg, sizeof msg);
  if (re == NULL) {
    mcp__compile_fail(c, where, "%s", msg);
    return NULL;
  }
  mcp__regex **nr = realloc(c->s->regexes, (c->s->nregexes + 1) * sizeof *nr);
  if (nr == NULL) {
    mcp__regex_free(re);
    mcp__compile_oom(c);
    return NULL;
  }
  c->s->regexes = nr;
  nr[c->s->nregexes++] = re;
  return re;
}
