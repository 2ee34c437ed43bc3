# common/: headers every part may include (the lowest layer). Nothing to
# build; appends its headers to FORMAT_SRC (see the top Makefile).
FORMAT_SRC += $(wildcard common/*.h)
