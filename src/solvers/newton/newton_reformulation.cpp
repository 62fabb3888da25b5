// The reformulation Φ of the Newton family (newton_detail.hpp): each component by the bounds of
// z_i and the chosen NCP function, with the diagonal D_a, D_b of H = D_a + D_b J and the element
// of the generalized Jacobian at a kink.

#include "newton_detail.hpp"

namespace perp::newton_detail {

Scalar phi(const Parameters& p, double a, double b) {
  Scalar s;
  switch (p.kind) {
    case Kind::Fb:
    case Kind::Min: {  // Min is handled separately; never reaches here
      s.value = fischer_burmeister(a, b);
      s.kink = a == 0.0 && b == 0.0;
      if (!s.kink) {
        const NcpGradient g = fischer_burmeister_gradient(a, b);
        s.da = g.da;
        s.db = g.db;
      }
      break;
    }
    case Kind::Penalized: {
      s.value = penalized_fischer_burmeister(a, b, p.lambda);
      s.kink = a == 0.0 && b == 0.0;
      if (!s.kink) {
        const NcpGradient g = penalized_fischer_burmeister_gradient(a, b, p.lambda);
        s.da = g.da;
        s.db = g.db;
      }
      break;
    }
    case Kind::Smoothed: {
      s.value = smoothed_fischer_burmeister(a, b, p.mu);
      s.kink = p.mu == 0.0 && a == 0.0 && b == 0.0;
      if (!s.kink) {
        const NcpGradient g = smoothed_fischer_burmeister_gradient(a, b, p.mu);
        s.da = g.da;
        s.db = g.db;
      }
      break;
    }
  }
  return s;
}

// The element at the kink (0, 0) along the direction (da, db) of the arguments.
NcpGradient kink_gradient(const Parameters& p, double da, double db) {
  NcpGradient g = fischer_burmeister_clarke_at_origin(da, db);
  if (p.kind == Kind::Penalized) {  // the penalty term a₊b₊ has gradient 0 at the origin
    g.da *= p.lambda;
    g.db *= p.lambda;
  }
  return g;
}

BoundType bound_type(double lower, double upper) {
  const bool has_lower = lower > -kInfinity;
  const bool has_upper = upper < kInfinity;
  if (has_lower && has_upper) return lower == upper ? BoundType::Fixed : BoundType::Both;
  if (has_lower) return BoundType::Lower;
  if (has_upper) return BoundType::Upper;
  return BoundType::Free;
}

Reformulator::Reformulator(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) : lower_(lower), upper_(upper) {
  types_.reserve(static_cast<std::size_t>(lower.size()));
  for (Eigen::Index i = 0; i < lower.size(); ++i) types_.push_back(bound_type(lower[i], upper[i]));
}

void Reformulator::value(const Parameters& p, const Eigen::VectorXd& z, const Eigen::VectorXd& F,
                         Eigen::VectorXd& out) {
  out.resize(z.size());
  for (Eigen::Index i = 0; i < z.size(); ++i) out[i] = component(p, i, z[i], F[i], nullptr);
}

double Reformulator::component(const Parameters& p, Eigen::Index i, double z, double F, Row* row) const {
  const double l = lower_[i];
  const double u = upper_[i];
  const BoundType type = types_[static_cast<std::size_t>(i)];
  if (type == BoundType::Fixed) return set(row, 1.0, 0.0, false), z - l;
  if (type == BoundType::Free) return set(row, 0.0, 1.0, false), F;
  if (p.kind == Kind::Min) {
    const double v = z - F;
    if (v <= l) return set(row, 1.0, 0.0, false), z - l;
    if (v >= u) return set(row, 1.0, 0.0, false), z - u;
    return set(row, 0.0, 1.0, false), F;
  }
  if (type == BoundType::Lower) {
    const Scalar s = phi(p, z - l, F);
    set(row, s.da, s.db, s.kink);
    return s.value;
  }
  if (type == BoundType::Upper) {
    const Scalar s = phi(p, u - z, -F);
    set(row, -s.da, -s.db, s.kink);
    return s.value;
  }
  const Scalar inner = phi(p, u - z, -F);
  const Scalar outer = phi(p, z - l, inner.value);
  set(row, outer.da - outer.db * inner.da, -outer.db * inner.db, inner.kink || outer.kink);
  return outer.value;
}

void Reformulator::kink_row(const Parameters& p, Eigen::Index i, double z, double F, double JdirI, double& Da,
                            double& Db) const {
  const double l = lower_[i];
  const double u = upper_[i];
  switch (types_[static_cast<std::size_t>(i)]) {
    case BoundType::Lower: {
      const NcpGradient g = kink_gradient(p, 1.0, JdirI);
      Da = g.da;
      Db = g.db;
      return;
    }
    case BoundType::Upper: {
      const NcpGradient g = kink_gradient(p, -1.0, -JdirI);
      Da = -g.da;
      Db = -g.db;
      return;
    }
    case BoundType::Both: {
      const Scalar inner = phi(p, u - z, -F);
      if (inner.kink) {  // z = u, F = 0; the outer pair (u − l, 0) is smooth
        const NcpGradient gi = kink_gradient(p, -1.0, -JdirI);
        const Scalar outer = phi(p, z - l, inner.value);
        Da = outer.da - outer.db * gi.da;
        Db = -outer.db * gi.db;
      } else {  // z = l and the inner value is 0; the inner pair (u − l, −F) is smooth
        const double dinner = -inner.da - inner.db * JdirI;
        const NcpGradient go = kink_gradient(p, 1.0, dinner);
        Da = go.da - go.db * inner.da;
        Db = -go.db * inner.db;
      }
      return;
    }
    default:
      return;
  }
}

}  // namespace perp::newton_detail
