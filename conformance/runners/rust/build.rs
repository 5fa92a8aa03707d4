//! Puts libncore's folder (exported by ncore-sys) in the runner's rpath, so
//! that ncore-run can start it without LD_LIBRARY_PATH.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_NCORE_LIB_DIR");
    if let Some(dir) = std::env::var_os("DEP_NCORE_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.to_string_lossy());
    }
}
