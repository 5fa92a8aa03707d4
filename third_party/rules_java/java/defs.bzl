"""Offline stand-in for rules_java (Bazel 4.2.3 asks for it; see rules_cc)."""

def java_import(**kwargs):
    native.java_import(**kwargs)

def java_runtime(**kwargs):
    native.java_runtime(**kwargs)

def java_toolchain(**kwargs):
    native.java_toolchain(**kwargs)
