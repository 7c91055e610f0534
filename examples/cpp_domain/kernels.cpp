// SPDX-License-Identifier: MIT
//
// kernels.cpp - the physics of one step (a much simplified LULESH): forces
// gathered from elements onto nodes, nodal velocities and positions, element
// energy and pressure, the time-step constraint. Every field is reached
// through the Domain's accessors, millions of calls per step; the loops are
// OpenMP-parallel when built with OpenMP.
#include "kernels.hpp"

#include <algorithm>
#include <cmath>

void CalcForceForNodes(Domain &d)
{
    const Index_t nn = d.numNode(), ne = d.numElem();
#pragma omp parallel for
    for (Index_t n = 0; n < nn; n++)
        d.fx(n) = d.fy(n) = d.fz(n) = 0.0;
    // Element pressure pushes on its eight corners (serial: the scatter
    // would race; LULESH uses per-corner scratch for that).
    for (Index_t e = 0; e < ne; e++) {
        Real_t f = (d.p(e) + d.q(e)) * d.v(e) * 0.125;
        for (int c = 0; c < 8; c++) {
            Index_t n = d.node(e, c);
            Real_t sx = (c & 1) ? 1.0 : -1.0, sy = (c & 2) ? 1.0 : -1.0,
                   sz = (c & 4) ? 1.0 : -1.0;
            d.fx(n) += sx * f;
            d.fy(n) += sy * f;
            d.fz(n) += sz * f;
        }
    }
}

void CalcAccelerationAndVelocity(Domain &d)
{
    const Index_t nn = d.numNode();
    const Real_t dt = d.deltatime();
#pragma omp parallel for
    for (Index_t n = 0; n < nn; n++) {
        Real_t m = d.nodalMass(n);
        d.xd(n) += d.fx(n) / m * dt;
        d.yd(n) += d.fy(n) / m * dt;
        d.zd(n) += d.fz(n) / m * dt;
    }
}

void CalcPositionForNodes(Domain &d)
{
    const Index_t nn = d.numNode();
    const Real_t dt = d.deltatime();
#pragma omp parallel for
    for (Index_t n = 0; n < nn; n++) {
        d.x(n) += d.xd(n) * dt;
        d.y(n) += d.yd(n) * dt;
        d.z(n) += d.zd(n) * dt;
    }
}

void CalcEnergyForElems(Domain &d)
{
    const Index_t ne = d.numElem();
#pragma omp parallel for
    for (Index_t e = 0; e < ne; e++) {
        // volume from the corner displacement, an equation of state for p
        Index_t n0 = d.node(e, 0), n7 = d.node(e, 7);
        Real_t dx = d.x(n7) - d.x(n0), dy = d.y(n7) - d.y(n0), dz = d.z(n7) - d.z(n0);
        Real_t vnew = std::max(1e-10, dx * dy * dz * 1e3);
        Real_t work = d.p(e) * (vnew - d.v(e));
        d.e(e) = std::max(0.0, d.e(e) - work);
        d.q(e) = vnew < d.v(e) ? 0.1 * (d.v(e) - vnew) : 0.0;
        d.v(e) = vnew;
        d.p(e) = (2.0 / 3.0) * d.e(e) / vnew;
    }
}

Real_t CalcTimeConstraints(Domain &d)
{
    const Index_t ne = d.numElem();
    Real_t dtmin = 1e20;
#pragma omp parallel for reduction(min : dtmin)
    for (Index_t e = 0; e < ne; e++) {
        Real_t c = std::sqrt(std::max(1e-20, d.p(e) / std::max(1e-10, d.v(e))));
        dtmin = std::min(dtmin, 0.1 / (c + 1e-10));
    }
    return dtmin;
}

void LagrangeLeapFrog(Domain &d)
{
    CalcForceForNodes(d);
    CalcAccelerationAndVelocity(d);
    CalcPositionForNodes(d);
    CalcEnergyForElems(d);
    Real_t dt = CalcTimeConstraints(d);
    d.deltatime() = std::min(d.deltatime() * 1.1, std::min(dt, 1e-2));
    d.time() += d.deltatime();
}
