# ncore — the README's commands. Every target works from a fresh clone.
#   make deps          install the Debian packages the build and tests need (root)
#   make lib           only what a user needs: build/lib/libncore.so (+ .so.1),
#                      build/bin/ncore-run and build/bin/ncore-demo
#   make test-programs `make lib` plus the C test programs (build/tests/), the
#                      C conformance runner and the host benchmark (build/bin/);
#                      test, soak, bench and conformance build them first
#   make demo          run examples/demo on 4 ranks
#   make test          every test suite, then one "N passed, N failed" line
#                      (not tools/scratch-operation.sh, which .ci/run runs after
#                      it: a throwaway collective added, built and tested in a
#                      copy of the tree; run it by hand the same way)
#   make check-generated  every generated file (tools/generated-files.txt) is
#                      what its generator makes now (a stage of make test)
#   make regenerate    run every generator of that list in place
#   make soak          a long multi-rank run checking RSS, fds, maps, /dev/shm
#   make bench         host benchmarks against Open MPI and memcpy into
#                      bench/results/ (bench/run-host.sh; no GPU needed)
#   make conformance   the conformance matrix on the host backend
#   make conformance-gpu  the same on NCCL, cases of up to one rank per GPU
#   make install       install into PREFIX (default /usr/local), under DESTDIR if set
#   make abi-check     compare build/lib/libncore.so with abi/baseline/
#   make abi-baseline  record a release: abi/baseline/ (docs/abi-policy.md; releases only)
#   make clean         remove build/ and Bazel's outputs
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# Bazel needs a HOME (its output base lives under ~/.cache/bazel); CI may
# start without one.
ifeq ($(strip $(HOME)),)
export HOME := /tmp/ncore-home
endif

DEBIAN_PACKAGES := bazel-bootstrap swig bindgen golang-go python3-dev \
                   python3-pytest python3-numpy abigail-tools libdlpack-dev \
                   clang-14 libclang-rt-14-dev python3-matplotlib python3-venv \
                   python3-wheel python3-setuptools pkgconf cmake \
                   openmpi-bin libopenmpi-dev libpmix-dev \
                   mpich libmpich-dev slurmd slurmctld slurm-client munge python3-torch \
                   python3-mpi4py universal-ctags
# The demo's ranks: one per GPU where NCCL will be used, else 4 processes.
GPU_COUNT := $(shell nvidia-smi -L 2>/dev/null | grep -c '^GPU')
DEMO_RANKS ?= $(if $(filter-out 0,$(GPU_COUNT)),$(GPU_COUNT),4)

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps lib test-programs install demo test check-generated regenerate soak bench conformance conformance-gpu abi-check abi-baseline clean

all: lib

deps:
	@missing=""; \
	for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "deps: installing$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "deps: missing Debian packages (install as root: apt-get install$$missing)"; exit 1; fi

lib:
	tools/build-variant.sh normal build lib

test-programs:
	tools/build-variant.sh normal build all

# The library (soname chain), headers, ncore-run, pkg-config and CMake files.
install: lib
	tools/install/install.sh "$(PREFIX)" "$(DESTDIR)"

demo: deps lib
	build/bin/ncore-run -n $(DEMO_RANKS) --timeout 300 build/bin/ncore-demo

test: deps test-programs
	tools/run-test-suites.sh

# Each generator runs in a scratch copy of the tree; a difference fails with
# the diff and the command that regenerates the file.
check-generated:
	/usr/bin/python3 tools/check-generated.py

regenerate:
	/usr/bin/python3 tools/check-generated.py --regenerate

# SOAK_ARGS bounds it (tests/soak/soak.c): ranks, rounds, cycles, seconds.
SOAK_ARGS ?= --ranks 4 --iterations 100000 --cycles 1000 --seconds 900
soak: deps test-programs
	build/tests/soak $(SOAK_ARGS)

bench: deps test-programs
	bench/run-host.sh

conformance: test-programs
	/usr/bin/python3 conformance/run.py

# On a GPU machine (no Bazel there: build here, carry build/ and the runners).
conformance-gpu:
	NCORE_BACKEND=nccl NCCL_NVLS_ENABLE=0 python3 conformance/run.py \
	  --max-ranks $$(nvidia-smi -L | grep -c '^GPU')

abi-check: lib
	tools/abi-check

# A release only (docs/abi-policy.md): freezes the newest version node.
abi-baseline: lib
	mkdir -p abi/baseline
	abidw --no-corpus-path --headers-dir abi/include --out-file abi/baseline/libncore.abi build/lib/libncore.so
	/usr/bin/python3 tools/ncore_api.py newest-node > abi/baseline/released-node
	@echo "abi-baseline: wrote abi/baseline/libncore.abi; released node $$(cat abi/baseline/released-node)"

clean:
	rm -rf build
	-bazel clean 2>/dev/null
