# tests/: the test runner is tests/run-tests.sh (see the top Makefile's
# `check`); compiled tests and the example applications are added by the
# parts that own them. `make demo` lives here because it crosses every part.

.PHONY: demo
demo: deps all
	@tests/demo.sh

FORMAT_SRC += $(wildcard tests/apps/*.c)

# The foundation's tests (runner, CLI conventions, install) need every part.
.PHONY: foundation
foundation: all
