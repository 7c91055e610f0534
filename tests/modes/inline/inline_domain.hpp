// SPDX-License-Identifier: MIT
// inline_domain.hpp - the mesh of inline_target.cpp, shaped like LULESH's
// Domain: std::vector fields behind one-line accessors that -O2 inlines.
#ifndef INLINE_DOMAIN_HPP
#define INLINE_DOMAIN_HPP

#include <vector>

class Domain {
  public:
    explicit Domain(int n) : m_x(n), m_xd(n), m_f(n) {}
    int size() const { return (int)m_x.size(); }
    double &x(int i) { return m_x[i]; }
    double &xd(int i) { return m_xd[i]; }
    double &f(int i) { return m_f[i]; }

  private:
    std::vector<double> m_x, m_xd, m_f;
};

#endif
