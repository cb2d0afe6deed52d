"""Performance machinery: optional reading.

Nothing here is about backpropagation, and nothing computes anything the plain code does not:
``parallel.py`` runs the pieces of one large array operation on a small thread pool
(``mg.set_num_threads`` sizes it); ``blas.py`` holds NumPy's BLAS to one thread while that
pool's threads run products of their own (the tuned convolution's bands); ``layout.py`` makes
the copies between memory orders that the tuned convolution and the engine need fast. The
operations in ``ops/`` call them; a reader learning how a gradient is computed can skip this
folder. docs/performance.md has the figures.
"""
