"""Checkpoints: what files held before lull changed them, for ``/undo`` and ``/rewind``.
``files`` (the content store and each session's log), ``shell`` (what a shell command changed in
a git work tree), ``rewind`` (the conversation's part of ``/rewind``, a context edit)."""
