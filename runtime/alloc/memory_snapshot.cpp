#include "alloc/memory_snapshot.h"

#include <sstream>

namespace tg::alloc {

const char* to_string(BlockState state) {
  switch (state) {
    case BlockState::allocated:
      return "allocated";
    case BlockState::pending_free:
      return "pending_free";
    case BlockState::free:
      return "free";
  }
  return "unknown";
}

namespace {

void write_block(std::ostringstream& out, const BlockSnapshot& block) {
  out << "{\"address\": " << block.address << ", \"size\": " << block.size
      << ", \"requested_size\": " << block.requested_size << ", \"state\": \"" << to_string(block.state)
      << "\"}";
}

void write_segment(std::ostringstream& out, const SegmentSnapshot& segment) {
  out << "{\"device\": " << segment.device << ", \"address\": " << segment.address
      << ", \"size\": " << segment.size << ", \"stream\": " << segment.stream << ", \"pool\": \""
      << (segment.small_pool ? "small" : "large") << "\", \"allocated_bytes\": " << segment.allocated_bytes
      << ", \"active_bytes\": " << segment.active_bytes << ", \"blocks\": [";
  for (size_t i = 0; i < segment.blocks.size(); ++i) {
    out << (i == 0 ? "\n      " : ",\n      ");
    write_block(out, segment.blocks[i]);
  }
  out << (segment.blocks.empty() ? "]}" : "\n    ]}");
}

}  // namespace

std::string MemorySnapshot::to_json() const {
  std::ostringstream out;
  out << "{\"segments\": [";
  for (size_t i = 0; i < segments.size(); ++i) {
    out << (i == 0 ? "\n    " : ",\n    ");
    write_segment(out, segments[i]);
  }
  out << (segments.empty() ? "]}\n" : "\n]}\n");
  return out.str();
}

}  // namespace tg::alloc
