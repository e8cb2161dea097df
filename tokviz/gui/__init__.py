"""The desktop app (PySide6).  The only package of tokviz that imports Qt.

Modules: `app` (run the app), `main_window` (the explorer window), `token_view` (coloured
tokens), `workers` (loading/encoding off the UI thread), `screenshot` (render views to PNG),
`platform` (can a window open here?), `files` (what a dropped file is), `style` (fonts, colours).
"""
