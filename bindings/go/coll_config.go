package ncore

/*
#include <stdlib.h>
#include "ncgo.h"

// A value C takes as a void * and this binding never dereferences (a CUDA
// event, a vendor's raw value), stored from its integer.
static void ncgo_coll_config_handles(ncore_coll_config_t *c, uintptr_t event) {
  c->launch_completion_event = (void *)event;
}
static void ncgo_vendor_option_raw(ncore_vendor_option_t *o, uintptr_t value) {
  o->raw_value = (void *)value;
}
*/
import "C"

import "unsafe"

// VendorOption is one vendor-specific option of a CollConfig (NCCL's
// ncclConfigExt_t node, ncore_vendor_option_t): official NCCL ignores every
// one; a vendor library reads those whose VendorID it owns. Kind says which
// value is meant: VendorOptionInt (IntValue), VendorOptionString
// (StrValue) or VendorOptionRaw (RawValue, any pointer-sized value).
type VendorOption struct {
	VendorID, OptionID int32
	Kind               int32
	IntValue           int32
	StrValue           string
	RawValue           uintptr
}

// The kinds of a VendorOption's value.
const (
	VendorOptionInt    int32 = C.NCORE_VENDOR_OPTION_INT
	VendorOptionString int32 = C.NCORE_VENDOR_OPTION_STRING
	VendorOptionRaw    int32 = C.NCORE_VENDOR_OPTION_RAW
)

// CollConfig is the configuration of one collective call
// (ncore_coll_config_t, NCCL 2.31's ncclCollConfig_t), taken by every
// collective's Config method. Start from DefaultCollConfig: the zero value
// is not the default (the integers must be ConfigUndef and
// ForceAlgSelection 1). On an NCCL before 2.31 a field only NCCL can serve
// is refused (StatusNotSupported, naming it and the version);
// AlgSelection's ncore names ("auto", "nccl", "oneshot", "twoshot") and
// LaunchCompletionEvent work on every NCCL; the host backend takes the
// tuning fields as hints and refuses an event (ncore/coll.h).
type CollConfig struct {
	MinCTAs, MaxCTAs, NVLSCTAs, CGAClusterSize int32
	// NCCL's selection expression ("ring", "tree,ring", "^symk") or one of
	// ncore's names; "" = automatic.
	AlgSelection string
	// 1: a selection that cannot be honoured is an error; 0: automatic
	// selection instead.
	ForceAlgSelection int32
	CTAPolicy         int32
	UserProfilerTag   uint64
	VendorOptions     []VendorOption
	// A cudaEvent_t made with timing disabled, recorded when the call's
	// launch completes; 0 = none. It must stay a live event while calls
	// with this configuration run.
	LaunchCompletionEvent uintptr
}

// DefaultCollConfig is NCORE_COLL_CONFIG_INIT: every field unset.
func DefaultCollConfig() CollConfig {
	return CollConfig{MinCTAs: ConfigUndef, MaxCTAs: ConfigUndef, NVLSCTAs: ConfigUndef,
		CGAClusterSize: ConfigUndef, ForceAlgSelection: 1, CTAPolicy: ConfigUndef}
}

// cCollConfig is a C copy of a CollConfig: the struct and everything its
// pointers reach are C memory (cgo's check looks at the whole allocation a
// passed pointer lies in, and this one's owned list is a Go slice),
// released by free.
type cCollConfig struct {
	c     *C.ncore_coll_config_t
	owned []unsafe.Pointer
}

// toC converts cfg (nil: none, a nil pointer), starting from the
// library's defaults for this binding's struct size.
func (cfg *CollConfig) toC() (*cCollConfig, error) {
	if cfg == nil {
		return nil, nil
	}
	out := &cCollConfig{}
	p := C.calloc(1, C.sizeof_ncore_coll_config_t)
	out.owned = append(out.owned, p)
	out.c = (*C.ncore_coll_config_t)(p)
	if err := fromResult(C.ncgo_coll_config_init(out.c, C.sizeof_ncore_coll_config_t)); err != nil {
		out.free()
		return nil, err
	}
	out.c.min_ctas = C.int32_t(cfg.MinCTAs)
	out.c.max_ctas = C.int32_t(cfg.MaxCTAs)
	out.c.nvls_ctas = C.int32_t(cfg.NVLSCTAs)
	out.c.cga_cluster_size = C.int32_t(cfg.CGAClusterSize)
	out.c.force_alg_selection = C.int32_t(cfg.ForceAlgSelection)
	out.c.cta_policy = C.int32_t(cfg.CTAPolicy)
	out.c.user_profiler_tag = C.uint64_t(cfg.UserProfilerTag)
	C.ncgo_coll_config_handles(out.c, C.uintptr_t(cfg.LaunchCompletionEvent))
	if cfg.AlgSelection != "" {
		out.c.alg_selection = out.cstring(cfg.AlgSelection)
	}
	if n := len(cfg.VendorOptions); n > 0 {
		size := C.size_t(n) * C.sizeof_ncore_vendor_option_t
		p := C.calloc(1, size)
		out.owned = append(out.owned, p)
		options := unsafe.Slice((*C.ncore_vendor_option_t)(p), n)
		for i, o := range cfg.VendorOptions {
			options[i].vendor_id = C.int32_t(o.VendorID)
			options[i].option_id = C.int32_t(o.OptionID)
			options[i].kind = C.int32_t(o.Kind)
			options[i].int_value = C.int32_t(o.IntValue)
			if o.Kind == VendorOptionString {
				options[i].str_value = out.cstring(o.StrValue)
			}
			C.ncgo_vendor_option_raw(&options[i], C.uintptr_t(o.RawValue))
		}
		out.c.vendor_options = (*C.ncore_vendor_option_t)(p)
		out.c.vendor_option_count = C.uint32_t(n)
	}
	return out, nil
}

func (c *cCollConfig) cstring(s string) *C.char {
	p := C.CString(s)
	c.owned = append(c.owned, unsafe.Pointer(p))
	return p
}

// ptr is the C pointer to pass (nil for none).
func (c *cCollConfig) ptr() *C.ncore_coll_config_t {
	if c == nil {
		return nil
	}
	return c.c
}

// free releases the C memory.
func (c *cCollConfig) free() {
	if c == nil {
		return
	}
	for _, p := range c.owned {
		C.free(p)
	}
	c.owned = nil
}
