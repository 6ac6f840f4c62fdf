// tg::save / tg::load of modules: a round trip through a safetensors file restores the outputs,
// loading keeps the module's tensor identities, and a file that does not fit is refused with
// the names and shapes at fault, leaving the module unchanged.
#include <unistd.h>

#include <filesystem>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace nn = tg::nn;

namespace {

std::string temporary_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tg_nn_" + std::to_string(::getpid()) + "_" + name)).string();
}

struct TaggedImpl : nn::Module {
  TaggedImpl() {
    fc = register_module("fc", nn::Linear(3, 2));
    count = register_buffer("count", tg::zeros({1}, tg::kLong));
  }
  Tensor forward(const Tensor& x) { return fc(x); }
  nn::Linear fc{nullptr};
  Tensor count;
};
TG_MODULE(Tagged);

}  // namespace

TEST_CASE("nn_serialize: a module's state round-trips through a safetensors file") {
  const std::string path = temporary_path("round_trip.safetensors");
  nn::Sequential saved(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 2));
  tg::save(saved, path);
  nn::Sequential loaded(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 2));
  const Tensor weight = loaded->named_parameters()["0.weight"];
  const Tensor x = tg::randn({5, 3});
  CHECK(elements(loaded(x)) != elements(saved(x)));
  tg::load(loaded, path);
  CHECK(elements(loaded(x)) == elements(saved(x)));
  // The module's tensors were written into, not replaced: members and optimizers keep them.
  CHECK(loaded->named_parameters()["0.weight"].is_same(weight));
  CHECK(loaded->named_parameters()["0.weight"].requires_grad());
  // What the file holds, by name: the state dict, buffers included.
  const auto tensors = tg::serialize::load_tensors(path);
  CHECK(tensors.size() == 4);
  Tagged tagged;
  tagged->count.fill_(7);
  tg::save(tagged.ptr(), path);
  Tagged other;
  tg::load(other.ptr(), path);
  CHECK(other->count.item<int64_t>() == 7);
  CHECK(nn::state_dict(*other).size() == 3);
  std::filesystem::remove(path);
}

TEST_CASE("nn_serialize: a file that does not fit the module is refused and changes nothing") {
  const std::string path = temporary_path("mismatch.safetensors");
  nn::Sequential small(nn::Linear(3, 4));
  tg::save(small, path);
  nn::Sequential wide(nn::Linear(3, 5));
  const Values before = elements(wide->named_parameters()["0.bias"]);
  CHECK(contains(thrown<tg::Error>([&] { tg::load(wide, path); }), "'0.weight' has shape [4, 3] but the module's has shape [5, 3]"));
  CHECK(elements(wide->named_parameters()["0.bias"]) == before);
  nn::Sequential deeper(nn::Linear(3, 4), nn::Linear(4, 4));
  CHECK(contains(thrown<tg::Error>([&] { tg::load(deeper, path); }), "lacks '1.weight', '1.bias'"));
  nn::Sequential none(nn::Linear(nn::LinearOptions(3, 4).bias(false)));
  CHECK(contains(thrown<tg::Error>([&] { tg::load(none, path); }), "has '0.bias', which"));
  CHECK(contains(thrown<tg::Error>([&] { tg::load(small, temporary_path("absent.safetensors")); }), "absent.safetensors"));
  std::filesystem::remove(path);
}
