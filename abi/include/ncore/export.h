/* ncore — export and calling-convention macros shared by every public header.
 *
 * NCORE_API marks a function as part of the exported ABI. The library is built
 * with -fvisibility=hidden, so nothing else leaves libncore.so; abi/ncore.map
 * additionally versions every exported symbol (NCORE_1.0, ...).
 * SWIG cannot parse GCC attributes, so the macro is empty under SWIG. */
#ifndef NCORE_EXPORT_H
#define NCORE_EXPORT_H

#if defined(SWIG)
#define NCORE_API
#elif defined(__GNUC__) || defined(__clang__)
#define NCORE_API __attribute__((visibility("default")))
#else
#define NCORE_API
#endif

#ifdef __cplusplus
#define NCORE_BEGIN_DECLS extern "C" {
#define NCORE_END_DECLS }
#else
#define NCORE_BEGIN_DECLS
#define NCORE_END_DECLS
#endif

#endif /* NCORE_EXPORT_H */
