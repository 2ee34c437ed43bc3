#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node=4
#SBATCH -n 8
#MPIPREDICT app=jacobi
export OMP_NUM_THREADS=2
module load mpi
srun --mpi=pmix -c 2 ./jacobi -n 10 "a b" 'c' 2>err > out && echo ok
