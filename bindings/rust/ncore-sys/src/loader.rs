//! Loads libncore at run time, so that a binary of any crate depending on
//! this one starts without `LD_LIBRARY_PATH` or a run path of its own (a
//! dependency's build script cannot give another crate's binaries a run
//! path). Every function of the bindings resolves its C function here with
//! `dlsym` on its first call and keeps the address.
//!
//! Where libncore is looked for, first success wins:
//!   1. `NCORE_LIBRARY`, a file path; when set, nothing else is tried (as
//!      libncore's own `NCORE_NCCL_LIBRARY`);
//!   2. `libncore.so.MAJOR` through the dynamic loader's search: the
//!      binary's run path, `LD_LIBRARY_PATH`, `ldconfig`'s cache, the system
//!      folders;
//!   3. `../lib/libncore.so.MAJOR` beside the running executable (a
//!      binary in a `bin` folder next to the library's `lib`, as in an
//!      install prefix or ncore's `build/`, wherever that folder was moved);
//!   4. the folder `build.rs` found libncore in when this crate was built.
//!
//! When none loads, nothing stops the process: every function answers
//! without the library (build.rs's `unloaded_answer`, `unloaded` below), a
//! status function `NCORE_ERR_UNAVAILABLE` with the message
//! (`ncore_last_error_message`) naming every place tried and what to set,
//! so a program (and the safe crate) gets an error it can report.
use std::ffi::{CStr, CString, OsStr};
use std::fmt;
use std::os::raw::{c_char, c_int, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

const RTLD_NOW: c_int = 2;

#[repr(C)]
struct DlInfo {
    dli_fname: *const c_char,
    dli_fbase: *mut c_void,
    dli_sname: *const c_char,
    dli_saddr: *mut c_void,
}

// In libc since glibc 2.34; libdl before.
#[link(name = "dl")]
extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
    fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
}

/// The file name the dynamic loader looks for, `libncore.so.MAJOR`.
const SONAME: &str = env!("NCORE_SYS_SONAME");
/// The folder `build.rs` found libncore in.
const BUILD_LIB_DIR: &str = env!("NCORE_SYS_BUILD_LIB_DIR");

/// Why libncore could not be loaded: every place tried, and what to set.
#[derive(Clone, Debug)]
pub struct LoadError(String);

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LoadError {}

struct Library {
    handle: *mut c_void,
    path: PathBuf,
}

// SAFETY: a dlopen handle may be used from any thread.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

fn last_dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string.
    let message = unsafe { dlerror() };
    if message.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: checked non-NULL above.
        unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned()
    }
}

/// dlopen of `file` (a path, or a bare name for the loader's search).
fn open(file: &OsStr) -> Result<Library, String> {
    let name = CString::new(file.as_bytes()).map_err(|_| "a NUL byte in the path".to_string())?;
    // SAFETY: name is NUL-terminated; RTLD_NOW binds every symbol now, so a
    // library missing one of its own dependencies fails here, not later.
    let handle = unsafe { dlopen(name.as_ptr(), RTLD_NOW) };
    if handle.is_null() {
        return Err(last_dl_error());
    }
    // The file the loader chose: the object that holds a known function.
    // SAFETY: handle is open; the symbol name is NUL-terminated.
    let known = unsafe { dlsym(handle, b"ncore_abi_version\0".as_ptr().cast()) };
    let mut info = DlInfo {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    // SAFETY: info is writable; dladdr accepts any address.
    let path = if !known.is_null()
        && unsafe { dladdr(known, &mut info) } != 0
        && !info.dli_fname.is_null()
    {
        // SAFETY: dli_fname is the loader's NUL-terminated name of the object.
        PathBuf::from(OsStr::from_bytes(
            unsafe { CStr::from_ptr(info.dli_fname) }.to_bytes(),
        ))
    } else {
        PathBuf::from(file)
    };
    Ok(Library { handle, path })
}

fn load_library() -> Result<Library, LoadError> {
    if let Some(file) = std::env::var_os("NCORE_LIBRARY") {
        return open(&file).map_err(|e| {
            LoadError(format!(
                "ncore: cannot load libncore from NCORE_LIBRARY={}: {e}. Set NCORE_LIBRARY to \
                 the {SONAME} file, or unset it to use the loader's search",
                Path::new(&file).display()
            ))
        });
    }
    let searched = match open(OsStr::new(SONAME)) {
        Ok(library) => return Ok(library),
        Err(e) => e,
    };
    let beside = std::env::current_exe().ok().and_then(|exe| {
        exe.parent()
            .and_then(Path::parent)
            .map(|p| p.join("lib").join(SONAME))
    });
    let beside_error = match &beside {
        Some(path) => match open(path.as_os_str()) {
            Ok(library) => return Ok(library),
            Err(e) => e,
        },
        None => "the executable's path is unknown".to_string(),
    };
    let built = Path::new(BUILD_LIB_DIR).join(SONAME);
    match open(built.as_os_str()) {
        Ok(library) => Ok(library),
        Err(e) => Err(LoadError(format!(
            "ncore: cannot load {SONAME}: NCORE_LIBRARY is not set; the loader's search \
             (LD_LIBRARY_PATH, ldconfig, system folders): {searched}; ../lib beside the \
             executable: {beside_error}; the folder found when ncore-sys was built: {e}. Set \
             NCORE_LIBRARY to the {SONAME} file, install ncore where the loader finds it, or \
             add its folder to LD_LIBRARY_PATH"
        ))),
    }
}

fn library() -> &'static Result<Library, LoadError> {
    static LIBRARY: OnceLock<Result<Library, LoadError>> = OnceLock::new();
    LIBRARY.get_or_init(load_library)
}

/// Loads libncore now if no function has yet, and says which file was
/// loaded (the path the dynamic loader reports), or why none could be.
/// When this is an error, the functions of this crate answer without the
/// library: `NCORE_ERR_UNAVAILABLE`, with this error as the message.
pub fn library_path() -> Result<&'static Path, LoadError> {
    match library() {
        Ok(library) => Ok(&library.path),
        Err(e) => Err(e.clone()),
    }
}

/// Ends the process with one line on stderr: what the bindings' functions
/// do when the loaded library lacks one of them (a libncore older than
/// these bindings, which the safe crate refuses before `main`).
#[cold]
fn die(message: &str) -> ! {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{message}");
    std::process::abort()
}

/// The address of one C function, resolved on first use (generated code:
/// build.rs).
#[doc(hidden)]
pub struct Slot {
    address: AtomicPtr<c_void>,
    name: &'static str,
}

impl Slot {
    /// A slot for the function `name`, which ends with a NUL.
    pub const fn new(name: &'static str) -> Slot {
        Slot {
            address: AtomicPtr::new(std::ptr::null_mut()),
            name,
        }
    }

    /// The function's address; None when no libncore can be loaded (the
    /// caller answers without it). The process ends when the loaded library
    /// lacks the function.
    #[inline]
    pub fn address(&self) -> Option<*mut c_void> {
        let address = self.address.load(Ordering::Acquire);
        if address.is_null() {
            self.resolve()
        } else {
            Some(address)
        }
    }

    #[cold]
    fn resolve(&self) -> Option<*mut c_void> {
        let library = library().as_ref().ok()?;
        let address = match resolve_in(library, self.name) {
            Ok(address) => address,
            Err(message) => die(&message),
        };
        self.address.store(address, Ordering::Release);
        Some(address)
    }
}

/// dlsym of `name` (NUL-terminated) in the loaded library: the default
/// version of a versioned symbol (abi/).
#[cfg(test)]
fn resolve(name: &str) -> Result<*mut c_void, String> {
    let library = library().as_ref().map_err(|e| e.0.clone())?;
    resolve_in(library, name)
}

fn resolve_in(library: &Library, name: &str) -> Result<*mut c_void, String> {
    // SAFETY: the handle is open for the process's life; name ends with NUL.
    let address = unsafe { dlsym(library.handle, name.as_ptr().cast()) };
    if address.is_null() {
        return Err(format!(
            "ncore: {} has no function {}: a libncore older than these bindings (ABI {})",
            library.path.display(),
            name.trim_end_matches('\0'),
            crate::NCORE_ABI_VERSION
        ));
    }
    Ok(address)
}

#[cfg(test)]
pub(crate) fn resolves(name: &str) -> Result<(), String> {
    resolve(&format!("{name}\0")).map(|_| ())
}

/// What the functions that return no status answer when no libncore can be
/// loaded (the others: build.rs's `unloaded_answer`).
pub(crate) mod unloaded {
    use std::ffi::CString;
    use std::os::raw::c_char;
    use std::sync::OnceLock;

    use crate::ncore_status_t;

    /// No library, no ABI: 0, which no binding accepts.
    pub(crate) fn ncore_abi_version() -> u32 {
        0
    }

    /// No library, no version: "".
    pub(crate) fn ncore_version_string() -> *const c_char {
        b"\0".as_ptr().cast()
    }

    /// The status's name, as the library's ncore_status_string gives it.
    pub(crate) fn ncore_status_string(status: ncore_status_t) -> *const c_char {
        crate::STATUS_NAMES
            .iter()
            .find(|(value, _)| *value == status)
            .map_or("NCORE_ERR_UNKNOWN\0", |(_, name)| name)
            .as_ptr()
            .cast()
    }

    /// The message of every call's NCORE_ERR_UNAVAILABLE: why no libncore
    /// could be loaded, every place tried, what to set.
    pub(crate) fn ncore_last_error_message() -> *const c_char {
        static MESSAGE: OnceLock<CString> = OnceLock::new();
        MESSAGE
            .get_or_init(|| {
                let text = match super::library() {
                    Err(e) => e.0.replace('\0', " "),
                    Ok(_) => String::new(),
                };
                CString::new(text).unwrap_or_default()
            })
            .as_ptr()
    }
}
