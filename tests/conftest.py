"""Shared pytest set-up: Qt renders offscreen unless the caller chose a platform, and the app's
settings (recent files, window layout) go to a scratch file, never to the user's own."""
import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["TOKVIZ_SETTINGS"] = os.path.join(tempfile.mkdtemp(prefix="tokviz-tests-"), "settings.ini")
