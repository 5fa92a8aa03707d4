//! Finds libncore at build time and generates the functions that load it at
//! run time.
//!
//! The library's folder is found in this order:
//!   1. `NCORE_LIB_DIR` (a folder holding libncore.so);
//!   2. `pkg-config ncore` (an installed ncore: `make install PREFIX=...`,
//!      with `PKG_CONFIG_PATH=PREFIX/lib/pkgconfig` unless PREFIX is a
//!      system one) — the `pkg-config` command, no crate;
//!   3. the repository around this crate (`build/lib`, after `make lib`);
//! else the build stops saying what to do. The line `ncore-sys: libncore.so
//! found by ...` says which (`cargo build -vv` shows it).
//!
//! Nothing is linked: link arguments of a dependency's build script never
//! reach another crate's binaries, so a run path set here could not let a
//! user's binary start without `LD_LIBRARY_PATH`. Instead every function of
//! `src/bindings.rs` (bindgen's `extern "C"` declarations) becomes a Rust
//! function with the same signature that calls the library's function,
//! found with `dlsym` on first use (`src/loader.rs`). They are generated here
//! from `bindings.rs` at every build, so they cannot drift from it. Where
//! no libncore can be loaded, each answers without it instead of ending the
//! process (`unloaded_answer`): a status function `NCORE_ERR_UNAVAILABLE`,
//! whose message (`ncore_last_error_message`) says what was searched. The
//! folder found above is baked in as the loader's last place to look, and
//! exported to dependents as `DEP_NCORE_LIB_DIR` (their own run paths).
use std::env;
use std::fs;
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

/// The folder holding libncore.so and what found it, or the build's error.
fn find_library_dir(manifest: &Path) -> (PathBuf, &'static str) {
    let mut tried = Vec::new();
    let candidates = [
        (
            "NCORE_LIB_DIR",
            env::var_os("NCORE_LIB_DIR").map(PathBuf::from),
        ),
        ("pkg-config ncore", pkg_config_libdir()),
        ("the repository", Some(manifest.join("../../../build/lib"))),
    ];
    for (source, dir) in candidates {
        match dir {
            Some(dir) if has_library(&dir) => return (dir, source),
            Some(dir) => tried.push(format!("{source} ({})", dir.display())),
            None => tried.push(format!("{source} (not set)")),
        }
    }
    panic!(
        "ncore-sys: libncore.so not found; tried {}. Install ncore (make install \
         PREFIX=...; then PKG_CONFIG_PATH=PREFIX/lib/pkgconfig), build the repository \
         (make lib), or set NCORE_LIB_DIR to the folder holding libncore.so.",
        tried.join(", ")
    );
}

/// What function `name`, returning `ret`, answers when libncore cannot be
/// loaded, called with `args`: a status function NCORE_ERR_UNAVAILABLE (the
/// load error is then ncore_last_error_message's text), an `*_is_valid`
/// query 0 (no handle is valid without the library); any other function its
/// answer in `loader::unloaded`, written there by hand (a new kind of
/// function does not compile until it has one).
fn unloaded_answer(name: &str, ret: &str, args: &str) -> String {
    match ret {
        "-> ncore_status_t" => "crate::ncore_status_NCORE_ERR_UNAVAILABLE".to_string(),
        "-> ::std::os::raw::c_int" if name.ends_with("_is_valid") => "0".to_string(),
        _ => format!("crate::loader::unloaded::{name}({args})"),
    }
}

/// One bindgen declaration, `pub fn NAME(PARAMS) -> RET;` with its
/// whitespace collapsed, as a function that calls the loaded library's, or
/// gives its `unloaded_answer` when no libncore can be loaded.
fn loaded_function(declaration: &str) -> Result<String, String> {
    let bad = |why: &str| format!("{why}: {declaration}");
    let rest = declaration
        .strip_prefix("pub fn ")
        .and_then(|d| d.strip_suffix(';'))
        .ok_or_else(|| bad("not `pub fn ...;`"))?;
    let open = rest.find('(').ok_or_else(|| bad("no parameter list"))?;
    let name = rest[..open].trim();
    // The parameter list ends at the `)` matching `open`; commas split it
    // only outside nested (), [] and <> (a callback's own parameters).
    let (mut depth, mut close, mut params, mut start) = (0i32, None, Vec::new(), open + 1);
    let bytes = rest.as_bytes();
    for (i, &c) in bytes.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'<' => depth += 1,
            b'>' if bytes[i - 1] == b'-' => {} // the `->` of a callback type
            b')' | b']' | b'>' => depth -= 1,
            b',' if depth == 1 => {
                params.push(rest[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        if depth == 0 {
            params.push(rest[start..i].trim());
            close = Some(i);
            break;
        }
    }
    let close = close.ok_or_else(|| bad("unbalanced parameter list"))?;
    params.retain(|p| !p.is_empty());
    let mut args = Vec::new();
    for param in &params {
        let (arg, _) = param
            .split_once(':')
            .ok_or_else(|| bad("parameter without a type"))?;
        args.push(arg.trim());
    }
    let params = params.join(", ");
    let ret = rest[close + 1..].trim();
    let args = args.join(", ");
    Ok(format!(
        "#[inline]\n\
         pub unsafe extern \"C\" fn {name}({params}) {ret} {{\n    \
             static SLOT: crate::loader::Slot = crate::loader::Slot::new(\"{name}\\0\");\n    \
             match SLOT.address() {{\n        \
                 Some(address) => {{\n            \
                     let f: unsafe extern \"C\" fn({params}) {ret} = ::std::mem::transmute(address);\n            \
                     f({args})\n        \
                 }}\n        \
                 None => {unloaded},\n    \
             }}\n\
         }}\n",
        unloaded = unloaded_answer(name, ret, &args)
    ))
}

/// `bindings.rs` with each `extern "C" { pub fn ... }` block replaced by its
/// loaded function, and the list of the functions' names.
fn generate(bindings: &str) -> Result<(String, Vec<String>), String> {
    const OPEN: &str = "\nextern \"C\" {\n";
    const CLOSE: &str = "\n}"; // its newline starts the next item's line
    let (mut out, mut names, mut rest) = (String::new(), Vec::new(), bindings);
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..=start]);
        let body = &rest[start + OPEN.len()..];
        let end = body
            .find(CLOSE)
            .ok_or("an extern \"C\" block without its `}`")?;
        let declaration = body[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        if declaration.matches("pub fn ").count() != 1 {
            return Err(format!(
                "expected one function per extern block: {declaration}"
            ));
        }
        out.push_str(&loaded_function(&declaration)?);
        names.push(declaration["pub fn ".len()..declaration.find('(').unwrap()].to_string());
        rest = &body[end + CLOSE.len()..];
    }
    out.push_str(rest);
    if out.contains("extern \"C\" {") {
        return Err("an extern \"C\" block of another form than `\nextern \"C\" {\n`".into());
    }
    if names.is_empty() {
        return Err("no extern \"C\" functions found".into());
    }
    Ok((out, names))
}

/// Every `ncore_status_t` value with its name, from bindgen's constants
/// (`pub const ncore_status_NCORE_OK: ncore_status = 0;`), as the table
/// `loader::unloaded::ncore_status_string` answers from: the names the
/// library's ncore_status_string gives, which are the enum's.
fn status_names(bindings: &str) -> String {
    let rows: String = bindings
        .lines()
        .filter_map(|l| l.strip_prefix("pub const ncore_status_"))
        .filter_map(|l| l.split_once(": ncore_status = "))
        .map(|(name, _)| format!("    (crate::ncore_status_{name}, \"{name}\\0\"),\n"))
        .collect();
    format!(
        "/// Each status and its name, NUL-terminated (from bindgen's constants).\n\
         pub(crate) const STATUS_NAMES: &[(ncore_status_t, &str)] = &[\n{rows}];\n"
    )
}

/// The major version (the soname's number) from bindgen's constants.
fn major_version(bindings: &str) -> Option<&str> {
    let line = bindings
        .lines()
        .find(|l| l.starts_with("pub const NCORE_VERSION_MAJOR: u32 = "))?;
    line.rsplit(' ').next()?.strip_suffix(';')
}

fn main() {
    println!("cargo:rerun-if-env-changed=NCORE_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/bindings.rs");
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").unwrap());

    let (lib_dir, source) = find_library_dir(&manifest);
    let lib_dir = lib_dir.canonicalize().unwrap_or(lib_dir);
    // Not a cargo: line; `cargo build -vv` shows it (tests/install/rust.sh).
    println!(
        "ncore-sys: libncore.so found by {source} in {}",
        lib_dir.display()
    );
    println!(
        "cargo:rustc-env=NCORE_SYS_BUILD_LIB_DIR={}",
        lib_dir.display()
    );
    println!("cargo:lib_dir={}", lib_dir.display());

    let bindings = fs::read_to_string(manifest.join("src/bindings.rs")).unwrap();
    let major =
        major_version(&bindings).expect("ncore-sys: NCORE_VERSION_MAJOR not in bindings.rs");
    println!("cargo:rustc-env=NCORE_SYS_SONAME=libncore.so.{major}");
    let (loaded, names) =
        generate(&bindings).unwrap_or_else(|e| panic!("ncore-sys: src/bindings.rs: {e}"));
    let list: String = names.iter().map(|n| format!("    \"{n}\",\n")).collect();
    let loaded = format!(
        "{loaded}\n/// Every function above, by name (the test that each resolves).\n\
         #[cfg(test)]\npub(crate) const FUNCTION_NAMES: &[&str] = &[\n{list}];\n\n{}",
        status_names(&bindings)
    );
    fs::write(out_dir.join("bindings.rs"), loaded).unwrap();
}
