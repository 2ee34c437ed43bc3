/*
 * ui.h: mpipredictd's read-only page for the centre's staff (GET / and
 * /ui/...): models, accuracy, over-requests per user, recent predictions.
 *
 * Pages are HTML with inline SVG charts (ui_svg.h) and no script, rendered
 * per request from the in-memory snapshot of ui_data.h: a request never
 * touches SQLite. User names are personal data: the per-user columns and
 * page are shown only when users_shown is set (--ui-users; by default only
 * when the daemon listens on loopback) or the request carries the bearer
 * token.
 *
 * Not for: anything that changes state; the REST API (api.h).
 */
#ifndef MPP_SERVER_UI_H
#define MPP_SERVER_UI_H

#include "server/api.h"
#include "server/ui_data.h"

typedef struct mpp_ui {
	mpp_ui_store *store;
	int users_shown; /* without a token */
} mpp_ui;

/* Non-zero when path is one of the page's: "/", "/ui/accuracy",
 * "/ui/users", "/ui/predictions" (GET and HEAD only). */
int mpp_ui_path(const char *path);

/* The page for path. app: the ?app= argument (NULL: every app); token_ok:
 * the request carried the bearer token. Fills r (text/html, 200, or 404
 * for an unknown app). */
void mpp_ui_answer(mpp_ui *ui, const char *path, const char *app, int token_ok,
		   mpp_reply *r);

#endif
