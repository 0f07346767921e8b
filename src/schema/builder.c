/* SPDX-License-Identifier: MIT */
/* builder.c - mcp_schema_builder: object schemas one property at a time.
 *
 * The builder records properties in call order and only produces JSON in
 * mcp_schema_builder_build, so refiners can be called in any order and the
 * builder stays reusable. Allocation failures are remembered (oom flags) and
 * reported once by build, which lets callers chain calls without checks. */
#include "schema/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mcp_schema_prop {
  char *name;
  char *description;
  char *title;
  const char *type; /* static string: "string", "integer", ... */
  bool required;
  json_t *enum_values; /* array of strings, or NULL */
  bool has_minimum, has_maximum;
  double minimum, maximum;
  bool has_min_length, has_max_length, has_min_items, has_max_items;
  size_t min_length, max_length, min_items, max_items;
  char *pattern;
  char *format;
  json_t *default_value;
  mcp_schema_prop_t *items;     /* array item schema, or NULL */
  mcp_schema_builder_t *object; /* object property / object items */
  bool oom;
};

struct mcp_schema_builder {
  mcp_schema_prop_t **props;
  size_t count, cap;
  char *description;
  int additional; /* -1 not emitted, 0 false, 1 true */
  bool oom;
};

static const char *const TYPES[] = {"string",  "integer", "number",
                                    "boolean", "array",   "object"};

static const char *static_type(const char *type) {
  for (size_t i = 0; type && i < sizeof TYPES / sizeof TYPES[0]; i++)
    if (strcmp(TYPES[i], type) == 0)
      return TYPES[i];
  return NULL;
}

static void prop_free(mcp_schema_prop_t *p);

mcp_status mcp_schema_builder_new(mcp_schema_builder_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_schema_builder_t *b = calloc(1, sizeof *b);
  if (b == NULL) {
    *out = NULL;
    return MCP_ERR_NOMEM;
  }
  b->additional = -1;
  *out = b;
  return MCP_OK;
}

void mcp_schema_builder_free(mcp_schema_builder_t *b) {
  if (b == NULL)
    return;
  for (size_t i = 0; i < b->count; i++)
    prop_free(b->props[i]);
  free(b->props);
  free(b->description);
  free(b);
}

static void prop_free(mcp_schema_prop_t *p) {
  if (p == NULL)
    return;
  free(p->name);
  free(p->description);
  free(p->title);
  free(p->pattern);
  free(p->format);
  json_decref(p->enum_values);
  json_decref(p->default_value);
  prop_free(p->items);
  mcp_schema_builder_free(p->object);
  free(p);
}

/* strdup that records failure in *oom; NULL in gives NULL out. */
static char *dup_or_flag(const char *s, bool *oom) {
  if (s == NULL)
    return NULL;
  char *d = strdup(s);
  if (d == NULL)
    *oom = true;
  return d;
}

static mcp_schema_prop_t *add_prop(mcp_schema_builder_t *b, const char *name,
                                   const char *description, bool required,
                                   const char *type) {
  if (b == NULL)
    return NULL;
  if (name == NULL) {
    b->oom = true; /* reported as NOMEM; a NULL name is a caller bug */
    return NULL;
  }
  if (b->count == b->cap) {
    size_t nc = b->cap ? b->cap * 2 : 8;
    mcp_schema_prop_t **np = realloc(b->props, nc * sizeof *np);
    if (np == NULL) {
      b->oom = true;
      return NULL;
    }
    b->props = np;
    b->cap = nc;
  }
  mcp_schema_prop_t *p = calloc(1, sizeof *p);
  if (p == NULL) {
    b->oom = true;
    return NULL;
  }
  p->name = dup_or_flag(name, &p->oom);
  p->description = dup_or_flag(description, &p->oom);
  p->required = required;
  p->type = type;
  b->props[b->count++] = p;
  return p;
}

mcp_schema_prop_t *mcp_schema_builder_add_string(mcp_schema_builder_t *b,
                                                 const char *name,
                                                 const char *description,
                                                 bool required) {
  return add_prop(b, name, description, required, "string");
}

mcp_schema_prop_t *mcp_schema_builder_add_integer(mcp_schema_builder_t *b,
                                                  const char *name,
                                                  const char *description,
                                                  bool required) {
  return add_prop(b, name, description, required, "integer");
}

mcp_schema_prop_t *mcp_schema_builder_add_number(mcp_schema_builder_t *b,
                                                 const char *name,
                                                 const char *description,
                                                 bool required) {
  return add_prop(b, name, description, required, "number");
}

mcp_schema_prop_t *mcp_schema_builder_add_boolean(mcp_schema_builder_t *b,
                                                  const char *name,
                                                  const char *description,
                                                  bool required) {
  return add_prop(b, name, description, required, "boolean");
}

mcp_schema_prop_t *mcp_schema_builder_add_array(mcp_schema_builder_t *b,
                                                const char *name,
                                                const char *description,
                                                bool required) {
  return add_prop(b, name, description, required, "array");
}

mcp_schema_builder_t *mcp_schema_builder_add_object(mcp_schema_builder_t *b,
                                                    const char *name,
                                                    const char *description,
                                                    bool required) {
  mcp_schema_prop_t *p = add_prop(b, name, description, required, "object");
  if (p == NULL)
    return NULL;
  if (mcp_schema_builder_new(&p->object) != MCP_OK) {
    p->oom = true;
    return NULL;
  }
  return p->object;
}

void mcp_schema_builder_set_additional_properties(mcp_schema_builder_t *b,
                                                  bool allow) {
  if (b != NULL)
    b->additional = allow ? 1 : 0;
}

void mcp_schema_builder_set_description(mcp_schema_builder_t *b,
                                        const char *description) {
  if (b == NULL)
    return;
  free(b->description);
  b->description = dup_or_flag(description, &b->oom);
}

void mcp_schema_prop_set_title(mcp_schema_prop_t *p, const char *title) {
  if (p == NULL)
    return;
  free(p->title);
  p->title = dup_or_flag(title, &p->oom);
}

void mcp_schema_prop_set_enum(mcp_schema_prop_t *p, const char *const *values,
                              size_t count) {
  if (p == NULL)
    return;
  json_decref(p->enum_values);
  p->enum_values = json_array();
  if (p->enum_values == NULL) {
    p->oom = true;
    return;
  }
  for (size_t i = 0; i < count; i++) {
    if (values[i] == NULL ||
        json_array_append_new(p->enum_values, json_string(values[i])) != 0)
      p->oom = true;
  }
}

void mcp_schema_prop_set_minimum(mcp_schema_prop_t *p, double minimum) {
  if (p != NULL) {
    p->has_minimum = true;
    p->minimum = minimum;
  }
}

void mcp_schema_prop_set_maximum(mcp_schema_prop_t *p, double maximum) {
  if (p != NULL) {
    p->has_maximum = true;
    p->maximum = maximum;
  }
}

void mcp_schema_prop_set_min_length(mcp_schema_prop_t *p, size_t n) {
  if (p != NULL) {
    p->has_min_length = true;
    p->min_length = n;
  }
}

void mcp_schema_prop_set_max_length(mcp_schema_prop_t *p, size_t n) {
  if (p != NULL) {
    p->has_max_length = true;
    p->max_length = n;
  }
}

void mcp_schema_prop_set_min_items(mcp_schema_prop_t *p, size_t n) {
  if (p != NULL) {
    p->has_min_items = true;
    p->min_items = n;
  }
}

void mcp_schema_prop_set_max_items(mcp_schema_prop_t *p, size_t n) {
  if (p != NULL) {
    p->has_max_items = true;
    p->max_items = n;
  }
}

void mcp_schema_prop_set_pattern(mcp_schema_prop_t *p, const char *ecma_regex) {
  if (p == NULL)
    return;
  free(p->pattern);
  p->pattern = dup_or_flag(ecma_regex, &p->oom);
}

void mcp_schema_prop_set_format(mcp_schema_prop_t *p, const char *format) {
  if (p == NULL)
    return;
  free(p->format);
  p->format = dup_or_flag(format, &p->oom);
}

void mcp_schema_prop_set_default(mcp_schema_prop_t *p, json_t *value) {
  if (p == NULL) {
    json_decref(value);
    return;
  }
  if (value == NULL)
    p->oom = true;
  json_decref(p->default_value);
  p->default_value = value;
}

mcp_schema_prop_t *mcp_schema_prop_items(mcp_schema_prop_t *array_prop,
                                         const char *type) {
  if (array_prop == NULL)
    return NULL;
  const char *t = static_type(type);
  if (array_prop->items == NULL) {
    array_prop->items = calloc(1, sizeof *array_prop->items);
    if (array_prop->items == NULL) {
      array_prop->oom = true;
      return NULL;
    }
  }
  /* An unknown type name is remembered and reported by build as
   * MCP_ERR_INVALID_ARG, keeping the chain-without-checks style. */
  array_prop->items->type = t != NULL ? t : "invalid";
  return array_prop->items;
}

mcp_schema_builder_t *
mcp_schema_prop_items_object(mcp_schema_prop_t *array_prop) {
  mcp_schema_prop_t *items = mcp_schema_prop_items(array_prop, "object");
  if (items == NULL)
    return NULL;
  if (items->object == NULL &&
      mcp_schema_builder_new(&items->object) != MCP_OK) {
    items->oom = true;
    return NULL;
  }
  return items->object;
}

/* ---- build ------------------------------------------------------------------
 */

static json_t *number_value(double v) {
  if (isfinite(v) && floor(v) == v && fabs(v) < 9007199254740992.0)
    return json_integer((json_int_t)v);
  return json_real(v);
}

static mcp_status build_object(const mcp_schema_builder_t *b, json_t **out);

static int set(json_t *o, const char *k, json_t *v) {
  return json_object_set_new(o, k, v);
}

static mcp_status build_prop(const mcp_schema_prop_t *p, json_t **out) {
  *out = NULL;
  if (p->oom)
    return MCP_ERR_NOMEM;
  if (p->type != NULL && strcmp(p->type, "invalid") == 0)
    return MCP_ERR_INVALID_ARG;
  json_t *s;
  if (p->object != NULL) {
    mcp_status st = build_object(p->object, &s);
    if (st != MCP_OK)
      return st;
  } else {
    s = json_object();
    if (s == NULL)
      return MCP_ERR_NOMEM;
    if (p->type != NULL && set(s, "type", json_string(p->type)) != 0)
      goto nomem;
  }
  int e = 0;
  if (p->title)
    e |= set(s, "title", json_string(p->title));
  if (p->description)
    e |= set(s, "description", json_string(p->description));
  if (p->enum_values)
    e |= json_object_set(s, "enum", p->enum_values);
  if (p->has_minimum)
    e |= set(s, "minimum", number_value(p->minimum));
  if (p->has_maximum)
    e |= set(s, "maximum", number_value(p->maximum));
  if (p->has_min_length)
    e |= set(s, "minLength", json_integer((json_int_t)p->min_length));
  if (p->has_max_length)
    e |= set(s, "maxLength", json_integer((json_int_t)p->max_length));
  if (p->has_min_items)
    e |= set(s, "minItems", json_integer((json_int_t)p->min_items));
  if (p->has_max_items)
    e |= set(s, "maxItems", json_integer((json_int_t)p->max_items));
  if (p->pattern)
    e |= set(s, "pattern", json_string(p->pattern));
  if (p->format)
    e |= set(s, "format", json_string(p->format));
  if (p->default_value)
    e |= json_object_set(s, "default", p->default_value);
  if (e != 0)
    goto nomem;
  if (p->items != NULL) {
    json_t *items;
    mcp_status st = build_prop(p->items, &items);
    if (st != MCP_OK) {
      json_decref(s);
      return st;
    }
    if (set(s, "items", items) != 0)
      goto nomem;
  }
  *out = s;
  return MCP_OK;
nomem:
  json_decref(s);
  return MCP_ERR_NOMEM;
}

static mcp_status build_object(const mcp_schema_builder_t *b, json_t **out) {
  *out = NULL;
  if (b->oom)
    return MCP_ERR_NOMEM;
  json_t *s = json_object(), *props = json_object(), *req = json_array();
  mcp_status st = MCP_ERR_NOMEM;
  if (s == NULL || props == NULL || req == NULL)
    goto fail;
  for (size_t i = 0; i < b->count; i++) {
    const mcp_schema_prop_t *p = b->props[i];
    if (p->oom) {
      st = MCP_ERR_NOMEM;
      goto fail;
    }
    if (json_object_get(props, p->name) != NULL) {
      st = MCP_ERR_INVALID_ARG; /* the same property twice */
      goto fail;
    }
    json_t *ps;
    st = build_prop(p, &ps);
    if (st != MCP_OK)
      goto fail;
    st = MCP_ERR_NOMEM;
    if (json_object_set_new(props, p->name, ps) != 0)
      goto fail;
    if (p->required && json_array_append_new(req, json_string(p->name)) != 0)
      goto fail;
  }
  if (set(s, "type", json_string("object")) != 0)
    goto fail;
  if (b->description && set(s, "description", json_string(b->description)))
    goto fail;
  if (json_object_set(s, "properties", props) != 0)
    goto fail;
  if (json_array_size(req) > 0 && json_object_set(s, "required", req) != 0)
    goto fail;
  if (b->additional >= 0 &&
      set(s, "additionalProperties", json_boolean(b->additional)) != 0)
    goto fail;
  json_decref(props);
  json_decref(req);
  *out = s;
  return MCP_OK;
fail:
  json_decref(s);
  json_decref(props);
  json_decref(req);
  return st;
}

mcp_status mcp_schema_builder_build(const mcp_schema_builder_t *b,
                                    json_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  if (b == NULL)
    return MCP_ERR_INVALID_ARG;
  return build_object(b, out);
}
