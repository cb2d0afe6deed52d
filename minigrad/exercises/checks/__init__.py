"""The checks of each exercise: ``PARTS``, a list of ``(part name, points, check(namespace, quick))``."""
