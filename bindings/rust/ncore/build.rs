//! Puts libncore's folder (from ncore-sys, see its build.rs) in the rpath of
//! this crate's tests and examples, so they run without LD_LIBRARY_PATH.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_NCORE_LIB_DIR");
    if let Some(dir) = std::env::var_os("DEP_NCORE_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.to_string_lossy());
    }
}
