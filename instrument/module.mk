# instrument/: mpipredict-instrument (the libclang C API rewriter) and
# mpipredict-cc (the compiler wrapper), both built on the same rewriter
# objects. `make instrument` builds this part and its test helpers.

INSTRUMENT_LIB_SRC := instrument/source.c instrument/edits.c instrument/plan.c \
	instrument/tu.c instrument/flags.c instrument/visit.c \
	instrument/codegen.c instrument/rewrite.c
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

PROGRAMS += $(INSTRUMENT_BINS)
FORMAT_SRC += $(wildcard instrument/*.c instrument/*.h) tests/instrument/testrt.c \
	tests/instrument/bench/kernels.c

.PHONY: instrument
instrument: $(INSTRUMENT_BINS)

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
