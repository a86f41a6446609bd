"""The run layer: one run from its targets to its verdict, told as events."""
