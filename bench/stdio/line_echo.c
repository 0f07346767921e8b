/* SPDX-License-Identifier: MIT */
/* line_echo.c - baseline for the stdio benchmark: echoes each stdin line to
 * stdout, flushing after every line. What any stdio server must at least
 * spend on I/O. */
#include <stdio.h>

int main(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, stdin)) > 0) {
    fwrite(line, 1, (size_t)n, stdout);
    fflush(stdout);
  }
  return 0;
}
