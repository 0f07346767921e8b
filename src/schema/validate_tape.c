/* SPDX-License-Identifier: MIT */
/* validate_tape.c - the evaluator (eval_body.inc) over a parsed tape (tape.h):
 * mcp_schema_validate_text. Only the fast path exists here (V_OUT is a
 * constant NULL, so all reporting code folds away); a caller wanting the
 * error list parses with jansson and uses mcp_schema_validate.
 *
 * Value semantics (equality, hashing, numeric comparison, multipleOf) go
 * through the mcp__num / hash pieces of jsonval.h that the jansson path
 * uses too, so both representations reach the same verdicts. */
#include "schema/validate_tape.h"
#include "schema/internal.h"
#include "schema/jsonval.h"
#include "schema/map.h"

typedef const mcp__tnode *tref;

static inline mcp__num t_num(tref v) {
  mcp__num n = {v->type == MCP__J_INT, 0, 0};
  if (n.is_int)
    n.i = v->v.i;
  else
    n.d = v->v.d;
  return n;
}

/* The next member's key after key node k (its value follows it). */
static inline tref t_next_key(tref k) {
  return k + 1 + k[1].skip;
}

/* Members in order, each key once: a key that reappears later is dead.
 * The if/else shape keeps break and continue working in the body. */
#define I_OBJ_FOREACH(obj, key, klen, val)                                     \
  I_OBJ_FOREACH_(obj, key, klen, val, MCP__CAT(k_, __LINE__),                  \
                 MCP__CAT(e_, __LINE__))
#define MCP__CAT_(a, b) a##b
#define MCP__CAT(a, b)  MCP__CAT_(a, b)
#define I_OBJ_FOREACH_(obj, key, klen, val, k, e)                              \
  for (tref k = (obj) + 1, e = (obj) + (obj)->skip; k != e; k = t_next_key(k)) \
    if (k->dead) {                                                             \
    } else if (((key) = k->v.s, (klen) = k->n, (val) = k + 1, 0)) {            \
    } else

#define I_ARR_FOREACH(arr, i, item)                                            \
  for (tref it_ = ((i) = 0, (arr) + 1);                                        \
       it_ != (arr) + (arr)->skip && ((item) = it_, 1);                        \
       it_ += it_->skip, (i)++)

static inline tref t_get(tref o, const char *key, size_t len) {
  for (tref k = o + 1, e = o + o->skip; k != e; k = t_next_key(k))
    if (k->n == len && !k->dead && mcp__bytes_eq(k->v.s, key, len))
      return k + 1;
  return NULL;
}

/* mcp__json_hash of the same value. */
static uint64_t t_hash(tref v) {
  switch (v->type) {
  case MCP__J_INT:
  case MCP__J_REAL:
    return mcp__hash_num(t_num(v));
  case MCP__J_STRING:
    return mcp__hash_bytes(v->v.s, v->n);
  case MCP__J_ARRAY: {
    uint64_t h = MCP__HASH_ARRAY_SEED;
    for (tref it = v + 1, e = v + v->skip; it != e; it += it->skip)
      h = mcp__hash_mix(h * 31 + t_hash(it));
    return h;
  }
  case MCP__J_OBJECT: {
    uint64_t h = MCP__HASH_OBJECT_SEED;
    for (tref k = v + 1, e = v + v->skip; k != e; k = t_next_key(k))
      if (!k->dead)
        h += mcp__hash_member(mcp__hash_bytes(k->v.s, k->n), t_hash(k + 1));
    return h;
  }
  case MCP__J_TRUE:
    return MCP__HASH_TRUE;
  case MCP__J_FALSE:
    return MCP__HASH_FALSE;
  default:
    return MCP__HASH_NULL;
  }
}

static inline bool t_is_number(tref v) {
  return v->type == MCP__J_INT || v->type == MCP__J_REAL;
}

/* mcp__json_equal between two tape values. */
static bool t_eq(tref a, tref b) {
  if (a == b)
    return true;
  if (t_is_number(a) && t_is_number(b))
    return mcp__numv_cmp(t_num(a), t_num(b)) == 0;
  if (a->type != b->type)
    return false;
  switch (a->type) {
  case MCP__J_STRING:
    return a->n == b->n && memcmp(a->v.s, b->v.s, a->n) == 0;
  case MCP__J_ARRAY: {
    if (a->n != b->n)
      return false;
    for (tref x = a + 1, y = b + 1, e = a + a->skip; x != e;
         x += x->skip, y += y->skip)
      if (!t_eq(x, y))
        return false;
    return true;
  }
  case MCP__J_OBJECT: {
    if (a->n != b->n)
      return false;
    for (tref k = a + 1, e = a + a->skip; k != e; k = t_next_key(k)) {
      if (k->dead)
        continue;
      tref w = t_get(b, k->v.s, k->n);
      if (w == NULL || !t_eq(k + 1, w))
        return false;
    }
    return true;
  }
  default:
    return true; /* true, false, null: same type means equal */
  }
}

/* mcp__json_equal between a tape value and a schema value. */
static bool t_eq_json(tref a, const json_t *b) {
  if (t_is_number(a) && json_is_number(b))
    return mcp__numv_cmp(t_num(a), mcp__num_of(b)) == 0;
  switch (a->type) {
  case MCP__J_NULL:
    return json_is_null(b);
  case MCP__J_TRUE:
    return json_is_true(b);
  case MCP__J_FALSE:
    return json_is_false(b);
  case MCP__J_STRING:
    return json_is_string(b) && json_string_length(b) == a->n &&
           memcmp(json_string_value(b), a->v.s, a->n) == 0;
  case MCP__J_ARRAY: {
    if (!json_is_array(b) || json_array_size(b) != a->n)
      return false;
    size_t i = 0;
    for (tref x = a + 1, e = a + a->skip; x != e; x += x->skip, i++)
      if (!t_eq_json(x, json_array_get(b, i)))
        return false;
    return true;
  }
  case MCP__J_OBJECT: {
    if (!json_is_object(b) || json_object_size(b) != a->n)
      return false;
    for (tref k = a + 1, e = a + a->skip; k != e; k = t_next_key(k)) {
      if (k->dead)
        continue;
      const json_t *w = json_object_getn(b, k->v.s, k->n);
      if (w == NULL || !t_eq_json(k + 1, w))
        return false;
    }
    return true;
  }
  default:
    return false; /* a number against a non-number */
  }
}

static inline bool t_is_integral(tref v) {
  return v->type == MCP__J_INT ||
         (v->type == MCP__J_REAL && mcp__numv_is_integral(t_num(v)));
}

/* indexed by mcp__ttype */
static const uint8_t tape_type_bits[8] = {
    MCP__T_NULL,   MCP__T_BOOL,   MCP__T_BOOL,  MCP__T_NUMBER | MCP__T_INTEGER,
    MCP__T_NUMBER, MCP__T_STRING, MCP__T_ARRAY, MCP__T_OBJECT};

#define INST                 tref
#define I_TYPE_BIT(x)        ((unsigned)tape_type_bits[(x)->type & 7u])
#define I_IS_OBJECT(x)       ((x)->type == MCP__J_OBJECT)
#define I_IS_ARRAY(x)        ((x)->type == MCP__J_ARRAY)
#define I_IS_STRING(x)       ((x)->type == MCP__J_STRING)
#define I_IS_REAL(x)         ((x)->type == MCP__J_REAL)
#define I_INT(x)             ((x)->v.i)
#define I_REAL(x)            ((x)->v.d)
#define I_STR(x)             ((x)->v.s)
#define I_STRLEN(x)          ((size_t)(x)->n)
#define I_ARR_SIZE(x)        ((size_t)(x)->n)
#define I_OBJ_SIZE(x)        ((size_t)(x)->n)
#define I_OBJ_GET(x, k, len) t_get((x), (k), (len))
/* a member lookup is a scan: walking the members is never worse */
#define I_LOOKUP_CHEAP           0
#define I_HASH(x)                t_hash(x)
#define I_EQ(a, b)               t_eq((a), (b))
#define I_EQ_JSON(a, b)          t_eq_json((a), (b))
#define I_NUM_CMP_JSON(a, b)     mcp__numv_cmp(t_num(a), mcp__num_of(b))
#define I_IS_MULTIPLE_JSON(a, b) mcp__numv_is_multiple(t_num(a), mcp__num_of(b))
#define I_IS_INTEGRAL(x)         t_is_integral(x)
#define V_OUT(c)                 ((mcp_validation_t *)NULL)

#include "schema/eval_body.inc"

/* propertyNames: a key node is a string node, so it is the instance. */
static bool eval_property_names(vctx *c, const mcp__kw *kw, INST inst,
                                const ipath *ip, const kpath *kp) {
  const char *key;
  size_t klen;
  INST val;
  kpath k = {kp, "propertyNames"};
  const mcp__node *pn = kw->u.one.node;
  if (pn->kind == MCP__NODE_TRUE)
    return true;
  I_OBJ_FOREACH(inst, key, klen, val) {
    ipath child = {ip, key, 0};
    (void)klen;
    if (!eval(c, pn, val - 1, &child, &k, NULL))
      return false;
  }
  return true;
}

mcp_status mcp__validate_tape(const mcp_schema_t *schema,
                              const mcp__tnode *root) {
  return fast_validate(schema, root);
}

mcp_status mcp_schema_validate_text(const mcp_schema_t *schema,
                                    const char *json, size_t len) {
  if (schema == NULL || (json == NULL && len != 0))
    return MCP_ERR_INVALID_ARG;
  mcp__tape t;
  mcp_status st = mcp__tape_parse(&t, json, len);
  if (st == MCP_OK)
    st = fast_validate(schema, t.nodes);
  mcp__tape_release(&t);
  return st;
}
