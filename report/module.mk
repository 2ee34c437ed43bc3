# report/: build rules for this part. Appends to PROGRAMS and FORMAT_SRC
# (see the top Makefile). `make report` builds mpipredict-report, which reads
# run rows (regress/runs.h) and the machine profile from the store.

$(OBJ)/report/%.o: CPPFLAGS += $(shell $(PKG_CONFIG) --cflags jansson)

$(BUILD)/bin/mpipredict-report: $(OBJ)/report/report_main.o $(STORE_LIB) $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(STORE_LIB) $(REGRESS_LIB) $(STORE_LDLIBS) \
	  $(REGRESS_LDLIBS) $(REGRESS_JSON_LDLIBS)

PROGRAMS += $(BUILD)/bin/mpipredict-report
FORMAT_SRC += $(wildcard report/*.c)

.PHONY: report
report: $(BUILD)/bin/mpipredict-report
