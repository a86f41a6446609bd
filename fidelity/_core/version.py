"""The version of param-fidelity: the one place it is written (the build reads it here)."""

__all__ = ["__version__"]

__version__ = "0.1.0"
