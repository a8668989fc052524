"""The TUI's screens (modals)."""
