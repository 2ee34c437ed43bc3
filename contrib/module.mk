# contrib/: build rules for this part. Appends to PROGRAMS, LIBRARIES, HEADERS,
# SHARE, PKGCONFIG, TEST_BINS, BENCHES and FORMAT_SRC (see the top Makefile).
# `make contrib` builds only this part.
#
# The Slurm plugin is built against the installed Slurm's public headers and
# is NOT linked with libslurm: slurmctld provides slurm_xstrdup & co. -z now
# makes a missing symbol fail when slurmctld loads the plugin, not at the
# first job. The plugin's file name must stay job_submit_<name>.so, so it
# lives in $(BUILD)/lib/slurm/ and $(PREFIX)/lib/slurm/ (a PluginDir entry).

SLURM_PLUGIN := $(BUILD)/lib/slurm/job_submit_mpipredict.so
CONTRIB_LIBS := $(shell $(PKG_CONFIG) --libs libcurl jansson)

# One idea per file (see job_submit_mpipredict.c); hidden visibility, so
# that only the symbols slurmctld looks up are exported and no function of
# the plugin can bind to one of slurmctld's of the same name.
PLUGIN_SRC := $(addprefix contrib/slurm/,job_submit_mpipredict.c config.c \
	pin.c request.c client.c breaker.c policy.c)
PLUGIN_HDR := $(addprefix contrib/slurm/,slurm_api.h config.h pin.h \
	request.h client.h breaker.h policy.h)
$(OBJ)/contrib/slurm/%.o: CPPFLAGS += $(shell $(PKG_CONFIG) --cflags libcurl jansson)
$(OBJ)/contrib/slurm/%.o: CFLAGS += -fvisibility=hidden

$(SLURM_PLUGIN): $(PLUGIN_SRC:%.c=$(OBJ)/%.o)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-z,now $(LDFLAGS) $^ -o $@ $(CONTRIB_LIBS) -lm -lpthread

# Not in LIBRARIES (installed flat to lib/): the plugin goes to
# $(PREFIX)/lib/slurm/, the folder the Slurm README's PluginDir names.
all: $(SLURM_PLUGIN)
.PHONY: install-slurm-plugin
install: install-slurm-plugin
install-slurm-plugin: $(SLURM_PLUGIN)
	install -d $(DESTDIR)$(PREFIX)/lib/slurm
	install -m 755 $(SLURM_PLUGIN) $(DESTDIR)$(PREFIX)/lib/slurm/

SHARE += contrib/slurm/mpipredict.conf contrib/mpipredictd.service \
	 contrib/mpipredictd.conf \
	 contrib/examples
FORMAT_SRC += $(PLUGIN_SRC) $(PLUGIN_HDR)

.PHONY: contrib
contrib: $(SLURM_PLUGIN)

# The failure-injection server for the plugin's tests (tests/slurm/). It
# finds the app with the daemon's own batch-script reader (server/script.o,
# which needs nothing else), as mpipredictd does.
FAKE_PREDICTD := $(BUILD)/tests/slurm/fake-predictd
$(OBJ)/tests/slurm/%.o: CPPFLAGS += $(shell $(PKG_CONFIG) --cflags jansson libmicrohttpd)
$(FAKE_PREDICTD): $(OBJ)/tests/slurm/fake-predictd.o $(OBJ)/server/script.o \
  $(OBJ)/regress/params.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(shell $(PKG_CONFIG) --libs jansson libmicrohttpd) -lm

# The harness that loads the plugin like slurmctld does, for tests/contrib/
# (plain make check). It links libslurm for Slurm's allocator and logging.
PLUGIN_HARNESS := $(BUILD)/tests/contrib/plugin-harness
$(PLUGIN_HARNESS): $(OBJ)/tests/contrib/plugin-harness.o
	@mkdir -p $(@D)
	$(CC) -rdynamic $(LDFLAGS) $^ -o $@ -lslurm -ldl -lpthread

TEST_BINS += $(FAKE_PREDICTD) $(PLUGIN_HARNESS)
FORMAT_SRC += tests/slurm/fake-predictd.c tests/slurm/loopapp.c tests/contrib/plugin-harness.c
contrib: $(FAKE_PREDICTD) $(PLUGIN_HARNESS)

# The plugin on a real slurmctld (root; starts munged, slurmctld, slurmd).
.PHONY: check-slurm
check-slurm: deps deps-slurm contrib $(PROGRAMS)
	@MPP_BUILD=$(abspath $(BUILD)) tests/slurm/check-slurm.sh

# sbatch latency with the plugin on vs off, interleaved, on one cluster.
.PHONY: bench-slurm
bench-slurm: deps deps-slurm contrib $(PROGRAMS)
	@MPP_BUILD=$(abspath $(BUILD)) tests/slurm/bench-slurm.sh
BENCHES += bench-slurm
