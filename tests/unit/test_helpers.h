// Helpers shared by every unit test suite: error-message capture and small tensor makers.
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include <tensorgen/tensorgen.h>

namespace test_helpers {

// The message of the E that f() throws, or a marker saying what happened instead.
template <typename E, typename F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.message();
  } catch (const std::exception& e) {
    return std::string("<unexpected exception> ") + e.what();
  }
  return "<no exception>";
}

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// A one-element float CPU tensor holding `v`, made without any operator.
inline tg::Tensor filled(float v) {
  tg::Tensor t = tg::make_empty_tensor({1}, tg::kFloat, tg::Device(tg::kCPU));
  t.data_ptr<float>()[0] = v;
  return t;
}
inline float value(const tg::Tensor& t) { return t.data_ptr<float>()[0]; }

inline tg::Dispatcher& dispatcher() { return tg::Dispatcher::singleton(); }

}  // namespace test_helpers
