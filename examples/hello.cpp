// A first tensorgen program: tensors, broadcasting and printing; autograd fitting a line by
// gradient descent; and a call by name through the boxed dispatcher, as the graph runtime
// makes them.
#include <iostream>

#include <tensorgen/tensorgen.h>

int main() {
  // Tensors and broadcasting, printed as LibTorch prints them.
  tg::Tensor a = tg::arange(6, tg::kFloat).view({2, 3});
  tg::Tensor b = tg::tensor({10.f, 20.f, 30.f});
  std::cout << "a + b =\n" << a + b << "\n\n";
  std::cout << "a.sum(1) =\n" << a.sum({1}) << "\n\n";

  // Fit y = 3x - 1 with gradient descent; the gradients come from the recorded graph.
  tg::manual_seed(0);
  tg::Tensor x = tg::rand({64, 1});
  tg::Tensor y = 3 * x - 1;
  tg::Tensor w = tg::zeros({1, 1}).requires_grad_();
  tg::Tensor bias = tg::zeros({1}).requires_grad_();
  for (int step = 0; step <= 300; ++step) {
    tg::Tensor loss = (tg::linear(x, w, bias) - y).pow(2).mean();
    loss.backward();
    {
      tg::NoGradGuard no_grad;
      w.sub_(w.grad() * 0.5);
      bias.sub_(bias.grad() * 0.5);
      w.mutable_grad().zero_();
      bias.mutable_grad().zero_();
    }
    if (step % 100 == 0) std::cout << "step " << step << "  loss " << loss.item<double>() << "\n";
  }
  std::cout << "fitted w = " << w.item<float>() << ", b = " << bias.item<float>() << " (expected 3, -1)\n\n";

  // Any operator can be called by name with boxed values; `alpha` comes from the schema.
  auto add = tg::Dispatcher::singleton().findSchemaOrThrow("tg::add.Tensor");
  tg::Stack stack{a, b};
  add.callBoxed(stack);
  std::cout << add.schema().str() << " ->\n" << stack.at(0).toTensor() << "\n";
  return 0;
}
