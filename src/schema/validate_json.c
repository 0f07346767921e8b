/* SPDX-License-Identifier: MIT */
/* validate_json.c - the evaluator (eval_body.inc) over jansson values:
 * mcp_schema_is_valid and the detailed mcp_schema_validate. */
#include <jansson.h>

#include "schema/internal.h"
#include "schema/jsonval.h"

/* Walks object members with the plain iterator API: four calls per member
 * instead of the seven json_object_keylen_foreach makes. The iterator
 * variable is made unique per line so loops can nest. */
#define I_OBJ_FOREACH(obj, key, klen, val)                                     \
  I_OBJ_FOREACH_(obj, key, klen, val, MCP__CAT(it_, __LINE__))
#define MCP__CAT_(a, b) a##b
#define MCP__CAT(a, b)  MCP__CAT_(a, b)
#define I_OBJ_FOREACH_(obj, key, klen, val, it)                                \
  for (void *it = json_object_iter((json_t *)(obj));                           \
       it != NULL && ((key) = json_object_iter_key(it),                        \
                     (klen) = json_object_iter_key_len(it),                    \
                     (val) = json_object_iter_value(it), 1);                   \
       it = json_object_iter_next((json_t *)(obj), it))

#define INST                     const json_t *
#define I_IS_OBJECT(v)           json_is_object(v)
#define I_IS_ARRAY(v)            json_is_array(v)
#define I_IS_STRING(v)           json_is_string(v)
#define I_IS_REAL(v)             json_is_real(v)
#define I_INT(v)                 json_integer_value(v)
#define I_REAL(v)                json_real_value(v)
#define I_STR(v)                 json_string_value(v)
#define I_STRLEN(v)              json_string_length(v)
#define I_ARR_SIZE(v)            json_array_size(v)
#define I_OBJ_SIZE(v)            json_object_size(v)
#define I_OBJ_GET(v, k, len)     json_object_getn((v), (k), (len))
#define I_LOOKUP_CHEAP           1
#define I_HASH(v)                mcp__json_hash(v)
#define I_EQ(a, b)               mcp__json_equal((a), (b))
#define I_EQ_JSON(a, b)          mcp__json_equal((a), (b))
#define I_NUM_CMP_JSON(a, b)     mcp__num_cmp((a), (b))
#define I_IS_MULTIPLE_JSON(a, b) mcp__num_is_multiple((a), (b))
#define I_IS_INTEGRAL(v)         mcp__num_is_integral(v)
#define V_OUT(c)                 ((c)->out)
#define I_ARR_FOREACH(arr, i, item)                                            \
  for ((i) = 0;                                                                \
       (i) < json_array_size(arr) && ((item) = json_array_get((arr), (i)), 1); \
       (i)++)

/* indexed by json_type: OBJECT, ARRAY, STRING, INTEGER, REAL, TRUE, FALSE,
 * NULL */
static const uint8_t json_type_bits[8] = {
    MCP__T_OBJECT, MCP__T_ARRAY, MCP__T_STRING, MCP__T_NUMBER | MCP__T_INTEGER,
    MCP__T_NUMBER, MCP__T_BOOL,  MCP__T_BOOL,   MCP__T_NULL};
#define I_TYPE_BIT(v) ((unsigned)json_type_bits[(unsigned)json_typeof(v) & 7u])

#include "schema/eval_body.inc"

/* propertyNames: each key becomes a string value for the subschema. */
static bool eval_property_names(vctx *c, const mcp__kw *kw, INST inst,
                                const ipath *ip, const kpath *kp) {
  bool ok = true;
  const char *key;
  size_t klen;
  json_t *val;
  kpath k = {kp, "propertyNames"};
  const mcp__node *pn = kw->u.one.node;
  if (pn->kind == MCP__NODE_TRUE)
    return true;
  json_object_keylen_foreach((json_t *)inst, key, klen, val) {
    (void)val;
    json_t *name = json_stringn_nocheck(key, klen);
    if (name == NULL) {
      c->oom = true;
      return false;
    }
    ipath child = {ip, key, 0};
    bool r = eval(c, pn, name, &child, &k, NULL);
    json_decref(name);
    if (!r) {
      ok = false;
      if (!c->out)
        return false;
    }
  }
  return ok;
}

bool mcp_schema_is_valid(const mcp_schema_t *schema, const json_t *instance) {
  if (schema == NULL || instance == NULL)
    return false;
  return fast_validate(schema, instance) == MCP_OK;
}

mcp_status mcp_schema_validate(const mcp_schema_t *schema,
                               const json_t *instance, mcp_validation_t **out) {
  if (out != NULL)
    *out = NULL;
  if (schema == NULL || instance == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_validation_t *v = calloc(1, sizeof *v);
  if (v == NULL)
    return MCP_ERR_NOMEM;
  mcp__regex_scratch rx;
  rx.gcontext = rx.match_data = NULL;
  rx.used = 0;
  vctx c = {.s = schema, .out = v, .rx = &rx};
  bool ok = eval(&c, schema->root, instance, NULL, NULL, NULL);
  mcp__regex_scratch_release(&rx);
  if (c.oom) {
    mcp_validation_free(v);
    return MCP_ERR_NOMEM;
  }
  if (ok) {
    mcp_validation_free(v);
    return MCP_OK;
  }
  if (v->count == 0) {
    char *il = strdup(""), *kl = strdup(""),
         *m = strdup("instance does not match the schema");
    if (il == NULL || kl == NULL || m == NULL) {
      free(il);
      free(kl);
      free(m);
      mcp_validation_free(v);
      return MCP_ERR_NOMEM;
    }
    if (!mcp__validation_push(v, il, kl, m)) {
      mcp_validation_free(v);
      return MCP_ERR_NOMEM;
    }
  }
  if (out != NULL)
    *out = v;
  else
    mcp_validation_free(v);
  return MCP_ERR_INVALID;
}
