"""Offline stand-in for rules_cc: Bazel 4.2.3's native C/C++ rules.

Bazel 4 asks for @rules_cc on its own; Debian's bazel-rules-cc is too new for
it and nothing can be downloaded here, so these wrappers forward to native.*.
"""

def cc_library(**kwargs):
    native.cc_library(**kwargs)

def cc_binary(**kwargs):
    native.cc_binary(**kwargs)

def cc_test(**kwargs):
    native.cc_test(**kwargs)

def cc_import(**kwargs):
    native.cc_import(**kwargs)

def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)

def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)
