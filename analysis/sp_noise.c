/* SPDX-License-Identifier: MIT */
/*
 * sp_noise.c - is a change of per-call durations beyond noise? The
 * Mann-Whitney U test (see sp_diff.h for why a rank test).
 *
 * With both samples sorted, one merge walk gives every tie group at once:
 * a group of t equal values occupying ranks pos+1 .. pos+t gets the average
 * rank pos + (t + 1) / 2, and contributes t^3 - t to the tie correction.
 *     U_cand = R_cand - n_c (n_c + 1) / 2
 *     mu     = n_b n_c / 2
 *     sigma2 = n_b n_c / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1)))
 *     z      = (U - mu -+ 0.5) / sigma   (continuity correction towards mu)
 *     p      = erfc(|z| / sqrt 2)        (two-sided)
 * These match scipy.stats.mannwhitneyu(method="asymptotic",
 * use_continuity=True) for the candidate as first sample.
 */
#include "sp_analysis_internal.h"
#include "sp_diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

static double two_sided_p(double z)
{
    return erfc(fabs(z) / sqrt(2.0));
}

double sp_noise_min_p(uint64_t nb, uint64_t nc)
{
    if (nb < 1 || nc < 1)
        return 1.0;
    double prod = (double)nb * (double)nc;
    double sigma = sqrt(prod * ((double)(nb + nc) + 1.0) / 12.0);
    double dev = prod / 2.0 - 0.5;
    return dev <= 0 ? 1.0 : two_sided_p(dev / sigma);
}

static int sort_both(int64_t *base, size_t nb, int64_t *cand, size_t nc)
{
    size_t n = nb > nc ? nb : nc;
    int64_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return sp__error(SP_ENOMEM, "out of memory sorting %zu durations", n);
    sp__sort_i64(base, nb, tmp);
    sp__sort_i64(cand, nc, tmp);
    free(tmp);
    return 0;
}

int sp_noise_mann_whitney(int64_t *base, size_t nb, int64_t *cand, size_t nc, double alpha,
                          sp_noise_test *out)
{
    if (!out || (nb && !base) || (nc && !cand))
        return sp__error(SP_EINVAL, "sp_noise_mann_whitney: NULL argument");
    memset(out, 0, sizeof *out);
    out->n_base = nb;
    out->n_cand = nc;
    out->p_value = 1.0;
    if (nb < 2 || nc < 2)
        return 0;
    int rc = sort_both(base, nb, cand, nc);
    if (rc)
        return rc;

    double rank_sum_c = 0.0, ties = 0.0, pos = 0.0;
    size_t i = 0, j = 0;
    while (i < nb || j < nc) {
        int64_t v = (j >= nc || (i < nb && base[i] <= cand[j])) ? base[i] : cand[j];
        size_t tb = 0, tc = 0;
        while (i < nb && base[i] == v)
            i++, tb++;
        while (j < nc && cand[j] == v)
            j++, tc++;
        double t = (double)(tb + tc);
        rank_sum_c += (double)tc * (pos + (t + 1.0) / 2.0);
        ties += t * t * t - t;
        pos += t;
    }

    double b = (double)nb, c = (double)nc, n = b + c;
    double u = rank_sum_c - c * (c + 1.0) / 2.0;
    double mu = b * c / 2.0;
    double sigma2 = b * c / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    out->tested = true;
    out->u = u;
    out->effect = 2.0 * u / (b * c) - 1.0;
    if (sigma2 > 0) {
        double d = u - mu;
        double adj = fabs(d) <= 0.5 ? 0.0 : d - copysign(0.5, d);
        out->z = adj / sqrt(sigma2);
        out->p_value = two_sided_p(out->z);
    }
    out->conclusive = sp_noise_min_p(nb, nc) <= alpha;
    return 0;
}
