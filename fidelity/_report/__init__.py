"""What a run found and how it is written: the family map, contract cards
(Markdown, JSON, HTML), the terminal map, document blocks, result files, drift."""
