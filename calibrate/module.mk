# calibrate/: build rules for this part. Appends to PROGRAMS and FORMAT_SRC
# (see the top Makefile). `make calibrate` builds mpipredict-calibrate, an
# MPI program (compiled with $(MPICC)) that links the collector's topology
# code (collector/topo.c, hwloc), the store and regress/'s LogGPS model.

CALIBRATE_OBJS := $(addprefix $(OBJ)/calibrate/,calibrate_main.o experiments.o fit.o memory.o)

$(OBJ)/calibrate/%.o: CC := $(MPICC)
$(OBJ)/calibrate/%.o: CPPFLAGS += $(shell $(PKG_CONFIG) --cflags gsl)

$(BUILD)/bin/mpipredict-calibrate: $(CALIBRATE_OBJS) $(OBJ)/collector/topo.o \
		$(STORE_LIB) $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) -o $@ $(CALIBRATE_OBJS) $(OBJ)/collector/topo.o \
	  $(STORE_LIB) $(REGRESS_LIB) $(STORE_LDLIBS) $(REGRESS_LDLIBS) \
	  $(REGRESS_JSON_LDLIBS) -lhwloc

PROGRAMS += $(BUILD)/bin/mpipredict-calibrate
FORMAT_SRC += $(wildcard calibrate/*.c calibrate/*.h)

.PHONY: calibrate
calibrate: $(BUILD)/bin/mpipredict-calibrate

# The fit and model unit test (tests/calibrate/t_fit.c).
$(BUILD)/tests/calibrate/t-fit: $(OBJ)/calibrate/tests/t_fit.o $(OBJ)/calibrate/fit.o $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(REGRESS_LDLIBS) $(REGRESS_JSON_LDLIBS)
$(OBJ)/calibrate/tests/t_fit.o: tests/calibrate/t_fit.c
	@mkdir -p $(@D)
	$(MPICC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

TEST_BINS += $(BUILD)/tests/calibrate/t-fit
FORMAT_SRC += $(wildcard tests/calibrate/*.c)

# The model against a communication-bound program (tests/calibrate/bench-loggps.sh).
BENCHES += bench-loggps
.PHONY: bench-loggps
bench-loggps: $(BUILD)/bin/mpipredict-calibrate $(BUILD)/bin/mpipredict-report \
		$(BUILD)/lib/libmpipredict.so
	@MPP_BUILD=$(abspath $(BUILD)) MPP_SRC=$(CURDIR) tests/calibrate/bench-loggps.sh
