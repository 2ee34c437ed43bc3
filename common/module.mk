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

# The text rule of every route into the store (text.h) and the strict UTF-8
# checks under it (utf8.h): objects linked into the daemon (SERVER_OBJS) and
# into mpipredict-jobcomp.
COMMON_TEXT_OBJS := $(OBJ)/common/utf8.o $(OBJ)/common/text.o
FORMAT_SRC += common/utf8.c common/text.c

# What makes an answer usable by a person (answer.h: the Slurm limit, the
# nearest known names): linked into the daemon (SERVER_OBJS) and into
# mpipredict-predict.
COMMON_ANSWER_OBJ := $(OBJ)/common/answer.o
FORMAT_SRC += common/answer.c
