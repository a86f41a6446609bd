"""Where a payload goes and where it comes back, for every transport: placeholders in
argument templates and URLs, and locating a calibration marker in an answer."""
