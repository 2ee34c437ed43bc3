# collector/: build rules for this part. Appends to PROGRAMS, LIBRARIES, HEADERS,
# SHARE, PKGCONFIG, TEST_BINS, BENCHES and FORMAT_SRC (see the top Makefile).
# `make collector` builds only this part: libmpipredict (.so and .a, compiled
# with $(MPICC)), its public headers under $(BUILD)/include/mpipredict/, and
# mpipredict-collect.

COLLECTOR_LIB_OBJS := $(addprefix $(OBJ)/collector/,pmpi.o runtime.o row.o runfile.o trace.o topo.o mpitime.o forward.o progress.o)
# interpose.o: binding MPI calls when a unit dlopen's the library.
COLLECTOR_LIB_OBJS += $(OBJ)/collector/interpose.o
COLLECTOR_CLI_OBJS := $(addprefix $(OBJ)/collector/,collect.o row.o runfile.o)
COLLECTOR_HEADERS  := collector/mpp_abi.h collector/mpi_table.def
COLLECTOR_INCS     := $(addprefix $(BUILD)/include/mpipredict/,$(notdir $(COLLECTOR_HEADERS)))

# Every object of this part is compiled by the MPI compiler wrapper, so that
# mpi.h and the MPI ABI are the ones the library will be linked with.
# -fno-plt: every wrapper calls its PMPI function through the GOT directly,
# one indirect jump less per MPI call.
$(OBJ)/collector/%.o: CC := $(MPICC)
$(OBJ)/collector/%.o: CFLAGS += -fno-plt

$(BUILD)/lib/libmpipredict.so: $(COLLECTOR_LIB_OBJS)
	@mkdir -p $(@D)
	$(MPICC) -shared -Wl,-soname,libmpipredict.so $(LDFLAGS) -o $@ $^ -lhwloc -lpthread

$(BUILD)/lib/libmpipredict.a: $(COLLECTOR_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# mpipredict-collect --forward posts rows to the daemon: common/client.o
# with libcurl and libinih (the command only, never libmpipredict).
$(BUILD)/bin/mpipredict-collect: $(COLLECTOR_CLI_OBJS) $(CLIENT_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(CLIENT_LIBS) $(shell $(PKG_CONFIG) --libs yajl)

$(BUILD)/include/mpipredict/%: collector/%
	@mkdir -p $(@D)
	cp $< $@

PROGRAMS  += $(BUILD)/bin/mpipredict-collect
LIBRARIES += $(BUILD)/lib/libmpipredict.so $(BUILD)/lib/libmpipredict.a
HEADERS   += $(COLLECTOR_HEADERS)
PKGCONFIG += collector/mpipredict.pc.in
FORMAT_SRC += $(filter-out collector/mpp_abi.h,$(wildcard collector/*.[ch])) \
	$(wildcard tests/collector/progs/*.c)

# The benchmark: PMPI layer cost on ping-pong and allreduce loops.
BENCHES += bench-collector
.PHONY: bench-collector
bench-collector: $(BUILD)/lib/libmpipredict.so $(COLLECTOR_INCS)
	@MPP_BUILD=$(abspath $(BUILD)) tests/collector/bench.sh

# What forwarding the row to the daemon costs the job (issue 39).
BENCHES += bench-forward
.PHONY: bench-forward
bench-forward: collector instrument $(BUILD)/bin/mpipredictd
	@MPP_BUILD=$(abspath $(BUILD)) tests/collector/bench-forward.sh

# What sending a running job's progress costs it (issue 37).
BENCHES += bench-progress
.PHONY: bench-progress
bench-progress: collector instrument $(BUILD)/bin/mpipredictd
	@MPP_BUILD=$(abspath $(BUILD)) tests/collector/bench-progress.sh

# tests/collector builds through mpipredict-cc and trains on the rows
# (t-exit-status, t-lean-build).
TEST_USES_collector := instrument cli

.PHONY: collector
collector: $(BUILD)/lib/libmpipredict.so $(BUILD)/lib/libmpipredict.a \
	$(BUILD)/bin/mpipredict-collect $(COLLECTOR_INCS)

all: $(COLLECTOR_INCS)
