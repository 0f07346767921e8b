/* SPDX-License-Identifier: MIT */
/* decl.c - tools declared from C struct field tables (tool_decl.h).
 *
 * At definition: every field is checked (all errors collected into the
 * tool, reported by mcp_server_add_tool), its property schema is built and
 * compiled on its own so that a bad pattern or a default its own
 * constraints refuse names the field. At call: the input struct is filled
 * from the already validated arguments through the typed getters (so
 * argument faults are recorded as for any handler), defaults applied; after
 * the handler the output struct becomes structuredContent, which
 * invoke.c then checks against the output schema.
 */
#include <float.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "core/text_request.h"
#include "mcp/apps.h"
#include "mcp/tool_decl.h"
#include "tools/result_internal.h"
#include "tools/tool_internal.h"
#include "util/buf.h"
#include "json/tape.h"

typedef struct decl_state {
  const mcp_field *input, *output;
  size_t input_extent, output_extent; /* bytes the structs need */
  mcp_tool_decl_fn fn;
  mcp_tool_decl_call_fn call_fn;
  void *user_data;
  void (*free_user_data)(void *);
  char *tool_name;
} decl_state;

static void state_free(void *p) {
  decl_state *s = p;
  if (s == NULL)
    return;
  if (s->free_user_data)
    s->free_user_data(s->user_data);
  free(s->tool_name);
  free(s);
}

/* ---- definition checks ---------------------------------------------------
 */
typedef struct problems {
  mcp__buf text;
  size_t count;
  char first_pointer[200];
} problems;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void
problem(problems *p, const char *side, const char *field, const char *fmt,
        ...) {
  char msg[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char line[480];
  if (field)
    snprintf(line, sizeof line, "%s%s field '%.64s': %s", p->count ? "\n" : "",
             side, field, msg);
  else
    snprintf(line, sizeof line, "%s%s: %s", p->count ? "\n" : "", side, msg);
  mcp__buf_append_str(&p->text, line);
  if (p->count == 0 && field)
    snprintf(p->first_pointer, sizeof p->first_pointer,
             "/%sSchema/properties/%.64s",
             strcmp(side, "input") == 0 ? "input" : "output", field);
  p->count++;
}

static const char *type_name(mcp_field_type t) {
  switch (t) {
  case MCP_FIELD_STRING:
    return "string";
  case MCP_FIELD_INTEGER:
    return "integer";
  case MCP_FIELD_NUMBER:
    return "number";
  case MCP_FIELD_BOOLEAN:
    return "boolean";
  case MCP_FIELD_OBJECT:
    return "object";
  case MCP_FIELD_ARRAY:
    return "array";
  default:
    return NULL;
  }
}

static bool size_fits(const mcp_field *f) {
  switch (f->type) {
  case MCP_FIELD_STRING:
    return f->size == sizeof(const char *);
  case MCP_FIELD_INTEGER:
    return f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
  case MCP_FIELD_NUMBER:
    return f->size == sizeof(double) || f->size == sizeof(float);
  case MCP_FIELD_BOOLEAN:
    return f->size == sizeof(bool);
  case MCP_FIELD_OBJECT:
  case MCP_FIELD_ARRAY:
    return f->size == sizeof(json_t *);
  default:
    return false;
  }
}

static const char *size_hint(mcp_field_type t) {
  switch (t) {
  case MCP_FIELD_STRING:
    return "const char *";
  case MCP_FIELD_INTEGER:
    return "int8_t, int16_t, int32_t or int64_t";
  case MCP_FIELD_NUMBER:
    return "double or float";
  case MCP_FIELD_BOOLEAN:
    return "bool";
  default:
    return "json_t *";
  }
}

/* The range of a signed integer of size bytes. */
static void int_range(size_t size, double *lo, double *hi) {
  switch (size) {
  case 1:
    *lo = INT8_MIN, *hi = INT8_MAX;
    break;
  case 2:
    *lo = INT16_MIN, *hi = INT16_MAX;
    break;
  case 4:
    *lo = INT32_MIN, *hi = INT32_MAX;
    break;
  default:
    *lo = -9223372036854775808.0, *hi = 9223372036854775807.0;
  }
}

/* The property schema of one field (returns new, NULL on NOMEM). Problems
 * that make it meaningless are reported by the caller first. */
static json_t *property_schema(const mcp_field *f, bool input) {
  json_t *s = json_object();
  if (s == NULL)
    return NULL;
  bool ok =
      json_object_set_new(s, "type", json_string(type_name(f->type))) == 0;
  if (f->title)
    ok &= json_object_set_new(s, "title", json_string(f->title)) == 0;
  if (f->description)
    ok &=
        json_object_set_new(s, "description", json_string(f->description)) == 0;
  if (f->type == MCP_FIELD_INTEGER || f->type == MCP_FIELD_NUMBER) {
    double lo, hi;
    bool bound = true; /* narrower C types bound the schema */
    if (f->type == MCP_FIELD_INTEGER && f->size < 8)
      int_range(f->size, &lo, &hi);
    else if (f->type == MCP_FIELD_NUMBER && f->size == sizeof(float))
      lo = -FLT_MAX, hi = FLT_MAX;
    else
      bound = false, lo = hi = 0;
    if (f->minimum.set)
      lo = f->minimum.value;
    if (f->maximum.set)
      hi = f->maximum.value;
    if (bound || f->minimum.set)
      ok &= json_object_set_new(s, "minimum",
                                f->type == MCP_FIELD_INTEGER
                                    ? json_integer((json_int_t)lo)
                                    : json_real(lo)) == 0;
    if (bound || f->maximum.set)
      ok &= json_object_set_new(s, "maximum",
                                f->type == MCP_FIELD_INTEGER
                                    ? json_integer((json_int_t)hi)
                                    : json_real(hi)) == 0;
  }
  if (f->type == MCP_FIELD_STRING) {
    if (f->min_length)
      ok &= json_object_set_new(s, "minLength",
                                json_integer((json_int_t)f->min_length)) == 0;
    if (f->max_length)
      ok &= json_object_set_new(s, "maxLength",
                                json_integer((json_int_t)f->max_length)) == 0;
    if (f->pattern)
      ok &= json_object_set_new(s, "pattern", json_string(f->pattern)) == 0;
    if (f->format)
      ok &= json_object_set_new(s, "format", json_string(f->format)) == 0;
    if (f->enum_values) {
      json_t *e = json_array();
      for (size_t i = 0; e && f->enum_values[i]; i++)
        if (json_array_append_new(e, json_string(f->enum_values[i])) != 0)
          ok = false;
      ok &= json_object_set_new(s, "enum", e) == 0;
    }
  }
  if (f->type == MCP_FIELD_ARRAY) {
    if (f->min_length)
      ok &= json_object_set_new(s, "minItems",
                                json_integer((json_int_t)f->min_length)) == 0;
    if (f->max_length)
      ok &= json_object_set_new(s, "maxItems",
                                json_integer((json_int_t)f->max_length)) == 0;
  }
  if (input && f->default_value.set) {
    json_t *d = NULL;
    switch (f->type) {
    case MCP_FIELD_STRING:
      d = json_string(f->default_value.string);
      break;
    case MCP_FIELD_INTEGER:
      d = json_integer(f->default_value.integer);
      break;
    case MCP_FIELD_NUMBER:
      d = json_real(f->default_value.number);
      break;
    case MCP_FIELD_BOOLEAN:
      d = json_boolean(f->default_value.number != 0);
      break;
    default:
      break;
    }
    ok &= json_object_set_new(s, "default", d) == 0;
  }
  if (!ok) {
    json_decref(s);
    return NULL;
  }
  return s;
}

/* Checks one field; returns false when it cannot become a property. */
static bool check_field(problems *p, const char *side, bool input,
                        const mcp_field *f) {
  const char *n = f->name;
  size_t before = p->count;
  if (*n == '\0')
    problem(p, side, n, "empty name");
  if (type_name(f->type) == NULL) {
    problem(p, side, n, "unknown type %d", (int)f->type);
    return false;
  }
  if (!size_fits(f))
    problem(p, side, n,
            "a %s field needs a member of type %s, not one of %zu "
            "bytes",
            type_name(f->type), size_hint(f->type), f->size);
  bool numeric = f->type == MCP_FIELD_INTEGER || f->type == MCP_FIELD_NUMBER;
  bool string = f->type == MCP_FIELD_STRING;
  if (!numeric && (f->minimum.set || f->maximum.set))
    problem(p, side, n,
            "minimum/maximum apply to integer and number fields, "
            "not %s",
            type_name(f->type));
  if (numeric && f->minimum.set && f->maximum.set &&
      f->minimum.value > f->maximum.value)
    problem(p, side, n, "minimum %g is above maximum %g", f->minimum.value,
            f->maximum.value);
  if (f->type == MCP_FIELD_INTEGER && size_fits(f)) {
    double lo, hi;
    int_range(f->size, &lo, &hi);
    if ((f->minimum.set && (f->minimum.value < lo || f->minimum.value > hi)) ||
        (f->maximum.set && (f->maximum.value < lo || f->maximum.value > hi)))
      problem(p, side, n,
              "a bound lies outside the range of its %zu-byte "
              "member",
              f->size);
  }
  if (!string && f->type != MCP_FIELD_ARRAY && (f->min_length || f->max_length))
    problem(p, side, n,
            "min_length/max_length apply to string and array "
            "fields, not %s",
            type_name(f->type));
  if (f->max_length && f->min_length > f->max_length)
    problem(p, side, n, "min_length %zu is above max_length %zu", f->min_length,
            f->max_length);
  if (!string && (f->pattern || f->format || f->enum_values))
    problem(p, side, n,
            "pattern, format and enum_values apply to string "
            "fields, not %s",
            type_name(f->type));
  if (string && f->enum_values && f->enum_values[0] == NULL)
    problem(p, side, n, "enum_values is empty: no value could pass");
  for (size_t i = 0; i < sizeof f->reserved / sizeof f->reserved[0]; i++)
    if (f->reserved[i] != NULL) {
      problem(p, side, n, "reserved members must be zero");
      break;
    }
  const mcp_default *d = &f->default_value;
  if (d->set && !input)
    problem(p, side, n, "output fields take no default");
  else if (d->set) {
    switch (f->type) {
    case MCP_FIELD_STRING:
      if (d->string == NULL)
        problem(p, side, n,
                "a string field's default is "
                "MCP_DEFAULT_STRING(\"...\")");
      break;
    case MCP_FIELD_INTEGER:
      if (d->string || d->number != (double)d->integer)
        problem(p, side, n, "default is not an integer");
      break;
    case MCP_FIELD_NUMBER:
    case MCP_FIELD_BOOLEAN:
      if (d->string)
        problem(p, side, n, "default is a string, the field is %s",
                type_name(f->type));
      break;
    default:
      problem(p, side, n, "%s fields take no default", type_name(f->type));
    }
  }
  return p->count == before;
}

/* Checks a property schema on its own: compiles (a bad pattern names the
 * field) and, with a default, validates the default against it. */
static void check_property(problems *p, const char *side, const mcp_field *f,
                           json_t *prop) {
  mcp_schema_t *compiled = NULL;
  mcp_error_t detail;
  memset(&detail, 0, sizeof detail);
  mcp_status st = mcp_schema_compile(prop, NULL, &compiled, &detail);
  if (st != MCP_OK) {
    problem(p, side, f->name, "%s",
            st == MCP_ERR_NOMEM ? "out of memory" : detail.message);
    return;
  }
  json_t *d = json_object_get(prop, "default");
  if (d && !mcp_schema_is_valid(compiled, d)) {
    mcp_validation_t *v = NULL;
    mcp_schema_validate(compiled, d, &v);
    problem(p, side, f->name,
            "its default does not satisfy its own "
            "constraints: %s",
            v && mcp_validation_count(v) ? mcp_validation_message(v, 0)
                                         : "invalid");
    mcp_validation_free(v);
  }
  mcp_schema_free(compiled);
}

/* Builds the object schema of a field table; *extent: bytes the struct
 * needs. Returns new, or NULL on NOMEM. */
static json_t *table_schema(problems *p, const char *side, bool input,
                            const mcp_field *fields, bool strict,
                            size_t *extent) {
  json_t *schema = json_pack("{s:s,s:{}}", "type", "object", "properties");
  json_t *required = json_array();
  if (schema == NULL || required == NULL) {
    json_decref(schema);
    json_decref(required);
    return NULL;
  }
  json_t *props = json_object_get(schema, "properties");
  *extent = 0;
  for (const mcp_field *f = fields; f && f->name; f++) {
    for (const mcp_field *g = fields; g < f; g++) {
      if (strcmp(g->name, f->name) == 0)
        problem(p, side, f->name, "declared twice");
      else if (f->offset < g->offset + g->size &&
               g->offset < f->offset + f->size)
        problem(p, side, f->name,
                "shares bytes with field '%.64s' (the same "
                "struct member twice?)",
                g->name);
    }
    if (!check_field(p, side, input, f))
      continue;
    if (f->offset + f->size > *extent)
      *extent = f->offset + f->size;
    json_t *prop = property_schema(f, input);
    if (prop == NULL)
      goto nomem;
    check_property(p, side, f, prop);
    if (json_object_set_new(props, f->name, prop) != 0)
      goto nomem;
    if (!f->optional && !(input && f->default_value.set) &&
        json_array_append_new(required, json_string(f->name)) != 0)
      goto nomem;
  }
  if (json_array_size(required) &&
      json_object_set(schema, "required", required) != 0)
    goto nomem;
  if (strict &&
      json_object_set_new(schema, "additionalProperties", json_false()) != 0)
    goto nomem;
  json_decref(required);
  return schema;
nomem:
  json_decref(schema);
  json_decref(required);
  return NULL;
}

/* ---- calls ----------------------------------------------------------------
 */
static void store_int(char *at, size_t size, int64_t v) {
  switch (size) {
  case 1: {
    int8_t x = (int8_t)v;
    memcpy(at, &x, 1);
    break;
  }
  case 2: {
    int16_t x = (int16_t)v;
    memcpy(at, &x, 2);
    break;
  }
  case 4: {
    int32_t x = (int32_t)v;
    memcpy(at, &x, 4);
    break;
  }
  default:
    memcpy(at, &v, 8);
  }
}

static int64_t load_int(const char *at, size_t size) {
  switch (size) {
  case 1: {
    int8_t x;
    memcpy(&x, at, 1);
    return x;
  }
  case 2: {
    int16_t x;
    memcpy(&x, at, 2);
    return x;
  }
  case 4: {
    int32_t x;
    memcpy(&x, at, 4);
    return x;
  }
  default: {
    int64_t x;
    memcpy(&x, at, 8);
    return x;
  }
  }
}

static void store_number(char *at, size_t size, double v) {
  if (size == sizeof(float)) {
    float x = (float)v;
    memcpy(at, &x, sizeof x);
  } else
    memcpy(at, &v, sizeof v);
}

static double load_number(const char *at, size_t size) {
  if (size == sizeof(float)) {
    float x;
    memcpy(&x, at, sizeof x);
    return x;
  }
  double x;
  memcpy(&x, at, sizeof x);
  return x;
}

/* Fills base from args (valid against the input schema). Getters record
 * argument faults (a NUL in a string, an integer beyond int64). */
/* An absent or null argument: its default, if the table gives one. */
static void fill_default(const mcp_field *f, char *at) {
  const mcp_default *d = &f->default_value;
  if (!d->set)
    return;
  switch (f->type) {
  case MCP_FIELD_STRING:
    memcpy(at, &d->string, sizeof d->string);
    break;
  case MCP_FIELD_INTEGER:
    store_int(at, f->size, d->integer);
    break;
  case MCP_FIELD_NUMBER:
    store_number(at, f->size, d->number);
    break;
  case MCP_FIELD_BOOLEAN: {
    bool b = d->number != 0;
    memcpy(at, &b, sizeof b);
    break;
  }
  default:
    break;
  }
}

static void fill_input(const mcp_field *fields, json_t *args, char *base) {
  for (const mcp_field *f = fields; f && f->name; f++) {
    char *at = base + f->offset;
    json_t *v = json_object_get(args, f->name);
    if (v == NULL || json_is_null(v)) {
      fill_default(f, at);
      continue;
    }
    switch (f->type) {
    case MCP_FIELD_STRING: {
      const char *s = NULL;
      if (mcp_arg_string(args, f->name, &s) == MCP_OK)
        memcpy(at, &s, sizeof s);
      break;
    }
    case MCP_FIELD_INTEGER: {
      int64_t i = 0;
      if (mcp_arg_integer(args, f->name, &i) == MCP_OK)
        store_int(at, f->size, i);
      break;
    }
    case MCP_FIELD_NUMBER: {
      double x = 0;
      if (mcp_arg_number(args, f->name, &x) == MCP_OK)
        store_number(at, f->size, x);
      break;
    }
    case MCP_FIELD_BOOLEAN: {
      bool b = false;
      if (mcp_arg_boolean(args, f->name, &b) == MCP_OK)
        memcpy(at, &b, sizeof b);
      break;
    }
    case MCP_FIELD_OBJECT:
    case MCP_FIELD_ARRAY:
      if ((f->type == MCP_FIELD_OBJECT) ? json_is_object(v) : json_is_array(v))
        memcpy(at, &v, sizeof v);
      break;
    default:
      break;
    }
  }
}

/* Whether fill_input_tape can fill the table: every field a scalar (an
 * object or array field would need jansson values after all). */
static bool tape_fillable(const mcp_field *fields) {
  for (const mcp_field *f = fields; f && f->name; f++)
    if (f->type == MCP_FIELD_OBJECT || f->type == MCP_FIELD_ARRAY)
      return false;
  return true;
}

/* Bytes the string arguments need as C strings (each with its NUL). */
static size_t tape_string_bytes(const mcp_field *fields,
                                const mcp__tnode *args) {
  size_t n = 0;
  for (const mcp_field *f = fields; f && f->name; f++) {
    const mcp__tnode *v =
        f->type == MCP_FIELD_STRING
            ? mcp__tnode_member(args, f->name, strlen(f->name))
            : NULL;
    if (v && v->type == MCP__J_STRING)
      n += v->n + 1;
  }
  return n;
}

/* fill_input from the request's tape, with the getters' rules (args.c):
 * strings are copied into strings (tape_string_bytes of room, alive while
 * the handler runs), as C strings, so one with U+0000 is a fault; an
 * integral real is an integer; other types leave the member zero. */
static void fill_input_tape(const mcp_field *fields, const mcp__tnode *args,
                            char *base, char *strings) {
  for (const mcp_field *f = fields; f && f->name; f++) {
    char *at = base + f->offset;
    const mcp__tnode *v = mcp__tnode_member(args, f->name, strlen(f->name));
    if (v == NULL || v->type == MCP__J_NULL) {
      fill_default(f, at);
      continue;
    }
    switch (f->type) {
    case MCP_FIELD_STRING:
      if (v->type != MCP__J_STRING)
        break;
      if (v->n && memchr(v->v.s, '\0', v->n) != NULL) {
        mcp__arg_fault_nul(f->name);
        break;
      }
      memcpy(strings, v->n ? v->v.s : "", v->n);
      strings[v->n] = '\0';
      memcpy(at, &strings, sizeof strings);
      strings += v->n + 1;
      break;
    case MCP_FIELD_INTEGER: {
      int64_t i;
      if (v->type == MCP__J_INT)
        store_int(at, f->size, v->v.i);
      else if (v->type == MCP__J_REAL &&
               mcp__arg_integer_of_real(f->name, v->v.d, &i) == MCP_OK)
        store_int(at, f->size, i);
      break;
    }
    case MCP_FIELD_NUMBER:
      if (v->type == MCP__J_INT)
        store_number(at, f->size, (double)v->v.i);
      else if (v->type == MCP__J_REAL)
        store_number(at, f->size, v->v.d);
      break;
    case MCP_FIELD_BOOLEAN:
      if (v->type == MCP__J_TRUE || v->type == MCP__J_FALSE) {
        bool b = v->type == MCP__J_TRUE;
        memcpy(at, &b, sizeof b);
      }
      break;
    default:
      break;
    }
  }
}

/* Releases the json_t * members of an output struct (stolen). */
static void release_output(const mcp_field *fields, char *base) {
  for (const mcp_field *f = fields; f && f->name; f++)
    if (f->type == MCP_FIELD_OBJECT || f->type == MCP_FIELD_ARRAY) {
      json_t *j;
      memcpy(&j, base + f->offset, sizeof j);
      json_decref(j);
    }
}

/* Whether the output schema made from fields (table_schema) holds nothing
 * a struct of them could break but what output_text sees: no bounds but a
 * C type's own, no string or array constraints. Then text output_text
 * writes completely (every required member, objects and arrays of their
 * type) is valid, and no validation is needed per call. */
static bool plain_output(const mcp_field *fields) {
  for (const mcp_field *f = fields; f && f->name; f++)
    if (f->minimum.set || f->maximum.set || f->min_length || f->max_length ||
        f->pattern || f->format || f->enum_values)
      return false;
  return true;
}

/* The output struct as the JSON text of an object, written into text (the
 * bytes jansson would write for it, without building jansson values); false
 * with *bad naming the member JSON cannot hold, or with *bad NULL on NOMEM.
 * *complete: every required member was written, objects and arrays of
 * their type. Steals the json_t members. */
static bool output_text(const mcp_field *fields, char *base, mcp__buf *text,
                        const char **bad, bool *complete) {
  *bad = NULL;
  *complete = true;
  bool ok = mcp__buf_append_char(text, '{'), first = true, invalid = false;
  for (const mcp_field *f = fields; ok && f && f->name; f++) {
    char *at = base + f->offset;
    const char *str = NULL;
    json_t *j = NULL;
    if (f->type == MCP_FIELD_STRING) {
      memcpy(&str, at, sizeof str);
      if (str == NULL) {
        *complete &= f->optional;
        continue; /* omitted; the output schema decides */
      }
    } else if (f->type == MCP_FIELD_OBJECT || f->type == MCP_FIELD_ARRAY) {
      memcpy(&j, at, sizeof j);
      if (j == NULL) {
        *complete &= f->optional;
        continue;
      }
      *complete &=
          f->type == MCP_FIELD_OBJECT ? json_is_object(j) : json_is_array(j);
    }
    ok = (first || mcp__buf_append_char(text, ',')) &&
         mcp__buf_append_json_stringn(text, f->name, strlen(f->name),
                                      &invalid) &&
         mcp__buf_append_char(text, ':');
    first = false;
    switch (f->type) {
    case MCP_FIELD_STRING:
      ok = ok && mcp__buf_append_json_stringn(text, str, strlen(str), &invalid);
      break;
    case MCP_FIELD_INTEGER:
      ok = ok && mcp__buf_append_json_int(text, load_int(at, f->size));
      break;
    case MCP_FIELD_NUMBER:
      ok = ok &&
           mcp__buf_append_json_real(text, load_number(at, f->size), &invalid);
      break;
    case MCP_FIELD_BOOLEAN: {
      bool b;
      memcpy(&b, at, sizeof b);
      ok = ok && mcp__buf_append_str(text, b ? "true" : "false");
      break;
    }
    default:
      ok = ok && mcp__buf_append_json(text, j, 0);
      break;
    }
    if (!ok && invalid)
      *bad = f->name;
  }
  release_output(fields, base); /* the json_t members */
  return ok && mcp__buf_append_char(text, '}');
}

#define DECL_STACK_STRUCT 256

/* Runs the declared function with its input struct filled from args
 * (jansson values) or targs (the request's tape): one of the two is
 * NULL. */
static mcp_status decl_run(mcp_call_t *call, decl_state *s, json_t *args,
                           const mcp__tnode *targs, mcp_result_t *result) {
  /* Typical argument and result structs fit on the stack: no allocation
   * per call for them. */
  _Alignas(max_align_t) char in_small[DECL_STACK_STRUCT];
  _Alignas(max_align_t) char out_small[DECL_STACK_STRUCT];
  char strings_small[DECL_STACK_STRUCT];
  char *in = NULL, *out = NULL, *strings = NULL;
  if (s->input) {
    if (s->input_extent <= sizeof in_small)
      in = memset(in_small, 0, s->input_extent);
    else if ((in = calloc(1, s->input_extent)) == NULL)
      return MCP_ERR_NOMEM;
  }
  if (s->output) {
    if (s->output_extent <= sizeof out_small)
      out = memset(out_small, 0, s->output_extent);
    else if ((out = calloc(1, s->output_extent)) == NULL) {
      if (in != in_small)
        free(in);
      return MCP_ERR_NOMEM;
    }
  }
  if (in && targs) {
    size_t need = tape_string_bytes(s->input, targs);
    strings = need <= sizeof strings_small ? strings_small : malloc(need);
    if (strings == NULL) {
      if (in != in_small)
        free(in);
      if (out != out_small)
        free(out);
      return MCP_ERR_NOMEM;
    }
    fill_input_tape(s->input, targs, in, strings);
  } else if (in)
    fill_input(s->input, args, in);
  mcp_status st = s->fn ? s->fn(in, out, result)
                        : s->call_fn(call, in, out, result, s->user_data);
  if (out && st == MCP_OK && !result->is_error &&
      !mcp__result_has_structured(result)) {
    const char *bad = NULL;
    bool complete;
    if (output_text(s->output, out, &result->structured_text, &bad, &complete))
      result->structured_declared = complete;
    else if (bad) {
      char msg[300];
      snprintf(msg, sizeof msg,
               "Tool '%s' could not produce its result: output field '%s' "
               "cannot be represented in JSON (a non-finite number or a "
               "string that is not UTF-8; server error)",
               s->tool_name, bad);
      mcp__log(mcp_call_server(call), MCP_LOG_ERROR, "%s", msg);
      mcp__result_reset_to_error(result, msg);
    } else
      st = MCP_ERR_NOMEM;
  } else if (out)
    release_output(s->output, out);
  if (in != in_small)
    free(in);
  if (out != out_small)
    free(out);
  if (strings != strings_small)
    free(strings);
  return st;
}

static mcp_status decl_handler(mcp_call_t *call, json_t *args,
                               mcp_result_t *result, void *user_data) {
  return decl_run(call, user_data, args, NULL, result);
}

static mcp_status decl_handler_tape(mcp_call_t *call, const mcp__tnode *args,
                                    mcp_result_t *result, void *user_data) {
  return decl_run(call, user_data, NULL, args, result);
}

/* ---- public ---------------------------------------------------------------
 */
mcp_status mcp_tool_new_decl(const mcp_tool_decl *decl, mcp_tool_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  if (decl == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_tool_t *t = NULL;
  mcp_status st = mcp_tool_new(decl->name, &t);
  if (st != MCP_OK)
    return st;
  problems p;
  memset(&p, 0, sizeof p);
  mcp__buf_init(&p.text);
  decl_state *s = calloc(1, sizeof *s);
  if (s == NULL || (s->tool_name = strdup(decl->name)) == NULL)
    goto nomem;
  s->input = decl->input;
  s->output = decl->output;
  s->fn = decl->fn;
  s->call_fn = decl->call_fn;
  s->user_data = decl->user_data;
  if ((decl->fn == NULL) == (decl->call_fn == NULL))
    problem(&p, "declaration", NULL, "give exactly one of fn and call_fn");
  /* reserved[0]: the view link (apps.h, MCP_TOOL_DECL_UI) */
  const mcp_tool_ui *ui = decl->reserved[0];
  if (ui && (ui->reserved[0] || ui->reserved[1]))
    problem(&p, "declaration", NULL,
            "reserved members of mcp_tool_ui must be zero");
  for (size_t i = 1; i < sizeof decl->reserved / sizeof decl->reserved[0]; i++)
    if (decl->reserved[i]) {
      problem(&p, "declaration", NULL, "reserved members must be zero");
      break;
    }
  json_t *in_schema = table_schema(&p, "input", true, decl->input, decl->strict,
                                   &s->input_extent);
  if (in_schema == NULL)
    goto nomem;
  if (decl->input_size && decl->input_size < s->input_extent)
    problem(&p, "declaration", NULL,
            "input_size %zu is smaller than the fields need (%zu)",
            decl->input_size, s->input_extent);
  else if (decl->input_size)
    s->input_extent = decl->input_size;
  mcp_tool_set_input_schema(t, in_schema);
  if (decl->output) {
    json_t *out_schema = table_schema(&p, "output", false, decl->output, false,
                                      &s->output_extent);
    if (out_schema == NULL)
      goto nomem;
    if (decl->output_size && decl->output_size < s->output_extent)
      problem(&p, "declaration", NULL,
              "output_size %zu is smaller than the fields need (%zu)",
              decl->output_size, s->output_extent);
    else if (decl->output_size)
      s->output_extent = decl->output_size;
    if (decl->output[0].name == NULL)
      problem(&p, "output", NULL, "the table has no field (use NULL)");
    mcp_tool_set_output_schema(t, out_schema);
    t->output_declared = plain_output(decl->output);
  }
  if ((decl->title && mcp_tool_set_title(t, decl->title) != MCP_OK) ||
      (decl->description &&
       mcp_tool_set_description(t, decl->description) != MCP_OK))
    goto nomem;
  const mcp_hint_value hints[4] = {decl->read_only, decl->destructive,
                                   decl->idempotent, decl->open_world};
  for (int h = 0; h < 4; h++) {
    if (hints[h] == MCP_HINT_UNSET)
      continue;
    if (hints[h] != MCP_HINT_YES && hints[h] != MCP_HINT_NO)
      problem(&p, "declaration", NULL,
              "hint %d is neither MCP_HINT_YES nor "
              "MCP_HINT_NO",
              h);
    else
      mcp_tool_set_hint(t, (mcp_tool_hint)h, hints[h] == MCP_HINT_YES);
  }
  if (mcp_tool_set_task_support(t, decl->task_support) != MCP_OK)
    problem(&p, "declaration", NULL,
            "task_support %d is not a "
            "mcp_task_support",
            (int)decl->task_support);
  if (decl->icon) {
    const char *mime =
        strncmp(decl->icon, "data:", 5) == 0
            ? NULL
            : (strstr(decl->icon, ".svg") ? "image/svg+xml" : NULL);
    if (strncmp(decl->icon, "data:image/svg+xml", 18) == 0)
      mime = "image/svg+xml";
    st = mcp_tool_add_icon(t, decl->icon, mime, "any", NULL);
    if (st == MCP_ERR_NOMEM)
      goto nomem;
    if (st != MCP_OK)
      problem(&p, "declaration", NULL, "icon is not an https: or data: URI");
  }
  if (ui) {
    st = mcp_tool_set_ui(t, ui->resource_uri, ui->visibility);
    if (st == MCP_ERR_NOMEM)
      goto nomem;
    if (st != MCP_OK)
      problem(&p, "declaration", NULL, "%s", t->ui_fault);
  }
  st = mcp_tool_set_handler(t, decl_handler, s, state_free);
  if (st != MCP_OK)
    goto nomem;
  if (tape_fillable(decl->input))
    t->fn_tape = decl_handler_tape;
  s->free_user_data = decl->free_user_data; /* from now on the tool's */
  s = NULL;
  if (p.count) {
    if (p.text.data == NULL)
      goto nomem;
    free(t->definition_errors); /* the setters' lines, repeated in p */
    t->definition_errors = strdup(p.text.data);
    snprintf(t->definition_pointer, sizeof t->definition_pointer, "%s",
             p.first_pointer);
    if (t->definition_errors == NULL)
      goto nomem;
  }
  mcp__buf_free(&p.text);
  *out = t;
  return MCP_OK;
nomem:
  mcp__buf_free(&p.text);
  state_free(s);
  mcp_tool_free(t);
  return MCP_ERR_NOMEM;
}

mcp_status mcp_server_add_tool_decl(mcp_server_t *server,
                                    const mcp_tool_decl *decl,
                                    mcp_error_t *err) {
  mcp_tool_t *t = NULL;
  mcp_status st = mcp_tool_new_decl(decl, &t);
  mcp_error_t why;
  if (st == MCP_ERR_INVALID_ARG && decl != NULL &&
      mcp_tool_check_name(decl->name, &why) != MCP_OK)
    return mcp__decl_refuse(server, err, st, "cannot declare tool: %s",
                            why.message); /* logged too: err may be NULL */
  if (st != MCP_OK)
    return mcp__decl_refuse(server, err, st,
                            "cannot declare tool '%.128s': %s",
                            decl && decl->name ? decl->name : "(null)",
                            decl ? mcp_strerror(st)
                                 : "the declaration is NULL");
  return mcp_server_add_tool(server, t, err);
}

const char *mcp_tool_definition_errors(const mcp_tool_t *tool) {
  return tool ? tool->definition_errors : NULL;
}
