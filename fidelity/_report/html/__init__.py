"""The HTML pages: a card's report, a whole server's map, the survey map; the pieces
they share (policy, style, escaping, sent and received side by side)."""
