#!/usr/bin/env bash
# The staff page's app links are percent-encoded (RFC 3986: all but the
# unreserved bytes) and HTML-escaped apart: an app named "c++ &x#1" links
# to /ui/accuracy?app=c%2B%2B%20%26x%231, and that link, followed as the
# page gives it, answers 200 with that app's view (issue 36: it linked to
# a 404, '+' read as a space and '#' cutting the URL).
. "$MPP_SRC/tests/server/lib.sh"

app='c++ &x#1'
"$HELPERS/mkmodel" "$DB" "$app" 1 'loop:h.c:3:1.mean=2@0@nprocs^1' >/dev/null &&
	"$HELPERS/mkmodel" "$DB" heat 1 'loop:h.c:3:1.mean=2@0@nprocs^1' >/dev/null ||
	fail "expected mkmodel to work"
start_daemon
st=$(req GET /ui/accuracy)
expect_status 200 "$st" "GET /ui/accuracy"
links=$(grep -o '<a href="/ui/accuracy?app=[^"]*">[^<]*</a>' body)
want='<a href="/ui/accuracy?app=c%2B%2B%20%26x%231">c++ &amp;x#1</a>'
grep -qxF "$want" <<<"$links" ||
	fail "expected the link $want, got: $links"
grep -qxF '<a href="/ui/accuracy?app=heat">heat</a>' <<<"$links" ||
	fail "expected a plain name's link unchanged, got: $links"

# Follow the link as the page gives it (its href, HTML-unescaped: none
# needed, the percent-encoding leaves no HTML special byte).
href=$(sed -n 's/.*href="\([^"]*c%2B[^"]*\)".*/\1/p' <<<"$links")
st=$(req GET "$href")
expect_status 200 "$st" "GET $href (the page's link)"
grep -qF '<h2>c++ &amp;x#1</h2>' body ||
	fail "GET $href: expected the view of app '$app', got headings: $(grep -o '<h2>[^<]*</h2>' body | tr '\n' ' ')"
grep -qF '<h2>heat</h2>' body &&
	fail "GET $href: expected only app '$app', the view shows heat too"
stop_daemon
echo "app links percent-encoded and answered"
