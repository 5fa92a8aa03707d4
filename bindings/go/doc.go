// Package ncore is the Go binding of libncore, a stable C ABI over NCCL with a
// shared-memory host backend for machines without GPUs.
//
// It mirrors the C ABI (abi/include/ncore.h) and nccl.core's names:
// Communicator (InitRank, InitAll, FromEnv, Split, Shrink, Finalize, Close,
// Abort), point-to-point (Send, Recv), the collectives, one-sided
// Signal / WaitSignal / PutSignal, registered buffers and windows, custom
// reduction operators (CreatePreMulSum), device communicators, symmetric
// memory, and memory / stream helpers so that the same Go code runs on the
// host backend and on GPUs.
//
// # Errors
//
// Every failure is an *Error carrying the C Status and the library's message
// ("ncore_send: peer: 7 is out of range [0, 4)"). Compare with errors.Is
// against the sentinels: errors.Is(err, ncore.ErrClosed). The message is read
// inside the same C call as the failing function (see ncgo.h), because
// successive cgo calls may run on different OS threads and the C message is
// thread-local. Checks the binding makes itself (a Go slice too short for the
// count, a Go slice on the NCCL backend) use the same message form.
//
// # Handles
//
// Every handle type (Communicator, RegisteredBuffer, Window, CustomRedOp,
// DevComm, SymmetricMemory, DeviceMemory, Stream) has Close, which is
// idempotent, and a finalizer that closes it if it is garbage collected while
// open. The six types over C handles embed one resource type that gives them
// Handle, Close and IsValid. Destroying or aborting a communicator closes its resources; their
// methods then return ErrClosed (the C handles are generation-checked
// integers, so any order of Close calls and finalizers is safe).
//
// # Buffers
//
// A Buffer is either host memory, a Go slice wrapped by Host(slice) (its
// element type gives the data type), or device memory described by a
// DevicePtr (an address and a length in bytes, typed with DevicePtr.As).
// DeviceMemory from MemAlloc is ncore_mem_alloc memory: device memory on
// NCCL, shared memory on the host backend. Go has no read-only slice, so a
// receive buffer made with Host is always writable memory; a DevicePtr is an
// address its maker vouches for, as in C. A negative element count or size
// is refused, never passed on as a huge size_t.
//
// Go slices follow cgo's pointer rules: C never keeps a Go pointer past the
// call. So Go slices are accepted on the host backend only, where every
// operation completes before it returns; on NCCL, operations are asynchronous
// on a stream and need device pointers (DeviceMemory or a DevicePtr from
// another CUDA library), and passing a slice gives ErrInvalidArgument.
// Inside a group (GroupStart / Group), where operations run at GroupEnd, a Go
// slice is staged through C memory: copied in when the call is queued and,
// for receive buffers, copied back at the outermost GroupEnd. Registration
// (RegisterBuffer, RegisterWindow) keeps the pointer, so it takes DevicePtr
// memory only. Memcpy / Memset with a Go slice wait for the stream before
// returning.
//
// # Argument checks
//
// The binding checks only what the library cannot see: that a Go slice holds
// the elements a call will touch (C must never write past it) and Go ints
// that do not fit the C types. Everything else, NULL buffers with elements
// included, goes to the library, so that one failing call gives the same
// status and message in every language.
//
// # Raw handles and addresses
//
// For code that also holds C handles, every handle type has Handle and a
// ...FromHandle constructor that makes a borrowed wrapper (no finalizer);
// DeviceElements describes C or device memory with an explicit element count;
// HostBytes views a byte slice as any element type; DeviceMemory.Release and
// MemFree manage MemAlloc memory by address. ResolveDLPack,
// ResolveArrayInterface and Communicator.CheckBuffer resolve buffers of other
// frameworks through the library.
//
// # Pointers
//
// Window and symmetric-memory pointer queries return (addr uintptr, ok bool,
// err error): ok is false, and addr 0, when the memory is not load/store
// reachable (nccl.core returns None there).
//
// # Devices and threads
//
// On NCCL a CUDA device is current per OS thread, and Go moves goroutines
// between threads. InitRank with Config.Device (or FromEnv, which
// picks local rank % devices) makes the device current on the calling
// thread only; MemAlloc, Memcpy, SynchronizeDefault and the default stream
// of every call use the calling thread's device. A goroutine that drives a
// rank therefore calls runtime.LockOSThread before its first call (a
// program with one rank per process: in an init function, which locks the
// main goroutine), or SetDevice after locking, on every thread it uses.
// Unlocked, memory can land on GPU 0 and a synchronisation wait for the
// wrong GPU's stream while the communicator runs on another.
//
// # Groups and threads
//
// NCCL groups belong to the calling OS thread. GroupStart therefore locks the
// goroutine to its OS thread (runtime.LockOSThread) and the outermost
// GroupEnd unlocks it; every call of a group must be made by the goroutine
// that started it. Group(func() error) does both ends for you.
//
// # Contexts
//
// The C ABI has no per-call cancellation, only ncore_comm_abort, which may be
// called from another thread to unblock a waiting call. WaitSignalContext and
// RecvContext use it: if ctx is done before the call returns, the
// communicator is ABORTED (closed for good, peers see ErrRemote) and the
// returned error matches both ErrClosed and ctx.Err(). Use them when giving
// up on a peer means giving up on the communicator.
//
// # Thread safety
//
// As in NCCL and the C ABI: calls on different communicators may run
// concurrently; calls on one communicator must be serialised by the caller,
// except Abort, which is safe from any goroutine.
package ncore
