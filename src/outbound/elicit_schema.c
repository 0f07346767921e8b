/* SPDX-License-Identifier: MIT */
/* elicit_schema.c - the restricted JSON Schema subset an elicitation
 * requestedSchema may use (MCP 2025-11-25, PrimitiveSchemaDefinition):
 * a flat object of string, number/integer, boolean and enum properties,
 * with SEP-1034 defaults and the SEP-1330 enum variants. Anything else is
 * refused before a request is sent, since clients render forms from it.
 */
#include <string.h>

#include "mcp/elicit.h"

static bool key_in(const char *key, const char *const *allowed) {
  for (; *allowed; allowed++)
    if (strcmp(key, *allowed) == 0)
      return true;
  return false;
}

/* Every member of o is in allowed; *bad names the first that is not. */
static bool only_keys(const json_t *o, const char *const *allowed,
                      const char **bad) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)o, key, v) if (!key_in(key, allowed)) {
    *bad = key;
    return false;
  }
  return true;
}

static bool opt_string(const json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return v == NULL || json_is_string(v);
}

static bool opt_count(const json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return v == NULL || (json_is_integer(v) && json_integer_value(v) >= 0);
}

static bool string_array(const json_t *a, bool nonempty) {
  if (!json_is_array(a) || (nonempty && json_array_size(a) == 0))
    return false;
  size_t i;
  json_t *v;
  json_array_foreach(a, i, v) if (!json_is_string(v)) return false;
  return true;
}

/* [{const: string, title: string}, ...], non-empty. */
static bool titled_options(const json_t *a) {
  if (!json_is_array(a) || json_array_size(a) == 0)
    return false;
  size_t i;
  json_t *v;
  json_array_foreach(a, i, v) {
    const char *bad;
    static const char *const keys[] = {"const", "title", NULL};
    if (!json_is_object(v) || !only_keys(v, keys, &bad) ||
        !json_is_string(json_object_get(v, "const")) ||
        !json_is_string(json_object_get(v, "title")))
      return false;
  }
  return true;
}

static bool option_has(const json_t *options, const char *value, bool titled) {
  size_t i;
  json_t *v;
  json_array_foreach(options, i, v) {
    const char *s = json_string_value(titled ? json_object_get(v, "const") : v);
    if (s && strcmp(s, value) == 0)
      return true;
  }
  return false;
}

static const char *check_string(const json_t *p) {
  static const char *const keys[] = {
      "type",    "title", "description", "minLength", "maxLength", "format",
      "default", "enum",  "enumNames",   "oneOf",     NULL};
  const char *bad;
  if (!only_keys(p, keys, &bad))
    return "keyword not allowed for a string property";
  if (!opt_string(p, "title") || !opt_string(p, "description"))
    return "title and description must be strings";
  if (!opt_count(p, "minLength") || !opt_count(p, "maxLength"))
    return "minLength and maxLength must be non-negative integers";
  json_t *format = json_object_get(p, "format");
  static const char *const formats[] = {"email", "uri", "date", "date-time",
                                        NULL};
  if (format &&
      !(json_is_string(format) && key_in(json_string_value(format), formats)))
    return "format must be email, uri, date or date-time";
  json_t *en = json_object_get(p, "enum"),
         *names = json_object_get(p, "enumNames");
  json_t *one = json_object_get(p, "oneOf");
  if (en && !string_array(en, true))
    return "enum must be a non-empty array of strings";
  if (names && (!en || !string_array(names, false) ||
                json_array_size(names) != json_array_size(en)))
    return "enumNames must be strings parallel to enum";
  if (one && (en || !titled_options(one)))
    return "oneOf must be [{const, title}] and exclusive with enum";
  json_t *def = json_object_get(p, "default");
  if (def && !json_is_string(def))
    return "default must be a string";
  if (def && en && !option_has(en, json_string_value(def), false))
    return "default must be one of enum";
  if (def && one && !option_has(one, json_string_value(def), true))
    return "default must be one of the oneOf constants";
  return NULL;
}

static const char *check_number(const json_t *p, bool integer) {
  static const char *const keys[] = {
      "type", "title", "description", "minimum", "maximum", "default", NULL};
  const char *bad;
  if (!only_keys(p, keys, &bad))
    return "keyword not allowed for a number property";
  if (!opt_string(p, "title") || !opt_string(p, "description"))
    return "title and description must be strings";
  json_t *min = json_object_get(p, "minimum"),
         *max = json_object_get(p, "maximum");
  if ((min && !json_is_number(min)) || (max && !json_is_number(max)))
    return "minimum and maximum must be numbers";
  json_t *def = json_object_get(p, "default");
  if (def && !(integer ? json_is_integer(def) : json_is_number(def)))
    return integer ? "default must be an integer" : "default must be a number";
  return NULL;
}

static const char *check_boolean(const json_t *p) {
  static const char *const keys[] = {"type", "title", "description", "default",
                                     NULL};
  const char *bad;
  if (!only_keys(p, keys, &bad))
    return "keyword not allowed for a boolean property";
  if (!opt_string(p, "title") || !opt_string(p, "description"))
    return "title and description must be strings";
  json_t *def = json_object_get(p, "default");
  if (def && !json_is_boolean(def))
    return "default must be a boolean";
  return NULL;
}

static const char *check_multi(const json_t *p) {
  static const char *const keys[] = {"type",     "title",    "description",
                                     "minItems", "maxItems", "items",
                                     "default",  NULL};
  const char *bad;
  if (!only_keys(p, keys, &bad))
    return "keyword not allowed for a multi-select property";
  if (!opt_string(p, "title") || !opt_string(p, "description"))
    return "title and description must be strings";
  if (!opt_count(p, "minItems") || !opt_count(p, "maxItems"))
    return "minItems and maxItems must be non-negative integers";
  json_t *items = json_object_get(p, "items");
  json_t *en = json_object_get(items, "enum"),
         *any = json_object_get(items, "anyOf");
  static const char *const untitled[] = {"type", "enum", NULL};
  static const char *const titled[] = {"anyOf", NULL};
  bool ok_untitled = en && only_keys(items, untitled, &bad) &&
                     json_is_string(json_object_get(items, "type")) &&
                     strcmp(json_string_value(json_object_get(items, "type")),
                            "string") == 0 &&
                     string_array(en, true);
  bool ok_titled = any && only_keys(items, titled, &bad) && titled_options(any);
  if (!json_is_object(items) || !(ok_untitled || ok_titled))
    return "items must be {type:string, enum:[...]} or {anyOf:[{const, "
           "title}]}";
  json_t *def = json_object_get(p, "default");
  if (def) {
    if (!string_array(def, false))
      return "default must be an array of strings";
    size_t i;
    json_t *v;
    json_array_foreach(
        def, i, v) if (!option_has(ok_untitled ? en : any, json_string_value(v),
                                   !ok_untitled)) return "default must list "
                                                         "allowed values only";
  }
  return NULL;
}

mcp_status mcp_elicit_schema_check(const json_t *schema, mcp_error_t *err) {
  static const char *const root_keys[] = {"$schema",  "type",  "properties",
                                          "required", "title", "description",
                                          NULL};
  const char *bad = NULL;
  if (!json_is_object(schema))
    return mcp_error_set(err, MCP_ERR_SCHEMA,
                         "requestedSchema must be an object");
  if (!only_keys(schema, root_keys, &bad))
    return mcp_error_set(err, MCP_ERR_SCHEMA,
                         "requestedSchema: keyword '%s' is not allowed", bad);
  json_t *type = json_object_get(schema, "type");
  if (!json_is_string(type) || strcmp(json_string_value(type), "object") != 0)
    return mcp_error_set(err, MCP_ERR_SCHEMA,
                         "requestedSchema: type must be \"object\"");
  json_t *props = json_object_get(schema, "properties");
  if (!json_is_object(props))
    return mcp_error_set(err, MCP_ERR_SCHEMA,
                         "requestedSchema: properties must be an object");
  const char *name;
  json_t *p;
  json_object_foreach(props, name, p) {
    const char *why = "must be an object with a type";
    const char *t = json_string_value(json_object_get(p, "type"));
    if (json_is_object(p) && t) {
      if (strcmp(t, "string") == 0)
        why = check_string(p);
      else if (strcmp(t, "number") == 0 || strcmp(t, "integer") == 0)
        why = check_number(p, strcmp(t, "integer") == 0);
      else if (strcmp(t, "boolean") == 0)
        why = check_boolean(p);
      else if (strcmp(t, "array") == 0)
        why = check_multi(p);
      else
        why = "type must be string, number, integer, boolean or array";
    }
    if (why)
      return mcp_error_set(err, MCP_ERR_SCHEMA,
                           "requestedSchema: property '%s': %s", name, why);
  }
  json_t *req = json_object_get(schema, "required");
  if (req) {
    if (!string_array(req, false))
      return mcp_error_set(err, MCP_ERR_SCHEMA,
                           "requestedSchema: required must be an array of "
                           "strings");
    size_t i;
    json_t *v;
    json_array_foreach(req, i, v) if (
        !json_object_get(
            props, json_string_value(
                       v))) return mcp_error_set(err, MCP_ERR_SCHEMA,
                                                 "requestedSchema: required "
                                                 "names unknown property '%s'",
                                                 json_string_value(v));
  }
  return MCP_OK;
}
