/* SPDX-License-Identifier: MIT */
/* internal.h - the compiled form of a schema, shared by compile.c and
 * validate.c.
 *
 * Every schema object (or boolean) reached from the root becomes one node:
 * an array of keywords whose operands were decoded at compile time (regexes
 * compiled, property tables hashed, enum values hashed, $ref targets linked
 * to nodes). Nodes are memoized by json_t address, so $ref cycles become
 * cycles in the node graph; evaluation bounds them (see validate.c).
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

typedef enum mcp__op {
  MCP__OP_REF,
  MCP__OP_DYNREF,
  MCP__OP_TYPE,
  MCP__OP_CONST,
  MCP__OP_ENUM,
  MCP__OP_MULTIPLE_OF,
  MCP__OP_MAXIMUM,
  MCP__OP_EXCL_MAXIMUM,
  MCP__OP_MINIMUM,
  MCP__OP_EXCL_MINIMUM,
  MCP__OP_MAX_LENGTH,
  MCP__OP_MIN_LENGTH,
  MCP__OP_PATTERN,
  MCP__OP_FORMAT,
  MCP__OP_MAX_ITEMS,
  MCP__OP_MIN_ITEMS,
  MCP__OP_UNIQUE_ITEMS,
  MCP__OP_MAX_PROPERTIES,
  MCP__OP_MIN_PROPERTIES,
  MCP__OP_REQUIRED,
  MCP__OP_DEP_REQUIRED,
  MCP__OP_ALLOF,
  MCP__OP_ANYOF,
  MCP__OP_ONEOF,
  MCP__OP_NOT,
  MCP__OP_IF,
  MCP__OP_DEP_SCHEMAS,
  MCP__OP_PROPERTY_NAMES,
  MCP__OP_PROPERTIES, /* properties + patternProperties + additionalProperties
                       */
  MCP__OP_ITEMS,      /* prefixItems + items (or items[] + additionalItems) */
  MCP__OP_CONTAINS,   /* with minContains / maxContains */
  MCP__OP_UNEVAL_ITEMS,
  MCP__OP_UNEVAL_PROPS,
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

/* a[0..n) == b[0..n) for short keys without a call: 8-byte words, then
 * overlapping 4-, 2- or 1-byte tails. */
static inline bool mcp__bytes_eq(const char *a, const char *b, size_t n) {
  while (n >= 8) {
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if (x != y)
      return false;
    a += 8;
    b += 8;
    n -= 8;
  }
  if (n >= 4) {
    uint32_t x, y, z, w;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    memcpy(&z, a + n - 4, 4);
    memcpy(&w, b + n - 4, 4);
    return x == y && z == w;
  }
  if (n >= 2) {
    uint16_t x, y, z, w;
    memcpy(&x, a, 2);
    memcpy(&y, b, 2);
    memcpy(&z, a + n - 2, 2);
    memcpy(&w, b + n - 2, 2);
    return x == y && z == w;
  }
  return n == 0 || *a == *b;
}

#endif
