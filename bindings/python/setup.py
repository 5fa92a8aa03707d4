"""Builds the SWIG extension ncore._ncore_c against libncore.

    python3 setup.py build_ext --inplace     # or: pip install .

Paths (override with environment variables):
  NCORE_INCLUDE_DIR  public headers        (default: <repo>/abi/include)
  NCORE_LIBRARY_DIR  libncore.so           (default: <repo>/build/lib)
SWIG runs when it is installed; without it (the GPU machines) the wrapper
generated earlier (build/ncore_wrap.c and build/_ncore.py, e.g. by test.sh)
is compiled as it is (build-ext.sh does the same without setuptools)."""

import os
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
INCLUDE_DIR = os.environ.get("NCORE_INCLUDE_DIR", os.path.join(REPO, "abi", "include"))
LIBRARY_DIR = os.environ.get("NCORE_LIBRARY_DIR", os.path.join(REPO, "build", "lib"))
WRAPPER = os.path.join("build", "ncore_wrap.c")


def run_swig() -> None:
    """Generates build/ncore_wrap.c and build/_ncore.py from ncore.i."""
    os.makedirs(os.path.join(HERE, "build"), exist_ok=True)
    subprocess.check_call(
        ["swig", "-python", "-I" + INCLUDE_DIR, "-interface", "_ncore_c",
         "-o", os.path.join(HERE, WRAPPER), "-outdir", os.path.join(HERE, "build"),
         os.path.join(HERE, "ncore.i")])


def install_shadow_module() -> None:
    """Copies SWIG's Python half (build/_ncore.py) into the package."""
    shutil.copyfile(os.path.join(HERE, "build", "_ncore.py"),
                    os.path.join(HERE, "ncore", "_ncore.py"))


def prepare_wrapper() -> None:
    """Runs SWIG when it is available (else uses its earlier output) and puts
    the Python half into the package. Idempotent."""
    if shutil.which("swig"):
        run_swig()
    elif not os.path.exists(os.path.join(HERE, WRAPPER)):
        raise SystemExit("swig is not installed and build/ncore_wrap.c does not exist")
    install_shadow_module()


class BuildPyWithSwig(build_py):
    """build_py that first makes ncore/_ncore.py, so the wheel holds it."""

    def run(self):
        prepare_wrapper()
        super().run()


class BuildWithSwig(build_ext):
    """build_ext that runs SWIG first when it is available."""

    def run(self):
        if not os.path.exists(os.path.join(HERE, "ncore", "_ncore.py")):
            prepare_wrapper()
        super().run()


setup(
    ext_modules=[
        Extension(
            "ncore._ncore_c",
            sources=[WRAPPER],
            include_dirs=[INCLUDE_DIR],
            library_dirs=[LIBRARY_DIR],
            libraries=["ncore"],
            # In place, libncore is found relative to the extension as well.
            runtime_library_dirs=[LIBRARY_DIR, "$ORIGIN/../../../build/lib"],
        )
    ],
    cmdclass={"build_py": BuildPyWithSwig, "build_ext": BuildWithSwig},
)
