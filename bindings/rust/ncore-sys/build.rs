//! Links libncore.so, found in this order:
//!   1. `NCORE_LIB_DIR` (a folder holding libncore.so);
//!   2. `pkg-config ncore` (an installed ncore: `make install PREFIX=...`,
//!      with `PKG_CONFIG_PATH=PREFIX/lib/pkgconfig` unless PREFIX is a
//!      system one) — the `pkg-config` command, no crate;
//!   3. the repository around this crate (`build/lib`, after `make lib`);
//! else the build stops saying what to do. The folder is exported to
//! dependents as `DEP_NCORE_LIB_DIR` and put in the run path of this crate's
//! own tests. A user's binary finds libncore at run time through the
//! loader's path (a system prefix, or `ldconfig`), or through a run path it
//! sets itself: link arguments of a dependency's build script never reach
//! another crate's binaries (README, "Use").
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn pkg_config_libdir() -> Option<PathBuf> {
    let out = Command::new("pkg-config")
        .args(["--variable=libdir", "ncore"])
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !dir.is_empty()).then(|| PathBuf::from(dir))
}

fn has_library(dir: &Path) -> bool {
    dir.join("libncore.so").exists()
}

fn main() {
    println!("cargo:rerun-if-env-changed=NCORE_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let mut tried = Vec::new();
    let mut found = None;
    let candidates = [
        ("NCORE_LIB_DIR", env::var_os("NCORE_LIB_DIR").map(PathBuf::from)),
        ("pkg-config ncore", pkg_config_libdir()),
        ("the repository", Some(manifest.join("../../../build/lib"))),
    ];
    for (source, dir) in candidates {
        if let Some(dir) = dir {
            if has_library(&dir) {
                found = Some(dir);
                break;
            }
            tried.push(format!("{source} ({})", dir.display()));
        } else {
            tried.push(format!("{source} (not set)"));
        }
    }
    let Some(lib_dir) = found else {
        panic!(
            "ncore-sys: libncore.so not found; tried {}. Install ncore (make install \
             PREFIX=...; then PKG_CONFIG_PATH=PREFIX/lib/pkgconfig), build the repository \
             (make lib), or set NCORE_LIB_DIR to the folder holding libncore.so.",
            tried.join(", ")
        );
    };
    let lib_dir = lib_dir.canonicalize().unwrap_or(lib_dir);
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=dylib=ncore");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());
    println!("cargo:lib_dir={}", lib_dir.display());
}
