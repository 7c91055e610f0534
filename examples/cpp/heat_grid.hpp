/* SPDX-License-Identifier: MIT */
/* heat_grid.hpp - the C++ mini-app's grid: a class whose accessors live in
 * the header (inlined at every use, never profiled on their own). */
#ifndef HEAT_GRID_HPP
#define HEAT_GRID_HPP

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace heat
{

class Grid
{
  public:
    Grid(std::size_t nx, std::size_t ny) : nx_(nx), ny_(ny), v_(nx * ny, 0.0)
    {
        if (nx < 3 || ny < 3)
            throw std::invalid_argument("Grid: at least 3x3 points");
    }
    std::size_t nx() const { return nx_; }
    std::size_t ny() const { return ny_; }
    double &at(std::size_t i, std::size_t j) { return v_[i * ny_ + j]; }
    double at(std::size_t i, std::size_t j) const { return v_[i * ny_ + j]; }
    void swap(Grid &o) { v_.swap(o.v_); }

  private:
    std::size_t nx_, ny_;
    std::vector<double> v_;
};

} // namespace heat

#endif
