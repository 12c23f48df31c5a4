"""The `foldchat` command line. Textual is imported only when the interactive app starts."""
