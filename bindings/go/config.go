package ncore

/*
#include "ncgo.h"
*/
import "C"

import (
	"time"
	"unsafe"
)

// ConfigUndef leaves an integer Config field at the backend's default
// (NCORE_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT).
const ConfigUndef int32 = C.NCORE_CONFIG_UNDEF_INT

// Config is a communicator configuration (ncore_comm_config_t). Start from
// DefaultConfig: the zero value is not the default (Device must be -1 and
// the NCCL fields ConfigUndef).
type Config struct {
	// Backend: BackendAuto (default), BackendHost or BackendNCCL.
	Backend Backend
	// Timeout: how long a blocking call waits for peers before ErrTimeout,
	// rounded to milliseconds. 0 = the library default (NCORE_TIMEOUT_MS,
	// else 300 s); negative = wait forever.
	Timeout time.Duration
	// Device: CUDA device for the NCCL backend; -1 = the current device.
	// Must be -1 on the host backend.
	Device int
	// The fields below mirror ncclConfig_t; ConfigUndef / "" keep NCCL's
	// default. The host backend ignores them except Blocking.
	Blocking            int32
	CGAClusterSize      int32
	MinCTAs             int32
	MaxCTAs             int32
	NetName             string
	SplitShare          int32
	TrafficClass        int32
	CommName            string
	CollNetEnable       int32
	CTAPolicy           int32
	ShrinkShare         int32
	NVLSCTAs            int32
	NChannelsPerNetPeer int32
	NVLinkCentricSched  int32
	// NCCL 2.29+ (GraphUsageMode, NumRMACtx), 2.30+ (MaxP2PPeers), 2.30.5+
	// (GraphStreamOrdering): set on an older NCCL, init fails with
	// StatusNotSupported naming the field.
	GraphUsageMode      int32
	NumRMACtx           int32
	MaxP2PPeers         int32
	GraphStreamOrdering int32
	// NCCL 2.31.0+ (LaunchOrderImplicit: 1 = take part in implicit launch
	// ordering; NumRMASig: one-sided signal indexes per RMA context;
	// RMAEagerInit: 1 = set up one-sided signalling at creation), 2.31.1+
	// (HostCFTMode: HostCFT*), 2.32.0+ (NVLSHostMode: NVLSHostMode* bits):
	// the same rule.
	LaunchOrderImplicit int32
	NumRMASig           int32
	RMAEagerInit        int32
	HostCFTMode         int32
	NVLSHostMode        int32
}

// Config.HostCFTMode values (ncclHostCftMode_t); ConfigUndef is NCCL's
// default. Fallback tries and disables host CFT on error instead of failing.
const (
	HostCFTEnable   int32 = C.NCORE_HOST_CFT_ENABLE
	HostCFTDisable  int32 = C.NCORE_HOST_CFT_DISABLE
	HostCFTFallback int32 = C.NCORE_HOST_CFT_FALLBACK
)

// Config.NVLSHostMode values (ncclNvlsHostMode_t): Enable, or the
// Disable* bits or'ed together, or Disable for every component present
// and future; ConfigUndef is NCCL's default.
const (
	NVLSHostModeEnable                   int32 = C.NCORE_NVLS_HOST_MODE_ENABLE
	NVLSHostModeDisableTransport         int32 = C.NCORE_NVLS_HOST_MODE_DISABLE_TRANSPORT
	NVLSHostModeDisableSymmetricMultimem int32 = C.NCORE_NVLS_HOST_MODE_DISABLE_SYMMETRIC_MULTIMEM
	NVLSHostModeDisable                  int32 = C.NCORE_NVLS_HOST_MODE_DISABLE
)

// DefaultConfig is NCORE_COMM_CONFIG_INIT: backend Auto, default timeout,
// device -1, every NCCL field undefined.
func DefaultConfig() Config {
	return Config{
		Backend: BackendAuto, Device: -1,
		Blocking: ConfigUndef, CGAClusterSize: ConfigUndef, MinCTAs: ConfigUndef,
		MaxCTAs: ConfigUndef, SplitShare: ConfigUndef, TrafficClass: ConfigUndef,
		CollNetEnable: ConfigUndef, CTAPolicy: ConfigUndef, ShrinkShare: ConfigUndef,
		NVLSCTAs: ConfigUndef, NChannelsPerNetPeer: ConfigUndef, NVLinkCentricSched: ConfigUndef,
		GraphUsageMode: ConfigUndef, NumRMACtx: ConfigUndef, MaxP2PPeers: ConfigUndef,
		GraphStreamOrdering: ConfigUndef, LaunchOrderImplicit: ConfigUndef, NumRMASig: ConfigUndef,
		RMAEagerInit: ConfigUndef, HostCFTMode: ConfigUndef, NVLSHostMode: ConfigUndef,
	}
}

// cConfig is a C copy of a Config, with its C strings; free releases them.
type cConfig struct {
	c       C.ncore_comm_config_t
	strings []*C.char
}

// toC converts cfg (nil = library defaults, reported as a nil pointer),
// starting from the library's defaults for this binding's struct size.
func (cfg *Config) toC() (*cConfig, error) {
	if cfg == nil {
		return nil, nil
	}
	out := &cConfig{}
	if err := fromResult(C.ncgo_comm_config_init(&out.c, C.sizeof_ncore_comm_config_t)); err != nil {
		return nil, err
	}
	out.c.backend = C.int32_t(cfg.Backend)
	out.c.timeout_ms = C.int32_t(timeoutMillis(cfg.Timeout))
	n := cNumbers{function: "ncore_comm_config_t"}
	out.c.device = n.int32("device", cfg.Device)
	if n.err != nil {
		return nil, n.err
	}
	out.c.blocking = C.int32_t(cfg.Blocking)
	out.c.cga_cluster_size = C.int32_t(cfg.CGAClusterSize)
	out.c.min_ctas = C.int32_t(cfg.MinCTAs)
	out.c.max_ctas = C.int32_t(cfg.MaxCTAs)
	out.c.split_share = C.int32_t(cfg.SplitShare)
	out.c.traffic_class = C.int32_t(cfg.TrafficClass)
	out.c.collnet_enable = C.int32_t(cfg.CollNetEnable)
	out.c.cta_policy = C.int32_t(cfg.CTAPolicy)
	out.c.shrink_share = C.int32_t(cfg.ShrinkShare)
	out.c.nvls_ctas = C.int32_t(cfg.NVLSCTAs)
	out.c.n_channels_per_net_peer = C.int32_t(cfg.NChannelsPerNetPeer)
	out.c.nvlink_centric_sched = C.int32_t(cfg.NVLinkCentricSched)
	out.c.graph_usage_mode = C.int32_t(cfg.GraphUsageMode)
	out.c.num_rma_ctx = C.int32_t(cfg.NumRMACtx)
	out.c.max_p2p_peers = C.int32_t(cfg.MaxP2PPeers)
	out.c.graph_stream_ordering = C.int32_t(cfg.GraphStreamOrdering)
	out.c.launch_order_implicit = C.int32_t(cfg.LaunchOrderImplicit)
	out.c.num_rma_sig = C.int32_t(cfg.NumRMASig)
	out.c.rma_eager_init = C.int32_t(cfg.RMAEagerInit)
	out.c.host_cft_mode = C.int32_t(cfg.HostCFTMode)
	out.c.nvls_host_mode = C.int32_t(cfg.NVLSHostMode)
	if cfg.NetName != "" {
		out.c.net_name = out.cstring(cfg.NetName)
	}
	if cfg.CommName != "" {
		out.c.comm_name = out.cstring(cfg.CommName)
	}
	return out, nil
}

// cstring makes a C string owned by the cConfig (C memory, so the struct
// passed to C holds no Go pointers).
func (c *cConfig) cstring(s string) *C.char {
	p := C.CString(s)
	c.strings = append(c.strings, p)
	return p
}

// ptr is the C pointer to pass (nil for defaults).
func (c *cConfig) ptr() *C.ncore_comm_config_t {
	if c == nil {
		return nil
	}
	return &c.c
}

// free releases the C strings.
func (c *cConfig) free() {
	if c == nil {
		return
	}
	for _, p := range c.strings {
		C.free(unsafe.Pointer(p))
	}
	c.strings = nil
}

// timeoutMillis maps a Duration to the C field: 0 default, negative forever,
// else at least 1 ms, at most INT32_MAX.
func timeoutMillis(d time.Duration) int64 {
	switch {
	case d == 0:
		return 0
	case d < 0:
		return -1
	}
	ms := int64((d + time.Millisecond - 1) / time.Millisecond)
	if ms > 1<<31-1 {
		ms = 1<<31 - 1
	}
	return ms
}
