/* SPDX-License-Identifier: MIT */
/* validation.c - the validation vocabulary's keywords: type, enum, const,
 * the numeric bounds and multipleOf, the length and count limits, pattern,
 * uniqueItems, required and dependentRequired (minContains / maxContains are
 * read by "contains", applicator.c). Evaluation: validation_eval.inc. */
#include <stdint.h>
#include <string.h>

#include "schema/compiler.h"
#include "schema/jsonval.h"

static bool decode_type(mcp__cctx *c, mcp__kwlist *l, json_t *v,
                        const char *where) {
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
      return mcp__compile_fail(c, where, "\"type\" must name JSON types");
  }
  mcp__kw *k = mcp__compile_add(c, l, MCP__OP_TYPE, MCP__T_ANY, "type");
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

static bool decode_enum(mcp__cctx *c, mcp__kwlist *l, json_t *v,
                        const char *where) {
  if (!json_is_array(v))
    return mcp__compile_fail(c, where, "\"enum\" must be an array");
  size_t n = json_array_size(v);
  mcp__kw *k = mcp__compile_add(c, l, MCP__OP_ENUM, MCP__T_ANY, "enum");
  if (k == NULL)
    return false;
  k->u.en.count = n;
  k->u.en.values = mcp__compile_alloc(c, (n ? n : 1) * sizeof(json_t *));
  k->u.en.hashes = mcp__compile_alloc(c, (n ? n : 1) * sizeof(uint64_t));
  k->u.en.strs = mcp__compile_alloc(c, (n ? n : 1) * sizeof(char *));
  k->u.en.lens = mcp__compile_alloc(c, (n ? n : 1) * sizeof(size_t));
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

static mcp__kwres compile_type(mcp__cctx *c, mcp__kwlist *l,
                               const mcp__kwsite *site) {
  return decode_type(c, l, site->value, site->kp) ? MCP__KW_NEXT
                                                  : MCP__KW_FAILED;
}

static mcp__kwres compile_enum(mcp__cctx *c, mcp__kwlist *l,
                               const mcp__kwsite *site) {
  return decode_enum(c, l, site->value, site->kp) ? MCP__KW_NEXT
                                                  : MCP__KW_FAILED;
}

static mcp__kwres compile_const(mcp__cctx *c, mcp__kwlist *l,
                                const mcp__kwsite *site) {
  mcp__kw *k = mcp__compile_add(c, l, MCP__OP_CONST, MCP__T_ANY, "const");
  if (k == NULL)
    return MCP__KW_FAILED;
  set_val(k, site->value);
  return MCP__KW_NEXT;
}

/* maximum, exclusiveMaximum, minimum, exclusiveMinimum, multipleOf */
static mcp__kwres compile_number(mcp__cctx *c, mcp__kwlist *l,
                                 const mcp__kwsite *site) {
  json_t *v = site->value;
  const char *name = site->row->name;
  if (!json_is_number(v)) {
    mcp__compile_fail(c, site->kp, "\"%s\" must be a number", name);
    return MCP__KW_FAILED;
  }
  if (site->row->op == MCP__OP_MULTIPLE_OF && !(json_number_value(v) > 0)) {
    mcp__compile_fail(c, site->kp, "\"multipleOf\" must be greater than 0");
    return MCP__KW_FAILED;
  }
  mcp__kw *k =
      mcp__compile_add(c, l, (mcp__op)site->row->op, MCP__T_NUMBER, name);
  if (k == NULL)
    return MCP__KW_FAILED;
  set_val(k, v);
  return MCP__KW_NEXT;
}

/* maxLength, minLength, maxItems, minItems, maxProperties, minProperties */
static mcp__kwres compile_count(mcp__cctx *c, mcp__kwlist *l,
                                const mcp__kwsite *site) {
  mcp__op op = (mcp__op)site->row->op;
  unsigned t =
      op == MCP__OP_MAX_LENGTH || op == MCP__OP_MIN_LENGTH ? MCP__T_STRING
      : op == MCP__OP_MAX_ITEMS || op == MCP__OP_MIN_ITEMS ? MCP__T_ARRAY
                                                           : MCP__T_OBJECT;
  size_t cnt;
  if (!mcp__compile_count(c, site->value, site->kp, site->row->name, &cnt))
    return MCP__KW_FAILED;
  mcp__kw *k = mcp__compile_add(c, l, op, t, site->row->name);
  if (k == NULL)
    return MCP__KW_FAILED;
  k->u.count = cnt;
  return MCP__KW_NEXT;
}

static mcp__kwres compile_pattern(mcp__cctx *c, mcp__kwlist *l,
                                  const mcp__kwsite *site) {
  mcp__regex *re = mcp__compile_regex(c, site->value, site->kp);
  if (re == NULL)
    return MCP__KW_FAILED;
  mcp__kw *k =
      mcp__compile_add(c, l, MCP__OP_PATTERN, MCP__T_STRING, "pattern");
  if (k == NULL)
    return MCP__KW_FAILED;
  k->u.re = re;
  return MCP__KW_NEXT;
}

static mcp__kwres compile_unique_items(mcp__cctx *c, mcp__kwlist *l,
                                       const mcp__kwsite *site) {
  if (!json_is_boolean(site->value)) {
    mcp__compile_fail(c, site->kp, "\"uniqueItems\" must be a boolean");
    return MCP__KW_FAILED;
  }
  if (json_is_true(site->value) &&
      mcp__compile_add(c, l, MCP__OP_UNIQUE_ITEMS, MCP__T_ARRAY,
                       "uniqueItems") == NULL)
    return MCP__KW_FAILED;
  return MCP__KW_NEXT;
}

static mcp__kwres compile_required(mcp__cctx *c, mcp__kwlist *l,
                                   const mcp__kwsite *site) {
  mcp__kw *k =
      mcp__compile_add(c, l, MCP__OP_REQUIRED, MCP__T_OBJECT, "required");
  if (k == NULL ||
      !mcp__compile_strings(c, site->value, site->kp, "required",
                            &k->u.req.names, &k->u.req.lens, &k->u.req.count))
    return MCP__KW_FAILED;
  return MCP__KW_NEXT;
}

static mcp__kwres compile_dependent_required(mcp__cctx *c, mcp__kwlist *l,
                                             const mcp__kwsite *site) {
  if (!json_is_object(site->value)) {
    mcp__compile_fail(c, site->kp, "\"dependentRequired\" must be an object");
    return MCP__KW_FAILED;
  }
  mcp__kw *k = mcp__compile_add(c, l, MCP__OP_DEP_REQUIRED, MCP__T_OBJECT,
                                "dependentRequired");
  if (k == NULL || !mcp__compile_dep_required(c, k, site->value, site->kp,
                                              "dependentRequired"))
    return MCP__KW_FAILED;
  return MCP__KW_NEXT;
}

static const mcp__keyword keywords[] = {
    {"type", compile_type, 0, NULL, MCP__OP_TYPE},
    {"enum", compile_enum, 0, NULL, MCP__OP_ENUM},
    {"const", compile_const, 0, NULL, MCP__OP_CONST},
    {"maximum", compile_number, 0, NULL, MCP__OP_MAXIMUM},
    {"exclusiveMaximum", compile_number, 0, NULL, MCP__OP_EXCL_MAXIMUM},
    {"minimum", compile_number, 0, NULL, MCP__OP_MINIMUM},
    {"exclusiveMinimum", compile_number, 0, NULL, MCP__OP_EXCL_MINIMUM},
    {"multipleOf", compile_number, 0, NULL, MCP__OP_MULTIPLE_OF},
    {"maxLength", compile_count, 0, NULL, MCP__OP_MAX_LENGTH},
    {"minLength", compile_count, 0, NULL, MCP__OP_MIN_LENGTH},
    {"maxItems", compile_count, 0, NULL, MCP__OP_MAX_ITEMS},
    {"minItems", compile_count, 0, NULL, MCP__OP_MIN_ITEMS},
    {"maxProperties", compile_count, 0, NULL, MCP__OP_MAX_PROPERTIES},
    {"minProperties", compile_count, 0, NULL, MCP__OP_MIN_PROPERTIES},
    {"pattern", compile_pattern, 0, NULL, MCP__OP_PATTERN},
    {"uniqueItems", compile_unique_items, 0, NULL, MCP__OP_UNIQUE_ITEMS},
    {"required", compile_required, 0, NULL, MCP__OP_REQUIRED},
    {"dependentRequired", compile_dependent_required, MCP__KWF_NOT_D7, NULL,
     MCP__OP_DEP_REQUIRED},
    /* read by "contains" (applicator.c) */
    {"minContains", NULL, MCP__KWF_NOT_D7, NULL, MCP__OP_CONTAINS},
    {"maxContains", NULL, MCP__KWF_NOT_D7, NULL, MCP__OP_CONTAINS},
};

const mcp__vocabulary mcp__vocab_validation = {
    "validation", MCP__V_VALIDATION, MCP__V_VALIDATION, keywords,
    sizeof keywords / sizeof keywords[0]};
