# Bare-metal firmware for board mps2-an385 (QEMU -M mps2-an385 and cairn-sim).
#
# Included by the top-level Makefile, or used on its own from the repository
# root:   make -f kernel/firmware.mk firmware
#
# Targets:
#   firmware          build/fw/test-<name>.elf for every kernel/tests/sim/<name>.c,
#                     build/fw/demo.elf, build/fw/bench_wfi.elf,
#                     build/fw/hello.elf, build/fw/hello-8.elf (Cairn OS hello world),
#                     build/fw/kernel-<name>.elf for every kernel/tests/armv6m/<name>.c,
#                     build/fw/kernel-bench.elf (kernel benchmark, kernel/apps/kernel_bench)
#                     build/fw/device-<name>.elf for every kernel/tests/device/<name>.c but
#                     busy.c, and build/fw/device-busy-{100,10,1}.elf (cairn-sim devices
#                     only, docs/device.md; not in the FW_TEST_* lists nor firmware-qemu)
#                     build/fw/pipeline.elf, pipeline-spread.elf, pipeline-load.elf,
#                     pipeline-uart.elf (and its input, build/serial/pipeline.frame),
#                     multicast.elf, timesync.elf,
#                     timesync-free.elf, ssl-*.elf (Cairn OS
#                     across modules: kernel/core/net + the board's bus driver;
#                     docs/distributed.md)
#   firmware-qemu     run the test firmware on QEMU (kernel/tests/sim/run-qemu.sh)
#   firmware-clean    remove build/fw and build/obj/fw
# Variables (override on the command line or before including):
#   FW_CC             cross compiler (arm-none-eabi-gcc)
#   FW_OPT            optimisation/debug flags (-Os -g)
#   FW_BUILD          build root (build); ELFs in $(FW_BUILD)/fw, objects in $(FW_BUILD)/obj/fw
#   DEMO_ITERATIONS   work amount of the demo app (default in apps/demo/demo.c)
#   DEVICE_CLOCK_HZ   processor clock the device-busy/-sleepy firmware assumes (48000000)
#   DEVICE_RUN_MS     how long the device-busy/-sleepy firmware runs, in ms (20)
#   FW_QEMU           QEMU binary for firmware-qemu (qemu-system-arm)
# Lists for other rules: FW_TEST_NAMES, FW_TEST_ELFS, FW_APP_ELFS, FW_ELFS.

FW_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
FW_STANDALONE := $(if $(filter 1,$(words $(MAKEFILE_LIST))),yes)
FW_SAVED_DEFAULT_GOAL := $(.DEFAULT_GOAL)

FW_CC ?= arm-none-eabi-gcc
FW_OPT ?= -Os -g
FW_BUILD ?= build
FW_OUT := $(FW_BUILD)/fw
FW_OBJ := $(FW_BUILD)/obj/fw
FW_QEMU ?= qemu-system-arm
FW_BOARD ?= mps2-an385

FW_BOARD_DIR := $(FW_MK_DIR)/boards/$(FW_BOARD)
FW_LDSCRIPT := $(FW_BOARD_DIR)/$(FW_BOARD).ld
FW_ARCH := -mcpu=cortex-m0plus -mthumb
FW_CFLAGS := $(FW_ARCH) -masm-syntax-unified -std=c11 -ffreestanding -nostdlib \
	-ffunction-sections -fdata-sections \
	-Wall -Wextra -Werror $(FW_OPT) \
	-I$(FW_BOARD_DIR) -I$(FW_MK_DIR)/tests/sim/support
FW_LDFLAGS := $(FW_ARCH) -nostartfiles -nostdlib -T$(FW_LDSCRIPT) -Wl,--gc-sections
FW_LDLIBS := -lgcc

# Sources, relative to the repository root (or wherever this file lives).
# The board's bus driver is the kernel's (it owns vectors 24-26): FW_NET_SRCS below.
FW_BSP_SRCS := $(filter-out $(FW_BOARD_DIR)/bus_driver.c,$(sort $(wildcard $(FW_BOARD_DIR)/*.c)))
FW_SUPPORT_SRCS := $(sort $(wildcard $(FW_MK_DIR)/tests/sim/support/*.c))
FW_TEST_SRCS := $(sort $(wildcard $(FW_MK_DIR)/tests/sim/*.c))
FW_DEMO_SRCS := $(sort $(wildcard $(FW_MK_DIR)/apps/demo/*.c))
FW_BENCH_WFI_SRCS := $(sort $(wildcard $(FW_MK_DIR)/apps/bench_wfi/*.c))

fw_obj = $(patsubst $(FW_MK_DIR)/%.c,$(FW_OBJ)/%.o,$(1))
FW_BSP_OBJS := $(call fw_obj,$(FW_BSP_SRCS))
FW_SUPPORT_OBJS := $(call fw_obj,$(FW_SUPPORT_SRCS))
FW_TEST_OBJS := $(call fw_obj,$(FW_TEST_SRCS))
FW_DEMO_OBJS := $(call fw_obj,$(FW_DEMO_SRCS))
FW_BENCH_WFI_OBJS := $(call fw_obj,$(FW_BENCH_WFI_SRCS))
FW_ALL_OBJS := $(FW_BSP_OBJS) $(FW_SUPPORT_OBJS) $(FW_TEST_OBJS) \
	$(FW_DEMO_OBJS) $(FW_BENCH_WFI_OBJS)

FW_TEST_NAMES := $(basename $(notdir $(FW_TEST_SRCS)))
FW_TEST_ELFS := $(FW_TEST_NAMES:%=$(FW_OUT)/test-%.elf)
FW_APP_ELFS := $(FW_OUT)/demo.elf $(FW_OUT)/bench_wfi.elf
FW_ELFS := $(FW_TEST_ELFS) $(FW_APP_ELFS)

# Rebuild everything when the compiler or flags change (the stamp's time only
# moves when its contents do).
FW_FLAGS_STAMP := $(FW_OBJ)/flags.stamp
FW_FLAGS_LINE := $(FW_CC) $(FW_CFLAGS) | $(FW_LDFLAGS) $(FW_LDLIBS)
FW_DEMO_STAMP := $(FW_OBJ)/demo-flags.stamp
FW_DEMO_LINE := DEMO_ITERATIONS=$(DEMO_ITERATIONS)

.PHONY: firmware firmware-clean firmware-qemu fw-always
firmware: $(FW_ELFS)

fw_stamp = @mkdir -p $(@D); echo '$(1)' | cmp -s - $@ 2>/dev/null || echo '$(1)' > $@
$(FW_FLAGS_STAMP): fw-always
	$(call fw_stamp,$(FW_FLAGS_LINE))
$(FW_DEMO_STAMP): fw-always
	$(call fw_stamp,$(FW_DEMO_LINE))

$(FW_DEMO_OBJS): FW_EXTRA_CFLAGS := $(if $(DEMO_ITERATIONS),-DDEMO_ITERATIONS=$(DEMO_ITERATIONS))
$(FW_DEMO_OBJS): $(FW_DEMO_STAMP)

$(FW_ALL_OBJS): $(FW_OBJ)/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_EXTRA_CFLAGS) -MMD -MP -c -o $@ $<

fw_link = $(FW_CC) $(FW_LDFLAGS) -Wl,-Map=$(@:.elf=.map) -o $@ $(filter %.o,$^) $(FW_LDLIBS)

$(FW_TEST_ELFS): $(FW_OUT)/test-%.elf: $(FW_OBJ)/tests/sim/%.o $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OUT)/demo.elf: $(FW_DEMO_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OUT)/bench_wfi.elf: $(FW_BENCH_WFI_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

# ---- Cairn OS kernel (kernel/core + the armv6m port) and its applications ----------
# build/fw/hello.elf (the CoMOS hello world, forever) and build/fw/hello-8.elf (the
# same, exiting with 0 after 8 lines; HELLO_LINES=8). The kernel is compiled for the
# target with FW_CFLAGS (-Os) plus its include paths and the board's trace register.
FW_KERNEL_SRCS := $(sort $(wildcard $(FW_MK_DIR)/core/*.c $(FW_MK_DIR)/arch/armv6m/*.c))
FW_KERNEL_OBJS := $(call fw_obj,$(FW_KERNEL_SRCS))
FW_HELLO_SRC := $(FW_MK_DIR)/apps/hello/hello.c
FW_HELLO_OBJ := $(FW_OBJ)/apps/hello/hello.o
FW_HELLO8_OBJ := $(FW_OBJ)/apps/hello/hello-8.o
FW_KERNEL_CFLAGS := -I$(FW_MK_DIR)/include -I$(FW_MK_DIR)/arch/armv6m \
	-DCAIRN_TRACE_ADDR=0x41000000
FW_KERNEL_APP_ELFS := $(FW_OUT)/hello.elf $(FW_OUT)/hello-8.elf
# Kernel firmware tests: build/fw/kernel-<name>.elf for every kernel/tests/armv6m/<name>.c
# (kernel + board + the transcript helpers of kernel/tests/sim/support).
FW_KTEST_SRCS := $(sort $(wildcard $(FW_MK_DIR)/tests/armv6m/*.c))
FW_KTEST_OBJS := $(call fw_obj,$(FW_KTEST_SRCS))
FW_KTEST_ELFS := $(patsubst %,$(FW_OUT)/kernel-%.elf,$(basename $(notdir $(FW_KTEST_SRCS))))

# Kernel benchmark (`make bench` -> build/bench/kernel.json):
# build/fw/kernel-bench.elf from kernel/apps/kernel_bench/. Linked with -u for every global
# symbol the kernel objects define, so --gc-sections keeps the whole kernel and the link
# map's kernel sections are "the kernel alone, everything enabled".
FW_NM ?= arm-none-eabi-nm
FW_KBENCH_SRCS := $(sort $(wildcard $(FW_MK_DIR)/apps/kernel_bench/*.c))
FW_KBENCH_OBJS := $(call fw_obj,$(FW_KBENCH_SRCS))
FW_KBENCH_ELF := $(FW_OUT)/kernel-bench.elf

firmware: $(FW_KERNEL_APP_ELFS) $(FW_KTEST_ELFS) $(FW_KBENCH_ELF)

$(FW_KBENCH_ELF): $(FW_KBENCH_OBJS) $(FW_KERNEL_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_LDFLAGS) -Wl,-Map=$(@:.elf=.map) \
		$$($(FW_NM) -g --defined-only $(FW_KERNEL_OBJS) | awk 'NF == 3 && $$2 ~ /^[TDBR]$$/ {print "-Wl,-u," $$3}') \
		-o $@ $(filter %.o,$^) $(FW_LDLIBS)

# The same benchmark with the event log compiled out (CAIRN_TRACE_ENABLED=0): the cycle
# figures of a production build. Objects under $(FW_OBJ)/notrace/.
FW_KBENCH_NT_ELF := $(FW_OUT)/kernel-bench-notrace.elf
FW_NT_OBJS := $(patsubst $(FW_OBJ)/%,$(FW_OBJ)/notrace/%,$(FW_KBENCH_OBJS) $(FW_KERNEL_OBJS))

firmware: $(FW_KBENCH_NT_ELF)

$(FW_KBENCH_NT_ELF): $(FW_NT_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_NT_OBJS): $(FW_OBJ)/notrace/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DCAIRN_TRACE_ENABLED=0 -MMD -MP -c -o $@ $<

# The production build again with plain semaphores (CAIRN_SEM_EMERALDS=0): the semaphore
# figures without EMERALDS's hint. Objects under $(FW_OBJ)/plainsem/.
FW_KBENCH_PS_ELF := $(FW_OUT)/kernel-bench-plainsem.elf
FW_PS_OBJS := $(patsubst $(FW_OBJ)/%,$(FW_OBJ)/plainsem/%,$(FW_KBENCH_OBJS) $(FW_KERNEL_OBJS))

firmware: $(FW_KBENCH_PS_ELF)

$(FW_KBENCH_PS_ELF): $(FW_PS_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_PS_OBJS): $(FW_OBJ)/plainsem/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DCAIRN_TRACE_ENABLED=0 -DCAIRN_SEM_EMERALDS=0 -MMD -MP -c -o $@ $<

# The Thread-Metric-style suite (kernel/apps/thread_metric/, python/cairn/bench/thread_metric.py):
# production builds (no event log) with EMERALDS's semaphores and with plain ones (the
# kernel objects of the two builds above).
FW_TM_SRCS := $(sort $(wildcard $(FW_MK_DIR)/apps/thread_metric/*.c))
FW_TM_OBJS := $(patsubst $(FW_MK_DIR)/%.c,$(FW_OBJ)/notrace/%.o,$(FW_TM_SRCS))
FW_TM_PS_OBJS := $(patsubst $(FW_MK_DIR)/%.c,$(FW_OBJ)/plainsem/%.o,$(FW_TM_SRCS))
FW_TM_ELF := $(FW_OUT)/thread-metric.elf
FW_TM_PS_ELF := $(FW_OUT)/thread-metric-plainsem.elf

firmware: $(FW_TM_ELF) $(FW_TM_PS_ELF)

$(FW_TM_ELF): $(FW_TM_OBJS) $(patsubst $(FW_OBJ)/%,$(FW_OBJ)/notrace/%,$(FW_KERNEL_OBJS)) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_TM_PS_ELF): $(FW_TM_PS_OBJS) $(patsubst $(FW_OBJ)/%,$(FW_OBJ)/plainsem/%,$(FW_KERNEL_OBJS)) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_TM_OBJS): $(FW_OBJ)/notrace/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DCAIRN_TRACE_ENABLED=0 -MMD -MP -c -o $@ $<

$(FW_TM_PS_OBJS): $(FW_OBJ)/plainsem/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DCAIRN_TRACE_ENABLED=0 -DCAIRN_SEM_EMERALDS=0 -MMD -MP -c -o $@ $<

# The scheduling policies (cairn/policy.h, docs/policies.md), each a production build (event
# log compiled out) of the kernel with CAIRN_POLICY set, objects under $(FW_OBJ)/<p>/:
# for p in edf and csd (CSD-2, the paper's CSD: one EDF queue above the FP queue),
# build/fw/kernel-bench-<p>.elf (the kernel benchmark; python/cairn/bench/kernel.py reports it
# under `policies`) and build/fw/kernel-policy-<p>.elf (the firmware test
# kernel/tests/policy/policy.c); for p in fp, edf and csd, build/fw/kernel-overheads-<p>.elf
# (the scheduler's operations for the analysis's overhead model,
# kernel/apps/overhead_bench/overheads.c; python/cairn/bench/overheads.py).
FW_POLICIES := edf csd
FW_POLICY_DEFS_fp :=
FW_POLICY_DEFS_edf := -DCAIRN_POLICY=CAIRN_POLICY_EDF
FW_POLICY_DEFS_csd := -DCAIRN_POLICY=CAIRN_POLICY_CSD -DCAIRN_CSD_K=2
FW_POLICY_ELFS := $(foreach p,$(FW_POLICIES),$(FW_OUT)/kernel-bench-$(p).elf $(FW_OUT)/kernel-policy-$(p).elf) \
	$(foreach p,fp $(FW_POLICIES),$(FW_OUT)/kernel-overheads-$(p).elf)
FW_POLICY_OBJS :=

firmware: $(FW_POLICY_ELFS)

# The kernel, the overhead firmware and their compilation for policy $(1).
define fw_policy_kernel_rules
FW_$(1)_KOBJS := $$(patsubst $$(FW_OBJ)/%,$$(FW_OBJ)/$(1)/%,$$(FW_KERNEL_OBJS))
FW_$(1)_OOBJ := $$(FW_OBJ)/$(1)/apps/overhead_bench/overheads.o
FW_POLICY_OBJS += $$(FW_$(1)_KOBJS) $$(FW_$(1)_OOBJ)

$$(FW_OUT)/kernel-overheads-$(1).elf: $$(FW_$(1)_OOBJ) $$(FW_$(1)_KOBJS) $$(FW_SUPPORT_OBJS) $$(FW_BSP_OBJS) $$(FW_LDSCRIPT)
	@mkdir -p $$(@D)
	$$(fw_link)

$$(FW_OBJ)/$(1)/%.o: $$(FW_MK_DIR)/%.c $$(FW_FLAGS_STAMP)
	@mkdir -p $$(@D)
	$$(FW_CC) $$(FW_CFLAGS) $$(FW_KERNEL_CFLAGS) -DCAIRN_TRACE_ENABLED=0 $$(FW_POLICY_DEFS_$(1)) -MMD -MP -c -o $$@ $$<
endef

# The benchmark and the firmware test for deadline policy $(1).
define fw_policy_rules
FW_$(1)_BOBJS := $$(patsubst $$(FW_OBJ)/%,$$(FW_OBJ)/$(1)/%,$$(FW_KBENCH_OBJS))
FW_$(1)_TOBJ := $$(FW_OBJ)/$(1)/tests/policy/policy.o
FW_POLICY_OBJS += $$(FW_$(1)_BOBJS) $$(FW_$(1)_TOBJ)

$$(FW_OUT)/kernel-bench-$(1).elf: $$(FW_$(1)_BOBJS) $$(FW_$(1)_KOBJS) $$(FW_SUPPORT_OBJS) $$(FW_BSP_OBJS) $$(FW_LDSCRIPT)
	@mkdir -p $$(@D)
	$$(fw_link)

$$(FW_OUT)/kernel-policy-$(1).elf: $$(FW_$(1)_TOBJ) $$(FW_$(1)_KOBJS) $$(FW_SUPPORT_OBJS) $$(FW_BSP_OBJS) $$(FW_LDSCRIPT)
	@mkdir -p $$(@D)
	$$(fw_link)
endef
$(foreach p,fp $(FW_POLICIES),$(eval $(call fw_policy_kernel_rules,$(p))))
$(foreach p,$(FW_POLICIES),$(eval $(call fw_policy_rules,$(p))))

# build/fw/taskset-<p>.elf for p in fp, edf, csd2 and csd3: the periodic task set of the
# breakdown experiment on cairn-sim (kernel/apps/taskset/taskset.c, docs/analysis.md "The
# simulated check"), each with its own kernel objects under $(FW_OBJ)/taskset-<p>/ (the policy,
# room for a timer per task and a queued release per task and more).
FW_TASKSET_POLICIES := fp edf csd2 csd3
FW_TASKSET_ROOM := -DCAIRN_MAX_TIMERS=16 -DCAIRN_MSG_POOL=40
FW_TASKSET_DEFS_fp := $(FW_TASKSET_ROOM)
FW_TASKSET_DEFS_edf := $(FW_TASKSET_ROOM) -DCAIRN_POLICY=CAIRN_POLICY_EDF
FW_TASKSET_DEFS_csd2 := $(FW_TASKSET_ROOM) -DCAIRN_POLICY=CAIRN_POLICY_CSD -DCAIRN_CSD_K=2
FW_TASKSET_DEFS_csd3 := $(FW_TASKSET_ROOM) -DCAIRN_POLICY=CAIRN_POLICY_CSD -DCAIRN_CSD_K=3
FW_TASKSET_ELFS := $(FW_TASKSET_POLICIES:%=$(FW_OUT)/taskset-%.elf)

firmware: $(FW_TASKSET_ELFS)

define fw_taskset_rules
FW_TS_$(1)_OBJS := $$(patsubst $$(FW_OBJ)/%,$$(FW_OBJ)/taskset-$(1)/%,$$(FW_KERNEL_OBJS)) \
	$$(FW_OBJ)/taskset-$(1)/apps/taskset/taskset.o
FW_POLICY_OBJS += $$(FW_TS_$(1)_OBJS)

$$(FW_OUT)/taskset-$(1).elf: $$(FW_TS_$(1)_OBJS) $$(FW_BSP_OBJS) $$(FW_LDSCRIPT)
	@mkdir -p $$(@D)
	$$(fw_link)

$$(FW_OBJ)/taskset-$(1)/%.o: $$(FW_MK_DIR)/%.c $$(FW_FLAGS_STAMP)
	@mkdir -p $$(@D)
	$$(FW_CC) $$(FW_CFLAGS) $$(FW_KERNEL_CFLAGS) -DCAIRN_TRACE_ENABLED=0 $$(FW_TASKSET_DEFS_$(1)) -MMD -MP -c -o $$@ $$<
endef
$(foreach p,$(FW_TASKSET_POLICIES),$(eval $(call fw_taskset_rules,$(p))))

$(FW_KERNEL_OBJS) $(FW_HELLO_OBJ) $(FW_KTEST_OBJS) $(FW_KBENCH_OBJS): $(FW_OBJ)/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -MMD -MP -c -o $@ $<

$(FW_HELLO8_OBJ): $(FW_HELLO_SRC) $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DHELLO_LINES=8 -MMD -MP -c -o $@ $<

$(FW_OUT)/hello.elf: $(FW_HELLO_OBJ) $(FW_KERNEL_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OUT)/hello-8.elf: $(FW_HELLO8_OBJ) $(FW_KERNEL_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_KTEST_ELFS): $(FW_OUT)/kernel-%.elf: $(FW_OBJ)/tests/armv6m/%.o $(FW_KERNEL_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

# ---- Cairn OS across modules (docs/distributed.md) ---------------------------------------
# The bus manager and remote TCBs (kernel/core/net/) and the board's bus driver: linked only
# into firmware that talks to other modules, and kept out of FW_KERNEL_OBJS, so the kernel
# benchmark's sizes stay those of the core and services (FW_NET_OBJS reports them apart).
# build/fw/pipeline.elf (every task on module 0) and build/fw/pipeline-spread.elf
# (-DPIPELINE_SPREAD=1: three modules) differ only in the application description's
# placement; build/fw/multicast.elf runs on five modules.
FW_NET_SRCS := $(sort $(wildcard $(FW_MK_DIR)/core/net/*.c $(FW_MK_DIR)/arch/armv6m/net/*.c)) \
	$(FW_BOARD_DIR)/bus_driver.c
FW_NET_OBJS := $(call fw_obj,$(FW_NET_SRCS))
# What every networked application links besides its own object: its start-up failure
# report (kernel/apps/support/; their start-up, app_boot.h, is inline and links nothing),
# the kernel, the distributed services, the board.
FW_APP_SUPPORT_OBJS := $(FW_OBJ)/apps/support/app_fail.o
FW_NET_LINK := $(FW_APP_SUPPORT_OBJS) $(FW_KERNEL_OBJS) $(FW_NET_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
FW_PIPE_SRC := $(FW_MK_DIR)/apps/pipeline/pipeline.c
FW_PIPE_OBJ := $(FW_OBJ)/apps/pipeline/pipeline.o
FW_PIPE_SPREAD_OBJ := $(FW_OBJ)/apps/pipeline/pipeline-spread.o
# build/fw/pipeline-load.elf (-DPIPELINE_LOAD=1): boots with no application; module 0 feeds
# the spread description to its application manager at run time, which broadcasts it.
FW_PIPE_LOAD_OBJ := $(FW_OBJ)/apps/pipeline/pipeline-load.o
# build/fw/pipeline-uart.elf (-DPIPELINE_UART=1): the same, the description arriving on
# module 0's UART0 as a serial frame (experiments/devices/pipeline-uart.toml).
FW_PIPE_UART_OBJ := $(FW_OBJ)/apps/pipeline/pipeline-uart.o
FW_MCAST_OBJ := $(FW_OBJ)/apps/multicast/multicast.o
# The distributed benchmark (`make bench` -> build/bench/distributed.json, on
# experiments/bench/distributed.toml): build/fw/net-bench.elf from kernel/apps/net_bench/.
FW_NBENCH_OBJ := $(FW_OBJ)/apps/net_bench/net_bench.o
# build/fw/timesync.elf synchronises four modules' clocks; build/fw/timesync-free.elf
# (-DTIMESYNC_FREE=1) is the same without synchronisation, the demo's negative check.
FW_TSYNC_SRC := $(FW_MK_DIR)/apps/timesync/timesync.c
FW_TSYNC_OBJ := $(FW_OBJ)/apps/timesync/timesync.o
FW_TSYNC_FREE_OBJ := $(FW_OBJ)/apps/timesync/timesync-free.o
# build/fw/migration.elf: the filter of a three-module pipeline moves and back
# (experiments/devices/migration.toml, docs/migration.md).
FW_MIGR_OBJ := $(FW_OBJ)/apps/migration/migration.o
FW_NET_APP_ELFS := $(FW_OUT)/pipeline.elf $(FW_OUT)/pipeline-spread.elf $(FW_OUT)/pipeline-load.elf \
	$(FW_OUT)/pipeline-uart.elf $(FW_OUT)/multicast.elf \
	$(FW_OUT)/net-bench.elf $(FW_OUT)/timesync.elf $(FW_OUT)/timesync-free.elf $(FW_OUT)/migration.elf

firmware: $(FW_NET_APP_ELFS)

# Checkpoint migration (docs/checkpoint.md): build/fw/checkpoint-<bytes>.elf for each
# checkpoint size the bench measures; experiments/devices/checkpoint*.toml use the 1024.
FW_CKPT_SRC := $(FW_MK_DIR)/apps/checkpoint/checkpoint.c
FW_CKPT_SIZES := 0 256 1024 4096
FW_CKPT_OBJS := $(FW_CKPT_SIZES:%=$(FW_OBJ)/apps/checkpoint/checkpoint-%.o)
FW_CKPT_ELFS := $(FW_CKPT_SIZES:%=$(FW_OUT)/checkpoint-%.elf)

firmware: $(FW_CKPT_ELFS)

$(FW_CKPT_OBJS): $(FW_OBJ)/apps/checkpoint/checkpoint-%.o: $(FW_CKPT_SRC) $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DCKPT_STATE_BYTES=$* -MMD -MP -c -o $@ $<

$(FW_CKPT_ELFS): $(FW_OUT)/checkpoint-%.elf: $(FW_OBJ)/apps/checkpoint/checkpoint-%.o $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

# build/fw/checkpoint-overhead.elf: the same computation with its migration points timed
# on the trace port and a load report every 4th point (CKPT_TIME_POINTS; study E5's
# Tables 1 and 2, python/cairn/bench/checkpoint_overhead.py).
FW_CKPT_OVH_OBJ := $(FW_OBJ)/apps/checkpoint/checkpoint-overhead.o

firmware: $(FW_OUT)/checkpoint-overhead.elf

$(FW_CKPT_OVH_OBJ): $(FW_CKPT_SRC) $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DCKPT_STATE_BYTES=1024 -DCKPT_TIME_POINTS=1 \
		-DCKPT_POINTS_PER_REPORT=4u -DCKPT_ITERATIONS=24000u -MMD -MP -c -o $@ $<

$(FW_OUT)/checkpoint-overhead.elf: $(FW_CKPT_OVH_OBJ) $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

# The migration benchmark (python/cairn/bench/migration.py, docs/migration.md):
# build/fw/migration-bench-<bytes>.elf for each state size it measures.
FW_MIGB_SRC := $(FW_MK_DIR)/apps/migration_bench/migration_bench.c
FW_MIGB_SIZES := 0 256 512 1024 2048 4096
FW_MIGB_OBJS := $(FW_MIGB_SIZES:%=$(FW_OBJ)/apps/migration_bench/migration-bench-%.o)
FW_MIGB_ELFS := $(FW_MIGB_SIZES:%=$(FW_OUT)/migration-bench-%.elf)

firmware: $(FW_MIGB_ELFS)

$(FW_MIGB_OBJS): $(FW_OBJ)/apps/migration_bench/migration-bench-%.o: $(FW_MIGB_SRC) $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DMIGBENCH_STATE_BYTES=$*u -MMD -MP -c -o $@ $<

$(FW_MIGB_ELFS): $(FW_OUT)/migration-bench-%.elf: $(FW_OBJ)/apps/migration_bench/migration-bench-%.o $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_NET_OBJS) $(FW_APP_SUPPORT_OBJS) $(FW_PIPE_OBJ) $(FW_MCAST_OBJ) $(FW_NBENCH_OBJ) $(FW_TSYNC_OBJ) $(FW_MIGR_OBJ): $(FW_OBJ)/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -MMD -MP -c -o $@ $<

$(FW_PIPE_SPREAD_OBJ): $(FW_PIPE_SRC) $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DPIPELINE_SPREAD=1 -MMD -MP -c -o $@ $<

$(FW_OUT)/pipeline.elf: $(FW_PIPE_OBJ) $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OUT)/pipeline-spread.elf: $(FW_PIPE_SPREAD_OBJ) $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_PIPE_LOAD_OBJ): $(FW_PIPE_SRC) $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DPIPELINE_LOAD=1 -MMD -MP -c -o $@ $<

$(FW_OUT)/pipeline-load.elf: $(FW_PIPE_LOAD_OBJ) $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_PIPE_UART_OBJ): $(FW_PIPE_SRC) $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DPIPELINE_UART=1 -MMD -MP -c -o $@ $<

$(FW_OUT)/pipeline-uart.elf: $(FW_PIPE_UART_OBJ) $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

# The frame experiments/devices/pipeline-uart.toml feeds to module 0's UART: the description
# and its CRC are computed in Python (python/cairn/serial_load.py).
FW_PIPE_UART_FRAME := $(FW_BUILD)/serial/pipeline.frame

firmware: $(FW_PIPE_UART_FRAME)

$(FW_PIPE_UART_FRAME): python/cairn/serial_load.py kernel/include/cairn/serial_frame.h \
		kernel/include/cairn/app_wire.h kernel/include/cairn/msg.h | $(PY)
	$(PY) -m cairn.serial_load --out $@

$(FW_OUT)/migration.elf: $(FW_MIGR_OBJ) $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

# build/fw/flagship.elf: the migration pipeline, longer, with the logger's marker pin
# (experiments/flagship/device.toml, `make run`).
FW_FLAGSHIP_OBJ := $(FW_OBJ)/apps/migration/flagship.o
firmware: $(FW_OUT)/flagship.elf

$(FW_FLAGSHIP_OBJ): $(FW_MK_DIR)/apps/migration/migration.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DMIGRATION_SAMPLES=120 -DMIGRATION_AWAY=40 \
		-DMIGRATION_BACK=80 -DMIGRATION_MARKER_PIN=3 -MMD -MP -c -o $@ $<

$(FW_OUT)/flagship.elf: $(FW_FLAGSHIP_OBJ) $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OUT)/multicast.elf: $(FW_MCAST_OBJ) $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_TSYNC_FREE_OBJ): $(FW_TSYNC_SRC) $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DTIMESYNC_FREE=1 -MMD -MP -c -o $@ $<

$(FW_OUT)/timesync.elf: $(FW_TSYNC_OBJ) $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OUT)/timesync-free.elf: $(FW_TSYNC_FREE_OBJ) $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OUT)/net-bench.elf: $(FW_NBENCH_OBJ) $(FW_NET_LINK)
	@mkdir -p $(@D)
	$(fw_link)

# The same with the event log compiled out (the kernel benchmark's production figures):
# build/fw/net-bench-notrace.elf, objects under $(FW_OBJ)/notrace/.
FW_NBENCH_NT_OBJS := $(patsubst $(FW_OBJ)/%,$(FW_OBJ)/notrace/%,$(FW_NBENCH_OBJ) $(FW_NET_OBJS))
FW_KERNEL_NT_OBJS := $(patsubst $(FW_OBJ)/%,$(FW_OBJ)/notrace/%,$(FW_KERNEL_OBJS))

firmware: $(FW_OUT)/net-bench-notrace.elf

$(FW_NBENCH_NT_OBJS): $(FW_OBJ)/notrace/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DCAIRN_TRACE_ENABLED=0 -MMD -MP -c -o $@ $<

$(FW_OUT)/net-bench-notrace.elf: $(FW_NBENCH_NT_OBJS) $(FW_APP_SUPPORT_OBJS) $(FW_KERNEL_NT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

# ---- SSL + FBD, the CoMOS paper's application (kernel/apps/ssl, experiments/e4-comos) -------
# build/fw/ssl-one.elf (every task on one module), ssl-five.elf (-DSSL_FIVE=1: five modules,
# the paper's Figure 8), ssl-one-notrace.elf (the event log compiled out) and
# ssl-standalone.elf (no OS: the same computations in interrupt handlers and main) and
# ssl-standalone-five.elf (the same on five modules, frames by hand). The
# kernel, the bus manager and the tasks are compiled with the application's heap size, objects
# under $(FW_OBJ)/ssl/ (and $(FW_OBJ)/ssl-notrace/).
FW_SSL_DIR := $(FW_MK_DIR)/apps/ssl
FW_SSL_DSP_SRCS := $(sort $(wildcard $(FW_SSL_DIR)/dsp*.c))
FW_SSL_APP_SRCS := $(filter-out $(FW_SSL_DSP_SRCS) $(FW_SSL_DIR)/app.c $(FW_SSL_DIR)/standalone.c $(FW_SSL_DIR)/standalone_five.c,$(sort $(wildcard $(FW_SSL_DIR)/*.c)))
# 19 tasks and the bus manager: more task IDs than the kernel's default 16, and a message
# pool that holds the 19 tasks' initialisation messages at once.
FW_SSL_CFLAGS := $(FW_KERNEL_CFLAGS) -DSSL_HEAP_BYTES=24576u -DCAIRN_MAX_TASKS=20 -DCAIRN_MSG_POOL=24
FW_SSL_STAMP := $(FW_OBJ)/ssl-flags.stamp
ssl_obj = $(patsubst $(FW_MK_DIR)/%.c,$(FW_OBJ)/$(1)/%.o,$(2))
FW_SSL_KERNEL_SRCS := $(FW_KERNEL_SRCS) $(FW_NET_SRCS) $(FW_MK_DIR)/apps/support/app_fail.c $(FW_SSL_APP_SRCS) $(FW_SSL_DSP_SRCS)
FW_SSL_OBJS := $(call ssl_obj,ssl,$(FW_SSL_KERNEL_SRCS))
FW_SSL_NT_OBJS := $(call ssl_obj,ssl-notrace,$(FW_SSL_KERNEL_SRCS))
FW_SSL_DSP_OBJS := $(call ssl_obj,ssl,$(FW_SSL_DSP_SRCS))
FW_SSL_ELFS := $(FW_OUT)/ssl-one.elf $(FW_OUT)/ssl-five.elf $(FW_OUT)/ssl-one-notrace.elf \
	$(FW_OUT)/ssl-standalone.elf $(FW_OUT)/ssl-standalone-five.elf

firmware: $(FW_SSL_ELFS)

# The objects depend on the application's flags too (they are not in FW_FLAGS_STAMP's line).
$(FW_SSL_STAMP): fw-always
	$(call fw_stamp,$(FW_SSL_CFLAGS))

$(FW_SSL_OBJS): $(FW_OBJ)/ssl/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP) $(FW_SSL_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_SSL_CFLAGS) -MMD -MP -c -o $@ $<

$(FW_SSL_NT_OBJS): $(FW_OBJ)/ssl-notrace/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP) $(FW_SSL_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_SSL_CFLAGS) -DCAIRN_TRACE_ENABLED=0 -MMD -MP -c -o $@ $<

$(FW_OBJ)/ssl/apps/ssl/app-one.o $(FW_OBJ)/ssl-notrace/apps/ssl/app-one.o $(FW_OBJ)/ssl/apps/ssl/app-five.o: $(FW_SSL_DIR)/app.c $(FW_FLAGS_STAMP) $(FW_SSL_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_SSL_CFLAGS) $(if $(findstring notrace,$@),-DCAIRN_TRACE_ENABLED=0) \
		$(if $(findstring five,$@),-DSSL_FIVE=1) -MMD -MP -c -o $@ $<

$(FW_OUT)/ssl-one.elf: $(FW_OBJ)/ssl/apps/ssl/app-one.o $(FW_SSL_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OUT)/ssl-five.elf: $(FW_OBJ)/ssl/apps/ssl/app-five.o $(FW_SSL_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OUT)/ssl-one-notrace.elf: $(FW_OBJ)/ssl-notrace/apps/ssl/app-one.o $(FW_SSL_NT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OBJ)/ssl/apps/ssl/standalone.o: $(FW_SSL_DIR)/standalone.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) -MMD -MP -c -o $@ $<

$(FW_OUT)/ssl-standalone.elf: $(FW_OBJ)/ssl/apps/ssl/standalone.o $(FW_SSL_DSP_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

# Five modules without an OS: the device tests' bus driver does the frames.
$(FW_OBJ)/ssl/apps/ssl/standalone_five.o: $(FW_SSL_DIR)/standalone_five.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) -I$(FW_MK_DIR)/tests/device/support -MMD -MP -c -o $@ $<

$(FW_OUT)/ssl-standalone-five.elf: $(FW_OBJ)/ssl/apps/ssl/standalone_five.o $(FW_SSL_DSP_OBJS) \
		$(FW_OBJ)/tests/device/support/bus.o $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

# build/fw/assign-job.elf: the CoMOS appendix's job of L instructions by a deadline, no OS
# (kernel/apps/assign_job; cairn.study.e4_assign runs it on the two module kinds).
FW_ASSIGN_OBJ := $(FW_OBJ)/apps/assign_job/job.o

firmware: $(FW_OUT)/assign-job.elf

$(FW_ASSIGN_OBJ): $(FW_MK_DIR)/apps/assign_job/job.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) -MMD -MP -c -o $@ $<

$(FW_OUT)/assign-job.elf: $(FW_ASSIGN_OBJ) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

# ---- Device test firmware (cairn-sim `run --device` only; docs/device.md) ----------
# build/fw/device-<name>.elf for every kernel/tests/device/<name>.c except busy.c, which is
# built once per frame period: build/fw/device-busy-<us>.elf with -DFRAME_PERIOD_US=<us>.
# Linked with the bus driver (kernel/tests/device/support) and the transcript helpers.
# These only run on cairn-sim: they are in no FW_TEST_* list and not in firmware-qemu.
FW_DEV_DIR := $(FW_MK_DIR)/tests/device
FW_DEV_SUPPORT_SRCS := $(sort $(wildcard $(FW_DEV_DIR)/support/*.c))
FW_DEV_SUPPORT_OBJS := $(call fw_obj,$(FW_DEV_SUPPORT_SRCS))
FW_DEV_SRCS := $(filter-out $(FW_DEV_DIR)/busy.c,$(sort $(wildcard $(FW_DEV_DIR)/*.c)))
FW_DEV_OBJS := $(call fw_obj,$(FW_DEV_SRCS))
FW_DEV_ELFS := $(patsubst %,$(FW_OUT)/device-%.elf,$(basename $(notdir $(FW_DEV_SRCS))))
FW_DEV_BUSY_PERIODS := 100 10 1
FW_DEV_BUSY_OBJS := $(FW_DEV_BUSY_PERIODS:%=$(FW_OBJ)/tests/device/busy-%.o)
FW_DEV_BUSY_ELFS := $(FW_DEV_BUSY_PERIODS:%=$(FW_OUT)/device-busy-%.elf)
FW_DEV_CFLAGS := -I$(FW_DEV_DIR)/support \
	$(if $(DEVICE_CLOCK_HZ),-DCLOCK_HZ=$(DEVICE_CLOCK_HZ)) \
	$(if $(DEVICE_RUN_MS),-DRUN_MS=$(DEVICE_RUN_MS))
FW_DEV_STAMP := $(FW_OBJ)/device-flags.stamp
FW_DEV_LINE := DEVICE_CLOCK_HZ=$(DEVICE_CLOCK_HZ) DEVICE_RUN_MS=$(DEVICE_RUN_MS)

firmware: $(FW_DEV_ELFS) $(FW_DEV_BUSY_ELFS)

$(FW_DEV_STAMP): fw-always
	$(call fw_stamp,$(FW_DEV_LINE))

$(FW_DEV_OBJS) $(FW_DEV_SUPPORT_OBJS): $(FW_OBJ)/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP) $(FW_DEV_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_DEV_CFLAGS) -MMD -MP -c -o $@ $<

$(FW_DEV_BUSY_OBJS): $(FW_OBJ)/tests/device/busy-%.o: $(FW_DEV_DIR)/busy.c $(FW_FLAGS_STAMP) $(FW_DEV_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_DEV_CFLAGS) -DFRAME_PERIOD_US=$* -MMD -MP -c -o $@ $<

$(FW_DEV_ELFS): $(FW_OUT)/device-%.elf: $(FW_OBJ)/tests/device/%.o $(FW_DEV_SUPPORT_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_DEV_BUSY_ELFS): $(FW_OUT)/device-busy-%.elf: $(FW_OBJ)/tests/device/busy-%.o $(FW_DEV_SUPPORT_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

# ---- The compared execution models (kernel/models/, docs/models.md) -------------------
# build/fw/model-<m>.elf for m in tinyos coop nos limit (mantis: below): the model's sources (its
# example.c included), the models' armv6m port, the shared workload, the transcript
# helpers and the board. No Cairn kernel is linked: each model is the whole OS.
FW_MODELS := tinyos coop nos limit
FW_MODEL_DIR := $(FW_MK_DIR)/models
FW_MODEL_COMMON_SRCS := $(FW_MODEL_DIR)/port/armv6m.c $(sort $(wildcard $(FW_MODEL_DIR)/example/*.c))
FW_MODEL_SRCS := $(FW_MODEL_COMMON_SRCS) $(foreach m,$(FW_MODELS),$(sort $(wildcard $(FW_MODEL_DIR)/$(m)/*.c)))
FW_MODEL_OBJS := $(call fw_obj,$(FW_MODEL_SRCS))
FW_MODEL_COMMON_OBJS := $(call fw_obj,$(FW_MODEL_COMMON_SRCS))
FW_MODEL_ELFS := $(FW_MODELS:%=$(FW_OUT)/model-%.elf)
FW_MODEL_CFLAGS := $(foreach d,port example $(FW_MODELS),-I$(FW_MODEL_DIR)/$(d)) -I$(FW_MK_DIR)/arch/armv6m

firmware: $(FW_MODEL_ELFS)

$(FW_MODEL_OBJS): $(FW_OBJ)/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_MODEL_CFLAGS) -MMD -MP -c -o $@ $<

.SECONDEXPANSION:
$(FW_MODEL_ELFS): $(FW_OUT)/model-%.elf: $$(call fw_obj,$$(wildcard $(FW_MODEL_DIR)/%/*.c)) $(FW_MODEL_COMMON_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

# build/fw/model-mantis.elf: the MANTIS-like model is a layer over Cairn OS's threads, so
# the kernel is linked (the models' CPU port is not: Cairn's idle sleeps).
FW_MANTIS_SRCS := $(sort $(wildcard $(FW_MODEL_DIR)/mantis/*.c))
FW_MANTIS_OBJS := $(call fw_obj,$(FW_MANTIS_SRCS))
FW_MANTIS_ELF := $(FW_OUT)/model-mantis.elf

firmware: $(FW_MANTIS_ELF)

$(FW_MANTIS_OBJS): $(FW_OBJ)/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -I$(FW_MODEL_DIR)/example -I$(FW_MODEL_DIR)/mantis -MMD -MP -c -o $@ $<

$(FW_MANTIS_ELF): $(FW_MANTIS_OBJS) $(call fw_obj,$(wildcard $(FW_MODEL_DIR)/example/*.c)) $(FW_KERNEL_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

# ---- The seeds' abstract workloads under every model (docs/models.md, "Workloads") ----
# build/fw/tree-<m>.elf: the tree-network node of the MANTIS/TinyOS paper, its shared code
# kernel/models/tree/tree.c and the model's glue kernel/models/tree/<m>.c. The bare models
# link their runtime (without example.c) and the models' port; mantis and cairn link the
# Cairn kernel (mantis also its layer). Parameters come from the scenario, not the build.
FW_TREE_DIR := $(FW_MODEL_DIR)/tree
FW_TREE_BARE := tinyos coop nos limit
FW_TREE_KERNEL := mantis cairn
FW_TREE_BARE_ELFS := $(FW_TREE_BARE:%=$(FW_OUT)/tree-%.elf)
FW_TREE_KERNEL_ELFS := $(FW_TREE_KERNEL:%=$(FW_OUT)/tree-%.elf)
FW_TREE_SHARED_OBJ := $(FW_OBJ)/models/tree/tree.o
FW_TREE_BARE_OBJS := $(FW_TREE_SHARED_OBJ) $(FW_TREE_BARE:%=$(FW_OBJ)/models/tree/%.o)
FW_TREE_KERNEL_OBJS := $(FW_TREE_KERNEL:%=$(FW_OBJ)/models/tree/%.o)
fw_model_runtime = $(call fw_obj,$(filter-out %/example.c,$(wildcard $(FW_MODEL_DIR)/$(1)/*.c)))

firmware: $(FW_TREE_BARE_ELFS) $(FW_TREE_KERNEL_ELFS)

$(FW_TREE_BARE_OBJS): $(FW_OBJ)/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_MODEL_CFLAGS) -I$(FW_TREE_DIR) -MMD -MP -c -o $@ $<

$(FW_TREE_KERNEL_OBJS): $(FW_OBJ)/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -I$(FW_MODEL_DIR)/mantis -I$(FW_TREE_DIR) -MMD -MP -c -o $@ $<

$(FW_TREE_BARE_ELFS): $(FW_OUT)/tree-%.elf: $(FW_OBJ)/models/tree/%.o $(FW_TREE_SHARED_OBJ) $$(call fw_model_runtime,%) $(FW_OBJ)/models/port/armv6m.o $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OUT)/tree-mantis.elf: $(call fw_model_runtime,mantis)
$(FW_TREE_KERNEL_ELFS): $(FW_OUT)/tree-%.elf: $(FW_OBJ)/models/tree/%.o $(FW_TREE_SHARED_OBJ) $(FW_KERNEL_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

# build/fw/rtos-<m>.elf: SimBed's task sets with their background load, shared code
# kernel/models/rtos/rtos.c and the model's glue kernel/models/rtos/<m>.c; as for the tree,
# mantis and cairn link the Cairn kernel.
FW_RTOS_DIR := $(FW_MODEL_DIR)/rtos
FW_RTOS_MODELS := tinyos coop nos limit
FW_RTOS_ELFS := $(FW_RTOS_MODELS:%=$(FW_OUT)/rtos-%.elf)
FW_RTOS_SHARED_OBJ := $(FW_OBJ)/models/rtos/rtos.o $(FW_OBJ)/models/rtos/ima_adpcm.o $(FW_OBJ)/models/rtos/g721.o
FW_RTOS_OBJS := $(FW_RTOS_SHARED_OBJ) $(FW_RTOS_MODELS:%=$(FW_OBJ)/models/rtos/%.o)

firmware: $(FW_RTOS_ELFS)

$(FW_RTOS_OBJS): $(FW_OBJ)/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_MODEL_CFLAGS) -I$(FW_RTOS_DIR) -MMD -MP -c -o $@ $<

$(FW_RTOS_ELFS): $(FW_OUT)/rtos-%.elf: $(FW_OBJ)/models/rtos/%.o $(FW_RTOS_SHARED_OBJ) $$(call fw_model_runtime,%) $(FW_OBJ)/models/port/armv6m.o $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

FW_RTOS_KERNEL := mantis cairn
FW_RTOS_KERNEL_ELFS := $(FW_RTOS_KERNEL:%=$(FW_OUT)/rtos-%.elf)
FW_RTOS_KERNEL_OBJS := $(FW_RTOS_KERNEL:%=$(FW_OBJ)/models/rtos/%.o)

firmware: $(FW_RTOS_KERNEL_ELFS)

$(FW_RTOS_KERNEL_OBJS): $(FW_OBJ)/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -I$(FW_MODEL_DIR)/mantis -I$(FW_RTOS_DIR) -MMD -MP -c -o $@ $<

$(FW_OUT)/rtos-mantis.elf: $(call fw_model_runtime,mantis)
$(FW_RTOS_KERNEL_ELFS): $(FW_OUT)/rtos-%.elf: $(FW_OBJ)/models/rtos/%.o $(FW_RTOS_SHARED_OBJ) $(FW_KERNEL_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

# build/fw/metric-<m>.elf: the Thread-Metric-style figures per model (kernel/models/metric/,
# python/cairn/bench/models_metric.py). The bare models link their runtime and the models'
# port; mantis and cairn the production kernel (no event log, as thread-metric.elf), mantis
# also its layer, compiled the same way.
FW_METRIC_DIR := $(FW_MODEL_DIR)/metric
FW_METRIC_BARE := tinyos coop nos limit
FW_METRIC_KERNEL := mantis cairn
FW_METRIC_BARE_ELFS := $(FW_METRIC_BARE:%=$(FW_OUT)/metric-%.elf)
FW_METRIC_KERNEL_ELFS := $(FW_METRIC_KERNEL:%=$(FW_OUT)/metric-%.elf)
FW_METRIC_BARE_OBJS := $(FW_METRIC_BARE:%=$(FW_OBJ)/models/metric/%.o)
FW_METRIC_KERNEL_OBJS := $(FW_METRIC_KERNEL:%=$(FW_OBJ)/notrace/models/metric/%.o) \
	$(FW_OBJ)/notrace/models/mantis/mantis.o

firmware: $(FW_METRIC_BARE_ELFS) $(FW_METRIC_KERNEL_ELFS)

$(FW_METRIC_BARE_OBJS): $(FW_OBJ)/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_MODEL_CFLAGS) -I$(FW_METRIC_DIR) -MMD -MP -c -o $@ $<

$(FW_METRIC_KERNEL_OBJS): $(FW_OBJ)/notrace/%.o: $(FW_MK_DIR)/%.c $(FW_FLAGS_STAMP)
	@mkdir -p $(@D)
	$(FW_CC) $(FW_CFLAGS) $(FW_KERNEL_CFLAGS) -DCAIRN_TRACE_ENABLED=0 -I$(FW_MODEL_DIR)/mantis \
		-I$(FW_METRIC_DIR) -MMD -MP -c -o $@ $<

$(FW_METRIC_BARE_ELFS): $(FW_OUT)/metric-%.elf: $(FW_OBJ)/models/metric/%.o $$(call fw_model_runtime,%) $(FW_OBJ)/models/port/armv6m.o $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

$(FW_OUT)/metric-mantis.elf: $(FW_OBJ)/notrace/models/mantis/mantis.o
$(FW_METRIC_KERNEL_ELFS): $(FW_OUT)/metric-%.elf: $(FW_OBJ)/notrace/models/metric/%.o $(FW_KERNEL_NT_OBJS) $(FW_SUPPORT_OBJS) $(FW_BSP_OBJS) $(FW_LDSCRIPT)
	@mkdir -p $(@D)
	$(fw_link)

firmware-qemu: $(FW_TEST_ELFS)
	QEMU=$(FW_QEMU) FW_DIR=$(FW_OUT) $(FW_MK_DIR)/tests/sim/run-qemu.sh

firmware-clean:
	rm -rf $(FW_OUT) $(FW_OBJ)

-include $(FW_NT_OBJS:.o=.d) $(FW_PS_OBJS:.o=.d) $(FW_TM_OBJS:.o=.d) $(FW_TM_PS_OBJS:.o=.d) $(FW_POLICY_OBJS:.o=.d) $(FW_ALL_OBJS:.o=.d) $(FW_KERNEL_OBJS:.o=.d) $(FW_KBENCH_OBJS:.o=.d) $(FW_HELLO_OBJ:.o=.d) $(FW_HELLO8_OBJ:.o=.d) $(FW_KTEST_OBJS:.o=.d) \
	$(FW_DEV_OBJS:.o=.d) $(FW_DEV_SUPPORT_OBJS:.o=.d) $(FW_DEV_BUSY_OBJS:.o=.d) \
	$(FW_NET_OBJS:.o=.d) $(FW_APP_SUPPORT_OBJS:.o=.d) $(FW_PIPE_OBJ:.o=.d) $(FW_PIPE_SPREAD_OBJ:.o=.d) $(FW_PIPE_LOAD_OBJ:.o=.d) $(FW_MCAST_OBJ:.o=.d) \
	$(FW_TSYNC_OBJ:.o=.d) $(FW_TSYNC_FREE_OBJ:.o=.d) $(FW_PIPE_UART_OBJ:.o=.d) $(FW_NBENCH_OBJ:.o=.d) $(FW_MIGR_OBJ:.o=.d) \
	$(FW_FLAGSHIP_OBJ:.o=.d) $(FW_MIGB_OBJS:.o=.d) $(FW_CKPT_OVH_OBJ:.o=.d) \
	$(FW_CKPT_OBJS:.o=.d) $(FW_MODEL_OBJS:.o=.d) $(FW_METRIC_BARE_OBJS:.o=.d) $(FW_METRIC_KERNEL_OBJS:.o=.d) $(FW_NBENCH_NT_OBJS:.o=.d) $(FW_MANTIS_OBJS:.o=.d) \
	$(FW_SSL_OBJS:.o=.d) $(FW_SSL_NT_OBJS:.o=.d) $(FW_ASSIGN_OBJ:.o=.d) $(wildcard $(FW_OBJ)/ssl/apps/ssl/*.d $(FW_OBJ)/ssl-notrace/apps/ssl/*.d) \
	$(FW_TREE_BARE_OBJS:.o=.d) $(FW_TREE_KERNEL_OBJS:.o=.d) $(FW_RTOS_OBJS:.o=.d) $(FW_RTOS_KERNEL_OBJS:.o=.d)

# Standalone: `make -f kernel/firmware.mk` builds the firmware. Included: keep
# whatever default goal the including Makefile had chosen.
ifeq ($(FW_STANDALONE),yes)
.DEFAULT_GOAL := firmware
else
.DEFAULT_GOAL := $(FW_SAVED_DEFAULT_GOAL)
endif
