"""The reference solutions of the exercises, one module each, with their solution blocks marked.

``python -m minigrad.exercises make DIR`` copies them with every block between
``# BEGIN SOLUTION: <hint>`` and ``# END SOLUTION`` replaced by
``raise NotImplementedError("<hint>")``.
"""
