# simulate/: build rules for this part (see the top Makefile). `make simulate`
# builds mpipredict-simulate and mpp-smpitrace.o (collector/trace.c and
# simulate/smpi_wrap.c compiled with SimGrid's smpicc, for programs built
# with smpicc).

SMPICC ?= smpicc
SIMULATE_SRC := simulate/main.c simulate/platform.c simulate/ti.c \
	simulate/replay.c simulate/analysis.c simulate/paje.c
SIMULATE_OBJS := $(SIMULATE_SRC:%.c=$(OBJ)/%.o)
SIMULATE_LDLIBS := $(shell $(PKG_CONFIG) --libs simgrid jansson gsl) -lm

$(OBJ)/simulate/%.o: CPPFLAGS += $(shell $(PKG_CONFIG) --cflags simgrid jansson gsl)
# SimGrid's loaders, run directly instead of through the smpirun script
# (replay.c; it falls back to smpirun when they are not there)
SIMGRID_LIBDIR := $(shell $(PKG_CONFIG) --variable=libdir simgrid)
$(OBJ)/simulate/replay.o: CPPFLAGS += \
	-DMPP_SMPIMAIN='"$(SIMGRID_LIBDIR)/simgrid/smpimain"' \
	-DMPP_SMPIREPLAYMAIN='"$(SIMGRID_LIBDIR)/simgrid/smpireplaymain"'

# the server's string map (ti.c: call sites by key)
$(BUILD)/bin/mpipredict-simulate: $(SIMULATE_OBJS) $(OBJ)/server/strmap.o $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(SIMULATE_OBJS) $(OBJ)/server/strmap.o $(REGRESS_LIB) $(SIMULATE_LDLIBS)

# The SMPI side: smpicc, no sanitizers (SimGrid runs ranks as threads of
# one process and swaps their stacks); SMPI_NO_OVERRIDE_MALLOC: the trace
# writer's own buffers stay private when predict --share-malloc folds
# the program's. These flags live here: a change rebuilds.
$(OBJ)/simulate-smpi/%.o: collector/%.c collector/trace.h collector/mpi_table.def simulate/module.mk
	@mkdir -p $(@D)
	$(SMPICC) -D_GNU_SOURCE -DSMPI_NO_OVERRIDE_MALLOC -DMPP_TRACE_SMPI -I. -std=c11 -O2 -g -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -c $< -o $@
$(OBJ)/simulate-smpi/%.o: simulate/%.c collector/trace.h collector/mpi_table.def simulate/module.mk
	@mkdir -p $(@D)
	$(SMPICC) -D_GNU_SOURCE -DSMPI_NO_OVERRIDE_MALLOC -I. -std=c11 -O2 -g -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -c $< -o $@

# One relocatable object, not an archive: SMPI's mpi.h declares the MPI
# functions weak, and weak references never pull members out of an archive.
$(BUILD)/lib/mpp-smpitrace.o: $(OBJ)/simulate-smpi/smpi_wrap.o $(OBJ)/simulate-smpi/trace.o
	@mkdir -p $(@D)
	$(LD) -r -o $@ $^

PROGRAMS   += $(BUILD)/bin/mpipredict-simulate
LIBRARIES  += $(BUILD)/lib/mpp-smpitrace.o
FORMAT_SRC += $(wildcard simulate/*.[ch]) $(wildcard tests/simulate/progs/*.c)

BENCHES += bench-simulate
.PHONY: bench-simulate simulate
# Two designs: traced at 1 rank only, then at 1 and 2 ranks (bench.sh).
# SRC=DIR: instead, the development set's real codes from their checkouts
# in DIR, built by tests/bench/devset/'s recipes (bench-devset.sh).
bench-simulate: all
ifeq ($(SRC),)
	@MPP_BUILD=$(abspath $(BUILD)) TRAIN_RANKS=1 tests/simulate/bench.sh
	@MPP_BUILD=$(abspath $(BUILD)) TRAIN_RANKS="1 2" tests/simulate/bench.sh
else
	@MPP_BUILD=$(abspath $(BUILD)) SRC=$(SRC) tests/simulate/bench-devset.sh
endif

# The second design RUNS times, with how far the truth moves between runs
# (the floor under any method's error on this machine); not in `make bench`:
# about 1.5 min per run.
# Strong scaling 2 to 1,024 ranks as predicted (issue 38, requirement 4).
BENCHES += bench-simulate-scaling
.PHONY: bench-simulate-scaling
bench-simulate-scaling: all
	@MPP_BUILD=$(abspath $(BUILD)) tests/simulate/bench-scaling.sh

.PHONY: bench-simulate-repeat
bench-simulate-repeat: all
	@MPP_BUILD=$(abspath $(BUILD)) RUNS=$(or $(RUNS),8) tests/simulate/bench-repeat.sh

# The tests (make check PART=simulate) also trace with libmpipredict.
simulate: $(BUILD)/bin/mpipredict-simulate $(BUILD)/lib/mpp-smpitrace.o \
	$(BUILD)/lib/libmpipredict.so
