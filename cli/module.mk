# cli/: build rules for the offline commands, mpipredict-train,
# mpipredict-predict and mpipredict-model. Appends to PROGRAMS and
# FORMAT_SRC (see the top Makefile). `make cli` builds only them.
#
# They sit above regress/ (the trainer, the model) and schema/ (the store)
# and link both; neither of those includes anything from here.

# CLI_PROGS is named in the top Makefile (`make regress` builds them too).

$(OBJ)/cli/%.o: CPPFLAGS += $(shell $(PKG_CONFIG) --cflags gsl jansson sqlite3)

$(BUILD)/bin/mpipredict-train: $(OBJ)/cli/train_main.o $(STORE_LIB) $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(STORE_LIB) $(REGRESS_LIB) $(STORE_LDLIBS) \
	  $(REGRESS_LDLIBS) $(REGRESS_JSON_LDLIBS)

# --script reads a batch script with the daemon's own reader (server/script.c).
PREDICT_OBJS := $(OBJ)/cli/predict_main.o $(COMMON_ANSWER_OBJ) \
	$(OBJ)/server/script.o
$(BUILD)/bin/mpipredict-predict: $(PREDICT_OBJS) $(STORE_LIB) $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(PREDICT_OBJS) $(STORE_LIB) $(REGRESS_LIB) \
	  $(STORE_LDLIBS) $(REGRESS_LDLIBS) $(REGRESS_JSON_LDLIBS)

$(BUILD)/bin/mpipredict-model: $(OBJ)/cli/model_main.o $(STORE_LIB) $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(STORE_LIB) $(REGRESS_LIB) $(STORE_LDLIBS) \
	  $(REGRESS_LDLIBS) $(REGRESS_JSON_LDLIBS)

PROGRAMS += $(CLI_PROGS)
FORMAT_SRC += $(wildcard cli/*.c cli/*.h)

.PHONY: cli
cli: $(CLI_PROGS)
