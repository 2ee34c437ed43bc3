# schema/: build rules for this part. Appends to PROGRAMS, LIBRARIES, HEADERS,
# SHARE, PKGCONFIG, TEST_BINS, BENCHES and FORMAT_SRC (see the top Makefile).
# `make schema` builds only this part.
#
# For other parts: $(STORE_LIB) is the static archive of the SQLite store
# (schema/store.h) with schema.sql embedded; link it with $(STORE_LDLIBS)
# (and $(REGRESS_LIB), whose model type it fills).

# STORE_LIB is named in the top Makefile.
# jansson: a model's machine profile (models.comm_profile) is parsed on load.
STORE_LDLIBS := $(shell $(PKG_CONFIG) --libs sqlite3 jansson)

$(OBJ)/schema/%.o: CPPFLAGS += $(shell $(PKG_CONFIG) --cflags sqlite3 jansson)

# schema.sql as a NUL-terminated byte array, mpp_schema_sql.
$(OBJ)/schema/schema_sql.c: schema/schema.sql
	@mkdir -p $(@D)
	{ cat $<; printf '\0'; } | xxd -i -n mpp_schema_sql > $@.tmp
	mv $@.tmp $@
$(OBJ)/schema/schema_sql.o: $(OBJ)/schema/schema_sql.c
	$(CC) $(CFLAGS) -c $< -o $@

$(STORE_LIB): $(OBJ)/schema/store.o $(OBJ)/schema/schema_sql.o
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/tests/schema/t-store: $(OBJ)/schema/tests/t_store.o $(STORE_LIB) $(REGRESS_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(STORE_LIB) $(REGRESS_LIB) $(STORE_LDLIBS) \
	  $(REGRESS_LDLIBS)
$(OBJ)/schema/tests/t_store.o: tests/schema/t_store.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

SCHEMA_TESTS := $(BUILD)/tests/schema/t-store

# store.h is internal, as libstore.a is not installed.
SHARE += schema/schema.sql
TEST_BINS += $(SCHEMA_TESTS)
FORMAT_SRC += $(wildcard schema/*.c schema/*.h tests/schema/*.c)

.PHONY: schema
schema: $(STORE_LIB) $(SCHEMA_TESTS)
