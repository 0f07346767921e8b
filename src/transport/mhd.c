/* SPDX-License-Identifier: MIT */
/* mhd.c - picks the HTTP engine of the process: libmicrohttpd, loaded on
 * first use (see mhd.h for why), or the own engine (http_engine.h). */
#define MCP__MHD_NO_REDIRECT
#include "transport/mhd.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcp/http.h"
#include "transport/http_engine.h"

#ifndef MCP_MHD_SONAME
#define MCP_MHD_SONAME "libmicrohttpd.so.12"
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static mcp__mhd_api api;           /* written once under `once` */
static const mcp__mhd_api *loaded; /* &api after a complete load, else NULL */
static char why[256];

/* The engine of the process: chosen when the first HTTP server starts and
 * never changed afterwards (the one-time-initialization exception to "no
 * global state", like the table above). */
static pthread_mutex_t pick_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(const mcp__mhd_api *) current;
static int current_engine; /* under pick_lock */

static void load(void) {
  void *lib = dlopen(MCP_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    lib = dlopen("libmicrohttpd.so", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    snprintf(why, sizeof why, "cannot load %s: %s", MCP_MHD_SONAME, dlerror());
    return;
  }
  /* dlsym returns void *; POSIX guarantees it converts to a function
   * pointer, the memcpy keeps -Wpedantic quiet about it. */
#define MCP__MHD_LOAD(name)                                                    \
  {                                                                            \
    void *sym = dlsym(lib, #name);                                             \
    if (sym == NULL) {                                                         \
      snprintf(why, sizeof why, "%s lacks %s", MCP_MHD_SONAME, #name);         \
      return;                                                                  \
    }                                                                          \
    memcpy(&api.name, &sym, sizeof sym);                                       \
  }
  MCP__MHD_FUNCTIONS(MCP__MHD_LOAD)
#undef MCP__MHD_LOAD
  /* The library stays loaded for the life of the process: daemons may run
   * until exit and nothing unloads it. */
  loaded = &api;
}

const mcp__mhd_api *mcp__mhd(void) {
  return atomic_load_explicit(&current, memory_order_acquire);
}

bool mcp__mhd_is_own_engine(void) {
  return mcp__mhd() == mcp__engine_api();
}

static int resolve(int engine) {
  if (engine != MCP_HTTP_ENGINE_DEFAULT)
    return engine;
  const char *env = getenv("MCP_HTTP_ENGINE");
  if (env && strcasecmp(env, "libmicrohttpd") == 0)
    return MCP_HTTP_ENGINE_LIBMICROHTTPD;
  return MCP_HTTP_ENGINE_OWN;
}

static const char *engine_name(int engine) {
  return engine == MCP_HTTP_ENGINE_OWN ? "own" : "libmicrohttpd";
}

mcp_status mcp__mhd_require(int engine, mcp_error_t *err) {
  engine = resolve(engine);
  mcp_status st = MCP_OK;
  pthread_mutex_lock(&pick_lock);
  if (current_engine != 0 && current_engine != engine) {
    st = mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                       "this process serves HTTP with the %s engine; one "
                       "engine per process",
                       engine_name(current_engine));
  } else if (current_engine == 0) {
    const mcp__mhd_api *t = NULL;
    if (engine == MCP_HTTP_ENGINE_OWN) {
      t = mcp__engine_api();
    } else {
      pthread_once(&once, load);
      t = loaded;
    }
    if (t == NULL) {
      st = mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "Streamable HTTP needs libmicrohttpd: %s", why);
    } else {
      current_engine = engine;
      atomic_store_explicit(&current, t, memory_order_release);
    }
  }
  pthread_mutex_unlock(&pick_lock);
  return st;
}
