"""Sub-agents: the ``task`` tool (``task``: a child agent on its own session, its tools and
approvals narrowed from the parent's) and custom agents from ``agents/*.md`` (``profiles``)."""
