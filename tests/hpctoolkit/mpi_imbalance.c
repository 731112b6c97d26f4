/* A small MPI program for HPCToolkit to profile (tests/hpctoolkit/test_hpcrun.py). Each step,
 * every rank computes in compute_partial_sum, even ranks MPI_Send a block to the next rank,
 * which MPI_Recv's it, and all ranks MPI_Allreduce the sums. The work is imbalanced on purpose,
 * so that ranks wait (spin, spending CPU time) in each of the three MPI calls: rank r computes
 * (r + 1) units before the send and (size - r) units after it.
 *
 * The program measures its own thread CPU time in compute_partial_sum and in the MPI calls and
 * prints both sums over ranks, to compare with what the profile attributes to them.
 * Usage: mpi_imbalance [steps] [iterations per unit of work] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BLOCK_DOUBLES (1 << 19) /* 4 MiB: above the eager limit, so MPI_Send waits for the receiver */

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* noinline: the profile must show it as a function of this program, not folded into main. */
__attribute__((noinline)) static double compute_partial_sum(long n, int seed) {
    double s = 0.0;
    for (long i = 1; i <= n; i++)
        s += 1.0 / ((double)i * i + seed);
    return s;
}

int main(int argc, char **argv) {
    int rank, size, steps = argc > 1 ? atoi(argv[1]) : 40;
    long unit = argc > 2 ? atol(argv[2]) : 2000000;
    double compute_s = 0.0, mpi_s = 0.0, checksum = 0.0;
    static double block[BLOCK_DOUBLES];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int step = 0; step < steps; step++) {
        double t0 = cpu_seconds();
        double local = compute_partial_sum((rank + 1) * unit, step);
        double t1 = cpu_seconds();
        if (rank % 2 == 0 && rank + 1 < size) {
            block[0] = local;
            MPI_Send(block, BLOCK_DOUBLES, MPI_DOUBLE, rank + 1, step, MPI_COMM_WORLD);
        } else if (rank % 2 == 1) {
            MPI_Recv(block, BLOCK_DOUBLES, MPI_DOUBLE, rank - 1, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            local += block[0];
        }
        double t2 = cpu_seconds();
        local += compute_partial_sum((size - rank) * unit, step);
        double t3 = cpu_seconds(), total;
        MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double t4 = cpu_seconds();
        compute_s += (t1 - t0) + (t3 - t2);
        mpi_s += (t2 - t1) + (t4 - t3);
        checksum += total;
    }
    double mine[2] = {compute_s, mpi_s}, sums[2];
    MPI_Reduce(mine, sums, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_imbalance ranks=%d steps=%d checksum=%.10f compute_cpu_s=%.6f mpi_cpu_s=%.6f\n",
               size, steps, checksum, sums[0], sums[1]);
    MPI_Finalize();
    return 0;
}
