/* SPDX-License-Identifier: MIT */
/* tool_decl.h - declaring a tool from C structs: each argument written once.
 *
 * Describe the arguments once, as a table of fields of a C struct (name,
 * type, description, constraints, default, optional); the library builds the
 * input schema from the table and, for every call, fills a zeroed struct
 * with the arguments (defaults applied) before the handler runs. The same
 * for the output: a table of fields of a second struct builds the output
 * schema, and after the handler returns the struct becomes the result's
 * structuredContent, checked against that schema like any other.
 *
 *   typedef struct { int64_t a, b; } add_in;
 *   typedef struct { int64_t sum; } add_out;
 *   MCP_TOOL_HANDLER(add, add_in, add_out) {
 *     out->sum = in->a + in->b;
 *     return MCP_OK;
 *   }
 *   static const mcp_field add_args[] = {
 *       MCP_INTEGER(add_in, a, "First addend"),
 *       MCP_INTEGER(add_in, b, "Second addend"), MCP_FIELDS_END};
 *   static const mcp_field add_result[] = {
 *       MCP_INTEGER(add_out, sum, "a + b"), MCP_FIELDS_END};
 *   ...
 *   mcp_server_add_tool_decl(server, &(mcp_tool_decl){
 *       .name = "add", .input = add_args, .output = add_result, .fn = add},
 *       &err);
 *
 * Member types: MCP_STRING const char * (borrowed from the arguments, valid
 * while the handler runs; in the output, read after the handler returned,
 * so point it at static text or at a buffer inside the output struct (see
 * output_size), never at the handler's locals; NULL omits the member);
 * MCP_INTEGER int8_t, int16_t, int32_t or int64_t (the schema bounds a narrower
 * type to its range); MCP_NUMBER double or float; MCP_BOOLEAN bool; MCP_OBJECT
 * and MCP_ARRAY json_t * (input: borrowed from the arguments; output: stolen
 * when the handler returns, whatever it returns).
 *
 * A field is required unless it has a default or .optional = true. A
 * missing optional field without a default stays zero (NULL for pointers).
 *
 * A member of the wrong C type is a compile error naming the field (see
 * MCP__FIELD below). Definition errors (a member of the wrong size in a
 * table filled by hand, a constraint that does not fit the type, a default the field's own constraints refuse, two fields on
 * the same bytes, a duplicate name, ...) never fail mcp_tool_new_decl one at
 * a time: they are all collected in the tool and reported once, naming each
 * field at fault, by mcp_server_add_tool (MCP_ERR_INVALID_ARG), which frees
 * the tool as it does for every failure.
 *
 * Tables and the strings they point to are borrowed: they must outlive the
 * tool (declare them static const, as above).
 *
 * The macros are C (designated initializers, compound literals); from C++
 * fill mcp_field and mcp_tool_decl member by member (C++20 compilers take
 * the macros without MCP_LIMIT/MCP_DEFAULT/MCP_ENUM, type check included).
 *
 * Thread safety: as tool.h; the struct handed to a handler belongs to that
 * call alone.
 */
#ifndef MCP_TOOL_DECL_H
#define MCP_TOOL_DECL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/export.h"
#include "mcp/result.h"
#include "mcp/server.h"
#include "mcp/status.h"
#include "mcp/tool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mcp_field_type {
  MCP_FIELD_END = 0, /* the table's terminator (MCP_FIELDS_END) */
  MCP_FIELD_STRING,  /* const char * */
  MCP_FIELD_INTEGER, /* int8_t .. int64_t */
  MCP_FIELD_NUMBER,  /* double or float */
  MCP_FIELD_BOOLEAN, /* bool */
  MCP_FIELD_OBJECT,  /* json_t * (a JSON object) */
  MCP_FIELD_ARRAY    /* json_t * (a JSON array) */
} mcp_field_type;

/* A bound that is either unset (all zero) or set: MCP_LIMIT(0). */
typedef struct mcp_limit {
  bool set;
  double value;
} mcp_limit;
#define MCP_LIMIT(v) ((mcp_limit){.set = true, .value = (v)})

/* A default: unset (all zero), MCP_DEFAULT(number, integer or boolean) or
 * MCP_DEFAULT_STRING("text"). */
typedef struct mcp_default {
  bool set;
  double number;
  int64_t integer;
  const char *string;
} mcp_default;
#define MCP_DEFAULT(v)                                                         \
  ((mcp_default){.set = true, .number = (double)(v), .integer = (int64_t)(v)})
#define MCP_DEFAULT_STRING(s) ((mcp_default){.set = true, .string = (s)})

/* NULL-terminated list of allowed strings: MCP_ENUM("AA", "LH"). */
#define MCP_ENUM(...) ((const char *const[]){__VA_ARGS__, NULL})

typedef struct mcp_field {
  const char *name; /* property name; NULL ends the table */
  mcp_field_type type;
  size_t offset, size; /* of the member in its struct (the macros fill them) */
  const char *description;
  const char *title;
  bool optional;                  /* required unless optional or defaulted */
  mcp_default default_value;      /* input only; emitted as "default" */
  mcp_limit minimum, maximum;     /* integer and number */
  size_t min_length, max_length;  /* string length, or array items; 0: none */
  const char *pattern;            /* string: ECMA-262 regex */
  const char *format;             /* string: "email", "date", "uri", ...:
                                   * an annotation, checked only when
                                   * mcp_server_set_format_assertion or
                                   * mcp_tool_set_format_assertion ask */
  const char *const *enum_values; /* string: MCP_ENUM(...) */
  const void *reserved[4];        /* zero */
} mcp_field;

/* One field of struct type T, member m (whose name is the property name);
 * the rest are the description and designated initializers:
 *   MCP_INTEGER(T, count, "How many", .minimum = MCP_LIMIT(1),
 *               .default_value = MCP_DEFAULT(10))
 * The member's C type is checked at compile time: a member the macro cannot
 * fill (MCP_STRING on an int64_t, MCP_INTEGER on a double or a const char *,
 * an unsigned or array member, ...) is a failed static assertion naming the
 * macro, the struct and the member, e.g.
 *   static assertion failed: "MCP_INTEGER(add_in, name): the member must be
 *   int8_t, int16_t, int32_t or int64_t" */
#define MCP__FIELD(T, m, ty, check, ...)                                       \
  {                                                                            \
    .name = #m, .type = (ty), .offset = offsetof(T, m),                        \
    .size = sizeof(((T *)0)->m) + (check), .description = __VA_ARGS__          \
  }

/* The compile-time check: 0, or a failed static assertion with msg. */
#ifndef __cplusplus
/* _Generic on the member's address: an array member (char name[8]) does
 * not pass for a pointer, and const members are listed as such. */
#define MCP__IS(A) A *: 1, const A *: 1
#define MCP__TYPE_IS_STRING(T, m)                                              \
  _Generic(&((T *)0)->m, char **: 1, const char **: 1, char *const *: 1,       \
           const char *const *: 1, default: 0)
#define MCP__TYPE_IS_INTEGER(T, m)                                             \
  _Generic(&((T *)0)->m, MCP__IS(signed char), MCP__IS(short), MCP__IS(int),   \
           MCP__IS(long), MCP__IS(long long), default: 0)
#define MCP__TYPE_IS_NUMBER(T, m)                                              \
  _Generic(&((T *)0)->m, MCP__IS(double), MCP__IS(float), default: 0)
#define MCP__TYPE_IS_BOOLEAN(T, m)                                             \
  _Generic(&((T *)0)->m, MCP__IS(_Bool), default: 0)
#define MCP__TYPE_IS_JSON(T, m)                                                \
  _Generic(&((T *)0)->m, json_t **: 1, const json_t **: 1, json_t *const *: 1, \
           const json_t *const *: 1, default: 0)
/* A struct declared inside sizeof is the one place an expression can hold
 * a _Static_assert (C17): the field stays a constant initializer. */
#define MCP__TYPE_CHECK(ok, msg)                                               \
  (0 * sizeof(struct {                                                         \
     _Static_assert(ok, msg);                                                  \
     char mcp__unused;                                                         \
   }))
#define MCP__CHECK(macro, T, m, kind, what)                                    \
  MCP__TYPE_CHECK(MCP__TYPE_IS_##kind(T, m),                                   \
                  #macro "(" #T ", " #m "): the member must be " what)
#else
/* C++ (the macros need designated initializers, C++20): the same check
 * with a type trait and a static_assert in a lambda. */
#define MCP__CHECK(macro, T, m, kind, what)                                    \
  ([] {                                                                        \
    static_assert(mcp__field_type_fits<MCP__KIND_##kind,                       \
                                       decltype(T::m)>::value,                 \
                  #macro "(" #T ", " #m "): the member must be " what);        \
    return (size_t)0;                                                          \
  }())
#endif
#define MCP__KIND_STRING  1
#define MCP__KIND_INTEGER 2
#define MCP__KIND_NUMBER  3
#define MCP__KIND_BOOLEAN 4
#define MCP__KIND_JSON    5

#define MCP_STRING(T, m, ...)                                                  \
  MCP__FIELD(T, m, MCP_FIELD_STRING,                                           \
             MCP__CHECK(MCP_STRING, T, m, STRING, "const char *"),             \
             __VA_ARGS__)
#define MCP_INTEGER(T, m, ...)                                                 \
  MCP__FIELD(T, m, MCP_FIELD_INTEGER,                                          \
             MCP__CHECK(MCP_INTEGER, T, m, INTEGER,                            \
                        "int8_t, int16_t, int32_t or int64_t"),                \
             __VA_ARGS__)
#define MCP_NUMBER(T, m, ...)                                                  \
  MCP__FIELD(T, m, MCP_FIELD_NUMBER,                                           \
             MCP__CHECK(MCP_NUMBER, T, m, NUMBER, "double or float"),          \
             __VA_ARGS__)
#define MCP_BOOLEAN(T, m, ...)                                                 \
  MCP__FIELD(T, m, MCP_FIELD_BOOLEAN,                                          \
             MCP__CHECK(MCP_BOOLEAN, T, m, BOOLEAN, "bool"), __VA_ARGS__)
#define MCP_OBJECT(T, m, ...)                                                  \
  MCP__FIELD(T, m, MCP_FIELD_OBJECT,                                           \
             MCP__CHECK(MCP_OBJECT, T, m, JSON, "json_t *"), __VA_ARGS__)
#define MCP_ARRAY(T, m, ...)                                                   \
  MCP__FIELD(T, m, MCP_FIELD_ARRAY,                                            \
             MCP__CHECK(MCP_ARRAY, T, m, JSON, "json_t *"), __VA_ARGS__)
#define MCP_FIELDS_END                                                         \
  { .name = NULL }

/* Handlers. in: the filled input struct (NULL without input fields), read
 * only; out: the zeroed output struct (NULL without output fields) to fill.
 * Return MCP_OK (also for tool errors set with mcp_result_set_error, which
 * skip the output struct) or a failure status (a JSON-RPC error, see
 * call.h). Content added to result is kept; structuredContent set on result
 * by the handler wins over the output struct. */
typedef mcp_status (*mcp_tool_decl_fn)(const void *in, void *out,
                                       mcp_result_t *result);
/* The same with the call (progress, cancellation, elicitation, ...) and the
 * declaration's user_data. */
typedef mcp_status (*mcp_tool_decl_call_fn)(mcp_call_t *call, const void *in,
                                            void *out, mcp_result_t *result,
                                            void *user_data);

#if defined(__GNUC__)
#define MCP__UNUSED __attribute__((unused))
#else
#define MCP__UNUSED
#endif

/* Defines a handler `static mcp_status name(...)` of type mcp_tool_decl_fn
 * whose body sees `const In *in`, `Out *out` and `mcp_result_t *result`
 * (use void for a side without fields). */
#define MCP_TOOL_HANDLER(name, In, Out)                                        \
  static mcp_status name##__typed(const In *in, Out *out,                      \
                                  mcp_result_t *result);                       \
  static mcp_status name(const void *in, void *out, mcp_result_t *result) {    \
    return name##__typed((const In *)in, (Out *)out, result);                  \
  }                                                                            \
  static mcp_status name##__typed(MCP__UNUSED const In *in,                    \
                                  MCP__UNUSED Out *out,                        \
                                  MCP__UNUSED mcp_result_t *result)
/* Same for mcp_tool_decl_call_fn: the body also sees `mcp_call_t *call` and
 * `void *user_data`. */
#define MCP_TOOL_CALL_HANDLER(name, In, Out)                                   \
  static mcp_status name##__typed(mcp_call_t *call, const In *in, Out *out,    \
                                  mcp_result_t *result, void *user_data);      \
  static mcp_status name(mcp_call_t *call, const void *in, void *out,          \
                         mcp_result_t *result, void *user_data) {              \
    return name##__typed(call, (const In *)in, (Out *)out, result, user_data); \
  }                                                                            \
  static mcp_status name##__typed(                                             \
      MCP__UNUSED mcp_call_t *call, MCP__UNUSED const In *in,                  \
      MCP__UNUSED Out *out, MCP__UNUSED mcp_result_t *result,                  \
      MCP__UNUSED void *user_data)

/* Tri-state annotation hints: unset (0) is not emitted. */
typedef enum mcp_hint_value {
  MCP_HINT_UNSET = 0,
  MCP_HINT_YES,
  MCP_HINT_NO
} mcp_hint_value;

typedef struct mcp_tool_decl {
  const char *name; /* required; tool naming rules (tool.h) */
  const char *title, *description;
  const mcp_field *input;  /* MCP_FIELDS_END-terminated; NULL: no arguments */
  const mcp_field *output; /* NULL: no output schema, no structuredContent */
  /* sizeof the input and output structs; 0: up to the end of the last
   * field. Give output_size when the output struct also holds buffers the
   * string members point into (they live until the result is built). */
  size_t input_size, output_size;
  bool strict;         /* "additionalProperties": false on the input */
  mcp_tool_decl_fn fn; /* exactly one of fn and call_fn */
  mcp_tool_decl_call_fn call_fn;
  void *user_data;                /* for call_fn */
  void (*free_user_data)(void *); /* may be NULL; called once, as tool.h */
  mcp_hint_value read_only, destructive, idempotent, open_world;
  mcp_task_support task_support;
  const char *icon;        /* https: or data: URI, or NULL; mime type guessed */
  /* zero, except reserved[0]: NULL or a const mcp_tool_ui * linking the
   * tool to an MCP Apps view (apps.h, MCP_TOOL_DECL_UI) */
  const void *reserved[4];
} mcp_tool_decl;

/* Builds a tool (returns new, as mcp_tool_new) from decl (borrowed, read
 * now; its tables are kept, see above). MCP_ERR_INVALID_ARG only for a NULL
 * or a name the naming rules refuse; every other definition error is kept in
 * the tool for mcp_server_add_tool (and mcp_tool_definition_errors).
 * MCP_ERR_NOMEM. The tool can still be refined with tool.h setters (except
 * mcp_tool_set_handler and the schema setters, which the declaration owns). */
MCP_API mcp_status mcp_tool_new_decl(const mcp_tool_decl *decl,
                                     mcp_tool_t **out);
/* mcp_tool_new_decl then mcp_server_add_tool; err (may be NULL) names the
 * field at fault. */
MCP_API mcp_status mcp_server_add_tool_decl(mcp_server_t *server,
                                            const mcp_tool_decl *decl,
                                            mcp_error_t *err);
/* Every definition error found, one per line ("input field 'x': ..."), or
 * NULL when there is none. Borrowed, valid while the tool lives. */
MCP_API const char *mcp_tool_definition_errors(const mcp_tool_t *tool);

#ifdef __cplusplus
}

/* C++: which member types each field macro accepts (MCP__CHECK). */
#include <type_traits>
template <int Kind, typename M> struct mcp__field_type_fits {
  typedef typename std::remove_cv<M>::type T;
  template <typename U> static constexpr bool is() {
    return std::is_same<T, U>::value;
  }
  static constexpr bool value =
      Kind == MCP__KIND_STRING   ? is<char *>() || is<const char *>()
      : Kind == MCP__KIND_INTEGER ? is<signed char>() || is<short>() ||
                                        is<int>() || is<long>() ||
                                        is<long long>()
      : Kind == MCP__KIND_NUMBER  ? is<double>() || is<float>()
      : Kind == MCP__KIND_BOOLEAN ? is<bool>()
      : Kind == MCP__KIND_JSON    ? is<json_t *>() || is<const json_t *>()
                                  : false;
};
#endif
#endif
