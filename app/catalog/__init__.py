"""Facts about models: context windows, prices, the system prompt and environment block,
cache lifetimes, local model servers."""
