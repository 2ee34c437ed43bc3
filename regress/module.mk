# regress/: build rules for this part. Appends to PROGRAMS, LIBRARIES, HEADERS,
# SHARE, PKGCONFIG, TEST_BINS, BENCHES and FORMAT_SRC (see the top Makefile).
# `make regress` builds only this part.
#
# For other parts: $(REGRESS_LIB) is the static archive with the model type,
# predict(), params and run-row parsing (and the trainer); link it with
# $(REGRESS_LDLIBS).

REGRESS_SRC := regress/params.c regress/runs.c regress/model.c regress/fit.c \
               regress/loggps.c regress/profile_json.c regress/comm_feature.c \
               regress/train.c
# REGRESS_LIB is named in the top Makefile.
REGRESS_LDLIBS := $(shell pkg-config --libs gsl) -lm -pthread
REGRESS_JSON_LDLIBS := $(shell pkg-config --libs jansson)

$(OBJ)/regress/%.o: CPPFLAGS += $(shell pkg-config --cflags gsl jansson)

$(REGRESS_LIB): $(REGRESS_SRC:%.c=$(OBJ)/%.o)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/bin/mpipredict-train: $(OBJ)/regress/train_main.o $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(STORE_LIB) $(REGRESS_LIB) $(STORE_LDLIBS) \
	  $(REGRESS_LDLIBS) $(REGRESS_JSON_LDLIBS)

$(BUILD)/bin/mpipredict-predict: $(OBJ)/regress/predict_main.o $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(STORE_LIB) $(REGRESS_LIB) $(STORE_LDLIBS) \
	  $(REGRESS_LDLIBS) $(REGRESS_JSON_LDLIBS)

# Test helpers: the synthetic-data generator and the params unit test.
$(BUILD)/tests/regress/gen-runs: $(OBJ)/regress/tests/gen_runs.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -lm
$(OBJ)/regress/tests/gen_runs.o: tests/regress/gen_runs.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/tests/regress/t-params: $(OBJ)/regress/tests/t_params.o $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(REGRESS_LDLIBS)
$(OBJ)/regress/tests/t_params.o: tests/regress/t_params.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

REGRESS_PROGS := $(BUILD)/bin/mpipredict-train $(BUILD)/bin/mpipredict-predict
REGRESS_TESTS := $(BUILD)/tests/regress/gen-runs $(BUILD)/tests/regress/t-params

PROGRAMS += $(REGRESS_PROGS)
# The model, params and runs headers are internal (libregress.a is not
# installed): the daemon and the trainer are the programs that use them.
TEST_BINS += $(REGRESS_TESTS)
FORMAT_SRC += $(wildcard regress/*.c regress/*.h tests/regress/*.c)

.PHONY: regress
regress: $(REGRESS_LIB) $(REGRESS_PROGS) $(REGRESS_TESTS)


# 10,000 runs x 1,000 features: time and peak memory of one training.
.PHONY: bench-train
bench-train: $(BUILD)/bin/mpipredict-train $(BUILD)/tests/regress/gen-runs
	@MPP_BUILD=$(abspath $(BUILD)) tests/regress/bench-train.sh
BENCHES += bench-train
