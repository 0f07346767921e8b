/* SPDX-License-Identifier: MIT */
/* schema.h - JSON Schema (draft 2020-12) compile + validate, and a builder.
 *
 * Compile a schema once into an immutable mcp_schema_t, then validate any
 * number of instances against it, from any number of threads at once.
 * $ref never touches the network: only documents registered in an
 * mcp_schema_registry_t (plus the built-in meta-schemas) resolve.
 *
 * Thread safety: mcp_schema_t is immutable after compile and safe to share.
 * A registry and an options object may be used by one thread at a time while
 * they are being filled; compile only reads them. A builder belongs to one
 * thread. mcp_validation_t belongs to the caller that received it.
 *
 * Ownership words follow docs/architecture.md: "copies", "borrows",
 * "steals (even on failure)", "returns new".
 */
#ifndef MCP_SCHEMA_H
#define MCP_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/export.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_schema mcp_schema_t;
typedef struct mcp_schema_registry mcp_schema_registry_t;
typedef struct mcp_schema_options mcp_schema_options_t;
typedef struct mcp_validation mcp_validation_t;

/* ---- registry of documents reachable through $ref ----------------------- */

/* Returns new; free with mcp_schema_registry_free. */
MCP_API mcp_status mcp_schema_registry_new(mcp_schema_registry_t **out);
/* NULL is a no-op. Must outlive no compiled schema: compiled schemas keep
 * what they need. */
MCP_API void mcp_schema_registry_free(mcp_schema_registry_t *registry);
/* Registers document under uri (copied, without its fragment). document:
 * steals, even on failure; NULL means "allocation failed" and gives
 * MCP_ERR_NOMEM. MCP_ERR_EXISTS when that URI is already registered.
 * Embedded $id values inside the document are registered as well. */
MCP_API mcp_status mcp_schema_registry_add(mcp_schema_registry_t *registry,
                                           const char *uri, json_t *document,
                                           mcp_error_t *err);

/* ---- compile options --------------------------------------------------- */

MCP_API mcp_status mcp_schema_options_new(mcp_schema_options_t **out);
MCP_API void mcp_schema_options_free(mcp_schema_options_t *options);
/* format is an annotation by default; true turns it into an assertion. */
MCP_API mcp_status mcp_schema_options_set_format_assertion(
    mcp_schema_options_t *options, bool assert_formats);
/* Borrows registry; it must stay alive until compile returns. */
MCP_API mcp_status mcp_schema_options_set_registry(
    mcp_schema_options_t *options, const mcp_schema_registry_t *registry);
/* Base URI for a schema without $id (copied). Default: none. */
MCP_API mcp_status
mcp_schema_options_set_base_uri(mcp_schema_options_t *options, const char *uri);
/* PCRE2 match limit per pattern match (bounds hostile regexes); 0 is
 * refused (MCP_ERR_INVALID_ARG). */
MCP_API mcp_status mcp_schema_options_set_regex_match_limit(
    mcp_schema_options_t *options, uint32_t limit);
/* Deepest nesting of schemas compile and validation follow before giving up
 * with an error (MCP_ERR_SCHEMA at compile, an "exceeds the nesting limit"
 * validation error at validation). Bounds the C stack. Default: 1000; 0 is
 * refused (MCP_ERR_INVALID_ARG). */
MCP_API mcp_status
mcp_schema_options_set_max_depth(mcp_schema_options_t *options, unsigned depth);

/* ---- compile / free ------------------------------------------------------ */

/* Compiles schema (borrowed; the compiled schema keeps its own reference)
 * into *out (returns new). options may be NULL for defaults. An unknown
 * $schema dialect, a malformed keyword or an unresolvable $ref gives
 * MCP_ERR_SCHEMA with err->message and err->pointer filled. */
MCP_API mcp_status mcp_schema_compile(const json_t *schema,
                                      const mcp_schema_options_t *options,
                                      mcp_schema_t **out, mcp_error_t *err);
/* Same from JSON text (len bytes; not NUL-terminated necessarily), read
 * with the rules of mcp_schema_validate_text ("\u0000" in strings allowed,
 * integers beyond int64 read as reals); MCP_ERR_PARSE when it is not one
 * JSON value. */
MCP_API mcp_status mcp_schema_compile_text(const char *text, size_t len,
                                           const mcp_schema_options_t *options,
                                           mcp_schema_t **out,
                                           mcp_error_t *err);
/* NULL is a no-op. */
MCP_API void mcp_schema_free(mcp_schema_t *schema);
/* The root schema document as given to compile (borrowed, valid while the
 * compiled schema lives). */
MCP_API json_t *mcp_schema_document(const mcp_schema_t *schema);

/* ---- validate ------------------------------------------------------------ */

/* Fast path: true when instance (borrowed) is valid. Stops at the first
 * failure and allocates nothing in the common case. */
MCP_API bool mcp_schema_is_valid(const mcp_schema_t *schema,
                                 const json_t *instance);

/* Detailed path: MCP_OK when valid (and *out set to NULL when out is
 * non-NULL); MCP_ERR_INVALID when not, with *out (returns new) listing every
 * error. MCP_ERR_NOMEM on allocation failure. */
MCP_API mcp_status mcp_schema_validate(const mcp_schema_t *schema,
                                       const json_t *instance,
                                       mcp_validation_t **out);

/* Fast path over JSON text: validates len bytes of json (borrowed, need not
 * be NUL-terminated) without building jansson values. The text is parsed
 * into a flat, mostly stack-allocated form and checked by the same evaluator
 * as mcp_schema_is_valid, with the same verdicts.
 * Returns MCP_OK when the text is one JSON value that is valid;
 * MCP_ERR_INVALID when it is not valid; MCP_ERR_PARSE when the text is not
 * exactly one JSON value (what json_loadb with JSON_DECODE_ANY |
 * JSON_ALLOW_NUL rejects: bad syntax, invalid UTF-8, lone surrogates,
 * reals beyond double, trailing bytes; and, unlike
 * json_loadb, any raw NUL byte, including one after the value as in
 * "123\0", which jansson's lexer skips: RFC 8259 has no place for it);
 * MCP_ERR_TOO_DEEP for more than 2048 nested arrays/objects (jansson's
 * limit); MCP_ERR_TOO_LARGE past 4 GiB; MCP_ERR_NOMEM; MCP_ERR_INVALID_ARG
 * for a NULL schema, or NULL json with len > 0.
 * A key repeated in one object counts once with its last value, as jansson
 * keeps it. "\u0000" is accepted in keys too (jansson refuses those). An
 * integer literal beyond int64 (which json_loadb refuses) is read as a real
 * holding the nearest double, as the library's request parser reads it, so
 * a schema sees a number (an integer if that double is integral); only one
 * beyond a double's range is MCP_ERR_PARSE, like an overflowing real.
 * Thread safety: any number of threads may validate against one compiled
 * schema at once; nothing is cached between calls but the JIT code of often
 * matched patterns, published atomically once. */
MCP_API mcp_status mcp_schema_validate_text(const mcp_schema_t *schema,
                                            const char *json, size_t len);

/* Checks a schema document against the built-in meta-schema of its dialect
 * (2020-12 unless $schema says otherwise). Same return convention as
 * mcp_schema_validate, plus MCP_ERR_UNSUPPORTED when $schema names no
 * built-in dialect (2020-12 and draft-07 are). */
MCP_API mcp_status mcp_schema_check_meta(const json_t *schema,
                                         mcp_validation_t **out);

/* Errors of one validation, in evaluation order: within one schema object
 * "type" first, then the other assertions, then the applicators ($ref, allOf,
 * ...), unevaluated* last; array items and object members in instance order.
 * Strings are borrowed and live as long as the mcp_validation_t. */
MCP_API size_t mcp_validation_count(const mcp_validation_t *v);
/* JSON Pointer into the instance, "" for the root. */
MCP_API const char *mcp_validation_instance_location(const mcp_validation_t *v,
                                                     size_t index);
/* JSON Pointer into the schema ("/properties/a/type"). */
MCP_API const char *mcp_validation_keyword_location(const mcp_validation_t *v,
                                                    size_t index);
/* One human sentence ("expected integer, got string"). */
MCP_API const char *mcp_validation_message(const mcp_validation_t *v,
                                           size_t index);
MCP_API void mcp_validation_free(mcp_validation_t *v);

/* ---- builder --------------------------------------------------------------
 * An object schema to which properties are added one call each. Property calls
 * return a borrowed handle (valid while the builder lives) to refine the
 * property; on allocation failure they return NULL, refiners ignore NULL, and
 * mcp_schema_builder_build reports MCP_ERR_NOMEM, so call chains need no checks
 * in between. The result is a 2020-12 schema that passes the meta-schema.
 */
typedef struct mcp_schema_builder mcp_schema_builder_t;
typedef struct mcp_schema_prop mcp_schema_prop_t;

MCP_API mcp_status mcp_schema_builder_new(mcp_schema_builder_t **out);
MCP_API void mcp_schema_builder_free(mcp_schema_builder_t *builder);

/* name and description are copied; description may be NULL. */
MCP_API mcp_schema_prop_t *
mcp_schema_builder_add_string(mcp_schema_builder_t *b, const char *name,
                              const char *description, bool required);
MCP_API mcp_schema_prop_t *
mcp_schema_builder_add_integer(mcp_schema_builder_t *b, const char *name,
                               const char *description, bool required);
MCP_API mcp_schema_prop_t *
mcp_schema_builder_add_number(mcp_schema_builder_t *b, const char *name,
                              const char *description, bool required);
MCP_API mcp_schema_prop_t *
mcp_schema_builder_add_boolean(mcp_schema_builder_t *b, const char *name,
                               const char *description, bool required);
/* An array property; refine its items with mcp_schema_prop_items(). */
MCP_API mcp_schema_prop_t *mcp_schema_builder_add_array(mcp_schema_builder_t *b,
                                                        const char *name,
                                                        const char *description,
                                                        bool required);
/* A nested object property; add its own properties through the returned
 * builder (borrowed, owned by the parent). */
MCP_API mcp_schema_builder_t *
mcp_schema_builder_add_object(mcp_schema_builder_t *b, const char *name,
                              const char *description, bool required);
/* additionalProperties: false when allow is false. Default: not emitted. */
MCP_API void
mcp_schema_builder_set_additional_properties(mcp_schema_builder_t *b,
                                             bool allow);
/* Description of the object itself (copied). */
MCP_API void mcp_schema_builder_set_description(mcp_schema_builder_t *b,
                                                const char *description);

/* Refiners. All copy their arguments; all ignore a NULL prop. */
MCP_API void mcp_schema_prop_set_title(mcp_schema_prop_t *p, const char *title);
MCP_API void mcp_schema_prop_set_enum(mcp_schema_prop_t *p,
                                      const char *const *values, size_t count);
MCP_API void mcp_schema_prop_set_minimum(mcp_schema_prop_t *p, double minimum);
MCP_API void mcp_schema_prop_set_maximum(mcp_schema_prop_t *p, double maximum);
MCP_API void mcp_schema_prop_set_min_length(mcp_schema_prop_t *p, size_t n);
MCP_API void mcp_schema_prop_set_max_length(mcp_schema_prop_t *p, size_t n);
MCP_API void mcp_schema_prop_set_min_items(mcp_schema_prop_t *p, size_t n);
MCP_API void mcp_schema_prop_set_max_items(mcp_schema_prop_t *p, size_t n);
MCP_API void mcp_schema_prop_set_pattern(mcp_schema_prop_t *p,
                                         const char *ecma_regex);
MCP_API void mcp_schema_prop_set_format(mcp_schema_prop_t *p,
                                        const char *format);
/* value: steals, even on failure. */
MCP_API void mcp_schema_prop_set_default(mcp_schema_prop_t *p, json_t *value);
/* The item schema of an array property (borrowed, valid while the builder
 * lives), refined with the same mcp_schema_prop_set_* calls. Its type is the
 * type argument ("string", "integer", "number", "boolean", "array" or
 * "object"); calling again returns the same item schema with the type
 * replaced. An unknown type makes mcp_schema_builder_build fail with
 * MCP_ERR_INVALID_ARG. For object items with properties of their own use
 * mcp_schema_prop_items_object(). */
MCP_API mcp_schema_prop_t *mcp_schema_prop_items(mcp_schema_prop_t *array_prop,
                                                 const char *type);
/* Makes the items of an array property objects and returns their builder
 * (borrowed, owned by the array property). */
MCP_API mcp_schema_builder_t *
mcp_schema_prop_items_object(mcp_schema_prop_t *array_prop);

/* Builds the schema: *out returns new (json_decref it). MCP_ERR_NOMEM if an
 * earlier call failed to allocate; MCP_ERR_INVALID_ARG for conflicting input
 * (for example the same property name twice). The builder stays usable. */
MCP_API mcp_status mcp_schema_builder_build(const mcp_schema_builder_t *b,
                                            json_t **out);

#ifdef __cplusplus
}
#endif
#endif
