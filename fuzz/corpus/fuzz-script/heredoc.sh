cat <<EOF > deck
srun -n 2 ./not-this
EOF
mpiexec -n 4 env X=1 ./heat 3 # comment
srun -n 8 ./second
