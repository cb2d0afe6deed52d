"""PyTorch's argument checks for the ops in ``minigrad/ops``, one module per op module.

An op file reads as Functions (forward and backward) and their public wrappers; what the wrappers
refuse, with PyTorch's exception type and message, lives here: ``ops/shape.py``'s checks in
``ops/_checks/shape.py``, and so on. A check raises, or returns its argument in the normal form the op
works with (sizes as a tuple of ints, a -1 size resolved); none of them touches tensor data.
"""
