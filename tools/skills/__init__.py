"""Skills: folders with a ``SKILL.md`` (Claude Code's format) the model loads when a task
needs them; only their names and descriptions are offered up front."""
