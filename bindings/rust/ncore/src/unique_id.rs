//! The bootstrap token (`ncore_unique_id_t`).

use std::fmt;

use ncore_sys as sys;

use crate::error::{check, Error, ErrorKind, Result};
use crate::types::Backend;

/// Number of bytes in a unique id.
pub const UNIQUE_ID_BYTES: usize = sys::NCORE_UNIQUE_ID_BYTES as usize;

/// Opaque bootstrap token: one rank makes it with [`UniqueId::new`] and hands
/// the same bytes to every rank (as `ncclUniqueId`). Plain data.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UniqueId {
    bytes: [u8; UNIQUE_ID_BYTES],
}

impl UniqueId {
    /// Makes a new id for a communicator of `backend` (`ncore_get_unique_id`).
    pub fn new(backend: Backend) -> Result<UniqueId> {
        let mut raw = sys::ncore_unique_id_t {
            internal: [0; UNIQUE_ID_BYTES],
        };
        // SAFETY: raw is a valid place for the result.
        check(unsafe { sys::ncore_get_unique_id(&mut raw, backend.raw()) })?;
        Ok(UniqueId::from_raw(&raw))
    }

    /// The id's bytes, e.g. to send them to the other ranks.
    pub fn as_bytes(&self) -> &[u8; UNIQUE_ID_BYTES] {
        &self.bytes
    }

    /// An id from bytes received from the rank that made it.
    pub fn from_bytes(bytes: [u8; UNIQUE_ID_BYTES]) -> UniqueId {
        UniqueId { bytes }
    }

    /// Lower-case hex of the bytes (the form `ncore-run` puts in
    /// `NCORE_UNIQUE_ID`).
    pub fn to_hex(&self) -> String {
        self.bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses 256 hex characters (either case); `InvalidArgument` otherwise.
    pub fn from_hex(hex: &str) -> Result<UniqueId> {
        let bad = |what: String| {
            Error::new(
                ErrorKind::InvalidArgument,
                format!("UniqueId::from_hex: hex: {what}"),
            )
        };
        if hex.len() != 2 * UNIQUE_ID_BYTES {
            return Err(bad(format!(
                "{} characters, expected {}",
                hex.len(),
                2 * UNIQUE_ID_BYTES
            )));
        }
        let mut bytes = [0u8; UNIQUE_ID_BYTES];
        for (i, byte) in bytes.iter_mut().enumerate() {
            let pair = hex
                .get(2 * i..2 * i + 2)
                .ok_or_else(|| bad("not ASCII".into()))?;
            *byte =
                u8::from_str_radix(pair, 16).map_err(|_| bad(format!("{pair:?} is not hex")))?;
        }
        Ok(UniqueId { bytes })
    }

    pub(crate) fn to_raw(self) -> sys::ncore_unique_id_t {
        sys::ncore_unique_id_t {
            internal: self.bytes.map(|b| b as std::os::raw::c_char),
        }
    }

    pub(crate) fn from_raw(raw: &sys::ncore_unique_id_t) -> UniqueId {
        UniqueId {
            bytes: raw.internal.map(|c| c as u8),
        }
    }
}

impl fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UniqueId({}...)", &self.to_hex()[..16])
    }
}
