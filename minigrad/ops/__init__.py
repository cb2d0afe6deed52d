"""The mathematics of minigrad: one ``Function`` per operation, forward and backward side by side.

Each module groups operations of one kind (arithmetic, elementwise functions,
reductions, shapes, indexing, ...). Every Function's ``forward`` works on the raw
arrays (``tensor.array``) through the backend's array module ``xp``; its
``backward`` receives the gradient of the output and returns one gradient per input.
The public function below each Function is what ``Tensor`` methods and
``minigrad.nn.functional`` call.
"""
