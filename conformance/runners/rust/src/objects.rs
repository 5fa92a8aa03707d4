//! The named objects a plan's steps make and use. Handles are kept as raw
//! integers and wrapped in the binding's types for each call (see
//! `handles.rs`), so that a name of one kind can be passed where another is
//! expected — how the wrong-type cases work — exactly as in the C runner.

use std::collections::HashMap;
use std::ffi::c_void;

use ncore::DataType;

/// What a name refers to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A communicator.
    Comm,
    /// A data buffer (`buffer` step).
    Buffer,
    /// A registered buffer.
    RegisteredBuffer,
    /// A window.
    Window,
    /// A custom reduction operator.
    CustomRedOp,
    /// A device communicator.
    DevComm,
    /// A symmetric allocation.
    Symmetric,
    /// Memory from `mem_alloc`.
    Memory,
}

/// One named object.
#[derive(Clone, Copy, Debug)]
pub struct Object {
    /// Its kind.
    pub kind: Kind,
    /// The raw handle (handle kinds).
    pub handle: u64,
    /// Start address (buffers, memory, a window's registered buffer).
    pub ptr: *mut c_void,
    /// Size in bytes (buffers).
    pub bytes: usize,
    /// Element type (buffers).
    pub dtype: DataType,
    /// Buffer in ordinary host memory (`memory=plain`).
    pub plain: bool,
    /// A custom operator's value, remembered so a closed one can be named.
    pub redop: i32,
}

impl Object {
    /// An object of `kind` with every other field empty.
    pub fn new(kind: Kind) -> Object {
        Object {
            kind,
            handle: 0,
            ptr: std::ptr::null_mut(),
            bytes: 0,
            dtype: DataType::FLOAT32,
            plain: false,
            redop: -1,
        }
    }
}

/// Name -> object. Replacing a name forgets the old object without
/// releasing it, as the C runner does.
#[derive(Default)]
pub struct Objects {
    table: HashMap<String, Object>,
}

impl Objects {
    /// Adds or replaces `name`.
    pub fn put(&mut self, name: Option<&str>, object: Object) {
        if let Some(name) = name {
            self.table.insert(name.to_string(), object);
        }
    }

    /// The object called `name`.
    pub fn get(&self, name: Option<&str>) -> Option<&Object> {
        name.and_then(|n| self.table.get(n))
    }

    /// The raw handle `name` refers to; 0 (the null handle) for "null" or an
    /// unknown name.
    pub fn handle(&self, name: Option<&str>) -> u64 {
        self.get(name).map_or(0, |o| o.handle)
    }
}
