"""What the test modules share: running the CLI, starting the test servers, git for
mcp-server-git, text as other runtimes write it, compare's verdict on a real chain,
what may never reach a terminal raw."""
