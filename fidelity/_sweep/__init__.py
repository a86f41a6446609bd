"""The whole-target sweep below the CLI: rows, pairing, edits, made values, OpenAPI, config fleets, the error contract."""
