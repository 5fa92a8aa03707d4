//! CUDA graphs (conformance/README.md, "capture_begin / capture_end"), as
//! the C runner's capture.c: `capture_begin` starts capturing a stream of
//! the runner's (made once per case) and makes it the stream of every
//! later call that takes one; `capture_end` ends the capture, waits for the
//! default stream's earlier work, launches the graph `replays` times
//! (default 1) on that stream, waits for it, and goes back to the default
//! stream. The driver's graph calls come from libcuda.so.1 through dlopen
//! (the runner links nothing); where they fail, the runner stops (exit 2,
//! the reason on stderr): a capture step has no ncore status to report.

use std::ffi::{c_char, c_int, c_void, CStr};

use ncore::Stream;

use crate::json::Value;
use crate::plan::Step;
use crate::{Runner, StepResult};

extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}
const RTLD_NOW: c_int = 2;
/// CU_STREAM_CAPTURE_MODE_GLOBAL, CUDA's default (and torch's).
const CAPTURE_MODE_GLOBAL: c_int = 0;

type Handle = *mut c_void;

struct Driver {
    begin: unsafe extern "C" fn(Handle, c_int) -> c_int,
    end: unsafe extern "C" fn(Handle, *mut Handle) -> c_int,
    instantiate: unsafe extern "C" fn(*mut Handle, Handle, u64) -> c_int,
    launch: unsafe extern "C" fn(Handle, Handle) -> c_int,
    exec_destroy: unsafe extern "C" fn(Handle) -> c_int,
    graph_destroy: unsafe extern "C" fn(Handle) -> c_int,
}

fn stop(what: &str, result: c_int) -> ! {
    eprintln!("conformance: {what} failed (CUresult {result})");
    std::process::exit(2);
}

fn driver() -> &'static Driver {
    static DRIVER: std::sync::OnceLock<Driver> = std::sync::OnceLock::new();
    DRIVER.get_or_init(|| {
        // SAFETY: a C string literal; dlopen and dlsym are thread-safe.
        let lib = unsafe { dlopen(c"libcuda.so.1".as_ptr(), RTLD_NOW) };
        if lib.is_null() {
            stop("dlopen(libcuda.so.1)", -1);
        }
        let symbol = |name: &CStr| {
            // SAFETY: lib is a live handle, name a C string.
            let f = unsafe { dlsym(lib, name.as_ptr()) };
            if f.is_null() {
                stop(&name.to_string_lossy(), -1);
            }
            f
        };
        // SAFETY: each symbol has the signature the driver API gives it.
        unsafe {
            Driver {
                begin: std::mem::transmute(symbol(c"cuStreamBeginCapture_v2")),
                end: std::mem::transmute(symbol(c"cuStreamEndCapture")),
                instantiate: std::mem::transmute(symbol(c"cuGraphInstantiateWithFlags")),
                launch: std::mem::transmute(symbol(c"cuGraphLaunch")),
                exec_destroy: std::mem::transmute(symbol(c"cuGraphExecDestroy")),
                graph_destroy: std::mem::transmute(symbol(c"cuGraphDestroy")),
            }
        }
    })
}

fn ok(what: &str, result: c_int) {
    if result != 0 {
        stop(what, result);
    }
}

impl Runner {
    /// The stream of the calls that take one: the capture stream between
    /// capture_begin and capture_end, else None (the default stream).
    pub fn stream(&self) -> Option<&Stream> {
        self.capture_stream.as_ref().filter(|_| self.capturing)
    }
}

/// `capture_begin`.
pub fn capture_begin(r: &mut Runner, _step: &Step) -> StepResult {
    if r.capturing {
        stop("capture_begin inside a capture", -1);
    }
    let d = driver();
    if r.capture_stream.is_none() {
        r.capture_stream = Some(Stream::new(r.backend)?);
    }
    let stream = r.capture_stream.as_ref().expect("made above").as_raw();
    // SAFETY: a live CUDA stream of the current context.
    ok("cuStreamBeginCapture", unsafe {
        (d.begin)(stream, CAPTURE_MODE_GLOBAL)
    });
    r.capturing = true;
    Ok(Value::None)
}

/// `capture_end`: `replays` launches (default 1).
pub fn capture_end(r: &mut Runner, step: &Step) -> StepResult {
    if !r.capturing {
        stop("capture_end without capture_begin", -1);
    }
    r.capturing = false;
    let d = driver();
    let stream = r.capture_stream.as_ref().expect("capture_begin made it");
    let (mut graph, mut exec): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: the capture began on stream; graph and exec are out places.
    unsafe {
        ok("cuStreamEndCapture", (d.end)(stream.as_raw(), &mut graph));
        ok("cuGraphInstantiate", (d.instantiate)(&mut exec, graph, 0));
        (d.graph_destroy)(graph);
    }
    let mut result = ncore::synchronize(None, r.backend);
    for _ in 0..step.int("replays", 1) {
        if result.is_err() {
            break;
        }
        // SAFETY: exec is live, the stream a live CUDA stream.
        ok("cuGraphLaunch", unsafe {
            (d.launch)(exec, stream.as_raw())
        });
    }
    if result.is_ok() {
        result = stream.synchronize();
    }
    // SAFETY: exec is live and nothing launched refers to it any more.
    unsafe { (d.exec_destroy)(exec) };
    result.map(|()| Value::None)
}

/// At the end of a case: a capture still open is ended and dropped, the
/// capture stream destroyed (on drop).
pub fn release(r: &mut Runner) {
    if r.capturing {
        let d = driver();
        let mut graph: Handle = std::ptr::null_mut();
        let stream = r.capture_stream.as_ref().expect("capture_begin made it");
        // SAFETY: the capture began on stream.
        if unsafe { (d.end)(stream.as_raw(), &mut graph) } == 0 && !graph.is_null() {
            // SAFETY: a graph the capture returned.
            unsafe { (d.graph_destroy)(graph) };
        }
        r.capturing = false;
    }
    r.capture_stream = None;
}
