"""The engine: the only layer that calls a provider. One room per responsibility:
``loop`` (the turn), ``fitting`` (each request inside the window), ``calls`` (the model's tool
calls), ``sessions`` (the conversation and its file), ``checkpoints`` (files before lull changed
them), ``hooks`` (the user's commands at lull's events), ``subagents`` (the task tool),
``guardrails`` (guards on model behaviour). ``waits`` (a provider's wait as the user sees it)
is shared by the loop and summary requests."""
