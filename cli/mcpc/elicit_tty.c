/* SPDX-License-Identifier: MIT */
/* elicit_tty.c - answering an elicitation on a terminal: the user chooses
 * accept, decline or cancel, then each field of the restricted schema is
 * asked in turn (title/description, the default in brackets, enum values as
 * numbered choices, yes/no for booleans); every answer is checked against
 * its property and the whole content against the requested schema before
 * it is sent, and a field is asked again until it fits. Prompts go to
 * stderr, answers are read from stdin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "mcp/schema.h"

bool mcpc_elicit_interactive(void) {
  return isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
}

/* One line from stdin without its newline (malloc'd), NULL at EOF. */
static char *read_line(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, stdin);
  if (n < 0) {
    free(line);
    return NULL;
  }
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
    line[--n] = '\0';
  return line;
}

/* The choices of a single-select enum property (enum, or oneOf/anyOf of
 * {const, title}); a new array of {value, label}, or NULL. */
static json_t *choices_of(json_t *prop) {
  json_t *out = json_array();
  json_t *e = json_object_get(prop, "enum");
  json_t *names = json_object_get(prop, "enumNames");
  size_t i;
  json_t *v;
  json_array_foreach(e, i, v) {
    json_t *label = json_array_get(names, i);
    json_array_append_new(
        out, json_pack("{s:O,s:O}", "value", v, "label", label ? label : v));
  }
  json_t *alts = json_object_get(prop, "oneOf");
  if (alts == NULL)
    alts = json_object_get(prop, "anyOf");
  json_array_foreach(alts, i, v) {
    json_t *c = json_object_get(v, "const");
    json_t *t = json_object_get(v, "title");
    if (c != NULL)
      json_array_append_new(
          out, json_pack("{s:O,s:O}", "value", c, "label", t ? t : c));
  }
  if (json_array_size(out) == 0) {
    json_decref(out);
    return NULL;
  }
  return out;
}

static void print_value(FILE *f, json_t *v) {
  char *t = json_dumps(v, JSON_ENCODE_ANY);
  fprintf(f, "%s", t ? t : "?");
  free(t);
}

/* Parses one answer for prop; NULL with *why set when it does not fit. */
static json_t *parse_answer(json_t *prop, json_t *choices, const char *text,
                            const char **why) {
  const char *type = json_string_value(json_object_get(prop, "type"));
  if (choices != NULL) {
    char *end;
    long k = strtol(text, &end, 10);
    if (*end == '\0' && k >= 1 && (size_t)k <= json_array_size(choices))
      return json_incref(
          json_object_get(json_array_get(choices, (size_t)k - 1), "value"));
    size_t i;
    json_t *c;
    json_array_foreach(choices, i, c) {
      json_t *v = json_object_get(c, "value");
      if (json_is_string(v) && strcmp(json_string_value(v), text) == 0)
        return json_incref(v);
    }
    *why = "choose one of the numbers or values shown";
    return NULL;
  }
  if (type != NULL && strcmp(type, "boolean") == 0) {
    if (strcmp(text, "y") == 0 || strcmp(text, "yes") == 0 ||
        strcmp(text, "true") == 0)
      return json_true();
    if (strcmp(text, "n") == 0 || strcmp(text, "no") == 0 ||
        strcmp(text, "false") == 0)
      return json_false();
    *why = "answer yes or no";
    return NULL;
  }
  if (type != NULL &&
      (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0)) {
    char *end;
    if (strcmp(type, "integer") == 0) {
      long long n = strtoll(text, &end, 10);
      if (*end == '\0' && end != text)
        return json_integer(n);
      *why = "a whole number is needed";
    } else {
      double d = strtod(text, &end);
      if (*end == '\0' && end != text)
        return json_real(d);
      *why = "a number is needed";
    }
    return NULL;
  }
  return json_string(text);
}

/* Checks value against prop alone (the property's own schema). */
static bool fits(json_t *prop, json_t *value, char *why, size_t n) {
  mcp_schema_t *s = NULL;
  mcp_error_t err;
  if (mcp_schema_compile(prop, NULL, &s, &err) != MCP_OK)
    return true; /* an uncompilable property: the server decides */
  mcp_validation_t *v = NULL;
  bool ok = mcp_schema_validate(s, value, &v) == MCP_OK;
  if (!ok)
    snprintf(why, n, "%s",
             v && mcp_validation_count(v) ? mcp_validation_message(v, 0)
                                          : "does not fit the schema");
  mcp_validation_free(v);
  mcp_schema_free(s);
  return ok;
}

mcp_status mcpc_elicit_on_tty(json_t *params, json_t **result) {
  const char *message = json_string_value(json_object_get(params, "message"));
  json_t *schema = json_object_get(params, "requestedSchema");
  json_t *props = json_object_get(schema, "properties");
  json_t *required = json_object_get(schema, "required");
  fprintf(stderr, "mcpc: the server asks: %s\n",
          message ? message : "(no message)");
  const char *action = NULL;
  while (action == NULL) {
    fprintf(stderr, "  accept, decline or cancel? [a/d/c] (a): ");
    char *line = read_line();
    if (line == NULL) {
      action = "cancel";
      break;
    }
    if (line[0] == '\0' || strcmp(line, "a") == 0 ||
        strcmp(line, "accept") == 0)
      action = "accept";
    else if (strcmp(line, "d") == 0 || strcmp(line, "decline") == 0)
      action = "decline";
    else if (strcmp(line, "c") == 0 || strcmp(line, "cancel") == 0)
      action = "cancel";
    free(line);
  }
  if (strcmp(action, "accept") != 0) {
    *result = json_pack("{s:s}", "action", action);
    return *result ? MCP_OK : MCP_ERR_NOMEM;
  }
  json_t *content = json_object();
  const char *key;
  json_t *prop;
  json_object_foreach(props, key, prop) {
    bool is_required = false;
    size_t i;
    json_t *r;
    json_array_foreach(required, i, r) {
      is_required = is_required || (json_is_string(r) &&
                                    strcmp(json_string_value(r), key) == 0);
    }
    const char *title = json_string_value(json_object_get(prop, "title"));
    const char *desc = json_string_value(json_object_get(prop, "description"));
    const char *type = json_string_value(json_object_get(prop, "type"));
    json_t *def = json_object_get(prop, "default");
    json_t *choices = choices_of(prop);
    for (;;) {
      fprintf(stderr, "  %s%s%s%s", title ? title : key, desc ? " (" : "",
              desc ? desc : "", desc ? ")" : "");
      if (choices != NULL) {
        fprintf(stderr, ":");
        json_t *c;
        json_array_foreach(choices, i, c) {
          fprintf(stderr, " %zu) ", i + 1);
          print_value(stderr, json_object_get(c, "label"));
        }
      } else if (type != NULL && strcmp(type, "boolean") == 0) {
        fprintf(stderr, " (yes/no)");
      }
      if (def != NULL) {
        fprintf(stderr, " [");
        print_value(stderr, def);
        fprintf(stderr, "]");
      } else if (!is_required) {
        fprintf(stderr, " (optional)");
      }
      fprintf(stderr, ": ");
      char *line = read_line();
      if (line == NULL) { /* EOF: nothing more can be asked */
        json_decref(choices);
        json_decref(content);
        *result = json_pack("{s:s}", "action", "cancel");
        return *result ? MCP_OK : MCP_ERR_NOMEM;
      }
      json_t *value = NULL;
      const char *why = NULL;
      char detail[256] = "";
      if (line[0] == '\0') {
        if (def != NULL)
          value = json_incref(def);
        else if (is_required)
          why = "this field is required";
      } else {
        value = parse_answer(prop, choices, line, &why);
        if (value != NULL && !fits(prop, value, detail, sizeof detail)) {
          json_decref(value);
          value = NULL;
          why = detail;
        }
      }
      free(line);
      if (why != NULL) {
        fprintf(stderr, "  mcpc: %s\n", why);
        continue;
      }
      if (value != NULL)
        json_object_set_new(content, key, value);
      break;
    }
    json_decref(choices);
  }
  /* the whole answer against the requested schema, before it is sent */
  char why[256];
  if (schema != NULL && !fits(schema, content, why, sizeof why))
    fprintf(stderr, "  mcpc: the answer does not fit the request: %s\n", why);
  *result = json_pack("{s:s,s:o}", "action", "accept", "content", content);
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}
