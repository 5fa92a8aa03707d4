//! Links libncore.so. The library folder is $NCORE_LIB_DIR when set, else
//! the repository's build/lib (where `make lib` puts it). The folder is
//! exported to dependents as DEP_NCORE_LIB_DIR so that their build scripts
//! can set an rpath for tests and examples (link arguments of this script
//! only reach this crate's own targets).
use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=NCORE_LIB_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    let lib_dir = match env::var_os("NCORE_LIB_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            // ncore-sys lives at bindings/rust/ncore-sys in the repository.
            let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
            manifest.join("../../../build/lib")
        }
    };
    let lib_dir = lib_dir.canonicalize().unwrap_or(lib_dir);
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=dylib=ncore");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());
    println!("cargo:lib_dir={}", lib_dir.display());
}
