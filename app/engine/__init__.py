"""The engine: the only layer that calls a provider. The turn loop, fitting requests into the
window, compression, tool runs and approvals, the session and its file."""
