"""tg.nn, tg.optim, tg.save/load and tg.utils.data from Python."""

import numpy as np
import pytest

import tensorgen as tg
from tensorgen import nn
from tensorgen.nn import functional as F
from tensorgen.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
        self.scale = nn.Parameter(tg.ones(1))
        self.not_a_parameter = tg.ones(1)

    def forward(self, x):
        return self.body(x) * self.scale


def test_module_registers_parameters_and_children_in_order():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["scale", "body.0.weight", "body.0.bias", "body.2.weight", "body.2.bias"]
    assert all(p.requires_grad and p.is_leaf for p in net.parameters())
    assert isinstance(net.scale, nn.Parameter) and isinstance(net.scale, tg.Tensor)
    assert len(list(net.children())) == 1 and len(list(net.modules())) == 5
    assert "Linear(in_features=4, out_features=8, bias=True)" in repr(net)


def test_forward_backward_and_zero_grad():
    net = Net()
    out = net(tg.randn(5, 4))
    assert out.shape == (5, 3)
    out.sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_train_eval_changes_dropout():
    drop = nn.Dropout(0.5)
    x = tg.ones(1000)
    assert (drop(x) == 0).sum().item() > 100
    drop.eval()
    assert drop(x).tolist() == x.tolist()


def test_to_moves_and_casts_parameters():
    layer = nn.Linear(2, 2)
    weight = layer.weight
    layer.to("cpu")
    assert layer.weight is weight
    layer.to(tg.float64)
    assert isinstance(layer.weight, nn.Parameter) and layer.weight.dtype is tg.float64 and layer.weight.requires_grad
    assert layer.weight.tolist() == weight.tolist()


def test_sgd_matches_the_update_rule():
    w = nn.Parameter(tg.tensor([1.0, 2.0]))
    opt = tg.optim.SGD([w], lr=0.1, momentum=0.9)
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    # v1 = g0 = 2w0; w1 = w0 - 0.1 v1; v2 = 0.9 v1 + 2 w1; w2 = w1 - 0.1 v2
    w0 = np.array([1.0, 2.0])
    v1 = 2 * w0
    w1 = w0 - 0.1 * v1
    v2 = 0.9 * v1 + 2 * w1
    np.testing.assert_allclose(w.detach().numpy(), w1 - 0.1 * v2, rtol=1e-6)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    opt.param_groups[0]["lr"] = 0.5
    assert opt.param_groups[0]["lr"] == 0.5


def test_adam_trains_a_regression_and_rejects_unknown_options():
    tg.manual_seed(0)
    x = tg.randn(64, 3)
    y = x @ tg.tensor([[1.0], [-2.0], [0.5]])
    model = nn.Linear(3, 1)
    opt = tg.optim.Adam(model.parameters(), lr=0.05, betas=(0.9, 0.99))
    for _ in range(300):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    assert loss.item() < 1e-3
    with pytest.raises(TypeError, match="unknown option 'momentm'"):
        tg.optim.SGD(model.parameters(), lr=0.1, momentm=0.9)
    with pytest.raises(TypeError, match="lr"):
        tg.optim.SGD(model.parameters())


def test_save_load_state_dict_readable_by_safetensors(tmp_path):
    net = Net()
    path = tmp_path / "net.safetensors"
    tg.save(net.state_dict(), path)
    from safetensors.numpy import load_file
    arrays = load_file(str(path))
    assert set(arrays) == {n for n, _ in net.named_parameters()}
    np.testing.assert_array_equal(arrays["body.0.weight"], net.body[0].weight.detach().numpy())
    other = Net()
    other.load_state_dict(tg.load(path))
    x = tg.randn(2, 4)
    assert other(x).tolist() == net(x).tolist()
    with pytest.raises(RuntimeError, match="size mismatch"):
        nn.Linear(4, 9).load_state_dict({"weight": tg.ones(8, 4), "bias": tg.ones(9)})


def test_save_load_tensor_and_list(tmp_path):
    t = tg.arange(6).view(2, 3)
    tg.save(t, tmp_path / "t.safetensors")
    assert tg.load(tmp_path / "t.safetensors").tolist() == t.tolist()
    tg.save([t, t * 2], tmp_path / "l.safetensors")
    loaded = tg.load(tmp_path / "l.safetensors")
    assert [x.tolist() for x in loaded] == [t.tolist(), (t * 2).tolist()]
    with pytest.raises(TypeError, match="expected a Tensor"):
        tg.save(3, tmp_path / "x.safetensors")


def test_data_loader_batches_and_shuffles():
    ds = TensorDataset(tg.arange(10), tg.arange(10) * 2)
    batches = list(DataLoader(ds, batch_size=4))
    assert [b[0].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    shuffled = list(DataLoader(ds, batch_size=10, shuffle=True, seed=1))[0]
    assert sorted(shuffled[0].tolist()) == list(range(10)) and shuffled[1].tolist() == (shuffled[0] * 2).tolist()
    assert len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    with pytest.raises(ValueError, match="size mismatch"):
        TensorDataset(tg.ones(3), tg.ones(4))


def test_functional_losses_against_numpy():
    logits = tg.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]])
    target = tg.tensor([0, 1])
    z = logits.numpy()
    expected = -np.mean(np.log(np.exp(z[[0, 1], [0, 1]]) / np.exp(z).sum(1)))
    assert F.cross_entropy(logits, target).item() == pytest.approx(expected, rel=1e-6)
    with pytest.raises(ValueError, match="reduction"):
        F.mse_loss(logits, logits, reduction="avg")


def _adaptive_windows(length: int, out: int):
    """PyTorch's adaptive windows: [floor(i * L / out), ceil((i + 1) * L / out))."""
    return [(i * length // out, -(-(i + 1) * length // out)) for i in range(out)]


def _adaptive_reference(x: np.ndarray, output_size, reduce) -> np.ndarray:
    """The adaptive pool over the trailing len(output_size) dims of x, by explicit windows."""
    spatial = x.shape[-len(output_size):]
    result = np.empty(x.shape[:-len(output_size)] + tuple(output_size))
    for index in np.ndindex(*output_size):
        window = tuple(slice(*_adaptive_windows(length, out)[i])
                       for length, out, i in zip(spatial, output_size, index))
        block = x[(Ellipsis,) + window].reshape(x.shape[:-len(output_size)] + (-1,))
        result[(Ellipsis,) + index] = reduce(block, axis=-1)
    return result


@pytest.mark.parametrize("dims,shape,output_size", [(1, (2, 3, 7), (3,)), (2, (2, 3, 5, 7), (2, 3)),
                                                    (3, (1, 2, 5, 4, 6), (2, 3, 4))])
def test_adaptive_pools_against_numpy(dims, shape, output_size):
    x = tg.randn(list(shape), dtype=tg.float64)
    avg = getattr(F, f"adaptive_avg_pool{dims}d")(x, list(output_size))
    np.testing.assert_allclose(avg.numpy(), _adaptive_reference(x.numpy(), output_size, np.mean), rtol=1e-12)
    values, indices = getattr(F, f"adaptive_max_pool{dims}d")(x, list(output_size), return_indices=True)
    np.testing.assert_array_equal(values.numpy(), _adaptive_reference(x.numpy(), output_size, np.max))
    # The indices point at the maxima within each input plane, as PyTorch's do.
    planes = x.numpy().reshape(x.shape[:-dims] + (-1,))
    flat = indices.numpy().reshape(indices.shape[:-dims] + (-1,))
    np.testing.assert_array_equal(np.take_along_axis(planes, flat, axis=-1),
                                  values.numpy().reshape(flat.shape))
    module = getattr(nn, f"AdaptiveAvgPool{dims}d")(list(output_size))
    np.testing.assert_array_equal(module(x).numpy(), avg.numpy())
    assert not isinstance(getattr(nn, f"AdaptiveMaxPool{dims}d")(list(output_size))(x), tuple)


def test_3d_pools_against_numpy_and_errors():
    x = tg.randn([1, 2, 4, 4, 6])
    a = x.numpy().reshape(1, 2, 2, 2, 2, 2, 3, 2)  # 2x2x2 windows
    np.testing.assert_allclose(F.max_pool3d(x, 2).numpy(), a.max(axis=(3, 5, 7)), rtol=1e-6)
    np.testing.assert_allclose(F.avg_pool3d(x, 2).numpy(), a.mean(axis=(3, 5, 7)), rtol=1e-6)
    np.testing.assert_array_equal(nn.MaxPool3d(2)(x).numpy(), F.max_pool3d(x, 2).numpy())
    np.testing.assert_array_equal(nn.AvgPool3d(2)(x).numpy(), F.avg_pool3d(x, 2).numpy())
    with pytest.raises(Exception, match="max_pool3d"):
        F.max_pool3d(tg.randn([2, 3]), 2)
    with pytest.raises(Exception, match="adaptive_avg_pool2d"):
        F.adaptive_avg_pool2d(x, [1, 2, 3])
