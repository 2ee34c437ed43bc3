#!/usr/bin/env bash
# The plugin applies a prediction as mpipredict.conf's mode says, keeps the
# user's comment and never raises time_min over, or lowers, the user's limit
# (unless lower_user_limit = yes), never gives a limit below the job's own
# time_min, and never makes the comment longer than slurmctld accepts (1024
# bytes). The fixed answer is 300 s in [280,330], model version 7; with
# safety 1.2 that is ceil(330 * 1.2 / 60) = 7 minutes.
set -u
. "$MPP_SRC/tests/contrib/lib.sh"
start_fake ok okd
note='mpipredict: 300s [280,330] jacobi@7'
script '#SBATCH -n 2' 'srun ./jacobi -n 512'

conf "url = $url_okd" mode=annotate safety=1.2
run --time 60
expect "annotate" "comment=$note time_limit=60 time_min=unset" "$out"
run --time 60 --comment "my note"
expect "annotate, user's comment" "comment=my note; $note time_limit=60 time_min=unset" "$out"

conf "url = $url_okd" mode=time_min safety=1.2
run --time 60
expect "time_min" "comment=$note time_limit=60 time_min=7" "$out"
run --time 6
expect "time_min above the user's limit" "comment=$note time_limit=6 time_min=unset" "$out"
run --time 60 --time-min 30
expect "time_min given by the user" "comment=$note time_limit=60 time_min=30" "$out"
run
expect "time_min, no user limit: not set (the partition default is unknown)" \
	"comment=$note time_limit=unset time_min=unset" "$out"
conf "url = $url_okd" mode=time_min safety=1.2 max_minutes=6
run --time 60
expect "time_min over max_minutes: not set, never clamped below the prediction" \
	"comment=$note time_limit=60 time_min=unset" "$out"

conf "url = $url_okd" mode=fill max_minutes=600 safety=1.2
run
expect "fill" "comment=$note time_limit=7 time_min=unset" "$out"
run --time 3
expect "fill keeps a user's limit" "comment=$note time_limit=3 time_min=unset" "$out"
run --time 30
expect "fill keeps a user's longer limit" "comment=$note time_limit=30 time_min=unset" "$out"

conf "url = $url_okd" mode=fill max_minutes=600 safety=1.2 lower_user_limit=yes
run --time 30
expect "fill, lower_user_limit=yes" "comment=$note time_limit=7 time_min=unset" "$out"
run --time 3
expect "fill, lower_user_limit=yes never raises" "comment=$note time_limit=3 time_min=unset" "$out"

# A limit below the job's time_min gets the job refused by slurmctld.
conf "url = $url_okd" mode=fill max_minutes=600 safety=1.2
run --time-min 30
expect "fill with --time-min 30: the limit is raised to it" "comment=$note time_limit=30 time_min=30" "$out"
run --time-min 5
expect "fill with --time-min 5: the prediction" "comment=$note time_limit=7 time_min=5" "$out"
conf "url = $url_okd" mode=fill max_minutes=20 safety=1.2
run --time-min 30
expect "fill with --time-min over max_minutes: no limit set" "comment=$note time_limit=unset time_min=30" "$out"
conf "url = $url_okd" mode=fill max_minutes=600 safety=1.2 lower_user_limit=yes
run --time 60 --time-min 30
expect "lower_user_limit=yes with --time-min 30: lowered only to it" "comment=$note time_limit=30 time_min=30" "$out"

conf "url = $url_okd" mode=fill safety=2 min_minutes=15 max_minutes=60
run
expect "fill, min_minutes clamp (ceil(330*2/60)=11 -> 15)" "comment=$note time_limit=15 time_min=unset" "$out"
conf "url = $url_okd" mode=fill safety=3 max_minutes=12
run
expect "fill, max_minutes clamp (ceil(330*3/60)=17 -> 12)" "comment=$note time_limit=12 time_min=unset" "$out"
conf "url = $url_okd" mode=fill safety=3 max_minutes=20 "partition_max_minutes = short:10, mid:15"
run --partition short
expect "fill, partition_max_minutes short:10" "comment=$note time_limit=10 time_min=unset" "$out"
run --partition mid,short
expect "fill, two partitions: the smaller cap" "comment=$note time_limit=10 time_min=unset" "$out"
run --partition long
expect "fill, partition without an entry: max_minutes" "comment=$note time_limit=17 time_min=unset" "$out"

# The comment: the user's kept whole; the note appended only if it fits in
# 1024 bytes, else the runtime alone, else nothing.
conf "url = $url_okd" mode=fill max_minutes=600 safety=1.2
c987=$(head -c 987 /dev/zero | tr '\0' c)
run --comment "$c987"
expect "comment of 987 bytes: the full note (1024 bytes)" "comment=$c987; $note time_limit=7 time_min=unset" "$out"
run --comment "${c987}cc"
expect "comment of 989 bytes: the runtime alone" "comment=${c987}cc; mpipredict: 300s time_limit=7 time_min=unset" "$out"
c1006=$(head -c 1006 /dev/zero | tr '\0' c)
run --comment "$c1006"
expect "comment of 1006 bytes: the runtime alone (1024 bytes)" "comment=$c1006; mpipredict: 300s time_limit=7 time_min=unset" "$out"
run --comment "${c1006}c"
expect "comment of 1007 bytes: kept as it is, limit still set" "comment=${c1006}c time_limit=7 time_min=unset" "$out"

conf "url = $url_okd/" mode=fill max_minutes=600 safety=1
n0=$(requests okd)
run --jobs 6 --threads 3
expect "six jobs from three threads, all predicted" \
	"6 1 comment=$note time_limit=6 time_min=unset" \
	"$(wc -l <<<"$out") $(sort -u <<<"$out" | wc -l) $(sort -u <<<"$out")"
expect "six jobs, six requests" $((n0 + 6)) "$(requests okd)"
exit $((fails > 0))
