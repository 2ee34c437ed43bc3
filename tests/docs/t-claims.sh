#!/usr/bin/env bash
# t-claims.sh: the counts, versions, paths and options the Markdown files
# state are the product's, so a change to the code that leaves a doc
# behind fails here, naming the doc's file:line and what to write instead.
# Checked, in every *.md of the tree (build folders left out):
# - the store's schema version: a new store's PRAGMA user_version, the
#   "version N" line of schema/schema.sql and SCHEMA_VERSION in
#   schema/store.c agree; a doc's "schema version N" (also "store version
#   N", "schema vN", "(schema N)", "schema": N) is that version, or at
#   most it when it says "since" (when a table or column came);
# - the runtime's ABI version: MPP_ABI_VERSION; the docs name no higher
#   one, and the highest they name is it;
# - the release: "mpipredictd X.Y.Z", "mpipredict-train X.Y.Z",
#   "version": "X.Y.Z" are what --version prints;
# - every --option shown after a command (code blocks and `code` spans) is
#   in that command's --help, and every mpipredict-NAME a doc shows is a
#   built program (or the runs folder, the users' group, the wrappers'
#   --mpipredict-help/--mpipredict-version);
# - relative links ](path) and ](path#anchor) point at a file that exists
#   and at a heading of it (GitHub's anchors);
# - the runs folder: a doc's FOLDER/<app>.csv (APP.csv, *.csv) is the
#   collector's default folder unless the line chooses another
#   (MPIPREDICT_RUNS=, --runs), and a line giving MPIPREDICT_RUNS's default
#   names it;
# - a table row `key` | N | of the daemon's settings: N is the default
#   `mpipredictd --help` gives for --key;
# - where make install puts the Slurm plugin is in every PluginDir= line;
# - each test t-NAME.sh (or .c) a doc names is under tests/, and each
#   `folder/path` a doc names is in the tree (or, for a program, the build);
# - the csmith program counts instrument/README.md gives are the tests';
# - the versions of Slurm, SimGrid, libmicrohttpd and LLVM a doc says it
#   was checked on are the installed ones.
set -u
fail=0
bad() {
	echo "$*"
	fail=1
}
for p in mpipredictd mpipredict-train mpipredict-collect; do
	[ -x "$MPP_BUILD/bin/$p" ] || {
		echo "not built yet: $p"
		exit 77
	}
done

# The schema version, three ways; they must agree before the docs are read.
mpipredictd --db new.db --listen 127.0.0.1:0 --port-file port 2>daemon.log &
pid=$!
for _ in $(seq 200); do
	[ -s port ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
schema=$(sqlite3 new.db 'PRAGMA user_version' 2>/dev/null)
[ -n "$schema" ] && [ "$schema" -gt 0 ] || {
	echo "mpipredictd did not create a store: $(tail -n 3 daemon.log)"
	exit 1
}
sql=$(sed -n '1s/.*, version \([0-9]*\) (PRAGMA user_version).*/\1/p' "$MPP_SRC/schema/schema.sql")
[ "$sql" = "$schema" ] ||
	bad "schema/schema.sql:1: says version '$sql', a new store is $schema: fix the first line"
sql=$(sed -n 's/^PRAGMA user_version = \([0-9]*\);/\1/p' "$MPP_SRC/schema/schema.sql")
[ "$sql" = "$schema" ] ||
	bad "schema/schema.sql: PRAGMA user_version = $sql, a new store is $schema"
code=$(sed -n 's/.*enum { SCHEMA_VERSION = \([0-9]*\) };.*/\1/p' "$MPP_SRC/schema/store.c")
[ "$code" = "$schema" ] ||
	bad "schema/store.c: SCHEMA_VERSION $code, a new store is $schema"

abi=$(sed -n 's/^#define MPP_ABI_VERSION \([0-9]*\).*/\1/p' "$MPP_SRC/collector/mpp_abi.h")
release=$(mpipredict-train --version | awk '{ print $2 }')
runs_default=$(sed -n 's/^#define DEFAULT_TARGET "\(.*\)"$/\1/p' "$MPP_SRC/collector/runfile.c")
runs_default=${runs_default%/}
[ -n "$abi" ] && [ -n "$release" ] && [ -n "$runs_default" ] || {
	echo "cannot read the ABI version ($abi), the release ($release) or the runs default ($runs_default)"
	exit 1
}
mpipredict-collect --help | grep -q -- "\./$runs_default/" ||
	bad "mpipredict-collect --help does not name ./$runs_default/ as --runs' default"

# Where make install puts the plugin, with the default PREFIX, as make
# would do it (a dry run: nothing is built or copied).
plugin_dir=$(make -s -n -C "$MPP_SRC" BUILD="$MPP_BUILD" DESTDIR= PREFIX=/usr/local \
	install-slurm-plugin 2>/dev/null | sed -n 's|^install -m 755 .*job_submit_mpipredict.so \(.*\)|\1|p')
plugin_dir=${plugin_dir%/}
[ -n "$plugin_dir" ] || bad "make -n install-slurm-plugin: no install line for the plugin"

# Installed versions, when the package is there (else that claim is not
# checked here).
slurm=$(dpkg-query -W -f '${Version}' libslurm-dev 2>/dev/null | sed 's/-.*//')
simgrid=$(pkg-config --modversion simgrid 2>/dev/null)
mhd=$(pkg-config --modversion libmicrohttpd 2>/dev/null)
llvm=$(ls -d /usr/lib/llvm-[0-9]* 2>/dev/null | sed 's|.*llvm-||' | sort -n | tail -n 1)

help_dir=$PWD/help
mkdir -p "$help_dir"
for p in "$MPP_BUILD"/bin/*; do
	n=${p##*/}
	case $n in
	mpipredict-cc | mpipredict-mpicc | mpipredict-mpicxx) "$p" --mpipredict-help >"$help_dir/$n" 2>&1 ;;
	*) "$p" --help >"$help_dir/$n" 2>&1 ;;
	esac
done
for t in tests/instrument/t-csmith-differential.sh tests/instrument/t-csmith-cxx-differential.sh; do
	short=$(sed -n 's/^n=\([0-9]*\)$/\1/p' "$MPP_SRC/$t")
	long=$(sed -n 's/.*MPP_LONG:-0}" = 1 \] && n=\([0-9]*\)$/\1/p' "$MPP_SRC/$t")
	echo "${t##*/} $short $long"
done >csmith.txt

python3 - "$MPP_SRC" "$help_dir" "$schema" "$abi" "$release" "$runs_default" \
	"$plugin_dir" "slurm=$slurm" "simgrid=$simgrid" "libmicrohttpd=$mhd" "llvm=$llvm" \
	<<'PY' || fail=1
import os, re, sys

src, help_dir, schema, abi, release, runs_default, plugin_dir = sys.argv[1:8]
schema, abi = int(schema), int(abi)
installed = dict(a.split('=', 1) for a in sys.argv[8:])
helps = {n: open(os.path.join(help_dir, n), errors='replace').read() for n in os.listdir(help_dir)}
csmith = {l.split()[0]: l.split()[1:] for l in open('csmith.txt') if len(l.split()) == 3}
failed = False


def bad(where, msg):
    global failed
    failed = True
    print(f'{where}: {msg}')


def md_files():
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if not d.startswith(('build', '.')))
        for f in sorted(files):
            if f.endswith('.md'):
                yield os.path.join(root, f)


def slug(heading):
    # GitHub: lowercase, punctuation dropped except '-' and '_', each space
    # a '-'; a repeated heading gets -1, -2, ...
    h = re.sub(r'[^\w\- ]', '', heading.strip().lower())
    return h.replace(' ', '-')


anchors = {}


def anchors_of(path):
    if path not in anchors:
        seen, out, fence = {}, set(), False
        for line in open(path, encoding='utf-8'):
            if line.lstrip().startswith('```'):
                fence = not fence
                continue
            m = None if fence else re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line)
            if m:
                s = slug(m.group(1))
                k = seen.get(s, 0)
                seen[s] = k + 1
                out.add(s if k == 0 else f'{s}-{k}')
        anchors[path] = out
    return anchors[path]


cmds = sorted(helps, key=len, reverse=True)
cmd_re = re.compile(r'(?<![\w/.-])(?:[\w./$-]*/)?(' + '|'.join(map(re.escape, cmds)) + r')(?![\w.-])')
not_commands = {runs_default, 'mpipredict-users', 'mpipredict-help', 'mpipredict-version'}
wrappers = {'mpipredict-cc', 'mpipredict-mpicc', 'mpipredict-mpicxx'}
schema_re = re.compile(r'(since\s+)?\b(?:schema|store)(?:\s+version\s+|\s+v|\s+)(\d+)\b|"schema":\s*(\d+)', re.I)
abi_re = re.compile(r'\bABI(?:\s+version)?\s+(\d+)(?:,?\s+and\s+(\d+))?')
release_re = re.compile(r'(?:\bmpipredict[\w-]*\s+|"version":\s*")(\d+\.\d+\.\d+)\b')
checked_on = [('slurm', r'\bSlurm (\d+\.\d+(?:\.\d+)?)'), ('simgrid', r'\bSimGrid (\d+\.\d+(?:\.\d+)?)'),
              ('libmicrohttpd', r'\blibmicrohttpd (\d+\.\d+\.\d+)'),
              ('llvm', r'\b(?:LLVM |llvm-|clang-)(\d+)')]
build = os.environ['MPP_BUILD']
test_names = {f for _, _, fs in os.walk(os.path.join(src, 'tests')) for f in fs}
top_dirs = sorted(d for d in os.listdir(src)
                  if os.path.isdir(os.path.join(src, d)) and not d.startswith(('build', '.')))
abi_max = 0
for path in md_files():
    rel = os.path.relpath(path, src)
    text = open(path, encoding='utf-8').read()
    lines = text.split('\n')
    fence = False
    for ln, line in enumerate(lines, 1):
        where = f'{rel}:{ln}'
        if line.lstrip().startswith('```'):
            fence = not fence
            continue
        code = fence or line.startswith('    ')
        # A claim may break across lines: read each line between its
        # neighbours, and take the matches that start on it.
        prev = lines[ln - 2] + ' ' if ln > 1 else ''
        pair = line + ' ' + (lines[ln] if ln < len(lines) else '')
        for m in schema_re.finditer(prev + pair):
            if not len(prev) <= m.start(2 if m.group(2) else 3) < len(prev) + len(line):
                continue
            n = int(m.group(2) or m.group(3))
            if m.group(1) and n > schema:
                bad(where, f'"since schema version {n}": the store is version {schema}')
            elif not m.group(1) and n != schema:
                bad(where, f'schema version {n}: the store is version {schema} (a new store\'s '
                           f'PRAGMA user_version); write {schema}, or "since schema version {n}" '
                           'for when something came')
        for m in abi_re.finditer(line):
            for g in m.groups():
                if g:
                    abi_max = max(abi_max, int(g))
                    if int(g) > abi > 0:
                        bad(where, f'ABI version {g}: collector/mpp_abi.h is {abi}')
        for m in release_re.finditer(line):
            if m.group(1) != release:
                bad(where, f'{m.group(0)}: the release is {release} (--version); write {release}')
        if 'before ' not in line and ' from it' not in line:
            for name, rx in checked_on:
                have = installed.get(name, '')
                for m in re.finditer(rx, line):
                    v = m.group(1)
                    if have and not (have == v or have.startswith(v + '.')):
                        bad(where, f'{m.group(0)}: the installed {name} is {have}; say which version '
                                   'this was checked on')
        # The runs folder.
        if 'MPIPREDICT_RUNS=' not in line and '--runs' not in line:
            for m in re.finditer(r'([\w.<>-]+)/(?:<app>|APP|\*)\.csv', line):
                if m.group(1) not in (runs_default, 'ranks', '<dir>', 'outbox'):
                    bad(where, f'{m.group(0)}: runs go to ./{runs_default}/ by default '
                               f'(collector/runfile.c); write {runs_default}/...')
        if 'MPIPREDICT_RUNS' in line and re.search(r'\bdefault\b', pair) and runs_default not in pair:
            bad(where, f'MPIPREDICT_RUNS\'s default is ./{runs_default}/; name it')
        if line.startswith('PluginDir=') and plugin_dir and plugin_dir not in line.split('=', 1)[1].split(':'):
            bad(where, f'PluginDir does not name {plugin_dir}, where make install puts the plugin')
        m = re.search(r'csmith differential \(`(t-csmith[\w-]*\.sh)`,\s*(\d+) programs, (\d+) in', pair)
        if m and m.start() <= len(line) and m.group(1) in csmith and [m.group(2), m.group(3)] != csmith[m.group(1)]:
            bad(where, f'{m.group(1)} runs {csmith[m.group(1)][0]} programs, '
                       f'{csmith[m.group(1)][1]} in make check-long; write those')
        # Tests and files named by path exist (built programs in the build).
        for t in re.findall(r'(?<![\w-])(t-[a-z0-9_-]+\.(?:sh|c))\b', line):
            if t not in test_names:
                bad(where, f'{t}: no such test under tests/; name the test that checks this')
        for f in re.findall(r'`((?:' + '|'.join(top_dirs) + r')/[\w./-]+)`', line):
            if not any(os.path.exists(os.path.join(d, f)) for d in (src, build)):
                bad(where, f'{f}: no such file in the tree or the build; fix the path')
        # A table of the daemon's settings: `key` | default | what.
        m = re.match(r'\| `([a-z][a-z-]+)` \| ([0-9][0-9.]*) \|', line)
        if m:
            h = re.search(r'\n\s*--' + re.escape(m.group(1)) + r'\b(.*?)(?=\n\s*--|\Z)',
                          helps.get('mpipredictd', ''), re.S)
            if h and not re.search(r'default:? ' + re.escape(m.group(2)) + r'\b', h.group(1)):
                bad(where, f'{m.group(1)}: default {m.group(2)}, but `mpipredictd --help` says '
                           f'"{" ".join(h.group(1).split())}"')
        # Options and commands, in code.
        snippets = [line] if code else re.findall(r'`([^`]+)`', line)
        for s in snippets:
            if s.lstrip().startswith('#'):
                continue
            for w in re.findall(r'(?<![\w-])mpipredict-[a-z0-9-]*[a-z0-9]', s):
                if w not in helps and w not in not_commands:
                    bad(where, f'{w}: no such program in the build; name a command of {", ".join(sorted(helps))}')
            for m in cmd_re.finditer(s):
                c = m.group(1)
                rest = re.split(r'\s(?:\||;|&&|\|\||--)(?:\s|$)|[;|]|\s#', s[m.end():])[0]
                for o in re.findall(r'(?<![\w-])(--[a-z][a-z0-9-]*)', rest):
                    if c in wrappers and not o.startswith('--mpipredict-'):
                        continue  # the compiler's
                    if not re.search(r'(?<![\w-])' + re.escape(o) + r'(?![\w-])', helps[c]):
                        bad(where, f'{c} {o}: not in `{c} --help`; fix the option\'s name or drop it')
        # Relative links.
        if fence:
            continue
        for m in re.finditer(r'\]\(([^)\s]+)\)', re.sub(r'`[^`]*`', '', line)):
            t = m.group(1)
            if re.match(r'[a-z]+:', t):
                continue
            p, _, anchor = t.partition('#')
            target = os.path.normpath(os.path.join(os.path.dirname(path), p)) if p else path
            if not os.path.exists(target):
                bad(where, f'link ({t}): {p} does not exist; fix the path or drop the link')
            elif anchor and target.endswith('.md') and anchor not in anchors_of(target):
                bad(where, f'link ({t}): no heading #{anchor} in {os.path.relpath(target, src)}; '
                           'link to an existing heading')
if abi_max != abi:
    bad('docs', f'the highest ABI version the docs name is {abi_max}, collector/mpp_abi.h is {abi}: '
                'say what the new version changes (collector/README.md)')
sys.exit(1 if failed else 0)
PY
exit "$fail"
