/* SPDX-License-Identifier: MIT */
/*
 * lulesh_proxy.c - a program shaped like LULESH 2.0 (the hydrodynamics
 * proxy app): the same call tree and region names, kernels of very
 * different sizes that all run once per time step, and under MPI the same
 * communication pattern (CommRecv / CommSend post the halo messages,
 * CommSBN waits for them and sums the boundary, CommSyncPosVel, an
 * MPI_Allreduce of the time step). The physics is replaced by real
 * arithmetic over element and node arrays whose cost per kernel mirrors
 * LULESH's profile (CalcHourglassControlForElems and
 * IntegrateStressForElems the largest, TimeIncrement a few microseconds).
 *
 * It is the program the comparison's rate tests run over and over
 * (examples/compare_rates.sh, tests/compare/): one kernel can be made
 * slower with real work, and under MPI one rank can be made late so the
 * others' waits grow.
 *
 *   lulesh_proxy [-o OUT.h5] [--size N] [--steps S] [--slow KERNEL]
 *                [--slow-factor F] [--late-ms MS] [--late-rank R]
 *
 *   --size N        elements per edge of the rank's domain (default 16)
 *   --steps S       time steps (default 150)
 *   --slow KERNEL   a leaf kernel (e.g. CalcQRegion, CalcEnergyForElems)
 *                   doing F times its work: same memory, same result
 *   --slow-factor F default 2
 *   --late-ms MS    (MPI) rank R stalls (sleeps) MS ms per step before it
 *                   posts its halo messages, so the other ranks wait in
 *                   CommSBN's MPI_Waitall
 *   --late-rank R   default 0
 *
 * lulesh_proxy_mpi is the same source built with LULESH_PROXY_MPI (1-D
 * slabs along z, one halo plane per neighbour); MPI calls are regions too
 * (use_mpi_regions). Like LULESH, each rank has --size^3 elements, so runs
 * at growing rank counts are a weak-scaling study; the metadata says so
 * (elements_per_rank, elements), which `scaling`, `plot scaling`, the
 * report and the viewer detect.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef LULESH_PROXY_MPI
#include <mpi.h>
#endif

#include <scope_profiler.h>

typedef struct domain {
    int n;                 /* elements per edge */
    size_t nelem, nnode;
    double *e, *p, *q, *v, *ss, *delv, *arealg, *vdov; /* per element */
    double *x, *xd, *fx, *mass;                          /* per node */
    double *plane_send[2], *plane_recv[2];               /* halo planes */
    double dt, time;
} domain;

static volatile double sink; /* keeps the optimiser from dropping results */
static const char *slow_kernel = "";
static double slow_factor = 2;
static int my_rank, nranks = 1;

/* How many times a kernel does its work: the slowed one F times (the
 * fraction beyond whole passes on a leading part of the elements). */
static void passes_of(const char *name, size_t n, int *whole, size_t *part)
{
    *whole = 1;
    *part = 0;
    if (strcmp(name, slow_kernel) != 0 || slow_factor <= 1)
        return;
    *whole = (int)floor(slow_factor);
    *part = (size_t)((slow_factor - *whole) * (double)n);
}

/* The arithmetic of a kernel: `ops` dependent steps per element of
 * out[i] from a[i] and b[i], repeated as passes_of() says. */
static void element_work(const char *name, double *out, const double *a, const double *b,
                         size_t n, int ops)
{
    int whole;
    size_t part;
    passes_of(name, n, &whole, &part);
    for (int w = 0; w <= whole; w++) {
        size_t m = w < whole ? n : part;
        for (size_t i = 0; i < m; i++) {
            double s = a[i], t = b[i];
            for (int k = 0; k < ops; k++)
                s = sqrt(s * s + 0.5 * t) * 0.7071067811865476 + 1e-9 * k;
            out[i] = 0.5 * out[i] + 0.5 * s;
        }
    }
}

/* ---------------------------------------------------------------- MPI */

#ifdef LULESH_PROXY_MPI
static MPI_Request reqs[4];
static int nreq;
static double late_ms;
static int late_rank;

/* A stalled rank (slow I/O, a page fault storm, a throttled node): it
 * sleeps, so it does not compete for a CPU while the others wait. */
static void stall_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(fmod(ms, 1000) * 1e6)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void CommRecv(domain *d)
{
    SP_FUNCTION();
    size_t plane = (size_t)(d->n + 1) * (size_t)(d->n + 1);
    nreq = 0;
    if (my_rank > 0)
        MPI_Irecv(d->plane_recv[0], (int)plane, MPI_DOUBLE, my_rank - 1, 1, MPI_COMM_WORLD,
                  &reqs[nreq++]);
    if (my_rank + 1 < nranks)
        MPI_Irecv(d->plane_recv[1], (int)plane, MPI_DOUBLE, my_rank + 1, 0, MPI_COMM_WORLD,
                  &reqs[nreq++]);
}

static void CommSend(domain *d)
{
    SP_FUNCTION();
    if (my_rank == late_rank && late_ms > 0)
        stall_ms(late_ms); /* the late rank: the others wait for these messages */
    size_t plane = (size_t)(d->n + 1) * (size_t)(d->n + 1);
    memcpy(d->plane_send[0], d->fx, plane * sizeof(double));
    memcpy(d->plane_send[1], d->fx + d->nnode - plane, plane * sizeof(double));
    if (my_rank > 0)
        MPI_Isend(d->plane_send[0], (int)plane, MPI_DOUBLE, my_rank - 1, 0, MPI_COMM_WORLD,
                  &reqs[nreq++]);
    if (my_rank + 1 < nranks)
        MPI_Isend(d->plane_send[1], (int)plane, MPI_DOUBLE, my_rank + 1, 1, MPI_COMM_WORLD,
                  &reqs[nreq++]);
}

static void CommSBN(domain *d)
{
    SP_FUNCTION();
    MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    size_t plane = (size_t)(d->n + 1) * (size_t)(d->n + 1);
    if (my_rank > 0)
        for (size_t i = 0; i < plane; i++)
            d->fx[i] += d->plane_recv[0][i];
    if (my_rank + 1 < nranks)
        for (size_t i = 0; i < plane; i++)
            d->fx[d->nnode - plane + i] += d->plane_recv[1][i];
}

static void CommSyncPosVel(domain *d)
{
    SP_FUNCTION();
    double edge[2] = {d->x[0], d->x[d->nnode - 1]}, got[2] = {0, 0};
    int up = my_rank + 1 < nranks ? my_rank + 1 : MPI_PROC_NULL;
    int down = my_rank > 0 ? my_rank - 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&edge[1], 1, MPI_DOUBLE, up, 2, &got[0], 1, MPI_DOUBLE, down, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&edge[0], 1, MPI_DOUBLE, down, 3, &got[1], 1, MPI_DOUBLE, up, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    sink += got[0] + got[1];
}
#endif

/* ---------------------------------------------------------------- nodal */

static void IntegrateStressForElems(domain *d)
{
    SP_FUNCTION();
    element_work("IntegrateStressForElems", d->arealg, d->p, d->q, d->nelem, 10);
}

static void CalcHourglassControlForElems(domain *d)
{
    SP_FUNCTION();
    element_work("CalcHourglassControlForElems", d->delv, d->v, d->ss, d->nelem, 14);
}

static void CalcVolumeForceForElems(domain *d)
{
    SP_FUNCTION();
    IntegrateStressForElems(d);
    CalcHourglassControlForElems(d);
    /* Gather onto the nodes (the scatter LULESH does per corner). */
    for (size_t i = 0; i < d->nnode; i++)
        d->fx[i] = d->arealg[i % d->nelem] - d->delv[(i * 7) % d->nelem];
}

static void CalcForceForNodes(domain *d)
{
    SP_FUNCTION();
#ifdef LULESH_PROXY_MPI
    CommRecv(d);
#endif
    memset(d->fx, 0, d->nnode * sizeof *d->fx);
    CalcVolumeForceForElems(d);
#ifdef LULESH_PROXY_MPI
    CommSend(d);
    CommSBN(d);
#endif
}

static void CalcAccelerationForNodes(domain *d)
{
    SP_FUNCTION();
    element_work("CalcAccelerationForNodes", d->xd, d->fx, d->mass, d->nnode, 1);
}

static void ApplyAccelerationBoundaryConditionsForNodes(domain *d)
{
    SP_FUNCTION();
    size_t edge = (size_t)(d->n + 1);
    for (size_t i = 0; i < edge * edge; i++)
        d->xd[i] = 0; /* the symmetry plane */
}

static void CalcVelocityForNodes(domain *d)
{
    SP_FUNCTION();
    for (size_t i = 0; i < d->nnode; i++)
        d->xd[i] = fabs(d->xd[i]) < 1e-7 ? 0 : d->xd[i] * 0.999;
}

static void CalcPositionForNodes(domain *d)
{
    SP_FUNCTION();
    for (size_t i = 0; i < d->nnode; i++)
        d->x[i] += d->dt * d->xd[i];
}

static void LagrangeNodal(domain *d)
{
    SP_FUNCTION();
    CalcForceForNodes(d);
    CalcAccelerationForNodes(d);
    ApplyAccelerationBoundaryConditionsForNodes(d);
    CalcVelocityForNodes(d);
    CalcPositionForNodes(d);
#ifdef LULESH_PROXY_MPI
    CommSyncPosVel(d);
#endif
}

/* ---------------------------------------------------------------- elements */

static void CalcKinematicsForElems(domain *d)
{
    SP_FUNCTION();
    element_work("CalcKinematicsForElems", d->vdov, d->v, d->arealg, d->nelem, 6);
}

static void CalcLagrangeElements(domain *d)
{
    SP_FUNCTION();
    CalcKinematicsForElems(d);
    for (size_t i = 0; i < d->nelem; i++)
        d->delv[i] = 1e-3 * (d->vdov[i] - d->v[i]);
}

static void CalcMonotonicQGradientsForElems(domain *d)
{
    SP_FUNCTION();
    element_work("CalcMonotonicQGradientsForElems", d->q, d->delv, d->v, d->nelem, 4);
}

/* Per material region, as LULESH's CalcMonotonicQRegionForElems: regions
 * of decreasing size, so the calls differ in length. */
static void CalcMonotonicQRegionForElems(domain *d, size_t first, size_t count)
{
    SP_FUNCTION();
    element_work("CalcMonotonicQRegionForElems", d->q + first, d->vdov + first, d->e + first,
                 count, 5);
}

#define NMAT 4
static size_t region_first[NMAT], region_count[NMAT];

static void CalcQForElems(domain *d)
{
    SP_FUNCTION();
    CalcMonotonicQGradientsForElems(d);
    for (int r = 0; r < NMAT; r++)
        CalcMonotonicQRegionForElems(d, region_first[r], region_count[r]);
}

static void CalcEnergyForElems(domain *d, size_t first, size_t count)
{
    SP_FUNCTION();
    element_work("CalcEnergyForElems", d->e + first, d->p + first, d->q + first, count, 8);
}

static void CalcSoundSpeedForElems(domain *d, size_t first, size_t count)
{
    SP_FUNCTION();
    element_work("CalcSoundSpeedForElems", d->ss + first, d->e + first, d->p + first, count, 2);
}

static void EvalEOSForElems(domain *d, size_t first, size_t count)
{
    SP_FUNCTION();
    CalcEnergyForElems(d, first, count);
    CalcSoundSpeedForElems(d, first, count);
    for (size_t i = first; i < first + count; i++)
        d->p[i] = (2.0 / 3.0) * d->e[i] / (d->v[i] + 1.0);
}

static void ApplyMaterialPropertiesForElems(domain *d)
{
    SP_FUNCTION();
    for (int r = 0; r < NMAT; r++)
        EvalEOSForElems(d, region_first[r], region_count[r]);
}

static void UpdateVolumesForElems(domain *d)
{
    SP_FUNCTION();
    for (size_t i = 0; i < d->nelem; i++)
        d->v[i] = fabs(d->v[i] - 1.0) < 1e-8 ? 1.0 : d->v[i];
}

static void LagrangeElements(domain *d)
{
    SP_FUNCTION();
    CalcLagrangeElements(d);
    CalcQForElems(d);
    ApplyMaterialPropertiesForElems(d);
    UpdateVolumesForElems(d);
}

/* ---------------------------------------------------------------- time step */

static double CalcCourantConstraintForElems(domain *d)
{
    SP_FUNCTION();
    double m = 1e20;
    for (size_t i = 0; i < d->nelem; i++)
        m = fmin(m, 0.5 / (d->ss[i] + 1e-3));
    return m;
}

static double CalcHydroConstraintForElems(domain *d)
{
    SP_FUNCTION();
    double m = 1e20;
    for (size_t i = 0; i < d->nelem; i++)
        m = fmin(m, 1.0 / (fabs(d->vdov[i]) + 1e-2));
    return m;
}

static void CalcTimeConstraintsForElems(domain *d)
{
    SP_FUNCTION();
    double dt = fmin(CalcCourantConstraintForElems(d), CalcHydroConstraintForElems(d));
#ifdef LULESH_PROXY_MPI
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
#endif
    d->dt = fmin(1e-3, dt * 1e-3);
}

static void LagrangeLeapFrog(domain *d)
{
    SP_FUNCTION();
    LagrangeNodal(d);
    LagrangeElements(d);
    CalcTimeConstraintsForElems(d);
}

static void TimeIncrement(domain *d)
{
    SP_FUNCTION();
    d->time += d->dt;
}

/* ---------------------------------------------------------------- setup */

static double *array(size_t n, double v)
{
    double *a = malloc(n * sizeof *a);
    if (!a) {
        fprintf(stderr, "lulesh_proxy: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        a[i] = v + 1e-3 * (double)(i % 97);
    return a;
}

static void domain_init(domain *d, int n)
{
    SP_FUNCTION();
    d->n = n;
    d->nelem = (size_t)n * (size_t)n * (size_t)n;
    d->nnode = (size_t)(n + 1) * (size_t)(n + 1) * (size_t)(n + 1);
    double **elem[] = {&d->e, &d->p, &d->q, &d->v, &d->ss, &d->delv, &d->arealg, &d->vdov};
    for (size_t k = 0; k < sizeof elem / sizeof *elem; k++)
        *elem[k] = array(d->nelem, k == 3 ? 1.0 : 0.5);
    d->x = array(d->nnode, 0);
    d->xd = array(d->nnode, 0);
    d->fx = array(d->nnode, 0);
    d->mass = array(d->nnode, 1.0);
    size_t plane = (size_t)(n + 1) * (size_t)(n + 1);
    for (int k = 0; k < 2; k++) {
        d->plane_send[k] = array(plane, 0);
        d->plane_recv[k] = array(plane, 0);
    }
    d->e[0] = 3.948746e+7; /* the energy deposit at the origin, as LULESH's */
    d->dt = 1e-7;
    /* Material regions of 1/2, 1/4, 1/8 and the rest of the elements. */
    size_t at = 0;
    for (int r = 0; r < NMAT; r++) {
        region_first[r] = at;
        region_count[r] = r + 1 < NMAT ? d->nelem >> (r + 1) : d->nelem - at;
        at += region_count[r];
    }
}

static void domain_free(domain *d)
{
    double *all[] = {d->e, d->p, d->q, d->v, d->ss, d->delv, d->arealg, d->vdov, d->x, d->xd,
                     d->fx, d->mass, d->plane_send[0], d->plane_send[1], d->plane_recv[0],
                     d->plane_recv[1]};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        free(all[k]);
}

static int usage(void)
{
    fprintf(stderr, "usage: lulesh_proxy [-o OUT.h5] [--size N] [--steps S] [--slow KERNEL] "
                    "[--slow-factor F] [--late-ms MS] [--late-rank R]\n");
    return 2;
}

int main(int argc, char **argv)
{
#ifdef LULESH_PROXY_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
#endif
    const char *out = "profiling_data.h5";
    int n = 16, steps = 150;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage();
        if (strcmp(a, "-o") == 0)
            out = v;
        else if (strcmp(a, "--size") == 0)
            n = atoi(v);
        else if (strcmp(a, "--steps") == 0)
            steps = atoi(v);
        else if (strcmp(a, "--slow") == 0)
            slow_kernel = v;
        else if (strcmp(a, "--slow-factor") == 0)
            slow_factor = atof(v);
#ifdef LULESH_PROXY_MPI
        else if (strcmp(a, "--late-ms") == 0)
            late_ms = atof(v);
        else if (strcmp(a, "--late-rank") == 0)
            late_rank = atoi(v);
#endif
        else
            return usage();
        i++;
    }
    if (n < 2 || steps < 1)
        return usage();
    sp_options o;
    sp_options_init(&o);
    o.file_path = out;
#ifdef LULESH_PROXY_MPI
    o.use_mpi_regions = true;
#endif
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "lulesh_proxy: %s\n", sp_last_error());
        return 1;
    }
    domain d;
    memset(&d, 0, sizeof d);
    domain_init(&d, n);
    /* The problem size, as a real code would note it: per rank (fixed by
     * --size) and in all (grown with the ranks: a weak-scaling study). */
    char v[64];
    snprintf(v, sizeof v, "%zu", d.nelem);
    sp_metadata_set("elements_per_rank", v);
    snprintf(v, sizeof v, "%zu", d.nelem * (size_t)nranks);
    sp_metadata_set("elements", v);
    SP_SCOPE("main_loop")
    {
        for (int s = 0; s < steps; s++) {
            TimeIncrement(&d);
            LagrangeLeapFrog(&d);
        }
    }
    double check = 0;
    for (size_t i = 0; i < d.nelem; i++)
        check += d.e[i];
    if (my_rank == 0)
        printf("lulesh_proxy: %d^3 elements per rank, %d ranks, %d steps, energy %.6g\n", n,
               nranks, steps, check);
    domain_free(&d);
    int rc = sp_finalize(false, NULL) != 0;
    if (rc)
        fprintf(stderr, "lulesh_proxy: %s\n", sp_last_error());
#ifdef LULESH_PROXY_MPI
    MPI_Finalize();
#endif
    return rc;
}
