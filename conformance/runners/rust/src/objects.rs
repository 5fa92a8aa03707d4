//! The named objects a plan's steps make and use. Handles are kept as raw
//! integers and wrapped in the binding's types for each call (see
//! `handles.rs`), so that a name of one kind can be passed where another is
//! expected — how the wrong-type cases work — exactly as in the C runner.

use std::collections::HashMap;
use std::ffi::c_void;

use ncore::{Backend, Communicator, DataType};

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
    /// Buffer in ordinary host memory (`memory=plain`), leaked from a
    /// `Box<[u8]>` of `bytes.max(1)` bytes.
    pub plain: bool,
    /// A custom operator's value, remembered so a closed one can be named.
    pub redop: i32,
    /// Memory a `mem_free` step released.
    pub freed: bool,
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
            freed: false,
        }
    }
}

/// Name -> object, for one case. A name given again hides the earlier
/// object, which [`Objects::clear`] still releases.
#[derive(Default)]
pub struct Objects {
    made: Vec<Object>,
    names: HashMap<String, usize>,
}

impl Objects {
    /// Adds the object called `name` (`None`: kept for release only).
    pub fn put(&mut self, name: Option<&str>, object: Object) {
        self.made.push(object);
        if let Some(name) = name {
            self.names.insert(name.to_string(), self.made.len() - 1);
        }
    }

    /// The object called `name`.
    pub fn get(&self, name: Option<&str>) -> Option<&Object> {
        name.and_then(|n| self.names.get(n)).map(|&i| &self.made[i])
    }

    /// The object called `name`, to update.
    pub fn get_mut(&mut self, name: Option<&str>) -> Option<&mut Object> {
        name.and_then(|n| self.names.get(n))
            .map(|&i| &mut self.made[i])
    }

    /// The raw handle `name` refers to; 0 (the null handle) for "null" or an
    /// unknown name.
    pub fn handle(&self, name: Option<&str>) -> u64 {
        self.get(name).map_or(0, |o| o.handle)
    }

    /// Ends a case, as the C runner's `objects_clear`: destroys every
    /// communicator it made (their resources go with them), newest first,
    /// then frees its memory. Errors are ignored: the steps already
    /// reported what the case checks.
    pub fn clear(&mut self, backend: Backend) {
        for o in self.made.iter().rev() {
            if o.kind == Kind::Comm && o.handle != 0 {
                let _ = Communicator::from_raw(o.handle).destroy();
            }
        }
        for o in &self.made {
            if !matches!(o.kind, Kind::Buffer | Kind::Memory) || o.freed || o.ptr.is_null() {
                continue;
            }
            if o.plain {
                // SAFETY: made by Box::leak of a boxed slice of this length
                // (ops_data::buffer), and not freed before.
                drop(unsafe {
                    Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                        o.ptr.cast::<u8>(),
                        o.bytes.max(1),
                    ))
                });
            } else {
                // SAFETY: memory of ncore_mem_alloc that nothing uses any
                // more: its communicators are gone.
                let _ = unsafe { ncore::free_raw(o.ptr, backend) };
            }
        }
        self.made.clear();
        self.names.clear();
    }
}
