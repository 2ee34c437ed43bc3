# instrument/: mpipredict-instrument (the libclang C API rewriter) and
# mpipredict-cc (the compiler wrapper), both built on the same rewriter
# objects. `make instrument` builds this part and its test helpers.

INSTRUMENT_LIB_SRC := instrument/source.c instrument/edits.c instrument/plan.c \
	instrument/tu.c instrument/flags.c instrument/visit.c instrument/trip.c \
	instrument/codegen.c instrument/rewrite.c instrument/headers.c \
	instrument/lean.c
INSTRUMENT_LIB_OBJ := $(INSTRUMENT_LIB_SRC:%.c=$(OBJ)/%.o)
INSTRUMENT_BINS := $(BUILD)/bin/mpipredict-instrument $(BUILD)/bin/mpipredict-cc

$(OBJ)/instrument/%.o: CPPFLAGS += -I$(LLVM_DIR)/include
INSTRUMENT_LDLIBS := -L$(LLVM_DIR)/lib -lclang -Wl,-rpath,$(LLVM_DIR)/lib

$(BUILD)/bin/mpipredict-instrument: $(OBJ)/instrument/instrument_main.o $(INSTRUMENT_LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(INSTRUMENT_LDLIBS)

$(BUILD)/bin/mpipredict-cc: $(OBJ)/instrument/cc_main.o $(INSTRUMENT_LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(INSTRUMENT_LDLIBS)

# One-word wrappers (issue 14): mpipredict-<compiler> is mpipredict-cc with
# the compiler taken from its own name, so any link named so works
# (ln -s mpipredict-cc mpipredict-mpifort ...); these two come built.
INSTRUMENT_WRAPPERS := $(BUILD)/bin/mpipredict-mpicc $(BUILD)/bin/mpipredict-mpicxx
$(INSTRUMENT_WRAPPERS): $(BUILD)/bin/mpipredict-cc
	ln -sf mpipredict-cc $@

PROGRAMS += $(INSTRUMENT_BINS) $(INSTRUMENT_WRAPPERS)
FORMAT_SRC += $(wildcard instrument/*.c instrument/*.h) tests/instrument/testrt.c \
	tests/instrument/bench/kernels.c tests/instrument/bench/shapes.c

.PHONY: instrument
instrument: $(INSTRUMENT_BINS) $(INSTRUMENT_WRAPPERS)

# Rewrite speed and counter overhead (tests/instrument/bench.sh).
.PHONY: bench-instrument
bench-instrument: instrument collector
	@MPP_SRC=$(CURDIR) MPP_BUILD=$(abspath $(BUILD)) tests/instrument/bench.sh
BENCHES += bench-instrument

# The same figures for C++ (issue 20; tests/instrument/bench-cxx.sh).
.PHONY: bench-instrument-cxx
bench-instrument-cxx: instrument collector
	@MPP_SRC=$(CURDIR) MPP_BUILD=$(abspath $(BUILD)) tests/instrument/bench-cxx.sh
BENCHES += bench-instrument-cxx
# Counter cost on hot-loop shapes and the example apps (issue 14):
# instruction ratio (callgrind) and wall ratio (interleaved pairs).
# SRC=DIR (issue 34): also the development set's codes, built plain and
# through the wrapper from tests/bench/devset/ (bench-overhead-devset.sh).
.PHONY: bench-overhead
bench-overhead: instrument collector
	@MPP_SRC=$(CURDIR) MPP_BUILD=$(abspath $(BUILD)) SRC=$(SRC) tests/instrument/bench-overhead.sh
BENCHES += bench-overhead
