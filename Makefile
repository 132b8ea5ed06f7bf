# scaledot: build ./train, run the tests, run the benchmark.
#   make            build ./train (gcc; `make CC=clang` works too)
#   make test       build and run every test (installs Check with apt-get if missing and allowed)
#   make clean
ifeq ($(origin CC),default)
CC = gcc
endif

# Optimised but IEEE-strict: never -ffast-math / -Ofast, they remove NaN checks.
OPT      ?= -O2 -march=native
WARN     = -Wall -Wextra -Werror
CPPFLAGS += -Isrc -D_POSIX_C_SOURCE=200809L
CFLAGS   ?= $(OPT)
CFLAGS   += -std=c11 $(WARN)
LDLIBS   += -lm

# OpenMP when the compiler has it (clang needs libomp-dev); build serially otherwise.
OMP_OK := $(shell printf '\043include <omp.h>\nint main(void){return omp_get_max_threads()<1;}\n' | \
	$(CC) -fopenmp -x c - -o /dev/null 2>/dev/null && echo yes)
ifeq ($(OMP_OK),yes)
CFLAGS  += -fopenmp
LDFLAGS += -fopenmp
else
$(info note: $(CC) has no usable OpenMP; building single-threaded (for clang: apt-get install libomp-dev))
endif

BUILD     = build/$(notdir $(CC))
LIB_SRC   = $(filter-out src/main.c,$(wildcard src/*/*.c))
LIB_OBJ   = $(patsubst src/%.c,$(BUILD)/float/%.o,$(LIB_SRC))
# The model's kernels again in double precision, for the finite-difference gradient tests.
DBL_SRC   = $(wildcard src/model/*.c) src/util/rng.c
DBL_OBJ   = $(patsubst src/%.c,$(BUILD)/double/%.o,$(DBL_SRC))
# Tests that check gradients by finite differences link the double build; the rest the product's.
DBL_TESTS = test_embedding test_layernorm test_matmul test_attention test_gelu test_residual test_loss test_model
ALL_TESTS = $(basename $(notdir $(wildcard tests/test_*.c)))
FLT_TESTS = $(filter-out $(DBL_TESTS),$(ALL_TESTS))

# Shared test helpers (tests/*.c that are not test programs), compiled into every test.
TEST_SUPPORT = $(filter-out tests/test_%.c,$(wildcard tests/*.c))

CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

.PHONY: all test test-run check-deps clean
all: train

train: $(BUILD)/float/main.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/float/%.o: src/%.c $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/double/%.o: src/%.c $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DSCALEDOT_DOUBLE $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(LIB_OBJ) $(TEST_SUPPORT) $(wildcard tests/*.h) $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests -DSCALEDOT_SOURCE_DIR='"$(CURDIR)"' $(CFLAGS) $(CHECK_CFLAGS) \
		$(if $(filter $*,$(DBL_TESTS)),-DSCALEDOT_DOUBLE) \
		-o $@ $< $(TEST_SUPPORT) $(if $(filter $*,$(DBL_TESTS)),$(DBL_OBJ),$(LIB_OBJ)) $(LDFLAGS) $(CHECK_LIBS) $(LDLIBS)

$(addprefix $(BUILD)/tests/,$(DBL_TESTS)): $(DBL_OBJ)

# Check is the one test dependency: install it when missing and allowed, else say what to run.
check-deps:
	@if ! pkg-config --exists check 2>/dev/null; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "make test: installing the Check unit-test framework (apt-get install check pkg-config)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq check pkg-config >/dev/null || exit 1; \
	  elif command -v apt-get >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
	    echo "make test: installing the Check unit-test framework (sudo apt-get install check pkg-config)"; \
	    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq check pkg-config >/dev/null || exit 1; \
	  else \
	    echo "make test needs the Check unit-test framework and pkg-config."; \
	    echo "Install them with:  sudo apt-get install check pkg-config   (Fedora: dnf install check-devel)"; \
	    exit 1; \
	  fi; \
	fi

test: check-deps
	@$(MAKE) --no-print-directory test-run

test-run: train $(addprefix $(BUILD)/tests/,$(ALL_TESTS))
	@fail=0; for t in $(ALL_TESTS); do \
	  echo "== $$t"; CK_FORK=yes ./$(BUILD)/tests/$$t || fail=1; \
	done; \
	if [ $$fail -ne 0 ]; then echo "make test: FAILED"; exit 1; fi; echo "make test: all test programs passed"

clean:
	rm -rf build train
