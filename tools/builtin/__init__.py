"""The built-in tools the model is offered, one module each."""
