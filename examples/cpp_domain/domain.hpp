// SPDX-License-Identifier: MIT
//
// domain.hpp - the mesh of a LULESH-shaped mini-app: a Domain class whose
// fields are reached through small inline accessors, as real C++ mini-apps
// do (LULESH's Domain has ~80 of them). The kernels call them millions of
// times per step; traced one by one they would cost more than the work.
#ifndef CPP_DOMAIN_DOMAIN_HPP
#define CPP_DOMAIN_DOMAIN_HPP

#include <cstddef>
#include <vector>

using Real_t = double;
using Index_t = long;

class Domain {
  public:
    explicit Domain(Index_t edge_elems);

    // Sizes.
    Index_t numElem() const { return m_numElem; }
    Index_t numNode() const { return m_numNode; }
    Index_t edgeNodes() const { return m_edgeNodes; }

    // Node-centred fields: positions, velocities, forces, masses.
    Real_t &x(Index_t i) { return m_x[i]; }
    Real_t &y(Index_t i) { return m_y[i]; }
    Real_t &z(Index_t i) { return m_z[i]; }
    Real_t &xd(Index_t i) { return m_xd[i]; }
    Real_t &yd(Index_t i) { return m_yd[i]; }
    Real_t &zd(Index_t i) { return m_zd[i]; }
    Real_t &fx(Index_t i) { return m_fx[i]; }
    Real_t &fy(Index_t i) { return m_fy[i]; }
    Real_t &fz(Index_t i) { return m_fz[i]; }
    Real_t &nodalMass(Index_t i) { return m_nodalMass[i]; }

    // Element-centred fields: energy, pressure, artificial viscosity, volume.
    Real_t &e(Index_t i) { return m_e[i]; }
    Real_t &p(Index_t i) { return m_p[i]; }
    Real_t &q(Index_t i) { return m_q[i]; }
    Real_t &v(Index_t i) { return m_v[i]; }

    // The eight nodes of element i (a structured hexahedral mesh).
    Index_t node(Index_t elem, int corner) const;

    Real_t &deltatime() { return m_deltatime; }
    Real_t &time() { return m_time; }

  private:
    Index_t m_edgeElems, m_edgeNodes, m_numElem, m_numNode;
    std::vector<Real_t> m_x, m_y, m_z, m_xd, m_yd, m_zd, m_fx, m_fy, m_fz, m_nodalMass;
    std::vector<Real_t> m_e, m_p, m_q, m_v;
    Real_t m_deltatime = 1e-4, m_time = 0;
};

#endif
