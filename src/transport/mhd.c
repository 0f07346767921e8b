/* SPDX-License-Identifier: MIT */
/* mhd.c - loads libmicrohttpd on first use (see mhd.h for why). */
#define MCP__MHD_NO_REDIRECT
#include "transport/mhd.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef MCP_MHD_SONAME
#define MCP_MHD_SONAME "libmicrohttpd.so.12"
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static mcp__mhd_api api;           /* written once under `once` */
static const mcp__mhd_api *loaded; /* &api after a complete load, else NULL */
static char why[256];

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
  pthread_once(&once, load);
  return loaded;
}

mcp_status mcp__mhd_require(mcp_error_t *err) {
  if (mcp__mhd() != NULL)
    return MCP_OK;
  return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                       "Streamable HTTP needs libmicrohttpd: %s", why);
}
