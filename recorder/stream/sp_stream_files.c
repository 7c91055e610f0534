/* SPDX-License-Identifier: MIT */
/*
 * sp_stream_files.c - the run's files at sp_setup: this rank's part,
 * claimed for the run (h5schema/sp_h5_v2_claim.c: never another live run's
 * part), the file at the path (rank 0), and the parts dead runs of that
 * path left behind.
 *
 * One run per path (issue 22, P4). When a live run (another process, a
 * fork child of this one, another MPI job) already records to the path,
 * rank 0 (every process without MPI) takes its own name instead,
 * "<stem>.pid<pid>.h5" (sp_v2_path_in_use_alternative), and says so: the
 * metadata key path_in_use, and finalize's warning. Under MPI set up
 * before sp_setup, rank 0's choice is broadcast and every rank streams
 * under it; a rank whose own part is still held by a live run (a job of
 * more ranks on the same path) keeps its calls in memory for finalize. A
 * run that set up before MPI_Init decides rank by rank (there is no
 * communicator yet): rank 0 may take another name, the other ranks keep
 * the path's parts (in memory when held), and finalize still joins them
 * into rank 0's file.
 *
 * Consumer lock held (sp_stream_writer.c calls this).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_mpi.h"
#include "sp_stream_consume.h"

/* Names tried when the path is in use (the path, then alternatives). */
#define SP__PATH_ATTEMPTS 8

/* This rank's part for *path, claimed. choose: when a live run holds it,
 * try the alternative names (rank 0), and say which was in use in note. */
static int claim_part(const sp__writer_setup *s, char **path, bool choose, char **part_path)
{
    sp_v2_part_setup ps = {.rank = s->rank, .clock_offset_ns = s->clock_offset_ns,
                           .clock_offset_err_ns = s->clock_offset_err_ns,
                           .rank_meta = s->rank_meta, .p0_ticks = s->p0.ticks,
                           .p0_ns = s->p0.ns, .compress = sp__cons.compress,
                           .mpi = s->mpi_messages};
    for (int attempt = 0;; attempt++) {
        *part_path = sp_v2_part_path(*path, s->rank);
        if (!*part_path)
            return sp__error(SP_ENOMEM, "sp_setup: out of memory");
        sp_v2_claim claim;
        int rc = sp_v2_part_create(*part_path, &ps, &sp__cons.part, &claim);
        if (rc == 0) {
            sp__cons.mpi = s->mpi_messages; /* the part has mpi/ tables */
            sp__cons.claim_fd = claim.fd;
            sp__cons.claimed = claim.fd >= 0;
            sp__cons.part_owned = true;
            return 0;
        }
        if (!claim.busy || !choose || attempt + 1 >= SP__PATH_ATTEMPTS)
            return rc;
        char *alt = sp_v2_path_in_use_alternative(s->path, (long)getpid(), attempt);
        if (!alt)
            return sp__error(SP_ENOMEM, "sp_setup: out of memory");
        free(*part_path);
        *part_path = NULL;
        free(*path);
        *path = alt;
    }
}

/* The note for the metadata and finalize's warning. */
static void note_path(sp__writer_setup *s, const char *used)
{
    snprintf(s->path_note, sizeof s->path_note,
             "'%s' was being written by another run that was still running when this one "
             "started: this run wrote '%s' instead",
             s->path, used);
}

int sp__cons_open_files(sp__writer_setup *s)
{
    char *path = strdup(s->path), *part_path = NULL;
    if (!path)
        return SP_ENOMEM;
    /* Rank 0 first: its claim decides the path. */
    int frc = s->rank == 0 ? claim_part(s, &path, true, &part_path) : 0;
    int src = sp__mpi_share_path(&path); /* collective where MPI is set up */
    if (s->rank != 0)
        frc = src ? src : claim_part(s, &path, false, &part_path);
    if (!path) {
        free(part_path);
        return SP_ENOMEM;
    }
    if (strcmp(path, s->path) != 0) {
        note_path(s, path);
        if (s->main_meta && sp_kvlist_set(s->main_meta, "path_in_use", s->path_note) != 0)
            frc = frc ? frc : sp__error(SP_ENOMEM, "sp_setup: out of memory");
        s->path_used = strdup(path);
    }
    sp__cons.path = path;
    sp__cons.part_path = part_path;
    /* The file at the path (rank 0), once the part is ours. A failure is
     * not fatal: the events stay in memory and finalize tries again. */
    if (frc == 0 && s->main_meta) {
        frc = sp_v2_main_create(path, s->nranks, s->main_meta);
        sp__cons.main_created = frc == 0;
        /* What dead runs of this path left (an MPI_Abort, a kill). */
        if (frc == 0)
            sp_v2_remove_stale_parts(path, part_path);
    }
    if (frc != 0) {
        char msg[sizeof sp__cons.errmsg];
        snprintf(msg, sizeof msg, "%s", sp_last_error());
        if (sp__cons.part) { /* no file at the path would link to it */
            sp_v2_part_close(sp__cons.part);
            sp__cons.part = NULL;
        }
        if (sp__cons.part_owned) {
            unlink(part_path);
            sp__cons.part_owned = false;
        }
        sp__cons.memory = true;
        sp__cons.mpi = false;
        snprintf(sp__cons.errmsg, sizeof sp__cons.errmsg, "%s", msg);
        sp__cons.err = frc; /* reported by finalize if it fails again */
    }
    return 0;
}
