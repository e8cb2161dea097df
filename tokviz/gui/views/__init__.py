"""The central views of the window: the token view and the tabs beside it (Chat, Compare, Statistics,
Vocabulary), and the pictures of how a word is cut (trace, merge tree)."""
