"""Linear regression and softmax regression from scratch, the textbook way: synthetic data from
``torch.normal``, a shuffling minibatch iterator, hand-written models and losses, SGD as
``param -= lr * param.grad / batch_size`` under ``torch.no_grad()``, NumPy-style ``axis=``
keywords. Random numbers differ between the libraries, so results are compared by trend."""

import random

import numpy as np


def synthetic_data(torch, w, b, num_examples):
    """y = Xw + b + noise."""
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def data_iter(torch, batch_size, features, labels):
    indices = list(range(len(features)))
    random.shuffle(indices)
    for i in range(0, len(features), batch_size):
        batch = torch.tensor(indices[i:min(i + batch_size, len(features))])
        yield features[batch], labels[batch]


def main(torch):
    random.seed(0)
    true_w, true_b = torch.tensor([2, -3.4]), 4.2
    features, labels = synthetic_data(torch, true_w, true_b, 1000)
    w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    lr, batch_size = 0.03, 10
    epoch_losses = []
    for _ in range(3):
        for X, y in data_iter(torch, batch_size, features, labels):
            loss = (torch.matmul(X, w) + b - y) ** 2 / 2
            loss.sum().backward()
            with torch.no_grad():
                for param in (w, b):
                    param -= lr * param.grad / batch_size
                    param.grad.zero_()
        with torch.no_grad():
            epoch_losses.append(float(((torch.matmul(features, w) + b - labels) ** 2 / 2).mean()))

    # softmax regression on three Gaussian blobs
    centres = torch.tensor([[2.0, 0.0], [-2.0, 1.0], [0.0, -2.5]])
    classes = torch.randint(0, 3, (300,))
    points = centres[classes] + 0.5 * torch.randn(300, 2)
    W = torch.normal(0, 0.01, size=(2, 3), requires_grad=True)
    bias = torch.zeros(3, requires_grad=True)

    def softmax(X):  # noqa: N803 (the textbook's name)
        X_exp = torch.exp(X)
        return X_exp / X_exp.sum(axis=1, keepdims=True)

    def cross_entropy(y_hat, y):
        return -torch.log(y_hat[range(len(y_hat)), y])

    for _ in range(100):
        loss = cross_entropy(softmax(points @ W + bias), classes).mean()
        loss.backward()
        with torch.no_grad():
            W -= 0.5 * W.grad
            bias -= 0.5 * bias.grad
            W.grad.zero_()
            bias.grad.zero_()
    y_hat = softmax(points @ W + bias).argmax(axis=1)
    accuracy = float((y_hat.type(classes.dtype) == classes).float().sum()) / len(classes)
    return {"losses": epoch_losses, "w": w.reshape(-1).tolist(), "b": b.item(), "accuracy": accuracy,
            "rows_sum_to_one": bool(torch.allclose(softmax(points @ W).sum(1), torch.ones(300)))}


def compare(ours, theirs):
    for result in (ours, theirs) if theirs is not None else (ours,):
        assert result["losses"][-1] < 1e-3 < result["losses"][0]
        np.testing.assert_allclose(result["w"], [2, -3.4], atol=0.05)
        assert abs(result["b"] - 4.2) < 0.05
        assert result["accuracy"] > 0.9 and result["rows_sum_to_one"]
