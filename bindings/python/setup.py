"""Builds the SWIG extension ncore._ncore_c against libncore, and a wheel
(distribution ncore-nccl, import name ncore) that carries libncore itself:

    pip wheel --no-build-isolation --no-deps --no-index -w dist bindings/python
    python3 setup.py sdist                              # ncore.i and the headers

(--no-deps: numpy, the one dependency, is not built into a wheel here;
pip install brings it. --no-index: no package index is asked.)

libncore and its headers are found in this order:
  1. NCORE_LIBRARY_DIR / NCORE_INCLUDE_DIR (environment variables);
  2. pkg-config ncore (an installed ncore: make install PREFIX=...);
  3. the repository around this folder (build/lib after make lib, abi/include);
an sdist carries the headers (include/) so only libncore must be found. The
wheel holds libncore.so.1 beside the extension (run path $ORIGIN: the wheel
works wherever it is installed, with no LD_LIBRARY_PATH) and the launcher
ncore-run (console script ncore-run). SWIG runs when it is installed;
without it (the GPU machines) the wrapper generated earlier
(build/ncore_wrap.c, build/_ncore.py, e.g. by test.sh) is compiled as it is
(build-ext.sh does the same without setuptools)."""

import os
import shutil
import subprocess
import sys
import sysconfig


def check_interpreter() -> None:
    """Stops, saying what to do, where this interpreter cannot build the
    wheel: `pip wheel --no-build-isolation` builds with the interpreter's
    own packages, and one from pyenv or conda often lacks `wheel` (setuptools
    before 70.1 has no bdist_wheel without it: "invalid command
    'bdist_wheel'") or its C headers (Python.h)."""
    interpreter = f"{sys.executable} (Python {sys.version.split()[0]})"
    debian = ("or build with Debian's interpreter, whose packages `make deps` "
              "installs: /usr/bin/python3 -m venv --system-site-packages venv")
    # pip asks for the metadata first (dist_info, which in setuptools before
    # 70.1 needs bdist_wheel too), then for the wheel.
    if {"bdist_wheel", "dist_info"} & set(sys.argv):
        try:
            from setuptools.command.bdist_wheel import bdist_wheel  # noqa: F401  (setuptools >= 70.1)
        except ImportError:
            try:
                import wheel.bdist_wheel  # noqa: F401
            except ImportError:
                raise SystemExit(
                    f"ncore: {interpreter} cannot build a wheel: it has neither "
                    "setuptools >= 70.1 nor the package `wheel`, and "
                    "--no-build-isolation builds with its own packages. Install "
                    "them into it (python -m pip install 'setuptools>=61' wheel), "
                    "leave out --no-build-isolation (pip then fetches them), " + debian)
    headers = sysconfig.get_paths().get("include") or ""
    if not os.path.isfile(os.path.join(headers, "Python.h")):
        raise SystemExit(
            f"ncore: {interpreter} has no C headers (Python.h is not in {headers!r}), "
            "which the extension is compiled against. Install its development "
            "files (Debian: apt install python3-dev; conda and pyenv ship them), " + debian)


check_interpreter()

from setuptools import Extension, setup  # noqa: E402  (after the interpreter's check)
from setuptools.command.build_ext import build_ext  # noqa: E402
from setuptools.command.build_py import build_py  # noqa: E402
from setuptools.command.sdist import sdist  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
WRAPPER = os.path.join("build", "ncore_wrap.c")


def pkg_config(variable: str):
    """pkg-config --variable=VARIABLE ncore, or None."""
    try:
        out = subprocess.run(["pkg-config", f"--variable={variable}", "ncore"],
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return out or None


def locate(env: str, bundled: str, variable: str, in_repo: str, wanted: str) -> str:
    """The first folder of: $env, the sdist's own copy, pkg-config's, the
    repository's, that holds `wanted`; stops with what to do otherwise."""
    candidates = [(f"${env}", os.environ.get(env)),
                  ("this package", os.path.join(HERE, bundled) if bundled else None),
                  ("pkg-config ncore", pkg_config(variable)),
                  ("the repository", os.path.join(REPO, in_repo))]
    for _, folder in candidates:
        if folder and os.path.exists(os.path.join(folder, wanted)):
            return folder
    tried = ", ".join(f"{name} ({folder})" for name, folder in candidates if folder)
    raise SystemExit(
        f"ncore: {wanted} not found (tried {tried}). Install ncore (make install "
        f"PREFIX=...; then PKG_CONFIG_PATH=PREFIX/lib/pkgconfig), build the "
        f"repository (make lib), or set {env}.")


INCLUDE_DIR = locate("NCORE_INCLUDE_DIR", "include", "includedir", "abi/include", "ncore.h")
LIBRARY_DIR = locate("NCORE_LIBRARY_DIR", None, "libdir", "build/lib", "libncore.so.1")


def launcher() -> str:
    """The ncore-run built or installed beside LIBRARY_DIR."""
    for candidate in (os.path.join(LIBRARY_DIR, "..", "bin", "ncore-run"),
                      os.path.join(REPO, "build", "bin", "ncore-run")):
        if os.path.isfile(candidate):
            return candidate
    raise SystemExit(f"ncore: ncore-run not found beside {LIBRARY_DIR} (../bin)")


def run_swig() -> None:
    """Generates build/ncore_wrap.c and build/_ncore.py from ncore.i."""
    os.makedirs(os.path.join(HERE, "build"), exist_ok=True)
    subprocess.check_call(
        ["swig", "-python", "-I" + INCLUDE_DIR, "-interface", "_ncore_c",
         "-o", os.path.join(HERE, WRAPPER), "-outdir", os.path.join(HERE, "build"),
         os.path.join(HERE, "ncore.i")])


def prepare_wrapper() -> None:
    """Runs SWIG when it is available (else uses its earlier output) and puts
    the Python half into the package. Idempotent."""
    if shutil.which("swig"):
        run_swig()
    elif not os.path.exists(os.path.join(HERE, WRAPPER)):
        raise SystemExit("ncore: swig is not installed and build/ncore_wrap.c does not exist")
    shutil.copyfile(os.path.join(HERE, "build", "_ncore.py"),
                    os.path.join(HERE, "ncore", "_ncore.py"))


def bundle_native() -> None:
    """Copies libncore.so.1 (the file it names) and ncore-run into the
    package, which the wheel then carries."""
    shutil.copyfile(os.path.realpath(os.path.join(LIBRARY_DIR, "libncore.so.1")),
                    os.path.join(HERE, "ncore", "libncore.so.1"))
    os.makedirs(os.path.join(HERE, "ncore", "bin"), exist_ok=True)
    target = os.path.join(HERE, "ncore", "bin", "ncore-run")
    shutil.copyfile(launcher(), target)
    os.chmod(target, 0o755)


class BuildPyWithSwig(build_py):
    """build_py that first makes ncore/_ncore.py and bundles libncore, so the
    wheel holds them."""

    def run(self):
        prepare_wrapper()
        bundle_native()
        super().run()


class BuildWithSwig(build_ext):
    """build_ext that runs SWIG first when it is available."""

    def run(self):
        if not os.path.exists(os.path.join(HERE, "ncore", "_ncore.py")):
            prepare_wrapper()
        super().run()


class SdistWithHeaders(sdist):
    """sdist that carries the public headers (include/), so building it
    needs only libncore itself."""

    def run(self):
        bundled = os.path.join(HERE, "include")
        if os.path.realpath(INCLUDE_DIR) != os.path.realpath(bundled):
            shutil.rmtree(bundled, ignore_errors=True)
            shutil.copytree(INCLUDE_DIR, bundled)
        super().run()


setup(
    ext_modules=[
        Extension(
            "ncore._ncore_c",
            sources=[WRAPPER],
            include_dirs=[INCLUDE_DIR],
            library_dirs=[LIBRARY_DIR],
            libraries=["ncore"],
            # libncore.so.1 lies beside the extension in the wheel.
            runtime_library_dirs=["$ORIGIN"],
        )
    ],
    cmdclass={"build_py": BuildPyWithSwig, "build_ext": BuildWithSwig,
              "sdist": SdistWithHeaders},
)
