//! Puts libncore's folder (from ncore-sys, see its build.rs) in the rpath of
//! this crate's tests and examples: ncore-sys loads libncore at run time
//! through the dynamic loader's search first (src/loader.rs there), and this
//! run path makes that search find the build's library before any installed
//! one; and $ORIGIN/../lib, so that a test or example copied to build/bin (to be
//! carried to a GPU machine with build/lib, bindings/rust/test.sh) finds the
//! library next to it wherever the checkout lives.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_NCORE_LIB_DIR");
    if let Some(dir) = std::env::var_os("DEP_NCORE_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.to_string_lossy());
    }
    println!("cargo:rustc-link-arg=-Wl,-rpath,$ORIGIN/../lib");
}
