# regress/: build rules for this part. Appends to PROGRAMS, LIBRARIES, HEADERS,
# SHARE, PKGCONFIG, TEST_BINS, BENCHES and FORMAT_SRC (see the top Makefile).
# `make regress` builds only this part.
#
# For other parts: $(REGRESS_LIB) is the static archive with the model type,
# predict(), params and run-row parsing (and the trainer); link it with
# $(REGRESS_LDLIBS). The commands that use it with the store are in cli/
# (cli/module.mk; `make regress` builds them too, for tests/regress).

REGRESS_SRC := regress/params.c regress/runs.c regress/model.c regress/fit.c \
               regress/pool.c regress/train.c regress/train_load.c \
               regress/train_fold.c regress/train_select.c regress/train_final.c \
               regress/train_power.c regress/train_cv.c regress/train_methods.c \
               regress/train_law.c regress/train_check.c regress/train_stable.c \
               regress/loggps.c regress/profile_json.c regress/comm_feature.c \
               regress/placement.c regress/placement_fit.c regress/memory.c \
               regress/train_memory.c regress/challenge.c
# REGRESS_LIB is named in the top Makefile.
REGRESS_LDLIBS := $(shell $(PKG_CONFIG) --libs gsl) -lm -pthread
REGRESS_JSON_LDLIBS := $(shell $(PKG_CONFIG) --libs jansson)

$(OBJ)/regress/%.o: CPPFLAGS += $(shell $(PKG_CONFIG) --cflags gsl jansson)

$(REGRESS_LIB): $(REGRESS_SRC:%.c=$(OBJ)/%.o)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# Test helpers: the synthetic-data generator and the params unit test.
$(BUILD)/tests/regress/gen-runs: $(OBJ)/regress/tests/gen_runs.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -lm
$(OBJ)/regress/tests/gen_runs.o: tests/regress/gen_runs.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/tests/regress/gen-md: $(OBJ)/regress/tests/gen_md.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -lm
$(OBJ)/regress/tests/gen_md.o: tests/regress/gen_md.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/tests/regress/t-params: $(OBJ)/regress/tests/t_params.o $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(REGRESS_LDLIBS)
$(OBJ)/regress/tests/t_params.o: tests/regress/t_params.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/regress/t-challenge: $(OBJ)/regress/tests/t_challenge.o $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(REGRESS_LDLIBS)
$(OBJ)/regress/tests/t_challenge.o: tests/regress/t_challenge.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

REGRESS_TESTS := $(BUILD)/tests/regress/gen-runs $(BUILD)/tests/regress/gen-md \
                 $(BUILD)/tests/regress/t-params $(BUILD)/tests/regress/t-challenge

# The model, params and runs headers are internal (libregress.a is not
# installed): the daemon and the trainer are the programs that use them.
TEST_BINS += $(REGRESS_TESTS)
FORMAT_SRC += $(wildcard regress/*.c regress/*.h tests/regress/*.c tests/regress/*.h)

.PHONY: regress
regress: $(REGRESS_LIB) $(CLI_PROGS) $(REGRESS_TESTS)


# 10,000 runs x 1,000 features: time and peak memory of one training.
.PHONY: bench-train
bench-train: $(BUILD)/bin/mpipredict-train $(BUILD)/tests/regress/gen-runs
	@MPP_BUILD=$(abspath $(BUILD)) tests/regress/bench-train.sh
BENCHES += bench-train

# make bench-challenger: the champion and challenger rule against its goals
# (tests/regress/bench-challenger.sh).
.PHONY: bench-challenger
bench-challenger: $(BUILD)/bin/mpipredict-train $(BUILD)/tests/regress/gen-runs
	@MPP_BUILD=$(abspath $(BUILD)) tests/regress/bench-challenger.sh
BENCHES += bench-challenger
