/* ncore.i — the raw Python layer over the C ABI (abi/include/ncore.h).
 *
 * Deliberately thin: it includes the public headers and only changes how
 * values cross the boundary:
 *   - out-parameters become return values (a tuple when there are several);
 *   - a status other than NCORE_OK raises, from one %exception block, an
 *     exception carrying (status, message), the message read from
 *     ncore_last_error_message() right after the failing call on the same
 *     thread. The class raised is error_classes[status] when the package has
 *     registered one there, else NcoreError;
 *   - handles (uint64_t) are Python ints; pointers, streams and buffers are
 *     integer addresses (uintptr_t), None meaning NULL; the unique id is bytes;
 *   - every integer is checked against its C type (ncore_py_integer): one
 *     that does not fit raises the invalid-argument error naming it;
 *   - a DLPack capsule (or a DLTensor address) is accepted where the C API
 *     takes a DLTensor *.
 * Everything Pythonic lives in the plain-Python package `ncore`. */

%module(package="ncore") _ncore

%{
#define SWIG_FILE_WITH_INIT
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ncore.h>

/* The exception every failing call raises unless the package registered a
 * more specific class for the status in ncore_py_error_classes. */
static PyObject *ncore_py_error = NULL;
/* status (int) -> exception class; filled by ncore/_errors.py. */
static PyObject *ncore_py_error_classes = NULL;

/* Raises the exception of `status` with `message`: the class the package
 * registered for the status, else NcoreError. */
static void ncore_py_raise_message(ncore_status_t status, const char *message) {
  PyObject *cls = NULL;
  PyObject *key = PyLong_FromLong((long)status);
  if (key != NULL && ncore_py_error_classes != NULL) {
    cls = PyDict_GetItem(ncore_py_error_classes, key); /* borrowed */
  }
  Py_XDECREF(key);
  if (cls == NULL) cls = ncore_py_error;
  PyObject *args = Py_BuildValue("(is)", (int)status,
                                 message != NULL ? message : "");
  if (args != NULL) {
    PyErr_SetObject(cls, args);
    Py_DECREF(args);
  }
}

/* Raises the exception for a failed call. Reads the thread-local status and
 * message at once, before any other ncore call can overwrite them. */
static void ncore_py_raise(ncore_status_t status) {
  ncore_py_raise_message(status, ncore_last_error_message());
}

/* Reads a Python integer (an int, or anything with __index__) for the C
 * integer type `ctype`, whose values are [min, max] (min 0 for the unsigned
 * types), into *out as the type's bits. The one conversion of every integer
 * argument, array element and struct field: a value the C type cannot hold
 * raises the package's invalid-argument error naming the function and the
 * argument as the library names a bad argument ("ncore_broadcast: root:
 * 1099511627776 does not fit C's int [-2147483648, 2147483647]"), never
 * truncates or wraps (SWIG's own conversions raise an OverflowError naming
 * an argument number; a cast would silently make 2**32 + 1 ranks one rank);
 * anything else raises TypeError naming the argument.
 * Returns 0, or -1 with the exception set. */
static int ncore_py_integer(PyObject *obj, const char *function,
                            const char *argument, const char *ctype,
                            long long min, unsigned long long max,
                            unsigned long long *out) {
  PyObject *index = PyNumber_Index(obj);
  if (index == NULL) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: %s: expected an int, got %s", function,
                 argument, Py_TYPE(obj)->tp_name);
    return -1;
  }
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(index, &overflow);
  int fits = 0;
  if (value == -1 && PyErr_Occurred()) {
    Py_DECREF(index);
    return -1;
  }
  if (overflow == 0) {
    fits = value < 0 ? value >= min : (unsigned long long)value <= max;
    *out = (unsigned long long)value;
  } else if (overflow > 0 && max > (unsigned long long)LLONG_MAX) {
    /* Above LLONG_MAX: only a 64-bit unsigned type holds it. */
    *out = PyLong_AsUnsignedLongLong(index);
    fits = !(*out == (unsigned long long)-1 && PyErr_Occurred());
    PyErr_Clear();
  }
  if (!fits) {
    PyObject *text = PyObject_Str(index);
    const char *digits = text != NULL ? PyUnicode_AsUTF8(text) : NULL;
    char where[192], message[320];
    size_t length = strlen(function), field = strlen(argument);
    if (digits == NULL) digits = "the value";
    /* SWIG names a struct field's setter STRUCT_FIELD_set: name the field as
     * the user wrote it, "ncore_comm_config_t.timeout_ms". */
    if (length > field + 5 && strcmp(function + length - 4, "_set") == 0 &&
        strncmp(function + length - 4 - field, argument, field) == 0 &&
        function[length - 5 - field] == '_') {
      snprintf(where, sizeof where, "%.*s.%s", (int)(length - 5 - field), function,
               argument);
    } else {
      snprintf(where, sizeof where, "%s: %s", function, argument);
    }
    if (min == 0 && (overflow < 0 || (overflow == 0 && value < 0))) {
      snprintf(message, sizeof message, "%s: %s is negative (C takes a %s)", where,
               digits, ctype);
    } else {
      snprintf(message, sizeof message, "%s: %s does not fit C's %s [%lld, %llu]",
               where, digits, ctype, min, max);
    }
    PyErr_Clear();
    ncore_py_raise_message(NCORE_ERR_INVALID_ARGUMENT, message);
    Py_XDECREF(text);
  }
  Py_DECREF(index);
  return fits ? 0 : -1;
}

/* Converts a Python int (or None = 0) to an address (ncore_py_integer's
 * rules, naming function and argument). Returns 0 on success, -1 with the
 * exception set. */
static int ncore_py_address(PyObject *obj, const char *function,
                            const char *argument, uintptr_t *out) {
  if (obj == Py_None) {
    *out = 0;
    return 0;
  }
  unsigned long long value = 0;
  if (ncore_py_integer(obj, function, argument, "uintptr_t", 0, UINTPTR_MAX,
                       &value) != 0) return -1;
  *out = (uintptr_t)value;
  return 0;
}

/* Reads a Python sequence of integers of the C type `ctype` ([min, max])
 * into a fresh malloc'd array (at least one element allocated, so an empty
 * sequence still gives a pointer), each element by ncore_py_integer and
 * named "argument[i]"; helper for the array typemaps. */
static int ncore_py_int_array(PyObject *seq, const char *function,
                              const char *argument, const char *ctype,
                              long long min, long long max, int64_t **out,
                              Py_ssize_t *count) {
  char what[128];
  snprintf(what, sizeof what, "%s: %s: expected a sequence of ints", function,
           argument);
  PyObject *fast = PySequence_Fast(seq, what);
  if (fast == NULL) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  int64_t *values = (int64_t *)calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
  if (values == NULL) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    char element[96];
    unsigned long long bits = 0;
    snprintf(element, sizeof element, "%s[%zd]", argument, i);
    if (ncore_py_integer(PySequence_Fast_GET_ITEM(fast, i), function, element,
                         ctype, min, (unsigned long long)max, &bits) != 0) {
      free(values);
      Py_DECREF(fast);
      return -1;
    }
    values[i] = (int64_t)bits;
  }
  Py_DECREF(fast);
  *out = values;
  *count = n;
  return 0;
}

/* DLPack >= 1.0 capsules ("dltensor_versioned") hold this struct; its
 * DLTensor follows a version, the manager context, the deleter and flags.
 * Declared here because the installed dlpack.h (0.6) predates it; the layout
 * is fixed by the DLPack ABI. */
typedef struct ncore_py_dlpack_versioned {
  uint32_t major, minor;
  void *manager_ctx;
  void (*deleter)(void *);
  uint64_t flags;
  /* struct DLTensor dl_tensor follows */
} ncore_py_dlpack_versioned_t;

/* Finds the DLTensor of a DLPack capsule without consuming it: the capsule
 * keeps its name, so its destructor still releases the tensor, and the
 * producer's array (held by the caller) keeps the data alive. An int is
 * taken as the address of a DLTensor. */
static int ncore_py_dltensor(PyObject *obj, const char *function,
                             const struct DLTensor **out) {
  if (PyCapsule_CheckExact(obj)) {
    const char *name = PyCapsule_GetName(obj);
    if (name != NULL && strcmp(name, "dltensor") == 0) {
      /* DLManagedTensor starts with its DLTensor. */
      *out = (const struct DLTensor *)PyCapsule_GetPointer(obj, "dltensor");
      return *out != NULL ? 0 : -1;
    }
    if (name != NULL && strcmp(name, "dltensor_versioned") == 0) {
      char *managed = (char *)PyCapsule_GetPointer(obj, "dltensor_versioned");
      if (managed == NULL) return -1;
      *out = (const struct DLTensor *)(managed +
                                       sizeof(ncore_py_dlpack_versioned_t));
      return 0;
    }
    PyErr_Format(PyExc_ValueError,
                 "expected a live DLPack capsule, got one named '%s'",
                 name != NULL ? name : "(null)");
    return -1;
  }
  uintptr_t address;
  if (ncore_py_address(obj, function, "tensor", &address) != 0) return -1;
  *out = (const struct DLTensor *)address;
  return 0;
}
%}

%init %{
  ncore_py_error = PyErr_NewException("ncore._ncore.NcoreError", NULL, NULL);
  ncore_py_error_classes = PyDict_New();
  if (ncore_py_error != NULL && ncore_py_error_classes != NULL) {
    Py_INCREF(ncore_py_error);
    PyModule_AddObject(m, "NcoreError", ncore_py_error);
    Py_INCREF(ncore_py_error_classes);
    PyModule_AddObject(m, "error_classes", ncore_py_error_classes);
  }
%}

%pythoncode %{
# The exception (and the status -> class map) created by the C module.
NcoreError = _ncore_c.NcoreError
error_classes = _ncore_c.error_classes
%}

/* ---- errors ---- */

/* Every wrapped call runs without the GIL, so a call that blocks on its peers
 * (init, collectives, wait_signal) lets other Python threads run, e.g. one
 * that calls ncore_comm_abort to unblock it. The thread-local error is read
 * after the GIL is back: it is the same OS thread. */
%exception {
  Py_BEGIN_ALLOW_THREADS
  $action
  Py_END_ALLOW_THREADS
}

/* The one place a status becomes an exception: an error status raises
 * (status, message); a successful call returns its out-values, or None when
 * it has none. NCORE_IN_PROGRESS is a success, as in nccl.core: a call on a
 * non-blocking communicator was accepted and still runs (poll
 * get_async_error, or just make the next call: it waits for it), and a
 * communicator made with it is still initialising (its handle is returned).
 * Only functions that return ncore_status_t match; the few that cannot fail
 * return their result directly. */
%typemap(out) ncore_status_t {
  if ($1 != NCORE_OK && $1 != NCORE_IN_PROGRESS) {
    ncore_py_raise($1);
    SWIG_fail;
  }
  $result = Py_None;
  Py_INCREF(Py_None);
}
/* ncore_last_error_status returns a status as its value. */
%typemap(out) ncore_status_t ncore_last_error_status {
  $result = PyLong_FromLong((long)$1);
}

/* Appends an out-value to $result (None -> value -> tuple of values). */
%define NCORE_APPEND_RESULT(value)
  $result = SWIG_Python_AppendOutput($result, value);
%enddef

/* ---- scalar out-parameters ---- */

%define NCORE_OUT_INT(TYPE, NAME)
%typemap(in, numinputs=0) TYPE *NAME (TYPE temp) {
  memset(&temp, 0, sizeof(temp));
  $1 = &temp;
}
%typemap(argout) TYPE *NAME {
  NCORE_APPEND_RESULT(PyLong_FromLongLong((long long)*$1))
}
%enddef

%define NCORE_OUT_UINT(TYPE, NAME)
%typemap(in, numinputs=0) TYPE *NAME (TYPE temp) {
  memset(&temp, 0, sizeof(temp));
  $1 = &temp;
}
%typemap(argout) TYPE *NAME {
  NCORE_APPEND_RESULT(PyLong_FromUnsignedLongLong((unsigned long long)*$1))
}
%enddef

NCORE_OUT_INT(int, out)
NCORE_OUT_INT(ncore_backend_t, out)
NCORE_OUT_INT(ncore_gin_type_t, out)
NCORE_OUT_INT(ncore_status_t, out)
NCORE_OUT_INT(ncore_redop_t, out)
NCORE_OUT_INT(ncore_dtype_t, out)
NCORE_OUT_UINT(size_t, out)
NCORE_OUT_UINT(uint32_t, out)
NCORE_OUT_UINT(uintptr_t, out)
NCORE_OUT_UINT(uint64_t, out)
/* Handles: every handle type is a uint64_t. */
NCORE_OUT_UINT(ncore_comm_t, out)
NCORE_OUT_UINT(ncore_registered_buffer_t, out)
NCORE_OUT_UINT(ncore_window_t, out)
NCORE_OUT_UINT(ncore_custom_redop_t, out)
NCORE_OUT_UINT(ncore_dev_comm_t, out)
NCORE_OUT_UINT(ncore_symmetric_t, out)

/* Pointers come back as integer addresses (0 = NULL). */
%typemap(in, numinputs=0) void **out (void *temp = NULL) { $1 = &temp; }
%typemap(argout) void **out {
  NCORE_APPEND_RESULT(PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)*$1))
}
%typemap(in, numinputs=0) ncore_stream_t *out (ncore_stream_t temp = NULL) {
  $1 = &temp;
}
%typemap(argout) ncore_stream_t *out {
  NCORE_APPEND_RESULT(PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)*$1))
}

/* Static strings (ncore_dtype_name). */
%typemap(in, numinputs=0) const char **out (const char *temp = NULL) {
  $1 = ($1_ltype)&temp;
}
%typemap(argout) const char **out {
  NCORE_APPEND_RESULT(PyUnicode_FromString(*$1 != NULL ? *$1 : ""))
}

/* ---- integers: handles, addresses, counts, ranks, enums ---- */

/* Every integer parameter and struct field is read by ncore_py_integer for
 * its C type's range, so a value that does not fit is refused naming the
 * function and the parameter (never truncated); handles (uint64_t) and
 * addresses are Python ints too, None meaning NULL for an address. */
%define NCORE_IN_INTEGER(TYPE, MIN, MAX)
%typemap(in) TYPE {
  unsigned long long value = 0;
  if (ncore_py_integer($input, "$symname", "$1_name", "$1_type", MIN, MAX,
                       &value) != 0) SWIG_fail;
  $1 = ($1_ltype)value;
}
%enddef
NCORE_IN_INTEGER(int, INT_MIN, INT_MAX)
NCORE_IN_INTEGER(int32_t, INT32_MIN, INT32_MAX)
NCORE_IN_INTEGER(uint32_t, 0, UINT32_MAX)
NCORE_IN_INTEGER(uint16_t, 0, UINT16_MAX)
NCORE_IN_INTEGER(uint8_t, 0, UINT8_MAX)
NCORE_IN_INTEGER(size_t, 0, SIZE_MAX)
/* The ABI's enums are ints. */
NCORE_IN_INTEGER(enum SWIGTYPE, INT_MIN, INT_MAX)

%define NCORE_IN_U64(TYPE)
NCORE_IN_INTEGER(TYPE, 0, UINT64_MAX)
%typemap(typecheck) TYPE = unsigned long long;
%enddef
NCORE_IN_U64(uint64_t)
NCORE_IN_U64(ncore_comm_t)
NCORE_IN_U64(ncore_registered_buffer_t)
NCORE_IN_U64(ncore_window_t)
NCORE_IN_U64(ncore_custom_redop_t)
NCORE_IN_U64(ncore_dev_comm_t)
NCORE_IN_U64(ncore_symmetric_t)

%define NCORE_IN_ADDRESS(TYPE)
%typemap(in) TYPE {
  uintptr_t address;
  if (ncore_py_address($input, "$symname", "$1_name", &address) != 0) SWIG_fail;
  $1 = ($1_ltype)address;
}
%enddef
NCORE_IN_ADDRESS(void *)
NCORE_IN_ADDRESS(const void *)
NCORE_IN_ADDRESS(ncore_stream_t)
NCORE_IN_ADDRESS(uintptr_t)

/* ---- the unique id as 128 bytes ---- */

%typemap(in, numinputs=0) ncore_unique_id_t *out (ncore_unique_id_t temp) {
  memset(&temp, 0, sizeof(temp));
  $1 = &temp;
}
%typemap(argout) ncore_unique_id_t *out {
  NCORE_APPEND_RESULT(PyBytes_FromStringAndSize($1->internal, NCORE_UNIQUE_ID_BYTES))
}
%typemap(in) const ncore_unique_id_t *id (ncore_unique_id_t temp) {
  char *data = NULL;
  Py_ssize_t length = 0;
  if ($input == Py_None) { /* NULL: the library names the argument */
    $1 = NULL;
  } else if (!PyBytes_Check($input) ||
      PyBytes_AsStringAndSize($input, &data, &length) != 0 ||
      length != NCORE_UNIQUE_ID_BYTES) {
    PyErr_Format(PyExc_ValueError, "id: expected %d bytes",
                 NCORE_UNIQUE_ID_BYTES);
    SWIG_fail;
  } else {
    memcpy(temp.internal, data, NCORE_UNIQUE_ID_BYTES);
    $1 = &temp;
  }
}

/* ---- arrays ---- */

/* ncore_comm_init_rank_scalable: a list of ids, each 128 bytes. */
%typemap(in) (int id_count, const ncore_unique_id_t *ids) {
  Py_ssize_t n = PySequence_Check($input) ? PySequence_Size($input) : -1;
  if (n < 0) {
    PyErr_SetString(PyExc_TypeError, "ids: expected a sequence of ids");
    SWIG_fail;
  }
  $1 = (int)n;
  $2 = (ncore_unique_id_t *)calloc((size_t)(n > 0 ? n : 1), sizeof(ncore_unique_id_t));
  if ($2 == NULL) { PyErr_NoMemory(); SWIG_fail; }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = PySequence_GetItem($input, i);
    char *data = NULL;
    Py_ssize_t length = 0;
    int ok = item != NULL && PyBytes_Check(item) &&
             PyBytes_AsStringAndSize(item, &data, &length) == 0 &&
             length == NCORE_UNIQUE_ID_BYTES;
    if (ok) memcpy($2[i].internal, data, NCORE_UNIQUE_ID_BYTES);
    Py_XDECREF(item);
    if (!ok) {
      PyErr_Format(PyExc_ValueError, "ids: ids[%zd]: expected %d bytes", i,
                   NCORE_UNIQUE_ID_BYTES);
      SWIG_fail;
    }
  }
}
%typemap(freearg) (int id_count, const ncore_unique_id_t *ids) { free((void *)$2); }

/* ncore_comm_init_all: pass ndev, get back a list of ndev handles. */
%typemap(in) (ncore_comm_t *comms, int ndev) {
  unsigned long long bits = 0;
  if (ncore_py_integer($input, "$symname", "ndev", "int", INT_MIN, INT_MAX,
                       &bits) != 0) SWIG_fail;
  int ndev = (int)bits;
  $2 = ndev;
  $1 = (ncore_comm_t *)calloc((size_t)(ndev > 0 ? ndev : 1), sizeof(ncore_comm_t));
  if ($1 == NULL) { PyErr_NoMemory(); SWIG_fail; }
}
%typemap(argout) (ncore_comm_t *comms, int ndev) {
  PyObject *list = PyList_New($2 > 0 ? $2 : 0);
  for (int i = 0; list != NULL && i < $2; i++) {
    PyList_SET_ITEM(list, i, PyLong_FromUnsignedLongLong($1[i]));
  }
  NCORE_APPEND_RESULT(list)
}
%typemap(freearg) (ncore_comm_t *comms, int ndev) { free($1); }

/* int lists: devlist (None = NULL), exclude_ranks + count. */
%typemap(in) const int *devlist (int64_t *values = NULL, Py_ssize_t n = 0) {
  $1 = NULL;
  if ($input != Py_None) {
    if (ncore_py_int_array($input, "$symname", "devlist", "int", INT_MIN,
                           INT_MAX, &values, &n) != 0) SWIG_fail;
    int *ints = (int *)calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    if (ints == NULL) { PyErr_NoMemory(); SWIG_fail; }
    for (Py_ssize_t i = 0; i < n; i++) ints[i] = (int)values[i];
    $1 = ints;
  }
}
%typemap(freearg) const int *devlist { free((void *)$1); free(values$argnum); }

%typemap(in) (const int *exclude_ranks, int exclude_count)
    (int64_t *values = NULL, Py_ssize_t n = 0) {
  if (ncore_py_int_array($input, "$symname", "exclude_ranks", "int", INT_MIN,
                         INT_MAX, &values, &n) != 0) SWIG_fail;
  int *ints = (int *)calloc((size_t)(n > 0 ? n : 1), sizeof(int));
  if (ints == NULL) { PyErr_NoMemory(); SWIG_fail; }
  for (Py_ssize_t i = 0; i < n; i++) ints[i] = (int)values[i];
  $1 = n > 0 ? ints : NULL;
  $2 = (int)n;
  if ($1 == NULL) free(ints);
}
%typemap(freearg) (const int *exclude_ranks, int exclude_count) {
  free((void *)$1);
  free(values$argnum);
}

/* Array-interface shape (the length is ndim) and strides (None = NULL,
 * else exactly ndim entries: checked here so C never reads past the list). */
%typemap(in) (int ndim, const int64_t *shape) (int64_t *values = NULL, Py_ssize_t n = 0) {
  if (ncore_py_int_array($input, "$symname", "shape", "int64_t", INT64_MIN,
                         INT64_MAX, &values, &n) != 0) SWIG_fail;
  $1 = (int)n;
  $2 = values;
}
%typemap(freearg) (int ndim, const int64_t *shape) { free(values$argnum); }
%typemap(in) const int64_t *strides (int64_t *values = NULL, Py_ssize_t n = -1) {
  $1 = NULL;
  if ($input != Py_None) {
    if (ncore_py_int_array($input, "$symname", "strides", "int64_t", INT64_MIN,
                           INT64_MAX, &values, &n) != 0) SWIG_fail;
    $1 = values;
  }
}
%typemap(check) const int64_t *strides {
  if ($1 != NULL && n$argnum != (Py_ssize_t)arg3) {
    PyErr_SetString(PyExc_ValueError, "strides: length differs from shape's");
    SWIG_fail;
  }
}
%typemap(freearg) const int64_t *strides { free(values$argnum); }

/* Wait-signal descriptors: a sequence of (peer, op_count, signal_index,
 * context) tuples, optionally with a fifth item overriding struct_size (for
 * tests of the version check); None passes (NULL, 0). */
%typemap(in) (const ncore_wait_signal_desc_t *descs, size_t ndescs)
    (ncore_wait_signal_desc_t *array = NULL) {
  if ($input == Py_None) {
    $1 = NULL;
    $2 = 0;
  } else {
    PyObject *fast = PySequence_Fast($input, "descs: expected a sequence of tuples");
    if (fast == NULL) SWIG_fail;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    array = (ncore_wait_signal_desc_t *)calloc((size_t)(n > 0 ? n : 1), sizeof(*array));
    if (array == NULL) { Py_DECREF(fast); PyErr_NoMemory(); SWIG_fail; }
    for (Py_ssize_t i = 0; i < n; i++) {
      /* The library's defaults for this extension's size, then the tuple. */
      ncore_status_t init_status = ncore_wait_signal_desc_init(&array[i], sizeof(array[i]));
      if (init_status != NCORE_OK) {
        Py_DECREF(fast);
        ncore_py_raise(init_status);
        SWIG_fail;
      }
      unsigned long long f[5] = {(unsigned long long)array[i].peer, array[i].op_count,
                                 (unsigned long long)array[i].signal_index,
                                 (unsigned long long)array[i].context, array[i].struct_size};
      PyObject *item = PySequence_Fast(PySequence_Fast_GET_ITEM(fast, i),
                                       "descs: each item must be a tuple");
      if (item == NULL) { Py_DECREF(fast); SWIG_fail; }
      Py_ssize_t k = PySequence_Fast_GET_SIZE(item);
      if (k < 1 || k > 5) {
        Py_DECREF(item); Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError,
                        "descs: each item is (peer, op_count, signal_index, context[, struct_size])");
        SWIG_fail;
      }
      /* Each field by its C type, named "descs[i].field". */
      static const char *const names[5] = {"peer", "op_count", "signal_index",
                                           "context", "struct_size"};
      static const char *const types[5] = {"int32_t", "uint32_t", "int32_t",
                                           "int32_t", "uint32_t"};
      for (Py_ssize_t j = 0; j < k; j++) {
        int is_unsigned = j == 1 || j == 4;
        char field[64];
        snprintf(field, sizeof field, "descs[%zd].%s", i, names[j]);
        if (ncore_py_integer(PySequence_Fast_GET_ITEM(item, j), "$symname", field,
                             types[j], is_unsigned ? 0 : INT32_MIN,
                             is_unsigned ? UINT32_MAX : INT32_MAX, &f[j]) != 0) {
          Py_DECREF(item); Py_DECREF(fast); SWIG_fail;
        }
      }
      Py_DECREF(item);
      array[i].struct_size = (uint32_t)f[4];
      array[i].peer = (int32_t)f[0];
      array[i].op_count = (uint32_t)f[1];
      array[i].signal_index = (int32_t)f[2];
      array[i].context = (int32_t)f[3];
    }
    Py_DECREF(fast);
    $1 = array;
    $2 = (size_t)n;
  }
}
%typemap(freearg) (const ncore_wait_signal_desc_t *descs, size_t ndescs) {
  free(array$argnum);
}

/* A collective's config (the _config twins): None passes NULL; else the
 * tuple of config.py's NCCLCollConfig._c_tuple: (min_ctas, max_ctas,
 * nvls_ctas, cga_cluster_size, alg_selection (str or None),
 * force_alg_selection, cta_policy, user_profiler_tag, vendor options (a
 * sequence of (vendor_id, option_id, kind, int_value, str_value or None,
 * raw_value)), launch_completion_event (an address, 0 for none)). The
 * strings stay the tuple's, which the call holds. */
%typemap(in) const ncore_coll_config_t *config
    (ncore_coll_config_t c, ncore_vendor_option_t *options = NULL) {
  if ($input == Py_None) {
    $1 = NULL;
  } else {
    PyObject *t = PySequence_Fast($input, "config: expected an NCCLCollConfig's tuple");
    if (t == NULL) SWIG_fail;
    if (PySequence_Fast_GET_SIZE(t) != 10) {
      Py_DECREF(t);
      PyErr_SetString(PyExc_ValueError, "config: expected the 10 fields of ncore_coll_config_t");
      SWIG_fail;
    }
    ncore_status_t init_status = ncore_coll_config_init(&c, sizeof c);
    if (init_status != NCORE_OK) { Py_DECREF(t); ncore_py_raise(init_status); SWIG_fail; }
    static const char *const names[] = {"min_ctas", "max_ctas", "nvls_ctas",
                                        "cga_cluster_size", "force_alg_selection",
                                        "cta_policy"};
    static const int at[] = {0, 1, 2, 3, 5, 6};
    int32_t *targets[] = {&c.min_ctas, &c.max_ctas, &c.nvls_ctas, &c.cga_cluster_size,
                          &c.force_alg_selection, &c.cta_policy};
    unsigned long long bits = 0;
    for (int j = 0; j < 6; j++) {
      char field[48];
      snprintf(field, sizeof field, "config.%s", names[j]);
      if (ncore_py_integer(PySequence_Fast_GET_ITEM(t, at[j]), "$symname", field, "int32_t",
                           INT32_MIN, INT32_MAX, &bits) != 0) { Py_DECREF(t); SWIG_fail; }
      *targets[j] = (int32_t)bits;
    }
    if (ncore_py_integer(PySequence_Fast_GET_ITEM(t, 7), "$symname", "config.user_profiler_tag",
                         "uint64_t", 0, UINT64_MAX, &bits) != 0) { Py_DECREF(t); SWIG_fail; }
    c.user_profiler_tag = (uint64_t)bits;
    PyObject *selection = PySequence_Fast_GET_ITEM(t, 4);
    if (selection != Py_None) {
      c.alg_selection = PyUnicode_AsUTF8(selection);
      if (c.alg_selection == NULL) { Py_DECREF(t); SWIG_fail; }
    }
    uintptr_t event = 0;
    if (ncore_py_address(PySequence_Fast_GET_ITEM(t, 9), "$symname",
                         "config.launch_completion_event", &event) != 0) {
      Py_DECREF(t); SWIG_fail;
    }
    c.launch_completion_event = (void *)event;
    PyObject *list = PySequence_Fast(PySequence_Fast_GET_ITEM(t, 8),
                                     "config.vendor_options: expected a sequence");
    if (list == NULL) { Py_DECREF(t); SWIG_fail; }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(list);
    options = (ncore_vendor_option_t *)calloc((size_t)(n > 0 ? n : 1), sizeof(*options));
    if (options == NULL) { Py_DECREF(list); Py_DECREF(t); PyErr_NoMemory(); SWIG_fail; }
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *o = PySequence_Fast(PySequence_Fast_GET_ITEM(list, i),
                                    "config.vendor_options: each item must be a tuple");
      if (o == NULL || PySequence_Fast_GET_SIZE(o) != 6) {
        Py_XDECREF(o); Py_DECREF(list); Py_DECREF(t);
        if (!PyErr_Occurred())
          PyErr_SetString(PyExc_ValueError, "config.vendor_options: each item is (vendor_id, "
                          "option_id, kind, int_value, str_value, raw_value)");
        SWIG_fail;
      }
      static const char *const option_names[] = {"vendor_id", "option_id", "kind", "int_value"};
      int32_t *option_targets[] = {&options[i].vendor_id, &options[i].option_id,
                                   &options[i].kind, &options[i].int_value};
      for (int j = 0; j < 4; j++) {
        char field[64];
        snprintf(field, sizeof field, "config.vendor_options[%zd].%s", i, option_names[j]);
        if (ncore_py_integer(PySequence_Fast_GET_ITEM(o, j), "$symname", field, "int32_t",
                             INT32_MIN, INT32_MAX, &bits) != 0) {
          Py_DECREF(o); Py_DECREF(list); Py_DECREF(t); SWIG_fail;
        }
        *option_targets[j] = (int32_t)bits;
      }
      PyObject *text = PySequence_Fast_GET_ITEM(o, 4);
      if (text != Py_None && (options[i].str_value = PyUnicode_AsUTF8(text)) == NULL) {
        Py_DECREF(o); Py_DECREF(list); Py_DECREF(t); SWIG_fail;
      }
      uintptr_t value = 0;
      if (ncore_py_address(PySequence_Fast_GET_ITEM(o, 5), "$symname",
                           "config.vendor_options[].raw_value", &value) != 0) {
        Py_DECREF(o); Py_DECREF(list); Py_DECREF(t); SWIG_fail;
      }
      options[i].raw_value = (void *)value;
      Py_DECREF(o);
    }
    Py_DECREF(list);
    Py_DECREF(t);
    c.vendor_options = n > 0 ? options : NULL;
    c.vendor_option_count = (uint32_t)n;
    $1 = &c;
  }
}
%typemap(freearg) const ncore_coll_config_t *config { free(options$argnum); }

/* ---- versioned structs ---- */

/* The *_init functions take the caller's struct size: from Python it is
 * always the size of the struct this extension was compiled with, so the
 * Python call takes the struct alone (raw.ncore_comm_config_init(config)). */
%define NCORE_SIZED_INIT(TYPE, NAME)
%typemap(in) (TYPE *NAME, size_t struct_size) (void *pointer = NULL, int res = 0) {
  res = SWIG_ConvertPtr($input, &pointer, $1_descriptor, 0);
  if (!SWIG_IsOK(res)) {
    SWIG_exception_fail(SWIG_ArgError(res), "NAME: expected a " #TYPE " or None");
  }
  $1 = (TYPE *)pointer;
  $2 = sizeof(TYPE);
}
%enddef
NCORE_SIZED_INIT(ncore_comm_config_t, config)
NCORE_SIZED_INIT(ncore_wait_signal_desc_t, desc)
NCORE_SIZED_INIT(ncore_dev_comm_requirements_t, requirements)
NCORE_SIZED_INIT(ncore_coll_config_t, config)

/* ---- buffers ---- */

/* A resolved buffer comes back as (ptr, count, dtype, device_type, device_id). */
%typemap(in, numinputs=0) ncore_buffer_desc_t *out (ncore_buffer_desc_t temp) {
  ncore_buffer_desc_t init = NCORE_BUFFER_DESC_INIT;
  temp = init;
  $1 = &temp;
}
%typemap(argout) ncore_buffer_desc_t *out {
  NCORE_APPEND_RESULT(Py_BuildValue("(KKiii)", (unsigned long long)(uintptr_t)$1->ptr,
                                    (unsigned long long)$1->count, (int)$1->dtype,
                                    (int)$1->device_type, (int)$1->device_id))
}
/* The library's description comes back as a dict of its fields. */
%typemap(in, numinputs=0) ncore_library_info_t *out (ncore_library_info_t temp) {
  ncore_library_info_t init = NCORE_LIBRARY_INFO_INIT;
  temp = init;
  $1 = &temp;
}
%typemap(argout) ncore_library_info_t *out {
  NCORE_APPEND_RESULT(Py_BuildValue(
      "{s:I,s:i,s:I,s:i,s:i,s:i,s:i,s:s,s:s,s:s}", "abi_version", $1->abi_version,
      "backend", (int)$1->backend, "features", $1->features,
      "nccl_version", (int)$1->nccl_version,
      "nccl_headers_version", (int)$1->nccl_headers_version,
      "nccl_cuda_version", (int)$1->nccl_cuda_version,
      "cuda_device_count", (int)$1->cuda_device_count, "version", $1->version,
      "backend_reason", $1->backend_reason, "nccl_path", $1->nccl_path))
}
/* A text under the size protocol of ncore/params.h: Python passes the
 * capacity (0: ask for the length); the call returns (length, text), text
 * None when only the length was asked for. */
%typemap(in) (char *value, size_t capacity, size_t *length) (size_t length_temp = 0),
             (char *keys, size_t capacity, size_t *length) (size_t length_temp = 0) {
  unsigned long long capacity = PyLong_AsUnsignedLongLong($input);
  if (PyErr_Occurred()) SWIG_fail;
  $1 = NULL;
  if (capacity > 0) {
    $1 = (char *)malloc((size_t)capacity);
    if ($1 == NULL) { PyErr_NoMemory(); SWIG_fail; }
  }
  $2 = (size_t)capacity;
  $3 = &length_temp;
}
%typemap(argout) (char *value, size_t capacity, size_t *length),
                 (char *keys, size_t capacity, size_t *length) {
  PyObject *text = Py_None;
  Py_INCREF(Py_None);
  if ($1 != NULL) {
    Py_DECREF(Py_None);
    text = PyUnicode_DecodeUTF8($1, (Py_ssize_t)*$3, "surrogateescape");
    if (text == NULL) SWIG_fail;
  }
  NCORE_APPEND_RESULT(Py_BuildValue("(KN)", (unsigned long long)*$3, text))
}
%typemap(freearg) (char *value, size_t capacity, size_t *length),
                  (char *keys, size_t capacity, size_t *length) { free($1); }
/* A team comes back as (n_ranks, rank, stride) and goes in as the same
 * tuple (ncore/team.h). */
%typemap(in, numinputs=0) ncore_team_t *out (ncore_team_t temp) {
  memset(&temp, 0, sizeof(temp));
  $1 = &temp;
}
%typemap(argout) ncore_team_t *out {
  NCORE_APPEND_RESULT(Py_BuildValue("(iii)", (int)$1->n_ranks, (int)$1->rank,
                                    (int)$1->stride))
}
/* A logical endpoint address comes back as (le_id, le_offset)
 * (ncore/cft.h). */
%typemap(in, numinputs=0) ncore_cft_le_info_t *out (ncore_cft_le_info_t temp) {
  memset(&temp, 0, sizeof(temp));
  $1 = &temp;
}
%typemap(argout) ncore_cft_le_info_t *out {
  NCORE_APPEND_RESULT(Py_BuildValue("(kK)", (unsigned long)$1->le_id,
                                    (unsigned long long)$1->le_offset))
}
%typemap(in) const ncore_team_t *team (ncore_team_t temp) {
  int n_ranks = 0, rank = 0, stride = 0;
  if (!PyArg_ParseTuple($input, "iii;team: expected (n_ranks, rank, stride)",
                        &n_ranks, &rank, &stride)) SWIG_fail;
  temp.n_ranks = n_ranks;
  temp.rank = rank;
  temp.stride = stride;
  $1 = &temp;
}
/* A multimem handle's multicast base is an address (an int, 0 for NULL). */
%typemap(out) void *mc_base_pointer { $result = PyLong_FromVoidPtr($1); }
%typemap(in) void *mc_base_pointer {
  $1 = PyLong_AsVoidPtr($input);
  if (PyErr_Occurred()) SWIG_fail;
}
/* ... and goes back in as the same tuple. */
%typemap(in) const ncore_buffer_desc_t *desc (ncore_buffer_desc_t temp) {
  unsigned long long ptr = 0, count = 0;
  int dtype = 0, device_type = 0, device_id = 0;
  ncore_buffer_desc_t init = NCORE_BUFFER_DESC_INIT;
  if (!PyArg_ParseTuple($input, "KKiii;desc: expected (ptr, count, dtype, device_type, device_id)",
                        &ptr, &count, &dtype, &device_type, &device_id)) SWIG_fail;
  temp = init;
  temp.ptr = (void *)(uintptr_t)ptr;
  temp.count = (size_t)count;
  temp.dtype = dtype;
  temp.device_type = device_type;
  temp.device_id = device_id;
  $1 = &temp;
}
/* argument_name: a str or None. */
%typemap(in) const char *argument_name (PyObject *bytes = NULL) {
  $1 = NULL;
  if ($input != Py_None) {
    bytes = PyUnicode_AsUTF8String($input);
    if (bytes == NULL) SWIG_fail;
    $1 = PyBytes_AsString(bytes);
  }
}
%typemap(freearg) const char *argument_name { Py_XDECREF(bytes$argnum); }

%typemap(in) const struct DLTensor *tensor {
  const struct DLTensor *tensor_pointer = NULL;
  if (ncore_py_dltensor($input, "$symname", &tensor_pointer) != 0) SWIG_fail;
  $1 = ($1_ltype)tensor_pointer;
}

/* The flags of a DLPack >= 1.0 capsule (bit 0, DLPACK_FLAG_BITMASK_READ_ONLY:
 * the tensor must not be written); 0 for any other object (a legacy
 * capsule has no flags). ncore_buffer_resolve_dlpack takes the DLTensor
 * alone, and C never knows whether a call writes a buffer it resolved: the
 * package reads this to refuse a read-only tensor as a destination. It
 * reads a Python object, so it keeps the GIL. */
%exception ncore_py_dlpack_flags %{
  $action
%}
%inline %{
unsigned long long ncore_py_dlpack_flags(PyObject *capsule) {
  if (!PyCapsule_CheckExact(capsule) ||
      !PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    return 0;
  }
  const ncore_py_dlpack_versioned_t *managed =
      (const ncore_py_dlpack_versioned_t *)PyCapsule_GetPointer(
          capsule, "dltensor_versioned");
  return managed != NULL ? managed->flags : 0;
}
%}

/* Versioned option structs are wrapped as classes; their const char *
 * members (net_name, comm_name) are copied on assignment and live as long as
 * the process, which is what a configuration wants. */
#pragma SWIG nowarn=451

/* LP64 (x86-64, aarch64 Linux): int64_t is long, as in <stdint.h>. */
#ifndef SWIGWORDSIZE32
#define SWIGWORDSIZE64
#endif
%include <stdint.i>
/* Macros SWIG cannot evaluate by itself (casts, INT32_MIN), declared before
 * the headers define them so the names stay intact; the values come from
 * the C headers when the wrapper is compiled. */
%constant int NCORE_SUM = NCORE_SUM;
%constant int NCORE_PROD = NCORE_PROD;
%constant int NCORE_MAX = NCORE_MAX;
%constant int NCORE_MIN = NCORE_MIN;
%constant int NCORE_AVG = NCORE_AVG;
%constant int NCORE_CONFIG_UNDEF_INT = NCORE_CONFIG_UNDEF_INT;
%constant unsigned long long NCORE_NULL_HANDLE = NCORE_NULL_HANDLE;
/* sizeof of the versioned structs, for their struct_size fields (the
 * wrapped structs are zero-filled when made from Python). */
%constant unsigned int NCORE_SIZEOF_COMM_CONFIG = sizeof(ncore_comm_config_t);
%constant unsigned int NCORE_SIZEOF_WAIT_SIGNAL_DESC = sizeof(ncore_wait_signal_desc_t);
%constant unsigned int NCORE_SIZEOF_DEV_COMM_REQUIREMENTS = sizeof(ncore_dev_comm_requirements_t);
%constant unsigned int NCORE_SIZEOF_DEV_COMM_INFO = sizeof(ncore_dev_comm_info_t);
%constant unsigned int NCORE_SIZEOF_TEAM_REQUIREMENT = sizeof(ncore_team_requirement_t);
%constant unsigned int NCORE_SIZEOF_DEV_RESOURCE_REQUIREMENT = sizeof(ncore_dev_resource_requirement_t);
%constant unsigned int NCORE_SIZEOF_DEV_RESOURCE_HANDLE = sizeof(ncore_dev_resource_handle_t);
%constant unsigned int NCORE_SIZEOF_MULTIMEM_HANDLE = sizeof(ncore_multimem_handle_t);
%constant unsigned int NCORE_SIZEOF_BUFFER_DESC = sizeof(ncore_buffer_desc_t);
%constant unsigned int NCORE_SIZEOF_COMM_PROPERTIES = sizeof(ncore_comm_properties_t);

%include "ncore/export.h"
%include "ncore/version.h"
%include "ncore/errors.h"
%include "ncore/types.h"
/* Before window.h / devcomm.h, whose structs hold an ncore_team_t. */
%include "ncore/team.h"
%include "ncore/comm.h"
%include "ncore/comm_control.h"
%include "ncore/launch.h"
%include "ncore/p2p.h"
%include "ncore/coll.h"
%include "ncore/resources.h"
%include "ncore/window.h"
%include "ncore/onesided.h"
%include "ncore/devcomm.h"
%include "ncore/memory.h"
%include "ncore/buffer.h"
%include "ncore/symmetric.h"
%include "ncore/info.h"
%include "ncore/cft.h"
%include "ncore/params.h"
/* The requirements' team and resource arrays (config.py builds them and
 * the requirements struct keeps them until it is freed). */
%include <carrays.i>
%array_functions(ncore_team_requirement_t, ncore_py_team_requirements)
%array_functions(ncore_dev_resource_requirement_t, ncore_py_resource_requirements)

/* The generated Python functions above only forward to the C module; bind
 * each name to its C function directly, which saves a Python call (about
 * 60 ns) on every ncore call. Struct classes are left alone. */
%pythoncode %{
def _bind_functions_directly():
    import types
    namespace = globals()
    for name, value in list(namespace.items()):
        if name.startswith("ncore_") and isinstance(value, types.FunctionType):
            direct = getattr(_ncore_c, name, None)
            if direct is not None:
                namespace[name] = direct


_bind_functions_directly()
del _bind_functions_directly
%}
