// Draws a memory plan as an SVG: time (node index) across, arena offset down, one box per
// buffer spanning its lifetime and its byte range, so overlaps and waste are visible.
#pragma once

#include <string>
#include <vector>

#include "jit/static/memory_planner.h"

namespace tg::apps {

// `labels[i]` names buffer i in its tooltip (may be empty).
std::string plan_svg(const std::vector<jit::BufferLifetime>& buffers, const jit::PlanReport& report,
                     const std::vector<std::string>& labels, const std::string& title);

}  // namespace tg::apps
