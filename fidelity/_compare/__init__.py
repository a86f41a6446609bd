"""The engine: ``compare(sent, received)`` aligns, classifies and replays rewrites."""
