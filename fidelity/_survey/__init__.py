"""Running a probe over payloads: ``survey()``, the ``Survey`` result, progress."""
