# The library's sources and the flags they are compiled with: BUILD's
# ncore_core loads them, and the builds of the library outside Bazel (the
# fuzzers' and ThreadSanitizer's, with clang: tests/fuzz/build.sh,
# tests/race/run.sh through tools/library-objects.sh) read the same lists,
# so no build of the library compiles other files or with other warnings
# and defines. Plain lists of strings (tools/library-objects.sh reads them
# with Python's ast).

# Every file of the library is in core/, but the headers of kernels/ that
# the kernels and the NCCL backend share (what each kernel takes, the
# memory both read) (tools/include-cycles.py checks BUILD keeps it so).
# core/launcher/ is not the library but the launcher, a program of its own
# with its own BUILD: the single-level globs below leave it out.
LIBRARY_SOURCES = [
    "core/*.c",
    "core/host/*.c",
    "core/nccl/*.c",
]

LIBRARY_HEADERS = [
    "core/*.h",
    "core/host/*.h",
    "core/nccl/*.h",
    "kernels/*.h",
]

LIBRARY_COPTS = [
    "-fvisibility=hidden",
    "-D_GNU_SOURCE",
    "-Wall",
    "-Wextra",
    "-Werror=missing-prototypes",
    "-Werror=strict-prototypes",
    "-O2",
    "-g",
    "-fPIC",
    "-Icore",
]
