"""tg.utils.data basics, as torch.utils.data: Dataset, TensorDataset, DataLoader (batches in
order or shuffled, stacked with tg.stack; one process)."""

from __future__ import annotations

import random
from typing import Any, Callable, Generic, Iterator, Optional, Sequence, TypeVar

import tensorgen._C as _C
from tensorgen._C import Tensor

__all__ = ["Dataset", "TensorDataset", "DataLoader", "default_collate", "random_split"]

T = TypeVar("T")


class Dataset(Generic[T]):
    def __getitem__(self, index: int) -> T:
        raise NotImplementedError(f"[Dataset] {type(self).__name__} has no __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"[Dataset] {type(self).__name__} has no __len__")


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples are the i-th rows of each tensor; all tensors share their first dimension."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("[TensorDataset] expected at least one tensor")
        sizes = {t.shape[0] for t in tensors}
        if len(sizes) != 1:
            raise ValueError(f"[TensorDataset] size mismatch between tensors: first dims {[t.shape[0] for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset[T]):
    def __init__(self, dataset: Dataset[T], indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index: int) -> T:
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset[T], lengths: Sequence[int], seed: Optional[int] = None) -> list[Subset[T]]:
    if sum(lengths) != len(dataset):
        raise ValueError(f"[random_split] lengths sum to {sum(lengths)}, the dataset has {len(dataset)} samples")
    order = list(range(len(dataset)))
    random.Random(seed).shuffle(order)
    result, start = [], 0
    for n in lengths:
        result.append(Subset(dataset, order[start:start + n]))
        start += n
    return result


def default_collate(samples: list[Any]) -> Any:
    first = samples[0]
    if isinstance(first, Tensor):
        return _C.stack(samples)
    if isinstance(first, (int, float, bool)):
        from tensorgen._tensor import tensor
        return tensor(samples)
    if isinstance(first, (tuple, list)):
        return type(first)(default_collate(list(column)) for column in zip(*samples))
    if isinstance(first, dict):
        return {key: default_collate([s[key] for s in samples]) for key in first}
    raise TypeError(f"[default_collate] cannot batch samples of type {type(first).__name__}")


class DataLoader(Generic[T]):
    def __init__(self, dataset: Dataset[T], batch_size: int = 1, shuffle: bool = False, drop_last: bool = False,
                 collate_fn: Optional[Callable[[list[T]], Any]] = None, seed: Optional[int] = None) -> None:
        if batch_size < 1:
            raise ValueError(f"[DataLoader] batch_size must be positive, got {batch_size}")
        self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, shuffle, drop_last
        self.collate_fn = collate_fn or default_collate
        self._random = random.Random(seed)

    def __iter__(self) -> Iterator[Any]:
        order = list(range(len(self.dataset)))
        if self.shuffle:
            self._random.shuffle(order)
        # A TensorDataset is batched by one gather per tensor rather than sample by sample.
        fast = isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate
        for start in range(0, len(order), self.batch_size):
            indices = order[start:start + self.batch_size]
            if self.drop_last and len(indices) < self.batch_size:
                break
            if fast:
                from tensorgen._tensor import tensor
                index = tensor(indices)
                yield tuple(t.index_select(0, index) for t in self.dataset.tensors)  # type: ignore[attr-defined]
            else:
                yield self.collate_fn([self.dataset[i] for i in indices])

    def __len__(self) -> int:
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
