/* SPDX-License-Identifier: MIT */
/* eval_impl.h - the evaluator: an instance against the compiled node graph.
 *
 * Included once per instance representation (validate_json.c: jansson
 * values, validate_tape.c: the parsed-text tape of tape.h), each defining
 * the accessor macros below first, so both run the same keyword logic with
 * accessors inlined for their own values. Everything here is static.
 *
 * The including file defines:
 *   INST                         an instance handle (a pointer type)
 *   I_TYPE_BIT(v)                MCP__T_* bits (integers: NUMBER|INTEGER)
 *   I_IS_OBJECT/ARRAY/STRING/REAL(v)
 *   I_INT(v), I_REAL(v), I_STR(v), I_STRLEN(v)
 *   I_ARR_SIZE(v), I_OBJ_SIZE(v) (distinct keys)
 *   I_ARR_FOREACH(v, i, item)    items in order; i (size_t, declared by the
 *                                caller) counts them
 *   I_OBJ_FOREACH(v, key, klen, val)  members in order, each key once
 *   I_OBJ_GET(v, key, len)       member value or NULL
 *   I_LOOKUP_CHEAP               1 when I_OBJ_GET is a hash lookup
 *   I_HASH(v), I_EQ(v, w), I_EQ_JSON(v, json), I_NUM_CMP_JSON(v, json),
 *   I_IS_MULTIPLE_JSON(v, json), I_IS_INTEGRAL(v)  value semantics of
 *                                jsonval.h
 *   V_OUT(c)                     the error list, ((mcp_validation_t *)0) for
 *                                a representation with only the fast path,
 *                                so the detailed code folds away
 *   eval_property_names()        after the include (keys become instances
 *                                differently in each representation)
 *
 * One recursive evaluator serves both paths: with V_OUT(c) == NULL it is the
 * fast path (stops at the first failure, records nothing, allocates nothing
 * unless propertyNames or big unevaluated* sets need it); with it set it
 * keeps going and records every error. Instance and keyword locations are
 * chains of stack frames turned into JSON Pointers only when an error is
 * recorded.
 *
 * Annotations for unevaluated* are bit sets over array indexes / object
 * member positions (both representations keep insertion order). Only nodes
 * that contain unevaluated* (known at compile time) ask their in-place
 * applicators for them; everywhere else the set pointer is NULL and nothing
 * is tracked.
 *
 * Termination: every node entry counts against max_depth, and re-entering
 * the same $ref target on the same instance value while it is still being
 * evaluated is reported as an infinite $ref loop. */
#include "schema/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/jsonval.h"
#include "util/buf.h"

typedef struct ipath {
  const struct ipath *up;
  const char *key; /* NULL: array index */
  size_t idx;
} ipath;

typedef struct kpath {
  const struct kpath *up;
  const char *seg; /* relative, already escaped: "properties/a" */
} kpath;

typedef struct scope {
  const struct scope *up;
  const mcp__resource *res;
} scope;

typedef struct refframe {
  const struct refframe *up;
  const mcp__node *node;
  const void *inst;
} refframe;

/* An object instance's members in insertion order, listed once
 * by a node with unevaluatedProperties so that its in-place applicators walk
 * an array instead of calling jansson's iterator again and again. */
typedef struct mlist {
  size_t n;
  const char **keys;
  size_t *lens;
  INST *vals;
  uint32_t *sigs;  /* mcp__key_sig of each key */
  uint32_t *slots; /* index+1 by (sig * ML_MUL) >> shift, 0 empty */
  unsigned shift;
  void *heap;
  const char *ikeys[16];
  size_t ilens[16];
  INST ivals[16];
  uint32_t isigs[16];
  uint32_t islots[32];
} mlist;

#define ML_MUL 0x9E3779B1u

typedef struct evset {
  bool all;
  size_t nwords;
  uint64_t *bits;   /* object members by position (insertion order), array
                       items by index */
  const mlist *mem; /* the instance's members, when listed */
  uint64_t inl[4];
} evset;

typedef struct vctx {
  const mcp_schema_t *s;
  mcp_validation_t *out; /* NULL on the fast path */
  bool oom;
  unsigned depth;
  const scope *scope;
  const refframe *refs;
  mcp__regex_scratch *rx;
} vctx;

/* ---- annotation sets
 * --------------------------------------------------------- */

static bool ml_build(vctx *c, mlist *m, INST obj) {
  size_t n = I_OBJ_SIZE(obj);
  unsigned bits = 5;
  while (bits < 31 && ((size_t)1 << bits) < n * 2)
    bits++;
  size_t cap = (size_t)1 << bits;
  m->heap = NULL;
  m->shift = 32 - bits;
  if (n <= 16) {
    m->keys = m->ikeys;
    m->lens = m->ilens;
    m->vals = m->ivals;
    m->sigs = m->isigs;
    m->slots = m->islots;
  } else {
    size_t each = sizeof(char *) + sizeof(size_t) + sizeof(INST);
    char *h = malloc(n * each + n * sizeof(uint32_t) + cap * sizeof(uint32_t));
    if (h == NULL) {
      c->oom = true;
      return false;
    }
    m->heap = h;
    m->keys = (const char **)(void *)h;
    m->lens = (size_t *)(void *)(h + n * sizeof(char *));
    m->vals = (INST *)(void *)(h + n * (sizeof(char *) + sizeof(size_t)));
    m->sigs = (uint32_t *)(void *)(h + n * each);
    m->slots = (uint32_t *)(void *)(h + n * each + n * sizeof(uint32_t));
  }
  if (m->slots == m->islots) /* constant size: inlined stores */
    memset(m->islots, 0, sizeof m->islots);
  else
    memset(m->slots, 0, cap * sizeof(uint32_t));
  size_t i = 0;
  const char *key;
  size_t klen;
  INST val;
  I_OBJ_FOREACH(obj, key, klen, val) {
    if (i >= n)
      break;
    m->keys[i] = key;
    m->lens[i] = klen;
    m->vals[i] = val;
    uint32_t sig = mcp__key_sig(key, klen);
    m->sigs[i] = sig;
    size_t sl = (sig * ML_MUL) >> m->shift;
    while (m->slots[sl] != 0)
      sl = (sl + 1) & (cap - 1);
    m->slots[sl] = (uint32_t)(i + 1);
    i++;
  }
  m->n = i;
  return true;
}

/* Position of the member named p->name, or SIZE_MAX. */
static inline size_t ml_find(const mlist *m, const mcp__prop *p) {
  size_t mask = ((size_t)1 << (32 - m->shift)) - 1;
  for (size_t sl = (p->sig * ML_MUL) >> m->shift;; sl = (sl + 1) & mask) {
    uint32_t i = m->slots[sl];
    if (i == 0)
      return SIZE_MAX;
    if (m->sigs[i - 1] == p->sig && m->lens[i - 1] == p->len &&
        mcp__bytes_eq(m->keys[i - 1], p->name, p->len))
      return i - 1;
  }
}

/* Zeroed bits for e->nwords words: inline when they fit. */
static void ev_alloc_bits(vctx *c, evset *e) {
  e->all = false;
  if (e->nwords <= 4) {
    e->bits = e->inl;
    memset(e->inl, 0, sizeof e->inl);
  } else {
    e->bits = calloc(e->nwords, sizeof *e->bits);
    if (e->bits == NULL) {
      c->oom = true;
      e->nwords = 0;
    }
  }
}

/* An empty set for n members or items, without a member list. */
static void ev_init_n(vctx *c, evset *e, size_t n) {
  e->mem = NULL;
  e->nwords = (n + 63) / 64;
  ev_alloc_bits(c, e);
}

/* e inherits the member list of parent (may be NULL). */
static void ev_init(vctx *c, evset *e, INST inst, const evset *parent) {
  if (parent == NULL) {
    ev_init_n(c, e,
              I_IS_ARRAY(inst)    ? I_ARR_SIZE(inst)
              : I_IS_OBJECT(inst) ? I_OBJ_SIZE(inst)
                                  : 0);
    return;
  }
  e->mem = parent->mem; /* same instance */
  e->nwords = parent->nwords;
  ev_alloc_bits(c, e);
}

static void ev_free(evset *e) {
  if (e->bits != e->inl)
    free(e->bits);
}

static void ev_set(evset *e, size_t i) {
  if (i / 64 < e->nwords)
    e->bits[i / 64] |= 1ull << (i % 64);
}

static bool ev_test(const evset *e, size_t i) {
  return e->all || (i / 64 < e->nwords && (e->bits[i / 64] >> (i % 64)) & 1);
}

static void ev_merge(evset *dst, const evset *src) {
  dst->all |= src->all;
  size_t n = dst->nwords < src->nwords ? dst->nwords : src->nwords;
  for (size_t i = 0; i < n; i++)
    dst->bits[i] |= src->bits[i];
}

/* ---- error recording
 * ------------------------------------------------------------ */

/* Pointer text under construction: the shared growable buffer, its first
 * failure made sticky. */
typedef struct sbuf {
  mcp__buf b;
  bool oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) {
  if (!b->oom && !mcp__buf_append(&b->b, s, n))
    b->oom = true;
}

static void build_ipath(sbuf *b, const ipath *p) {
  if (p == NULL)
    return;
  build_ipath(b, p->up);
  sb_put(b, "/", 1);
  if (p->key == NULL) {
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%zu", p->idx);
    sb_put(b, tmp, (size_t)n);
    return;
  }
  for (const char *k = p->key; *k; k++) {
    if (*k == '~')
      sb_put(b, "~0", 2);
    else if (*k == '/')
      sb_put(b, "~1", 2);
    else
      sb_put(b, k, 1);
  }
}

static void build_kpath(sbuf *b, const kpath *p) {
  if (p == NULL)
    return;
  build_kpath(b, p->up);
  sb_put(b, "/", 1);
  sb_put(b, p->seg, strlen(p->seg));
}

static void report_(vctx *c, const ipath *ip, const kpath *kp, const char *kw,
                    const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static void report_(vctx *c, const ipath *ip, const kpath *kp, const char *kw,
                    const char *fmt, ...) {
  if (V_OUT(c) == NULL)
    return;
  sbuf ib = {0}, kb = {0};
  sb_put(&ib, "", 0);
  build_ipath(&ib, ip);
  sb_put(&kb, "", 0);
  build_kpath(&kb, kp);
  if (kw != NULL) {
    sb_put(&kb, "/", 1);
    sb_put(&kb, kw, strlen(kw));
  }
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char *m = strdup(msg);
  if (ib.oom || kb.oom || m == NULL) {
    mcp__buf_free(&ib.b);
    mcp__buf_free(&kb.b);
    free(m);
    c->oom = true;
    return;
  }
  if (!mcp__validation_push(V_OUT(c), mcp__buf_steal(&ib.b, NULL),
                            mcp__buf_steal(&kb.b, NULL), m))
    c->oom = true;
}

/* Arguments are only evaluated on the detailed path; with a constant NULL
 * V_OUT the whole call folds away. */
#define report(c, ...) (V_OUT(c) != NULL ? report_((c), __VA_ARGS__) : (void)0)

static size_t mark(const vctx *c) {
  return V_OUT(c) ? V_OUT(c)->count : 0;
}

static void rewind_to(vctx *c, size_t m) {
  if (V_OUT(c))
    mcp__validation_truncate(V_OUT(c), m);
}

static unsigned type_bit(INST v) {
  return I_TYPE_BIT(v);
}

static const char *type_name(INST v) {
  unsigned t = type_bit(v);
  if (t & MCP__T_OBJECT)
    return "object";
  if (t & MCP__T_ARRAY)
    return "array";
  if (t & MCP__T_STRING)
    return "string";
  if (t & MCP__T_INTEGER)
    return "integer";
  if (t & MCP__T_NUMBER)
    return I_IS_INTEGRAL(v) ? "integer" : "number";
  if (t & MCP__T_BOOL)
    return "boolean";
  return "null";
}

static void types_text(unsigned mask, char *buf, size_t len) {
  static const char *const names[] = {"null",   "boolean", "integer", "number",
                                      "string", "array",   "object"};
  size_t o = 0;
  int n = 0;
  buf[0] = '\0';
  for (int i = 0; i < 7; i++) {
    if (!(mask & (1u << i)))
      continue;
    int w = snprintf(buf + o, len - o, "%s%s", n ? " or " : "", names[i]);
    if (w < 0 || (size_t)w >= len - o)
      break;
    o += (size_t)w;
    n++;
  }
}

static void num_text(INST v, char *buf, size_t len) {
  if (type_bit(v) & MCP__T_INTEGER)
    snprintf(buf, len, "%" JSON_INTEGER_FORMAT, (json_int_t)I_INT(v));
  else
    snprintf(buf, len, "%.17g", I_REAL(v));
}

/* A number of the schema (a jansson value). */
static void json_num_text(const json_t *v, char *buf, size_t len) {
  if (json_is_integer(v))
    snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
  else
    snprintf(buf, len, "%.17g", json_real_value(v));
}

/* ---- evaluation
 * --------------------------------------------------------------------- */

static bool eval(vctx *c, const mcp__node *n, INST inst, const ipath *ip,
                 const kpath *kp, evset *ann);
static bool eval_kw(vctx *c, const mcp__kw *kw, INST inst, const ipath *ip,
                    const kpath *kp, evset *ann);
static int props_walk_fast(vctx *c, const mcp__kw *kw, INST inst);
static bool eval_property_names(vctx *c, const mcp__kw *kw, INST inst,
                                const ipath *ip, const kpath *kp);
static int props_lookup_fast(vctx *c, const mcp__kw *kw, evset *ann);

/* The common keywords, inline in eval's loop: 1 when kw passes, 0 when it
 * certainly fails, -1 when unsure; eval_kw decides the unsure cases and
 * reports failures on the detailed path. t is type_bit(inst). */
static inline __attribute__((always_inline)) int
kw_quick(const mcp__kw *kw, INST inst, unsigned t) {
  switch (kw->op) {
  case MCP__OP_TYPE:
    if (kw->u.types & t)
      return 1;
    return (kw->u.types & MCP__T_INTEGER) && t == MCP__T_NUMBER ? -1 : 0;
  case MCP__OP_MAXIMUM:
  case MCP__OP_EXCL_MAXIMUM:
  case MCP__OP_MINIMUM:
  case MCP__OP_EXCL_MINIMUM: {
    int r;
    if ((t & MCP__T_INTEGER) && kw->u.val.kind == MCP__VAL_INT) {
      json_int_t x = I_INT(inst), y = kw->u.val.i;
      r = x < y ? -1 : x > y;
    } else {
      /* mixed or real: doubles, exact while integers stay within 2^53 */
      double x, y;
      if (t & MCP__T_INTEGER) {
        json_int_t i = I_INT(inst);
        if (i > (1LL << 53) || i < -(1LL << 53))
          return -1;
        x = (double)i;
      } else {
        x = I_REAL(inst);
      }
      if (kw->u.val.kind == MCP__VAL_REAL) {
        y = kw->u.val.d;
      } else {
        if (kw->u.val.i > (1LL << 53) || kw->u.val.i < -(1LL << 53))
          return -1;
        y = (double)kw->u.val.i;
      }
      if (!(x < y) && !(x > y) && !(x == y))
        return -1;
      r = x < y ? -1 : x > y;
    }
    switch (kw->op) {
    case MCP__OP_MAXIMUM:
      return r <= 0;
    case MCP__OP_EXCL_MAXIMUM:
      return r < 0;
    case MCP__OP_MINIMUM:
      return r >= 0;
    default:
      return r > 0;
    }
  }
  case MCP__OP_MAX_LENGTH:
    return I_STRLEN(inst) <= kw->u.count ? 1 : -1;
  case MCP__OP_MIN_LENGTH:
    return kw->u.count == 0 || I_STRLEN(inst) / 4 >= kw->u.count ? 1 : -1;
  case MCP__OP_ENUM:
    if (t & MCP__T_STRING) { /* only string values can equal a string */
      const char *s = I_STR(inst);
      size_t len = I_STRLEN(inst);
      for (size_t i = 0; i < kw->u.en.count; i++)
        if (kw->u.en.lens[i] == len && mcp__bytes_eq(kw->u.en.strs[i], s, len))
          return 1;
      return 0;
    }
    return -1;
  case MCP__OP_CONST:
    if (kw->u.val.kind == MCP__VAL_STRING && (t & MCP__T_STRING))
      return I_STRLEN(inst) == kw->u.val.slen &&
             mcp__bytes_eq(I_STR(inst), kw->u.val.s, kw->u.val.slen);
    if (kw->u.val.kind == MCP__VAL_INT && (t & MCP__T_INTEGER))
      return I_INT(inst) == kw->u.val.i;
    return -1;
  default:
    return -1;
  }
}

/* eval() of a flat node (just "type" + properties) on the fast path,
 * without its frame: 1 / 0 as eval() would return, -1 when eval() must do it
 * (not applicable, or the depth limit is reached and must be reported).
 * Properties hand their subschemas other instances (the members), so no
 * $ref loop can pass through here on the same instance. */
static inline __attribute__((always_inline)) int
try_flat(vctx *c, const mcp__node *n, INST inst, evset *ann) {
  if (!n->flat || V_OUT(c) != NULL || !I_IS_OBJECT(inst) ||
      !(n->types & MCP__T_OBJECT) || c->s->has_dynamic ||
      c->depth >= c->s->max_depth)
    return -1;
  c->depth++;
  const mcp__kw *kw = &n->kw[n->type_first];
  int r = ann == NULL ? props_walk_fast(c, kw, inst)
                      : props_lookup_fast(c, kw, ann);
  c->depth--;
  return r;
}

/* eval() of a child instance with no annotations wanted. On the fast path
 * a leaf child is settled here, inline, when its keywords' quick checks are
 * conclusive, through eval_kw otherwise (a leaf has no nesting, so only the
 * depth limit is checked), exactly as eval() would. */
static inline __attribute__((always_inline)) bool
eval_child(vctx *c, const mcp__node *n, INST val, const ipath *ip,
           const kpath *kp) {
  if (n->leaf && V_OUT(c) == NULL && c->depth < c->s->max_depth) {
    unsigned t = type_bit(val);
    if (!(n->types & t))
      return eval(c, n, val, ip, kp, NULL); /* fails, or an integral real */
    const mcp__kw *kw = n->kw + n->type_first, *end = n->kw + n->nkw;
    for (; kw != end; kw++) {
      if (!(kw->tmask & t))
        continue;
      int q = kw_quick(kw, val, t);
      if (q == 1)
        continue;
      if (q == 0 || !eval_kw(c, kw, val, ip, kp, NULL))
        return false;
    }
    return true;
  }
  int r = try_flat(c, n, val, NULL);
  if (r >= 0)
    return r;
  return eval(c, n, val, ip, kp, NULL);
}

/* Evaluates a node for its verdict only: errors suppressed. */
static bool probe(vctx *c, const mcp__node *n, INST inst, const ipath *ip,
                  const kpath *kp, evset *ann) {
  mcp_validation_t *saved = c->out;
  c->out = NULL;
  int r = try_flat(c, n, inst, ann);
  bool ok = r >= 0 ? r == 1 : eval(c, n, inst, ip, kp, ann);
  c->out = saved;
  return ok;
}

static bool eval_ref(vctx *c, const mcp__node *target, INST inst,
                     const ipath *ip, const kpath *kp, const char *kw,
                     evset *ann) {
  for (const refframe *f = c->refs; f != NULL; f = f->up) {
    if (f->node == target && f->inst == inst) {
      report(c, ip, kp, kw,
             "infinite $ref loop: the schema refers back to "
             "itself without consuming the instance");
      return false;
    }
  }
  int r = try_flat(c, target, inst, ann);
  if (r >= 0)
    return r;
  refframe rf = {c->refs, target, inst};
  c->refs = &rf;
  kpath k = {kp, kw};
  bool ok = eval(c, target, inst, ip, &k, ann);
  c->refs = rf.up;
  return ok;
}

static const mcp__node *dynamic_target(const vctx *c, const mcp__kw *kw) {
  const mcp__node *t = kw->u.ref.target;
  if (!kw->u.ref.dynamic)
    return t;
  /* The outermost resource in the dynamic scope that has the anchor. */
  for (const scope *s = c->scope; s != NULL; s = s->up) {
    const mcp__resource *r = s->res;
    for (size_t i = 0; i < r->ndyn; i++)
      if (strcmp(r->dyn[i].name, kw->u.ref.name) == 0 && r->dyn[i].node)
        t = r->dyn[i].node;
  }
  return t;
}

static const mcp__prop *ptable_find(const mcp__ptable *t, const char *key,
                                    size_t len) {
  if (t->count == 0)
    return NULL;
  uint64_t h = mcp__hash_bytes(key, len);
  for (size_t s = h & t->mask;; s = (s + 1) & t->mask) {
    uint32_t i = t->slots[s];
    if (i == 0)
      return NULL;
    const mcp__prop *p = &t->props[i - 1];
    if (p->hash == h && p->len == len && memcmp(p->name, key, len) == 0)
      return p;
  }
}

/* The property named key, or NULL: the perfect hash when compile found one,
 * the FNV table otherwise. */
static inline const mcp__prop *pfind(const mcp__ptable *t, const char *key,
                                     size_t len) {
  if (t->ph != NULL) {
    uint32_t i = t->ph[(mcp__key_sig(key, len) * t->ph_mul) >> t->ph_shift];
    if (i == 0)
      return NULL;
    const mcp__prop *p = &t->props[i - 1];
    return p->len == len && mcp__bytes_eq(p->name, key, len) ? p : NULL;
  }
  return ptable_find(t, key, len);
}

static bool regex_ok(vctx *c, const mcp__regex *re, const char *s, size_t len,
                     const ipath *ip, const kpath *kp, const char *kw,
                     bool *matched) {
  int rc = mcp__regex_search(re, s, len, c->rx, c->s->match_context);
  if (rc < 0) {
    report(c, ip, kp, kw,
           "pattern /%s/ could not be matched within the match limit",
           mcp__regex_source(re));
    return false;
  }
  *matched = rc == 1;
  return true;
}

static bool missing_required(vctx *c, const mcp__kw *kw, INST inst,
                             const ipath *ip, const kpath *kp) {
  const mcp__ptable *t = &kw->u.props.table;
  for (size_t i = 0; i < t->count; i++)
    if (t->props[i].required &&
        I_OBJ_GET(inst, t->props[i].name, t->props[i].len) == NULL) {
      report(c, ip, kp, "required", "required property \"%s\" is missing",
             t->props[i].name);
      if (!V_OUT(c))
        break;
    }
  return false;
}

/* One member for eval_properties' walk; false: stop (fast path failure). */
static inline __attribute__((always_inline)) bool
prop_member(vctx *c, const mcp__kw *kw, bool plain, const char *key,
            size_t klen, INST val, size_t idx, const ipath *ip, const kpath *kp,
            evset *ann, bool *ok, size_t *seen_required) {
  const mcp__ptable *t = &kw->u.props.table;
  bool matched = false;
  const mcp__prop *p = t->count != 0 ? pfind(t, key, klen) : NULL;
  if (p != NULL) {
    matched = true;
    *seen_required += p->required;
    ipath child = {ip, key, 0};
    kpath k = {kp, p->loc};
    if (!eval_child(c, p->node, val, &child, &k)) {
      *ok = false;
      if (!V_OUT(c))
        return false;
    }
  }
  if (!plain) {
    ipath child = {ip, key, 0};
    for (size_t i = 0; i < kw->u.props.npatterns; i++) {
      const mcp__pattern_prop *pp = &kw->u.props.patterns[i];
      bool m;
      if (!regex_ok(c, pp->re, key, klen, &child, kp, pp->loc, &m)) {
        *ok = false;
        if (!V_OUT(c))
          return false;
        continue;
      }
      if (!m)
        continue;
      matched = true;
      kpath k = {kp, pp->loc};
      if (!eval_child(c, pp->node, val, &child, &k)) {
        *ok = false;
        if (!V_OUT(c))
          return false;
      }
    }
    if (!matched && kw->u.props.additional != NULL) {
      const mcp__node *an = kw->u.props.additional;
      if (an->kind == MCP__NODE_FALSE) {
        report(c, &child, kp, kw->u.props.additional_loc,
               "property \"%s\" is not allowed", key);
        *ok = false;
        if (!V_OUT(c))
          return false;
      } else {
        kpath k = {kp, kw->u.props.additional_loc};
        if (!eval_child(c, an, val, &child, &k)) {
          *ok = false;
          if (!V_OUT(c))
            return false;
        }
      }
      matched = true;
    }
  }
  if (ann != NULL && matched)
    ev_set(ann, idx);
  return true;
}

/* properties (+ fused required, + additionalProperties, no
 * patternProperties) on the fast path with nothing to annotate: one walk
 * over the members; locations only serve reports, which this path never
 * makes, so none are built. 1 valid, 0 invalid, -1 when schema-order
 * lookups are cheaper (many more members than names, nothing else needs the
 * walk). */
static int props_walk_fast(vctx *c, const mcp__kw *kw, INST inst) {
  const mcp__ptable *t = &kw->u.props.table;
  const mcp__node *addl = kw->u.props.additional;
  if (I_LOOKUP_CHEAP && addl == NULL && I_OBJ_SIZE(inst) > 4 * t->count + 8)
    return -1;
  size_t seen_required = 0;
  const char *key;
  size_t klen;
  INST val;
  I_OBJ_FOREACH(inst, key, klen, val) {
    const mcp__prop *p = pfind(t, key, klen);
    const mcp__node *node;
    if (p != NULL) {
      seen_required += p->required;
      node = p->node;
    } else if (addl != NULL) {
      node = addl;
    } else {
      continue;
    }
    if (!eval_child(c, node, val, NULL, NULL))
      return 0;
  }
  return seen_required >= kw->u.props.nrequired;
}

/* properties without patternProperties / additionalProperties on the fast
 * path under unevaluatedProperties: the schema's names looked up in the
 * member list, their positions marked; no location frames. 1 valid,
 * 0 invalid, -1 not applicable (no member list, other keywords, or fewer
 * members than names: walking is cheaper then). */
static int props_lookup_fast(vctx *c, const mcp__kw *kw, evset *ann) {
  const mcp__ptable *t = &kw->u.props.table;
  const mlist *ml = ann->mem;
  if (ml == NULL || kw->u.props.npatterns != 0 ||
      kw->u.props.additional != NULL || t->count >= ml->n)
    return -1;
  for (size_t i = 0; i < t->count; i++) {
    const mcp__prop *p = &t->props[i];
    size_t pos = ml_find(ml, p);
    if (pos == SIZE_MAX) {
      if (p->required)
        return 0;
      continue;
    }
    if (!eval_child(c, p->node, ml->vals[pos], NULL, NULL))
      return 0;
    ev_set(ann, pos);
  }
  return 1;
}

/* properties + patternProperties + additionalProperties (+ the "required"
 * names fused into the table at compile time).
 *
 * The usual way is one walk over the instance's members, matching each key
 * against the table (perfect hash, no hashing of the key), counting the
 * required names seen and marking member positions in ann. Two exceptions
 * look the schema's names up instead: an instance with many more members
 * than the table has names when nothing else needs the walk (fast path), and
 * the detailed path of a table without patterns / additionalProperties,
 * which reports in schema order (then a second walk marks ann). */
static __attribute__((noinline)) bool
eval_properties(vctx *c, const mcp__kw *kw, INST inst, const ipath *ip,
                const kpath *kp, evset *ann) {
  bool ok = true;
  const mcp__ptable *t = &kw->u.props.table;
  const bool plain =
      kw->u.props.npatterns == 0 && kw->u.props.additional == NULL;
  if (V_OUT(c) == NULL && ann == NULL && kw->u.props.npatterns == 0) {
    int r = props_walk_fast(c, kw, inst);
    if (r >= 0)
      return r;
  }
  const mlist *ml = ann != NULL ? ann->mem : NULL;
  if (V_OUT(c) == NULL && ann != NULL) {
    int r = props_lookup_fast(c, kw, ann);
    if (r >= 0)
      return r;
  }
  if (plain && (V_OUT(c) != NULL || (ml != NULL && t->count < ml->n) ||
                (I_LOOKUP_CHEAP && ann == NULL &&
                 I_OBJ_SIZE(inst) > 4 * t->count + 8))) {
    for (size_t i = 0; i < t->count; i++) {
      const mcp__prop *p = &t->props[i];
      INST val;
      size_t pos = SIZE_MAX;
      if (ml != NULL) {
        pos = ml_find(ml, p);
        val = pos == SIZE_MAX ? NULL : ml->vals[pos];
      } else {
        val = I_OBJ_GET(inst, p->name, p->len);
      }
      if (val == NULL) {
        if (p->required) {
          report(c, ip, kp, "required", "required property \"%s\" is missing",
                 p->name);
          ok = false;
          if (!V_OUT(c))
            return false;
        }
        continue;
      }
      ipath child = {ip, p->name, 0};
      kpath k = {kp, p->loc};
      if (!eval_child(c, p->node, val, &child, &k)) {
        ok = false;
        if (!V_OUT(c))
          return false;
      }
      if (pos != SIZE_MAX)
        ev_set(ann, pos);
    }
    if (ann != NULL && ml == NULL && t->count != 0) {
      size_t idx = 0;
      const char *key;
      size_t klen;
      INST val;
      I_OBJ_FOREACH(inst, key, klen, val) {
        (void)val;
        if (pfind(t, key, klen) != NULL)
          ev_set(ann, idx);
        idx++;
      }
    }
    return ok;
  }
  size_t seen_required = 0;
  if (ml != NULL) {
    for (size_t i = 0; i < ml->n; i++)
      if (!prop_member(c, kw, plain, ml->keys[i], ml->lens[i], ml->vals[i], i,
                       ip, kp, ann, &ok, &seen_required))
        return false;
  } else {
    size_t idx = 0;
    const char *key;
    size_t klen;
    INST val;
    I_OBJ_FOREACH(inst, key, klen, val) {
      if (!prop_member(c, kw, plain, key, klen, val, idx++, ip, kp, ann, &ok,
                       &seen_required))
        return false;
    }
  }
  if (seen_required < kw->u.props.nrequired)
    ok = missing_required(c, kw, inst, ip, kp);
  return ok;
}

static __attribute__((noinline)) bool eval_allof(vctx *c, const mcp__kw *kw,
                                                 INST inst, const ipath *ip,
                                                 const kpath *kp, evset *ann) {
  bool ok = true;
  for (size_t i = 0; i < kw->u.list.count; i++) {
    int r = try_flat(c, kw->u.list.nodes[i], inst, ann);
    if (r == 1)
      continue;
    if (r == 0)
      return false; /* fast path only */
    kpath k = {kp, kw->u.list.locs[i]};
    if (!eval(c, kw->u.list.nodes[i], inst, ip, &k, ann)) {
      ok = false;
      if (!V_OUT(c))
        return false;
    }
  }
  return ok;
}

static __attribute__((noinline)) bool
eval_uneval_props(vctx *c, const mcp__kw *kw, const ipath *ip, const kpath *kp,
                  evset *ann) {
  bool ok = true;
  const mcp__node *un = kw->u.one.node;
  kpath k = {kp, kw->loc};
  const mlist *ml = ann != NULL ? ann->mem : NULL;
  if (ml == NULL) /* only when the list could not be allocated */
    return false;
  for (size_t i = 0; i < ml->n; i++) {
    if (ev_test(ann, i))
      continue;
    ipath child = {ip, ml->keys[i], 0};
    if (un->kind == MCP__NODE_FALSE) {
      report(c, &child, kp, kw->loc,
             "unevaluated property \"%s\" is not allowed", ml->keys[i]);
      ok = false;
    } else if (!eval_child(c, un, ml->vals[i], &child, &k)) {
      ok = false;
    }
    if (!ok && !V_OUT(c))
      return false;
  }
  ann->all = true;
  return ok;
}

static bool eval_items(vctx *c, const mcp__kw *kw, INST inst, const ipath *ip,
                       const kpath *kp, evset *ann) {
  bool ok = true;
  size_t np = kw->u.items.nprefix;
  size_t i;
  INST item;
  I_ARR_FOREACH(inst, i, item) {
    const mcp__node *node;
    const char *loc;
    char idxloc[64];
    if (i < np) {
      node = kw->u.items.prefix[i];
      if (V_OUT(c) != NULL) /* the location only serves reports */
        snprintf(idxloc, sizeof idxloc, "%s/%zu", kw->u.items.prefix_kw, i);
      else
        idxloc[0] = '\0';
      loc = idxloc;
    } else if (kw->u.items.rest != NULL) {
      node = kw->u.items.rest;
      loc = kw->u.items.rest_loc;
    } else {
      break;
    }
    ipath child = {ip, NULL, i};
    kpath k = {kp, loc};
    if (node->kind == MCP__NODE_FALSE) {
      report(c, &child, kp, loc, "array item %zu is not allowed", i);
      ok = false;
    } else if (!eval_child(c, node, item, &child, &k)) {
      ok = false;
    }
    if (!ok && !V_OUT(c))
      return false;
    if (ann != NULL)
      ev_set(ann, i);
  }
  if (ann != NULL && kw->u.items.rest != NULL)
    ann->all = true;
  return ok;
}

static bool eval_contains(vctx *c, const mcp__kw *kw, INST inst,
                          const ipath *ip, const kpath *kp, evset *ann) {
  size_t count = 0;
  size_t mn = kw->u.contains.min, mx = kw->u.contains.max;
  kpath k = {kp, "contains"};
  size_t i;
  INST item;
  I_ARR_FOREACH(inst, i, item) {
    ipath child = {ip, NULL, i};
    if (probe(c, kw->u.contains.node, item, &child, &k, NULL)) {
      count++;
      if (ann != NULL)
        ev_set(ann, i);
      else if (count >= mn && mx == SIZE_MAX)
        break;
      if (count > mx && !V_OUT(c) && ann == NULL)
        break;
    }
  }
  if (count < mn) {
    report(c, ip, kp, kw->u.contains.min_loc,
           "array must contain at least %zu matching item%s, found %zu", mn,
           mn == 1 ? "" : "s", count);
    return false;
  }
  if (count > mx) {
    report(c, ip, kp, kw->u.contains.max_loc,
           "array must contain at most %zu matching item%s, found %zu", mx,
           mx == 1 ? "" : "s", count);
    return false;
  }
  return true;
}

static bool eval_unique(vctx *c, const mcp__kw *kw, INST inst, const ipath *ip,
                        const kpath *kp) {
  size_t n = I_ARR_SIZE(inst);
  if (n < 2)
    return true;
  /* items and their hashes listed once: the pairwise loop then costs no
   * lookups */
  uint64_t stack_h[64];
  INST stack_v[64];
  uint64_t *h = stack_h;
  INST *v = stack_v;
  if (n > 64) {
    h = malloc(n * sizeof *h);
    v = malloc(n * sizeof *v);
    if (h == NULL || v == NULL) {
      free(h);
      free(v);
      c->oom = true;
      return false;
    }
  }
  size_t i;
  INST item;
  I_ARR_FOREACH(inst, i, item) {
    v[i] = item;
    h[i] = I_HASH(item);
  }
  bool ok = true;
  size_t di = 0, dj = 0;
  for (i = 0; i < n && ok; i++)
    for (size_t j = i + 1; j < n; j++)
      if (h[i] == h[j] && I_EQ(v[i], v[j])) {
        ok = false;
        di = i;
        dj = j;
        break;
      }
  if (h != stack_h) {
    free(h);
    free(v);
  }
  if (!ok)
    report(c, ip, kp, kw->loc,
           "items %zu and %zu are equal; items must be unique", di, dj);
  return ok;
}

static bool eval_kw(vctx *c, const mcp__kw *kw, INST inst, const ipath *ip,
                    const kpath *kp, evset *ann) {
  char a[64], b[64];
  switch (kw->op) {
  case MCP__OP_TYPE: {
    unsigned t = type_bit(inst);
    if (kw->u.types & t)
      return true;
    if ((kw->u.types & MCP__T_INTEGER) && I_IS_REAL(inst) &&
        I_IS_INTEGRAL(inst))
      return true;
    if (V_OUT(c)) {
      types_text(kw->u.types, a, sizeof a);
      report(c, ip, kp, kw->loc, "expected %s, got %s", a, type_name(inst));
    }
    return false;
  }
  case MCP__OP_CONST:
    if (I_EQ_JSON(inst, kw->u.val.value))
      return true;
    report(c, ip, kp, kw->loc, "value does not equal the constant");
    return false;
  case MCP__OP_ENUM: {
    /* A string instance was settled by kw_quick; here it only fails. */
    size_t n = kw->u.en.count;
    uint64_t h = I_HASH(inst);
    for (size_t i = 0; i < n; i++)
      if (kw->u.en.hashes[i] == h && I_EQ_JSON(inst, kw->u.en.values[i]))
        return true;
    report(c, ip, kp, kw->loc, "value is not one of the %zu allowed values", n);
    return false;
  }
  case MCP__OP_MULTIPLE_OF:
    if (I_IS_MULTIPLE_JSON(inst, kw->u.val.value))
      return true;
    if (V_OUT(c)) {
      num_text(inst, a, sizeof a);
      json_num_text(kw->u.val.value, b, sizeof b);
      report(c, ip, kp, kw->loc, "%s is not a multiple of %s", a, b);
    }
    return false;
  case MCP__OP_MAXIMUM:
  case MCP__OP_EXCL_MAXIMUM:
  case MCP__OP_MINIMUM:
  case MCP__OP_EXCL_MINIMUM: {
    int r = I_NUM_CMP_JSON(inst, kw->u.val.value);
    bool ok = kw->op == MCP__OP_MAXIMUM        ? r <= 0
              : kw->op == MCP__OP_EXCL_MAXIMUM ? r < 0
              : kw->op == MCP__OP_MINIMUM      ? r >= 0
                                               : r > 0;
    if (ok)
      return true;
    if (V_OUT(c)) {
      static const char *const rel[] = {"less than or equal to", "less than",
                                        "greater than or equal to",
                                        "greater than"};
      num_text(inst, a, sizeof a);
      json_num_text(kw->u.val.value, b, sizeof b);
      report(c, ip, kp, kw->loc, "%s must be %s %s", a,
             rel[kw->op - MCP__OP_MAXIMUM], b);
    }
    return false;
  }
  case MCP__OP_MAX_LENGTH:
  case MCP__OP_MIN_LENGTH: {
    size_t len = I_STRLEN(inst);
    /* bytes bound code points from above and from below (4 per cp) */
    if (kw->op == MCP__OP_MAX_LENGTH && len <= kw->u.count)
      return true;
    if (kw->op == MCP__OP_MIN_LENGTH && len / 4 >= kw->u.count)
      return true;
    size_t cps = mcp__utf8_length(I_STR(inst), len);
    if (kw->op == MCP__OP_MAX_LENGTH ? cps <= kw->u.count : cps >= kw->u.count)
      return true;
    report(c, ip, kp, kw->loc, "string is %zu characters long, %s %zu", cps,
           kw->op == MCP__OP_MAX_LENGTH ? "at most" : "at least", kw->u.count);
    return false;
  }
  case MCP__OP_PATTERN: {
    bool m;
    if (!regex_ok(c, kw->u.re, I_STR(inst), I_STRLEN(inst), ip, kp, kw->loc,
                  &m))
      return false;
    if (m)
      return true;
    report(c, ip, kp, kw->loc, "string does not match pattern /%s/",
           mcp__regex_source(kw->u.re));
    return false;
  }
  case MCP__OP_FORMAT:
    if (kw->u.format.fn(I_STR(inst), I_STRLEN(inst)))
      return true;
    report(c, ip, kp, kw->loc, "string is not a valid %s", kw->u.format.name);
    return false;
  case MCP__OP_MAX_ITEMS:
  case MCP__OP_MIN_ITEMS: {
    size_t n = I_ARR_SIZE(inst);
    if (kw->op == MCP__OP_MAX_ITEMS ? n <= kw->u.count : n >= kw->u.count)
      return true;
    report(c, ip, kp, kw->loc, "array has %zu items, %s %zu", n,
           kw->op == MCP__OP_MAX_ITEMS ? "at most" : "at least", kw->u.count);
    return false;
  }
  case MCP__OP_UNIQUE_ITEMS:
    return eval_unique(c, kw, inst, ip, kp);
  case MCP__OP_MAX_PROPERTIES:
  case MCP__OP_MIN_PROPERTIES: {
    size_t n = I_OBJ_SIZE(inst);
    if (kw->op == MCP__OP_MAX_PROPERTIES ? n <= kw->u.count : n >= kw->u.count)
      return true;
    report(c, ip, kp, kw->loc, "object has %zu properties, %s %zu", n,
           kw->op == MCP__OP_MAX_PROPERTIES ? "at most" : "at least",
           kw->u.count);
    return false;
  }
  case MCP__OP_REQUIRED: {
    bool ok = true;
    for (size_t i = 0; i < kw->u.req.count; i++) {
      if (I_OBJ_GET(inst, kw->u.req.names[i], kw->u.req.lens[i]) == NULL) {
        report(c, ip, kp, kw->loc, "required property \"%s\" is missing",
               kw->u.req.names[i]);
        ok = false;
        if (!V_OUT(c))
          return false;
      }
    }
    return ok;
  }
  case MCP__OP_DEP_REQUIRED: {
    bool ok = true;
    for (size_t i = 0; i < kw->u.depreq.count; i++) {
      const mcp__dep_req *d = &kw->u.depreq.deps[i];
      if (I_OBJ_GET(inst, d->name, d->len) == NULL)
        continue;
      for (size_t j = 0; j < d->nreq; j++) {
        if (I_OBJ_GET(inst, d->req[j], d->req_len[j]) == NULL) {
          report(c, ip, kp, kw->loc,
                 "property \"%s\" is required when \"%s\" is present",
                 d->req[j], d->name);
          ok = false;
          if (!V_OUT(c))
            return false;
        }
      }
    }
    return ok;
  }
  case MCP__OP_REF:
    return eval_ref(c, kw->u.ref.target, inst, ip, kp, kw->loc, ann);
  case MCP__OP_DYNREF:
    return eval_ref(c, dynamic_target(c, kw), inst, ip, kp, kw->loc, ann);
  case MCP__OP_ALLOF:
    return eval_allof(c, kw, inst, ip, kp, ann);
  case MCP__OP_ANYOF: {
    size_t m = mark(c);
    bool any = false;
    for (size_t i = 0; i < kw->u.list.count; i++) {
      kpath k = {kp, kw->u.list.locs[i]};
      if (ann != NULL) {
        evset t;
        ev_init(c, &t, inst, ann);
        if (eval(c, kw->u.list.nodes[i], inst, ip, &k, &t)) {
          any = true;
          ev_merge(ann, &t);
        }
        ev_free(&t);
      } else if (eval(c, kw->u.list.nodes[i], inst, ip, &k, NULL)) {
        any = true;
        break;
      }
    }
    if (any) {
      rewind_to(c, m);
      return true;
    }
    report(c, ip, kp, kw->loc, "value does not match any schema in anyOf");
    return false;
  }
  case MCP__OP_ONEOF: {
    size_t m = mark(c);
    size_t valid = 0, first = 0, second = 0;
    evset keep = {0};
    bool have_keep = false;
    for (size_t i = 0; i < kw->u.list.count; i++) {
      kpath k = {kp, kw->u.list.locs[i]};
      evset t;
      if (ann != NULL) {
        ev_init(c, &t, inst, ann);
      }
      bool r = eval(c, kw->u.list.nodes[i], inst, ip, &k, ann ? &t : NULL);
      if (r) {
        if (valid == 0)
          first = i;
        else
          second = i;
        valid++;
        if (ann != NULL && !have_keep) {
          keep = t;
          have_keep = true;
          if (keep.bits == t.inl)
            keep.bits = keep.inl;
        } else if (ann != NULL) {
          ev_free(&t);
        }
        if (valid > 1)
          break;
      } else if (ann != NULL) {
        ev_free(&t);
      }
    }
    if (valid == 1) {
      rewind_to(c, m);
      if (have_keep)
        ev_merge(ann, &keep);
    }
    if (have_keep)
      ev_free(&keep);
    if (valid == 1)
      return true;
    if (valid == 0) {
      report(c, ip, kp, kw->loc, "value does not match any schema in oneOf");
    } else {
      rewind_to(c, m);
      report(c, ip, kp, kw->loc,
             "value matches more than one schema in oneOf (%zu and %zu)", first,
             second);
    }
    return false;
  }
  case MCP__OP_NOT: {
    kpath k = {kp, "not"};
    if (!probe(c, kw->u.one.node, inst, ip, &k, NULL))
      return true;
    report(c, ip, kp, kw->loc, "value must not match the \"not\" schema");
    return false;
  }
  case MCP__OP_IF: {
    if (ann == NULL && kw->u.cond.then_node == NULL &&
        kw->u.cond.else_node == NULL)
      return true;
    kpath k = {kp, "if"};
    bool cond;
    if (ann != NULL) {
      evset t;
      ev_init(c, &t, inst, ann);
      cond = probe(c, kw->u.cond.if_node, inst, ip, &k, &t);
      if (cond)
        ev_merge(ann, &t);
      ev_free(&t);
    } else {
      cond = probe(c, kw->u.cond.if_node, inst, ip, &k, NULL);
    }
    const mcp__node *next = cond ? kw->u.cond.then_node : kw->u.cond.else_node;
    if (next == NULL)
      return true;
    kpath k2 = {kp, cond ? "then" : "else"};
    int r = try_flat(c, next, inst, ann);
    if (r >= 0)
      return r;
    return eval(c, next, inst, ip, &k2, ann);
  }
  case MCP__OP_DEP_SCHEMAS: {
    bool ok = true;
    for (size_t i = 0; i < kw->u.deps.count; i++) {
      const mcp__prop *p = &kw->u.deps.props[i];
      if (I_OBJ_GET(inst, p->name, p->len) == NULL)
        continue;
      kpath k = {kp, p->loc};
      if (!eval(c, p->node, inst, ip, &k, ann)) {
        ok = false;
        if (!V_OUT(c))
          return false;
      }
    }
    return ok;
  }
  case MCP__OP_PROPERTY_NAMES:
    return eval_property_names(c, kw, inst, ip, kp);
  case MCP__OP_PROPERTIES:
    return eval_properties(c, kw, inst, ip, kp, ann);
  case MCP__OP_ITEMS:
    return eval_items(c, kw, inst, ip, kp, ann);
  case MCP__OP_CONTAINS:
    return eval_contains(c, kw, inst, ip, kp, ann);
  case MCP__OP_UNEVAL_ITEMS: {
    bool ok = true;
    const mcp__node *un = kw->u.one.node;
    kpath k = {kp, kw->loc};
    size_t i;
    INST item;
    I_ARR_FOREACH(inst, i, item) {
      if (ann != NULL && ev_test(ann, i))
        continue;
      ipath child = {ip, NULL, i};
      if (un->kind == MCP__NODE_FALSE) {
        report(c, &child, kp, kw->loc, "unevaluated item %zu is not allowed",
               i);
        ok = false;
      } else if (!eval(c, un, item, &child, &k, NULL)) {
        ok = false;
      }
      if (!ok && !V_OUT(c))
        return false;
    }
    if (ann != NULL)
      ann->all = true;
    return ok;
  }
  case MCP__OP_UNEVAL_PROPS:
    return eval_uneval_props(c, kw, ip, kp, ann);
  }
  return true;
}

/* The keywords of a node: the quick checks inline, the frequent applicators
 * directly, the rest through eval_kw. In the fast path a node's "type" was
 * checked by eval (n->type_first says it is the first keyword). */
static inline __attribute__((always_inline)) bool
eval_kws(vctx *c, const mcp__node *n, INST inst, const ipath *ip,
         const kpath *kp, evset *ann, unsigned t) {
  bool ok = true;
  const mcp__kw *kw = n->kw + (V_OUT(c) ? 0 : n->type_first),
                *end = n->kw + n->nkw;
  for (; kw != end; kw++) {
    if (!(kw->tmask & t))
      continue;
    int q = kw_quick(kw, inst, t);
    if (q == 1)
      continue;
    if (q == 0 && !V_OUT(c))
      return false;
    bool r;
    switch (kw->op) {
    case MCP__OP_PROPERTIES:
      r = eval_properties(c, kw, inst, ip, kp, ann);
      break;
    case MCP__OP_REF:
      r = eval_ref(c, kw->u.ref.target, inst, ip, kp, kw->loc, ann);
      break;
    case MCP__OP_ALLOF:
      r = eval_allof(c, kw, inst, ip, kp, ann);
      break;
    case MCP__OP_UNEVAL_PROPS:
      r = eval_uneval_props(c, kw, ip, kp, ann);
      break;
    default:
      r = eval_kw(c, kw, inst, ip, kp, ann);
    }
    if (!r) {
      ok = false;
      if (!V_OUT(c))
        return false;
    }
  }
  return ok;
}

/* The keywords of a node that has unevaluated*: it collects the annotations
 * of its own keywords in a local set and merges them upward when it passes.
 * Kept out of eval() so the common path has a small stack frame. */
static __attribute__((noinline)) bool
eval_collecting(vctx *c, const mcp__node *n, INST inst, const ipath *ip,
                const kpath *kp, evset *ann, unsigned t) {
  evset local;
  mlist ml;
  bool own_ml = false;
  if (ann == NULL && n->uneval_props && I_IS_OBJECT(inst) &&
      ml_build(c, &ml, inst)) {
    own_ml = true;
    ev_init_n(c, &local, ml.n);
    local.mem = &ml;
  } else {
    ev_init(c, &local, inst, ann);
    if (local.mem == NULL && n->uneval_props && I_IS_OBJECT(inst) &&
        ml_build(c, &ml, inst)) {
      local.mem = &ml;
      own_ml = true;
    }
  }
  bool ok = eval_kws(c, n, inst, ip, kp, &local, t);
  if (ok && ann != NULL)
    ev_merge(ann, &local);
  ev_free(&local);
  if (own_ml)
    free(ml.heap);
  return ok;
}

static bool eval(vctx *c, const mcp__node *n, INST inst, const ipath *ip,
                 const kpath *kp, evset *ann) {
  if (n->kind != MCP__NODE_SCHEMA) {
    if (n->kind == MCP__NODE_TRUE)
      return true;
    report(c, ip, kp, NULL, "no value is allowed here (false schema)");
    return false;
  }
  if (c->depth >= c->s->max_depth) {
    report(c, ip, kp, NULL,
           "evaluation exceeds the nesting limit of %u schemas",
           c->s->max_depth);
    return false;
  }
  unsigned t = type_bit(inst);
  if (!(n->types & t) && !V_OUT(c) &&
      !((n->types & MCP__T_INTEGER) && t == MCP__T_NUMBER &&
        I_IS_INTEGRAL(inst)))
    return false;
  /* A leaf evaluates no subschema: neither the depth nor the dynamic scope
   * can matter below it. */
  if (n->leaf)
    return eval_kws(c, n, inst, ip, kp, ann, t);
  c->depth++;
  scope sc;
  const scope *saved_scope = c->scope;
  if (c->s->has_dynamic && (c->scope == NULL || c->scope->res != n->res)) {
    sc.up = c->scope;
    sc.res = n->res;
    c->scope = &sc;
  }
  bool ok;
  int r;
  if (n->uneval)
    ok = eval_collecting(c, n, inst, ip, kp, ann, t);
  else if (n->flat && t == MCP__T_OBJECT && V_OUT(c) == NULL &&
           (r = ann == NULL
                    ? props_walk_fast(c, &n->kw[n->type_first], inst)
                    : props_lookup_fast(c, &n->kw[n->type_first], ann)) >= 0)
    ok = r;
  else
    ok = eval_kws(c, n, inst, ip, kp, ann, t);
  c->scope = saved_scope;
  c->depth--;
  return ok;
}

/* The fast path over one instance: MCP_OK, MCP_ERR_INVALID, or
 * MCP_ERR_NOMEM when an annotation set or member list could not be
 * allocated. */
static inline __attribute__((always_inline)) mcp_status
fast_validate(const mcp_schema_t *schema, INST instance) {
  mcp__regex_scratch rx;
  rx.gcontext = rx.match_data = NULL;
  rx.used = 0;
  vctx c = {.s = schema, .rx = &rx};
  const mcp__node *root = schema->root;
  int r = -1;
  /* The usual tool input schema (an object of properties) without the
   * root's eval() frame: what eval() would do, with its depth already
   * counted; the dynamic scope only matters with $dynamicRef. */
  if (root->kind == MCP__NODE_SCHEMA && root->flat && !schema->has_dynamic &&
      I_IS_OBJECT(instance) && (root->types & MCP__T_OBJECT) &&
      schema->max_depth > 0) {
    c.depth = 1;
    r = props_walk_fast(&c, &root->kw[root->type_first], instance);
    c.depth = 0;
  }
  bool ok = r >= 0 ? r == 1 : eval(&c, root, instance, NULL, NULL, NULL);
  if (rx.match_data != NULL || rx.gcontext != NULL)
    mcp__regex_scratch_release(&rx);
  return c.oom ? MCP_ERR_NOMEM : ok ? MCP_OK : MCP_ERR_INVALID;
}
