/* cmd_inspect.c - placeholder replaced below */
#include "commands.h"
int mcpc_cmd_inspect(mcpc_ctx *ctx, int argc, char **argv) {
  return 2;
}
