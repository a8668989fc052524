"""The turn loop. ``agent`` (a user turn: requests, replies, tool calls, as a stream of
events), ``config`` (its setup: ``AgentConfig``, the offered tools), ``recovery`` (a failed
request's retries), ``step_calls`` (one step's calls under the loop and failure guards),
``attempts`` (``-p`` fresh attempts: a failure summary, the task again, the answer pool)."""
