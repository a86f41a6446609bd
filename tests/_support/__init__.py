"""What the test modules share: running the CLI, starting the test servers, what may
never reach a terminal raw."""
