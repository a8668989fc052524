"""Guardrails for model behaviour: a failed step consumes neither context nor budget.

One module per guard, called from the turn loop (``app/engine/loop/agent.py``):

- ``policy``: which guards run and their limits (the ``guardrails`` settings, resolved);
- ``classify``: which replies are rolled back (a call written as text, a refusal, an empty
  reply, an unknown tool) and the one-line note the retry carries;
- ``turn``: a user turn's counters and the decision about each reply (accept, ask again,
  stop), with the request plan of a retry;
- ``continuation``: answers cut at the output limit (prefill, continue_final_message, a
  larger limit);
- ``repetition``: an answer that keeps repeating itself while it streams;
- ``calls``: duplicate read-only calls, doom loops, failures in a row.

Beside the package (they drive engine parts, so they sit in ``app/engine`` itself):
``app/engine/loop/step_calls.py`` runs one step's tool calls under the loop and failure guards,
``app/engine/loop/attempts.py`` the ``-p`` fresh attempts with a failure summary and the answer
pool. Nothing in this package imports the rest of the engine.
"""
