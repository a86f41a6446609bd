"""``python -m probes._http``: run the reference HTTP reflector on loopback.

The probes start their reflector subprocess through this module, never through the
``fidelity`` command above them. ``fidelity reflect http`` is the user's entry point
(with its ``--allow-remote`` check).
"""

from __future__ import annotations

import argparse

from probes._http.reflector import serve

parser = argparse.ArgumentParser(prog="python -m probes._http")
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, default=0)
options = parser.parse_args()
serve(host=options.host, port=options.port)
