# server/: mpipredictd, the prediction daemon (libmicrohttpd + yajl), its
# unit tests and test helpers (which read answers with jansson, a parser
# independent of the daemon's), and `make bench-server`.
# Appends to PROGRAMS, TEST_BINS, BENCHES and FORMAT_SRC (see the top
# Makefile). `make server` builds the daemon and its test programs.
#
# Links against the regress/ and schema/ archives: REGRESS_LIB, STORE_LIB
# and their *_LDLIBS come from regress/module.mk and schema/module.mk.

SERVER_SRC := log.c metrics.c strmap.c script.c cache.c request.c audit.c \
	keeper.c ingest.c api.c http.c hist.c ui_data.c ui_svg.c ui.c retrain.c \
	progress.c
SERVER_SRC += conf.c extend.c child.c
SERVER_OBJS := $(addprefix $(OBJ)/server/,$(SERVER_SRC:.c=.o)) $(COMMON_TEXT_OBJS) \
	$(COMMON_ANSWER_OBJ)
SERVER_A := $(OBJ)/server/libmppserver.a
# inih: the configuration file (conf.c).
SERVER_PKGS := libmicrohttpd yajl sqlite3 inih
SERVER_LDLIBS := $(shell $(PKG_CONFIG) --libs $(SERVER_PKGS)) -lpthread -lm
SERVER_DEPLIBS = $(SERVER_A) $(STORE_LIB) $(REGRESS_LIB) $(HISTORY_LIB)
SERVER_ALL_LDLIBS = $(STORE_LDLIBS) $(REGRESS_LDLIBS) $(SERVER_LDLIBS)
SERVER_TESTS := $(BUILD)/tests/server
SERVER_TEST_LDLIBS := $(shell $(PKG_CONFIG) --libs jansson)

$(OBJ)/server/%.o $(OBJ)/tests/server/%.o: \
	CPPFLAGS += $(shell $(PKG_CONFIG) --cflags $(SERVER_PKGS) jansson)

$(SERVER_A): $(SERVER_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/bin/mpipredictd: $(OBJ)/server/main.o $(SERVER_DEPLIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/server/main.o \
	  -Wl,--start-group $(SERVER_DEPLIBS) -Wl,--end-group $(SERVER_ALL_LDLIBS)

# Unit test of the batch-script reader: needs nothing but script.c and
# regress/params.c (declared parameters are checked with its parser).
$(SERVER_TESTS)/t-script: $(OBJ)/tests/server/t-script.o $(OBJ)/server/script.o \
  $(OBJ)/regress/params.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

# Test helper: a raw HTTP client for what curl cannot do (trickle, flood,
# stream a huge body) and a free-port finder. Not a test (no t- prefix).
$(SERVER_TESTS)/httpc: $(OBJ)/tests/server/httpc.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(SERVER_LDLIBS) $(SERVER_TEST_LDLIBS)

# Bench baseline: bare libmicrohttpd with mpipredictd's threading.
$(SERVER_TESTS)/bare-httpd: $(OBJ)/tests/server/bare-httpd.o $(SERVER_DEPLIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/server/bare-httpd.o \
	  -Wl,--start-group $(SERVER_DEPLIBS) -Wl,--end-group $(SERVER_ALL_LDLIBS)

# Test helper: stores a hand-written model.
$(SERVER_TESTS)/mkmodel: $(OBJ)/tests/server/mkmodel.o $(SERVER_DEPLIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/server/mkmodel.o \
	  -Wl,--start-group $(SERVER_DEPLIBS) -Wl,--end-group $(SERVER_ALL_LDLIBS)

# Test helper: mutated request bodies through the predict handler.
$(SERVER_TESTS)/fuzz-predict: $(OBJ)/tests/server/fuzz-predict.o $(SERVER_DEPLIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/server/fuzz-predict.o \
	  -Wl,--start-group $(SERVER_DEPLIBS) -Wl,--end-group $(SERVER_ALL_LDLIBS) \
	  $(SERVER_TEST_LDLIBS)

SERVER_TEST_BINS := $(SERVER_TESTS)/t-script $(SERVER_TESTS)/httpc \
	$(SERVER_TESTS)/bare-httpd $(SERVER_TESTS)/mkmodel \
	$(SERVER_TESTS)/fuzz-predict

PROGRAMS += $(BUILD)/bin/mpipredictd
TEST_BINS += $(SERVER_TEST_BINS)
BENCHES += bench-server
FORMAT_SRC += $(wildcard server/*.c server/*.h tests/server/*.c)

.PHONY: server bench-server
# The tests train real models and compare with mpipredict-predict.
server: $(BUILD)/bin/mpipredictd $(SERVER_TEST_BINS) \
	$(BUILD)/bin/mpipredict-train $(BUILD)/bin/mpipredict-predict \
	$(BUILD)/tests/regress/gen-runs

bench-server: $(BUILD)/bin/mpipredictd $(SERVER_TESTS)/bare-httpd \
	$(BUILD)/bin/mpipredict-train $(BUILD)/tests/regress/gen-runs
	@MPP_BUILD=$(abspath $(BUILD)) server/bench-server.sh

# make bench-retrain: POST /v1/predict's p99 while the daemon retrains an
# app of 10,000 runs x 1,000 features (server/bench-retrain.sh).
BENCHES += bench-retrain
.PHONY: bench-retrain
bench-retrain: $(BUILD)/bin/mpipredictd $(BUILD)/bin/mpipredict-train \
	$(BUILD)/tests/regress/gen-runs
	@MPP_BUILD=$(abspath $(BUILD)) server/bench-retrain.sh
