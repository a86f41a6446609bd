"""HTTP probing over httpx, and the reference HTTP reflector (Starlette)."""
