# history/: build rules for this part (history.h: predictions from users'
# finished jobs; easy.h + swf.h: the trace replay). Appends to PROGRAMS,
# TEST_BINS, BENCHES and FORMAT_SRC (see the top Makefile). `make history`
# builds this part.
#
# For other parts: $(HISTORY_LIB) is the static archive of the predictor
# (history.h) and of the jobcomp record reader (jobcomp.h, which needs
# $(COMMON_TEXT_OBJS)), linked by the daemon; it needs $(HISTORY_LDLIBS)
# (GSL for the learned method's fits, learn.c).

HISTORY_SRC := history/history.c history/learn.c history/nag.c history/swf.c \
	history/easy.c history/jobcomp.c history/choose.c
# HISTORY_LIB is named in the top Makefile.
HISTORY_LDLIBS := $(shell $(PKG_CONFIG) --libs gsl) -lm
$(OBJ)/history/learn.o $(OBJ)/history/nag.o: CPPFLAGS += $(shell $(PKG_CONFIG) --cflags gsl)

$(HISTORY_LIB): $(HISTORY_SRC:%.c=$(OBJ)/%.o)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/bin/mpipredict-replay: $(OBJ)/history/replay_main.o $(HISTORY_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(HISTORY_LIB) $(HISTORY_LDLIBS) \
	  $(shell $(PKG_CONFIG) --libs jansson)

$(BUILD)/tests/history/t-history: $(OBJ)/history/tests/t_history.o $(HISTORY_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(HISTORY_LIB) $(HISTORY_LDLIBS)
$(OBJ)/history/tests/t_history.o: tests/history/t_history.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# The commands on the store: the jobcomp ingest (direct, or through the
# daemon with the client, common/client.h) and the accuracy report.
$(BUILD)/bin/mpipredict-jobcomp: $(OBJ)/history/jobcomp_main.o \
		$(OBJ)/history/jobcomp.o $(OBJ)/history/jobcomp_send.o \
		$(COMMON_TEXT_OBJS) $(CLIENT_OBJ) $(STORE_LIB) $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/history/jobcomp_main.o \
	  $(OBJ)/history/jobcomp.o $(OBJ)/history/jobcomp_send.o \
	  $(COMMON_TEXT_OBJS) $(CLIENT_OBJ) \
	  $(STORE_LIB) $(REGRESS_LIB) $(STORE_LDLIBS) $(REGRESS_LDLIBS) \
	  $(CLIENT_LIBS)
$(BUILD)/bin/mpipredict-accuracy: $(OBJ)/history/accuracy_main.o \
		$(STORE_LIB) $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(STORE_LIB) $(REGRESS_LIB) $(STORE_LDLIBS) \
	  $(REGRESS_LDLIBS)

HISTORY_PROGS := $(BUILD)/bin/mpipredict-replay \
	$(BUILD)/bin/mpipredict-jobcomp $(BUILD)/bin/mpipredict-accuracy
HISTORY_TESTS := $(BUILD)/tests/history/t-history

PROGRAMS += $(HISTORY_PROGS)
TEST_BINS += $(HISTORY_TESTS)
SHARE += history/KTH-SP2-filtered.swf.xz
FORMAT_SRC += $(wildcard history/*.c history/*.h tests/history/*.c)

.PHONY: history bench-history bench-history-grid bench-history-auto \
	bench-extension
history: $(HISTORY_LIB) $(HISTORY_PROGS) $(HISTORY_TESTS)

# The KTH-SP2 replay: the published rows first, then ours.
bench-history: $(BUILD)/bin/mpipredict-replay
	@MPP_BUILD=$(abspath $(BUILD)) history/bench-history.sh
BENCHES += bench-history

# The SC'15 study's grid of losses, weights and correctors for the online
# learner, on the whole trace and on each half; not in `make bench`: about
# 20 min on 2 cores.
bench-history-grid: $(BUILD)/bin/mpipredict-replay
	@MPP_BUILD=$(abspath $(BUILD)) TRACE=$(TRACE) PROCS=$(PROCS) \
	  history/bench-history-grid.sh

# --pred auto on KTH-SP2 (or TRACE, PROCS) and its variants (halves, a
# higher load, other request habits): its choice on each later half
# against the best fixed choice in hindsight and Tsafrir's. Not in `make
# bench`: about 4 min on 2 cores.
bench-history-auto: $(BUILD)/bin/mpipredict-replay
	@MPP_BUILD=$(abspath $(BUILD)) TRACE=$(TRACE) PROCS=$(PROCS) \
	  history/bench-history-auto.sh

# What extending running jobs' limits is worth on KTH-SP2 (issue 37):
# ECMWF's limits with and without the extension policy; about 1 s.
bench-extension: $(BUILD)/bin/mpipredict-replay
	@MPP_BUILD=$(abspath $(BUILD)) RATIOS=$(RATIOS) history/bench-extension.sh
BENCHES += bench-extension
