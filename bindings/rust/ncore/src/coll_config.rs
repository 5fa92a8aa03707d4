//! The configuration of one collective call (`ncore_coll_config_t`, NCCL
//! 2.31's `ncclCollConfig_t`), as a builder; every collective takes one
//! through its `_config` method (coll_gen.rs).

use std::ffi::{c_void, CString};

use ncore_sys as sys;

use crate::config::setter;
use crate::error::{invalid_argument, Result};
use crate::versioned;

/// One vendor-specific option (NCCL's `ncclConfigExt_t` node): official
/// NCCL ignores every one; a vendor library reads those whose `vendor_id`
/// it owns. The library refuses a `vendor_id` outside 1..2^24 and a key
/// `(vendor_id, option_id)` given twice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VendorValue {
    /// `val.i`.
    Int(i32),
    /// `val.s`.
    Str(String),
    /// `val.raw`: any pointer-sized value, passed as it is.
    Raw(usize),
}

/// The configuration of one collective call; every field left unset takes
/// the communicator's value or NCCL's default. On an NCCL before 2.31, a
/// field only NCCL can serve is refused (`NotSupported`, naming it and the
/// version); `alg_selection`'s ncore names ("auto", "nccl", "oneshot",
/// "twoshot") and the launch-completion event work on every NCCL; the host
/// backend takes the tuning fields as hints and refuses an event
/// (ncore/coll.h).
///
/// ```no_run
/// # use ncore::CollConfig;
/// let config = CollConfig::new().alg_selection("oneshot").force_alg_selection(false);
/// ```
#[derive(Clone, Debug, Default)]
pub struct CollConfig {
    min_ctas: Option<i32>,
    max_ctas: Option<i32>,
    nvls_ctas: Option<i32>,
    cga_cluster_size: Option<i32>,
    alg_selection: Option<String>,
    force_alg_selection: Option<bool>,
    cta_policy: Option<i32>,
    user_profiler_tag: Option<u64>,
    vendor_options: Vec<(i32, i32, VendorValue)>,
    launch_completion_event: usize,
}

impl CollConfig {
    /// A configuration with every field unset.
    pub fn new() -> CollConfig {
        CollConfig::default()
    }

    setter!(
        /// Lower bound on the call's CTAs (NCCL `minCTAs`).
        min_ctas: i32);
    setter!(
        /// Upper bound on the call's CTAs (NCCL `maxCTAs`).
        max_ctas: i32);
    setter!(
        /// CTA cap of NVLS algorithms (NCCL `nvlsCTAs`).
        nvls_ctas: i32);
    setter!(
        /// Thread-block-cluster size, 0..8 (NCCL `cgaClusterSize`).
        cga_cluster_size: i32);
    setter!(
        /// NCCL's selection expression ("ring", "tree,ring", "^symk") or one of
        /// ncore's names: "auto", "nccl", "oneshot", "twoshot".
        alg_selection: &str);
    setter!(
        /// true (default): a selection that cannot be honoured is an error;
        /// false: automatic selection instead.
        force_alg_selection: bool);
    setter!(
        /// NCCL_CTA_POLICY_* bits (NCCL `CTAPolicy`).
        cta_policy: i32);
    setter!(
        /// Tag handed to profiler plug-ins (NCCL `userProfilerTag`).
        user_profiler_tag: u64);

    /// Adds a vendor option (NCCL's ext list).
    pub fn vendor_option(mut self, vendor_id: i32, option_id: i32, value: VendorValue) -> Self {
        self.vendor_options.push((vendor_id, option_id, value));
        self
    }

    /// A CUDA event (a `cudaEvent_t`, made with timing disabled) recorded when
    /// the call's launch completes; 0: none.
    ///
    /// # Safety
    /// `event` must be a live CUDA event of the communicator's context for
    /// as long as calls with this configuration run: the library records it.
    pub unsafe fn launch_completion_event(mut self, event: *mut c_void) -> Self {
        self.launch_completion_event = event as usize;
        self
    }

    /// The C struct, with the strings and options its pointers borrow (kept
    /// alive by the caller for the duration of the call).
    pub(crate) fn to_raw(&self, function: &str) -> Result<RawCollConfig> {
        let cstring = |name: &str, s: &str| {
            CString::new(s)
                .map_err(|_| invalid_argument(function, name, "contains a NUL byte".into()))
        };
        let selection = self
            .alg_selection
            .as_deref()
            .map(|s| cstring("config.alg_selection", s))
            .transpose()?;
        let mut strings = Vec::new();
        let mut options = Vec::with_capacity(self.vendor_options.len());
        for (vendor_id, option_id, value) in &self.vendor_options {
            let mut option = sys::ncore_vendor_option_t {
                vendor_id: *vendor_id,
                option_id: *option_id,
                kind: sys::NCORE_VENDOR_OPTION_INT as i32,
                int_value: 0,
                str_value: std::ptr::null(),
                raw_value: std::ptr::null_mut(),
            };
            match value {
                VendorValue::Int(i) => option.int_value = *i,
                VendorValue::Str(s) => {
                    let text = cstring("config.vendor_options", s)?;
                    option.kind = sys::NCORE_VENDOR_OPTION_STRING as i32;
                    option.str_value = text.as_ptr();
                    strings.push(text); // the heap bytes stay where they are
                }
                VendorValue::Raw(r) => {
                    option.kind = sys::NCORE_VENDOR_OPTION_RAW as i32;
                    option.raw_value = *r as *mut c_void;
                }
            }
            options.push(option);
        }
        let mut raw = versioned::defaults(sys::ncore_coll_config_init)?;
        let undef = sys::NCORE_CONFIG_UNDEF_INT;
        raw.min_ctas = self.min_ctas.unwrap_or(undef);
        raw.max_ctas = self.max_ctas.unwrap_or(undef);
        raw.nvls_ctas = self.nvls_ctas.unwrap_or(undef);
        raw.cga_cluster_size = self.cga_cluster_size.unwrap_or(undef);
        raw.alg_selection = selection.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        raw.force_alg_selection = self.force_alg_selection.map_or(1, i32::from);
        raw.cta_policy = self.cta_policy.unwrap_or(undef);
        raw.user_profiler_tag = self.user_profiler_tag.unwrap_or(0);
        raw.vendor_options = if options.is_empty() {
            std::ptr::null()
        } else {
            options.as_ptr()
        };
        raw.vendor_option_count = u32::try_from(options.len())
            .map_err(|_| invalid_argument(function, "config.vendor_options", "too many".into()))?;
        raw.launch_completion_event = self.launch_completion_event as *mut c_void;
        Ok(RawCollConfig {
            raw,
            _selection: selection,
            _strings: strings,
            _options: options,
        })
    }
}

/// A C config and what its pointers borrow.
pub(crate) struct RawCollConfig {
    pub(crate) raw: sys::ncore_coll_config_t,
    _selection: Option<CString>,
    _strings: Vec<CString>,
    _options: Vec<sys::ncore_vendor_option_t>,
}
