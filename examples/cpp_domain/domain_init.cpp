// SPDX-License-Identifier: MIT
// domain_init.cpp - building the mesh (the Domain constructor and element nodes).
#include "domain.hpp"

Domain::Domain(Index_t edge_elems)
    : m_edgeElems(edge_elems), m_edgeNodes(edge_elems + 1),
      m_numElem(edge_elems * edge_elems * edge_elems),
      m_numNode((edge_elems + 1) * (edge_elems + 1) * (edge_elems + 1))
{
    for (auto *f : {&m_x, &m_y, &m_z, &m_xd, &m_yd, &m_zd, &m_fx, &m_fy, &m_fz, &m_nodalMass})
        f->assign(static_cast<std::size_t>(m_numNode), 0.0);
    for (auto *f : {&m_e, &m_p, &m_q, &m_v})
        f->assign(static_cast<std::size_t>(m_numElem), 0.0);
    const Real_t h = 1.125 / static_cast<Real_t>(edge_elems);
    for (Index_t k = 0; k < m_edgeNodes; k++)
        for (Index_t j = 0; j < m_edgeNodes; j++)
            for (Index_t i = 0; i < m_edgeNodes; i++) {
                Index_t n = (k * m_edgeNodes + j) * m_edgeNodes + i;
                m_x[n] = h * i;
                m_y[n] = h * j;
                m_z[n] = h * k;
                m_nodalMass[n] = 1.0;
            }
    for (Index_t i = 0; i < m_numElem; i++) {
        m_v[i] = 1.0;
        m_e[i] = i == 0 ? 3.948746e+7 : 0.0; // the Sedov blast: energy in one corner
    }
}

Index_t Domain::node(Index_t elem, int corner) const
{
    Index_t i = elem % m_edgeElems, j = (elem / m_edgeElems) % m_edgeElems,
            k = elem / (m_edgeElems * m_edgeElems);
    Index_t di = corner & 1, dj = (corner >> 1) & 1, dk = (corner >> 2) & 1;
    return ((k + dk) * m_edgeNodes + (j + dj)) * m_edgeNodes + (i + di);
}
