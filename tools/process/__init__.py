"""Processes tools start: ``environment`` (lull's environment minus secrets), ``group`` (a
whole process group stopped: SIGTERM, a grace period, SIGKILL)."""
