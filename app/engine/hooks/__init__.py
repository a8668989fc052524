"""Hooks: the user's commands run at lull's events. ``runner`` (one event's hook commands:
JSON in, exit codes and JSON decisions out, timeouts), ``lifecycle`` (the events around a turn:
``SessionStart``, ``UserPromptSubmit``, ``Stop``, ``PreCompact``)."""
