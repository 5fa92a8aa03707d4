/* core — line-buffered stdout for C ranks of ncore's launcher. A rank's
 * stdout is a pipe to the launcher, which C's stdio buffers in blocks: a
 * rank's printf would reach the terminal only when the rank exits. The
 * launcher sets NCORE_LINE_BUFFERED=1 for its ranks, and a program that
 * links libncore switches its stdout to line buffering when the library is
 * loaded, before main prints anything (setvbuf must precede all output).
 * Python ranks get PYTHONUNBUFFERED=1 instead; other programs can use
 * stdbuf -oL (README, "Beyond one machine"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((constructor)) static void core_stdio_lines(void) {
  const char *asked = getenv("NCORE_LINE_BUFFERED");
  if (asked != NULL && strcmp(asked, "1") == 0) setvbuf(stdout, NULL, _IOLBF, 0);
}
