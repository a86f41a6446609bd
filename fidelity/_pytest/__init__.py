"""The pytest plugin: options, fixtures, the marker, session cards and drift."""
