#include "warm_start.hpp"

#include <algorithm>
#include <tuple>

namespace perp::contact {

std::vector<int> pair_ordinals(const std::vector<Contact>& contacts) {
  std::vector<int> ordinals(contacts.size(), 0);
  if (contacts.size() <= 32) {
    // A small step: the earlier contacts of the same pair counted directly (the same ordinals as
    // the stable sort below, without its buffer).
    for (std::size_t k = 1; k < contacts.size(); ++k) {
      for (std::size_t j = 0; j < k; ++j) {
        if (contacts[j].body_a == contacts[k].body_a && contacts[j].body_b == contacts[k].body_b) ++ordinals[k];
      }
    }
    return ordinals;
  }
  std::vector<std::size_t> order(contacts.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return std::tie(contacts[x].body_a, contacts[x].body_b) < std::tie(contacts[y].body_a, contacts[y].body_b);
  });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const Contact& previous = contacts[order[k - 1]];
    const Contact& current = contacts[order[k]];
    if (previous.body_a == current.body_a && previous.body_b == current.body_b) {
      ordinals[order[k]] = ordinals[order[k - 1]] + 1;
    }
  }
  return ordinals;
}

std::size_t last_impulses(const World& world, const std::vector<Contact>& contacts, const std::vector<int>& ordinals,
                          Eigen::VectorXd& normal, Eigen::VectorXd& tangent, Eigen::VectorXd* split) {
  const auto m = static_cast<Eigen::Index>(contacts.size());
  normal = Eigen::VectorXd::Zero(m);
  tangent = Eigen::VectorXd::Zero(m);
  if (split != nullptr) *split = Eigen::VectorXd::Zero(m);
  const std::vector<ContactImpulse>& last = world.impulses;
  const auto key = [](const ContactImpulse& c) { return std::tie(c.body_a, c.body_b, c.ordinal); };
  const auto before = [&](const ContactImpulse& x, const ContactImpulse& y) { return key(x) < key(y); };
  // Keys are unique (the ordinal counts a pair's contacts). Detection finds a persisting contact
  // set in the order of the last step, so each contact is first looked for at its own index; a
  // sorted copy is made for the first one that is not there.
  std::vector<ContactImpulse> sorted;
  std::size_t found_count = 0;
  for (Eigen::Index k = 0; k < m; ++k) {
    const auto index = static_cast<std::size_t>(k);
    const Contact& contact = contacts[index];
    const ContactImpulse probe{contact.body_a, contact.body_b, ordinals[index], 0, 0};
    const ContactImpulse* found = nullptr;
    if (index < last.size() && key(last[index]) == key(probe)) {
      found = &last[index];
    } else {
      if (sorted.empty() && !last.empty()) {
        sorted = last;
        std::sort(sorted.begin(), sorted.end(), before);
      }
      const auto at = std::lower_bound(sorted.begin(), sorted.end(), probe, before);
      if (at != sorted.end() && key(*at) == key(probe)) found = &*at;
    }
    if (found != nullptr) {
      normal[k] = found->normal;
      tangent[k] = found->tangent;
      if (split != nullptr) (*split)[k] = found->split;
      ++found_count;
    }
  }
  return found_count;
}

void keep_impulses(World& world, const StepReport& report, const std::vector<int>& ordinals) {
  world.impulses.clear();
  world.impulses.reserve(report.contacts.size());
  const bool split = report.split_impulse.size() == static_cast<Eigen::Index>(report.contacts.size());
  for (std::size_t k = 0; k < report.contacts.size(); ++k) {
    const Contact& contact = report.contacts[k];
    const auto i = static_cast<Eigen::Index>(k);
    world.impulses.push_back({contact.body_a, contact.body_b, ordinals[k], report.normal_impulse[i],
                              report.tangent_impulse[i], split ? report.split_impulse[i] : 0.0});
  }
}

}  // namespace perp::contact
