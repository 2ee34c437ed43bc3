# report/: build rules for this part (filled in with mpipredict-report).
