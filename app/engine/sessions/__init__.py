"""Sessions: the conversation and its JSONL file. ``session`` (the live session: transcript,
edits, ids), ``record`` (what a file line holds), ``store`` (finding, opening, forking),
``load`` (reading a file back: damaged lines skipped, pairing repaired), ``writer`` (the locked
appender; a write error keeps records in memory), ``pairing`` (every tool call has one result
right after it), ``notes`` (session notes in force, and the user's ``/notes``)."""
