/* Prints, per rank, the size of MPI_COMM_WORLD as this rank sees it and an allreduce of 1 over
 * it. One job of N ranks prints size N and sum N on every rank; N singletons (a launcher whose
 * PMI the MPI library does not speak) print size 1 sum 1 N times and still exit 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size, one = 1, sum = 0, len;
    char node[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(node, &len);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* The emulated nodes share one host name; Slurm's node name tells them apart. */
    const char *slurm_node = getenv("SLURMD_NODENAME");
    printf("mpi_hello rank=%d size=%d sum=%d host=%s node=%s\n", rank, size, sum, node,
           slurm_node ? slurm_node : "-");
    MPI_Finalize();
    return 0;
}
