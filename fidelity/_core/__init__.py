"""The bottom layer: errors, the vocabulary (kinds, families, statuses), the text
model, terminal-safe rendering, payload and record helpers."""
