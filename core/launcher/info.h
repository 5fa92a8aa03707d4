/* core/launcher — `ncore-run --info` (also `python -m ncore`): what this
 * ncore is and can do, in one line, from ncore_library_info. */
#ifndef NCORE_LAUNCHER_INFO_H
#define NCORE_LAUNCHER_INFO_H

#include <stdio.h>

/* Writes to `to` one line: the version and ABI, the backend AUTO picks
 * here and why, the libnccl loaded (version and file) or why none was,
 * and the CUDA devices NCCL sees. Returns 0, or 1 after saying on stderr
 * why the library could not be described. */
int launcher_print_info(FILE *to);

#endif
