/* core — a rank's stdout line by line. Under a launcher a rank's stdout is
 * a pipe, a socket or a file that the launcher forwards or a person
 * follows, and C's stdio buffers those in blocks: a rank's printf would
 * reach the terminal only when the rank exits (as under MPICH's Hydra,
 * srun and torchrun it did). So when the library is loaded (before main
 * prints anything: setvbuf must precede all output) stdout becomes line
 * buffered when NCORE_LINE_BUFFERED=1, or, with NCORE_LINE_BUFFERED unset,
 * when a launcher started this process (core_launch_started_by: the same
 * variables ncore_comm_init_from_env reads) and stdout is no terminal
 * (which stdio line-buffers already). NCORE_LINE_BUFFERED=0 leaves stdout
 * as stdio made it. ncore-run sets NCORE_LINE_BUFFERED=1 for its ranks.
 * stderr is unbuffered anyway; Python's own sys.stdout follows this choice
 * (bindings/python/ncore/_stdio_lines.py); Rust's stdout is line-buffered
 * and Go's unbuffered by themselves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"

/* 1 when stdout is to be line-buffered (the rule above). */
static int lines_wanted(void) {
  const char *asked = getenv("NCORE_LINE_BUFFERED");
  if (asked != NULL && asked[0] != '\0') return strcmp(asked, "1") == 0;
  return core_launch_started_by() != NULL && !isatty(STDOUT_FILENO);
}

__attribute__((constructor)) static void core_stdio_lines(void) {
  if (lines_wanted()) setvbuf(stdout, NULL, _IOLBF, 0);
}
