"""``python -m fidelity``: the same as the ``fidelity`` command."""

from fidelity._cli import main

raise SystemExit(main())
