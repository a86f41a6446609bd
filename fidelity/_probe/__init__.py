"""The probe contract and what one probe saw for one payload (``Observation``)."""
