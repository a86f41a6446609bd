"""Private modules of the ``strategies`` package; import names from ``strategies``."""
