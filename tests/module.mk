# tests/: the test runner is tests/run-tests.sh (see the top Makefile's
# `check`); compiled tests and the example applications are added by the
# parts that own them. `make demo` lives here because it crosses every part.

.PHONY: demo
demo: deps all
	@tests/demo.sh

FORMAT_SRC += $(wildcard tests/apps/*.c tests/apps/*.h)

# The example MPI applications (tests/apps/), built with plain $(MPICC): they
# are what the pipeline instruments, and what tests/apps/ checks uninstrumented.
# `make apps` builds them; `make check PART=apps` tests them.
APPS := prime jacobi3d is cg
APP_BINS := $(addprefix $(BUILD)/tests/apps/,$(APPS))
TEST_BINS += $(APP_BINS)

$(BUILD)/tests/apps/%: tests/apps/%.c tests/apps/app_args.h
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(OPT) $(WARN) $(SAN_FLAGS) -D_GNU_SOURCE $< -o $@ -lm

.PHONY: apps
apps: $(APP_BINS)

# make bench-accuracy (tests/bench/accuracy.sh): mpipredict against
# baselines and the noise floor; loglog is its parameters-only baseline (GSL).
# SRC=DIR: the development set instead (checkouts by folder name, recipes in
# tests/bench/devset/).
$(BUILD)/tests/bench/loglog: tests/bench/loglog.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(OPT) $(WARN) -D_GNU_SOURCE $(shell $(PKG_CONFIG) --cflags gsl) \
	  $< -o $@ $(shell $(PKG_CONFIG) --libs gsl) -lm
FORMAT_SRC += tests/bench/loglog.c

.PHONY: bench-accuracy
bench-accuracy: deps all $(BUILD)/tests/bench/loglog
	@BUILD=$(BUILD) SRC=$(SRC) tests/bench/accuracy.sh
BENCHES += bench-accuracy

# make bench-remaining (tests/bench/remaining.sh): how right a running job's
# remaining time is (GET /v1/jobs/{id}) against the model's own error, on
# the example apps; SRC=DIR: the development set's codes.
.PHONY: bench-remaining
bench-remaining: deps all
	@BUILD=$(BUILD) SRC=$(SRC) tests/bench/remaining.sh
BENCHES += bench-remaining

# The end-to-end tests (tests/e2e/) drive every part with the applications.
.PHONY: e2e
e2e: all apps

# The foundation's tests (runner, CLI conventions, install) need every part.
.PHONY: foundation
foundation: all
