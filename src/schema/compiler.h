/* SPDX-License-Identifier: MIT */
/* compiler.h - what the keyword compilers of the vocabularies
 * (src/schema/vocab/<vocabulary>.c) share with the driver (compile.c) and the
 * operand decoders (compile_operands.c).
 *
 * The driver walks the vocabularies in order (core, validation, applicator,
 * unevaluated, format, content, meta-data), skips the ones the schema's
 * dialect switches off ($vocabulary of its meta-schema), and, for each
 * keyword row whose keyword (or one of its siblings) the schema object has,
 * calls the row's compile function, which appends operations (internal.h,
 * MCP__OPS) to the node's list. A failure is recorded once (the first wins)
 * in the compile context; every function here returns false / NULL after
 * it. */
#ifndef MCP_SCHEMA_COMPILER_H
#define MCP_SCHEMA_COMPILER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "schema/internal.h"

/* The base URI, resource and dialect of one subschema (found by indexing). */
typedef struct mcp__info {
  const char *base; /* base URI without fragment */
  mcp__resource *res;
  mcp__dialect d;
} mcp__info;

/* One compile: owned by mcp_schema_compile, borrowed by everything else. */
typedef struct mcp__cctx {
  mcp_schema_t *s;
  /* What only compile needs (subschema infos, map keys, the JSON Pointers of
   * error messages) lives here and is released when compile returns; what
   * the compiled schema keeps goes to its own arena. */
  mcp__arena scratch;
  const mcp_schema_options_t *opt;
  mcp_error_t *err;
  mcp__map resources; /* uri (no fragment) -> json_t* */
  mcp__map anchors;   /* "uri#name" -> json_t* */
  mcp__map infos;     /* json_t* -> mcp__info* */
  mcp__map nodes;     /* json_t* -> mcp__node* */
  mcp__map res_objs;  /* uri -> mcp__resource* */
  mcp__resource **reslist;
  size_t nres, capres;
  unsigned depth;
  unsigned max_depth;
  bool failed;
} mcp__cctx;

/* The operations of the node being compiled (malloc'd; the driver copies
 * them into the arena and frees items). */
typedef struct mcp__kwlist {
  mcp__kw *items;
  size_t count, cap;
} mcp__kwlist;

/* Where a keyword row is applied. Strings are scratch. */
typedef struct mcp__kwsite {
  mcp__node *node;   /* the node being compiled */
  json_t *schema;    /* its schema object */
  json_t *value;     /* the row's keyword's value; NULL when only a sibling is
                        present */
  const char *where; /* JSON Pointer of the schema object */
  const char *kp;    /* JSON Pointer of the row's keyword (also when only a
                        sibling is present) */
  const mcp__info *inf;
  const struct mcp__keyword *row; /* the row being compiled */
  bool d7;                        /* draft-07 */
} mcp__kwsite;

typedef enum mcp__kwres {
  MCP__KW_FAILED = 0, /* recorded in the context */
  MCP__KW_NEXT,       /* go on with the next row */
  MCP__KW_LAST, /* the node's other keywords are ignored (draft-07 $ref) */
} mcp__kwres;

typedef mcp__kwres (*mcp__kw_compile_fn)(mcp__cctx *c, mcp__kwlist *l,
                                         const mcp__kwsite *site);

enum {
  MCP__KWF_NOT_D7 = 1u << 0, /* not a keyword of draft-07 */
};

/* keyword name -> compile function. compile NULL: an annotation, known and
 * compiled to nothing. */
typedef struct mcp__keyword {
  const char *name;
  mcp__kw_compile_fn compile;
  unsigned flags;              /* MCP__KWF_* */
  const char *const *siblings; /* NULL-terminated: compile runs when any of
                                  these is present too (the row's keyword
                                  may then be absent) */
  int op; /* the operation, for compile functions that serve several rows */
} mcp__keyword;

/* One vocabulary: its name under
 * https://json-schema.org/draft/2020-12/vocab/, the dialect bit that
 * switches it on (0: always read, see format.c) and its keywords, in the
 * order they are compiled. */
typedef struct mcp__vocabulary {
  const char *name;
  unsigned bit;  /* MCP__V_*: what $vocabulary sets */
  unsigned gate; /* dialect bits of which one must be set; 0: always */
  const mcp__keyword *keywords;
  size_t nkeywords;
} mcp__vocabulary;

/* vocab/<name>.c */
extern const mcp__vocabulary mcp__vocab_core, mcp__vocab_applicator,
    mcp__vocab_unevaluated, mcp__vocab_validation, mcp__vocab_metadata,
    mcp__vocab_format_annotation, mcp__vocab_format_assertion,
    mcp__vocab_content;

/* ---- compile.c ---------------------------------------------------------- */

/* Records the first failure (MCP_ERR_SCHEMA at the JSON Pointer where);
 * false. */
bool mcp__compile_fail(mcp__cctx *c, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Records out of memory; false. */
bool mcp__compile_oom(mcp__cctx *c);
/* Zeroed memory / a copy of s in the compiled schema's arena (NULL: oom
 * recorded). */
void *mcp__compile_alloc(mcp__cctx *c, size_t n);
char *mcp__compile_strdup(mcp__cctx *c, const char *s);
/* Keeps a reference to doc for the schema's lifetime. */
bool mcp__compile_keep(mcp__cctx *c, json_t *doc);
/* The node of the subschema js at JSON Pointer where (memoized). */
mcp__node *mcp__compile_node(mcp__cctx *c, json_t *js, const char *where);
/* Resolves ref against base to an indexed subschema; *frag_out (scratch),
 * when asked for, receives its fragment or NULL. */
json_t *mcp__compile_ref(mcp__cctx *c, const char *base, const char *ref,
                         const char *where, const char **frag_out);

/* ---- compile_operands.c ------------------------------------------------- */

/* Appends an operation (zeroed operands) to l. */
mcp__kw *mcp__compile_add(mcp__cctx *c, mcp__kwlist *l, mcp__op op,
                          unsigned tmask, const char *loc);
/* "<where>/<seg>" (scratch) for error pointers. */
char *mcp__compile_path(mcp__cctx *c, const char *where, const char *seg);
/* "<kw>/<escaped name>", a location the compiled schema keeps. */
char *mcp__compile_loc(mcp__cctx *c, const char *kw, const char *name);
/* A non-negative integer (an integral real too). */
bool mcp__compile_count(mcp__cctx *c, json_t *v, const char *where,
                        const char *kw, size_t *out);
/* The node of the subschema v under keyword kw of the schema at where. */
mcp__node *mcp__compile_child(mcp__cctx *c, json_t *v, const char *where,
                              const char *kw);
/* The nodes of a non-empty array of schemas; *locs_out (optional) gets
 * "kw/<i>" locations. */
mcp__node **mcp__compile_array(mcp__cctx *c, json_t *arr, const char *where,
                               const char *kw, const char ***locs_out,
                               size_t *count);
/* A property table of object obj (schemas: compile its values). */
bool mcp__compile_ptable(mcp__cctx *c, mcp__ptable *t, json_t *obj,
                         const char *where, const char *kw, bool schemas);
/* An array of strings, copied into the arena. */
bool mcp__compile_strings(mcp__cctx *c, json_t *arr, const char *where,
                          const char *kw, const char ***names, size_t **lens,
                          size_t *count);
/* k->u.depreq from an object of string arrays. */
bool mcp__compile_dep_required(mcp__cctx *c, mcp__kw *k, json_t *obj,
                               const char *where, const char *kw);
/* A regex of the schema (freed with it). */
mcp__regex *mcp__compile_regex(mcp__cctx *c, json_t *v, const char *where);

#endif
