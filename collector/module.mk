# collector/: build rules for this part. Appends to PROGRAMS, LIBRARIES, HEADERS,
# SHARE, PKGCONFIG, TEST_BINS, BENCHES and FORMAT_SRC (see the top Makefile).
# `make collector` builds only this part.

.PHONY: collector
collector:
