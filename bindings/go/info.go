package ncore

/*
#include "ncgo.h"
*/
import "C"

// Feature bits of LibraryInfo.Features (NCORE_FEATURE_*): calls the chosen
// backend serves.
type Feature uint32

const (
	FeatureOneSided     Feature = C.NCORE_FEATURE_ONE_SIDED
	FeatureRevoke       Feature = C.NCORE_FEATURE_REVOKE
	FeatureGrow         Feature = C.NCORE_FEATURE_GROW
	FeatureSuspend      Feature = C.NCORE_FEATURE_SUSPEND
	FeatureMemStat      Feature = C.NCORE_FEATURE_MEM_STAT
	FeatureScalableInit Feature = C.NCORE_FEATURE_SCALABLE_INIT
)

// LibraryInfo describes the loaded libncore (ncore_library_info_t).
// Backend is BackendAuto when AUTO resolves to none (BackendReason says
// why); NCCLVersion is NCCL's code (22809 for 2.28.9), 0 and NCCLPath ""
// when no libnccl was loaded. NCCLHeadersVersion is the newest NCCL ncore
// knows (23007 for 2.30.7) and NCCLCUDAVersion the CUDA version the loaded
// libnccl was built with (12090 for 12.9; 0: none), both ABI 1.2.
type LibraryInfo struct {
	Version            string
	ABIVersion         int
	Backend            Backend
	BackendReason      string
	Features           Feature
	NCCLVersion        int
	NCCLPath           string
	CUDADeviceCount    int
	NCCLHeadersVersion int
	NCCLCUDAVersion    int
}

// GetLibraryInfo describes the loaded libncore, probing NCCL as AUTO would
// (ncore_library_info).
func GetLibraryInfo() (LibraryInfo, error) {
	var c C.ncore_library_info_t
	c.struct_size = C.uint32_t(C.sizeof_ncore_library_info_t)
	if err := fromResult(C.ncgo_library_info(&c)); err != nil {
		return LibraryInfo{}, err
	}
	return LibraryInfo{
		Version:            C.GoString(&c.version[0]),
		ABIVersion:         int(c.abi_version),
		Backend:            Backend(c.backend),
		BackendReason:      C.GoString(&c.backend_reason[0]),
		Features:           Feature(c.features),
		NCCLVersion:        int(c.nccl_version),
		NCCLPath:           C.GoString(&c.nccl_path[0]),
		CUDADeviceCount:    int(c.cuda_device_count),
		NCCLHeadersVersion: int(c.nccl_headers_version),
		NCCLCUDAVersion:    int(c.nccl_cuda_version),
	}, nil
}
