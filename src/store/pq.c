/* SPDX-License-Identifier: MIT */
/* pq.c - loads libpq on first use (see pq.h for why). */
#define MCP__PQ_NO_REDIRECT
#include "store/pq.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MCP_PQ_SONAME
#define MCP_PQ_SONAME "libpq.so.5"
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static mcp__pq_api api;           /* written once under `once` */
static const mcp__pq_api *loaded; /* &api after a complete load, else NULL */
static char why[256];

static void load(void) {
  /* MCP_PQ_LIBRARY names another file to load (tests use it to check the
   * error when libpq is missing). */
  const char *name = getenv("MCP_PQ_LIBRARY");
  if (name == NULL || name[0] == '\0')
    name = MCP_PQ_SONAME;
  void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    snprintf(why, sizeof why, "cannot load %s (install libpq5): %s", name,
             dlerror());
    return;
  }
  /* dlsym returns void *; POSIX guarantees it converts to a function
   * pointer, the memcpy keeps -Wpedantic quiet about it. */
#define MCP__PQ_LOAD(fn)                                                       \
  {                                                                            \
    void *sym = dlsym(lib, #fn);                                               \
    if (sym == NULL) {                                                         \
      snprintf(why, sizeof why, "%s lacks %s (libpq 14 or later needed)",      \
               name, #fn);                                                     \
      return;                                                                  \
    }                                                                          \
    memcpy(&api.fn, &sym, sizeof sym);                                         \
  }
  MCP__PQ_FUNCTIONS(MCP__PQ_LOAD)
#undef MCP__PQ_LOAD
  /* The library stays loaded for the life of the process: pools may live
   * until exit and nothing unloads it. */
  loaded = &api;
}

const mcp__pq_api *mcp__pq(void) {
  pthread_once(&once, load);
  return loaded;
}

mcp_status mcp__pq_require(mcp_error_t *err) {
  if (mcp__pq() != NULL)
    return MCP_OK;
  return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                       "PostgreSQL stores need libpq: %s", why);
}
