//! CUDA graphs for the tests, without a CUDA binding: the few driver calls
//! a test needs to capture what ncore enqueues on a stream and replay it,
//! from libcuda.so.1 loaded at run time (dlopen; the crate links nothing).
//! Handles are the driver's opaque pointers; every call asserts success (a
//! failure panics naming the call and its CUresult). The Rust conformance
//! runner's capture steps use this file too (its main.rs, `#[path]`).

use std::ffi::{c_char, c_int, c_void, CStr};

use ncore::Stream;

extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}
const RTLD_NOW: c_int = 2;
/// CU_STREAM_CAPTURE_MODE_GLOBAL, CUDA's default (and torch's).
const CAPTURE_MODE_GLOBAL: c_int = 0;

type Handle = *mut c_void;

/// The driver's graph calls.
struct Driver {
    begin_capture: unsafe extern "C" fn(Handle, c_int) -> c_int,
    end_capture: unsafe extern "C" fn(Handle, *mut Handle) -> c_int,
    instantiate: unsafe extern "C" fn(*mut Handle, Handle, u64) -> c_int,
    launch: unsafe extern "C" fn(Handle, Handle) -> c_int,
    exec_destroy: unsafe extern "C" fn(Handle) -> c_int,
    graph_destroy: unsafe extern "C" fn(Handle) -> c_int,
}

fn driver() -> &'static Driver {
    static DRIVER: std::sync::OnceLock<Driver> = std::sync::OnceLock::new();
    DRIVER.get_or_init(|| {
        // SAFETY: a C string literal; dlopen and dlsym are thread-safe.
        let lib = unsafe { dlopen(c"libcuda.so.1".as_ptr(), RTLD_NOW) };
        assert!(!lib.is_null(), "libcuda.so.1 could not be loaded");
        let symbol = |name: &CStr| {
            // SAFETY: lib is a live handle, name a C string.
            let f = unsafe { dlsym(lib, name.as_ptr()) };
            assert!(!f.is_null(), "libcuda.so.1 lacks {name:?}");
            f
        };
        // SAFETY: each symbol has the signature the driver API gives it.
        unsafe {
            Driver {
                begin_capture: std::mem::transmute(symbol(c"cuStreamBeginCapture_v2")),
                end_capture: std::mem::transmute(symbol(c"cuStreamEndCapture")),
                instantiate: std::mem::transmute(symbol(c"cuGraphInstantiateWithFlags")),
                launch: std::mem::transmute(symbol(c"cuGraphLaunch")),
                exec_destroy: std::mem::transmute(symbol(c"cuGraphExecDestroy")),
                graph_destroy: std::mem::transmute(symbol(c"cuGraphDestroy")),
            }
        }
    })
}

fn ok(what: &str, result: c_int) {
    assert_eq!(result, 0, "{what} failed: CUresult {result}");
}

/// An executable graph: what `calls` enqueued on `stream` while it was
/// captured. Launched with [`Graph::launch`]; destroyed on drop.
pub struct Graph {
    exec: Handle,
}

/// Starts capturing `stream` (CUDA's global mode): what is enqueued on it
/// from now on goes into the graph [`Graph::end_capture`] returns.
pub fn begin_capture(stream: &Stream) {
    // SAFETY: a live CUDA stream of the current context.
    ok("cuStreamBeginCapture", unsafe {
        (driver().begin_capture)(stream.as_raw(), CAPTURE_MODE_GLOBAL)
    });
}

/// Ends a capture on `stream` whose graph is not wanted (errors ignored:
/// for cleaning up after a failure).
pub fn abandon_capture(stream: &Stream) {
    let d = driver();
    let mut graph: Handle = std::ptr::null_mut();
    // SAFETY: a capture began on the stream; graph is an out place.
    if unsafe { (d.end_capture)(stream.as_raw(), &mut graph) } == 0 && !graph.is_null() {
        // SAFETY: the graph the capture returned.
        unsafe { (d.graph_destroy)(graph) };
    }
}

impl Graph {
    /// Captures what `calls(stream)` enqueues on `stream` (global mode).
    pub fn capture(stream: &Stream, calls: impl FnOnce(&Stream)) -> Graph {
        begin_capture(stream);
        calls(stream);
        Graph::end_capture(stream)
    }

    /// Ends the capture [`begin_capture`] started on `stream` and
    /// instantiates its graph.
    pub fn end_capture(stream: &Stream) -> Graph {
        let d = driver();
        let mut graph: Handle = std::ptr::null_mut();
        let mut exec: Handle = std::ptr::null_mut();
        // SAFETY: the capture began on the stream; graph and exec are out
        // places.
        unsafe {
            ok(
                "cuStreamEndCapture",
                (d.end_capture)(stream.as_raw(), &mut graph),
            );
            ok("cuGraphInstantiate", (d.instantiate)(&mut exec, graph, 0));
            ok("cuGraphDestroy", (d.graph_destroy)(graph));
        }
        Graph { exec }
    }

    /// Launches the graph on `stream` (waited for by the caller).
    pub fn launch(&self, stream: &Stream) {
        // SAFETY: exec is live; the stream is a live CUDA stream.
        ok("cuGraphLaunch", unsafe {
            (driver().launch)(self.exec, stream.as_raw())
        });
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        // SAFETY: exec is live and launched work holds no reference to it.
        unsafe { (driver().exec_destroy)(self.exec) };
    }
}
