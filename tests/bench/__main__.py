"""Run every benchmark and print its figures: `python -m tests.bench` (`make bench`).

Each figure is printed next to a baseline measured in the same run (a bare `import anthropic`,
Claude Code when installed, a fresh session, a 5k-token session, a short answer) and the goal
it has, where issue 16 set one; nothing is asserted.
"""

from tests.bench import (
    compression,
    cost,
    idle_savings,
    mcp_start,
    oneshot,
    requests,
    resume,
    sandbox,
    startup,
    tui,
)

oneshot.main()
print()
requests.main()
print()
resume.main()
print()
startup.main()
print()
mcp_start.main()
print()
sandbox.main()
print()
tui.main()
print()
idle_savings.main()
print()
compression.main()
print()
cost.main()
