#!/usr/bin/env python3
"""Gives a wheel built here the manylinux platform tag its binaries allow, as
a release needs (PyPI refuses `linux_x86_64` wheels):

    python3 bindings/python/tools/manylinux_tag.py dist/ncore_nccl-*.whl [-w DIR]

writes `...-manylinux_2_Y_x86_64.whl` beside the wheel (or into DIR) and
prints its path. It checks what auditwheel checks for a wheel like this one
(auditwheel is not packaged for Debian 12): every ELF file in the wheel
needs only libraries of the manylinux policy (glibc's, libgcc_s,
libstdc++) or libraries the wheel carries itself (libncore.so.1), and uses
no libstdc++ symbol version (whose limits differ per policy); the tag's
glibc, 2.Y, is the newest GLIBC_2.Y symbol version the files use, so the
wheel installs on any Linux with glibc 2.Y or newer (PEP 600). Built on
Debian 12 (glibc 2.36) that is manylinux_2_34; built in an older
distribution (a manylinux_2_28 container) the tag is older and the wheel
installs on more systems. Anything else stops with what to do (exit 1)."""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile

# PEP 600 / the manylinux policies: libraries every compliant system has.
POLICY_LIBRARIES = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
    "libutil.so.1", "libcrypt.so.1", "libnsl.so.1", "libgcc_s.so.1", "libstdc++.so.6",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}
GLIBC = re.compile(r"@+GLIBC_2\.(\d+)\b")
CXX = re.compile(r"@+(GLIBCXX|CXXABI)_[0-9.]+")
TAG = re.compile(r"^(?P<front>.+-[^-]+-[^-]+)-linux_(?P<arch>x86_64|aarch64)\.whl$")


def elf_facts(path: str) -> tuple:
    """(needed libraries, newest GLIBC_2.Y minor, libstdc++ versions used)."""
    dynamic = subprocess.run(["readelf", "-d", "-W", path], capture_output=True, text=True,
                             check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    symbols = subprocess.run(["readelf", "--dyn-syms", "-W", path], capture_output=True,
                             text=True, check=True).stdout
    undefined = [line for line in symbols.splitlines() if " UND " in line]
    minors = [int(m) for line in undefined for m in GLIBC.findall(line)]
    cxx = sorted({m.group(0).lstrip("@") for line in undefined for m in CXX.finditer(line)})
    return needed, max(minors, default=17), cxx


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel")
    parser.add_argument("-w", "--wheel-dir", help="where to write (default: beside the wheel)")
    args = parser.parse_args()
    base = os.path.basename(args.wheel)
    match = TAG.match(base)
    if not match:
        sys.exit(f"manylinux_tag: {base}: not a linux_x86_64 / linux_aarch64 wheel")
    problems, newest = [], 17
    with zipfile.ZipFile(args.wheel) as wheel, tempfile.TemporaryDirectory() as tmp:
        names = wheel.namelist()
        carried = {os.path.basename(n) for n in names}
        for name in names:
            data = wheel.read(name)
            if not data.startswith(b"\x7fELF"):
                continue
            path = os.path.join(tmp, "elf")
            with open(path, "wb") as f:
                f.write(data)
            needed, minor, cxx = elf_facts(path)
            newest = max(newest, minor)
            foreign = [lib for lib in needed if lib not in POLICY_LIBRARIES and lib not in carried]
            if foreign:
                problems.append(f"{name} needs {', '.join(foreign)}, which no manylinux "
                                "system is sure to have (auditwheel repair would carry it)")
            if cxx:
                problems.append(f"{name} uses {', '.join(cxx)} (libstdc++'s limits differ "
                                "per policy: use auditwheel)")
    if problems:
        sys.exit("manylinux_tag: " + "\n  ".join(problems))
    platform = f"manylinux_2_{newest}_{match['arch']}"
    out_dir = args.wheel_dir or os.path.dirname(os.path.abspath(args.wheel))
    os.makedirs(out_dir, exist_ok=True)
    target = os.path.join(out_dir, f"{match['front']}-{platform}.whl")
    with zipfile.ZipFile(args.wheel) as wheel:
        infos = wheel.infolist()
        meta = next(i.filename for i in infos if re.match(r"[^/]+\.dist-info/WHEEL$", i.filename))
        record = meta[:-len("WHEEL")] + "RECORD"
        tags = wheel.read(meta).decode()
        new_tags = re.sub(r"^(Tag: .+)-linux_(x86_64|aarch64)$", rf"\1-{platform}", tags,
                          flags=re.M).encode()
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
            for info in infos:  # same entries, modes and order; WHEEL and RECORD rewritten
                data = wheel.read(info)
                if info.filename == meta:
                    data = new_tags
                elif info.filename == record:
                    lines = [record_line(meta, new_tags) if line.startswith(meta + ",") else line
                             for line in data.decode().splitlines()]
                    data = ("\n".join(lines) + "\n").encode()
                out.writestr(info, data)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
