# common/: headers every part may include (the lowest layer), and the
# daemon client object (below); appends to FORMAT_SRC (see the top Makefile).
FORMAT_SRC += $(wildcard common/*.h)

# client.o: the client configuration and its POST to the daemon
# (client.h), linked with $(CLIENT_LIBS) into the commands that call the
# daemon; never into libmpipredict, which users' programs load.
CLIENT_OBJ  := $(OBJ)/common/client.o
CLIENT_LIBS := $(shell $(PKG_CONFIG) --libs libcurl inih)
$(CLIENT_OBJ): CPPFLAGS += $(shell $(PKG_CONFIG) --cflags libcurl inih)
FORMAT_SRC += common/client.c
