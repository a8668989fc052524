"""Vocabulary every layer shares: messages, context edits, the provider contract, UI events,
approvals and the default of every setting. Imports nothing else of lull."""
