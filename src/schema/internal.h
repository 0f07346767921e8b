/* SPDX-License-Identifier: MIT */
/* internal.h - the compiled form of a schema, shared by the compiler
 * (compile.c, vocab/<vocabulary>.c) and the evaluator (eval_body.inc,
 * vocab/<vocabulary>_eval.inc).
 *
 * Every schema object (or boolean) reached from the root becomes one node:
 * an array of keywords whose operands were decoded at compile time (regexes
 * compiled, property tables hashed, enum values hashed, $ref targets linked
 * to nodes). Nodes are memoized by json_t address, so $ref cycles become
 * cycles in the node graph; evaluation bounds them (see eval_body.inc).
 * Everything lives in the schema's arena and is never mutated after compile
 * (the one exception, a regex's lazily published JIT copy, is atomic; see
 * regex.c), which is what makes one mcp_schema_t safe to share between
 * threads. */
#ifndef MCP_SCHEMA_INTERNAL_H
#define MCP_SCHEMA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mcp/schema.h"
#include "schema/arena.h"
#include "schema/map.h"
#include "schema/regex.h"
#include "util/hash.h"

/* Vocabularies; a dialect enables a set of them. */
enum {
  MCP__V_CORE = 1u << 0,
  MCP__V_APPLICATOR = 1u << 1,
  MCP__V_UNEVALUATED = 1u << 2,
  MCP__V_VALIDATION = 1u << 3,
  MCP__V_METADATA = 1u << 4,
  MCP__V_FORMAT_ANNOTATION = 1u << 5,
  MCP__V_FORMAT_ASSERTION = 1u << 6,
  MCP__V_CONTENT = 1u << 7,
  MCP__V_ALL_2020 = 0xBF, /* all but format-assertion */
};

typedef enum mcp__draft {
  MCP__DRAFT_2020 = 0,
  MCP__DRAFT_7 = 1,
} mcp__draft;

typedef struct mcp__dialect {
  mcp__draft draft;
  unsigned vocab;
} mcp__dialect;

/* Instance type bits. */
enum {
  MCP__T_NULL = 1u << 0,
  MCP__T_BOOL = 1u << 1,
  MCP__T_INTEGER = 1u << 2, /* only used in "type"; integers are numbers */
  MCP__T_NUMBER = 1u << 3,
  MCP__T_STRING = 1u << 4,
  MCP__T_ARRAY = 1u << 5,
  MCP__T_OBJECT = 1u << 6,
  MCP__T_ANY = 0x7F,
};

typedef struct mcp__node mcp__node;

typedef struct mcp__dyn_anchor {
  const char *name;
  json_t *js; /* the subschema carrying the anchor */
  mcp__node *node;
} mcp__dyn_anchor;

/* A schema resource: a document root or a subschema with $id. */
typedef struct mcp__resource {
  const char *uri;
  mcp__dyn_anchor *dyn; /* $dynamicAnchor names of this resource */
  size_t ndyn, capdyn;
} mcp__resource;

/* The operations keywords compile to, by vocabulary (src/schema/vocab/):
 *   X(OP, rank, leaf, evaluator)
 * rank orders a node's operations (cheap assertions first, unevaluated*
 * last); leaf: evaluates no subschema; evaluator: ev_<evaluator> in
 * vocab/<vocabulary>_eval.inc. A keyword (vocab/<vocabulary>.c) compiles to
 * zero or more operations: "properties", "patternProperties" and
 * "additionalProperties" to one, draft-07 "dependencies" to two. */
#define MCP__OPS_CORE(X)                                                       \
  X(REF, 3, 0, ref)                                                            \
  X(DYNREF, 3, 0, dynref)
#define MCP__OPS_VALIDATION(X)                                                 \
  X(TYPE, 0, 1, type)                                                          \
  X(CONST, 1, 1, const)                                                        \
  X(ENUM, 1, 1, enum)                                                          \
  X(MULTIPLE_OF, 1, 1, multiple_of)                                            \
  X(MAXIMUM, 1, 1, bound) /* the four bounds stay in this order */             \
  X(EXCL_MAXIMUM, 1, 1, bound)                                                 \
  X(MINIMUM, 1, 1, bound)                                                      \
  X(EXCL_MINIMUM, 1, 1, bound)                                                 \
  X(MAX_LENGTH, 1, 1, length)                                                  \
  X(MIN_LENGTH, 1, 1, length)                                                  \
  X(PATTERN, 1, 1, pattern)                                                    \
  X(MAX_ITEMS, 1, 1, item_count)                                               \
  X(MIN_ITEMS, 1, 1, item_count)                                               \
  X(UNIQUE_ITEMS, 1, 1, unique_items)                                          \
  X(MAX_PROPERTIES, 1, 1, property_count)                                      \
  X(MIN_PROPERTIES, 1, 1, property_count)                                      \
  X(REQUIRED, 1, 1, required)                                                  \
  X(DEP_REQUIRED, 1, 1, dependent_required)
#define MCP__OPS_FORMAT(X) X(FORMAT, 1, 1, format)
#define MCP__OPS_APPLICATOR(X)                                                 \
  X(ALLOF, 3, 0, all_of)                                                       \
  X(ANYOF, 3, 0, any_of)                                                       \
  X(ONEOF, 3, 0, one_of)                                                       \
  X(NOT, 3, 0, not )                                                           \
  X(IF, 3, 0, if)                                                              \
  X(DEP_SCHEMAS, 3, 0, dependent_schemas)                                      \
  X(PROPERTY_NAMES, 2, 0, property_names)                                      \
  X(PROPERTIES, 2, 0, properties) /* + patternProperties, additional... */     \
  X(ITEMS, 2, 0, items) /* prefixItems + items (or items[] + additional...) */ \
  X(CONTAINS, 2, 0, contains) /* with minContains / maxContains */
#define MCP__OPS_UNEVALUATED(X)                                                \
  X(UNEVAL_ITEMS, 4, 0, unevaluated_items)                                     \
  X(UNEVAL_PROPS, 4, 0, unevaluated_properties)
#define MCP__OPS(X)                                                            \
  MCP__OPS_CORE(X)                                                             \
  MCP__OPS_VALIDATION(X)                                                       \
  MCP__OPS_FORMAT(X)                                                           \
  MCP__OPS_APPLICATOR(X)                                                       \
  MCP__OPS_UNEVALUATED(X)

typedef enum mcp__op {
#define MCP__OP_ENUM_(op, rank, leaf, ev) MCP__OP_##op,
  MCP__OPS(MCP__OP_ENUM_)
#undef MCP__OP_ENUM_
      MCP__OP_COUNT
} mcp__op;

typedef struct mcp__prop {
  const char *name; /* NUL-terminated; len bytes (may contain NUL) */
  bool required;    /* also listed in the sibling "required" */
  size_t len;
  uint64_t hash;
  uint32_t sig;    /* mcp__key_sig(name, len) */
  const char *loc; /* "properties/<escaped name>" */
  mcp__node *node;
} mcp__prop;

typedef struct mcp__ptable {
  mcp__prop *props; /* in schema order */
  size_t count;
  uint32_t *slots; /* open addressing: index+1, 0 empty */
  size_t mask;
  /* Perfect hash over the names, found at compile time when one exists:
   * slot (mcp__key_sig(name) * ph_mul) >> ph_shift holds index+1 of the only
   * name that can match, so matching an instance key costs one multiply, one
   * length check and one memcmp, without hashing the whole key. NULL: use
   * slots. */
  uint8_t *ph;
  uint32_t ph_mul;
  uint8_t ph_shift;
} mcp__ptable;

/* Signature of a property name for the perfect hash: length, first, middle
 * and last bytes (so names of up to 3 bytes with equal signatures are
 * equal). */
static inline uint32_t mcp__key_sig(const char *k, size_t len) {
  if (len == 0)
    return 0;
  const unsigned char *u = (const unsigned char *)k;
  return (uint32_t)len ^ ((uint32_t)u[0] << 8) ^ ((uint32_t)u[len >> 1] << 16) ^
         ((uint32_t)u[len - 1] << 24);
}

typedef struct mcp__pattern_prop {
  mcp__regex *re;
  const char *loc; /* "patternProperties/<escaped>" */
  mcp__node *node;
} mcp__pattern_prop;

typedef struct mcp__dep_req {
  const char *name;
  size_t len;
  const char **req;
  size_t *req_len;
  size_t nreq;
} mcp__dep_req;

enum { MCP__VAL_OTHER, MCP__VAL_INT, MCP__VAL_REAL, MCP__VAL_STRING };

typedef bool (*mcp__format_fn)(const char *s, size_t len);

typedef struct mcp__kw {
  mcp__op op;
  unsigned tmask;  /* instance types this keyword looks at */
  const char *loc; /* keyword location relative to the node, "minimum" */
  union {
    struct {
      mcp__node *target;
      const char *name; /* $dynamicRef anchor name when dynamic */
      bool dynamic;
    } ref;
    unsigned types;
    struct {
      const json_t *value; /* const, numeric bounds */
      /* decoded copy for the quick checks: MCP__VAL_* says which is set */
      json_int_t i;
      double d;
      const char *s;
      size_t slen;
      uint8_t kind;
    } val;
    struct {
      json_t **values;
      uint64_t *hashes;
      const char **strs; /* string values, else NULL */
      size_t *lens;      /* their lengths, SIZE_MAX when not a string */
      size_t count;
    } en;
    size_t count;
    mcp__regex *re;
    struct {
      mcp__format_fn fn;
      const char *name;
    } format;
    struct {
      const char **names;
      size_t *lens;
      size_t count;
    } req;
    struct {
      mcp__dep_req *deps;
      size_t count;
    } depreq;
    struct {
      mcp__node **nodes;
      const char **locs;
      size_t count;
    } list;
    struct {
      mcp__node *node;
    } one;
    struct {
      mcp__node *if_node, *then_node, *else_node;
    } cond;
    mcp__ptable deps; /* dependentSchemas */
    struct {
      mcp__ptable table;
      size_t nrequired; /* table entries with required set */
      mcp__pattern_prop *patterns;
      size_t npatterns;
      mcp__node *additional;
      const char *additional_loc;
    } props;
    struct {
      mcp__node **prefix;
      size_t nprefix;
      const char *prefix_kw; /* "prefixItems" or "items" (draft-07) */
      mcp__node *rest;
      const char *rest_loc; /* "items" or "additionalItems" */
    } items;
    struct {
      mcp__node *node;
      size_t min, max; /* max SIZE_MAX when absent */
      const char *min_loc, *max_loc;
    } contains;
  } u;
} mcp__kw;

enum { MCP__NODE_SCHEMA, MCP__NODE_TRUE, MCP__NODE_FALSE };

struct mcp__node {
  uint8_t kind;
  bool uneval; /* has unevaluated*: collects annotations of its keywords */
  bool uneval_props; /* has unevaluatedProperties: indexes object members */
  bool leaf; /* no keyword evaluates a subschema: no nesting, no scope */
  uint8_t type_first; /* 1 when kw[0] is "type" (its types are in types) */
  bool flat; /* keywords: ["type"] + properties without patternProperties */
  unsigned types; /* MCP__T_* allowed by "type", MCP__T_ANY without */
  uint16_t nkw;
  mcp__kw *kw;
  mcp__resource *res;
};

struct mcp_schema {
  mcp__arena arena;
  json_t *document; /* root, one reference held */
  json_t **docs;    /* every other document used, references held */
  size_t ndocs;
  mcp__regex **regexes; /* freed with the schema */
  size_t nregexes;
  mcp__node *root;
  bool has_dynamic; /* any $dynamicRef that needs the dynamic scope */
  unsigned max_depth;
  uint32_t match_limit;
  void *match_context; /* pcre2_match_context*, read-only after compile */
};

struct mcp_schema_registry {
  struct reg_doc {
    char *uri;
    json_t *doc;
  } * docs;
  size_t count, cap;
};

struct mcp_schema_options {
  bool assert_formats;
  const mcp_schema_registry_t *registry;
  char *base_uri;
  uint32_t match_limit;
  unsigned max_depth;
};

/* One recorded error of the detailed path. */
typedef struct mcp__verror {
  char *instance_location;
  char *keyword_location;
  char *message;
} mcp__verror;

struct mcp_validation {
  mcp__verror *errors;
  size_t count, cap;
};

/* validation.c: appends an error taking ownership of the three strings;
 * false (and the strings freed) when out of memory. */
bool mcp__validation_push(mcp_validation_t *v, char *instance_location,
                          char *keyword_location, char *message);
/* Drops errors past count (an anyOf branch that turned out not to matter). */
void mcp__validation_truncate(mcp_validation_t *v, size_t count);

/* metaschemas.c: built-in documents. */
typedef struct mcp__builtin_doc {
  const char *uri;
  const char *text;
} mcp__builtin_doc;
const mcp__builtin_doc *mcp__metaschemas(size_t *count);

#define MCP__DEFAULT_MATCH_LIMIT 1000000u
#define MCP__DEFAULT_MAX_DEPTH   1000u

#endif
