# choose-trace.awk: a synthetic SWF trace on which one history predictor
# clearly wins, for the --pred auto and --history auto tests. Each job is
# either long and wide (32 processors, about 20,000 s) or short and narrow
# (60 s); every user mixes both, always with the same request, so
# Tsafrir's mean of the user's last two jobs mixes the kinds, while ours,
# keyed on the size, predicts each exactly. Deterministic (srand(seed)).
#   awk -v n=JOBS -v users=U -v gap=S [-v seed=N] -f choose-trace.awk
BEGIN {
	if (!n) n = 1000
	if (!users) users = 6
	if (!gap) gap = 5000
	srand(seed ? seed : 11)
	t = 1700000000
	for (i = 1; i <= n; i++) {
		u = int(rand() * users) + 1
		if (rand() < 0.3) { run = 20000 + 100 * (u % 6); p = 32 }
		else { run = 60 + u % 6; p = u % 6 + 1 }
		t += int(rand() * gap)
		printf "%d %d 0 %d %d -1 -1 %d 39960 -1 1 %d 1 1 1 -1 -1 -1\n", i, t, run, p, p, u
	}
}
