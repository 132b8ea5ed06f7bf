# scaledot: build ./train, run the tests, run the benchmark.
#   make            build ./train (gcc; `make CC=clang` works too)
#   make test       build and run every test (gcc; installs Check with apt-get if missing and
#                   allowed); quiet: a line per compiled file and per test program, a failing
#                   program's output in full; V=1 prints commands and output; TEST_JOBS=N runs N
#                   test programs at once (default: the number of cores)
#   make test-run   the same without the Check install (the quick check while you work)
#   make test-all   make test, then the sanitizer run, the clang run and the mutation check
#                   (what CI's .ci/run adds to make test, minus trainings, fuzzing and the rest)
#   make test-sanitize  every test again under ASan+UBSan (gcc, build/asan/)
#   make test-clang every test built with clang (build/clang/; ./train is left alone)
#   make bench      time whole training steps on fixed shapes (BENCH_ARGS=--quick for a short run)
#   make bench-gpt2   the same at GPT-2 small's shape (4,64,768,12,12,50257), 1 and 2 threads
#   make bench-kernels  each matmul product alone at the width shapes' sizes, one thread
#   make bench-sgemm  our matmul kernels against OpenBLAS sgemm (needs libopenblas-dev; optional)
#   make bench-torch  the same training step in PyTorch against ours (needs python3-torch; optional)
#   make bench-torch-gpt2  the same at GPT-2 small's shape, with tokens/s and peak RSS (optional)
#   make test-twin  the PyTorch twin (twin/) reproduces exported runs (needs python3-torch; optional)
#   make test-browser  the report pages in headless Chromium (tests/browser.sh; optional)
#   make bench-wait   OpenMP's idle threads asleep (our default) against a short spin
#   make bench-seq    the cost per token at T = 512 against T = 128, the two alternated
#   make bench-block  the llama block's training step against gpt2's, the two alternated
#   make bench-sweep  a sweep of 8 short runs with --jobs 2 against --jobs 1 (wall-time ratio)
#   make mutation   plant each wrong formula of .ci/mutants.txt in a scratch copy; fails if a test
#                   suite misses one (.ci/mutation.sh; MUTATION_JOBS=N mutants at once, default
#                   the number of cores, each in a copy of its own)
#   make portable  ./train for any x86-64-v3 CPU instead of this one (-march=native); ARCH=... too
#   make reference-table  docs/configuration.md's table of every key regenerated (after a new key)
#   make lr-map     src/train/lr_map_table.c regenerated from experiments/regimes.txt and results
#   make clean
ifeq ($(origin CC),default)
CC = gcc
endif

# Optimised but IEEE-strict: no fast-math style flags (they remove NaN checks and let the
# compiler reorder sums). -O3: gcc's -O2 leaves the lane-parallel row sums of LayerNorm and the
# GELU loops scalar. -ffp-contract=fast: a·b + c becomes one fused multiply-add where the
# compiler sees it (ISO C mode turns that off); a fixed compile-time choice, the same on every
# thread count, and it halves GELU's dependent operations.
# -march=ARCH: native (the default) uses every instruction this CPU has, so the binary may not
# run on another model (a cluster's compute nodes that differ from the login node: "Illegal
# instruction"). `make portable` (or ARCH=x86-64-v3, ARCH=x86-64-v2 ...) builds for a family
# instead; `./train --version` and the bench say which one a binary is.
ARCH     ?= native
OPT      ?= -O3 -march=$(ARCH)
WARN     = -Wall -Wextra -Werror
CPPFLAGS += -Isrc -D_POSIX_C_SOURCE=200809L
CFLAGS   ?= $(OPT)
CFLAGS   += -std=c11 -ffp-contract=fast $(WARN)
LDLIBS   += -lm

# Quiet by default: a short line per compiled file; V=1 prints the whole commands.
ifeq ($(V),1)
Q   =
SAY = @:
else
Q   = @
SAY = @printf '  %-6s %s\n'
endif

# OpenMP when the compiler has it (clang needs libomp-dev); build serially otherwise. The probe
# compiles and links a program at every make; a caller that runs make many times on one tree
# (make mutation: once per mutant) passes its answer (OMP_OK=yes or OMP_OK=no) instead.
ifeq ($(origin OMP_OK),undefined)
OMP_OK := $(shell printf '\043include <omp.h>\nint main(void){return omp_get_max_threads()<1;}\n' | \
	$(CC) -fopenmp -x c - -o /dev/null 2>/dev/null && echo yes)
endif
ifeq ($(OMP_OK),yes)
CFLAGS  += -fopenmp
LDFLAGS += -fopenmp
else
# The pragmas stay in the source; without OpenMP they are ignored on purpose.
CFLAGS  += -Wno-unknown-pragmas
$(info note: $(CC) has no usable OpenMP; building single-threaded (for clang: apt-get install libomp-dev))
endif

BUILD     = build/$(notdir $(CC))$(if $(filter-out native,$(ARCH)),-$(ARCH))
# src/<stage>/*.c, and one level deeper for a stage kept in rooms (src/report/<room>/*.c)
LIB_SRC   = $(filter-out src/main.c,$(wildcard src/*/*.c src/*/*/*.c))
# every header of the product (an object's own headers come from the compiler: DEPFLAGS below)
SRC_H     = $(wildcard src/*/*.h src/*/*/*.h)
LIB_OBJ   = $(patsubst src/%.c,$(BUILD)/float/%.o,$(LIB_SRC))
# The model's kernels again in double precision, for the finite-difference gradient tests.
DBL_SRC   = $(wildcard src/model/*.c) src/util/rng.c
DBL_OBJ   = $(patsubst src/%.c,$(BUILD)/double/%.o,$(DBL_SRC))
# Tests that check gradients by finite differences link the double build; the rest the product's.
DBL_TESTS = test_embedding test_layernorm test_matmul test_attention test_gelu test_vecmath test_loss test_model test_qknorm test_attention_fixes test_rmsnorm test_rope test_swiglu
ALL_TESTS = $(basename $(notdir $(wildcard tests/test_*.c)))
FLT_TESTS = $(filter-out $(DBL_TESTS),$(ALL_TESTS))

# Shared test helpers (tests/*.c that are not test programs), compiled into every test.
TEST_SUPPORT = $(filter-out tests/test_%.c,$(wildcard tests/*.c))

CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

# `make` alone builds ./train (set here because rules for stamps come before `all`).
.DEFAULT_GOAL := all

# ./train is relinked when the compiler changes (make CC=clang, then make): a stamp per compiler.
# make test-clang links no ./train and leaves the stamps alone (TRAIN_STAMP=keep), so that the
# next gcc make does not relink ./train under a step that runs it (CI runs them side by side).
CC_STAMP := build/cc-$(notdir $(CC))-$(ARCH).stamp
ifneq ($(TRAIN_STAMP),keep)
$(shell mkdir -p build; [ -f $(CC_STAMP) ] || { rm -f build/cc-*.stamp; touch $(CC_STAMP); })
endif
# made again if another compiler's make removed it meanwhile (CI runs builds side by side)
$(CC_STAMP):
	@touch $@

# Provenance (src/util/provenance.c): the git commit and whether the tree was modified, and the
# flags, compiled into that one file. Its stamp changes only when they do, so a commit rebuilds
# one object. Outside a git checkout the commit is left empty. One stamp per build folder: the
# sanitizer and valgrind builds (other flags) leave the product's stamp alone, so building one
# never recompiles another's provenance.o (CI builds them side by side).
# (GIT_DESC given on the command line: git is not asked, as for OMP_OK above.)
comma := ,
ifeq ($(origin GIT_DESC),undefined)
GIT_DESC := $(shell git -C $(CURDIR) rev-parse --short=12 HEAD 2>/dev/null)
GIT_DESC := $(if $(GIT_DESC),$(GIT_DESC)$(if $(shell git -C $(CURDIR) status --porcelain --untracked-files=no 2>/dev/null),$(comma) modified))
endif
PROV_DEFS = -DSCALEDOT_GIT='"$(GIT_DESC)"' -DSCALEDOT_CFLAGS='"$(strip $(CFLAGS))"'
PROV_STAMP := $(BUILD)/provenance.stamp
$(shell mkdir -p $(BUILD); echo "$(GIT_DESC) $(CFLAGS)" | cmp -s - $(PROV_STAMP) || echo "$(GIT_DESC) $(CFLAGS)" > $(PROV_STAMP))

# Header dependencies from the compiler: each compile writes, beside its object, a .d file naming
# the headers of ours the source includes, directly or not (-MMD: system headers left out), and
# -MP an empty rule per header, so that a header removed or renamed does not stop make. The .d
# files are read at the end of this Makefile: a changed header recompiles only the objects that
# include it. Paths in them are as given to the compiler (relative to the tree), so a copy of
# the tree with its build folder (make mutation's scratch copies) keeps them true. No header is
# generated by a rule, so a first build needs none of them.
DEPFLAGS = -MMD -MP
# An object without its .d file (built by a Makefile older than these rules, or its .d removed)
# depends on every header of $(1), as all objects once did, until it is compiled again; the
# test is made per object when make reaches it (secondary expansion).
.SECONDEXPANSION:
deps_or_all = $$(if $$(wildcard $$(basename $$@).d),,$(1))
# A program compiled and linked by one command (no object of its own): its .d file beside it.
DEPFLAGS_PROG = $(DEPFLAGS) -MF $@.d -MT $@

.PHONY: all test test-run test-all test-clang test-clang-run check-deps clean bench bench-gpt2 bench-kernels bench-sgemm bench-torch bench-torch-gpt2 bench-wait bench-seq bench-block bench-sweep mutation portable
all: train

train: $(BUILD)/float/main.o $(LIB_OBJ) $(CC_STAMP)
	$(SAY) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LDLIBS)

$(BUILD)/float/%.o: src/%.c $(call deps_or_all,$(SRC_H))
	@mkdir -p $(dir $@)
	$(SAY) CC $@
	$(Q)$(CC) $(DEPFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/float/util/provenance.o: src/util/provenance.c $(call deps_or_all,$(SRC_H)) $(PROV_STAMP)
	@mkdir -p $(dir $@)
	$(SAY) CC $@
	$(Q)$(CC) $(DEPFLAGS) $(CPPFLAGS) $(PROV_DEFS) $(CFLAGS) -c -o $@ $<

# make portable: ./train for any x86-64 CPU with AVX2 and FMA (Haswell and later, Zen), built in
# build/<cc>-x86-64-v3/; `make portable ARCH=x86-64-v2` for older machines.
portable:
	@$(MAKE) --no-print-directory train ARCH=$(if $(filter-out native,$(ARCH)),$(ARCH),x86-64-v3)

$(BUILD)/double/%.o: src/%.c $(call deps_or_all,$(SRC_H))
	@mkdir -p $(dir $@)
	$(SAY) CC $@
	$(Q)$(CC) $(DEPFLAGS) $(CPPFLAGS) -DSCALEDOT_DOUBLE $(CFLAGS) -c -o $@ $<

# A test program is linked from its own object, the helpers' objects and the product's objects
# (the double build's for DBL_TESTS). Each object compiles once per build, so the helpers are not
# compiled again for every program, and a changed source file relinks without recompiling the
# tests (make mutation relinks only the programs a mutant names). The objects hold this tree's
# path (SCALEDOT_SOURCE_DIR), like the programs.
TEST_OBJ      = $(BUILD)/test-obj
# (the headers a test object may include: the fallback of deps_or_all)
TEST_H        = $(wildcard tests/*.h) $(SRC_H)
TEST_CPPFLAGS = $(CPPFLAGS) -Itests -DSCALEDOT_SOURCE_DIR='"$(CURDIR)"'
SUPPORT_NAMES = $(basename $(notdir $(TEST_SUPPORT)))

$(TEST_OBJ)/float/%.o: tests/%.c $(call deps_or_all,$(TEST_H))
	@mkdir -p $(dir $@)
	$(SAY) CC $@
	$(Q)$(CC) $(DEPFLAGS) $(TEST_CPPFLAGS) $(CFLAGS) $(CHECK_CFLAGS) -c -o $@ $<

$(TEST_OBJ)/double/%.o: tests/%.c $(call deps_or_all,$(TEST_H))
	@mkdir -p $(dir $@)
	$(SAY) CC $@
	$(Q)$(CC) $(DEPFLAGS) $(TEST_CPPFLAGS) -DSCALEDOT_DOUBLE $(CFLAGS) $(CHECK_CFLAGS) -c -o $@ $<

$(addprefix $(BUILD)/tests/,$(FLT_TESTS)): $(BUILD)/tests/%: $(TEST_OBJ)/float/%.o \
		$(patsubst %,$(TEST_OBJ)/float/%.o,$(SUPPORT_NAMES)) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(SAY) LD $@
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(LDFLAGS) $(CHECK_LIBS) $(LDLIBS)

$(addprefix $(BUILD)/tests/,$(DBL_TESTS)): $(BUILD)/tests/%: $(TEST_OBJ)/double/%.o \
		$(patsubst %,$(TEST_OBJ)/double/%.o,$(SUPPORT_NAMES)) $(DBL_OBJ)
	@mkdir -p $(dir $@)
	$(SAY) LD $@
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(LDFLAGS) $(CHECK_LIBS) $(LDLIBS)

# The configuration reference's home: the block between its two marker lines in REF_DOC is
# ./train --reference-table's output, replaced whole, so a new key is documented by one command
# (tests/test_readme_table.c fails until it is).
REF_DOC = docs/configuration.md
.PHONY: reference-table
reference-table: train
	@./train --reference-table > $(REF_DOC).table
	@grep -q '^<!-- reference-table:' $(REF_DOC) && grep -q '^<!-- end of reference-table -->' $(REF_DOC) \
	  || { echo "$(REF_DOC) lacks the reference-table marker lines" >&2; rm -f $(REF_DOC).table; exit 1; }
	@awk -v tbl=$(REF_DOC).table '/^<!-- reference-table:/ { print; while ((getline l < tbl) > 0) print l; skip = 1; next } \
	  /^<!-- end of reference-table -->/ { skip = 0 } !skip' $(REF_DOC) > $(REF_DOC).tmp
	@mv $(REF_DOC).tmp $(REF_DOC) && rm -f $(REF_DOC).table
	@echo "$(REF_DOC): reference table regenerated"

# The measured regimes compiled into ./train (--where, init_check.txt; train/lr_map.h): the
# regimes of LR_MAP_REGIMES and every finished run of their sweeps into LR_MAP_TABLE, by one
# command after new results (tests/test_lr_map_table.c fails until it is run).
LR_MAP_REGIMES = experiments/regimes.txt
LR_MAP_TABLE   = src/train/lr_map_table.c
.PHONY: lr-map
lr-map:
	@tools/lr_map_table.sh $(LR_MAP_REGIMES) > $(LR_MAP_TABLE).tmp || { rm -f $(LR_MAP_TABLE).tmp; exit 1; }
	@mv $(LR_MAP_TABLE).tmp $(LR_MAP_TABLE)
	@echo "$(LR_MAP_TABLE): regenerated from $(LR_MAP_REGIMES) and $$(grep -c '^    {[0-9]*, "results' $(LR_MAP_TABLE)) runs"

# Check is the one test dependency: install it when missing and allowed, else say what to run.
# tools/apt_install.sh waits for another apt (unattended upgrades) instead of failing.
check-deps:
	@if ! pkg-config --exists check 2>/dev/null; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "make test: installing the Check unit-test framework (apt-get install check pkg-config)"; \
	    tools/apt_install.sh check pkg-config >/dev/null || exit 1; \
	  elif command -v apt-get >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
	    echo "make test: installing the Check unit-test framework (sudo apt-get install check pkg-config)"; \
	    sudo tools/apt_install.sh check pkg-config >/dev/null || exit 1; \
	  else \
	    echo "make test needs the Check unit-test framework and pkg-config."; \
	    echo "Install them with:  sudo apt-get install check pkg-config   (Fedora: dnf install check-devel)"; \
	    exit 1; \
	  fi; \
	fi

# make test: every test program (gcc), built on every core unless -j was given and run
# TEST_JOBS at a time (tests/run_tests.sh; default the number of cores: the programs are
# independent, each in folders of its own). The sanitizer, clang and mutation runs are
# make test-all's, and CI's (.ci/run).
JOBS_FLAG = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))
test: check-deps
	@$(MAKE) --no-print-directory $(JOBS_FLAG) test-run

# Every check make test leaves to CI, one after the other (each on every core); .ci/run runs the
# same steps side by side with the rest of CI. The clang run needs clang (and libomp-dev).
test-all: check-deps
	@$(MAKE) --no-print-directory $(JOBS_FLAG) test-run
	@$(MAKE) --no-print-directory test-sanitize
	@$(MAKE) --no-print-directory test-clang
	@$(MAKE) --no-print-directory mutation

# The environment of every test run. Check's per-test time limits only catch hangs; a shared,
# busy machine gets five times more. OpenMP's idle threads sleep (OMP_WAIT_POLICY=passive), as
# ./train sets for itself (src/main.c): under libgomp's default they spin, and the test programs
# call the kernels directly on tiny shapes, thousands of times, beside other programs: test_model
# took 78 CPU seconds instead of 10, test_determinism (3 and 4 threads on 2 cores) 20 instead of 2.
# TEST_JOBS (tests/run_tests.sh) reaches the script through the environment.
TEST_ENV = CK_FORK=yes CK_TIMEOUT_MULTIPLIER=$${CK_TIMEOUT_MULTIPLIER:-5} \
	OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-passive}
test-run: train $(addprefix $(BUILD)/tests/,$(ALL_TESTS))
	@$(TEST_ENV) V=$(V) tests/run_tests.sh "" ./$(BUILD)/tests $(ALL_TESTS)

# The suite built with clang in build/clang/; its end-to-end tests run build/clang/train, so
# ./train (gcc) is neither relinked nor replaced while other steps run it (CI runs them side by side).
test-clang: check-deps
	@command -v clang > /dev/null || { echo "make test-clang needs clang:" \
	  "sudo apt-get install clang libomp-dev"; exit 1; }
	@$(MAKE) --no-print-directory $(JOBS_FLAG) CC=clang TRAIN_STAMP=keep test-clang-run

test-clang-run: $(BUILD)/train $(addprefix $(BUILD)/tests/,$(ALL_TESTS))
	@$(TEST_ENV) SCALEDOT_TRAIN_BIN=$(CURDIR)/$(BUILD)/train \
	  V=$(V) tests/run_tests.sh " ($(notdir $(CC)))" ./$(BUILD)/tests $(ALL_TESTS)

# The benchmark links the product's objects unchanged; -Wl,--wrap routes model.c's kernel calls
# through timing wrappers in bench/kernel_wrap.c (per-kernel shares at no cost to the product).
BENCH_SRC     = bench/bench.c bench/step_timing.c bench/kernel_wrap.c bench/machine.c \
	bench/tables.c bench/matmul_mode.c bench/kernel_lines.c bench/fma_peak.c
BENCH_ARGS   ?=
BENCH_KERNELS = matmul_forward matmul_backward matmul_forward_scratch matmul_backward_scratch \
	matmul_bf16_forward matmul_bf16_backward \
	attention_forward attention_backward attention_backward_scratch \
	layernorm_forward layernorm_backward gelu_forward gelu_backward \
	crossentropy_forward crossentropy_backward
BENCH_WRAP    = $(foreach k,$(BENCH_KERNELS),-Wl,--wrap=$(k))

BENCH_OBJ     = $(patsubst bench/%.c,$(BUILD)/bench/obj/%.o,$(BENCH_SRC))

$(BUILD)/bench/obj/%.o: bench/%.c $(call deps_or_all,$(wildcard bench/*.h) $(SRC_H))
	@mkdir -p $(dir $@)
	$(SAY) CC $@
	$(Q)$(CC) $(DEPFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/bench/bench: $(BENCH_OBJ) $(LIB_OBJ)
	$(SAY) LD $@
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(BENCH_WRAP) $(LDLIBS)

# Idle OpenMP threads sleep, as in ./train (src/main.c), unless OMP_WAIT_POLICY is set.
bench: $(BUILD)/bench/bench
	OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-passive} ./$(BUILD)/bench/bench $(BENCH_ARGS)

# GPT-2 small's shape (4,64,768,12,12,50257), too slow for the default run; the kernel lines alone.
bench-gpt2: $(BUILD)/bench/bench
	OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-passive} ./$(BUILD)/bench/bench --gpt2 $(BENCH_ARGS)

bench-kernels: $(BUILD)/bench/bench
	OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-passive} ./$(BUILD)/bench/bench --kernels $(BENCH_ARGS)

# Yardstick only: OpenBLAS is never linked into the product, the tests or `make bench`.
# OpenBLAS 0.3.21 does not recognise this CPU model and falls back to its generic Prescott
# kernels (~20 GFLOP/s); OPENBLAS_CORETYPE picks its AVX-512 SkylakeX kernels instead.
SGEMM_ARGS        ?=
OPENBLAS_CORETYPE ?= SkylakeX
# OpenBLAS's development files (cblas.h, libopenblas.so) come from libopenblas-dev: a trial
# compile and link of one cblas_sgemm reference checks for them first, so that their absence is
# one line naming the package (exit 2), not a linker error.
OPENBLAS_CFLAGS = $(shell pkg-config --cflags openblas 2>/dev/null)
OPENBLAS_LIBS   = $(shell pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
$(BUILD)/bench/sgemm_yardstick: bench/sgemm_yardstick.c $(BUILD)/float/model/matmul.o \
		$(call deps_or_all,$(SRC_H))
	@mkdir -p $(dir $@)
	@printf '#include <cblas.h>\nint main(void) { void *volatile p = (void *)cblas_sgemm; return p == 0; }\n' | \
	  $(CC) $(OPENBLAS_CFLAGS) -x c - -o $@.check $(OPENBLAS_LIBS) 2>/dev/null || { \
	  echo "bench-sgemm: OpenBLAS's development files (cblas.h, libopenblas.so) are missing;" \
	       "install them: apt-get install libopenblas-dev" >&2; rm -f $@.check; exit 2; }
	@rm -f $@.check
	$(CC) $(DEPFLAGS_PROG) $(CPPFLAGS) $(CFLAGS) $(OPENBLAS_CFLAGS) -o $@ $< \
		$(BUILD)/float/model/matmul.o $(LDFLAGS) $(OPENBLAS_LIBS) $(LDLIBS)

bench-sgemm: $(BUILD)/bench/sgemm_yardstick
	OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=$(OPENBLAS_CORETYPE) ./$(BUILD)/bench/sgemm_yardstick $(SGEMM_ARGS)

# Yardstick only: the same model's training step in PyTorch (Debian's python3-torch), alternated
# with ours at the bench shapes on 1 and 2 threads (bench/torch_compare.sh; TORCH_ROUNDS rounds of
# TORCH_SECONDS per program; TORCH_CORETYPE, default SkylakeX, the OpenBLAS kernel PyTorch gets),
# then the bf16 step against PyTorch's bf16 autocast where the CPU has a fast bf16 path
# (TORCH_BF16=0: float32 only).
TORCH_ROUNDS  ?= 3
TORCH_SECONDS ?= 4
bench-torch: $(BUILD)/bench/bench
	bench/torch_compare.sh ./$(BUILD)/bench/bench $(TORCH_ROUNDS) $(TORCH_SECONDS)

# The same at GPT-2 small's shape (4,64,768,12,12,50257), bench --gpt2's model: TORCH_SHAPES=gpt2,
# whose rows add tokens/s and both processes' peak RSS; TORCH_ROUNDS, TORCH_SECONDS, TORCH_BF16 as
# above (a step takes seconds: each program still times its minimum of steps).
bench-torch-gpt2: $(BUILD)/bench/bench
	TORCH_SHAPES=gpt2 bench/torch_compare.sh ./$(BUILD)/bench/bench $(TORCH_ROUNDS) $(TORCH_SECONDS)

# The PyTorch twin (twin/) against ./train: three tiny runs (gpt2, qk-norm, llama) exported and re-evaluated in PyTorch
# (tests/twin.sh; prints SKIPPED and succeeds without python3-torch).
.PHONY: test-twin
test-twin: train
	tests/twin.sh

# The report pages in headless Chromium (tests/browser.sh; installs Debian's chromium when root,
# prints SKIPPED and succeeds otherwise): figures inline, hover tooltip, run toggles, no script
# error, a screenshot that is not blank.
.PHONY: test-browser
test-browser: train
	tests/browser.sh

# How idle OpenMP threads should wait: sleeping (./train's default) against a short spin, for one
# 2-thread run alone and for two sharing the cores (bench/wait_policy.sh).
bench-wait: $(BUILD)/bench/bench train
	bench/wait_policy.sh ./$(BUILD)/bench/bench

# The cost per token at T = 512 against T = 128, the two alternated (bench/seq_alternate.sh).
SEQ_ROUNDS ?= 4
bench-seq: $(BUILD)/bench/bench
	bench/seq_alternate.sh ./$(BUILD)/bench/bench $(SEQ_ROUNDS)

# The llama block's training step against gpt2's at the bench's shapes, alternated: bench/block_speed.sh.
bench-block: train
	bench/block_speed.sh ./train $(BLOCK_ROUNDS)

# Whole sweeps, --jobs 2 against --jobs 1 (8 short sort runs), alternated: bench/sweep_jobs.sh.
bench-sweep: train
	bench/sweep_jobs.sh $(SWEEP_PAIRS)

# Reuses this tree's objects (built first), so only each mutated file recompiles.
mutation: check-deps $(LIB_OBJ) $(DBL_OBJ) $(BUILD)/float/main.o
	CC=$(CC) .ci/mutation.sh

clean:
	rm -rf build train

# ---- Reliability (issue #5): fuzzing and sanitizer builds (.ci/fuzz.sh, .ci/valgrind.sh).
#   make fuzz            libFuzzer harnesses fuzz/fuzz_*.c into build/fuzz/ (clang); run: .ci/fuzz.sh
#   make test-sanitize   every test and the program under ASan + UBSan (gcc) in build/asan/;
#                        ./train is left alone: test_train runs build/asan/train instead
FUZZ_CC      ?= clang
FUZZ_DIR      = build/fuzz
FUZZ_CFLAGS   = -std=c11 $(WARN) -g -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all
# The parsers the harnesses drive and what they call; no OpenMP (the pragmas are ignored).
# fuzz_checkpoint builds models from the checkpoint's config, so it links the whole library.
FUZZ_LIB_SRC  = $(wildcard src/config/*.c) $(wildcard src/tasks/*.c) src/util/rng.c \
	src/util/file_check.c src/util/error_list.c
FUZZ_LIB_OBJ  = $(patsubst src/%.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_LIB_SRC))
FUZZ_ALL_OBJ  = $(patsubst src/%.c,$(FUZZ_DIR)/obj/%.o,$(LIB_SRC))
FUZZ_BINS     = $(patsubst fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard fuzz/fuzz_*.c))

$(FUZZ_DIR)/obj/%.o: src/%.c $(call deps_or_all,$(SRC_H))
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(DEPFLAGS) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/fuzz_checkpoint: $(FUZZ_ALL_OBJ)
$(FUZZ_BINS): $(FUZZ_DIR)/%: fuzz/%.c $(FUZZ_LIB_OBJ) $(call deps_or_all,$(wildcard fuzz/*.h) $(SRC_H))
	$(FUZZ_CC) $(DEPFLAGS_PROG) $(CPPFLAGS) -Ifuzz $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(sort $(filter %.o,$^)) $(LDLIBS)

SAN_BUILD = build/asan
# -O2, not the usual -O1: every check is still compiled in, and the kernels keep their tiles in
# registers, which about halves the training-heavy tests (on one core: test_train 22.9 -> 8.9 s,
# test_train_sh 40.8 -> 16.0 s; the ten slowest sanitized tests 140 -> 72 s).
# -g1: the line tables a sanitizer's stack trace names file:line by, without the rest of -g's
# debug information, which made the build a third slower.
SAN_OPT   = -O2 -g1 -march=native -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
# Check kills a test after 4 s by default; sanitized code runs several times slower.
SAN_ENV   = ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	CK_TIMEOUT_MULTIPLIER=10

# The program from this build's objects, beside them (the sanitizer and valgrind builds).
$(BUILD)/train: $(BUILD)/float/main.o $(LIB_OBJ)
	$(SAY) LD $@
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

.PHONY: fuzz test-sanitize test-sanitize-run
fuzz: $(FUZZ_BINS)

# CFLAGS is unset so that the child's CFLAGS comes from OPT.
test-sanitize: check-deps
	@unset CFLAGS; $(MAKE) --no-print-directory $(JOBS_FLAG) CC=gcc BUILD=$(SAN_BUILD) \
		OPT='$(SAN_OPT)' test-sanitize-run

# (SAN_ENV's CK_TIMEOUT_MULTIPLIER comes after TEST_ENV's and wins)
test-sanitize-run: $(BUILD)/train $(addprefix $(BUILD)/tests/,$(ALL_TESTS))
	@$(TEST_ENV) SCALEDOT_TRAIN_BIN=$(CURDIR)/$(BUILD)/train $(SAN_ENV) \
	  V=$(V) tests/run_tests.sh " (ASan+UBSan)" ./$(BUILD)/tests $(ALL_TESTS)

# The header dependencies the compiler wrote (DEPFLAGS), of this build folder and the fuzz
# build's: objects up to three folders deep (float/report/<room>/), and the programs' beside them.
-include $(foreach d,$(BUILD) $(FUZZ_DIR),$(wildcard $(d)/*.d $(d)/*/*.d $(d)/*/*/*.d $(d)/*/*/*/*.d))
