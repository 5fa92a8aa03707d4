//! CUDA graphs (conformance/README.md, "capture_begin / capture_end"), as
//! the C runner's capture.c: `capture_begin` starts capturing a stream of
//! the runner's (made once per case) and makes it the stream of every
//! later call that takes one; `capture_end` ends the capture, waits for the
//! default stream's earlier work, launches the graph `replays` times
//! (default 1) on that stream, waits for it, and goes back to the default
//! stream. The driver's graph calls are the ncore crate's tests' own
//! (`cuda_graph`, bindings/rust/ncore/tests/common/cuda_graph.rs, included
//! by main.rs): libcuda.so.1 through dlopen; a failing call stops the
//! runner (a panic naming it), since a capture step has no ncore status to
//! report.

use ncore::Stream;

use crate::cuda_graph::{abandon_capture, begin_capture, Graph};
use crate::json::Value;
use crate::plan::Step;
use crate::{Runner, StepResult};

impl Runner {
    /// The stream of the calls that take one: the capture stream between
    /// capture_begin and capture_end, else None (the default stream).
    pub fn stream(&self) -> Option<&Stream> {
        self.capture_stream.as_ref().filter(|_| self.capturing)
    }
}

/// `capture_begin`.
pub fn capture_begin(r: &mut Runner, _step: &Step) -> StepResult {
    assert!(!r.capturing, "capture_begin inside a capture");
    if r.capture_stream.is_none() {
        r.capture_stream = Some(Stream::new(r.backend)?);
    }
    begin_capture(r.capture_stream.as_ref().expect("made above"));
    r.capturing = true;
    Ok(Value::None)
}

/// `capture_end`: `replays` launches (default 1).
pub fn capture_end(r: &mut Runner, step: &Step) -> StepResult {
    assert!(r.capturing, "capture_end without capture_begin");
    r.capturing = false;
    let stream = r.capture_stream.as_ref().expect("capture_begin made it");
    let graph = Graph::end_capture(stream);
    ncore::synchronize(None, r.backend)?;
    for _ in 0..step.int("replays", 1) {
        graph.launch(stream);
    }
    stream.synchronize()?;
    Ok(Value::None)
}

/// At the end of a case: a capture still open is ended and dropped, the
/// capture stream destroyed (on drop).
pub fn release(r: &mut Runner) {
    if r.capturing {
        abandon_capture(r.capture_stream.as_ref().expect("capture_begin made it"));
        r.capturing = false;
    }
    r.capture_stream = None;
}
