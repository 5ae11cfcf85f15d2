# Cairn: top-level entry points. See README.md.
#   make run     install what is missing, build, run the flagship (three modules, a migration), write out/report/
#   make demo    the single-processor demo: energy by state, category, task and function
#   make test    every test (Rust, firmware on cairn-sim and QEMU, the SPIN model, Python)
#   make build   simulator at build/bin/cairn-sim, firmware under build/fw/
#   make bench   benchmarks, JSON under build/bench/
#   make timesync-demo  four modules' clocks synchronised; prints the true skew (docs/distributed.md)
#   make reproduce  the seed studies at full size; the report in out/report/index.html (docs/studies.md)
#   make soak    the migration fault campaign with SOAK_SEEDS seeded scenarios (docs/migration.md, "Fault campaign")
#   make fuzz    bounded cargo-fuzz runs of the ELF loader, the core and the board/device files (FUZZ_SECONDS each)

SHELL := /bin/bash
.DEFAULT_GOAL := build

BUILD ?= build
VENV ?= .venv
PY := $(VENV)/bin/python
CARGO ?= cargo
# Where rustup puts cargo: scripts/bootstrap may install it there during this very `make run`.
export PATH := $(or $(CARGO_HOME),$(HOME)/.cargo)/bin:$(PATH)
SIM := $(BUILD)/bin/cairn-sim
FUZZ_SECONDS ?= 60
SOAK_SEEDS ?= 20000
OUT ?= out

include kernel/firmware.mk

.PHONY: reproduce
# The seed papers' studies at full size, with the paper's figures beside ours (docs/studies.md).
# The estimate comes first, before the build that may take minutes on a fresh checkout.
reproduce:
	@$(PY) -m cairn.study --size full --estimate
	@$(MAKE) --no-print-directory build
	$(PY) -m cairn.study --size full --no-estimate --out $(OUT)/report

.PHONY: soak
# The task migration fault campaign, many more seeds than make test's 1,000 (--start 1000: new ones).
soak: build
	$(PY) -m cairn.fault_campaign --seeds $(SOAK_SEEDS) --start 1000 --jobs 2

.PHONY: all build sim bootstrap bootstrap-run test test-rust test-python test-kernel test-spin lint run demo bench fuzz clean timesync-demo

all: build

bootstrap:
	@scripts/bootstrap

# Only what the flagship and the demo need: a new machine's first command stays short, and
# `make test` installs the rest.
bootstrap-run:
	@scripts/bootstrap --run

# A target that runs Python (the UART frame `make firmware` writes) works from a checkout that
# was never bootstrapped: the venv is made first.
$(PY):
	@scripts/bootstrap

# MAKEFLAGS cleared: under `make build`'s -j cargo would look for make's job slots, which make
# hands only to recipes that run $(MAKE), and warn; it schedules its own jobs instead.
sim:
	cd sim && MAKEFLAGS= $(CARGO) build --release --locked --quiet
	@mkdir -p $(BUILD)/bin
	@cp sim/target/release/cairn-sim $(SIM)

# The simulator and the firmware side by side: cargo's fat-LTO link of cairn-sim runs on one core
# for most of its time, and the firmware's gcc runs fill the others. The ELFs are the same as
# from a serial build.
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
build:
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) sim firmware

lint:
	cd sim && $(CARGO) clippy --release --locked --quiet --all-targets -- -D warnings
	cd sim && $(CARGO) fmt --check

test-rust:
	cd sim && $(CARGO) test --release --locked --quiet

# The Cairn kernel compiled for the host with ASan/UBSan, unit-tested with cmocka via ctest.
test-kernel:
	cmake -S kernel -B $(BUILD)/kernel-host -DCMAKE_BUILD_TYPE=Debug --log-level=WARNING
	cmake --build $(BUILD)/kernel-host -j2
	ctest --test-dir $(BUILD)/kernel-host --output-on-failure

test-python: build
	$(PY) -m pytest python/tests -q

# The task migration protocol model-checked with SPIN (kernel/spec/migration.pml): every
# configuration of docs/migration.md's bound passes, every deliberately broken variant is
# caught, and the table there is what this run found. Work files under build/spin/.
test-spin:
	$(PY) -m cairn.spin

test: bootstrap build lint test-rust test-kernel test-spin test-python

run: bootstrap-run build
	@mkdir -p $(OUT)
	$(PY) -m cairn.flagship --sim $(SIM) --out $(OUT)

# The single-processor demo: a CPU-bound firmware and the hello application, energy breakdowns.
demo: bootstrap-run build
	@mkdir -p $(OUT)
	$(PY) -m cairn.demo --sim $(SIM) --firmware $(BUILD)/fw/demo.elf --out $(OUT)

# Time synchronisation across four modules (kernel/apps/timesync): the last line is
# "time sync: max skew N.N us over M marks", measured from the simulator's true clocks.
timesync-demo: build
	$(PY) -m cairn.timesync_skew

# The device benchmark's workloads run longer than the test builds (BENCH_DEVICE_RUN_MS of
# each module's time), so process start-up does not weigh in the ratios.
BENCH_DEVICE_RUN_MS ?= 500
BENCH_DEVICE_FW := $(BUILD)/fw/bench/device-busy-100.elf $(BUILD)/fw/bench/device-busy-10.elf \
	$(BUILD)/fw/bench/device-busy-1.elf $(BUILD)/fw/bench/device-sleepy.elf
$(BUILD)/fw/bench/device-busy-%.elf: kernel/tests/device/busy.c $(FW_DEV_SUPPORT_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_DEV_CFLAGS) -DRUN_MS=$(BENCH_DEVICE_RUN_MS) -DFRAME_PERIOD_US=$* $(FW_LDFLAGS) \
		-o $@ $< $(FW_DEV_SUPPORT_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDLIBS)
$(BUILD)/fw/bench/device-sleepy.elf: kernel/tests/device/sleepy.c $(FW_DEV_SUPPORT_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_DEV_CFLAGS) -DRUN_MS=$(BENCH_DEVICE_RUN_MS) $(FW_LDFLAGS) \
		-o $@ $< $(FW_DEV_SUPPORT_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDLIBS)

# The simulator before the device layer, which the device benchmark compares against
# (scripts/baseline-sim builds it under build/baseline/).
BASELINE_REF ?= 26882c6

# The CPU-bound benchmark firmware: the demo with enough work to time QEMU well.
BENCH_ITERATIONS ?= 3000
$(BUILD)/fw/bench_cpu.elf: $(FW_DEMO_SRCS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) -DDEMO_ITERATIONS=$(BENCH_ITERATIONS) $(FW_LDFLAGS) -o $@ $(FW_DEMO_SRCS) $(FW_BSP_OBJS) $(FW_LDLIBS)

bench: bootstrap build $(BUILD)/fw/bench_cpu.elf $(BENCH_DEVICE_FW) $(BUILD)/fw/kernel-bench.elf $(BUILD)/fw/kernel-bench-notrace.elf \
		$(BUILD)/fw/kernel-bench-plainsem.elf $(BUILD)/fw/thread-metric.elf $(BUILD)/fw/thread-metric-plainsem.elf \
		$(BUILD)/fw/kernel-bench-edf.elf $(BUILD)/fw/kernel-bench-csd.elf \
		$(BUILD)/fw/kernel-overheads-fp.elf $(BUILD)/fw/kernel-overheads-edf.elf $(BUILD)/fw/kernel-overheads-csd.elf \
		$(BUILD)/fw/net-bench.elf $(BUILD)/fw/net-bench-notrace.elf \
		$(foreach m,limit tinyos coop nos mantis cairn,$(BUILD)/fw/metric-$(m).elf)
	@mkdir -p $(BUILD)/bench
	$(PY) -m cairn.bench.sim --sim $(SIM) --fw $(BUILD)/fw --out $(BUILD)/bench/sim.json
	$(PY) -m cairn.bench.kernel --sim $(SIM) --elf $(BUILD)/fw/kernel-bench.elf \
		--elf-notrace $(BUILD)/fw/kernel-bench-notrace.elf \
		--obj-dir $(BUILD)/obj/fw --out $(BUILD)/bench/kernel.json
	$(PY) -m cairn.bench.overheads --sim $(SIM) --fw $(BUILD)/fw --out $(BUILD)/bench/overheads.json \
		--record $(BUILD)/bench/overheads-record.json
	$(PY) -m cairn.bench.distributed --sim $(SIM) --device experiments/bench/distributed.toml \
		--elf $(BUILD)/fw/net-bench.elf --elf-notrace $(BUILD)/fw/net-bench-notrace.elf \
		--out $(BUILD)/bench/distributed.json
	$(PY) -m cairn.bench.device --sim $(SIM) --baseline-sim "$$(scripts/baseline-sim $(BASELINE_REF))" \
		--fw $(BUILD)/fw --workloads $(BUILD)/fw/bench --out $(BUILD)/bench/device.json
	$(PY) -m cairn.bench.sweep --out $(BUILD)/bench/sweep.json
	$(PY) -m cairn.bench.models_metric --sim $(SIM) --write-doc docs/models.md
	$(PY) -m cairn.bench.policies_doc --sim $(SIM) --write-doc docs/policies.md
	$(PY) -m cairn.bench.status --bench-dir $(BUILD)/bench --status docs/STATUS.md

# `make run` timed from a fresh clone (its own Cargo home, no pip cache): build/bench/fresh-run.json.
.PHONY: bench-fresh
bench-fresh: bootstrap
	$(PY) -m cairn.bench.fresh_run
	$(PY) -m cairn.bench.status --bench-dir $(BUILD)/bench --status docs/STATUS.md

# `make run` on a fresh minimal Debian root of this machine's release (mmdebstrap, chroot; needs
# root and mmdebstrap): apt packages, Rust and the venv installed from nothing, downloads counted.
# Minutes and several hundred MB, so neither `make bench` nor `make test` runs it.
.PHONY: bench-fresh-scratch
bench-fresh-scratch: bootstrap
	$(PY) -m cairn.bench.fresh_root
	$(PY) -m cairn.bench.status --bench-dir $(BUILD)/bench --status docs/STATUS.md

# The corpus is sim/fuzz/corpus/<target> (ignored by git), started from the committed seeds
# in sim/fuzz/seeds/<target> (copied, so libFuzzer never rewrites them). No sanitizer by
# default (FUZZ_SANITIZER=address for ASan): the simulator is safe Rust apart from an
# unchecked slice index, which the debug assertions cargo-fuzz enables still check, and ASan
# makes elf_load ~10x slower (its 4 MiB memories are fresh mmaps on every run).
# A crash is saved under sim/fuzz/artifacts/<target>/; copy it to sim/fuzz/regressions/.
FUZZ_SANITIZER ?= none
fuzz:
	@scripts/bootstrap --fuzz
	cd sim/fuzz && for t in elf_load decode_exec config_files; do \
		mkdir -p corpus/$$t && cp -f seeds/$$t/* corpus/$$t/ && \
		RUSTC_BOOTSTRAP=1 $(CARGO) +nightly fuzz run --sanitizer $(FUZZ_SANITIZER) $$t corpus/$$t \
			-- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

clean: firmware-clean
	rm -rf $(BUILD)/bin $(BUILD)/bench $(OUT)
	cd sim && $(CARGO) clean
