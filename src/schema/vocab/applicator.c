/* SPDX-License-Identifier: MIT */
/* applicator.c - the applicator vocabulary's keywords: allOf, anyOf, oneOf,
 * not, if / then / else, dependentSchemas (and draft-07 "dependencies",
 * honoured in 2020-12 documents too), propertyNames, properties /
 * patternProperties / additionalProperties (one operation), prefixItems /
 * items (draft-07: items[] / additionalItems; one operation) and contains
 * (with minContains / maxContains of the validation vocabulary).
 * Evaluation: applicator_eval.inc. */
#include <stdint.h>
#include <string.h>

#include "schema/compiler.h"

/* allOf, anyOf, oneOf */
static mcp__kwres compile_list(mcp__cctx *c, mcp__kwlist *l,
                               const mcp__kwsite *site) {
  const char *name = site->row->name;
  const char **locs;
  size_t cnt;
  mcp__node **nodes =
      mcp__compile_array(c, site->value, site->where, name, &locs, &cnt);
  if (nodes == NULL)
    return MCP__KW_FAILED;
  mcp__kw *k = mcp__compile_add(c, l, (mcp__op)site->row->op, MCP__T_ANY, name);
  if (k == NULL)
    return MCP__KW_FAILED;
  k->u.list.nodes = nodes;
  k->u.list.locs = locs;
  k->u.list.count = cnt;
  return MCP__KW_NEXT;
}

/* not, propertyNames: one subschema */
static mcp__kwres compile_one(mcp__cctx *c, mcp__kwlist *l,
                              const mcp__kwsite *site) {
  const char *name = site->row->name;
  mcp__op op = (mcp__op)site->row->op;
  mcp__node *n = mcp__compile_child(c, site->value, site->where, name);
  if (n == NULL)
    return MCP__KW_FAILED;
  mcp__kw *k = mcp__compile_add(
      c, l, op, op == MCP__OP_PROPERTY_NAMES ? MCP__T_OBJECT : MCP__T_ANY,
      name);
  if (k == NULL)
    return MCP__KW_FAILED;
  k->u.one.node = n;
  return MCP__KW_NEXT;
}

static mcp__kwres compile_if(mcp__cctx *c, mcp__kwlist *l,
                             const mcp__kwsite *site) {
  json_t *js = site->schema;
  mcp__node *in = mcp__compile_child(c, site->value, site->where, "if"),
            *tn = NULL, *en = NULL;
  if (in == NULL)
    return MCP__KW_FAILED;
  json_t *t = json_object_get(js, "then"), *e = json_object_get(js, "else");
  if (t != NULL && (tn = mcp__compile_child(c, t, site->where, "then")) == NULL)
    return MCP__KW_FAILED;
  if (e != NULL && (en = mcp__compile_child(c, e, site->where, "else")) == NULL)
    return MCP__KW_FAILED;
  /* Kept even without then/else: unevaluated* sees its annotations. */
  mcp__kw *k = mcp__compile_add(c, l, MCP__OP_IF, MCP__T_ANY, "if");
  if (k == NULL)
    return MCP__KW_FAILED;
  k->u.cond.if_node = in;
  k->u.cond.then_node = tn;
  k->u.cond.else_node = en;
  return MCP__KW_NEXT;
}

static mcp__kwres compile_dependent_schemas(mcp__cctx *c, mcp__kwlist *l,
                                            const mcp__kwsite *site) {
  mcp__ptable t = {0};
  if (!mcp__compile_ptable(c, &t, site->value, site->where, "dependentSchemas",
                           true))
    return MCP__KW_FAILED;
  mcp__kw *k = mcp__compile_add(c, l, MCP__OP_DEP_SCHEMAS, MCP__T_OBJECT,
                                "dependentSchemas");
  if (k == NULL)
    return MCP__KW_FAILED;
  k->u.deps = t;
  return MCP__KW_NEXT;
}

/* draft-07 "dependencies"; also honoured in 2020-12 documents for
 * compatibility (optional suite: dependencies-compatibility): split into the
 * two 2019+ keywords, keeping the location. */
static mcp__kwres compile_dependencies(mcp__cctx *c, mcp__kwlist *l,
                                       const mcp__kwsite *site) {
  json_t *v = site->value;
  if (!json_is_object(v)) {
    mcp__compile_fail(c, site->kp, "\"dependencies\" must be an object");
    return MCP__KW_FAILED;
  }
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
  bool kept = good && mcp__compile_keep(c, req) && mcp__compile_keep(c, sch);
  size_t nreq = json_object_size(req), nsch = json_object_size(sch);
  json_decref(req);
  json_decref(sch);
  if (!kept) {
    mcp__compile_oom(c);
    return MCP__KW_FAILED;
  }
  if (nsch > 0) {
    mcp__ptable t = {0};
    if (!mcp__compile_ptable(c, &t, sch, site->where, "dependencies", true))
      return MCP__KW_FAILED;
    mcp__kw *k = mcp__compile_add(c, l, MCP__OP_DEP_SCHEMAS, MCP__T_OBJECT,
                                  "dependencies");
    if (k == NULL)
      return MCP__KW_FAILED;
    k->u.deps = t;
  }
  if (nreq > 0) {
    mcp__kw *k = mcp__compile_add(c, l, MCP__OP_DEP_REQUIRED, MCP__T_OBJECT,
                                  "dependencies");
    if (k == NULL ||
        !mcp__compile_dep_required(c, k, req, site->kp, "dependencies"))
      return MCP__KW_FAILED;
  }
  return MCP__KW_NEXT;
}

/* properties + patternProperties + additionalProperties: one operation */
static mcp__kwres compile_properties(mcp__cctx *c, mcp__kwlist *l,
                                     const mcp__kwsite *site) {
  json_t *js = site->schema;
  const char *where = site->where;
  json_t *props = site->value;
  json_t *pprops = json_object_get(js, "patternProperties");
  json_t *addl = json_object_get(js, "additionalProperties");
  mcp__kw tmp = {.op = MCP__OP_PROPERTIES, .tmask = MCP__T_OBJECT};
  tmp.loc = props    ? "properties"
            : pprops ? "patternProperties"
                     : "additionalProperties";
  if (props && !mcp__compile_ptable(c, &tmp.u.props.table, props, where,
                                    "properties", true))
    return MCP__KW_FAILED;
  if (pprops) {
    char *pp = mcp__compile_path(c, where, "patternProperties");
    if (pp == NULL)
      return MCP__KW_FAILED;
    if (!json_is_object(pprops)) {
      mcp__compile_fail(c, pp, "\"patternProperties\" must be an object");
      return MCP__KW_FAILED;
    }
    size_t n = json_object_size(pprops), i = 0;
    tmp.u.props.patterns =
        mcp__compile_alloc(c, (n ? n : 1) * sizeof(mcp__pattern_prop));
    if (tmp.u.props.patterns == NULL)
      return MCP__KW_FAILED;
    tmp.u.props.npatterns = n;
    const char *key;
    json_t *pv;
    json_object_foreach(pprops, key, pv) {
      mcp__pattern_prop *p = &tmp.u.props.patterns[i++];
      char *cw = mcp__compile_path(c, pp, key);
      if (cw == NULL)
        return MCP__KW_FAILED;
      json_t *ks = json_string(key);
      if (ks == NULL) {
        mcp__compile_oom(c);
        return MCP__KW_FAILED;
      }
      p->re = mcp__compile_regex(c, ks, cw);
      json_decref(ks);
      if (p->re == NULL)
        return MCP__KW_FAILED;
      p->loc = mcp__compile_loc(c, "patternProperties", key);
      if (p->loc == NULL)
        return MCP__KW_FAILED;
      p->node = mcp__compile_node(c, pv, cw);
      if (p->node == NULL)
        return MCP__KW_FAILED;
    }
  }
  if (addl) {
    tmp.u.props.additional =
        mcp__compile_child(c, addl, where, "additionalProperties");
    if (tmp.u.props.additional == NULL)
      return MCP__KW_FAILED;
    tmp.u.props.additional_loc = "additionalProperties";
  }
  mcp__kw *k =
      mcp__compile_add(c, l, MCP__OP_PROPERTIES, MCP__T_OBJECT, tmp.loc);
  if (k == NULL)
    return MCP__KW_FAILED;
  *k = tmp;
  return MCP__KW_NEXT;
}

/* Arrays: 2020-12 prefixItems + items; draft-07 items[] + additionalItems.
 * One operation. */
static mcp__kwres compile_items(mcp__cctx *c, mcp__kwlist *l,
                                const mcp__kwsite *site) {
  json_t *js = site->schema;
  const char *where = site->where;
  const bool d7 = site->d7;
  json_t *items = site->value;
  json_t *prefix = d7 ? (json_is_array(items) ? items : NULL)
                      : json_object_get(js, "prefixItems");
  json_t *rest =
      d7 ? (json_is_array(items) ? json_object_get(js, "additionalItems")
                                 : items)
         : items;
  if (!prefix && !rest)
    return MCP__KW_NEXT; /* draft-07 additionalItems without items */
  mcp__kw tmp = {.op = MCP__OP_ITEMS, .tmask = MCP__T_ARRAY};
  const char *pkw = d7 ? "items" : "prefixItems";
  const char *rkw = d7 && prefix ? "additionalItems" : "items";
  tmp.u.items.prefix_kw = pkw;
  tmp.loc = prefix ? pkw : rkw;
  if (prefix) {
    tmp.u.items.prefix =
        mcp__compile_array(c, prefix, where, pkw, NULL, &tmp.u.items.nprefix);
    if (tmp.u.items.prefix == NULL)
      return MCP__KW_FAILED;
  }
  if (rest) {
    if (!d7 && json_is_array(rest)) {
      mcp__compile_fail(c, site->kp,
                        "\"items\" must be a schema in draft 2020-12");
      return MCP__KW_FAILED;
    }
    tmp.u.items.rest = mcp__compile_child(c, rest, where, rkw);
    if (tmp.u.items.rest == NULL)
      return MCP__KW_FAILED;
    tmp.u.items.rest_loc = rkw;
  }
  mcp__kw *k = mcp__compile_add(c, l, MCP__OP_ITEMS, MCP__T_ARRAY, tmp.loc);
  if (k == NULL)
    return MCP__KW_FAILED;
  *k = tmp;
  return MCP__KW_NEXT;
}

static mcp__kwres compile_contains(mcp__cctx *c, mcp__kwlist *l,
                                   const mcp__kwsite *site) {
  json_t *js = site->schema;
  const char *where = site->where;
  mcp__node *cn = mcp__compile_child(c, site->value, where, "contains");
  if (cn == NULL)
    return MCP__KW_FAILED;
  size_t mn = 1, mx = SIZE_MAX;
  /* minContains / maxContains: validation vocabulary, 2019+ */
  bool bounds = (site->inf->d.vocab & MCP__V_VALIDATION) && !site->d7;
  json_t *mnv = bounds ? json_object_get(js, "minContains") : NULL;
  json_t *mxv = bounds ? json_object_get(js, "maxContains") : NULL;
  if (mnv && !mcp__compile_count(c, mnv, where, "minContains", &mn))
    return MCP__KW_FAILED;
  if (mxv && !mcp__compile_count(c, mxv, where, "maxContains", &mx))
    return MCP__KW_FAILED;
  mcp__kw *k =
      mcp__compile_add(c, l, MCP__OP_CONTAINS, MCP__T_ARRAY, "contains");
  if (k == NULL)
    return MCP__KW_FAILED;
  k->u.contains.node = cn;
  k->u.contains.min = mn;
  k->u.contains.max = mx;
  k->u.contains.min_loc = mnv ? "minContains" : "contains";
  k->u.contains.max_loc = "maxContains";
  return MCP__KW_NEXT;
}

static const char *const properties_siblings[] = {"patternProperties",
                                                  "additionalProperties", NULL};
static const char *const items_siblings[] = {"prefixItems", "additionalItems",
                                             NULL};

static const mcp__keyword keywords[] = {
    {"allOf", compile_list, 0, NULL, MCP__OP_ALLOF},
    {"anyOf", compile_list, 0, NULL, MCP__OP_ANYOF},
    {"oneOf", compile_list, 0, NULL, MCP__OP_ONEOF},
    {"not", compile_one, 0, NULL, MCP__OP_NOT},
    {"if", compile_if, 0, NULL, MCP__OP_IF},
    {"dependentSchemas", compile_dependent_schemas, MCP__KWF_NOT_D7, NULL,
     MCP__OP_DEP_SCHEMAS},
    {"dependencies", compile_dependencies, 0, NULL, MCP__OP_DEP_SCHEMAS},
    {"propertyNames", compile_one, 0, NULL, MCP__OP_PROPERTY_NAMES},
    {"properties", compile_properties, 0, properties_siblings,
     MCP__OP_PROPERTIES},
    {"items", compile_items, 0, items_siblings, MCP__OP_ITEMS},
    {"contains", compile_contains, 0, NULL, MCP__OP_CONTAINS},
    /* read by the rows above */
    {"then", NULL, 0, NULL, MCP__OP_IF},
    {"else", NULL, 0, NULL, MCP__OP_IF},
    {"patternProperties", NULL, 0, NULL, MCP__OP_PROPERTIES},
    {"additionalProperties", NULL, 0, NULL, MCP__OP_PROPERTIES},
    {"prefixItems", NULL, MCP__KWF_NOT_D7, NULL, MCP__OP_ITEMS},
    {"additionalItems", NULL, 0, NULL, MCP__OP_ITEMS},
};

const mcp__vocabulary mcp__vocab_applicator = {
    "applicator", MCP__V_APPLICATOR, MCP__V_APPLICATOR, keywords,
    sizeof keywords / sizeof keywords[0]};
