// SPDX-License-Identifier: MIT
// kernels.hpp - one time step of the mini-app, in the LULESH order.
#ifndef CPP_DOMAIN_KERNELS_HPP
#define CPP_DOMAIN_KERNELS_HPP

#include "domain.hpp"

void CalcForceForNodes(Domain &d);
void CalcAccelerationAndVelocity(Domain &d);
void CalcPositionForNodes(Domain &d);
void CalcEnergyForElems(Domain &d);
Real_t CalcTimeConstraints(Domain &d);
void LagrangeLeapFrog(Domain &d);

#endif
