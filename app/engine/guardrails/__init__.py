"""Guardrails for model behaviour: a failed step consumes neither context nor budget.

One module per guard, called from the turn loop (``app/engine/agent.py``):

- ``policy``: which guards run and their limits (the ``guardrails`` settings, resolved);
- ``classify``: which replies are rolled back (a call written as text, a refusal, an empty
  reply, an unknown tool) and the one-line note the retry carries;
- ``turn``: a user turn's counters and the decision about each reply (accept, ask again,
  stop), with the request plan of a retry;
- ``continuation``: answers cut at the output limit (prefill, continue_final_message, a
  larger limit);
- ``repetition``: an answer that keeps repeating itself while it streams;
- ``calls``: duplicate read-only calls, doom loops, failures in a row;
- ``steps``: one step's tool calls under those guards;
- ``attempts``: ``-p`` fresh attempts with a failure summary, and the answer pool.
"""
