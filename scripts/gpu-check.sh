#!/usr/bin/env bash
# The GPU check, one command, on a machine with an NVIDIA GPU and its driver:
#   bash scripts/gpu-check.sh [--data MNIST_FOLDER] [--report report.json]
# Installs the GPU extra when CuPy is missing, then runs scripts/gpu_check.py: the device tests
# on real CuPy, and one epoch of the MNIST CNN on the GPU, on the CPU and (when present) with
# PyTorch on the GPU. Finishes in a few minutes; see docs/gpu.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

if ! "$PYTHON" -c "import cupy" 2>/dev/null; then
    echo "CuPy is missing: installing the GPU extra (CuPy with CUDA's libraries from PyPI)"
    "$PYTHON" -m pip install -e ".[gpu]"
fi
# The checkout itself, whether or not minigrad is installed in this Python.
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
exec "$PYTHON" scripts/gpu_check.py "$@"
