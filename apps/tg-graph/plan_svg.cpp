#include "plan_svg.h"

#include <algorithm>
#include <sstream>

namespace tg::apps {

std::string plan_svg(const std::vector<jit::BufferLifetime>& buffers, const jit::PlanReport& report,
                     const std::vector<std::string>& labels, const std::string& title) {
  constexpr double kWidth = 960, kHeight = 540, kLeft = 90, kTop = 50, kBottom = 40, kRight = 20;
  int64_t t_end = 1;
  for (const auto& b : buffers) t_end = std::max(t_end, b.last_use + 1);
  const double arena = static_cast<double>(std::max<int64_t>(report.plan.arena_bytes, 1));
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const double x_scale = plot_w / static_cast<double>(t_end), y_scale = plot_h / arena;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << kLeft << "\" y=\"20\" font-size=\"14\">" << title << "</text>\n";
  svg << "<text x=\"" << kLeft << "\" y=\"38\">" << jit::to_string(report.plan.strategy) << ": arena "
      << report.plan.arena_bytes << " B, lower bound " << report.lower_bound << " B, naive " << report.naive_total
      << " B</text>\n";
  svg << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plot_w << "\" height=\"" << plot_h
      << "\" fill=\"none\" stroke=\"black\"/>\n";
  // The lower bound as a dashed line: how far down a perfect plan would reach.
  const double lb_y = kTop + static_cast<double>(report.lower_bound) * y_scale;
  svg << "<line x1=\"" << kLeft << "\" y1=\"" << lb_y << "\" x2=\"" << kLeft + plot_w << "\" y2=\"" << lb_y
      << "\" stroke=\"red\" stroke-dasharray=\"4 3\"/>\n";
  for (size_t i = 0; i < buffers.size(); ++i) {
    const auto& b = buffers[i];
    const double x = kLeft + static_cast<double>(b.first_use) * x_scale;
    const double w = static_cast<double>(b.last_use + 1 - b.first_use) * x_scale;
    const double y = kTop + static_cast<double>(report.plan.offsets[i]) * y_scale;
    const double h = std::max(static_cast<double>(b.size) * y_scale, 0.5);
    const int hue = static_cast<int>((i * 67) % 360);
    svg << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << h << "\" fill=\"hsl(" << hue
        << ",60%,70%)\" stroke=\"black\" stroke-width=\"0.5\"><title>"
        << (i < labels.size() ? labels[i] : "buffer " + std::to_string(i)) << ": " << b.size << " B at offset "
        << report.plan.offsets[i] << ", nodes " << b.first_use << ".." << b.last_use << "</title></rect>\n";
  }
  svg << "<text x=\"" << kLeft << "\" y=\"" << kHeight - 12 << "\">node index (0.." << t_end - 1
      << ") &#8594;</text>\n";
  svg << "<text x=\"10\" y=\"" << kTop + 12 << "\">offset 0</text>\n";
  svg << "<text x=\"10\" y=\"" << kTop + plot_h << "\">" << report.plan.arena_bytes << " B</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace tg::apps
