// Edge: where a gradient flows next, the input_nr-th input of a Node.
// An invalid edge (function == nullptr) means "this input needs no gradient".
#pragma once

#include <cstdint>
#include <memory>

namespace tg::autograd {

class Node;

struct Edge {
  Edge() = default;
  Edge(std::shared_ptr<Node> function, uint32_t input_nr) : function(std::move(function)), input_nr(input_nr) {}

  bool is_valid() const noexcept { return function != nullptr; }
  bool operator==(const Edge& other) const noexcept {
    return function == other.function && input_nr == other.input_nr;
  }

  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};

}  // namespace tg::autograd
