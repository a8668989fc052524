"""Images and attachments: ``images`` (image files a model can see), ``mentions`` (``@path``
attachments), ``clipboard`` (a clipboard image saved as a PNG)."""
