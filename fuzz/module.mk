# fuzz/: libFuzzer harnesses (clang-14, Debian's libfuzzer-14-dev) for the
# request decoder, the runs CSV reader, the batch-script reader, the
# whole prediction path, mpipredict-simulate's trace reader and
# mpipredict-replay's SWF reader, with seed corpora in fuzz/corpus/NAME/.
#
# `make fuzz FUZZ_TIME=S` builds everything again with clang-14 under
# -fsanitize=fuzzer-no-link,address,undefined in build-fuzz/ (FUZZ=1) and
# runs each harness for S seconds (fuzz/run.sh). In an ordinary build the
# same harnesses are linked with replay.c instead of libFuzzer
# ($(BUILD)/tests/fuzz/replay-NAME), and `make check` replays the corpora
# (tests/fuzz/). Appends to TEST_BINS and FORMAT_SRC.

FUZZERS := fuzz-request fuzz-runs fuzz-script fuzz-predict fuzz-trace \
	fuzz-swf
FUZZ_TIME ?= 60
# simulate/ti.o (fuzz-trace) is an object, linked into every harness.
FUZZ_LIBS = $(OBJ)/simulate/ti.o $(SERVER_DEPLIBS)
FUZZ_LDLIBS = $(SERVER_ALL_LDLIBS) $(SERVER_TEST_LDLIBS) $(shell $(PKG_CONFIG) --libs gsl)

$(OBJ)/fuzz/%.o: CPPFLAGS += $(shell $(PKG_CONFIG) --cflags yajl jansson)

REPLAY_BINS := $(addprefix $(BUILD)/tests/fuzz/replay-,$(FUZZERS))
# Kept, not deleted as intermediates of the pattern rules below.
.SECONDARY: $(FUZZERS:%=$(OBJ)/fuzz/%.o) $(OBJ)/fuzz/replay.o
$(BUILD)/tests/fuzz/replay-%: $(OBJ)/fuzz/%.o $(OBJ)/fuzz/replay.o $(FUZZ_LIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/fuzz/$*.o $(OBJ)/fuzz/replay.o \
	  -Wl,--start-group $(FUZZ_LIBS) -Wl,--end-group $(FUZZ_LDLIBS)

ifeq ($(FUZZ),1)
FUZZ_BINS := $(addprefix $(BUILD)/fuzz/,$(FUZZERS))
$(BUILD)/fuzz/fuzz-%: $(OBJ)/fuzz/fuzz-%.o $(FUZZ_LIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $(OBJ)/fuzz/fuzz-$*.o \
	  -Wl,--start-group $(FUZZ_LIBS) -Wl,--end-group $(FUZZ_LDLIBS)
.PHONY: fuzz-build
fuzz-build: $(FUZZ_BINS)
endif

.PHONY: fuzz
fuzz: deps
	$(MAKE) FUZZ=1 BUILD=build-fuzz fuzz-build
	@MPP_FUZZ_BUILD=$(abspath build-fuzz) FUZZ_TIME=$(FUZZ_TIME) \
	  fuzz/run.sh $(FUZZERS)

TEST_BINS += $(REPLAY_BINS)
FORMAT_SRC += $(wildcard fuzz/*.c fuzz/*.h)
