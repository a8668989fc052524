"""Pure context policies: the view, idle cleanup, compression planning and its prompt,
truncation, cache-aware assembly, the cache-break detector, token counting. No provider calls."""
