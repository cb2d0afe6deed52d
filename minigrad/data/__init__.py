"""Datasets and batching, as ``torch.utils.data`` (also importable as ``minigrad.utils.data``)."""

from minigrad.data.collate import default_collate, default_convert
from minigrad.data.dataloader import DataLoader
from minigrad.data.dataset import ConcatDataset, Dataset, SampleBatch, Subset, TensorDataset, random_split
from minigrad.data.idx import parse_idx, read_idx
from minigrad.data.mnist import MNIST
from minigrad.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)

__all__ = [
    "MNIST",
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "RandomSampler",
    "SampleBatch",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "default_collate",
    "default_convert",
    "parse_idx",
    "random_split",
    "read_idx",
]
