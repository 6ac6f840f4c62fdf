// A first tensorgen program: define an operator, give it a CPU kernel, and call it through
// the dispatcher typed and boxed, as generated code and the graph runtime do.
#include <iostream>

#include <tensorgen/tensorgen.h>

namespace {

// y[i] = a[i] * x[i] + b[i], for float tensors of one shape.
tg::Tensor axpy_cpu(const tg::Tensor& x, const tg::Tensor& b, const tg::Scalar& a) {
  TG_CHECK_VALUE(x.sizes() == b.sizes(), "[axpy] expected x and b of one shape, got ", x.sizes(), " and ", b.sizes());
  tg::Tensor y = tg::make_empty_tensor(x.sizes(), tg::kFloat, x.device());
  const float* xs = x.data_ptr<float>();
  const float* bs = b.data_ptr<float>();
  float* ys = y.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) ys[i] = a.toFloat() * xs[i] + bs[i];
  return y;
}

TG_LIBRARY(example, m) { m.def("axpy(Tensor x, Tensor b, *, Scalar a=2) -> Tensor"); }
TG_LIBRARY_IMPL(example, CPU, m) { m.impl("axpy", &axpy_cpu); }

tg::Tensor iota(int64_t n) {
  tg::Tensor t = tg::make_empty_tensor({n}, tg::kFloat, tg::kCPU);
  for (int64_t i = 0; i < n; ++i) t.data_ptr<float>()[i] = static_cast<float>(i);
  return t;
}

void print(const char* label, const tg::Tensor& t) {
  std::cout << label << " = [";
  for (int64_t i = 0; i < t.numel(); ++i) std::cout << (i ? ", " : "") << t.data_ptr<float>()[i];
  std::cout << "]\n";
}

}  // namespace

int main() {
  tg::Tensor x = iota(5), b = iota(5);
  auto op = tg::Dispatcher::singleton().findSchemaOrThrow("example::axpy");
  std::cout << "schema: " << op.schema().str() << "\n";

  auto typed = op.typed<tg::Tensor(const tg::Tensor&, const tg::Tensor&, const tg::Scalar&)>();
  print("typed axpy(x, b, a=3)", typed.call(x, b, 3));

  tg::Stack stack{x, b};  // `a` left off: the schema's default (2) fills it in
  op.callBoxed(stack);
  print("boxed axpy(x, b)", stack.at(0).toTensor());

  try {
    tg::Stack wrong{x, 1.5};
    op.callBoxed(wrong);
  } catch (const tg::Error& e) {
    std::cout << "a wrong boxed call raises: " << e.message() << "\n";
  }
  return 0;
}
